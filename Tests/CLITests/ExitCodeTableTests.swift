import Foundation
import TestSupport
import Testing

/// Issue 18, item 9: the built binary against the exit-code table (0 ok, 1 problems found, 2 unreadable or
/// unsupported input, 64 usage) — one row per error kind, the cases the issue found inconsistent included.
@Suite struct ExitCodeTableTests {
    /// A Y4M clip of `frames` grey 32×16 4:2:0 frames (`cut` bytes removed from the end).
    static func y4m(_ path: String, frames: Int, cut: Int = 0) {
        let d = TestMedia.rawY4M(
            header: "YUV4MPEG2 W32 H16 F30:1 Ip A1:1 C420jpeg", frames: frames, frameBytes: 32 * 16 * 3 / 2, fill: 128,
            cut: cut)
        _ = FileManager.default.createFile(atPath: path, contents: Data(d))
    }

    @Test(
        .needs(
            .shared(
                "fixtures/mvhevc_96x64_6f_spatial.mov", "fixtures/pair_plain.heic",
                "fixtures/x265mv_320x240_30f_spatial.mov", "fixtures/pair_ster_cmin_cmex.heic")))
    func everyRowOfTheTable() throws {
        let movie = CLI.fixture("fixtures/mvhevc_96x64_6f_spatial.mov")
        let plain = CLI.fixture("fixtures/pair_plain.heic")
        let x265 = CLI.fixture("fixtures/x265mv_320x240_30f_spatial.mov")
        let photo = CLI.fixture("fixtures/pair_ster_cmin_cmex.heic")
        let dir = try CLI.tempDir("exit")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.createDirectory(atPath: dir + "/empty", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/textonly", withIntermediateDirectories: true)
        CLI.write(dir + "/textonly/readme.txt", "not media\n")
        CLI.write(dir + "/notes.txt", "not media\n")
        Self.y4m(dir + "/clip.y4m", frames: 3)
        Self.y4m(dir + "/cut.y4m", frames: 3, cut: 300)
        // A movie whose last samples lie past the end of the file: damaged or truncated, 2 for every job (issue 38).
        let whole = try Data(contentsOf: URL(fileURLWithPath: x265))
        try whole.prefix(whole.count - 400).write(to: URL(fileURLWithPath: dir + "/cut.mov"))

        let rows: [(args: [String], code: Int32, why: String)] = [
            (["info", movie], 0, "a good file"),
            (["validate", "--no-pixels", movie], 0, "a spatial video with nothing to report"),
            (["validate", "--no-pixels", plain], 1, "a plain HEIC pair is not a spatial photo"),
            (["validate", dir + "/empty"], 1, "an empty directory: read, nothing to validate"),
            (["validate", dir + "/textonly"], 1, "a directory whose only file is not media"),
            (["info", dir + "/notes.txt"], 2, "not a media file"),
            (["split-video", dir + "/notes.txt", "--left", dir + "/l.hevc"], 2, "split-video: unreadable input"),
            (
                ["split-video", x265, "--right", dir + "/r.hevc"], 2,
                "split-video: unsupported input (the right eye is inter-layer predicted)"
            ),
            (
                ["split", dir + "/notes.txt", "--left", dir + "/l.png", "--right", dir + "/r.png"], 2,
                "split: unreadable input"
            ),
            (
                ["assemble", dir + "/notes.txt", dir + "/notes.txt", "-o", dir + "/a.mov"], 2,
                "assemble: not HEVC streams"
            ),
            (["convert", dir + "/cut.y4m", "-o", dir + "/c.mov", "--preset", "ultrafast"], 2, "a truncated Y4M"),
            (["info", dir + "/cut.mov"], 2, "info: a truncated movie is damaged, not merely 'problems found'"),
            (["validate", "--no-pixels", dir + "/cut.mov"], 2, "validate: a truncated movie"),
            (["rewrite", dir + "/cut.mov", "-o", dir + "/r.mov"], 2, "rewrite: refuses a truncated movie"),
            (
                ["convert", dir + "/clip.y4m", "-o", dir + "/c.mov", "--baseline", "-5"], 64,
                "video convert: value out of range"
            ),
            (["convert", photo, "-o", dir + "/c.heic", "--hfov", "200"], 64, "photo convert: value out of range"),
            (["edit", movie, "-o", dir + "/e.mov", "--hfov", "200"], 64, "edit: value out of range"),
            (["combine", photo, "-o", dir + "/e.heic", "--baseline", "-1"], 64, "combine: value out of range"),
            (
                ["assemble", dir + "/notes.txt", dir + "/notes.txt", "-o", dir + "/a.mov", "--baseline", "-1"], 64,
                "assemble: value out of range"
            ),
            (["convert", photo, "-o", dir + "/c.heic", "--frobnicate"], 64, "unknown option"),
        ]
        for row in rows {
            let r = try CLI.run(row.args, cwd: dir)
            #expect(
                r.status == row.code,
                "\(row.why): \(row.args.joined(separator: " ")) exited \(r.status), expected \(row.code): \(r.err.suffix(300))"
            )
        }
        // The empty and text-only directories say why nothing was validated.
        #expect(try CLI.run(["validate", dir + "/empty"]).err.contains("no media files"))
        let textOnly = try CLI.run(["validate", dir + "/textonly"])
        #expect(textOnly.err.contains("skipped") && textOnly.err.contains("readme.txt"))
        #expect(!CLI.exists(dir + "/c.mov") && !CLI.exists(dir + "/a.mov") && !CLI.exists(dir + "/r.mov"))
    }

    /// Issue 38 item 3: a Y4M file cut inside its last frame is refused naming `--force`; forced, the whole frames
    /// before the cut are converted and the report says where the input ended.
    @Test func aCutY4MConvertsOnlyWhenForcedAndSaysSo() throws {
        let dir = try CLI.tempDir("cut-y4m")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let whole = try Data(contentsOf: URL(fileURLWithPath: CLI.root + "/Conformance/files/sample_sbs_320x96.y4m"))
        try whole.prefix(whole.count * 6 / 10).write(to: URL(fileURLWithPath: dir + "/cut.y4m"))
        let refused = try CLI.run(["convert", dir + "/cut.y4m", "-o", dir + "/c.mov", "--preset", "ultrafast"])
        #expect(
            refused.status == 2 && refused.err.contains("damaged or truncated") && refused.err.contains("--force"),
            "\(refused.err.suffix(300))")
        #expect(!CLI.exists(dir + "/c.mov"))
        let forced = try CLI.run([
            "convert", dir + "/cut.y4m", "-o", dir + "/c.mov", "--preset", "ultrafast", "--force",
        ])
        #expect(forced.status == 0, "\(forced.err.suffix(300))")
        #expect(
            forced.out.contains("is cut short") && forced.out.contains("converted the 17 whole frames before the cut"),
            "\(forced.out.suffix(600))")
    }

    /// The table in `--help` and in the README is the one the code uses.
    @Test func tableIsInHelpAndReadme() throws {
        let help = try CLI.run(["--help"]).out
        let readme = try String(contentsOfFile: CLI.root + "/README.md", encoding: .utf8)
        for code in ["0", "1", "2", "64", "130"] {
            #expect(help.contains("\n  \(code)  "), "--help lacks exit code \(code)")
            #expect(readme.contains("| \(code) |"), "README lacks exit code \(code)")
        }
        #expect(help.contains("143"))
    }
}
