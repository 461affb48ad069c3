import BinaryIO
import SystemSupport

/// `trex` TrackExtendsBox (§8.8.3).
public struct TrackExtendsBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var trackID, defaultSampleDescriptionIndex, defaultSampleDuration, defaultSampleSize,
        defaultSampleFlags: UInt32
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        trackID = try r.readU32(); defaultSampleDescriptionIndex = try r.readU32();
        defaultSampleDuration = try r.readU32()
        defaultSampleSize = try r.readU32(); defaultSampleFlags = try r.readU32()
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        for v in [trackID, defaultSampleDescriptionIndex, defaultSampleDuration, defaultSampleSize, defaultSampleFlags]
        { w.writeU32(v) }
    }
    public var summary: String {
        "track_ID=\(trackID) default_duration=\(defaultSampleDuration) default_size=\(defaultSampleSize)"
    }
}

/// `mehd` MovieExtendsHeaderBox (ISO/IEC 14496-12 §8.8.2): the whole fragmented movie's duration, 64-bit
/// in version 1.
public struct MovieExtendsHeaderBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// In the movie timescale.
    public var fragmentDuration: UInt64
    public init(fragmentDuration: UInt64, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.fragmentDuration = fragmentDuration
    }
    public static func fieldWidths(_ h: FullBoxHeader) -> [Int] { [h.version == 1 ? 8 : 4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(fragmentDuration: f[safe: 0] ?? 0, fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [fragmentDuration] }
    public var summary: String { "value=\(fragmentDuration)" }
    public var json: [(String, JSON)] { [("value", .uint(fragmentDuration))] }
}

/// `mfhd` MovieFragmentHeaderBox (ISO/IEC 14496-12 §8.8.5): the fragment's sequence number (32-bit in
/// every version).
public struct MovieFragmentHeaderBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    public var sequenceNumber: UInt32
    public init(sequenceNumber: UInt32, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.sequenceNumber = sequenceNumber
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(sequenceNumber: UInt32(truncatingIfNeeded: f[safe: 0] ?? 0), fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [UInt64(sequenceNumber)] }
    public var summary: String { "value=\(sequenceNumber)" }
    public var json: [(String, JSON)] { [("value", .uint(UInt64(sequenceNumber)))] }
}

/// `tfdt` TrackFragmentBaseMediaDecodeTimeBox (ISO/IEC 14496-12 §8.8.12): the decode time of the
/// fragment's first sample, 64-bit in version 1.
public struct TrackFragmentBaseMediaDecodeTimeBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// In the media timescale.
    public var baseMediaDecodeTime: UInt64
    public init(baseMediaDecodeTime: UInt64, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.baseMediaDecodeTime = baseMediaDecodeTime
    }
    public static func fieldWidths(_ h: FullBoxHeader) -> [Int] { [h.version == 1 ? 8 : 4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(baseMediaDecodeTime: f[safe: 0] ?? 0, fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [baseMediaDecodeTime] }
    public var summary: String { "value=\(baseMediaDecodeTime)" }
    public var json: [(String, JSON)] { [("value", .uint(baseMediaDecodeTime))] }
}

/// `tfhd` TrackFragmentHeaderBox (§8.8.7): optional fields selected by flags.
public struct TrackFragmentHeaderBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var trackID: UInt32
    public var baseDataOffset: UInt64?
    public var sampleDescriptionIndex, defaultSampleDuration, defaultSampleSize, defaultSampleFlags: UInt32?
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let f = fullBox.flags
        trackID = try r.readU32()
        baseDataOffset = f & 0x1 != 0 ? try r.readU64() : nil
        sampleDescriptionIndex = f & 0x2 != 0 ? try r.readU32() : nil
        defaultSampleDuration = f & 0x8 != 0 ? try r.readU32() : nil
        defaultSampleSize = f & 0x10 != 0 ? try r.readU32() : nil
        defaultSampleFlags = f & 0x20 != 0 ? try r.readU32() : nil
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(trackID)
        if let v = baseDataOffset { w.writeU64(v) }
        for v in [sampleDescriptionIndex, defaultSampleDuration, defaultSampleSize, defaultSampleFlags] {
            if let v { w.writeU32(v) }
        }
    }
    public var summary: String { "track_ID=\(trackID) flags=0x\(String(fullBox.flags, radix: 16))" }
}

/// `trun` TrackRunBox (§8.8.8).
///
/// `sampleCount` is the stored sample_count. When the flags select per-sample fields, `samples` holds one
/// entry per sample (so the count is backed by bytes of the box); when they select none, every sample takes
/// the defaults, `samples` stays empty and only the count is kept: a count that no bytes back is never
/// expanded into memory. The writer writes `sampleCount`, then the entries of `samples`.
public struct TrackRunBox: BoxPayload, FullBoxCarrying, Equatable {
    public struct Sample: Sendable, Equatable {
        public var duration, size, flags, compositionOffset: UInt32?
    }
    public var fullBox: FullBoxHeader
    public var sampleCount: UInt32
    public var dataOffset: Int32?
    public var firstSampleFlags: UInt32?
    /// Per-sample fields, one entry per sample; empty when the run has none.
    public var samples: [Sample]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let f = fullBox.flags
        sampleCount = try r.readU32()
        dataOffset = f & 0x1 != 0 ? try r.readI32() : nil
        firstSampleFlags = f & 0x4 != 0 ? try r.readU32() : nil
        let per = [0x100, 0x200, 0x400, 0x800].filter { f & UInt32($0) != 0 }.count * 4
        samples = []
        if per == 0 {
            try Limits.check(
                Int(clamping: sampleCount), context.limits.maxSamples, "maxSamples (trun)", offset: r.absoluteOffset)
            return
        }
        let n = try checkTable(r, count: UInt64(sampleCount), entrySize: per, "trun", context)
        samples.reserveCapacity(n)
        for _ in 0..<n {
            samples.append(
                Sample(
                    duration: f & 0x100 != 0 ? try r.readU32() : nil, size: f & 0x200 != 0 ? try r.readU32() : nil,
                    flags: f & 0x400 != 0 ? try r.readU32() : nil,
                    compositionOffset: f & 0x800 != 0 ? try r.readU32() : nil))
        }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(sampleCount)
        if let v = dataOffset { w.writeI32(v) }
        if let v = firstSampleFlags { w.writeU32(v) }
        for s in samples { for v in [s.duration, s.size, s.flags, s.compositionOffset] { if let v { w.writeU32(v) } } }
    }
    public var summary: String { "sample_count=\(sampleCount)" + (dataOffset.map { " data_offset=\($0)" } ?? "") }
    public var json: [(String, JSON)] { [("sample_count", .uint(UInt64(sampleCount)))] }
}

/// `sidx` SegmentIndexBox (§8.16.3).
public struct SegmentIndexBox: BoxPayload, FullBoxCarrying, Equatable {
    public struct Reference: Sendable, Equatable {
        /// reference_type(1) + referenced_size(31).
        public var typeAndSize: UInt32
        public var subsegmentDuration: UInt32
        /// starts_with_SAP(1) + SAP_type(3) + SAP_delta_time(28).
        public var sap: UInt32
    }
    public var fullBox: FullBoxHeader
    public var referenceID, timescale: UInt32
    public var earliestPresentationTime, firstOffset: UInt64
    public var reserved: UInt16
    public var references: [Reference]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        referenceID = try r.readU32(); timescale = try r.readU32()
        if fullBox.version == 0 {
            earliestPresentationTime = UInt64(try r.readU32()); firstOffset = UInt64(try r.readU32())
        } else {
            earliestPresentationTime = try r.readU64(); firstOffset = try r.readU64()
        }
        reserved = try r.readU16()
        let n = try checkTable(r, count: UInt64(try r.readU16()), entrySize: 12, "sidx", context)
        references = []
        for _ in 0..<n {
            references.append(
                Reference(typeAndSize: try r.readU32(), subsegmentDuration: try r.readU32(), sap: try r.readU32()))
        }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(referenceID); w.writeU32(timescale)
        if fullBox.version == 0 {
            w.writeU32(UInt32(truncatingIfNeeded: earliestPresentationTime));
            w.writeU32(UInt32(truncatingIfNeeded: firstOffset))
        } else {
            w.writeU64(earliestPresentationTime); w.writeU64(firstOffset)
        }
        w.writeU16(reserved); w.writeU16(UInt16(truncatingIfNeeded: references.count))
        for x in references { w.writeU32(x.typeAndSize); w.writeU32(x.subsegmentDuration); w.writeU32(x.sap) }
    }
    public var summary: String { "reference_ID=\(referenceID) timescale=\(timescale) references=\(references.count)" }
}
