import BinaryIO

/// One sample of a track, located in the file.
public struct SampleInfo: Sendable, Equatable {
    public var index: Int
    public var offset: UInt64
    public var size: UInt32
    /// Decode time in the media timescale.
    public var decodeTime: UInt64
    /// Presentation time in the media timescale (decode time + composition offset).
    public var presentationTime: Int64
    public var duration: UInt32
    public var isSync: Bool
    public var sampleDescriptionIndex: UInt32
}

/// A read-only view of a `trak` box.
public struct Track: Sendable {
    public let box: Box
    public init(_ box: Box) { self.box = box }

    public var header: TrackHeaderBox? { box.child("tkhd")?.payload() }
    public var trackID: UInt32 { header?.trackID ?? 0 }
    public var mediaHeader: MediaHeaderBox? { box.find("mdia", "mdhd")?.payload() }
    public var handler: FourCC? { box.find("mdia", "hdlr")?.payload(HandlerBox.self)?.handlerType }
    public var handlerName: String { box.find("mdia", "hdlr")?.payload(HandlerBox.self)?.name ?? "" }
    public var sampleTable: Box? { box.find("mdia", "minf", "stbl") }
    /// Sample entries in `stsd`, in order.
    public var sampleEntries: [Box] { sampleTable?.child("stsd")?.children ?? [] }
    public var timescale: UInt32 { mediaHeader?.timescale ?? 0 }
    public var durationSeconds: Double {
        guard let m = mediaHeader, m.timescale > 0 else { return 0 }
        return Double(m.duration) / Double(m.timescale)
    }
    public var sampleCount: Int {
        guard let stbl = sampleTable else { return 0 }
        if let s = stbl.child("stsz")?.payload(SampleSizeBox.self) ?? stbl.child("stz2")?.payload(SampleSizeBox.self) {
            return Int(s.sampleCount)
        }
        return 0
    }
    /// What players present when the track has an edit list (`edts/elst`): the duration of all edits (empty
    /// edits included) and the number of distinct samples whose display interval overlaps a media edit.
    /// `nil` without an edit list, or when the tables cannot be read.
    public func presented(movieTimescale: UInt32, limits: Limits = .default) -> (seconds: Double, samples: Int)? {
        guard let p = presentedSamples(movieTimescale: movieTimescale, limits: limits) else { return nil }
        return (p.seconds, p.shown.filter { $0 }.count)
    }

    /// The one notion of presented frames that `info`, `validate` and `fix` share: per sample (decode order),
    /// whether its display interval (composition time, duration) overlaps a media edit of `edts/elst`, and the
    /// presented duration (all edits, empty ones included). `nil` without an edit list (every sample is shown) or
    /// when the tables cannot be read.
    public func presentedSamples(movieTimescale: UInt32, limits: Limits = .default) -> (seconds: Double, shown: [Bool])?
    {
        guard let elst = box.find("edts", "elst")?.payload(EditListBox.self), !elst.entries.isEmpty,
            movieTimescale > 0, timescale > 0, let samples = try? samples(limits: limits)
        else { return nil }
        let mediaEnd = samples.map { $0.presentationTime + Int64($0.duration) }.max() ?? 0
        var seconds = 0.0
        var shown = [Bool](repeating: false, count: samples.count)
        for e in elst.entries {
            // empty edit
            guard e.mediaTime >= 0 else { seconds += Double(e.segmentDuration) / Double(movieTimescale); continue }
            let start = e.mediaTime
            let end: Int64
            if e.segmentDuration == 0 {
                end = mediaEnd  // "the rest of the media"
                seconds += Double(max(0, mediaEnd - start)) / Double(timescale)
            } else {
                seconds += Double(e.segmentDuration) / Double(movieTimescale)
                let length = Double(e.segmentDuration) * Double(timescale) / Double(movieTimescale)
                end = length < Double(Int64.max / 2) ? start &+ Int64(length.rounded()) : Int64.max
            }
            for (i, s) in samples.enumerated()
            where s.presentationTime < end && s.presentationTime + Int64(s.duration) > start { shown[i] = true }
        }
        return (seconds, shown)
    }

    /// Frames a player shows: the samples ``presentedSamples(movieTimescale:limits:)`` marks, or every sample
    /// without an edit list.
    public func presentedFrameCount(movieTimescale: UInt32, limits: Limits = .default) -> Int {
        presented(movieTimescale: movieTimescale, limits: limits)?.samples ?? sampleCount
    }

    /// Track references of `type` (for example `vdep`, `cdsc`, `auxl`).
    public func references(_ type: FourCC) -> [UInt32] {
        box.find("tref", type)?.payload(TrackReferenceTypeBox.self)?.trackIDs ?? []
    }

    /// Every sample of a non-fragmented track, resolved from the sample tables.
    /// Throws when the tables are inconsistent (more samples than chunks can hold, offsets overflow).
    public func samples(limits: Limits = .default) throws(ParseError) -> [SampleInfo] {
        try samples(limits: limits, first: Int.max)
    }

    /// The first `first` samples only (cheap on tracks with hundreds of thousands of samples).
    public func samples(limits: Limits = .default, first: Int) throws(ParseError) -> [SampleInfo] {
        guard let stbl = sampleTable else { return [] }
        let path = stbl.path
        guard
            let stsz = stbl.child("stsz")?.payload(SampleSizeBox.self)
                ?? stbl.child("stz2")?.payload(SampleSizeBox.self)
        else {
            return []
        }
        let total = stsz.count
        try Limits.check(total, limits.maxSamples, "maxSamples", offset: stbl.header.offset)
        let count = min(total, max(0, first))
        // The list below is sized by counts from the file (a constant-size stsz has no per-sample bytes),
        // so it is charged against the allocation budget before it is built.
        let bytes = try Checked.mul(count, MemoryLayout<SampleInfo>.stride, offset: stbl.header.offset)
        try Limits.check(
            bytes, Int(clamping: limits.maxTotalAllocation), "maxTotalAllocation (sample list)",
            offset: stbl.header.offset)
        let chunkOffsets: [UInt64]
        if let co = stbl.child("stco")?.payload(ChunkOffsetBox.self) {
            chunkOffsets = co.chunkOffsets.map(UInt64.init)
        } else if let co = stbl.child("co64")?.payload(ChunkLargeOffsetBox.self) {
            chunkOffsets = co.offsets
        } else if count == 0 {
            return []
        } else {
            throw ParseError(.invalidValue, offset: stbl.header.offset, path: path, "no stco/co64 chunk offset table")
        }
        let stsc = stbl.child("stsc")?.payload(SampleToChunkBox.self)?.entries ?? []
        let stts = stbl.child("stts")?.payload(TimeToSampleBox.self)?.entries ?? []
        let cttsBox = stbl.child("ctts")?.payload(CompositionOffsetBox.self)
        let stss = stbl.child("stss")?.payload(SyncSampleBox.self)?.sampleNumbers

        var out: [SampleInfo] = []
        out.reserveCapacity(min(count, 1 << 20))
        var sample = 0
        // Walk chunks with stsc.
        for (ei, e) in stsc.enumerated() {
            if sample >= count { break }
            guard e.firstChunk >= 1 else {
                throw ParseError(.invalidValue, offset: stbl.header.offset, path: path + "/stsc", "first_chunk 0")
            }
            let nextFirst = ei + 1 < stsc.count ? UInt64(stsc[ei + 1].firstChunk) : UInt64(chunkOffsets.count) + 1
            var chunk = UInt64(e.firstChunk)
            while chunk < nextFirst && sample < count {
                guard chunk - 1 < UInt64(chunkOffsets.count) else {
                    throw ParseError(
                        .invalidValue, offset: stbl.header.offset, path: path + "/stsc",
                        "chunk \(chunk) has no offset in stco/co64")
                }
                var off = chunkOffsets[Int(chunk - 1)]
                var k: UInt32 = 0
                while k < e.samplesPerChunk && sample < count {
                    let size = stsz.size(of: sample) ?? 0
                    out.append(
                        SampleInfo(
                            index: sample, offset: off, size: size, decodeTime: 0, presentationTime: 0, duration: 0,
                            isSync: stss == nil, sampleDescriptionIndex: e.sampleDescriptionIndex))
                    off = try Checked.add(off, UInt64(size), offset: stbl.header.offset)
                    sample += 1
                    k += 1
                }
                chunk += 1
            }
        }
        if out.count < count {
            throw ParseError(
                .invalidValue, offset: stbl.header.offset, path: path,
                "stsc/stco describe \(out.count) samples but stsz has \(total)")
        }
        // Times.
        var t: UInt64 = 0
        var i = 0
        for e in stts {
            var n: UInt32 = 0
            while n < e.count && i < out.count {
                out[i].decodeTime = t; out[i].duration = e.delta; t &+= UInt64(e.delta); i += 1; n += 1
            }
        }
        i = 0
        if let ctts = cttsBox {
            for e in ctts.entries {
                var n: UInt32 = 0
                let o = ctts.offset(e)
                while n < e.count && i < out.count {
                    out[i].presentationTime = Int64(bitPattern: out[i].decodeTime) &+ o; i += 1; n += 1
                }
            }
        }
        while i < out.count { out[i].presentationTime = Int64(bitPattern: out[i].decodeTime); i += 1 }
        if let stss { for s in stss where s >= 1 && Int(s) <= out.count { out[Int(s) - 1].isSync = true } }
        return out
    }
}

extension ISOFile {
    /// `mvhd` timescale (the unit of edit-list segment durations), 0 without one.
    public var movieTimescale: UInt32 { find("moov", "mvhd")?.payload(MovieHeaderBox.self)?.timescale ?? 0 }
    /// The movie's tracks, in file order.
    public var tracks: [Track] { box("moov")?.children("trak").map(Track.init) ?? [] }
    /// True when the file holds movie fragments.
    public var isFragmented: Bool { boxes.contains { $0.type == "moof" } || box("moov")?.child("mvex") != nil }
    /// Reads `count` bytes at `offset` from the source, checking that they exist.
    public func readBytes(at offset: UInt64, count: Int) throws(ParseError) -> [UInt8] {
        let end = try Checked.add(offset, UInt64(max(0, count)), offset: offset)
        guard end <= source.size else {
            throw ParseError(
                .sizePastParent, offset: offset, "range \(offset)+\(count) lies outside the \(source.size)-byte file")
        }
        return try source.read(at: offset, count: count)
    }
}
