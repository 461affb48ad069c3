import BinaryIO
import ImageFormats
import SystemSupport

/// Decodes both views of an inter-layer-predicted MV-HEVC movie (Apple, x265 multiview) with an external FFmpeg
/// ≥ 7.1: `$SPATIAL_MEDIA_FFMPEG`, or the FFmpeg of the oracle environment (`.venv-oracles`, imageio-ffmpeg).
public enum FFmpegFrames {
    /// The most bytes read from one FFmpeg run (grey frames of one view).
    static let maxOutput = 1 << 30

    static func executable() -> String? {
        if let p = FileSystem.environment("SPATIAL_MEDIA_FFMPEG"), FileSystem.isExecutableFile(p) { return p }
        guard let cwd = FileSystem.currentDirectory() else { return findExecutable("ffmpeg") }
        let py = cwd + "/.venv-oracles/bin/python"
        // Last resort: ffmpeg on PATH (it must be 7.1 or newer to decode MV-HEVC; an older one fails and says so).
        guard FileSystem.isExecutableFile(py) else { return findExecutable("ffmpeg") }
        guard let out = run(py, ["-c", "import imageio_ffmpeg;print(imageio_ffmpeg.get_ffmpeg_exe())"]) else { return findExecutable("ffmpeg") }
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

    /// The frames at `indices` (display order) of both views, as 8-bit grey images.
    public static func frames(_ path: String, indices: [Int]) throws(ParseError) -> [(index: Int, left: Image, right: Image)] {
        guard let ff = executable() else { throw ParseError(.unsupported, offset: 0, "no FFmpeg") }
        var eyes: [[Image]] = []
        let select = indices.map { "eq(n\\,\($0))" }.joined(separator: "+")
        for pos in ["left", "right"] {
            guard let data = run(ff, ["-v", "error", "-i", path, "-map", "0:v:0:vpos:\(pos)", "-vf", "select=\(select)", "-fps_mode", "passthrough",
                                      "-pix_fmt", "gray", "-f", "image2pipe", "-c:v", "pgm", "-"]) else {
                throw ParseError(.unsupported, offset: 0, "FFmpeg could not decode the \(pos) view")
            }
            let frames = parsePGMs(data)
            guard !frames.isEmpty else { throw ParseError(.unsupported, offset: 0, "FFmpeg returned no \(pos) frames") }
            if let first = eyes.first?.first, (first.width, first.height) != (frames[0].width, frames[0].height) {
                throw ParseError(.invalidValue, offset: 0, "views differ in size")
            }
            eyes.append(frames)
        }
        let n = min(eyes[0].count, eyes[1].count)
        return (0..<n).map { i in (i < indices.count ? indices[i] : i, eyes[0][i], eyes[1][i]) }
    }

    /// Concatenated binary PGM (P5) images.
    static func parsePGMs(_ b: [UInt8]) -> [Image] {
        var out: [Image] = []
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
            guard i + w * h <= b.count, let g = try? Image(width: w, height: h, bitDepth: 8, format: .gray, planes: .u8([Array(b[i..<(i + w * h)])])) else { break }
            out.append(g)
            i += w * h
        }
        return out
    }
}

