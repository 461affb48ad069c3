import Foundation
import TestSupport
import Testing

/// Issue 21, item 4 for videos: `convert` without `--align` measures a few frames as they are encoded and reports
/// faults, with the option that fixes them, on standard error while encoding and in the report (JSON too).
@Suite struct ConvertWarningTests {
    /// An SBS clip made by FFmpeg: a blurred noise texture panning 2 px/frame, 320×180 per eye, the right eye's view
    /// `dx` px to the right (content in front of a 0 % window) and `dy` px higher (its picture sits lower).
    static func clip(dy: Int, dx: Int = 4, in dir: String) throws -> String {
        let ff = try TestPrograms.requireFFmpeg()
        let path = dir + "/sbs\(dy)-\(dx).mkv"
        let r = try CLI.runProgram(
            ff,
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i",
                "nullsrc=s=480x300:r=30,geq=lum='random(1)*255':cb=128:cr=128,gblur=sigma=1.2",
                "-filter_complex",
                "[0]split[a][b];[a]crop=320:180:'40+2*n':40:exact=1[l];[b]crop=320:180:'\(40 + dx)+2*n':\(40 - dy):exact=1[r];[l][r]hstack",
                "-frames:v", "30", "-c:v", "mpeg4", "-q:v", "2", path,
            ])
        guard r.status == 0 else { throw CLI.Missing() }
        return path
    }

    static func json(_ text: String) throws -> [String: Any] {
        let start = try #require(text.firstIndex(of: "{"))
        return try #require(try JSONSerialization.jsonObject(with: Data(text[start...].utf8)) as? [String: Any])
    }

    @Test
    func verticalOffsetNamesAlign() throws {
        let d = try CLI.tempDir("warn")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try Self.clip(dy: 3, in: d)
        let r = try CLI.run(
            ["convert", input, "-o", d + "/out.mov", "--json"], env: ["SPATIAL_MEDIA_FFMPEG": CLI.ffmpeg ?? ""])
        print(r.err)
        #expect(r.status == 0, "\(r.err)")
        // Printed while converting, once per rule, with the frame.
        #expect(r.err.contains("spatial-media convert: frame 1: ERROR SV-GEOM-001: vertical offset"), "\(r.err)")
        #expect(
            r.err.contains("3.00 px lower") || r.err.contains("2.99 px lower") || r.err.contains("3.01 px lower"),
            "\(r.err)")
        // The window fault of the default 0 % adjustment, too.
        #expect(r.err.contains("warning SV-GEOM-020"), "\(r.err)")
        let g = try #require(try Self.json(r.out)["geometry_check"] as? [String: Any])
        #expect(g["fixes"] as? [String] == ["--align", "--auto-disparity"], "\(g)")
        let faults = try #require(g["faults"] as? [[String: Any]])
        let offset = try #require(faults.first { $0["rule"] as? String == "SV-GEOM-001" })
        #expect(offset["fixes"] as? [String] == ["--align"] && offset["severity"] as? String == "ERROR")
    }

    @Test
    func faultFreeClipIsQuiet() throws {
        let d = try CLI.tempDir("warn")
        defer { try? FileManager.default.removeItem(atPath: d) }
        // 1 px (0.3 % of the width) in front of infinity: a flat texture 4 px in front (1.25 %) is, since issue 31,
        // the SV-GEOM-016 warning that pixels cannot tell a shifted pair from a near scene.
        let input = try Self.clip(dy: 0, dx: 1, in: d)
        let r = try CLI.run(
            ["convert", input, "-o", d + "/out.mov", "--disparity", "2"],
            env: ["SPATIAL_MEDIA_FFMPEG": CLI.ffmpeg ?? ""])
        #expect(r.status == 0, "\(r.err)")
        #expect(!r.err.contains("SV-GEOM"), "\(r.err)")
        #expect(r.out.contains("geometry check: no fault found on the 1 frame measured (1)"), "\(r.out)")
    }
}
