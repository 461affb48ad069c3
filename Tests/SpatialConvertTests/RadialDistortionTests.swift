import Foundation
import ImageFormats
import SpatialConvert
import SpatialMedia
import SpatialValidation
import StereoVision
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 41 (3): radial lens distortion, the same in both eyes, bends vertical disparity the way a toe does (both
/// give a bow-tie x·y term); the rectification fits one radial term alongside the rotation so the two are told
/// apart. Renders: k1 ∈ {0.1, 0.2} (and 0) × toe-in/out × the far field shown at 0 or pre-shifted (±8 px).
@Suite struct RadialDistortionTests {
    struct Case: Sendable, CustomStringConvertible {
        var k1: Double, toe: Double, shownFar: Double
        var description: String { "k1 \(k1), toe \(toe)°, far shown at \(shownFar) px" }
    }

    /// The suite's grid; `SPATIAL_SWEEP=full` runs every combination (Benchmarks/radial_sweep.sh prints the table).
    static var grid: [Case] {
        if ProcessInfo.processInfo.environment["SPATIAL_SWEEP"] == "full" {
            return [0.0, 0.1, 0.2].flatMap { k in
                [0.0, 1, -1, 2, -2].flatMap { t in [0.0, 8, -8].map { Case(k1: k, toe: t, shownFar: $0) } }
            }
        }
        return [
            Case(k1: 0.2, toe: 1, shownFar: 0), Case(k1: 0.2, toe: 0, shownFar: 0),
            Case(k1: 0.1, toe: -2, shownFar: 8), Case(k1: 0.2, toe: -1, shownFar: -8),
            Case(k1: 0.1, toe: 2, shownFar: 0), Case(k1: 0.2, toe: 0, shownFar: 8),
        ]
    }

    static func gray(_ img: Image) throws -> GrayImage { try #require(PairAligner.luma(img)?.gray) }

    @Test(arguments: grid)
    func toeIsMeasuredApartFromDistortion(_ c: Case) throws {
        let (l, r, far) = try AlignFarFieldTests.pair(toe: c.toe, shownFar: c.shownFar, k1: c.k1)
        let m = try #require(PairAligner.measure(l, r, hfovDegrees: 60).measurement)
        let rect = try #require(m.rectification)
        let toe = -rect.yawDegrees, free = -(rect.distortionFreeYawDegrees ?? rect.yawDegrees)
        // After --align: where the far field sits as the output shows it (its rectified far field with any toe the
        // output still shows added back), against where it belongs (as the source showed it, or at infinity).
        let p = try PairAligner.prepare(left: l, right: r, hfovDegrees: 60, align: true, autoDisparity: false)
        let hf = p.report.hfovDegrees ?? 60
        let after = try #require(PairAligner.measure(p.left, p.right, hfovDegrees: hf).measurement)
        let shown = after.rectifiedFar + (after.rectification?.centreHorizontalShift ?? 0)
        let target = max(0, far), farErr = abs(shown - target) / Double(p.left.width) * 100
        // validate's verdict on the source: a toe finding only where there is a toe.
        var stereo = StereoParameters()
        stereo.horizontalFieldOfViewMillidegrees = 60_000
        let d = GeometryDiagnosis.diagnose(
            left: try Self.gray(l), right: try Self.gray(r), stereo: stereo,
            asSpatial: true)
        let toeFinding = d.findings.first { $0.ruleID == "SV-GEOM-005" }
        func n(_ v: Double, _ p: Int = 3) -> String { String(format: "%.\(p)f", v) }
        let row =
            "| \(c.k1) | \(n(c.toe, 0)) | \(n(c.shownFar, 0)) | \(n(free)) | \(n(toe)) | \(n(rect.radialK1)) ± "
            + "\(n(rect.radialK1Error)) | \(toeFinding.map { "\($0.severity)" } ?? "none") | "
            + "\(p.report.aligned ? "yes" : "no") | \(n(shown, 2)) | \(n(farErr)) |"
        print("radial sweep " + row)
        if let out = ProcessInfo.processInfo.environment["SPATIAL_SWEEP_OUT"],
            let h = FileHandle(forWritingAtPath: out)
        {
            h.seekToEndOfFile(); h.write(Data((row + "\n").utf8)); h.closeFile()
        }
        #expect(abs(toe - c.toe) <= 0.15, "\(c): toe measured \(toe)° (\(free)° without the radial term)")
        #expect(
            farErr <= 0.3,
            "\(c): far field after --align \(shown) px of \(p.left.width), belongs at \(target): \(p.report.lines)")
        if c.toe == 0 {
            #expect(toeFinding == nil, "\(c): \(toeFinding?.message ?? "")")
        } else {
            #expect(toeFinding != nil, "\(c): no toe finding")
        }
        if c.k1 > 0 { #expect(abs(rect.radialK1 - c.k1) <= 0.05, "\(c): k1 \(rect.radialK1) ± \(rect.radialK1Error)") }
    }
}
