import Foundation
import TestSupport
import Testing

/// Issue 18, item 1: no command writes over its own input or writes two outputs to one file (exit 64, input intact).
@Suite struct OutputIdentityTests {
    @Test(
        .needs(
            .shared(
                "fixtures/pair_ster_cmin_cmex.heic", "fixtures/mvhevc_96x64_6f_spatial.mov",
                "fixtures/mvhevc_96x64_6f.hevc")))
    func outputsThatAreInputsAreRefused() throws {
        let photo = CLI.fixture("fixtures/pair_ster_cmin_cmex.heic")
        let movie = CLI.fixture("fixtures/mvhevc_96x64_6f_spatial.mov")
        let stream = CLI.fixture("fixtures/mvhevc_96x64_6f.hevc")
        let dir = try CLI.tempDir("identity")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fm = FileManager.default
        try fm.copyItem(atPath: photo, toPath: dir + "/p.heic")
        try fm.copyItem(atPath: movie, toPath: dir + "/v.mov")
        try fm.copyItem(atPath: stream, toPath: dir + "/s.hevc")
        try fm.createSymbolicLink(atPath: dir + "/link.heic", withDestinationPath: dir + "/p.heic")
        try fm.linkItem(atPath: dir + "/p.heic", toPath: dir + "/hard.heic")
        try fm.linkItem(atPath: dir + "/v.mov", toPath: dir + "/hardv.mov")
        try fm.linkItem(atPath: dir + "/s.hevc", toPath: dir + "/s-as-movie.mov")
        let photoBytes = CLI.bytes(dir + "/p.heic"), movieBytes = CLI.bytes(dir + "/v.mov"),
            streamBytes = CLI.bytes(dir + "/s.hevc")
        let cases: [[String]] = [
            ["split", "p.heic", "--left", "p.heic", "--right", "r.png"],
            ["split", "link.heic", "--left", "l.png", "--right", "hard.heic"],
            ["split", "p.heic", "--left", "x.png", "--right", "x.png"],
            ["split", "p.heic", "--left", "x.png", "--right", "./x.png"],
            ["convert", "p.heic", "-o", "p.heic"],
            ["convert", "--left", "p.heic", "--right", "p.heic", "-o", "hard.heic"],
            ["rewrite", "v.mov", "-o", "hardv.mov"],
            ["edit", "v.mov", "-o", "v.mov", "--baseline", "60"],
            ["edit", "link.heic", "-o", "hard.heic", "--baseline", "60"],
            ["combine", "p.heic", "-o", "link.heic"],
            ["assemble", "s.hevc", "s.hevc", "-o", "s-as-movie.mov"],
            ["split-video", "v.mov", "--left", "hardv.mov"],
            ["split-video", "v.mov", "--left", "l.hevc", "--right", "l.hevc"],
            ["validate", "p.heic", "--report", "link.heic"],
        ]
        for args in cases {
            let r = try CLI.run(args, cwd: dir)
            #expect(r.status == 64, "\(args.joined(separator: " ")): exit \(r.status), \(r.err)")
            #expect(
                r.err.contains("same file") || r.err.contains("is the input"),
                "\(args.joined(separator: " ")): \(r.err)")
        }
        #expect(CLI.bytes(dir + "/p.heic") == photoBytes)
        #expect(CLI.bytes(dir + "/v.mov") == movieBytes)
        #expect(CLI.bytes(dir + "/s.hevc") == streamBytes)
        for leftover in ["x.png", "l.png", "r.png", "l.hevc"] {
            #expect(!CLI.exists(dir + "/" + leftover), "\(leftover) was written")
        }
    }
}
