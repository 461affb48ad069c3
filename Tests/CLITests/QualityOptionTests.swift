import Foundation
import TestSupport
import Testing

/// Issue 23 through the built binary: the eye-quality and rate options, their usage errors, and the multiview probe's
/// fallback when `SPATIAL_MEDIA_X265` names a file that cannot be loaded.
@Suite struct QualityOptionTests {
    @Test(.needs(.shared("fixtures/pair_ster_cmin_cmex.heic")))
    func usageErrors() throws {
        let photo = CLI.fixture("fixtures/pair_ster_cmin_cmex.heic")
        let dir = try CLI.tempDir("quality-options")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        ExitCodeTableTests.y4m(dir + "/clip.y4m", frames: 2)
        let refused: [(args: [String], says: String)] = [
            (["convert", "clip.y4m", "-o", "v.mov", "--eye-quality", "better"], "--eye-quality"),
            (["convert", "clip.y4m", "-o", "v.mov", "--eye-quality", "asymmetric:8"], "--eye-quality"),
            (["convert", "clip.y4m", "-o", "v.mov", "--vbv-bufsize", "500"], "--max-bitrate"),
            (
                ["convert", "clip.y4m", "-o", "v.mov", "--bitrate", "900", "--max-bitrate", "800"],
                "above --max-bitrate"
            ),
            (["convert", "clip.y4m", "-o", "v.mov", "--apple-preset", "quest"], "vision-pro"),
            (["convert", photo, "-o", "p.heic", "--eye-quality", "equal"], "videos only"),
            (
                ["convert", "clip.y4m", "-o", "v.mov", "--encode-path", "fastest"],
                "--encode-path must be one of auto, assembled, multiview"
            ),
            (["convert", photo, "-o", "p.heic", "--encode-path", "assembled"], "videos only"),
        ]
        for c in refused {
            let r = try CLI.run(c.args, cwd: dir)
            #expect(r.status == 64, "\(c.args.joined(separator: " ")): exit \(r.status) \(r.err)")
            #expect(r.err.contains(c.says), "\(c.args.joined(separator: " ")): \(r.err)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/v.mov"))
        }
    }

    @Test func bogusMultiviewLibraryFallsBackAndSaysSo() throws {
        let dir = try CLI.tempDir("quality-x265")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sample = CLI.root + "/Conformance/files/sample_sbs_320x96.y4m"
        let r = try CLI.run(
            [
                "convert", sample, "-o", dir + "/o.mov", "--preset", "ultrafast", "--no-audio", "--json",
                "--max-bitrate", "400", "--eye-quality", "asymmetric:3",
            ],
            env: ["SPATIAL_MEDIA_X265": dir + "/no-such-libx265.so"])
        #expect(r.status == 0, "\(r.err)")
        let j = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        let path = try #require(j["encode_path"] as? String)
        #expect(path.hasPrefix("two single-layer x265 encodes assembled as MV-HEVC"), "\(path)")
        #expect(path.contains("SPATIAL_MEDIA_X265=\(dir)/no-such-libx265.so cannot be loaded"), "\(path)")
        let encoder = try #require(j["encoder"] as? String)
        #expect(
            encoder.contains("hero (left) CRF 23, right CRF 26") && encoder.contains("VBV max 400 kbit/s"), "\(encoder)"
        )
        let l0 = try #require(j["layer0_bytes"] as? Int), l1 = try #require(j["layer1_bytes"] as? Int)
        #expect(l1 < l0, "\(l1) vs \(l0)")
    }
}
