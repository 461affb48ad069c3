import BinaryIO
import SystemSupport

/// creation_time, modification_time, timescale and duration as `mvhd` and `mdhd` store them: 64-bit times and
/// duration in version 1, 32-bit in version 0 (``MovieHeaderBox/checkWritable()`` refuses values that do not fit).
enum HeaderTimes {
    static func read(_ r: inout ByteReader, version: UInt8) throws(ParseError) -> (UInt64, UInt64, UInt32, UInt64) {
        if version == 1 { return (try r.readU64(), try r.readU64(), try r.readU32(), try r.readU64()) }
        return (UInt64(try r.readU32()), UInt64(try r.readU32()), try r.readU32(), UInt64(try r.readU32()))
    }
    static func write(
        _ w: inout ByteWriter, version: UInt8, _ creation: UInt64, _ modification: UInt64, _ timescale: UInt32,
        _ duration: UInt64
    ) {
        if version == 1 {
            w.writeU64(creation); w.writeU64(modification); w.writeU32(timescale); w.writeU64(duration)
        } else {
            w.writeU32(UInt32(truncatingIfNeeded: creation)); w.writeU32(UInt32(truncatingIfNeeded: modification))
            w.writeU32(timescale); w.writeU32(UInt32(truncatingIfNeeded: duration))
        }
    }
}

/// `mvhd` MovieHeaderBox (ISO/IEC 14496-12 §8.2.2).
public struct MovieHeaderBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var creationTime: UInt64
    public var modificationTime: UInt64
    public var timescale: UInt32
    public var duration: UInt64
    public var rate: Int32
    public var volume: Int16
    /// reserved(16) + reserved(32)[2], kept as read.
    public var reserved: [UInt8]
    public var matrix: [Int32]
    /// pre_defined(32)[6], kept as read.
    public var preDefined: [UInt8]
    public var nextTrackID: UInt32

    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        (creationTime, modificationTime, timescale, duration) = try HeaderTimes.read(&r, version: fullBox.version)
        rate = try r.readI32()
        volume = try r.readI16()
        reserved = try r.readBytes(10)
        matrix = []
        for _ in 0..<9 { matrix.append(try r.readI32()) }
        preDefined = try r.readBytes(24)
        nextTrackID = try r.readU32()
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        HeaderTimes.write(&w, version: fullBox.version, creationTime, modificationTime, timescale, duration)
        w.writeI32(rate); w.writeI16(volume); w.write(reserved)
        for m in matrix { w.writeI32(m) }
        w.write(preDefined); w.writeU32(nextTrackID)
    }
    public var durationSeconds: Double { timescale == 0 ? 0 : Double(duration) / Double(timescale) }
    public var summary: String {
        "v\(fullBox.version) timescale=\(timescale) duration=\(duration) (\(fmt(durationSeconds))s) next_track_ID=\(nextTrackID)"
    }
    public var json: [(String, JSON)] {
        [
            ("version", .uint(UInt64(fullBox.version))), ("timescale", .uint(UInt64(timescale))),
            ("duration", .uint(duration)),
            ("next_track_id", .uint(UInt64(nextTrackID))),
        ]
    }
}

/// `tkhd` TrackHeaderBox (ISO/IEC 14496-12 §8.3.2).
public struct TrackHeaderBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var creationTime: UInt64
    public var modificationTime: UInt64
    public var trackID: UInt32
    public var reserved1: UInt32
    public var duration: UInt64
    public var reserved2: UInt64
    public var layer: Int16
    public var alternateGroup: Int16
    public var volume: Int16
    public var reserved3: UInt16
    public var matrix: [Int32]
    /// 16.16 fixed point.
    public var width: UInt32
    public var height: UInt32

    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        if fullBox.version == 1 {
            creationTime = try r.readU64(); modificationTime = try r.readU64()
            trackID = try r.readU32(); reserved1 = try r.readU32(); duration = try r.readU64()
        } else {
            creationTime = UInt64(try r.readU32()); modificationTime = UInt64(try r.readU32())
            trackID = try r.readU32(); reserved1 = try r.readU32(); duration = UInt64(try r.readU32())
        }
        reserved2 = try r.readU64()
        layer = try r.readI16(); alternateGroup = try r.readI16(); volume = try r.readI16(); reserved3 = try r.readU16()
        matrix = []
        for _ in 0..<9 { matrix.append(try r.readI32()) }
        width = try r.readU32(); height = try r.readU32()
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        if fullBox.version == 1 {
            w.writeU64(creationTime); w.writeU64(modificationTime); w.writeU32(trackID); w.writeU32(reserved1);
            w.writeU64(duration)
        } else {
            w.writeU32(UInt32(truncatingIfNeeded: creationTime));
            w.writeU32(UInt32(truncatingIfNeeded: modificationTime))
            w.writeU32(trackID); w.writeU32(reserved1); w.writeU32(UInt32(truncatingIfNeeded: duration))
        }
        w.writeU64(reserved2); w.writeI16(layer); w.writeI16(alternateGroup); w.writeI16(volume); w.writeU16(reserved3)
        for m in matrix { w.writeI32(m) }
        w.writeU32(width); w.writeU32(height)
    }
    public var enabled: Bool { fullBox.flags & 1 != 0 }
    public var summary: String {
        "track_ID=\(trackID) duration=\(duration) \(fmt(fixed16(width)))x\(fmt(fixed16(height))) flags=0x\(String(fullBox.flags, radix: 16))"
    }
    public var json: [(String, JSON)] {
        [
            ("track_id", .uint(UInt64(trackID))), ("duration", .uint(duration)), ("width", .double(fixed16(width))),
            ("height", .double(fixed16(height))), ("flags", .uint(UInt64(fullBox.flags))),
        ]
    }
}

/// `mdhd` MediaHeaderBox (ISO/IEC 14496-12 §8.4.2).
public struct MediaHeaderBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var creationTime: UInt64
    public var modificationTime: UInt64
    public var timescale: UInt32
    public var duration: UInt64
    /// pad(1) + ISO-639-2/T language as three 5-bit letters.
    public var language: UInt16
    public var preDefined: UInt16

    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        (creationTime, modificationTime, timescale, duration) = try HeaderTimes.read(&r, version: fullBox.version)
        language = try r.readU16(); preDefined = try r.readU16()
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        HeaderTimes.write(&w, version: fullBox.version, creationTime, modificationTime, timescale, duration)
        w.writeU16(language); w.writeU16(preDefined)
    }
    public var languageCode: String {
        if language & 0x7FFF < 0x400 { return "" }  // QuickTime Macintosh language code
        let chars = [(language >> 10) & 0x1F, (language >> 5) & 0x1F, language & 0x1F].map {
            Character(Unicode.Scalar(UInt8($0) &+ 0x60))
        }
        return String(chars)
    }
    public var summary: String { "timescale=\(timescale) duration=\(duration) language=\(languageCode)" }
    public var json: [(String, JSON)] {
        [("timescale", .uint(UInt64(timescale))), ("duration", .uint(duration)), ("language", .string(languageCode))]
    }
}

/// `elst` EditListBox (ISO/IEC 14496-12 §8.6.6).
public struct EditListBox: BoxPayload, FullBoxCarrying, Equatable {
    public struct Entry: Sendable, Equatable {
        public var segmentDuration: UInt64
        public var mediaTime: Int64
        public var rateInteger: Int16
        public var rateFraction: Int16
    }
    public var fullBox: FullBoxHeader
    public var entries: [Entry]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let count = try r.readU32()
        let n = try checkTable(r, count: UInt64(count), entrySize: fullBox.version == 1 ? 20 : 12, "elst", context)
        entries = []
        entries.reserveCapacity(n)
        for _ in 0..<n {
            if fullBox.version == 1 {
                entries.append(
                    Entry(
                        segmentDuration: try r.readU64(), mediaTime: try r.readI64(), rateInteger: try r.readI16(),
                        rateFraction: try r.readI16()))
            } else {
                entries.append(
                    Entry(
                        segmentDuration: UInt64(try r.readU32()), mediaTime: Int64(try r.readI32()),
                        rateInteger: try r.readI16(), rateFraction: try r.readI16()))
            }
        }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        w.writeU32(UInt32(truncatingIfNeeded: entries.count))
        for e in entries {
            if fullBox.version == 1 {
                w.writeU64(e.segmentDuration); w.writeI64(e.mediaTime)
            } else {
                w.writeU32(UInt32(truncatingIfNeeded: e.segmentDuration));
                w.writeI32(Int32(truncatingIfNeeded: e.mediaTime))
            }
            w.writeI16(e.rateInteger); w.writeI16(e.rateFraction)
        }
    }
    public var summary: String {
        entries.map { "[dur=\($0.segmentDuration) media_time=\($0.mediaTime) rate=\($0.rateInteger)]" }.joined(
            separator: " ")
    }
    public var json: [(String, JSON)] {
        [
            (
                "entries",
                .array(
                    entries.map {
                        .object([
                            ("segment_duration", .uint($0.segmentDuration)), ("media_time", .int($0.mediaTime)),
                            ("rate", .int(Int64($0.rateInteger))),
                        ])
                    })
            )
        ]
    }
}

/// `vmhd` VideoMediaHeaderBox (§12.1.2).
public struct VideoMediaHeaderBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var graphicsMode: UInt16
    public var opcolor: [UInt16]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        graphicsMode = try r.readU16()
        opcolor = [try r.readU16(), try r.readU16(), try r.readU16()]
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU16(graphicsMode); for c in opcolor { w.writeU16(c) }
    }
    public var summary: String { "graphicsmode=\(graphicsMode)" }
}

/// `smhd` SoundMediaHeaderBox (§12.2.2).
public struct SoundMediaHeaderBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var balance: Int16
    public var reserved: UInt16
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r); balance = try r.readI16(); reserved = try r.readU16()
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); w.writeI16(balance); w.writeU16(reserved) }
    public var summary: String { "balance=\(balance)" }
}

/// A FullBox followed by a 32-bit entry count and that many child boxes: the header syntax shared by
/// ``DataReferenceBoxHeader`` (`dref`, §8.7.2) and ``SampleDescriptionBoxHeader`` (`stsd`, §8.5.2). The count
/// is kept as read, even if it disagrees with the children.
public protocol CountedContainerPayload: FullBoxFixedFieldsPayload {
    var entryCount: UInt32 { get }
    init(entryCount: UInt32, fullBox: FullBoxHeader)
}

extension CountedContainerPayload {
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(entryCount: UInt32(truncatingIfNeeded: f[safe: 0] ?? 0), fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [UInt64(entryCount)] }
    public var summary: String { "entry_count=\(entryCount)" }
    public var json: [(String, JSON)] { [("entry_count", .uint(UInt64(entryCount)))] }
}

/// `dref` DataReferenceBox header (ISO/IEC 14496-12 §8.7.2): the number of data entries that follow.
public struct DataReferenceBoxHeader: CountedContainerPayload, Equatable {
    public var fullBox: FullBoxHeader
    public var entryCount: UInt32
    public init(entryCount: UInt32, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.entryCount = entryCount
    }
}

/// `stsd` SampleDescriptionBox header (ISO/IEC 14496-12 §8.5.2): the number of sample entries that follow.
public struct SampleDescriptionBoxHeader: CountedContainerPayload, Equatable {
    public var fullBox: FullBoxHeader
    public var entryCount: UInt32
    public init(entryCount: UInt32, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.entryCount = entryCount
    }
}

/// A data entry inside `dref` (ISO/IEC 14496-12 §8.7.2): flag 1 means the media data is in this file.
/// ``DataEntryUrlBox`` and ``DataEntryUrnBox`` adopt it.
public protocol DataEntryPayload: BoxPayload, FullBoxCarrying {
    var fullBox: FullBoxHeader { get }
}

extension DataEntryPayload {
    /// True when the media data is in the same file (flag 1).
    public var selfContained: Bool { fullBox.flags & 1 != 0 }
}

/// `url ` DataEntryUrlBox (ISO/IEC 14496-12 §8.7.2): the location, absent when the data is in this file.
public struct DataEntryUrlBox: DataEntryPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// The location string's bytes as stored (NUL-terminated UTF-8; empty when self-contained).
    public var location: [UInt8]
    public init(fullBox: FullBoxHeader, location: [UInt8]) { self.fullBox = fullBox; self.location = location }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r); location = r.readRemaining()
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); w.write(location) }
    public var summary: String {
        selfContained ? "self-contained" : "location=\(String(decoding: location.prefix { $0 != 0 }, as: UTF8.self))"
    }
}

/// `urn ` DataEntryUrnBox (ISO/IEC 14496-12 §8.7.2): a name and an optional location.
public struct DataEntryUrnBox: DataEntryPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// The name's bytes up to and including its NUL terminator (all bytes when there is none).
    public var name: [UInt8]
    /// The bytes after the name: the location string as stored (may be empty).
    public var location: [UInt8]
    public init(fullBox: FullBoxHeader, name: [UInt8], location: [UInt8]) {
        self.fullBox = fullBox; self.name = name; self.location = location
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let rest = r.readRemaining()
        let cut = rest.firstIndex(of: 0).map { $0 + 1 } ?? rest.count
        name = Array(rest[..<cut]); location = Array(rest[cut...])
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); w.write(name); w.write(location) }
    public var summary: String {
        selfContained
            ? "self-contained"
            : "location=\(String(decoding: (name + location).prefix { $0 != 0 }, as: UTF8.self))"
    }
}

/// A TrackReferenceTypeBox inside `tref` (§8.3.3): a list of track IDs.
public struct TrackReferenceTypeBox: BoxPayload, Equatable {
    public var trackIDs: [UInt32]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        trackIDs = []
        while r.remaining >= 4 { trackIDs.append(try r.readU32()) }
    }
    public func write(to w: inout ByteWriter) { for t in trackIDs { w.writeU32(t) } }
    public var summary: String { "track_IDs=\(trackIDs)" }
    public var json: [(String, JSON)] { [("track_ids", .array(trackIDs.map { .uint(UInt64($0)) }))] }
}
