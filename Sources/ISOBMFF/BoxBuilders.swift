import BinaryIO

// Builders for the boxes a writer creates (muxer, editors, track copier): each takes the values that vary and
// fills every other field with the default ISO/IEC 14496-12 gives it (times 0, rate and volume 1.0, identity
// matrix, reserved fields 0). Version 1 is chosen where a value needs 64 bits. `checkWritable()` refuses values
// that the chosen version cannot hold, so a changed value is never truncated on the way out.

extension FullBoxHeader {
    /// Version 1 when any of `values` needs 64 bits, else version 0.
    static func fitting(_ values: UInt64..., flags: UInt32 = 0) -> FullBoxHeader {
        FullBoxHeader(version: values.contains { $0 > UInt64(UInt32.max) } ? 1 : 0, flags: flags)
    }
}

/// The transformation matrix that leaves the picture as it is (16.16 and 2.30 fixed point).
public let identityMatrix: [Int32] = [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000]

func unwritable(_ type: FourCC, _ what: String) -> ParseError {
    ParseError(.unwritable, path: type.description, "\(type): \(what)")
}

extension MovieHeaderBox {
    /// `mvhd` with rate 1.0, volume 1.0, the identity matrix and creation/modification times 0.
    public init(timescale: UInt32, duration: UInt64, nextTrackID: UInt32) {
        fullBox = .fitting(duration)
        creationTime = 0; modificationTime = 0
        self.timescale = timescale; self.duration = duration
        rate = 0x0001_0000; volume = 0x0100
        reserved = [UInt8](repeating: 0, count: 10)
        matrix = identityMatrix
        preDefined = [UInt8](repeating: 0, count: 24)
        self.nextTrackID = nextTrackID
    }
    public func checkWritable() throws(ParseError) {
        if fullBox.version == 0 && max(creationTime, modificationTime, duration) > UInt64(UInt32.max) {
            throw unwritable("mvhd", "a time or the duration does not fit version 0 (32 bits)")
        }
        if reserved.count != 10 || matrix.count != 9 || preDefined.count != 24 {
            throw unwritable("mvhd", "field arrays have the wrong length")
        }
    }
}

extension TrackHeaderBox {
    /// `tkhd` (flags: 1 enabled, 2 in movie, 4 in preview) with layer, group and volume 0 (a visual track), the
    /// identity matrix and times 0. `width`/`height` in pixels (stored 16.16).
    public init(trackID: UInt32, duration: UInt64, width: Int, height: Int, flags: UInt32 = 3) {
        fullBox = .fitting(duration, flags: flags)
        creationTime = 0; modificationTime = 0
        self.trackID = trackID; reserved1 = 0
        self.duration = duration
        reserved2 = 0; layer = 0; alternateGroup = 0; volume = 0; reserved3 = 0
        matrix = identityMatrix
        self.width = UInt32(truncatingIfNeeded: width) << 16; self.height = UInt32(truncatingIfNeeded: height) << 16
    }
    public func checkWritable() throws(ParseError) {
        if fullBox.version == 0 && max(creationTime, modificationTime, duration) > UInt64(UInt32.max) {
            throw unwritable("tkhd", "a time or the duration does not fit version 0 (32 bits)")
        }
        if matrix.count != 9 { throw unwritable("tkhd", "the matrix needs 9 entries") }
    }
}

extension MediaHeaderBox {
    /// ISO-639-2/T `und` packed as three 5-bit letters.
    public static let undeterminedLanguage: UInt16 = 0x55C4
    /// `mdhd` with times 0.
    public init(timescale: UInt32, duration: UInt64, language: UInt16 = MediaHeaderBox.undeterminedLanguage) {
        fullBox = .fitting(duration)
        creationTime = 0; modificationTime = 0
        self.timescale = timescale; self.duration = duration
        self.language = language; preDefined = 0
    }
    public func checkWritable() throws(ParseError) {
        if fullBox.version == 0 && max(creationTime, modificationTime, duration) > UInt64(UInt32.max) {
            throw unwritable("mdhd", "a time or the duration does not fit version 0 (32 bits)")
        }
    }
}

extension EditListBox.Entry {
    public init(segmentDuration: UInt64, mediaTime: Int64, rate: Int16 = 1) {
        self.segmentDuration = segmentDuration; self.mediaTime = mediaTime; rateInteger = rate; rateFraction = 0
    }
}

extension EditListBox {
    /// `elst`, version 1 when a duration or media time needs 64 bits.
    public init(entries: [Entry]) {
        let wide = entries.contains { $0.segmentDuration > UInt64(UInt32.max) || Int32(exactly: $0.mediaTime) == nil }
        fullBox = FullBoxHeader(version: wide ? 1 : 0)
        self.entries = entries
    }
    public func checkWritable() throws(ParseError) {
        if fullBox.version == 0,
            entries.contains(where: { $0.segmentDuration > UInt64(UInt32.max) || Int32(exactly: $0.mediaTime) == nil })
        {
            throw unwritable("elst", "an entry does not fit version 0 (32 bits)")
        }
        if entries.count > Int(UInt32.max) { throw unwritable("elst", "too many entries") }
    }
}

extension VideoMediaHeaderBox {
    /// `vmhd` as the specification fixes it: flags 1, graphics mode 0 (copy), opcolor 0.
    public init() { fullBox = FullBoxHeader(flags: 1); graphicsMode = 0; opcolor = [0, 0, 0] }
    public func checkWritable() throws(ParseError) {
        if opcolor.count != 3 { throw unwritable("vmhd", "opcolor needs 3 entries") }
    }
}

extension DataEntryUrlBox {
    /// `url ` with flag 1: the media data is in this file.
    public static var selfContained: DataEntryUrlBox { DataEntryUrlBox(fullBox: FullBoxHeader(flags: 1), location: []) }
}

extension CompositionOffsetBox {
    /// `ctts`; version 1 stores signed offsets (their 32-bit pattern).
    public init(version: UInt8, entries: [(count: UInt32, offset: UInt32)]) {
        fullBox = FullBoxHeader(version: version); self.entries = entries
    }
}

extension SampleSizeBox {
    public func checkWritable() throws(ParseError) {
        if compact, let big = sizes.first(where: { $0 >> UInt32(fieldSize) != 0 }) {
            throw unwritable("stz2", "sample size \(big) does not fit \(fieldSize) bits")
        }
        if !compact && constantSize == 0 && Int(sampleCount) != sizes.count {
            throw unwritable("stsz", "sample_count \(sampleCount) ≠ \(sizes.count) sizes")
        }
    }
}

extension Box {
    /// `dinf` holding a `dref` with one self-contained `url ` entry (the media data is in this file).
    public static func selfContainedDataInformation() -> Box {
        let url = Box(DataEntryUrlBox.selfContained, type: "url ")
        var dref = Box(DataReferenceBoxHeader(entryCount: 1), type: "dref")
        dref.children = [url]
        return Box(type: "dinf", children: [dref])
    }

    /// `stsd` holding `entries`.
    public static func sampleDescription(_ entries: [Box]) -> Box {
        var stsd = Box(SampleDescriptionBoxHeader(entryCount: UInt32(truncatingIfNeeded: entries.count)), type: "stsd")
        stsd.children = entries
        return stsd
    }

    /// Throws when a modelled payload here or below holds a value its syntax cannot store.
    public func checkWritable() throws(ParseError) {
        if case .typed(let p) = fields {
            do { try p.checkWritable() } catch {
                var e = error
                e.path = path.isEmpty ? type.description : path
                e.offset = header.offset
                throw e
            }
        }
        for c in children ?? [] { try c.checkWritable() }
    }
}

extension ISOFile {
    /// Throws when a modelled payload holds a value its syntax cannot store (see ``Box/checkWritable()``).
    public func checkWritable() throws(ParseError) {
        for b in boxes { try b.checkWritable() }
        if case .typed(let p) = tail { try p.checkWritable() }
    }
}
