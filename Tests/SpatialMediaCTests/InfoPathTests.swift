// sm_info_path is a shell over the operations layer's info, like `spatial-media info --json`: any file the command
// line reads — including those only FFmpeg reads (Matroska, MPEG-TS), which sm_file_open does not take — gives the same
// JSON (issue 38: the C ABI's and Python's info opened only what our parsers read).
import Foundation
import TestSupport
import Testing

@testable import SpatialMediaC

@Suite struct InfoPathTests {
    /// sm_info_path's status and JSON (or the last error's text).
    static func info(_ path: String) -> (status: Int32, json: String) {
        var s: UnsafeMutablePointer<CChar>? = nil
        var n = 0
        let status = sm_info_path(path, 0, &s, &n)
        defer { sm_string_free(s) }
        return (status, s.map { String(cString: $0) } ?? lastError())
    }

    /// The two JSON texts parsed, for comparison regardless of indentation.
    static func same(_ a: String, _ b: String) -> Bool {
        guard let x = try? JSONSerialization.jsonObject(with: Data(a.utf8)) as? NSDictionary,
            let y = try? JSONSerialization.jsonObject(with: Data(b.utf8)) as? NSDictionary
        else { return false }
        return x.isEqual(y)
    }

    @Test func matroskaAndTransportStreamGiveTheCommandLinesJSON() throws {
        let dir = try TestPaths.tempDir("cabi-info-path")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for ext in ["mkv", "ts", "mp4"] {
            let path = dir + "/clip.\(ext)"
            try SplitShellTests.ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=s=320x120:r=30:d=0.5", "-c:v", "libx264", "-preset", "ultrafast",
                "-pix_fmt", "yuv420p", path,
            ])
            let c = Self.info(path)
            #expect(c.status == SMStatus.ok, "\(ext): \(c.json)")
            let cli = try Run.cli(["info", "--json", path])
            #expect(Self.same(c.json, cli.out), "\(ext): C \(c.json.prefix(300)) vs CLI \(cli.out.prefix(300))")
            #expect(c.json.contains("\"file\""), "\(ext)")
        }
        // sm_file_open takes only what the library's own parsers read: Matroska is not one of them.
        var h: OpaquePointer? = nil
        #expect(sm_file_open(dir + "/clip.mkv", &h) != SMStatus.ok)
        _ = sm_file_free(h)
        // A file that cannot be read at all is an error, not a report.
        #expect(Self.info(dir + "/absent.mkv").status != SMStatus.ok)
        #expect(Self.info(dir + "/absent.mkv").json.contains("absent.mkv"))
    }
}
