// SV-GEOM-016 (issue 31): the far field is judged against the window. The bundled sample's far content sits about
// 1 % of the width in front of infinity; README's main job converts it with `--disparity 1`, which presents that far
// field at the window — nothing is left for the pixels to be unsure of. Without the adjustment the warning stays.
import Foundation
import TestSupport
import Testing

@Suite struct ShiftAgainstWindowTests {
    @Test func disparityAdjustmentIsTheShiftsUndo() throws {
        let dir = try TestPaths.tempDir("shift-window")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sample = TestPaths.package("Conformance/files/sample_sbs_320x96.y4m")
        let adjusted = try Run.cli(["convert", sample, "-o", dir + "/adj.mov", "--preset", "fast", "--disparity", "1"])
        #expect(adjusted.status == 0, "\(adjusted.err.suffix(300))")
        #expect(!adjusted.err.contains("SV-GEOM-016") && !adjusted.out.contains("SV-GEOM-016"), "\(adjusted.out)")
        let v = try Run.cli(["validate", dir + "/adj.mov"])
        #expect(!v.out.contains("SV-GEOM-016"), "\(v.out)")
        let plain = try Run.cli(["convert", sample, "-o", dir + "/plain.mov", "--preset", "fast"])
        #expect(plain.status == 0, "\(plain.err.suffix(300))")
        let w = try Run.cli(["validate", dir + "/plain.mov"])
        #expect(w.out.contains("SV-GEOM-016") && w.out.contains("(the window: no disparity adjustment)"), "\(w.out)")
    }
}
