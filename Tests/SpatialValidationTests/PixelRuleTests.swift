import Foundation
import SpatialMedia
import StereoVision
import TestSupport
import Testing

@testable import SpatialValidation

@Suite("Pixel rules")
struct PixelRuleTests {
    static func pair(_ edit: (inout SyntheticStereo) -> Void = { _ in }) -> (GrayImage, GrayImage, StereoParameters) {
        var s = SyntheticStereo()
        edit(&s)
        let (l, r) = s.render()
        return (l, r, s.known())
    }
    static let geometryRules: Set<String> = [
        "SV-GEOM-001", "SV-GEOM-002", "SV-GEOM-003", "SV-GEOM-004", "SV-GEOM-005", "SV-GEOM-006", "SV-GEOM-007",
        "SV-GEOM-008", "SV-GEOM-011",
    ]

    @Test func perfectPairHasNoGeometryWarnings() {
        let (l, r, known) = Self.pair()
        var fov = known
        // The window where a good file has it (an input without one is judged at the default 0 %, where a parallel
        // rig's whole scene stands in front of the window: SV-GEOM-020, issue 31).
        fov.disparityAdjustment = 500
        let rep = Validator.validatePair(left: l, right: r, stereo: fov)
        for line in rep.lines { print(line) }
        #expect(!rep.findings.contains { Self.geometryRules.contains($0.ruleID) })
        #expect(rep.exitCode == 0)
    }

    @Test func verdicts() {
        // Vertical offset of 1.5 % of the height → error; roll 0.6° → warning; 1 % focal mismatch → warning.
        var (l, r, fov) = Self.pair { $0.verticalOffsetPixels = 5.4 }
        var rep = Validator.validatePair(left: l, right: r, stereo: fov)
        #expect(rep.findings.contains { $0.ruleID == "SV-GEOM-001" && $0.severity == .error })
        (l, r, fov) = Self.pair { $0.rollDegrees = 0.6 }
        rep = Validator.validatePair(left: l, right: r, stereo: fov)
        #expect(rep.findings.contains { $0.ruleID == "SV-GEOM-003" && $0.severity == .warning })
        (l, r, fov) = Self.pair { $0.focalRatio = 1.01 }
        rep = Validator.validatePair(left: l, right: r, stereo: fov)
        #expect(rep.findings.contains { $0.ruleID == "SV-GEOM-004" && $0.severity == .warning })
        (l, r, fov) = Self.pair { $0.yawDegrees = -3 }
        rep = Validator.validatePair(left: l, right: r, stereo: fov)
        // Toe-in is one cause: the keystone finding names the divergence it causes (no separate shift advice).
        #expect(
            rep.findings.contains {
                $0.ruleID == "SV-GEOM-005" && $0.message.contains("toe-in") && $0.message.contains("beyond infinity")
            })
        #expect(!rep.fired("SV-GEOM-006"))
        #expect(!rep.fired("SV-GEOM-007"))  // converged, not swapped
        (l, r, fov) = Self.pair { $0.horizontalShiftPixels = 12 }
        rep = Validator.validatePair(left: l, right: r, stereo: fov)
        #expect(rep.fired("SV-GEOM-006")); #expect(!rep.fired("SV-GEOM-007"))
        (l, r, fov) = Self.pair()
        rep = Validator.validatePair(left: r, right: l, stereo: fov)
        #expect(rep.fired("SV-GEOM-007")); #expect(!rep.fired("SV-GEOM-006"))
        rep = Validator.validatePair(left: l, right: l, stereo: fov)
        #expect(rep.fired("SV-GEOM-008"))
        // Brightness mismatch
        let darker = GrayImage(width: r.width, height: r.height, pixels: r.pixels.map { $0 * 0.8 })!
        rep = Validator.validatePair(left: l, right: darker, stereo: fov)
        #expect(rep.fired("SV-GEOM-009"))
    }

    @Test func badPairsGiveClearVerdicts() {
        let tiny = GrayImage(width: 16, height: 16, value: 50)
        var rep = Validator.validatePair(left: tiny, right: tiny)
        #expect(rep.fired("SV-GEOM-011")); #expect(rep.exitCode == 1)
        let flat = GrayImage(width: 300, height: 200, value: 80)
        rep = Validator.validatePair(left: flat, right: flat)
        #expect(rep.findings.contains { $0.ruleID == "SV-GEOM-011" && $0.message.contains("cannot measure") })
        let other = GrayImage(width: 320, height: 200, value: 80)
        rep = Validator.validatePair(left: flat, right: other)
        #expect(rep.fired("SV-PAIR-002")); #expect(rep.fired("SV-GEOM-011"))
        // A 20 000-pixel-wide pair is reduced on decode and says so (only the conversion is exercised here).
        let (l, _, _) = Self.pair()
        let wide = l.resized(width: 20_000, height: 40)
        let red = PixelSource.reduction(of: wide)
        #expect(red?.factor == 5 && red?.width == 4000)
    }

    @Test(.needs(.sharedFiles(Corpus.visionPro)))
    func visionProPairIsMeasured() throws {
        var o = ValidationOptions()
        o.keepPreview = true
        o.analysis.maxRefineSide = 1280  // refine at half resolution: the debug-build test stays fast
        let r = Validator.validate(path: Corpus.visionPro, options: o)
        for l in r.lines { print(l) }
        let m = try #require(r.measurements.first?.result.measurement)
        #expect(m.matches.count > 100)
        #expect(m.percentOfHeight(m.medianAbsDy) < 0.5)
        #expect(abs(m.rollDegrees) < 0.25)
        #expect(!r.findings.contains { $0.severity == .error })
        let html = HTMLReport.page([r])
        #expect(html.contains("data:image/png;base64,"))
        #expect(html.contains("<svg"))
        #expect(html.contains("SV-GEOM-012"))
        let out = NSTemporaryDirectory() + "vision-pro-report.html"
        try html.write(toFile: out, atomically: true, encoding: .utf8)
        print("HTML report: \(out) (\(html.utf8.count) bytes)")
    }

    @Test func mpoAndSideBySideAreMeasured() throws {
        for p in [Corpus.mpo, Corpus.sbs] where Corpus.exists(p) {
            let r = Validator.validate(path: p)
            for l in r.lines { print(l) }
            #expect(!r.unreadable)
            #expect(r.fired("SV-PAIR-001"))
            #expect(!r.measurements.isEmpty)
        }
    }
}
