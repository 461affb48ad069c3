import BinaryIO

/// One array of NAL units in a decoder configuration record.
public struct NALUnitArray: Hashable, Sendable {
    public var arrayCompleteness: Bool
    /// The reserved bit between array_completeness and NAL_unit_type, kept verbatim.
    public var reservedBit: Bool
    public var nalUnitType: NALUnitType
    /// Complete NAL units (header included, emulation prevention kept).
    public var nalUnits: [[UInt8]]
    public init(
        arrayCompleteness: Bool = true, reservedBit: Bool = false, nalUnitType: NALUnitType, nalUnits: [[UInt8]]
    ) {
        self.arrayCompleteness = arrayCompleteness
        self.reservedBit = reservedBit
        self.nalUnitType = nalUnitType
        self.nalUnits = nalUnits
    }

    static func read(_ r: inout ByteReader) throws(ParseError) -> [NALUnitArray] {
        let count = try r.readU8()
        var arrays: [NALUnitArray] = []
        for _ in 0..<count {
            let b = try r.readU8()
            let n = try r.readU16()
            var nals: [[UInt8]] = []
            for _ in 0..<n {
                let len = try r.readU16()
                nals.append(try r.readBytes(Int(len)))
            }
            arrays.append(
                NALUnitArray(
                    arrayCompleteness: b & 0x80 != 0, reservedBit: b & 0x40 != 0,
                    nalUnitType: NALUnitType(rawValue: b & 0x3F), nalUnits: nals))
        }
        return arrays
    }
    static func write(_ arrays: [NALUnitArray], _ w: inout ByteWriter) throws(ParseError) {
        guard arrays.count <= 255 else {
            throw ParseError(.unwritable, offset: UInt64(w.count), "\(arrays.count) NAL arrays (max 255)")
        }
        w.writeU8(UInt8(arrays.count))
        for a in arrays {
            w.writeU8((a.arrayCompleteness ? 0x80 : 0) | (a.reservedBit ? 0x40 : 0) | a.nalUnitType.rawValue & 0x3F)
            guard a.nalUnits.count <= 0xFFFF else {
                throw ParseError(.unwritable, offset: UInt64(w.count), "too many NAL units in one array")
            }
            w.writeU16(UInt16(a.nalUnits.count))
            for n in a.nalUnits {
                guard n.count <= 0xFFFF else {
                    throw ParseError(.unwritable, offset: UInt64(w.count), "NAL unit of \(n.count) bytes exceeds 65535")
                }
                w.writeU16(UInt16(n.count))
                w.write(n)
            }
        }
    }
}

/// `HEVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §8.3.3), the payload of an `hvcC` box.
/// Reserved bits and any bytes after the arrays are stored so that serialization is byte-identical.
public struct HEVCDecoderConfigurationRecord: Hashable, Sendable {
    public var configurationVersion: UInt8 = 1
    public var profileSpace: UInt8 = 0
    public var tierFlag = false
    public var profileIdc: UInt8 = 1
    public var compatibilityFlags: UInt32 = 0
    /// 48 bits.
    public var constraintIndicatorFlags: UInt64 = 0
    public var levelIdc: UInt8 = 0
    public var reserved1: UInt8 = 0xF
    public var minSpatialSegmentationIdc: UInt16 = 0
    public var reserved2: UInt8 = 0x3F
    public var parallelismType: UInt8 = 0
    public var reserved3: UInt8 = 0x3F
    public var chromaFormatIdc: UInt8 = 1
    public var reserved4: UInt8 = 0x1F
    public var bitDepthLumaMinus8: UInt8 = 0
    public var reserved5: UInt8 = 0x1F
    public var bitDepthChromaMinus8: UInt8 = 0
    public var avgFrameRate: UInt16 = 0
    public var constantFrameRate: UInt8 = 0
    public var numTemporalLayers: UInt8 = 1
    public var temporalIdNested = false
    public var lengthSizeMinusOne: UInt8 = 3
    public var arrays: [NALUnitArray] = []
    /// Bytes after the last array, kept verbatim.
    public var trailingBytes: [UInt8] = []

    public init() {}

    /// Parses the record (the `hvcC` box payload).
    public init(parsing bytes: [UInt8], baseOffset: UInt64 = 0) throws(ParseError) {
        var r = ByteReader(bytes, baseOffset: baseOffset)
        configurationVersion = try r.readU8()
        let b = try r.readU8()
        profileSpace = b >> 6; tierFlag = b & 0x20 != 0; profileIdc = b & 0x1F
        compatibilityFlags = try r.readU32()
        constraintIndicatorFlags = try r.readUInt(byteCount: 6)
        levelIdc = try r.readU8()
        let s = try r.readU16()
        reserved1 = UInt8(s >> 12); minSpatialSegmentationIdc = s & 0xFFF
        let p = try r.readU8(); reserved2 = p >> 2; parallelismType = p & 3
        let cf = try r.readU8(); reserved3 = cf >> 2; chromaFormatIdc = cf & 3
        let bl = try r.readU8(); reserved4 = bl >> 3; bitDepthLumaMinus8 = bl & 7
        let bc = try r.readU8(); reserved5 = bc >> 3; bitDepthChromaMinus8 = bc & 7
        avgFrameRate = try r.readU16()
        let t = try r.readU8()
        constantFrameRate = t >> 6; numTemporalLayers = (t >> 3) & 7; temporalIdNested = t & 4 != 0;
        lengthSizeMinusOne = t & 3
        arrays = try NALUnitArray.read(&r)
        trailingBytes = r.readRemaining()
    }

    /// The record bytes.
    public func serialized() throws(ParseError) -> [UInt8] {
        var w = ByteWriter()
        w.writeU8(configurationVersion)
        w.writeU8((profileSpace & 3) << 6 | (tierFlag ? 0x20 : 0) | profileIdc & 0x1F)
        w.writeU32(compatibilityFlags)
        w.writeUInt(constraintIndicatorFlags & 0xFFFF_FFFF_FFFF, byteCount: 6)
        w.writeU8(levelIdc)
        w.writeU16(UInt16(reserved1 & 0xF) << 12 | minSpatialSegmentationIdc & 0xFFF)
        w.writeU8((reserved2 & 0x3F) << 2 | parallelismType & 3)
        w.writeU8((reserved3 & 0x3F) << 2 | chromaFormatIdc & 3)
        w.writeU8((reserved4 & 0x1F) << 3 | bitDepthLumaMinus8 & 7)
        w.writeU8((reserved5 & 0x1F) << 3 | bitDepthChromaMinus8 & 7)
        w.writeU16(avgFrameRate)
        w.writeU8(
            (constantFrameRate & 3) << 6 | (numTemporalLayers & 7) << 3 | (temporalIdNested ? 4 : 0)
                | lengthSizeMinusOne & 3)
        try NALUnitArray.write(arrays, &w)
        w.write(trailingBytes)
        return w.bytes
    }

    /// NAL length size in bytes (1, 2 or 4).
    public var lengthSize: Int { Int(lengthSizeMinusOne) + 1 }
    /// All NAL units of all arrays, in order.
    public func nalUnits() -> [NALUnit] { arrays.flatMap { $0.nalUnits }.compactMap { try? NALUnit(bytes: $0) } }

    /// Builds a record from parameter sets and SEI NAL units (complete NAL units, emulation prevention kept),
    /// taking profile/tier/level from the first SPS (or the VPS) and chroma/bit depth from the SPS.
    public init(
        vps: [NALUnit], sps: [NALUnit], pps: [NALUnit], sei: [NALUnit] = [], lengthSize: Int = 4,
        completeness: Bool = true
    ) throws(ParseError) {
        self.init()
        guard let first = sps.first else { throw ParseError(.invalidValue, "an hvcC record needs an SPS") }
        let s = try SequenceParameterSet(nal: first)
        let v = try vps.first.map { (n: NALUnit) throws(ParseError) -> VideoParameterSet in
            try VideoParameterSet(nal: n)
        }
        let ptl = s.isMultiLayerExtension ? (v?.profileTierLevel ?? s.profileTierLevel) : s.profileTierLevel
        profileSpace = ptl.profileSpace; tierFlag = ptl.tierFlag; profileIdc = ptl.profileIdc
        compatibilityFlags = ptl.compatibilityFlags; constraintIndicatorFlags = ptl.constraintFlags;
        levelIdc = ptl.levelIdc
        chromaFormatIdc = UInt8(truncatingIfNeeded: s.chromaFormatIdc)
        bitDepthLumaMinus8 = UInt8(truncatingIfNeeded: s.bitDepthLumaMinus8)
        bitDepthChromaMinus8 = UInt8(truncatingIfNeeded: s.bitDepthChromaMinus8)
        if s.vuiPresent && s.vui.bitstreamRestriction {
            minSpatialSegmentationIdc = UInt16(truncatingIfNeeded: s.vui.minSpatialSegmentationIdc)
        }
        numTemporalLayers = UInt8(s.maxSubLayersMinus1(vps: v) + 1)
        temporalIdNested = s.temporalIdNesting
        guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
            throw ParseError(.invalidValue, "length size \(lengthSize)")
        }
        lengthSizeMinusOne = UInt8(lengthSize - 1)
        arrays = makeArrays(vps: vps, sps: sps, pps: pps, sei: sei, completeness: completeness)
    }
}

func makeArrays(vps: [NALUnit], sps: [NALUnit], pps: [NALUnit], sei: [NALUnit], completeness: Bool) -> [NALUnitArray] {
    var out: [NALUnitArray] = []
    for (t, list) in [(NALUnitType.vps, vps), (.sps, sps), (.pps, pps)] where !list.isEmpty {
        out.append(NALUnitArray(arrayCompleteness: completeness, nalUnitType: t, nalUnits: list.map { $0.bytes }))
    }
    let prefix = sei.filter { $0.type == .prefixSEI }, suffix = sei.filter { $0.type == .suffixSEI }
    if !prefix.isEmpty {
        out.append(
            NALUnitArray(arrayCompleteness: completeness, nalUnitType: .prefixSEI, nalUnits: prefix.map { $0.bytes }))
    }
    if !suffix.isEmpty {
        out.append(
            NALUnitArray(arrayCompleteness: completeness, nalUnitType: .suffixSEI, nalUnits: suffix.map { $0.bytes }))
    }
    return out
}

/// `LHEVCDecoderConfigurationRecord` (ISO/IEC 14496-15 §9.6.3), the payload of an `lhvC` box.
public struct LHEVCDecoderConfigurationRecord: Hashable, Sendable {
    public var configurationVersion: UInt8 = 1
    public var reserved1: UInt8 = 0xF
    public var minSpatialSegmentationIdc: UInt16 = 0
    public var reserved2: UInt8 = 0x3F
    public var parallelismType: UInt8 = 0
    public var reserved3: UInt8 = 0x3
    public var numTemporalLayers: UInt8 = 1
    public var temporalIdNested = false
    public var lengthSizeMinusOne: UInt8 = 3
    public var arrays: [NALUnitArray] = []
    public var trailingBytes: [UInt8] = []

    public init() {}

    /// Parses the record (the `lhvC` box payload).
    public init(parsing bytes: [UInt8], baseOffset: UInt64 = 0) throws(ParseError) {
        var r = ByteReader(bytes, baseOffset: baseOffset)
        configurationVersion = try r.readU8()
        let s = try r.readU16()
        reserved1 = UInt8(s >> 12); minSpatialSegmentationIdc = s & 0xFFF
        let p = try r.readU8(); reserved2 = p >> 2; parallelismType = p & 3
        let t = try r.readU8()
        reserved3 = t >> 6; numTemporalLayers = (t >> 3) & 7; temporalIdNested = t & 4 != 0; lengthSizeMinusOne = t & 3
        arrays = try NALUnitArray.read(&r)
        trailingBytes = r.readRemaining()
    }

    /// The record bytes.
    public func serialized() throws(ParseError) -> [UInt8] {
        var w = ByteWriter()
        w.writeU8(configurationVersion)
        w.writeU16(UInt16(reserved1 & 0xF) << 12 | minSpatialSegmentationIdc & 0xFFF)
        w.writeU8((reserved2 & 0x3F) << 2 | parallelismType & 3)
        w.writeU8(
            (reserved3 & 3) << 6 | (numTemporalLayers & 7) << 3 | (temporalIdNested ? 4 : 0) | lengthSizeMinusOne & 3)
        try NALUnitArray.write(arrays, &w)
        w.write(trailingBytes)
        return w.bytes
    }

    public var lengthSize: Int { Int(lengthSizeMinusOne) + 1 }
    public func nalUnits() -> [NALUnit] { arrays.flatMap { $0.nalUnits }.compactMap { try? NALUnit(bytes: $0) } }

    /// Builds a record for the non-base layers from their parameter sets and SEI NAL units.
    public init(
        vps: [NALUnit] = [], sps: [NALUnit], pps: [NALUnit], sei: [NALUnit] = [], lengthSize: Int = 4,
        numTemporalLayers: UInt8 = 1, temporalIdNested: Bool = false, completeness: Bool = true
    ) throws(ParseError) {
        self.init()
        guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
            throw ParseError(.invalidValue, "length size \(lengthSize)")
        }
        lengthSizeMinusOne = UInt8(lengthSize - 1)
        self.numTemporalLayers = numTemporalLayers & 7
        self.temporalIdNested = temporalIdNested
        arrays = makeArrays(vps: vps, sps: sps, pps: pps, sei: sei, completeness: completeness)
    }
}
