import BinaryIO
import SystemSupport

/// `stts` TimeToSampleBox (§8.6.1.2).
public struct TimeToSampleBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var entries: [(count: UInt32, delta: UInt32)]
    public static func == (a: Self, b: Self) -> Bool { a.serialized() == b.serialized() }
    public init(entries: [(count: UInt32, delta: UInt32)]) { fullBox = FullBoxHeader(); self.entries = entries }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let n = try checkTable(r, count: UInt64(try r.readU32()), entrySize: 8, "stts", context)
        entries = []
        entries.reserveCapacity(n)
        for _ in 0..<n { entries.append((try r.readU32(), try r.readU32())) }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(UInt32(truncatingIfNeeded: entries.count))
        for e in entries { w.writeU32(e.count); w.writeU32(e.delta) }
    }
    public var summary: String {
        "\(entries.count) entries" + (entries.first.map { ", first count=\($0.count) delta=\($0.delta)" } ?? "")
    }
    public var json: [(String, JSON)] { [("entry_count", .uint(UInt64(entries.count)))] }
}

/// `ctts` CompositionOffsetBox (§8.6.1.3). Version 0 offsets are unsigned, version 1 signed;
/// both are stored as their 32-bit pattern (written back unchanged). ``offset(_:)`` reads both as signed, as
/// Apple's and FFmpeg's readers do: writers put negative offsets in version 0 boxes, and an unsigned offset of
/// 2^31 ticks or more is never meant.
public struct CompositionOffsetBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var entries: [(count: UInt32, offset: UInt32)]
    public static func == (a: Self, b: Self) -> Bool { a.serialized() == b.serialized() }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let n = try checkTable(r, count: UInt64(try r.readU32()), entrySize: 8, "ctts", context)
        entries = []
        entries.reserveCapacity(n)
        for _ in 0..<n { entries.append((try r.readU32(), try r.readU32())) }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(UInt32(truncatingIfNeeded: entries.count))
        for e in entries { w.writeU32(e.count); w.writeU32(e.offset) }
    }
    /// The offset of an entry in ticks, read as signed whatever the version (see the type's note): a version-0
    /// pattern with the top bit set is a negative offset its writer stored in the wrong version.
    public func offset(_ e: (count: UInt32, offset: UInt32)) -> Int64 {
        Int64(Int32(bitPattern: e.offset))
    }
    /// True when a version-0 box holds an offset with the top bit set (read as negative by ``offset(_:)``).
    public var hasNegativeOffsetsInVersion0: Bool {
        fullBox.version == 0 && entries.contains { $0.offset & 0x8000_0000 != 0 }
    }
    public var summary: String { "\(entries.count) entries" }
    public var json: [(String, JSON)] { [("entry_count", .uint(UInt64(entries.count)))] }
}

/// A FullBox holding a 32-bit entry count and that many 32-bit values. ``SyncSampleBox``,
/// ``PartialSyncSampleBox`` and ``ChunkOffsetBox`` adopt it and share its parse and write.
public protocol U32TablePayload: BoxPayload, FullBoxCarrying {
    var fullBox: FullBoxHeader { get }
    /// The table's values in order.
    var tableValues: [UInt32] { get }
    init(fullBox: FullBoxHeader, tableValues: [UInt32])
}

extension U32TablePayload {
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        let header = try FullBoxHeader(parsing: &r)
        let n = try checkTable(r, count: UInt64(try r.readU32()), entrySize: 4, context.path, context)
        var values: [UInt32] = []
        values.reserveCapacity(n)
        for _ in 0..<n { values.append(try r.readU32()) }
        self.init(fullBox: header, tableValues: values)
    }
    public func write(to w: inout ByteWriter) {
        let values = tableValues
        fullBox.write(to: &w); w.writeU32(UInt32(truncatingIfNeeded: values.count))
        for v in values { w.writeU32(v) }
    }
    public var summary: String {
        let values = tableValues
        return "\(values.count) entries" + (values.isEmpty ? "" : " first=\(values[0])")
    }
    public var json: [(String, JSON)] { [("entry_count", .uint(UInt64(tableValues.count)))] }
}

/// `stss` SyncSampleBox (ISO/IEC 14496-12 §8.6.2): the 1-based numbers of the sync samples.
public struct SyncSampleBox: U32TablePayload, Equatable {
    public var fullBox: FullBoxHeader
    /// 1-based sample numbers, ascending.
    public var sampleNumbers: [UInt32]
    public init(sampleNumbers: [UInt32]) { fullBox = FullBoxHeader(); self.sampleNumbers = sampleNumbers }
    public init(fullBox: FullBoxHeader, tableValues: [UInt32]) { self.fullBox = fullBox; sampleNumbers = tableValues }
    public var tableValues: [UInt32] { sampleNumbers }
}

/// `stps` PartialSyncSampleAtom (QuickTime): the 1-based numbers of the partial sync samples.
public struct PartialSyncSampleBox: U32TablePayload, Equatable {
    public var fullBox: FullBoxHeader
    /// 1-based sample numbers, ascending.
    public var sampleNumbers: [UInt32]
    public init(sampleNumbers: [UInt32]) { fullBox = FullBoxHeader(); self.sampleNumbers = sampleNumbers }
    public init(fullBox: FullBoxHeader, tableValues: [UInt32]) { self.fullBox = fullBox; sampleNumbers = tableValues }
    public var tableValues: [UInt32] { sampleNumbers }
}

/// `stco` ChunkOffsetBox (ISO/IEC 14496-12 §8.7.5): each chunk's 32-bit file offset.
/// Build and move offsets through ``ChunkOffsets``.
public struct ChunkOffsetBox: U32TablePayload, Equatable {
    public var fullBox: FullBoxHeader
    /// File offsets of the chunks, in chunk order.
    public var chunkOffsets: [UInt32]
    public init(chunkOffsets: [UInt32]) { fullBox = FullBoxHeader(); self.chunkOffsets = chunkOffsets }
    public init(fullBox: FullBoxHeader, tableValues: [UInt32]) { self.fullBox = fullBox; chunkOffsets = tableValues }
    public var tableValues: [UInt32] { chunkOffsets }
}

/// `co64` ChunkLargeOffsetBox (§8.7.5).
public struct ChunkLargeOffsetBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var offsets: [UInt64]
    public init(offsets: [UInt64]) { fullBox = FullBoxHeader(); self.offsets = offsets }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let n = try checkTable(r, count: UInt64(try r.readU32()), entrySize: 8, "co64", context)
        offsets = []
        offsets.reserveCapacity(n)
        for _ in 0..<n { offsets.append(try r.readU64()) }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(UInt32(truncatingIfNeeded: offsets.count))
        for v in offsets { w.writeU64(v) }
    }
    public var summary: String { "\(offsets.count) entries" + (offsets.isEmpty ? "" : " first=\(offsets[0])") }
    public var json: [(String, JSON)] { [("entry_count", .uint(UInt64(offsets.count)))] }
}

/// `stsc` SampleToChunkBox (§8.7.4).
public struct SampleToChunkBox: BoxPayload, FullBoxCarrying, Equatable {
    public struct Entry: Sendable, Equatable {
        public var firstChunk, samplesPerChunk, sampleDescriptionIndex: UInt32
        public init(firstChunk: UInt32, samplesPerChunk: UInt32, sampleDescriptionIndex: UInt32) {
            self.firstChunk = firstChunk; self.samplesPerChunk = samplesPerChunk;
            self.sampleDescriptionIndex = sampleDescriptionIndex
        }
    }
    public var fullBox: FullBoxHeader
    public var entries: [Entry]
    public init(entries: [Entry]) { fullBox = FullBoxHeader(); self.entries = entries }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let n = try checkTable(r, count: UInt64(try r.readU32()), entrySize: 12, "stsc", context)
        entries = []
        entries.reserveCapacity(n)
        for _ in 0..<n {
            entries.append(
                Entry(
                    firstChunk: try r.readU32(), samplesPerChunk: try r.readU32(),
                    sampleDescriptionIndex: try r.readU32()))
        }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(UInt32(truncatingIfNeeded: entries.count))
        for e in entries {
            w.writeU32(e.firstChunk); w.writeU32(e.samplesPerChunk); w.writeU32(e.sampleDescriptionIndex)
        }
    }
    public var summary: String { "\(entries.count) entries" }
    public var json: [(String, JSON)] { [("entry_count", .uint(UInt64(entries.count)))] }
}

/// `stsz` SampleSizeBox and `stz2` CompactSampleSizeBox (§8.7.3).
public struct SampleSizeBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    /// `stz2` when true (then `fieldSize` is 4, 8 or 16 and `constantSize` is unused).
    public var compact: Bool
    /// stsz: sample_size (non-zero = every sample has this size). stz2: the 24 reserved bits.
    public var constantSize: UInt32
    public var fieldSize: UInt8
    public var sampleCount: UInt32
    public var sizes: [UInt32]

    public init(sizes: [UInt32]) {
        fullBox = FullBoxHeader(); compact = false; constantSize = 0; fieldSize = 32
        sampleCount = UInt32(truncatingIfNeeded: sizes.count); self.sizes = sizes
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        compact = context.parents.last == "stz2"
        if compact {
            constantSize = try r.readU24()
            fieldSize = try r.readU8()
            sampleCount = try r.readU32()
            guard fieldSize == 4 || fieldSize == 8 || fieldSize == 16 else {
                throw r.fail(.invalidValue, "stz2 field_size \(fieldSize) is not 4, 8 or 16")
            }
            let bytesNeeded = (UInt64(sampleCount) * UInt64(fieldSize) + 7) / 8
            let n = try checkTable(r, count: UInt64(sampleCount), entrySize: 0, "stz2", context)
            if bytesNeeded > UInt64(r.remaining) {
                throw r.fail(.truncated, "stz2 declares \(sampleCount) samples, bytes missing")
            }
            sizes = []
            sizes.reserveCapacity(n)
            var i = 0
            while i < n {
                switch fieldSize {
                case 4:
                    let b = try r.readU8()
                    sizes.append(UInt32(b >> 4))
                    if i + 1 < n { sizes.append(UInt32(b & 0xF)) }
                    i += 2
                case 8: sizes.append(UInt32(try r.readU8())); i += 1
                default: sizes.append(UInt32(try r.readU16())); i += 1
                }
            }
            // The low nibble of an odd 4-bit table is padding; keep it through `constantSize`'s sibling.
            if fieldSize == 4 && n % 2 == 1 { padNibble = r.storage[r.position - 1] & 0xF } else { padNibble = 0 }
        } else {
            constantSize = try r.readU32()
            sampleCount = try r.readU32()
            fieldSize = 32
            if constantSize == 0 {
                let n = try checkTable(r, count: UInt64(sampleCount), entrySize: 4, "stsz", context)
                sizes = []
                sizes.reserveCapacity(n)
                for _ in 0..<n { sizes.append(try r.readU32()) }
            } else {
                _ = try checkTable(r, count: UInt64(sampleCount), entrySize: 0, "stsz", context)
                sizes = []
            }
            padNibble = 0
        }
    }
    var padNibble: UInt8 = 0
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        if compact {
            w.writeU24(constantSize); w.writeU8(fieldSize); w.writeU32(sampleCount)
            var i = 0
            while i < sizes.count {
                switch fieldSize {
                case 4:
                    let hi = UInt8(sizes[i] & 0xF)
                    let lo = i + 1 < sizes.count ? UInt8(sizes[i + 1] & 0xF) : padNibble
                    w.writeU8(hi << 4 | lo); i += 2
                case 8: w.writeU8(UInt8(truncatingIfNeeded: sizes[i])); i += 1
                default: w.writeU16(UInt16(truncatingIfNeeded: sizes[i])); i += 1
                }
            }
        } else {
            w.writeU32(constantSize); w.writeU32(sampleCount)
            if constantSize == 0 { for s in sizes { w.writeU32(s) } }
        }
    }
    /// Size of sample `i` (0-based), or nil past the table.
    public func size(of i: Int) -> UInt32? {
        if !compact && constantSize != 0 { return i >= 0 && i < Int(sampleCount) ? constantSize : nil }
        return i >= 0 && i < sizes.count ? sizes[i] : nil
    }
    public var count: Int { !compact && constantSize != 0 ? Int(sampleCount) : sizes.count }
    public var summary: String {
        "sample_count=\(sampleCount)" + (constantSize != 0 && !compact ? " constant size=\(constantSize)" : "")
    }
    public var json: [(String, JSON)] {
        [("sample_count", .uint(UInt64(sampleCount))), ("constant_size", .uint(UInt64(compact ? 0 : constantSize)))]
    }
}

/// `sgpd` SampleGroupDescriptionBox (§8.9.3). Entries are kept as bytes; version 0 (no lengths)
/// keeps everything after the count as one block.
public struct SampleGroupDescriptionBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var groupingType: FourCC
    public var defaultLength: UInt32?
    public var defaultSampleDescriptionIndex: UInt32?
    public var entryCount: UInt32
    /// Entries; each carries its own length field when `defaultLength == 0`.
    public var entries: [[UInt8]]
    /// Version 0: the undivided entry bytes.
    public var unparsedEntries: [UInt8]

    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        groupingType = try r.readFourCC()
        defaultLength = fullBox.version == 1 ? try r.readU32() : nil
        defaultSampleDescriptionIndex = fullBox.version >= 2 ? try r.readU32() : nil
        entryCount = try r.readU32()
        entries = []
        unparsedEntries = []
        if fullBox.version == 0 {
            unparsedEntries = r.readRemaining()
            return
        }
        let n = try checkTable(r, count: UInt64(entryCount), entrySize: defaultLength == 0 ? 4 : 0, "sgpd", context)
        for _ in 0..<n {
            var len = defaultLength ?? 0
            if fullBox.version == 1 && len == 0 { len = try r.readU32() }
            if fullBox.version >= 2 { entries.append(r.readRemaining()); break }
            entries.append(try r.readBytes(Int(len)))
        }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeFourCC(groupingType)
        if let d = defaultLength { w.writeU32(d) }
        if let d = defaultSampleDescriptionIndex { w.writeU32(d) }
        w.writeU32(entryCount)
        w.write(unparsedEntries)
        for e in entries {
            if fullBox.version == 1 && defaultLength == 0 { w.writeU32(UInt32(truncatingIfNeeded: e.count)) }
            w.write(e)
        }
    }
    public var summary: String {
        "grouping_type=\(groupingType) entries=\(entryCount)"
            + (entries.first.map { " first=\(Hex.string($0.prefix(16)))" } ?? "")
    }
    public var json: [(String, JSON)] {
        [("grouping_type", .string(groupingType.description)), ("entry_count", .uint(UInt64(entryCount)))]
    }
}

/// `sbgp` SampleToGroupBox (§8.9.2).
public struct SampleToGroupBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var groupingType: FourCC
    public var groupingTypeParameter: UInt32?
    public var entries: [(sampleCount: UInt32, groupDescriptionIndex: UInt32)]
    public static func == (a: Self, b: Self) -> Bool { a.serialized() == b.serialized() }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        groupingType = try r.readFourCC()
        groupingTypeParameter = fullBox.version == 1 ? try r.readU32() : nil
        let n = try checkTable(r, count: UInt64(try r.readU32()), entrySize: 8, "sbgp", context)
        entries = []
        entries.reserveCapacity(n)
        for _ in 0..<n { entries.append((try r.readU32(), try r.readU32())) }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeFourCC(groupingType)
        if let p = groupingTypeParameter { w.writeU32(p) }
        w.writeU32(UInt32(truncatingIfNeeded: entries.count))
        for e in entries { w.writeU32(e.sampleCount); w.writeU32(e.groupDescriptionIndex) }
    }
    public var summary: String { "grouping_type=\(groupingType) entries=\(entries.count)" }
    public var json: [(String, JSON)] {
        [("grouping_type", .string(groupingType.description)), ("entry_count", .uint(UInt64(entries.count)))]
    }
}
