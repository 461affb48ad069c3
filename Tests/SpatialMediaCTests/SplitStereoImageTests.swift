// Issue 33 part 2 through the C ABI: sm_split takes a side-by-side / top-bottom picture (here a PNG made in memory)
// with the "layout" option, through the operations layer, as `spatial-media split` does.
import Testing

@testable import SpatialMediaC

@Suite struct SplitStereoImageTests {
    @Test func packedPNGSplitsWithTheLayoutOption() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        // 32×64: two 32×32 eyes one above the other (red on top, blue below).
        let tb = dir + "/tb.png"
        try writeFile(tb, pngBytes(width: 32, height: 64) { _, y in y < 32 ? (200, 0, 0) : (0, 0, 200) })
        var report: UnsafeMutablePointer<CChar>? = nil
        #expect(
            sm_split(tb, dir + "/l.png", dir + "/r.png", #"{"layout": "tb"}"#, nil, nil, nil, &report) == SMStatus.ok,
            "\(lastError())")
        let text = report.map { String(cString: $0) } ?? ""
        sm_string_free(report)
        #expect(text.contains("\"lossless\":true") && text.contains("PNG top-bottom"), "\(text)")
        #expect(Paths.exists(dir + "/l.png") && Paths.exists(dir + "/r.png"))
        #expect(
            sm_split(tb, dir + "/l2.png", dir + "/r2.png", #"{"layout": "diagonal"}"#, nil, nil, nil, nil)
                == SMStatus.invalidOption)
    }
}
