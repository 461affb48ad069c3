import BinaryIO
import HEVC
import ISOBMFF
import SpatialMedia
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which decoder opens a video input.
public enum VideoDecoderChoice: String, Sendable, CaseIterable {
    /// Y4M read directly, HEVC MP4/MOV by libde265, anything else by FFmpeg.
    case auto
    /// Always FFmpeg (found by ``FFmpeg/locate(_:override:)``).
    case ffmpeg
}

/// Opening any video input as one stream of frames: the one place that decides which decoder reads a file.
public enum VideoInputs {
    /// File extensions treated as video by `convert`.
    public static let videoExtensions: Set<String> = [
        "y4m", "mp4", "mov", "m4v", "mkv", "webm", "avi", "ts", "mts", "m2ts", "mpg", "mpeg", "wmv", "flv", "3gp", "qt",
    ]

    /// True when `path` should be converted as video (by extension, "-" or content).
    public static func isVideo(_ path: String) -> Bool {
        if path == "-" { return true }
        if let dot = path.lastIndex(of: "."), videoExtensions.contains(path[path.index(after: dot)...].lowercased()) {
            return true
        }
        // By content: a Y4M stream, a Matroska file, or a movie that is not a HEIF image.
        switch FileProbe.kind(of: path) {
        case .y4m?, .matroska?, .movie?: return true
        default: return false
        }
    }

    /// Opens one input stream.
    ///
    /// `squarePixels`: scale a frame whose sample aspect ratio is not 1:1 to square pixels (FFmpeg inputs). Pass false
    /// when the caller stretches the frame itself (half-width/half-height stereo layouts, whose 2:1 or 1:2 sample
    /// aspect ratio is exactly that stretch). `sphere`: the caller cuts a sphere into its views and writes its
    /// projection (``/SpatialMedia/StereoVideoMetadata/sphereSplit(width:height:projection:packing:)``); without it a
    /// sphere is refused, since a rectilinear conversion would flatten it. `sdrDepth` (`--sdr`): an HDR (PQ, HLG)
    /// source is decoded through FFmpeg and tone-mapped to BT.709 SDR with that many bits
    /// (``FFmpegProducer/toneMapped``).
    public static func producer(
        for path: String, decoder: VideoDecoderChoice = .auto, ffmpeg: String? = nil, limits: Limits = .default,
        squarePixels: Bool = true, sphere: Bool = false, sdrDepth: Int? = nil,
        notes: inout [String]
    ) throws(ParseError) -> VideoFrameProducer {
        func viaFFmpeg(_ hint: Int?, why: String) throws(ParseError) -> VideoFrameProducer {
            let tool: FFmpegTool
            do throws(ParseError) {
                tool = try FFmpeg.require(.any, for: "\(why): decoding \(path)", override: ffmpeg)
            } catch {
                throw ParseError(
                    .unsupported, path: path, error.message + " (Y4M and HEVC MP4/MOV inputs work without it)")
            }
            var probe = try MediaProbe.run(path, tool: tool)
            if !squarePixels, let a = probe.sampleAspect {
                notes.append(
                    "\(path): sample aspect ratio \(a.num):\(a.den) not applied: the half layout's stretch restores each eye"
                )
                probe.sampleAspect = nil
            }
            guard probe.video != nil else {
                let kinds: [String] = probe.streams.map { (s: MediaProbe.Stream) -> String in s.kind.rawValue }
                let has = kinds.isEmpty ? "nothing" : kinds.joined(separator: ", ")
                throw ParseError(.unsupported, path: path, "no video stream (FFmpeg lists: \(has)); give a video file")
            }
            // Never flatten a sphere that only FFmpeg's reading reveals (Matroska Projection, …).
            if !sphere, let why = probe.sphereRefusal { throw ParseError(.unsupported, path: path, why) }
            if let r = probe.rotationDegrees, r != 0 {
                notes.append(
                    "\(path): rotated \(NumberText.fixed(-r, places: 0))° as its display matrix asks (FFmpeg applies it; the eyes are split after rotating)"
                )
            }
            if let a = probe.sampleAspect {
                notes.append(
                    "\(path): sample aspect ratio \(a.num):\(a.den) scaled to square pixels (width × \(a.num)/\(a.den))"
                )
            }
            return try FFmpegProducer(
                path: path, tool: tool, probe: probe, frameCountHint: hint, limits: limits,
                sdrDepth: sdrDepth)
        }
        if path == "-" { return try Y4MProducer(path: path, limits: limits) }
        // Existence first, so a typo is not reported as "needs ffmpeg".
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw ParseError(.io, path: path, "cannot open: \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG || (st.st_mode & S_IFMT) == S_IFIFO else {
            throw ParseError(.io, path: path, "not a regular file")
        }
        let kind = FileProbe.kind(of: path)
        if kind == .y4m {
            if decoder == .ffmpeg { return try viaFFmpeg(nil, why: "--decoder ffmpeg") }
            return try Y4MProducer(path: path, limits: limits)
        }
        if kind == .movie || kind == .heif {
            let file = try ISOFile.open(path: path, limits: limits)
            // A damaged or truncated movie is refused before anything is decoded or written.
            try file.requireIntact(limits: limits, operation: "convert")
            // Never flatten a sphere (VR180/360, APMP): refuse with the reason and the lossless alternative.
            if !sphere, let why = SpatialVideoReport.sphereRefusal(file) {
                throw ParseError(.unsupported, path: path, why)
            }
            // Never cut one view of an MV-HEVC (spatial) video in half: say what to use instead.
            if let why = SpatialVideoReport.multiviewRefusal(file) { throw ParseError(.unsupported, path: path, why) }
            let hint = file.tracks.first { $0.handler == "vide" }?.sampleCount
            if decoder == .auto, !file.isFragmented,
                let p = try HEVCTrackProducer.open(path: path, file: file, limits: limits)
            {
                // Tone mapping is FFmpeg's: an HDR track asked for as SDR is decoded there.
                guard sdrDepth != nil, p.colour?.isHDR == true else { return p }
                p.abort()
                return try viaFFmpeg(hint, why: "tone mapping HDR to SDR")
            }
            let codec = file.tracks.first { $0.handler == "vide" }?.sampleEntries.first?.type.description ?? "?"
            let why =
                decoder == .ffmpeg
                ? "--decoder ffmpeg"
                : file.isFragmented ? "the movie is fragmented" : "the video track is '\(codec)', not HEVC"
            let p = try viaFFmpeg(hint, why: why)
            notes.append("\(path): \(why); decoded by ffmpeg to \(p.bitDepth)-bit 4:2:0")
            return p
        }
        // Never decode a two-layer (MV-HEVC) stream as 2D: FFmpeg would read its base layer only, one eye.
        if kind == .annexB, let why = try multiLayerRefusal(path, limits: limits) {
            throw ParseError(.unsupported, path: path, why)
        }
        let p = try viaFFmpeg(nil, why: "\(path) is neither Y4M nor MP4/MOV")
        notes.append("\(path): decoded by ffmpeg to \(p.bitDepth)-bit 4:2:0")
        return p
    }

    /// NAL units of a raw HEVC stream looked at for a second layer (its parameter sets and first pictures come first).
    static let layerScanNALs = 256

    /// The `nuh_layer_id` of the first NAL unit of a second layer within the first `layerScanNALs` NAL units of a raw
    /// HEVC stream (Annex B), or nil for a single-layer stream.
    public static func secondLayerId(_ path: String, limits: Limits = .default) throws(ParseError) -> UInt8? {
        var scanner = AnnexB.Scanner(source: try FileSource(path: path), limits: limits)
        var seen = 0
        while seen < layerScanNALs, let nal = try scanner.next() {
            seen += 1
            if nal.layerId > 0 { return nal.layerId }
        }
        return nil
    }

    /// Why a raw HEVC stream (Annex B) is not decoded as a frame-packed video: it has NAL units of a second layer
    /// (`nuh_layer_id` > 0, an MV-HEVC stream such as a multiview encoder writes), so decoding it would read its
    /// base layer alone — one eye, cut in halves. nil for a single-layer stream. Converted alone, such a stream is
    /// muxed as it is (the `mv-hevc-stream` route); the message says so.
    public static func multiLayerRefusal(_ path: String, limits: Limits = .default) throws(ParseError) -> String? {
        guard let id = try secondLayerId(path, limits: limits) else { return nil }
        return "a raw multilayer HEVC stream (NAL units of nuh_layer_id \(id)): decoding it as a frame-packed picture "
            + "would read its base layer only — one eye, cut in halves. Convert it alone, `spatial-media convert "
            + "\(path) -o OUT.mov`: a two-view MV-HEVC stream is muxed as it is, without re-encoding"
    }
}
