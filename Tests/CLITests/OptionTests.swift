import Foundation
import TestSupport
import Testing

/// Issue 18, items 6, 10, 13 through the built binary: outputs must match what is written, options that do not
/// apply are refused, unchecked pixels are a warning, errors name the right file, `info` reads JPEG/MPO.
@Suite struct OptionTests {
    @Test(.needs(.shared("fixtures/pair_ster_cmin_cmex.heic", "fixtures/mvhevc_96x64_6f_spatial.mov")))
    func mismatchesAndOptionsThatDoNotApply() throws {
        let photo = CLI.fixture("fixtures/pair_ster_cmin_cmex.heic")
        let movie = CLI.fixture("fixtures/mvhevc_96x64_6f_spatial.mov")
        let dir = try CLI.tempDir("options")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        ExitCodeTableTests.y4m(dir + "/clip.y4m", frames: 2)
        let refused: [(args: [String], says: String)] = [
            (["convert", photo, "-o", "x.jpg"], ".heic"),
            (["convert", "clip.y4m", "-o", "y.heic"], ".mov"),
            (["convert", "clip.y4m", "-o", "y.mp4"], "--mp4"),
            (["convert", "clip.y4m", "-o", "v.mov", "--bit-depth", "12"], "8 or 10"),
            (["convert", "clip.y4m", "-o", "v.mov", "--half", "--layout", "half-sbs"], "half-sbs"),
            (["convert", "clip.y4m", "-o", "v.mov", "--quality", "50"], "--crf"),
            (["convert", photo, "-o", "p.heic", "--quality", "150"], "--quality"),
            (["convert", photo, "-o", "p.heic", "--crf", "20"], "videos only"),
            (["convert", photo, "-o", "p.heic", "--hero", "right"], "videos only"),
            (["convert", photo, "-o", "p.heic", "--layout", "half-sbs"], "--half"),
            (["convert", "-", "-o", "v.mov", "--align"], "standard input"),
            (["convert", "clip.y4m", "-o", "v.mov", "--align", "--segment", "1/2"], "whole clip"),
            (["convert", "clip.y4m", "-o", "v.mov", "--auto-disparity", "--disparity", "2"], "not both"),
            (["assemble", "a.hevc", "b.hevc", "-o", "out.heic"], ".mov"),
            (["combine", photo, "-o", "out.mov"], ".heic"),
        ]
        for c in refused {
            let r = try CLI.run(c.args, cwd: dir)
            #expect(r.status == 64, "\(c.args.joined(separator: " ")): exit \(r.status) \(r.err)")
            #expect(r.err.contains(c.says), "\(c.args.joined(separator: " ")): \(r.err)")
        }
        for f in ["x.jpg", "y.heic", "y.mp4", "v.mov", "p.heic", "out.heic", "out.mov"] {
            #expect(!CLI.exists(dir + "/" + f), "\(f) written")
        }
        // --baseline 0 would give a file validate calls an error (SV-VIDEO-016): refused by the read-back of the
        // output (issue 28), exit 2, nothing written.
        let zero = try CLI.run(["edit", movie, "-o", "zero.mov", "--baseline", "0"], cwd: dir)
        #expect(zero.status == 2, "\(zero.err)")
        #expect(zero.err.contains("SV-VIDEO-016"), "\(zero.err)")
        #expect(!CLI.exists(dir + "/zero.mov"))
    }

    /// A video whose pixels could not be checked (no MV-HEVC decoder) is a warning saying what to install.
    @Test(.needs(.shared("fixtures/x265mv_320x240_30f_spatial.mov")))
    func uncheckedPixelsAreAWarning() throws {
        let x265 = CLI.fixture("fixtures/x265mv_320x240_30f_spatial.mov")
        let dir = try CLI.tempDir("nodecoder")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run(
            ["validate", x265], env: ["SPATIAL_MEDIA_FFMPEG": "/nonexistent/ffmpeg", "PATH": "/nonexistent"], cwd: dir)
        #expect(r.status == 1, "\(r.out)")
        #expect(r.out.contains("WARNING SV-GEOM-021"), "\(r.out)")
        #expect(r.out.contains("scripts/setup.sh") && r.out.contains("FFmpeg ≥ 7.1"))
    }

    @Test(.needs(.shared("fixtures/pair_ster_cmin_cmex.heic")))
    func errorsNameTheRightFile() throws {
        let photo = CLI.fixture("fixtures/pair_ster_cmin_cmex.heic")
        let dir = try CLI.tempDir("subjects")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        CLI.write(dir + "/notes.txt", "not media\n")
        let out = try CLI.run(["convert", photo, "-o", dir + "/missing/x.heic"])
        #expect(out.status == 2)
        // Geometry warnings about the pair may come first; the error line names the output.
        #expect(
            out.err.split(separator: "\n").contains {
                $0.hasPrefix("spatial-media convert: cannot write \(dir)/missing/x.heic:")
            }, "\(out.err)")
        #expect(!out.err.contains(photo), "\(out.err)")
        let top = try CLI.run(["edit", dir + "/notes.txt", "-o", dir + "/e.mov", "--baseline", "40"])
        #expect(top.status == 2)
        #expect(!top.err.contains("(top level)"), "\(top.err)")
        let twice = try CLI.run(["split-video", dir + "/notes.txt", "--left", dir + "/l.hevc"])
        #expect(twice.err.components(separatedBy: "notes.txt").count == 2, "\(twice.err)")
    }

    @Test(.needs(.shared("corpus/mpo/sugarshack.mpo", "corpus/sbs/capoda.left-right.jpg")))
    func infoReadsJPEGAndMPO() throws {
        let mpo = CLI.fixture("corpus/mpo/sugarshack.mpo")
        let jpeg = CLI.fixture("corpus/sbs/capoda.left-right.jpg")
        let m = try CLI.run(["info", mpo])
        #expect(m.status == 0, "\(m.err)")
        #expect(m.out.contains("MPO (multi-picture): 2 pictures"))
        let j = try CLI.run(["info", "--json", jpeg])
        #expect(j.status == 0, "\(j.err)")
        #expect(j.out.contains("\"format\" : \"jpeg\"") || j.out.contains("\"format\": \"jpeg\""), "\(j.out)")
    }
}
