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
    public static func extract(from file: ISOFile, path: String, handlers: Set<FourCC> = ["soun"],
                               limits: Limits = .default) throws(ParseError) -> (tracks: [CopiedTrack], notes: [String]) {
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
            guard movieTimescale > 0, t.header != nil else { notes.append("\(name): no readable mvhd/tkhd; not copied"); continue }
            if let dref = t.box.find("mdia", "minf", "dinf", "dref"), let entries = dref.children,
               entries.contains(where: { e in
                   if case .raw(let b) = e.fields { return b.count >= 4 && (b[3] & 1) == 0 }
                   return false
               }) {
                notes.append("\(name): samples live in another file (dref); not copied"); continue
            }
            guard let stbl = t.sampleTable else { notes.append("\(name): no sample table; not copied"); continue }
            let offsets: [UInt64]
            if let co = stbl.child("stco")?.payload(U32TableBox.self) { offsets = co.values.map(UInt64.init) }
            else if let co = stbl.child("co64")?.payload(ChunkLargeOffsetBox.self) { offsets = co.offsets }
            else { notes.append("\(name): no chunk offsets; not copied"); continue }
            guard let stsc = stbl.child("stsc")?.payload(SampleToChunkBox.self)?.entries,
                  let stsz = stbl.child("stsz")?.payload(SampleSizeBox.self) ?? stbl.child("stz2")?.payload(SampleSizeBox.self) else {
                notes.append("\(name): no stsc/stsz; not copied"); continue
            }
            let count = stsz.count
            try Limits.check(count, limits.maxSamples, "maxSamples", offset: stbl.header.offset)
            // Walk the chunks: chunk i holds samplesPerChunk samples from the matching stsc entry.
            var chunks: [[UInt8]] = []
            var sample = 0
            for (ei, e) in stsc.enumerated() {
                guard e.firstChunk >= 1 else { throw ParseError(.invalidValue, offset: stbl.header.offset, path: path, "\(name): stsc first_chunk 0") }
                let end = ei + 1 < stsc.count ? Int(stsc[ei + 1].firstChunk) - 1 : offsets.count
                var c = Int(e.firstChunk) - 1
                while c < end && c < offsets.count {
                    var bytes: UInt64 = 0
                    var k: UInt32 = 0
                    while k < e.samplesPerChunk && sample < count {
                        bytes += UInt64(stsz.size(of: sample) ?? 0); sample += 1; k += 1
                    }
                    guard bytes <= budget else {
                        throw ParseError(.limitExceeded, offset: offsets[c], path: path, "\(name): audio data exceeds maxBoxInMemory")
                    }
                    budget -= bytes
                    chunks.append(try file.readBytes(at: offsets[c], count: try Checked.int(bytes)))
                    c += 1
                }
            }
            guard chunks.count == offsets.count, sample == count else {
                notes.append("\(name): stsc/stco/stsz disagree (\(sample) of \(count) samples in \(chunks.count) of \(offsets.count) chunks); not copied")
                continue
            }
            var trak = t.box
            if trak.removeChildren("tref") > 0 { notes.append("\(name): track references dropped") }
            let format = t.sampleEntries.first?.type.description ?? "?"
            out.append(CopiedTrack(trak: trak, chunks: chunks, sourceMovieTimescale: movieTimescale, handler: t.handler ?? "soun",
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
        guard let mi = boxes.firstIndex(where: { $0.type == "mdat" }), let vi = boxes.firstIndex(where: { $0.type == "moov" }) else {
            throw ParseError(.invalidValue, offset: 0, "TrackCopier: the movie has no mdat/moov")
        }
        let videoSize: UInt64
        switch boxes[mi].fields {
        case .raw(let b): videoSize = UInt64(b.count)
        case .fileRange(_, let l): videoSize = l
        default: throw ParseError(.invalidValue, offset: 0, "TrackCopier: the movie's mdat is not the muxer's")
        }
        func dataStart(_ bs: [Box]) -> UInt64 {
            var off: UInt64 = 0
            for b in bs[..<mi] { off += b.encodedSize() }
            return off + UInt64(bs[mi].encodedSize() - bs[mi].payloadSize())
        }
        let oldStart = dataStart(boxes)
        var moov = boxes[vi]
        guard let mvhdIndex = moov.children?.firstIndex(where: { $0.type == "mvhd" }), case .raw(var mvhd) = moov.children?[mvhdIndex].fields,
              mvhd.count >= 100 else {
            throw ParseError(.invalidValue, offset: 0, "TrackCopier: the movie header is not the muxer's")
        }
        let (movieTimescale, oldDuration) = rawMovieHeaderTimes(mvhd)
        var movieDuration = oldDuration
        // The muxer's tkhd boxes are raw: track_ID at byte 12 (version 0) or 20 (version 1) of the payload.
        var nextID = UInt32(moov.children("trak").count + 1)
        for t in moov.children("trak") {
            if let id = Track(t).header?.trackID { nextID = max(nextID, id + 1) }
            else if let tk = t.child("tkhd"), case .raw(let b) = tk.fields, b.count >= 24 {
                let at = b[0] == 1 ? 20 : 12
                let id = UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
                nextID = max(nextID, id &+ 1)
            }
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
        func setOffsets(_ trak: inout Box, _ values: [UInt64]) {
            guard var mdia = trak.child("mdia"), var minf = mdia.child("minf"), var stbl = minf.child("stbl") else { return }
            stbl.removeChildren("stco"); stbl.removeChildren("co64")
            if useCo64 { stbl.setChild(Box(ChunkLargeOffsetBox(offsets: values), type: "co64")) }
            else { stbl.setChild(Box(U32TableBox(values: values.map { UInt32(truncatingIfNeeded: $0) }), type: "stco")) }
            minf.setChild(stbl); mdia.setChild(minf); trak.setChild(mdia)
        }
        var newTraks: [Box] = []
        for (i, t) in tracks.enumerated() {
            var (trak, duration) = try retimed(t, trackID: nextID, movieTimescale: movieTimescale)
            nextID += 1
            movieDuration = max(movieDuration, duration)
            setOffsets(&trak, relOffsets[i])
            newTraks.append(trak)
        }
        setRawMovieHeader(&mvhd, duration: movieDuration, nextTrackID: nextID)
        moov.children?[mvhdIndex].fields = .raw(mvhd)
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
        guard var moov2 = Optional(boxes[vi]), var kids = moov2.children else { return ISOFile(boxes: boxes, source: file.source) }
        var copied = 0
        for k in kids.indices where kids[k].type == "trak" {
            let isNew = k >= kids.count - newTraks.count
            if isNew {
                setOffsets(&kids[k], relOffsets[copied].map { $0 + newStart })
                copied += 1
            } else if delta != 0 {
                try shiftRawOffsets(&kids[k], by: delta)
            }
        }
        moov2.children = kids
        boxes[vi] = moov2
        return ISOFile(boxes: boxes, source: file.source)
    }

    /// Timescale and duration of the muxer's raw `mvhd` payload (at least 100 bytes).
    static func rawMovieHeaderTimes(_ mvhd: [UInt8]) -> (timescale: UInt32, duration: UInt64) {
        let v1 = mvhd[0] == 1
        let tsAt = v1 ? 20 : 12, durAt = v1 ? 24 : 16
        let movieTimescale = UInt32(mvhd[tsAt]) << 24 | UInt32(mvhd[tsAt + 1]) << 16 | UInt32(mvhd[tsAt + 2]) << 8 | UInt32(mvhd[tsAt + 3])
        var movieDuration: UInt64 = 0
        if v1 { for k in 0..<8 { movieDuration = movieDuration << 8 | UInt64(mvhd[durAt + k]) } }
        else { for k in 0..<4 { movieDuration = movieDuration << 8 | UInt64(mvhd[durAt + k]) } }
        return (movieTimescale, movieDuration)
    }

    /// Sets duration (clamped to 32 bits in version 0) and next_track_ID of the muxer's raw `mvhd` payload.
    static func setRawMovieHeader(_ mvhd: inout [UInt8], duration movieDuration: UInt64, nextTrackID nextID: UInt32) {
        let v1 = mvhd[0] == 1
        let durAt = v1 ? 24 : 16
        if v1 { for k in 0..<8 { mvhd[durAt + k] = UInt8(truncatingIfNeeded: movieDuration >> (56 - 8 * UInt64(k))) } }
        else {
            let d = UInt32(clamping: movieDuration)
            for k in 0..<4 { mvhd[durAt + k] = UInt8(truncatingIfNeeded: d >> (24 - 8 * UInt32(k))) }
        }
        let n = mvhd.count
        for k in 0..<4 { mvhd[n - 4 + k] = UInt8(truncatingIfNeeded: nextID >> (24 - 8 * UInt32(k))) }
    }

    /// The copied `trak` with a new track id and its `tkhd`/`elst` durations in the target movie's timescale
    /// (clamped to 32 bits in version 0 boxes); returns the track duration too.
    static func retimed(_ t: CopiedTrack, trackID: UInt32, movieTimescale: UInt32) throws(ParseError) -> (trak: Box, duration: UInt64) {
        var trak = t.trak
        guard var tkhd = trak.child("tkhd")?.payload(TrackHeaderBox.self) else {
            throw ParseError(.invalidValue, offset: 0, "TrackCopier: copied track has no tkhd")
        }
        tkhd.trackID = trackID
        tkhd.duration = rescale(tkhd.duration, from: t.sourceMovieTimescale, to: movieTimescale)
        if tkhd.fullBox.version == 0 && tkhd.duration > UInt64(UInt32.max) { tkhd.duration = UInt64(UInt32.max) }
        trak.setChild(Box(tkhd, type: "tkhd"))
        if var edts = trak.child("edts"), let elst = edts.child("elst")?.payload(EditListBox.self) {
            var e = elst
            for k in e.entries.indices {
                e.entries[k].segmentDuration = rescale(e.entries[k].segmentDuration, from: t.sourceMovieTimescale, to: movieTimescale)
                if e.fullBox.version == 0 && e.entries[k].segmentDuration > UInt64(UInt32.max) { e.entries[k].segmentDuration = UInt64(UInt32.max) }
            }
            edts.setChild(Box(e, type: "elst"))
            trak.setChild(edts)
        }
        return (trak, tkhd.duration)
    }

    /// Adds `delta` to every entry of the muxer's raw `stco`/`co64`.
    static func shiftRawOffsets(_ trak: inout Box, by delta: Int64) throws(ParseError) {
        guard var mdia = trak.child("mdia"), var minf = mdia.child("minf"), var stbl = minf.child("stbl") else { return }
        for type in ["stco", "co64"] as [FourCC] {
            guard var box = stbl.child(type), case .raw(var b) = box.fields, b.count >= 8 else { continue }
            let w = type == "co64" ? 8 : 4
            var p = 8
            while p + w <= b.count {
                var v: UInt64 = 0
                for k in 0..<w { v = v << 8 | UInt64(b[p + k]) }
                let nv = Int64(v) + delta
                guard nv >= 0, w == 8 || nv <= Int64(UInt32.max) else {
                    throw ParseError(.unwritable, offset: 0, "chunk offset out of range after adding tracks")
                }
                for k in 0..<w { b[p + k] = UInt8(truncatingIfNeeded: UInt64(nv) >> UInt64(8 * (w - 1 - k))) }
                p += w
            }
            box.fields = .raw(b)
            stbl.setChild(box)
        }
        minf.setChild(stbl); mdia.setChild(minf); trak.setChild(mdia)
    }
}
