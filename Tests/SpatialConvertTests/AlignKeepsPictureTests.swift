import BinaryIO
import ImageFormats
import MediaDecode
import SpatialConvert
import StereoVision
import TestSupport
import Testing

/// Issue 41 (5): `--align` keeps the most picture the correction allows. A horizontal re-centre is a shift — a strip
/// cut off one side — not a centred crop that keeps the aspect ratio (the corpus's Nintendo 3DS MPOs, whose far
/// field sits ≈ 104 px beyond infinity, went from 640×480 to 428×320: 45 % of the pixels).
@Suite struct AlignKeepsPictureTests {
    @Test func aShiftCostsAStripOnOneSide() {
        // The right eye moved 100 px right: only the first 100 columns have no source.
        let shift: [Double] = [1, 0, 100, 0, 1, 0, 0, 0, 1]
        let c = StereoWarp.largestCommonArea(shift, width: 640, height: 480)
        #expect(
            c.map { $0.width >= 538 && $0.width <= 540 && $0.height == 480 && $0.x >= 100 && $0.x <= 102 } == true,
            "\(String(describing: c))")
        // The old centred, aspect-kept crop of the same shift.
        let centred = StereoWarp.centredCommonArea(shift, width: 640, height: 480)
        #expect(centred.map { $0.width < 460 } == true, "\(String(describing: centred))")
    }

    @Test func aRollKeepsAtLeastTheCentredCrop() {
        // A rotation: the largest rectangle holds at least as many pixels as the centred, aspect-kept one.
        let r = RectificationModel(width: 640, height: 480, focalPixels: 554)
        var m = r; m.roll = 1.5 * Double.pi / 180
        let a = StereoWarp.largestCommonArea(m.homography, width: 640, height: 480)
        let b = StereoWarp.centredCommonArea(m.homography, width: 640, height: 480)
        let aa = a.map { $0.width * $0.height } ?? 0, bb = b.map { $0.width * $0.height } ?? 0
        #expect(aa >= bb && bb > 0, "largest \(String(describing: a)), centred \(String(describing: b))")
        #expect(a.map { $0.x % 2 == 0 && $0.y % 2 == 0 && $0.width % 2 == 0 && $0.height % 2 == 0 } == true)
    }

    @Test(
        .needs(.shared("corpus/mpo/sugarshack.mpo", "corpus/mpo/frozenpond.mpo")),
        arguments: ["sugarshack.mpo", "frozenpond.mpo"])
    func nintendo3DSMPOKeepsItsHeight(_ name: String) throws {
        let pair = try StereoImages.load(try #require(sharedFile("corpus/mpo/" + name)), packing: ImagePacking())
        let p = try PairAligner.prepare(
            left: pair.left, right: pair.right, hfovDegrees: 60, align: true, autoDisparity: false)
        print("\(name): \(pair.left.width)×\(pair.left.height) → \(p.left.width)×\(p.left.height): \(p.report.lines)")
        #expect(p.report.aligned, "\(p.report.lines)")
        // Before: 428×320. The far field's ≈ 104 px shift costs ≈ 104 columns, not a third of both sides.
        #expect(
            p.left.height >= 470 && p.left.width >= 520, "\(name): \(p.left.width)×\(p.left.height): \(p.report.lines)")
        #expect(p.left.width == p.right.width && p.left.height == p.right.height)
    }
}
