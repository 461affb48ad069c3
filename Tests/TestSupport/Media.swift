import Foundation

/// Synthetic media the tests make for themselves (no file from elsewhere).
public enum TestMedia {
    /// A 4:2:0 8-bit Y4M clip: a moving gradient with a checker pattern; `shift` moves it horizontally (the
    /// other eye). `fps` is written as `F<fps>:1`.
    public static func y4m(width: Int, height: Int, frames: Int, shift: Int = 0, fps: Int = 30) -> [UInt8] {
        var out = Array("YUV4MPEG2 W\(width) H\(height) F\(fps):1 Ip A1:1 C420jpeg\n".utf8)
        for t in 0..<frames {
            out += Array("FRAME\n".utf8)
            for y in 0..<height {
                for x in 0..<width {
                    out.append(
                        UInt8(truncatingIfNeeded: (x + shift + 3 * t) * 2 + y * 2 + ((x / 8 + y / 8 + t) % 2) * 40))
                }
            }
            for _ in 0..<2 {
                for y in 0..<(height / 2) {
                    for x in 0..<(width / 2) { out.append(UInt8(truncatingIfNeeded: x * 3 + y * 2 + t * 5 + shift)) }
                }
            }
        }
        return out
    }

    /// Raw Y4M bytes (a header line as given, then `frames` frames of `frameBytes` bytes): for hand-made bad inputs.
    /// Frame `i` is filled with `fill`, else with 16 + 7·i; `cut` bytes are dropped from the end (a truncated last
    /// frame).
    public static func rawY4M(header: String, frames: Int, frameBytes: Int, fill: UInt8? = nil, cut: Int = 0) -> [UInt8]
    {
        var d = Array((header + "\n").utf8)
        for i in 0..<frames {
            d +=
                Array("FRAME\n".utf8)
                + [UInt8](repeating: fill ?? UInt8(truncatingIfNeeded: 16 + i * 7), count: frameBytes)
        }
        return Array(d.dropLast(cut))
    }

    /// Writes bytes to a file.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// The x265 command-line encoder (installed by `scripts/setup.sh`), or nil.
    public static let x265: String? = TestPaths.which("x265")

    /// Encodes a Y4M clip with the x265 CLI (ultrafast, no scene cuts, closed GOPs); `extra` adds options.
    /// Returns the path of the Annex B stream written beside the input.
    public static func x265Encode(_ y4m: [UInt8], dir: String, name: String, extra: [String]) throws -> String {
        guard let x265 else { throw TestSetupError("x265 CLI not found; run `bash scripts/setup.sh`") }
        let input = dir + "/" + name + ".y4m", output = dir + "/" + name + ".hevc"
        try write(y4m, to: input)
        let r = try Run.program(
            x265,
            [
                "--input", input, "--preset", "ultrafast", "--no-scenecut", "--no-open-gop", "--log-level", "error",
                "--no-progress", "-o", output,
            ] + extra, timeout: 300)
        guard r.status == 0 else { throw TestSetupError("x265 failed (\(r.status)): \(r.err)") }
        return output
    }

    /// A short test-pattern clip made by FFmpeg (`lavfi` testsrc, MPEG-4 Part 2 in the container `path` names):
    /// an input only FFmpeg decodes.
    public static func ffmpegClip(_ path: String, seconds: Int, size: String = "320x96") throws {
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(),
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(size):rate=30", "-t",
                "\(seconds)",
                "-c:v", "mpeg4", "-q:v", "5", path,
            ], timeout: 300)
        guard r.status == 0 else { throw TestSetupError("FFmpeg could not make \(path): \(r.err)") }
    }
}
