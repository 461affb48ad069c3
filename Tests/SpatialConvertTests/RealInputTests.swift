import Foundation
import TestSupport
import Testing

/// `spatial-media convert` on the files people have, driven through the built binary: frame counts and audio of
/// real containers, and each bad input a one-line error naming the file, exit status 2 and nothing at OUT.
enum CLI {
    /// The built CLI (beside the test bundle) and FFmpeg ≥ 7.1 as the product finds it, which makes the inputs.
    static var maker: String? { TestPrograms.ffmpeg }
    static var binary: String? { TestPrograms.binary }

    /// Runs the CLI with extra environment variables.
    static func run(_ args: [String], env: [String: String] = [:]) throws -> RunResult { try Run.cli(args, env: env) }

    static func make(_ args: [String]) throws {
        let (status, _) = try SpatialConvertTests.run(
            try TestPrograms.requireFFmpeg(), ["-nostdin", "-v", "error", "-y"] + args)
        #expect(status == 0, "ffmpeg \(args)")
    }

    /// A failed conversion: exit 2, one line naming `file` and containing `needle`, nothing at OUT, no scratch files.
    static func expectRefused(
        _ args: [String], output: String, file: String, contains needle: String, env: [String: String] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let r = try run(["convert"] + args + ["-o", output], env: env)
        #expect(r.status == 2, "exit \(r.status): \(r.err)", sourceLocation: sourceLocation)
        let lines = r.err.split(separator: "\n")
        #expect(lines.count == 1, "expected one line: \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.contains(file), "the message does not name \(file): \(r.err)", sourceLocation: sourceLocation)
        #expect(r.err.contains(needle), "expected '\(needle)': \(r.err)", sourceLocation: sourceLocation)
        #expect(
            !FileManager.default.fileExists(atPath: output), "a file was left at \(output)",
            sourceLocation: sourceLocation)
        let dir = (output as NSString).deletingLastPathComponent
        let scratch =
            (try? FileManager.default.contentsOfDirectory(atPath: dir))?.filter {
                $0.hasPrefix(".spatial-media-audio") || $0.contains(".tmp-")
            } ?? []
        #expect(scratch.isEmpty, "scratch files left: \(scratch)", sourceLocation: sourceLocation)
    }
}

@Suite(.serialized) struct RealInputTests {
    /// An MKV whose AAC audio starts 21 ms before the video: 30 frames in, 30 out (Debian's FFmpeg 5.1 made 31), with
    /// FFmpeg 5.1 named by SPATIAL_MEDIA_FFMPEG (old enough for the video, not for the audio) and with the default
    /// FFmpeg; the AAC track is copied with its language; a second run without audio gets a silent AAC track,
    /// --no-audio none.
    @Test func matroskaKeepsFrameCountAndAudio() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let mkv = d + "/sbs.mkv"
        try CLI.make([
            "-f", "lavfi", "-i", "testsrc2=s=320x96:r=30:d=1", "-f", "lavfi", "-i", "sine=f=440:r=48000:d=1",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-metadata:s:a:0", "language=fra", mkv,
        ])
        let runs: [[String: String]] = [[:]]
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg") {
            // Issue 28 l: FFmpeg 5.1 still decodes the video, but the audio needs ≥ 7.1 (5.1 dropped its priming and
            // last packet): refused with audio, 30 frames without.
            let five = ["SPATIAL_MEDIA_FFMPEG": "/usr/bin/ffmpeg"]
            let refused = try CLI.run(
                ["convert", mkv, "-o", d + "/five.mov", "--preset", "ultrafast", "--layout", "sbs"], env: five)
            #expect(refused.status == 2 && refused.err.contains("7.1"), "\(refused.err)")
            let video = try CLI.run(
                [
                    "convert", mkv, "-o", d + "/five.mov", "--preset", "ultrafast", "--layout", "sbs", "--json",
                    "--no-audio",
                ], env: five)
            let vj = try #require(try JSONSerialization.jsonObject(with: Data(video.out.utf8)) as? [String: Any])
            #expect(vj["frames"] as? Int == 30, "FFmpeg 5.1: \(vj["frames"] ?? "")")
        }
        for env in runs {
            let out = d + "/out.mov"
            let r = try CLI.run(
                ["convert", mkv, "-o", out, "--preset", "ultrafast", "--layout", "sbs", "--json"], env: env)
            #expect(r.status == 0, "\(env): \(r.err)")
            let j = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
            #expect(j["frames"] as? Int == 30, "\(env): \(j["frames"] ?? "")")
            #expect(j["fps"] as? String == "30/1")
            let audio = j["audio"] as? [String] ?? []
            #expect(
                audio.count == 1 && audio[0].hasPrefix("mp4a") && audio[0].contains("language fra")
                    && audio[0].contains("copied"), "\(audio)")
            try? FileManager.default.removeItem(atPath: out)
        }
        let silent = try CLI.run([
            "convert", VideoFixtures.sample, "-o", d + "/silent.mov", "--preset", "ultrafast", "--json",
        ])
        let sj = try #require(try JSONSerialization.jsonObject(with: Data(silent.out.utf8)) as? [String: Any])
        let sa = sj["audio"] as? [String] ?? []
        #expect(sa.count == 1 && sa[0].hasPrefix("mp4a") && sa[0].contains("silent"), "\(sa) \(silent.err)")
        let none = try CLI.run([
            "convert", VideoFixtures.sample, "-o", d + "/none.mov", "--preset", "ultrafast", "--json", "--no-audio",
        ])
        let nj = try #require(try JSONSerialization.jsonObject(with: Data(none.out.utf8)) as? [String: Any])
        #expect((nj["audio"] as? [String])?.isEmpty == true)
    }

    @Test func badInputsAreOneLineErrorsWithExitTwo() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let out = d + "/out.mov"
        // No video stream.
        let audioOnly = d + "/audio_only.mkv"
        try CLI.make(["-f", "lavfi", "-i", "sine=f=440:d=0.5", "-c:a", "aac", audioOnly])
        try CLI.expectRefused([audioOnly], output: out, file: audioOnly, contains: "no video stream")
        // A 2D (mono) video given as SBS whose width cannot be split on the 4:2:0 grid.
        let mono = d + "/mono_642.mkv"
        try CLI.make([
            "-f", "lavfi", "-i", "testsrc2=s=642x96:r=30:d=0.2", "-c:v", "libx264", "-preset", "ultrafast", mono,
        ])
        try CLI.expectRefused(
            [mono, "--layout", "sbs"], output: out, file: mono, contains: "is it really side by side")
        // An audio track no player plays and FFmpeg cannot decode.
        let good = d + "/good.mov", bad = d + "/bad_audio.mov"
        try CLI.make([
            "-f", "lavfi", "-i", "testsrc2=s=320x96:r=30:d=0.2", "-f", "lavfi", "-i", "sine=f=440:d=0.2",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", good,
        ])
        var bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        // The entry renamed and its decoder configuration hidden: FFmpeg lists the codec as "none".
        for (from, to) in [("mp4a", "zzzz"), ("esds", "zsds")] {
            let r = try #require(bytes.range(of: Data(from.utf8)))
            bytes.replaceSubrange(r, with: Data(to.utf8))
        }
        try bytes.write(to: URL(fileURLWithPath: bad))
        try CLI.expectRefused([bad, "--layout", "sbs"], output: out, file: bad, contains: "can be neither copied")
        // FFmpeg missing: SPATIAL_MEDIA_FFMPEG names nothing (it is the only FFmpeg tried when set).
        try CLI.expectRefused(
            [mono], output: out, file: mono,
            contains: "SPATIAL_MEDIA_FFMPEG (/nonexistent/ffmpeg) is not a working FFmpeg",
            env: ["SPATIAL_MEDIA_FFMPEG": "/nonexistent/ffmpeg"])
    }
}
