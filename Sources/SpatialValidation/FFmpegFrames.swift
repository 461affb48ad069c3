import BinaryIO
import SpatialConvert
import StereoVision

/// Decodes both views of an inter-layer-predicted MV-HEVC movie (Apple, x265 multiview) with an external FFmpeg
/// ≥ 7.1: `$SPATIAL_MEDIA_FFMPEG`, or the FFmpeg of the oracle environment (`.venv-oracles`, imageio-ffmpeg).
enum FFmpegFrames {
    /// The most bytes read from one FFmpeg run (grey frames of one view).
    static let maxOutput = 1 << 30

    static func executable() -> String? {
        if let p = FileSystem.environment("SPATIAL_MEDIA_FFMPEG"), FileSystem.isExecutableFile(p) { return p }
        guard let cwd = FileSystem.currentDirectory() else { return nil }
        let py = cwd + "/.venv-oracles/bin/python"
        guard FileSystem.isExecutableFile(py) else { return nil }
        guard let out = run(py, ["-c", "import imageio_ffmpeg;print(imageio_ffmpeg.get_ffmpeg_exe())"]) else { return nil }
        var path = String(decoding: out, as: UTF8.self)
        while path.last?.isWhitespace == true { path.removeLast() }
        return FileSystem.isExecutableFile(path) ? path : nil
    }

    /// Runs a program and returns its standard output when it exits with status 0.
    static func run(_ exe: String, _ args: [String]) -> [UInt8]? {
        guard let child = try? ChildProcess(executable: exe, arguments: args) else { return nil }
        let data = child.readToEnd(limit: maxOutput)
        return child.wait() == 0 ? data : nil
    }

    /// `count` frames spread over `total`, as grey eyes.
    static func frames(_ path: String, count: Int, total: Int) throws(ParseError) -> [EyePixels] {
        guard let ff = executable() else { throw ParseError(.unsupported, offset: 0, "no FFmpeg") }
        var eyes: [[GrayImage]] = []
        var size: (Int, Int)? = nil
        let picks = PixelSource.pickFrames(total: max(1, total), count: count)
        let select = picks.map { "eq(n\\,\($0))" }.joined(separator: "+")
        for pos in ["left", "right"] {
            // Size from a PGM frame header, then raw grey frames.
            guard let data = run(ff, ["-v", "error", "-i", path, "-map", "0:v:0:vpos:\(pos)", "-vf", "select=\(select)", "-fps_mode", "passthrough",
                                      "-pix_fmt", "gray", "-f", "image2pipe", "-c:v", "pgm", "-"]) else {
                throw ParseError(.unsupported, offset: 0, "FFmpeg could not decode the \(pos) view")
            }
            let frames = parsePGMs(data)
            guard !frames.isEmpty else { throw ParseError(.unsupported, offset: 0, "FFmpeg returned no \(pos) frames") }
            if let s = size, s != (frames[0].width, frames[0].height) { throw ParseError(.invalidValue, offset: 0, "views differ in size") }
            size = (frames[0].width, frames[0].height)
            eyes.append(frames)
        }
        let n = min(eyes[0].count, eyes[1].count)
        return (0..<n).map { i in
            var e = EyePixels(left: eyes[0][i], right: eyes[1][i])
            e.label = "frame \(i < picks.count ? picks[i] : i)"
            e.notes = ["decoded with FFmpeg (\(ff.split(separator: "/").last ?? ""))"]
            return e
        }
    }

    /// Concatenated binary PGM (P5) images.
    static func parsePGMs(_ b: [UInt8]) -> [GrayImage] {
        var out: [GrayImage] = []
        var i = 0
        func token() -> Int? {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
            var v = 0, digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39, digits < 9 { v = v * 10 + Int(b[i] - 0x30); i += 1; digits += 1 }
            return digits > 0 ? v : nil
        }
        while i + 2 < b.count, b[i] == 0x50, b[i + 1] == 0x35 {
            i += 2
            guard let w = token(), let h = token(), let mx = token(), mx == 255, w > 0, h > 0, w <= 32768, h <= 32768 else { break }
            i += 1
            guard i + w * h <= b.count, let g = GrayImage(width: w, height: h, bytes: Array(b[i..<(i + w * h)])) else { break }
            out.append(g)
            i += w * h
        }
        return out
    }
}

