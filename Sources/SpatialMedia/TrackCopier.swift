import BinaryIO
import ISOBMFF

/// A track taken out of a movie with its sample data, ready to be added to another movie unchanged
/// (no re-encoding: the sample entry, sample tables and sample bytes are copied as they are).
public struct CopiedTrack: Sendable {
    /// The `trak` box as read (its chunk offsets are rewritten when it is added).
    public var trak: Box
    /// The bytes of each chunk, in chunk order (samples of a chunk are contiguous by definition).
    public var chunks: [[UInt8]]
    /// Timescale of the source movie (`mvhd`), in which `tkhd` and `elst` durations are expressed.
    public var sourceMovieTimescale: UInt32
    public var handler: FourCC
    public var sampleCount: Int
    /// Sample entry type (`mp4a`, `sowt`, `lpcm`, `ac-3` …).
    public var format: String
    public var totalBytes: Int { chunks.reduce(0) { $0 + $1.count } }
}

/// Copies tracks (by default the audio tracks) from one movie into a movie built in memory by
/// ``SpatialVideoMuxer/build(_:options:)``: the chunks are appended to its `mdat`, the `trak` boxes to its
/// `moov`, with new track ids, chunk offsets and movie-timescale durations. Nothing is decoded or re-encoded.
public enum TrackCopier {
    /// Reads every track whose handler is in `handlers`. Tracks that cannot be copied (fragmented files,
    /// data in other files, unreadable tables) are skipped with a note saying why.
    public static func extract(
        from file: ISOFile, path: String, handlers: Set<FourCC> = ["soun"],
        limits: Limits = .default
    ) throws(ParseError) -> (tracks: [CopiedTrack], notes: [String]) {
        var out: [CopiedTrack] = []
        var notes: [String] = []
        let movieTimescale = file.find("moov", "mvhd")?.payload(MovieHeaderBox.self)?.timescale ?? 0
        let wanted = file.tracks.filter { t in t.handler.map { handlers.contains($0) } ?? false }
        if wanted.isEmpty { return ([], []) }
        if file.isFragmented {
            return ([], ["\(path): fragmented movie; its audio is in movie fragments and was not copied"])
        }
        var budget = limits.maxBoxInMemory
        for t in wanted {
            let name = "\(path) track \(t.trackID) (\(t.handler?.description ?? "?"))"
            guard movieTimescale > 0, t.header != nil else {
                notes.append("\(name): no readable mvhd/tkhd; not copied"); continue
            }
            if let dref = t.box.find("mdia", "minf", "dinf", "dref"), let entries = dref.children,
                entries.contains(where: { e in
                    if case .raw(let b) = e.fields { return b.count >= 4 && (b[3] & 1) == 0 }
                    return false
                })
            {
                notes.append("\(name): samples live in another file (dref); not copied"); continue
            }
            guard let stbl = t.sampleTable else { notes.append("\(name): no sample table; not copied"); continue }
            let offsets: [UInt64]
            if let co = stbl.child("stco")?.payload(ChunkOffsetBox.self) {
                offsets = co.chunkOffsets.map(UInt64.init)
            } else if let co = stbl.child("co64")?.payload(ChunkLargeOffsetBox.self) {
                offsets = co.offsets
            } else {
                notes.append("\(name): no chunk offsets; not copied"); continue
            }
            guard let stsc = stbl.child("stsc")?.payload(SampleToChunkBox.self)?.entries,
                let stsz = stbl.child("stsz")?.payload(SampleSizeBox.self)
                    ?? stbl.child("stz2")?.payload(SampleSizeBox.self)
            else {
                notes.append("\(name): no stsc/stsz; not copied"); continue
            }
            let count = stsz.count
            try Limits.check(count, limits.maxSamples, "maxSamples", offset: stbl.header.offset)
            // Walk the chunks: chunk i holds samplesPerChunk samples from the matching stsc entry.
            var chunks: [[UInt8]] = []
            var sample = 0
            for (ei, e) in stsc.enumerated() {
                guard e.firstChunk >= 1 else {
                    throw ParseError(
                        .invalidValue, offset: stbl.header.offset, path: path, "\(name): stsc first_chunk 0")
                }
                let end = ei + 1 < stsc.count ? Int(stsc[ei + 1].firstChunk) - 1 : offsets.count
                var c = Int(e.firstChunk) - 1
                while c < end && c < offsets.count {
                    var bytes: UInt64 = 0
                    var k: UInt32 = 0
                    while k < e.samplesPerChunk && sample < count {
                        bytes += UInt64(stsz.size(of: sample) ?? 0); sample += 1; k += 1
                    }
                    guard bytes <= budget else {
                        throw ParseError(
                            .limitExceeded, offset: offsets[c], path: path, "\(name): audio data exceeds maxBoxInMemory"
                        )
                    }
                    budget -= bytes
                    chunks.append(try file.readBytes(at: offsets[c], count: try Checked.int(bytes)))
                    c += 1
                }
            }
            guard chunks.count == offsets.count, sample == count else {
                notes.append(
                    "\(name): stsc/stco/stsz disagree (\(sample) of \(count) samples in \(chunks.count) of \(offsets.count) chunks); not copied"
                )
                continue
            }
            var trak = t.box
            if trak.removeChildren("tref") > 0 { notes.append("\(name): track references dropped") }
            let format = t.sampleEntries.first?.type.description ?? "?"
            out.append(
                CopiedTrack(
                    trak: trak, chunks: chunks, sourceMovieTimescale: movieTimescale, handler: t.handler ?? "soun",
                    sampleCount: count, format: format))
        }
        return (out, notes)
    }

    /// `value × to / from` without overflow for the sizes that occur (durations).
    static func rescale(_ value: UInt64, from: UInt32, to: UInt32) -> UInt64 {
        guard from > 0, from != to else { return value }
        let q = value / UInt64(from), r = value % UInt64(from)
        let (hi, o) = q.multipliedReportingOverflow(by: UInt64(to))
        if o { return UInt64.max }
        return hi &+ r * UInt64(to) / UInt64(from)
    }

    /// Adds `tracks` to a movie made by ``SpatialVideoMuxer/build(_:options:)`` (one `mdat`, one `moov`,
    /// `mvhd`/`stco`/`co64` as written by the muxer). Works for both layouts (moov last or first).
    ///
    /// An in-memory `mdat` gets the chunks appended. An `mdat` that is a range of the file's source (the
    /// streaming writer's) is extended instead: the caller has already written the chunks, in order, right
    /// after that range.
    public static func append(_ tracks: [CopiedTrack], to file: ISOFile) throws(ParseError) -> ISOFile {
        if tracks.isEmpty { return file }
        var boxes = file.boxes
        guard let mi = boxes.firstIndex(where: { $0.type == "mdat" }),
            let vi = boxes.firstIndex(where: { $0.type == "moov" })
        else {
            throw ParseError(.invalidValue, "TrackCopier: the movie has no mdat/moov")
        }
        let videoSize: UInt64
        switch boxes[mi].fields {
        case .raw(let b): videoSize = UInt64(b.count)
        case .fileRange(_, let l): videoSize = l
        default: throw ParseError(.invalidValue, "TrackCopier: the movie's mdat is not the muxer's")
        }
        func dataStart(_ bs: [Box]) -> UInt64 {
            var off: UInt64 = 0
            for b in bs[..<mi] { off += b.encodedSize() }
            return off + UInt64(bs[mi].encodedSize() - bs[mi].payloadSize())
        }
        let oldStart = dataStart(boxes)
        var moov = boxes[vi]
        guard let mvhdIndex = moov.children?.firstIndex(where: { $0.type == "mvhd" }),
            var mvhd = moov.children?[mvhdIndex].payload(MovieHeaderBox.self)
        else {
            throw ParseError(.invalidValue, "TrackCopier: the movie has no readable mvhd")
        }
        let movieTimescale = mvhd.timescale
        var movieDuration = mvhd.duration
        var nextID = UInt32(moov.children("trak").count + 1)
        for t in moov.children("trak") {
            if let id = Track(t).header?.trackID { nextID = max(nextID, id &+ 1) }
        }

        let extra = tracks.reduce(0) { $0 + $1.totalBytes }
        let total = videoSize + UInt64(extra)
        let useCo64 = total + (1 << 24) > UInt64(UInt32.max)
        // Relative offsets (from the start of mdat's payload) of each copied chunk.
        var rel = videoSize
        var relOffsets: [[UInt64]] = []
        for t in tracks {
            var list: [UInt64] = []
            for c in t.chunks { list.append(rel); rel += UInt64(c.count) }
            relOffsets.append(list)
        }
        var newTraks: [Box] = []
        for (i, t) in tracks.enumerated() {
            var (trak, duration) = try retimed(t, trackID: nextID, movieTimescale: movieTimescale)
            nextID += 1
            movieDuration = max(movieDuration, duration)
            try ChunkOffsets.set(relOffsets[i], large: useCo64, inTrack: &trak)
            newTraks.append(trak)
        }
        // A duration past 32 bits moves the header to version 1 rather than being cut.
        mvhd.duration = movieDuration
        if movieDuration > UInt64(UInt32.max) { mvhd.fullBox.version = 1 }
        mvhd.nextTrackID = nextID
        moov.children?[mvhdIndex].fields = .typed(mvhd)
        moov.children = (moov.children ?? []) + newTraks
        boxes[vi] = moov
        switch boxes[mi].fields {
        case .raw(var payload):
            payload.reserveCapacity(payload.count + extra)
            for t in tracks { for c in t.chunks { payload += c } }
            boxes[mi].fields = .raw(payload)
        case .fileRange(let o, let l):
            boxes[mi].fields = .fileRange(offset: o, length: l + UInt64(extra))
        default: break
        }
        if total + 16 > UInt64(UInt32.max) { boxes[mi].header.form = .large }
        // Final offsets: the copied chunks from the new data start; the video's shifted if the data moved.
        let newStart = dataStart(boxes)
        let delta = Int64(newStart) - Int64(oldStart)
        guard var moov2 = Optional(boxes[vi]), var kids = moov2.children else {
            return ISOFile(boxes: boxes, source: file.source)
        }
        var copied = 0
        for k in kids.indices where kids[k].type == "trak" {
            let isNew = k >= kids.count - newTraks.count
            if isNew {
                try ChunkOffsets.set(relOffsets[copied].map { $0 + newStart }, large: useCo64, inTrack: &kids[k])
                copied += 1
            } else if delta != 0 {
                try ChunkOffsets.map(inTrack: &kids[k], promote: false) { (o: UInt64) throws(ParseError) in
                    guard let old = Int64(exactly: o), case (let moved, false) = old.addingReportingOverflow(delta),
                        moved >= 0
                    else {
                        throw ParseError(.unwritable, "chunk offset out of range after adding tracks")
                    }
                    return UInt64(moved)
                }
            }
        }
        moov2.children = kids
        boxes[vi] = moov2
        return ISOFile(boxes: boxes, source: file.source)
    }

    /// The copied `trak` with a new track id and its `tkhd`/`elst` durations in the target movie's timescale (a box
    /// whose duration no longer fits 32 bits moves to version 1); returns the track duration too.
    static func retimed(_ t: CopiedTrack, trackID: UInt32, movieTimescale: UInt32) throws(ParseError) -> (
        trak: Box, duration: UInt64
    ) {
        var trak = t.trak
        guard var tkhd = trak.child("tkhd")?.payload(TrackHeaderBox.self) else {
            throw ParseError(.invalidValue, "TrackCopier: copied track has no tkhd")
        }
        tkhd.trackID = trackID
        tkhd.duration = rescale(tkhd.duration, from: t.sourceMovieTimescale, to: movieTimescale)
        if tkhd.duration > UInt64(UInt32.max) { tkhd.fullBox.version = 1 }
        trak.setChild(Box(tkhd, type: "tkhd"))
        if var edts = trak.child("edts"), let elst = edts.child("elst")?.payload(EditListBox.self) {
            var e = elst
            for k in e.entries.indices {
                e.entries[k].segmentDuration = rescale(
                    e.entries[k].segmentDuration, from: t.sourceMovieTimescale, to: movieTimescale)
                if e.entries[k].segmentDuration > UInt64(UInt32.max) { e.fullBox.version = 1 }
            }
            edts.setChild(Box(e, type: "elst"))
            trak.setChild(edts)
        }
        return (trak, tkhd.duration)
    }
}
