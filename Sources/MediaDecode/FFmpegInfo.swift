import BinaryIO
import SpatialMedia
import SystemSupport

/// `info` of a video file only FFmpeg reads (MPEG-TS, Matroska/WebM, AVI, …): the file `convert` takes through FFmpeg
/// is described from the same reading (``MediaProbe``), so `info`, `validate` and `convert` say one thing about it.
/// Stated as "read through FFmpeg"; such a file cannot be spatial (Apple's stereo metadata are QuickTime/MP4 boxes).
public enum FFmpegInfo {
    /// True for a file the box parser does not read and `convert` would hand to FFmpeg: Matroska, or any other file
    /// that is not ISOBMFF, JPEG, PNG, Y4M or raw HEVC and is a video by its name (``VideoInputs/isVideo(_:)``).
    public static func reads(_ path: String) -> Bool {
        guard let head = FileProbe.head(of: path) else { return false }
        switch FileProbe.kind(head: head) {
        case .matroska, .y4m: return true
        case .other:
            let box =
                head.count >= 8 && FileProbe.leadingBoxTypes.contains(String(decoding: head[4..<8], as: UTF8.self))
            return !box && VideoInputs.isVideo(path)
        default: return false
        }
    }

    /// Describes `path` as FFmpeg reads it: container, duration, streams, and the video stream's size, rate and stated
    /// stereo packing and projection (side data). Throws when FFmpeg is missing or cannot read it.
    package static func inspect(path: String, ffmpeg: String? = nil) throws(ParseError) -> MediaInfo {
        let tool = try FFmpeg.require(.any, for: "reading \(path)", override: ffmpeg)
        let p = try MediaProbe.run(path, tool: tool)
        var info = describe(p, tool: tool.version)
        // The same integrity reading `convert` and `validate` make (SV-FILE-002): a cut or erring stream is named, and
        // the CLI exits 2 for it.
        if let damage = try StreamIntegrity.scan(path: path, tool: tool, probe: p) {
            info.lines.append("damaged or truncated: \(damage)")
            if case .object(var fields) = info.json {
                fields.append(("damaged", .string(damage)))
                info.json = .object(fields)
            }
            info.hasProblems = true
            info.isDamaged = true
        }
        return info
    }

    /// The lines and JSON of a probe (`inspect(path:ffmpeg:)`, package-internal; `Operations.info` for callers).
    public static func describe(_ p: MediaProbe, tool: String) -> MediaInfo {
        var lines = [
            "read through FFmpeg \(tool): \(p.format ?? "unnamed") container"
                + (p.durationSeconds.map { ", duration \(NumberText.fixed($0, places: 3, trimZeros: true)) s" } ?? "")
                + ", \(p.streams.count) stream\(p.streams.count == 1 ? "" : "s")"
        ]
        var streams: [JSON] = []
        for s in p.streams {
            var t = "stream \(s.index): \(s.kind.rawValue) \(s.codec)"
            var o: [(String, JSON)] = [
                ("index", .int(Int64(s.index))), ("kind", .string(s.kind.rawValue)), ("codec", .string(s.codec)),
            ]
            if let c = s.channels { t += ", \(c) channel\(c == 1 ? "" : "s")"; o.append(("channels", .int(Int64(c)))) }
            if let l = s.language { t += ", language \(l)"; o.append(("language", .string(l))) }
            if s.isAttachedPicture { t += " (cover picture)"; o.append(("attached_picture", .bool(true))) }
            lines.append(t)
            streams.append(.object(o))
        }
        var video: JSON = .null
        if p.video != nil {
            let packing = p.stereoPacking.map { $0 == .sideBySide ? "side-by-side" : "top-bottom" }
            var t = "video"
            if let s = p.videoSize { t += ": \(s.width)×\(s.height)" }
            if let r = p.frameRate { t += ", \(r.num)/\(r.den) fps" }
            if let a = p.sampleAspect { t += ", sample aspect \(a.num):\(a.den)" }
            if let r = p.rotationDegrees, r != 0 { t += ", rotated \(NumberText.fixed(r, places: 0))°" }
            t += "; stereo packing: " + (packing.map { "\($0) (stated)" } ?? "none stated")
            if let sph = p.spherical { t += "; projection: \(sph.projection) (stated)" }
            lines.append(t)
            video = .object([
                ("width", p.videoSize.map { .int(Int64($0.width)) } ?? .null),
                ("height", p.videoSize.map { .int(Int64($0.height)) } ?? .null),
                ("frame_rate_num", p.frameRate.map { .int(Int64($0.num)) } ?? .null),
                ("frame_rate_den", p.frameRate.map { .int(Int64($0.den)) } ?? .null),
                ("rotation_degrees", p.rotationDegrees.map { .double($0) } ?? .null),
                ("stereo_packing", packing.map { .string($0) } ?? .null),
                ("projection", p.spherical.map { .string($0.projection) } ?? .null),
            ])
        }
        // A Y4M file is described through FFmpeg here, but `convert` reads its frames itself.
        let convertReads = p.format == "yuv4mpegpipe" ? "directly (no FFmpeg needed)" : "through FFmpeg"
        lines.append(
            "spatial: no (only MP4/MOV can carry Apple's spatial metadata); `spatial-media convert` reads it \(convertReads)"
        )
        let json: JSON = .object([
            ("read_through", .string("ffmpeg")), ("format", p.format.map { .string($0) } ?? .null),
            ("duration_seconds", p.durationSeconds.map { .double($0) } ?? .null), ("chapters", .int(Int64(p.chapters))),
            ("streams", .array(streams)), ("video", video), ("spatial", .bool(false)),
        ])
        return MediaInfo(lines: lines, json: json, hasProblems: p.video == nil)
    }
}
