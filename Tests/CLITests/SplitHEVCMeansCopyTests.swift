// Issue 33: an .hevc output of a video split can only be a copy of the coded pictures, so the operations layer
// takes `.hevc` outputs as `--copy` (the command line and sm_split agree); re-encoding options with them are refused.
import Foundation
import TestSupport
import Testing

@Suite struct SplitHEVCMeansCopyTests {
    @Test func hevcOutputsCopyWithoutTheFlag() throws {
        let dir = try TestPaths.tempDir("split-hevc-copy")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/sbs.mp4"
        let f = try Run.program(
            try TestPrograms.requireFFmpeg(),
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=640x240:r=30:d=1",
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", src,
            ], timeout: 300)
        try #require(f.status == 0, "ffmpeg: \(f.err.suffix(300))")
        let movie = dir + "/spatial.mov"
        let c = try Run.cli([
            "convert", src, "-o", movie, "--layout", "sbs", "--hfov", "60", "--baseline", "64", "--encode-path",
            "assembled", "--preset", "ultrafast",
        ])
        try #require(c.status == 0 || c.status == 1, "convert: \(c.err.suffix(400))")

        let s = try Run.cli(["split", movie, "--left", dir + "/l.hevc", "--right", dir + "/r.hevc"])
        #expect(s.status == 0, "split to .hevc without --copy: \(s.err.suffix(400))")
        #expect(s.out.contains("copied both eyes"), "\(s.out.suffix(400))")
        for eye in ["l", "r"] { #expect(TestPaths.exists(dir + "/\(eye).hevc")) }

        let refused = try Run.cli([
            "split", movie, "--left", dir + "/l2.hevc", "--right", dir + "/r2.hevc", "--crf", "20",
        ])
        #expect(refused.status == 64, "--crf with .hevc outputs: \(refused.out) \(refused.err)")
        #expect(refused.err.contains("--crf"), "\(refused.err)")
        #expect(!TestPaths.exists(dir + "/l2.hevc") && !TestPaths.exists(dir + "/r2.hevc"))

        // The same movie as a raw MV-HEVC stream (FFmpeg's stream copy): its layers copied, the same eyes byte for
        // byte; re-encoding a raw stream is refused.
        let raw = dir + "/raw.hevc"
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(),
            ["-nostdin", "-v", "error", "-y", "-i", movie, "-c", "copy", "-f", "hevc", raw], timeout: 300)
        try #require(r.status == 0, "ffmpeg: \(r.err.suffix(300))")
        let t = try Run.cli(["split", raw, "--left", dir + "/rl.hevc", "--right", dir + "/rr.hevc"])
        #expect(t.status == 0, "split of a raw stream: \(t.err.suffix(400))")
        for (a, b) in [("l", "rl"), ("r", "rr")] {
            let x = FileManager.default.contents(atPath: dir + "/\(a).hevc"),
                y = FileManager.default.contents(atPath: dir + "/\(b).hevc")
            #expect(x != nil && x == y, "\(a).hevc (from the movie) and \(b).hevc (from the raw stream) differ")
        }
        let u = try Run.cli(["split", raw, "--left", dir + "/rl.mp4", "--right", dir + "/rr.mp4"])
        #expect(u.status == 64 && u.err.contains("raw HEVC stream"), "\(u.err)")
    }
}
