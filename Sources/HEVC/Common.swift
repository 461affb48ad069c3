import BinaryIO

/// `profile_tier_level(profilePresentFlag, maxNumSubLayersMinus1)` (§7.3.3).
///
/// The general profile and level are modelled; the sub-layer flags are modelled and the sub-layer
/// profile/level data is kept as raw bits.
public struct ProfileTierLevel: Hashable, Sendable {
    /// Whether the general profile fields are coded (`profilePresentFlag`); not itself coded here.
    public var profilePresent: Bool = true
    public var profileSpace: UInt8 = 0
    public var tierFlag: Bool = false
    /// `general_profile_idc` (1 Main, 2 Main 10, 4 RExt, 6 Multiview Main, 7 Scalable Main …).
    public var profileIdc: UInt8 = 0
    /// `general_profile_compatibility_flag[0…31]`, flag 0 in the most significant bit.
    public var compatibilityFlags: UInt32 = 0
    /// The 48 bits after the compatibility flags: progressive, interlaced, non-packed, frame-only and the
    /// 44 constraint/reserved bits, as stored in `hvcC`'s `general_constraint_indicator_flags`.
    public var constraintFlags: UInt64 = 0
    /// `general_level_idc` (30 × level number).
    public var levelIdc: UInt8 = 0
    public var subLayerProfilePresent: [Bool] = []
    public var subLayerLevelPresent: [Bool] = []
    /// Alignment bits and the sub-layer profile/level data, verbatim.
    public var subLayerData = RawBits.empty

    public init() {}

    mutating func code<C: BitCoder>(_ c: inout C, profilePresent pp: Bool, maxSubLayersMinus1 msl: Int)
        throws(ParseError)
    {
        profilePresent = pp
        if pp {
            try c.u8(&profileSpace, 2)
            try c.flag(&tierFlag)
            try c.u8(&profileIdc, 5)
            try c.u32(&compatibilityFlags, 32)
            try c.bits(&constraintFlags, 48)
        }
        try c.u8(&levelIdc, 8)
        let n = max(0, min(msl, 7))
        if c.isReading { subLayerProfilePresent = []; subLayerLevelPresent = [] }
        guard c.isReading || (subLayerProfilePresent.count == n && subLayerLevelPresent.count == n) else {
            throw c.fail(.unwritable, "sub-layer flag arrays need \(n) entries")
        }
        for i in 0..<n {
            var p = c.isReading ? false : subLayerProfilePresent[i]
            var l = c.isReading ? false : subLayerLevelPresent[i]
            try c.flag(&p); try c.flag(&l)
            if c.isReading { subLayerProfilePresent.append(p); subLayerLevelPresent.append(l) }
        }
        var count = n > 0 ? 2 * (8 - n) : 0
        for i in 0..<n {
            if subLayerProfilePresent[i] { count += 88 }
            if subLayerLevelPresent[i] { count += 8 }
        }
        try c.raw(&subLayerData, count: count)
    }
}

/// `hrd_parameters()` (§E.2.2) — parsed to find its length and kept as raw bits.
enum HRD {
    static func skip<C: BitCoder>(_ c: inout C, commonInf: Bool, maxSubLayersMinus1: Int) throws(ParseError) {
        var nal = false, vcl = false, subPic = false
        var t: UInt32 = 0
        var f = false
        if commonInf {
            try c.flag(&nal); try c.flag(&vcl)
            if nal || vcl {
                try c.flag(&subPic)
                if subPic { try c.u32(&t, 8); try c.u32(&t, 5); try c.flag(&f); try c.u32(&t, 5) }
                try c.u32(&t, 4); try c.u32(&t, 4)
                if subPic { try c.u32(&t, 4) }
                try c.u32(&t, 5); try c.u32(&t, 5); try c.u32(&t, 5)
            }
        }
        for _ in 0...max(0, min(maxSubLayersMinus1, 7)) {
            var general = false, withinCvs = false, lowDelay = false
            var cpbCnt: UInt32 = 0
            try c.flag(&general)
            withinCvs = general
            if !general { try c.flag(&withinCvs) }
            if withinCvs { try c.ue(&t) } else { try c.flag(&lowDelay) }
            if !lowDelay { try c.ue(&cpbCnt, max: 31, "cpb_cnt_minus1") }
            for present in [nal, vcl] where present {
                for _ in 0...Int(cpbCnt) {
                    try c.ue(&t); try c.ue(&t)
                    if subPic { try c.ue(&t); try c.ue(&t) }
                    try c.flag(&f)
                }
            }
        }
    }
}

/// `scaling_list_data()` (§7.3.4) — parsed to find its length and kept as raw bits.
enum ScalingList {
    static func skip<C: BitCoder>(_ c: inout C) throws(ParseError) {
        var t: UInt32 = 0
        var s: Int32 = 0
        for sizeId in 0..<4 {
            var matrixId = 0
            while matrixId < 6 {
                var predMode = false
                try c.flag(&predMode)
                if !predMode {
                    try c.ue(
                        &t, max: UInt32(sizeId == 3 ? matrixId / 3 : matrixId), "scaling_list_pred_matrix_id_delta")
                } else {
                    let coefNum = min(64, 1 << (4 + (sizeId << 1)))
                    if sizeId > 1 { try c.se(&s, min: -7, max: 247, "scaling_list_dc_coef_minus8") }
                    for _ in 0..<coefNum { try c.se(&s, min: -128, max: 127, "scaling_list_delta_coef") }
                }
                matrixId += sizeId == 3 ? 3 : 1
            }
        }
    }
}

/// `vui_parameters()` (§E.2.1). HRD parameters are kept as raw bits.
public struct VUIParameters: Hashable, Sendable {
    public var aspectRatioInfoPresent = false
    public var aspectRatioIdc: UInt8 = 0
    public var sarWidth: UInt16 = 0
    public var sarHeight: UInt16 = 0
    public var overscanInfoPresent = false
    public var overscanAppropriate = false
    public var videoSignalTypePresent = false
    public var videoFormat: UInt8 = 5
    public var videoFullRange = false
    public var colourDescriptionPresent = false
    public var colourPrimaries: UInt8 = 2
    public var transferCharacteristics: UInt8 = 2
    public var matrixCoeffs: UInt8 = 2
    public var chromaLocInfoPresent = false
    public var chromaSampleLocTypeTopField: UInt32 = 0
    public var chromaSampleLocTypeBottomField: UInt32 = 0
    public var neutralChromaIndication = false
    public var fieldSeq = false
    public var frameFieldInfoPresent = false
    public var defaultDisplayWindowPresent = false
    public var defaultDisplayWindow: [UInt32] = [0, 0, 0, 0]
    public var timingInfoPresent = false
    public var numUnitsInTick: UInt32 = 0
    public var timeScale: UInt32 = 0
    public var pocProportionalToTiming = false
    public var numTicksPocDiffOneMinus1: UInt32 = 0
    public var hrdParametersPresent = false
    /// `hrd_parameters(1, sps_max_sub_layers_minus1)`, verbatim.
    public var hrdParameters = RawBits.empty
    public var bitstreamRestriction = false
    public var tilesFixedStructure = false
    public var motionVectorsOverPicBoundaries = false
    public var restrictedRefPicLists = false
    public var minSpatialSegmentationIdc: UInt32 = 0
    public var maxBytesPerPicDenom: UInt32 = 0
    public var maxBitsPerMinCuDenom: UInt32 = 0
    public var log2MaxMvLengthHorizontal: UInt32 = 0
    public var log2MaxMvLengthVertical: UInt32 = 0

    public init() {}

    mutating func code<C: BitCoder>(_ c: inout C, maxSubLayersMinus1: Int) throws(ParseError) {
        try c.flag(&aspectRatioInfoPresent)
        if aspectRatioInfoPresent {
            try c.u8(&aspectRatioIdc, 8)
            if aspectRatioIdc == 255 { try c.u16(&sarWidth, 16); try c.u16(&sarHeight, 16) }
        }
        try c.flag(&overscanInfoPresent)
        if overscanInfoPresent { try c.flag(&overscanAppropriate) }
        try c.flag(&videoSignalTypePresent)
        if videoSignalTypePresent {
            try c.u8(&videoFormat, 3)
            try c.flag(&videoFullRange)
            try c.flag(&colourDescriptionPresent)
            if colourDescriptionPresent {
                try c.u8(&colourPrimaries, 8); try c.u8(&transferCharacteristics, 8); try c.u8(&matrixCoeffs, 8)
            }
        }
        try c.flag(&chromaLocInfoPresent)
        if chromaLocInfoPresent {
            try c.ue(&chromaSampleLocTypeTopField, max: 5, "chroma_sample_loc_type_top_field")
            try c.ue(&chromaSampleLocTypeBottomField, max: 5, "chroma_sample_loc_type_bottom_field")
        }
        try c.flag(&neutralChromaIndication)
        try c.flag(&fieldSeq)
        try c.flag(&frameFieldInfoPresent)
        try c.flag(&defaultDisplayWindowPresent)
        if defaultDisplayWindowPresent { try c.ues(&defaultDisplayWindow, count: 4, "def_disp_win_offset") }
        try c.flag(&timingInfoPresent)
        if timingInfoPresent {
            try c.u32(&numUnitsInTick, 32)
            try c.u32(&timeScale, 32)
            try c.flag(&pocProportionalToTiming)
            if pocProportionalToTiming { try c.ue(&numTicksPocDiffOneMinus1) }
            try c.flag(&hrdParametersPresent)
            if hrdParametersPresent {
                try c.opaque(&hrdParameters) { (c: inout C) throws(ParseError) in
                    try HRD.skip(&c, commonInf: true, maxSubLayersMinus1: maxSubLayersMinus1)
                }
            }
        }
        try c.flag(&bitstreamRestriction)
        if bitstreamRestriction {
            try c.flag(&tilesFixedStructure)
            try c.flag(&motionVectorsOverPicBoundaries)
            try c.flag(&restrictedRefPicLists)
            try c.ue(&minSpatialSegmentationIdc, max: 4095, "min_spatial_segmentation_idc")
            try c.ue(&maxBytesPerPicDenom, max: 16, "max_bytes_per_pic_denom")
            try c.ue(&maxBitsPerMinCuDenom, max: 16, "max_bits_per_min_cu_denom")
            try c.ue(&log2MaxMvLengthHorizontal, max: 16, "log2_max_mv_length_horizontal")
            try c.ue(&log2MaxMvLengthVertical, max: 16, "log2_max_mv_length_vertical")
        }
    }
}

/// `st_ref_pic_set(stRpsIdx)` (§7.3.7) with the derived delta POC lists of §7.4.8.
public struct ShortTermRefPicSet: Hashable, Sendable {
    public var interRefPicSetPrediction = false
    /// Only coded for the set in a slice header (stRpsIdx == num_short_term_ref_pic_sets).
    public var deltaIdxMinus1: UInt32 = 0
    public var deltaRpsSign = false
    public var absDeltaRpsMinus1: UInt32 = 0
    /// Inter prediction: `used_by_curr_pic_flag[j]`.
    public var usedByCurrPicFlag: [Bool] = []
    /// Inter prediction: `use_delta_flag[j]` (true where not coded).
    public var useDeltaFlag: [Bool] = []
    public var deltaPocS0Minus1: [UInt32] = []
    public var usedByCurrPicS0Flag: [Bool] = []
    public var deltaPocS1Minus1: [UInt32] = []
    public var usedByCurrPicS1Flag: [Bool] = []

    /// Derived `DeltaPocS0` (negative, decreasing).
    public internal(set) var deltaPocS0: [Int] = []
    public internal(set) var usedByCurrS0: [Bool] = []
    /// Derived `DeltaPocS1` (positive, increasing).
    public internal(set) var deltaPocS1: [Int] = []
    public internal(set) var usedByCurrS1: [Bool] = []

    public init() {}

    /// `NumDeltaPocs`.
    public var numDeltaPocs: Int { deltaPocS0.count + deltaPocS1.count }
    /// Pictures of this set used by the current picture.
    public var numUsedByCurr: Int { usedByCurrS0.filter { $0 }.count + usedByCurrS1.filter { $0 }.count }

    mutating func code<C: BitCoder>(_ c: inout C, index: Int, numSets: Int, previous: [ShortTermRefPicSet])
        throws(ParseError)
    {
        if index != 0 { try c.flag(&interRefPicSetPrediction) } else if c.isReading { interRefPicSetPrediction = false }
        if interRefPicSetPrediction {
            if index == numSets {
                try c.ue(&deltaIdxMinus1, max: UInt32(max(0, index - 1)), "delta_idx_minus1")
            } else if c.isReading {
                deltaIdxMinus1 = 0
            }
            let refIdx = index - (Int(deltaIdxMinus1) + 1)
            guard refIdx >= 0 && refIdx < previous.count else {
                throw c.fail(.invalidValue, "RefRpsIdx \(refIdx) out of range")
            }
            try c.flag(&deltaRpsSign)
            try c.ue(&absDeltaRpsMinus1, max: 32767, "abs_delta_rps_minus1")
            let ref = previous[refIdx]
            let n = ref.numDeltaPocs
            if c.isReading { usedByCurrPicFlag = []; useDeltaFlag = [] }
            guard c.isReading || (usedByCurrPicFlag.count == n + 1 && useDeltaFlag.count == n + 1) else {
                throw c.fail(.unwritable, "inter RPS flag arrays need \(n + 1) entries")
            }
            for j in 0...n {
                var used = c.isReading ? false : usedByCurrPicFlag[j]
                var useDelta = c.isReading ? true : useDeltaFlag[j]
                try c.flag(&used)
                if !used { try c.flag(&useDelta) } else { useDelta = true }
                if c.isReading { usedByCurrPicFlag.append(used); useDeltaFlag.append(useDelta) }
            }
            if c.isReading { try derive(reference: ref, c) }
        } else {
            var nNeg = UInt32(deltaPocS0Minus1.count), nPos = UInt32(deltaPocS1Minus1.count)
            try c.ue(&nNeg, max: 16, "num_negative_pics")
            try c.ue(&nPos, max: 16, "num_positive_pics")
            try c.require(nNeg + nPos <= 32, "num_negative_pics + num_positive_pics > 32")
            if c.isReading {
                deltaPocS0Minus1 = []; usedByCurrPicS0Flag = []; deltaPocS1Minus1 = []; usedByCurrPicS1Flag = []
            }
            guard c.isReading || (usedByCurrPicS0Flag.count == Int(nNeg) && usedByCurrPicS1Flag.count == Int(nPos))
            else {
                throw c.fail(.unwritable, "RPS used-flag arrays do not match the delta arrays")
            }
            for i in 0..<Int(nNeg) {
                var d = c.isReading ? 0 : deltaPocS0Minus1[i]
                var u = c.isReading ? false : usedByCurrPicS0Flag[i]
                try c.ue(&d, max: 32767, "delta_poc_s0_minus1"); try c.flag(&u)
                if c.isReading { deltaPocS0Minus1.append(d); usedByCurrPicS0Flag.append(u) }
            }
            for i in 0..<Int(nPos) {
                var d = c.isReading ? 0 : deltaPocS1Minus1[i]
                var u = c.isReading ? false : usedByCurrPicS1Flag[i]
                try c.ue(&d, max: 32767, "delta_poc_s1_minus1"); try c.flag(&u)
                if c.isReading { deltaPocS1Minus1.append(d); usedByCurrPicS1Flag.append(u) }
            }
            if c.isReading { deriveExplicit() }
        }
    }

    mutating func deriveExplicit() {
        deltaPocS0 = []; deltaPocS1 = []
        var p = 0
        for d in deltaPocS0Minus1 { p -= Int(d) + 1; deltaPocS0.append(p) }
        p = 0
        for d in deltaPocS1Minus1 { p += Int(d) + 1; deltaPocS1.append(p) }
        usedByCurrS0 = usedByCurrPicS0Flag
        usedByCurrS1 = usedByCurrPicS1Flag
    }

    mutating func derive<C: BitCoder>(reference ref: ShortTermRefPicSet, _ c: C) throws(ParseError) {
        let deltaRps = (deltaRpsSign ? -1 : 1) * (Int(absDeltaRpsMinus1) + 1)
        let nNeg = ref.deltaPocS0.count, nPos = ref.deltaPocS1.count, nAll = nNeg + nPos
        guard usedByCurrPicFlag.count == nAll + 1, useDeltaFlag.count == nAll + 1 else { return }
        var s0: [Int] = [], u0: [Bool] = [], s1: [Int] = [], u1: [Bool] = []
        for j in stride(from: nPos - 1, through: 0, by: -1) {
            let d = ref.deltaPocS1[j] + deltaRps
            if d < 0 && useDeltaFlag[nNeg + j] { s0.append(d); u0.append(usedByCurrPicFlag[nNeg + j]) }
        }
        if deltaRps < 0 && useDeltaFlag[nAll] { s0.append(deltaRps); u0.append(usedByCurrPicFlag[nAll]) }
        for j in 0..<nNeg {
            let d = ref.deltaPocS0[j] + deltaRps
            if d < 0 && useDeltaFlag[j] { s0.append(d); u0.append(usedByCurrPicFlag[j]) }
        }
        for j in stride(from: nNeg - 1, through: 0, by: -1) {
            let d = ref.deltaPocS0[j] + deltaRps
            if d > 0 && useDeltaFlag[j] { s1.append(d); u1.append(usedByCurrPicFlag[j]) }
        }
        if deltaRps > 0 && useDeltaFlag[nAll] { s1.append(deltaRps); u1.append(usedByCurrPicFlag[nAll]) }
        for j in 0..<nPos {
            let d = ref.deltaPocS1[j] + deltaRps
            if d > 0 && useDeltaFlag[nNeg + j] { s1.append(d); u1.append(usedByCurrPicFlag[nNeg + j]) }
        }
        guard s0.count <= 16 && s1.count <= 16 else {
            throw c.fail(
                .invalidValue, "derived reference picture set has \(s0.count)+\(s1.count) pictures (max 16+16)")
        }
        deltaPocS0 = s0; usedByCurrS0 = u0; deltaPocS1 = s1; usedByCurrS1 = u1
    }
}

/// A parameter set alone in its NAL unit (VPS, PPS): reading it from a NAL unit and writing the NAL unit back are
/// the same for each, so they are written once here.
public protocol ParameterSetNAL {
    /// The NAL unit type that carries the structure.
    static var nalType: NALUnitType { get }
    var header: NALHeader { get }
    /// Parses the structure from its RBSP; `baseOffset` is the file offset of the RBSP's first byte.
    init(rbsp: [UInt8], header: NALHeader, baseOffset: UInt64) throws(ParseError)
    /// The RBSP, re-encoded from the properties.
    func rbsp() throws(ParseError) -> [UInt8]
}

extension ParameterSetNAL {
    /// Parses the structure from a NAL unit of its type.
    public init(nal: NALUnit) throws(ParseError) {
        guard nal.type == Self.nalType else {
            throw ParseError(.invalidValue, offset: nal.offset, "not a \(Self.nalType) NAL unit (\(nal.type))")
        }
        try self.init(rbsp: nal.rbsp, header: nal.header, baseOffset: nal.offset &+ 2)
    }
    /// The complete NAL unit with emulation prevention.
    public func nalUnit() throws(ParseError) -> NALUnit { NALUnit(header: header, rbsp: try rbsp()) }
}

/// Helpers shared by the parameter-set types.
/// A syntax structure coded by one `code` function for read and write, alone in its RBSP (VPS, PPS): the
/// read and write wrappers are written once here.
protocol RBSPSyntax {
    init()
    var header: NALHeader { get set }
    var trailingZeroBytes: Int { get set }
    mutating func code<C: BitCoder>(_ c: inout C) throws(ParseError)
}

extension RBSPSyntax {
    /// A value read from `rbsp` (which must end with the stop bit).
    static func decoded(rbsp: [UInt8], header: NALHeader, baseOffset: UInt64) throws(ParseError) -> Self {
        var me = Self()
        me.header = header
        let r = try RBSPCoding.read(rbsp, baseOffset: baseOffset) { (c: inout RBSPReader) throws(ParseError) in
            try me.code(&c)
        }
        me.trailingZeroBytes = r.trailingZeroBytes
        return me
    }
    /// The RBSP written from the properties (with the trailing zero bytes read).
    func encodedRBSP() throws(ParseError) -> [UInt8] {
        var w = RBSPWriter()
        var copy = self
        try copy.code(&w)
        return w.finish(zeroBytes: trailingZeroBytes)
    }
}

enum RBSPCoding {
    /// Parses an RBSP with `body`, returning the reader for trailing-bit bookkeeping.
    static func read(_ rbsp: [UInt8], baseOffset: UInt64, _ body: (inout RBSPReader) throws(ParseError) -> Void)
        throws(ParseError) -> RBSPReader
    {
        var r = RBSPReader(rbsp, baseOffset: baseOffset)
        guard r.hasStopBit else { throw ParseError(.invalidValue, offset: baseOffset, "RBSP has no rbsp_stop_one_bit") }
        try body(&r)
        return r
    }
}
