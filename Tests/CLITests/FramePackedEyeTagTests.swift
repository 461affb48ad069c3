// An eye split out of a frame-packed movie is one picture: it must not keep the source's stereo signalling.
import Foundation
import TestSupport
import Testing

@Suite struct FramePackedEyeTagTests {
    static func ffmpeg(_ args: [String]) throws {
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(), ["-nostdin", "-hide_banner", "-v", "error", "-y"] + args, timeout: 600)
        #expect(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.err.suffix(400))")
    }

    /// A QuickTime movie tagged side by side by our own `edit --packing side`, split into `.mov` eyes: FFmpeg used to
    /// carry the packing into each eye, its muxer wrote `vexu/eyes` without `pack`, and our read-back refused the eye
    /// (SV-PROF-003, "a fault of this tool"). Each eye now reads as one 2D picture, in `.mov`, `.mp4` and `.mkv`.
    @Test(arguments: ["mov", "mp4", "mkv"])
    func appleTaggedFramePackedMovieSplitsToEyes(ext: String) throws {
        let dir = try TestPaths.tempDir("fp-eye-tags-\(ext)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=640x240:r=30:d=1", "-c:v", "libx264", "-preset", "ultrafast", "-f", "mov",
            dir + "/p0.mov",
        ])
        let e = try Run.cli(["edit", dir + "/p0.mov", "-o", dir + "/packed.mov", "--packing", "side"])
        try #require(e.status <= 1, "\(e.err)")
        let s = try Run.cli([
            "split", dir + "/packed.mov", "--left", dir + "/l.\(ext)", "--right", dir + "/r.\(ext)", "--preset",
            "ultrafast",
        ])
        #expect(s.status == 0, "split to .\(ext) eyes: \(s.out.suffix(300)) \(s.err.suffix(400))")
        for eye in ["l", "r"] {
            let p = try Run.program(
                try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", dir + "/\(eye).\(ext)"], timeout: 60)
            #expect(!p.err.contains("side by side"), "\(eye).\(ext) still says it is packed: \(p.err.suffix(400))")
            #expect(p.err.contains("320x240"), "\(p.err.suffix(400))")
        }
    }
}
