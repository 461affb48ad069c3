import BinaryIO
import HEVC
import ISOBMFF
import SystemSupport

/// Conversion segments (spatial videos made by `convert --segment K/N`, each carrying ``VideoSegmentInfo``) checked
/// to join into one movie without re-encoding: every segment of one conversion present once, frame ranges tiling the
/// clip, one video track each with byte-identical sample entries (`hvcC`, `lhvC`, `vexu`, `hfov`, `colr`), the same
/// timescale and frame duration, each starting on a sync sample. ``write(to:audio:progress:isCancelled:)`` writes the
/// samples in order through ``SpatialVideoStreamWriter`` with the first segment's header and spatial metadata, so the
/// result is the movie one conversion writing the same access units would have written. See Specs/conversion.md
/// ("Segments").
public struct SpatialVideoSegmentSet: Sendable {
    /// One checked segment.
    public struct Segment: Sendable {
        public var path: String
        public var info: VideoSegmentInfo
        public var samples: Int
    }
    /// In frame order.
    public let segments: [Segment]
    public let frames: Int
    public let timescale: UInt32
    public let frameDuration: UInt32
    let header: MVHEVCStream
    let options: SpatialVideoMuxOptions
    let lengthSize: Int
    let limits: Limits

    public var seconds: Double { Double(frames) * Double(frameDuration) / Double(max(1, timescale)) }

    /// Opens and checks `paths` (any order: they are put in segment order).
    public init(paths: [String], limits: Limits = .default) throws(ParseError) {
        guard !paths.isEmpty else { throw ParseError(.invalidArgument, "no segments given") }
        var opened: [OpenedSegment] = []
        for p in paths { opened.append(try Self.open(p, limits: limits)) }
        opened.sort { $0.segment.info.index < $1.segment.info.index }
        let first = opened[0]
        let n = first.segment.info.count
        try Self.checkSameConversion(opened)
        let indices = opened.map(\.segment.info.index)
        if let dup = zip(indices, indices.dropFirst()).first(where: { $0 == $1 }) {
            let twice = opened.filter { $0.segment.info.index == dup.0 }.map(\.segment.path)
            throw ParseError(
                .invalidArgument, "segment \(dup.0) of \(n) is given twice: \(twice.joined(separator: ", "))")
        }
        // Indices are distinct and within 1…n, so the count alone says whether one is missing; the scan for the first
        // missing ones stops after ten (n comes from the file and may be up to 2^32 - 1).
        guard opened.count == n else {
            let have = Set(indices), absent = n - opened.count
            let shown =
                (1...n).lazy.filter { !have.contains($0) }.prefix(10).map(String.init).joined(separator: ", ")
                + (absent > 10 ? ", …" : "")
            throw ParseError(
                .invalidArgument, "segment\(absent == 1 ? "" : "s") \(shown) of \(n) missing; give all \(n) segments")
        }
        var next = 0
        for o in opened {
            let i = o.segment.info
            guard i.firstFrame == next else {
                throw ParseError(
                    .invalidValue, path: o.segment.path,
                    "\(o.segment.path) (segment \(i.index)) starts at frame \(i.firstFrame); the segments before it end at frame \(next): the ranges are not contiguous"
                )
            }
            next += i.frameCount
        }
        guard next == first.segment.info.totalFrames else {
            throw ParseError(.invalidValue, "the segments cover \(next) of \(first.segment.info.totalFrames) frames")
        }
        // The header and metadata of the joined movie, checked to rebuild the segments' sample entry byte for byte.
        guard let hvcCBytes = first.entryBox.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record,
            let lhvCBytes = first.entryBox.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record
        else {
            throw ParseError(.invalidValue, path: first.segment.path, "\(first.segment.path): unreadable hvcC or lhvC")
        }
        let hvcC = try HEVCDecoderConfigurationRecord(parsing: hvcCBytes)
        let header = try MVHEVCStream(hvcC: hvcC, lhvC: try LHEVCDecoderConfigurationRecord(parsing: lhvCBytes))
        let m = StereoMetadataReader.read(sampleEntry: first.entryBox)
        var options = SpatialVideoMuxOptions()
        options.stereo = m.stereo
        options.container = first.container
        options.faststart = first.faststart
        options.frameRateNum = first.timescale
        options.frameRateDen = first.duration
        let rebuilt = try SpatialVideoMuxer.sampleEntry(header, options: options).serialized()
        guard rebuilt == first.entry else {
            throw ParseError(
                .unsupported, path: first.segment.path,
                "\(first.segment.path): its sample entry is not one this version of spatial-media writes, so the segments cannot be joined exactly"
            )
        }
        segments = opened.map(\.segment)
        frames = next
        timescale = first.timescale
        frameDuration = first.duration
        self.header = header
        self.options = options
        lengthSize = hvcC.lengthSize
        self.limits = limits
    }

    /// Opens one segment and checks it alone: whole, one MV-HEVC track, the announced frames, a sync sample first and
    /// a constant frame rate.
    private static func open(_ p: String, limits: Limits) throws(ParseError) -> OpenedSegment {
        let file: ISOFile
        do throws(ParseError) {
            file = try ISOFile.open(path: p, limits: limits)
            try file.requireIntact(limits: limits, operation: "join")
        } catch {
            // The segment at fault is named: the error's own path is a box path inside it (its message says where).
            var e = error
            e.path = p
            throw e
        }
        guard let info = try VideoSegmentInfo.read(from: file, path: p) else {
            throw ParseError(
                .invalidValue, path: p,
                "\(p) is not a conversion segment (no moov/udta/smsg); segments are made by a conversion of one part K of N"
            )
        }
        let tracks = file.tracks
        guard tracks.count == 1, let track = tracks.first, track.handler == "vide", track.sampleEntries.count == 1,
            let entry = track.sampleEntries.first, entry.type == "hvc1" || entry.type == "hev1",
            entry.child("hvcC") != nil, entry.child("lhvC") != nil
        else {
            throw ParseError(
                .unsupported, path: p,
                "\(p): a segment holds exactly one MV-HEVC video track (hvcC + lhvC) and nothing else")
        }
        let samples = try track.samples(limits: limits)
        guard samples.count == info.frameCount else {
            throw ParseError(
                .invalidValue, path: p,
                "\(p): the segment box announces \(info.frameCount) frames, the track has \(samples.count)")
        }
        guard let first = samples.first, first.isSync else {
            throw ParseError(.invalidValue, path: p, "\(p): the segment does not start with a sync sample (IDR)")
        }
        let d = first.duration
        guard d > 0, samples.allSatisfy({ $0.duration == d }) else {
            throw ParseError(.invalidValue, path: p, "\(p): sample durations vary; segments have a constant frame rate")
        }
        let major = file.box("ftyp")?.payload(FileTypeBox.self)?.majorBrand
        let moovAt = file.box("moov")?.header.offset ?? 0, mdatAt = file.box("mdat")?.header.offset ?? 0
        return OpenedSegment(
            segment: Segment(path: p, info: info, samples: samples.count),
            entry: try entry.serialized(source: file.source),
            timescale: track.timescale, duration: d, container: major == "qt  " ? .mov : .mp4,
            faststart: moovAt < mdatAt, entryBox: entry)
    }

    /// Every segment comes from the same conversion as the first (count, frames, GOP, input, settings, sample entry,
    /// timing, container).
    private static func checkSameConversion(_ opened: [OpenedSegment]) throws(ParseError) {
        guard let first = opened.first else { return }
        let n = first.segment.info.count
        for o in opened {
            let i = o.segment.info, p = o.segment.path
            guard i.count == n, i.totalFrames == first.segment.info.totalFrames,
                i.gopFrames == first.segment.info.gopFrames
            else {
                throw ParseError(
                    .invalidValue, path: p,
                    "\(p) is segment \(i.index) of \(i.count) of a \(i.totalFrames)-frame conversion (GOP \(i.gopFrames)); \(first.segment.path) is of \(n) of \(first.segment.info.totalFrames) (GOP \(first.segment.info.gopFrames)): not the same conversion"
                )
            }
            // The converted input and the encoder settings each segment recorded (a segment of another input or made
            // with another QP may have an identical sample entry).
            guard i.input == first.segment.info.input else {
                throw ParseError(
                    .invalidValue, path: p,
                    "\(p) was converted from another input than \(first.segment.path) (or from a changed copy): its recorded input identity (size and content hash) differs\(i.input == nil || first.segment.info.input == nil ? " or is missing" : "")"
                )
            }
            guard i.settings == first.segment.info.settings else {
                throw ParseError(
                    .invalidValue, path: p,
                    "\(p) was encoded with other settings than \(first.segment.path): \(i.settings ?? "none recorded") vs \(first.segment.info.settings ?? "none recorded")"
                )
            }
            guard o.entry == first.entry else {
                throw ParseError(
                    .invalidValue, path: p,
                    "\(p): its sample entry (parameter sets hvcC/lhvC or spatial metadata) differs from \(first.segment.path)'s; segments of one conversion have identical ones (same settings and input)"
                )
            }
            guard o.timescale == first.timescale, o.duration == first.duration else {
                throw ParseError(
                    .invalidValue, path: p,
                    "\(p): timescale \(o.timescale), frame duration \(o.duration); \(first.segment.path): \(first.timescale), \(first.duration)"
                )
            }
            guard o.container == first.container else {
                throw ParseError(
                    .invalidValue, path: p, "\(p) and \(first.segment.path) are not both QuickTime or both MP4")
            }
        }
    }

    /// Writes the joined movie atomically, with `audio` added after the video. `progress` gets the frames written;
    /// `isCancelled` is polled between samples (cancelling leaves nothing at `output`).
    @discardableResult
    public func write(
        to output: String, audio: [CopiedTrack] = [], progress: ((Int) -> Void)? = nil,
        isCancelled: () -> Bool = { false }
    ) throws(ParseError) -> SpatialVideoMuxResult {
        let writer = try SpatialVideoStreamWriter(path: output, options: options)
        var written = 0
        for s in segments {
            let file = try ISOFile.open(path: s.path, limits: limits)
            guard let track = file.tracks.first else {
                throw ParseError(.invalidValue, path: s.path, "\(s.path) changed while joining")
            }
            let samples = try track.samples(limits: limits)
            guard samples.count == s.samples else {
                throw ParseError(.invalidValue, path: s.path, "\(s.path) changed while joining")
            }
            for sample in samples {
                if isCancelled() { throw ParseError(.cancelled, path: output, "cancelled; nothing was written") }
                let bytes = try file.readBytes(at: sample.offset, count: Int(sample.size))
                let nals = try LengthPrefixed.split(
                    bytes, lengthSize: lengthSize, baseOffset: sample.offset, limits: limits)
                guard let base = nals.first(where: { $0.type.isVCL && $0.layerId == 0 }) else {
                    throw ParseError(
                        .invalidValue, offset: sample.offset, path: s.path,
                        "\(s.path): sample \(sample.index + 1) has no base-layer picture")
                }
                // Presentation rank in the whole clip: orders the pictures of each coded video sequence as their POCs
                // do.
                let rank = s.info.firstFrame + Int(sample.presentationTime / Int64(frameDuration))
                try writer.add(
                    MVHEVCAccessUnit(nalUnits: nals, poc: rank, isIRAP: base.type.isIRAP, baseType: base.type))
                written += 1
                progress?(written)
            }
        }
        if isCancelled() { throw ParseError(.cancelled, path: output, "cancelled; nothing was written") }
        return try writer.finish(header: header, audio: audio)
    }
}

/// A segment file as opened and checked on its own.
private struct OpenedSegment {
    var segment: SpatialVideoSegmentSet.Segment
    var entry: [UInt8]
    var timescale: UInt32
    var duration: UInt32
    var container: SpatialVideoMuxOptions.Container
    var faststart: Bool
    var entryBox: Box
}
