import Foundation
import TestSupport
import Testing

/// Issue 38, item 3 and the smaller items of item 6: every reader says when its input is damaged or truncated (exit 2
/// with what was read, `--force` to go on with a report line), `info`/`validate`/`rewrite` agree with the exit-code
/// table, and the named cases of the issue, each run as a user would.
@Suite struct IntegrityTests {
    static let capoda = "corpus/sbs/capoda.left-right.jpg"

    static func ffmpeg(_ args: [String]) throws {
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(), ["-nostdin", "-v", "error", "-y"] + args, timeout: 120)
        guard r.status == 0 else { throw TestSetupError("FFmpeg \(args.joined(separator: " ")): \(r.err.suffix(300))") }
    }

    /// The first `fraction` of a file's bytes, written to `to`.
    static func cut(_ from: String, _ to: String, fraction: Double) throws {
        let d = try Data(contentsOf: URL(fileURLWithPath: from))
        try d.prefix(Int(Double(d.count) * fraction)).write(to: URL(fileURLWithPath: to))
    }

    /// A side-by-side stereo clip of `frames` frames: FFmpeg's test picture, the right eye shifted 4 pixels.
    static func stereoClip(_ path: String, frames: Int, extra: [String] = []) throws {
        try ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc=size=96x64:rate=30", "-f", "lavfi", "-i", "testsrc=size=96x64:rate=30",
                "-filter_complex",
                "[1]crop=92:64:4:0,pad=96:64[r];[0][r]hstack", "-frames:v", "\(frames)", "-c:v", "libx264", "-preset",
                "ultrafast",
                "-pix_fmt", "yuv420p",
            ] + extra + [path])
    }

    @Test(.needs(.shared(capoda)))
    func truncatedJPEGIsRefusedWithItsRowsAndForced() throws {
        let dir = try CLI.tempDir("jpeg-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sbs = dir + "/sbs.jpg", cut = dir + "/cut.jpg"
        try Self.ffmpeg(["-i", CLI.fixture(Self.capoda), "-vf", "scale=512:192", sbs])
        try Self.cut(sbs, cut, fraction: 0.6)
        // Before: exit 0, the bottom 40 % of both eyes flat grey, one line quoting libjpeg's "Premature end of JPEG
        // file".
        let refused = try CLI.run(["convert", cut, "-o", dir + "/o.heic"])
        #expect(refused.status == 2, "\(refused.err)")
        #expect(
            refused.err.contains("damaged or truncated") && refused.err.contains("Premature end of JPEG file"),
            "\(refused.err)")
        #expect(
            refused.err.contains("of 192 decoded") && refused.err.contains("--force"),
            "the rows read and the remedy: \(refused.err)")
        #expect(!CLI.exists(dir + "/o.heic"))
        let forced = try CLI.run(["convert", cut, "-o", dir + "/o.heic", "--force"])
        #expect(forced.status == 0, "\(forced.err)")
        #expect(
            forced.out.contains("damaged or truncated JPEG decoded as it is"),
            "the report says what was done: \(forced.out)")
        // validate says ERROR (SV-FILE-002), with and without pixel checks, and exits 2 as the table says.
        for args in [["validate", cut], ["validate", "--no-pixels", cut]] {
            let v = try CLI.run(args)
            #expect(v.status == 2 && v.out.contains("SV-FILE-002"), "\(args): \(v.status) \(v.out.suffix(400))")
        }
        // The whole file is untouched by the rule.
        #expect(try CLI.run(["convert", sbs, "-o", dir + "/whole.heic"]).status == 0)
        // A pair of JPEGs, one of them cut.
        try Self.ffmpeg(["-i", sbs, "-vf", "crop=256:192:0:0", dir + "/l.jpg"])
        try Self.ffmpeg(["-i", sbs, "-vf", "crop=256:192:256:0", dir + "/r.jpg"])
        try Self.cut(dir + "/l.jpg", dir + "/lcut.jpg", fraction: 0.6)
        let pair = try CLI.run([
            "convert", "--left", dir + "/lcut.jpg", "--right", dir + "/r.jpg", "-o", dir + "/p.heic",
        ])
        #expect(pair.status == 2 && pair.err.contains("damaged or truncated"), "\(pair.err)")
        #expect(
            try CLI.run(["convert", "--left", dir + "/l.jpg", "--right", dir + "/r.jpg", "-o", dir + "/p.heic"]).status
                == 0)
        // An MPO whose second picture's coded data is corrupted in the middle (not cut): libjpeg warns, we refuse.
        let l = try Data(contentsOf: URL(fileURLWithPath: dir + "/l.jpg")),
            r = try Data(contentsOf: URL(fileURLWithPath: dir + "/r.jpg"))
        var bad = [UInt8](r)
        let from = bad.count / 2
        for i in from..<(from + 64) { bad[i] = 0xFF }
        try Data(InputMatrixTests.mpo([UInt8](l), bad)).write(to: URL(fileURLWithPath: dir + "/bad.mpo"))
        let mpo = try CLI.run(["convert", dir + "/bad.mpo", "-o", dir + "/m.heic"])
        #expect(mpo.status == 2 && mpo.err.contains("damaged or truncated"), "\(mpo.err)")
    }

    @Test func truncatedMatroskaAndTransportStreamAreRefusedWithTheFramesRead() throws {
        let dir = try CLI.tempDir("stream-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for ext in ["mkv", "ts"] {
            let whole = dir + "/sbs.\(ext)", cut = dir + "/cut.\(ext)"
            try Self.stereoClip(whole, frames: 30)
            try Self.cut(whole, cut, fraction: 0.6)
            // Before: 11 or 14 of 30 frames converted, exit 0, not a word.
            let o = dir + "/o-\(ext).mov"
            let refused = try CLI.run(["convert", cut, "-o", o, "--layout", "sbs", "--preset", "ultrafast"])
            #expect(refused.status == 2, "\(ext): \(refused.err)")
            #expect(
                refused.err.contains("damaged or truncated") && refused.err.contains("--force"),
                "\(ext): \(refused.err)")
            let said = ["of the 30 frames", "frames read", "transport packet"].filter { refused.err.contains($0) }
            #expect(
                !said.isEmpty && (ext != "mkv" || said.contains("of the 30 frames")),
                "\(ext): what was read: \(refused.err)")
            #expect(!CLI.exists(o))
            let forced = try CLI.run(["convert", cut, "-o", o, "--layout", "sbs", "--preset", "ultrafast", "--force"])
            #expect(forced.status == 0, "\(ext): \(forced.err)")
            #expect(
                forced.out.contains("damaged or truncated") && forced.out.contains("frames that were read (--force)"),
                "\(ext): \(forced.out)")
            // The whole file converts without a word about damage.
            let fine = try CLI.run(["convert", whole, "-o", dir + "/w.mov", "--layout", "sbs", "--preset", "ultrafast"])
            #expect(fine.status == 0 && !fine.out.contains("damaged"), "\(ext): \(fine.out) \(fine.err)")
        }
        // validate of the truncated MKV: an ERROR (SV-FILE-002), exit 2; the whole one has none.
        let v = try CLI.run(["validate", "--no-pixels", dir + "/cut.mkv"])
        #expect(v.status == 2 && v.out.contains("SV-FILE-002") && v.out.contains("of the 30 frames"), "\(v.out)")
        let w = try CLI.run(["validate", "--no-pixels", dir + "/sbs.mkv"])
        #expect(w.status != 2 && !w.out.contains("SV-FILE-002"), "\(w.out)")
    }

    @Test func infoValidateAndRewriteOfATruncatedMovieExit2() throws {
        let dir = try CLI.tempDir("movie-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let whole = dir + "/sbs.mp4", cut = dir + "/cut.mp4"
        try Self.stereoClip(whole, frames: 10, extra: ["-movflags", "+faststart"])
        try Self.cut(whole, cut, fraction: 0.6)
        // Before: info and validate exit 1, rewrite copied it with exit 0.
        for args in [["info", cut], ["validate", "--no-pixels", cut], ["rewrite", cut, "-o", dir + "/r.mp4"]] {
            let r = try CLI.run(args)
            #expect(r.status == 2, "\(args[0]) of a truncated movie: exit \(r.status) \(r.err.suffix(300))")
        }
        #expect(!CLI.exists(dir + "/r.mp4"))
        #expect(try CLI.run(["rewrite", cut, "-o", dir + "/r.mp4"]).err.contains("damaged or truncated"))
        #expect(try CLI.run(["rewrite", whole, "-o", dir + "/r.mp4"]).status == 0)
        #expect(try CLI.run(["info", whole]).status != 2)
    }

    @Test(.needs(.shared("fixtures/x265mv_320x240_30f_spatial.mov")))
    func splitIntoMovEyesReadsItsOwnOutputBack() throws {
        let dir = try CLI.tempDir("split-mov")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let movie = CLI.fixture("fixtures/x265mv_320x240_30f_spatial.mov")
        // Before: refused its own output (SV-VIDEO-011: FFmpeg's MOV muxer wrote the view's vexu, stri = left only).
        let r = try CLI.run([
            "split", movie, "--left", dir + "/L.mov", "--right", dir + "/R.mov", "--preset", "ultrafast",
        ])
        #expect(r.status == 0, "\(r.err)")
        for eye in ["L", "R"] {
            let dump = try CLI.run(["dump", dir + "/\(eye).mov"])
            #expect(
                dump.status == 0 && !dump.out.contains("vexu"),
                "\(eye).mov: one eye states no stereo view: \(dump.out.suffix(600))")
            #expect(!(try CLI.run(["validate", "--no-pixels", dir + "/\(eye).mov"]).out.contains("SV-VIDEO-011")))
        }
    }

    @Test(.needs(.shared("fixtures/x265mv_320x240_30f_spatial.mov")))
    func splitVideoNamesTheCommandThatWorks() throws {
        let dir = try CLI.tempDir("split-video")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let movie = CLI.fixture("fixtures/x265mv_320x240_30f_spatial.mov")
        let r = try CLI.run(["split-video", movie, "--left", dir + "/l.hevc", "--right", dir + "/r.hevc"])
        #expect(r.status == 2)
        #expect(
            r.err.contains("split IN --copy --left L.hevc") && r.err.contains("split IN --left L.mp4 --right R.mp4"),
            "\(r.err)")
    }

    @Test func concatNamesTheTruncatedSegment() throws {
        let dir = try CLI.tempDir("concat-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.stereoClip(dir + "/sbs.mp4", frames: 10)
        let segs = [dir + "/seg1.mov", dir + "/seg2.mov"]
        for (k, seg) in segs.enumerated() {
            let r = try CLI.run([
                "convert", dir + "/sbs.mp4", "-o", seg, "--layout", "sbs", "--preset", "ultrafast", "--segment",
                "\(k + 1)/2",
                "--keyint", "5", "--qp", "30",
            ])
            try #require(r.status == 0, "segment \(k + 1): \(r.err)")
        }
        let d = try Data(contentsOf: URL(fileURLWithPath: segs[1]))
        try d.prefix(d.count - 300).write(to: URL(fileURLWithPath: segs[1]))
        let r = try CLI.run(["concat", segs[0], segs[1], "-o", dir + "/all.mov", "--no-audio"])
        #expect(r.status == 2)
        #expect(r.err.contains(segs[1] + ":") && !r.err.contains(segs[0] + ":"), "names the cut segment: \(r.err)")
    }
}

extension IntegrityTests {
    @Test func validateWarnsWhenTheEditListHidesTheFirstFrame() throws {
        let dir = try CLI.tempDir("hidden-first")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=96x64:rate=30", "-frames:v", "10", "-c:v", "libx264", "-preset",
            "ultrafast",
            "-pix_fmt", "yuv420p", dir + "/whole.mp4",
        ])
        // A copy started after the first frame: FFmpeg keeps the keyframe and hides it with the edit list.
        try Self.ffmpeg(["-ss", "0.034", "-i", dir + "/whole.mp4", "-c", "copy", dir + "/hidden.mp4"])
        let info = try CLI.run(["info", dir + "/hidden.mp4"])
        #expect(info.out.contains("10 samples; presented (edit list): 0.299 s, 9 frames"), "\(info.out)")
        // Before: validate said nothing about it.
        let v = try CLI.run(["validate", "--no-pixels", dir + "/hidden.mp4"])
        #expect(
            v.out.contains("WARNING SV-VIDEO-039")
                && v.out.contains("hides the first frame (9 of 10 samples presented)"), "\(v.out)")
        let w = try CLI.run(["validate", "--no-pixels", dir + "/whole.mp4"])
        #expect(!w.out.contains("SV-VIDEO-039"), "\(w.out)")
    }
}

extension IntegrityTests {
    /// The three commands agree on a HEIF image whose coded data is not whole NAL units (issue 38's real-file table:
    /// ExifTool's `QuickTime.heic` keeps its boxes but 18 bytes of image data): before, `info` exit 0 and `validate`
    /// only SV-PHOTO-001, while `convert` found the broken NAL length. Now each says damaged, exit 2.
    static func expectDamagedByAllThree(_ heic: String, dir: String) throws {
        let info = try CLI.run(["info", heic])
        #expect(
            info.status == 2 && info.out.contains("damaged or truncated") && info.out.contains("coded data"),
            "\(info.status) \(info.out)")
        let v = try CLI.run(["validate", "--no-pixels", heic])
        #expect(
            v.status == 2 && v.out.contains("ERROR SV-FILE-002") && v.out.contains("NAL unit of"),
            "\(v.status) \(v.out)")
        let c = try CLI.run(["convert", heic, "-o", dir + "/never.heic"])
        #expect(c.status == 2 && c.err.contains("damaged"), "\(c.status) \(c.err)")
        #expect(!CLI.exists(dir + "/never.heic"))
    }

    @Test func heifItemWithBrokenNALLengthIsDamagedForEveryCommand() throws {
        let dir = try CLI.tempDir("heif-nal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=128x96", "-frames:v", "1", "-vf",
            "split[a][b];[b]crop=124:96:4:0,pad=128:96[r];[a][r]hstack",
            dir + "/sbs.png",
        ])
        let made = try CLI.run(["convert", dir + "/sbs.png", "-o", dir + "/good.heic", "--layout", "sbs", "--force"])
        try #require(made.status == 0, "\(made.err)")
        #expect(try CLI.run(["info", dir + "/good.heic"]).status != 2)
        // The first NAL length of the data in `mdat` (our writer's first item extent starts there) made too long.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/good.heic")))
        let tag: [UInt8] = Array("mdat".utf8)
        let found: Int? = (0..<(bytes.count - 12)).first { (i: Int) -> Bool in Array(bytes[i..<(i + 4)]) == tag }
        let mdat = try #require(found)
        for k in 0..<4 { bytes[mdat + 4 + k] = [0x7F, 0xFF, 0xFF, 0xF0][k] }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/broken.heic"))
        try Self.expectDamagedByAllThree(dir + "/broken.heic", dir: dir)
    }

    @Test(.needs(.shared("corpus/heif-real-world/QuickTime.heic")))
    func strippedImageDataIsDamagedForEveryCommand() throws {
        let dir = try CLI.tempDir("heif-stripped")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.expectDamagedByAllThree(CLI.fixture("corpus/heif-real-world/QuickTime.heic"), dir: dir)
    }
}
