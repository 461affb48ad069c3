import BinaryIO
import ImageFormats
import SpatialConvert
import StereoVision
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 41 (1): `--align` removes a toe (a yaw), which moves every disparity by f·tan(yaw); the far field must be
/// put back where the source showed it (to infinity when the source diverges), and the report says by how much.
@Suite struct AlignFarFieldTests {
    /// A rendered pair with a far wall at 100 m (≈ infinity); `toe` degrees of toe-in (negative: toe-out) of the
    /// right camera, radial distortion `k1` in both eyes, and the horizontal shift
    /// that puts the far field, as shown, at `shownFar` pixels.
    static func pair(
        width: Int = 960, height: Int = 360, toe: Double, shownFar: Double, focalRatio: Double = 1,
        verticalOffset: Double = 0, k1: Double = 0,
        seed: UInt64 = 7
    ) throws -> (left: Image, right: Image, far: Double) {
        var s = SyntheticStereo()
        s.width = width; s.height = height; s.seed = seed; s.farWallMetres = 100; s.noise = 0
        s.yawDegrees = -toe; s.focalRatio = focalRatio; s.verticalOffsetPixels = verticalOffset
        s.radialK1 = k1
        let f = Double(width) / 2 / tan(s.hfovDegrees * Double.pi / 360)
        // The right camera turned by yaw shows infinity at cx − f·tan(yaw) (its own focal length); the shift moves it
        // to xl − shownFar.
        s.horizontalShiftPixels = f * focalRatio * tan(s.yawDegrees * Double.pi / 180) - shownFar + s.farWallDisparity
        let (l, r) = s.render()
        return (try PhotoInputReadingTests.rgb(l), try PhotoInputReadingTests.rgb(r), shownFar)
    }

    /// The far field (2nd percentile of the disparity, rectified) of an aligned pair, in pixels.
    static func farAfterAlign(_ l: Image, _ r: Image) throws -> (far: Double, report: PairPreparationReport, width: Int)
    {
        let p = try PairAligner.prepare(left: l, right: r, hfovDegrees: 60, align: true, autoDisparity: true)
        let m = try #require(PairAligner.measure(p.left, p.right, hfovDegrees: p.report.hfovDegrees ?? 60).measurement)
        return (m.rectification == nil ? m.disparityFar : m.rectifiedFar, p.report, p.left.width)
    }

    @Test func goProLikeToeInKeepsTheFarFieldWhereTheSourceShowedIt() throws {
        // The two-GoPro still of issue 41: toe-in 1.8° with the shift that shows the far field at 0, the right camera
        // 1.9 % longer in focal length and 8 px higher. Before: the far field landed ≈ 3 % of the width in front.
        let (l, r, _) = try Self.pair(
            width: 1600, height: 600, toe: 1.8, shownFar: 0, focalRatio: 1.019, verticalOffset: -8)
        // What the rectification alone leaves (the warp before this rule): the far field pulled forward by f·tan(1.8°).
        let m = try #require(PairAligner.measure(l, r, hfovDegrees: 60).measurement)
        print(
            "GoPro-like render: far field after rectification alone \(m.rectifiedFar) px (\(m.percentOfWidth(m.rectifiedFar)) % of W)"
        )
        #expect(m.percentOfWidth(m.rectifiedFar) > 1, "\(m.rectifiedFar) px")
        let a = try Self.farAfterAlign(l, r)
        print("GoPro-like render: far field after --align \(a.far) px of \(a.width): \(a.report.lines)")
        #expect(a.report.aligned, "\(a.report.lines)")
        #expect(
            abs(a.far) / Double(a.width) * 100 <= 0.3,
            "far field after --align \(a.far) px of \(a.width): \(a.report.lines)")
        #expect(a.report.lines.contains { $0.contains("far field") && $0.contains("put back") }, "\(a.report.lines)")
    }

    @Test(arguments: [(1.0, 0.0), (2.0, 0.0), (-1.0, 0.0), (-2.0, 0.0), (1.0, 6.0), (-2.0, 6.0), (2.0, -6.0)])
    func farFieldReturnsWhereItBelongsAfterAToe(toe: Double, shownFar: Double) throws {
        // Where it belongs: as the source showed it, or at infinity (0) when the source diverges.
        let (l, r, far) = try Self.pair(toe: toe, shownFar: shownFar)
        let a = try Self.farAfterAlign(l, r)
        #expect(a.report.aligned, "\(a.report.lines)")
        let target = max(0, far)
        #expect(
            abs(a.far - target) / Double(a.width) * 100 <= 0.3,
            "toe \(toe)°, shown far \(far): after --align \(a.far) px: \(a.report.lines)")
    }
}
