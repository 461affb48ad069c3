import Foundation
import ISOBMFF
import ImageFormats
import SpatialMedia
import TestSupport
import Testing

@testable import SpatialConvert
@testable import SpatialValidation
@testable import StereoVision

/// Issue 31: one verdict for one pair of pictures — the same rule IDs and severities whatever container carries the
/// pair, and a measurement that is symmetric in the eyes.
@Suite("One verdict for one pair")
struct OneVerdictTests {
    /// `GeometryReportTests.pair` at 640×480 (far wall at 100 m), seed 5.
    static func render(_ edit: (inout SyntheticStereo) -> Void) -> (GrayImage, GrayImage, SyntheticStereo) {
        GeometryReportTests.pair { s in
            s.width = 640; s.height = 480; s.seed = 5
            edit(&s)
        }
    }

    /// Swapping the inputs negates the horizontal disparity (far ↔ near), keeps |dy|, and gives a swapped-eyes finding
    /// (never a divergence finding, and no `--swap-eyes` advice on the pair as labelled).
    @Test func swappingTheEyesNegatesDisparityAndNothingElse() throws {
        let (l, r, s) = Self.render { $0.verticalOffsetPixels = 2 }
        let a = GeometryDiagnosis.diagnose(left: l, right: r, stereo: s.known())
        let b = GeometryDiagnosis.diagnose(left: r, right: l, stereo: s.known())
        let ma = try #require(a.result.measurement), mb = try #require(b.result.measurement)
        print(
            "as labelled: far \(ma.rectifiedFar) median \(ma.rectifiedMedian) near \(ma.rectifiedNear) |dy| \(ma.medianAbsDy); swapped: far \(mb.rectifiedFar) median \(mb.rectifiedMedian) near \(mb.rectifiedNear) |dy| \(mb.medianAbsDy)"
        )
        #expect(abs(ma.rectifiedFar + mb.rectifiedNear) <= max(0.5, 0.05 * abs(ma.rectifiedFar)))
        #expect(abs(ma.rectifiedNear + mb.rectifiedFar) <= max(0.5, 0.05 * abs(ma.rectifiedNear)))
        #expect(abs(ma.rectifiedMedian + mb.rectifiedMedian) <= max(0.5, 0.05 * abs(ma.rectifiedMedian)))
        #expect(abs(ma.disparityFar + mb.disparityNear) <= max(0.5, 0.05 * abs(ma.disparityFar)))
        #expect(abs(ma.medianAbsDy - mb.medianAbsDy) <= 0.1)
        #expect(
            abs(abs(ma.rectification?.centreVerticalOffset ?? 0) - abs(mb.rectification?.centreVerticalOffset ?? 0))
                <= 0.1)
        #expect(!a.findings.contains { $0.ruleID == "SV-GEOM-007" })
        #expect(b.findings.contains { $0.ruleID == "SV-GEOM-007" && $0.severity >= .warning })
        #expect(!b.findings.contains { $0.ruleID == "SV-GEOM-006" })
    }

    /// A pair shifted beyond infinity is divergence, never `--swap-eyes`, when swapping would put the whole scene
    /// nearer than 1 m (80 px: the nearest box, 22 px, ends up at −58 px), even without the occlusions. (At 40 px the
    /// swapped reading — a scene from 2 m on — is as plausible, and with inconclusive occlusions both are named.)
    @Test(arguments: [(80.0, false), (80.0, true)])
    func divergenceIsNeverAdvisedAsSwappedEyes(shift: Double, occlusions: Bool) {
        let (l, r, s) = Self.render { $0.horizontalShiftPixels = shift }
        var o = StereoAnalysisOptions()
        o.occlusionTest = occlusions
        let d = GeometryDiagnosis.diagnose(left: l, right: r, stereo: s.known(), options: o)
        #expect(d.faults.first?.kind == "divergence")
        #expect(d.faults.first?.severity == .error)
        #expect(!d.findings.contains { $0.ruleID == "SV-GEOM-007" })
        #expect(!d.findings.contains { $0.message.contains("--swap-eyes") })
    }

    /// The first example: a 2° toe-in at 60° HFOV and 1280×960 (keystone 9.6 px, under the old 1 %-of-H
    /// gate) is an ERROR — its shift of infinity makes the eyes diverge — and the JSON names the toe-in.
    @Test func twoDegreeToeInIsAnError() throws {
        let (l, r, s) = Self.render {
            $0.width = 1280; $0.height = 960; $0.yawDegrees = -2
        }
        let rep = Validator.validatePair(left: l, right: r, stereo: s.known())
        let f = try #require(rep.findings.first { $0.ruleID == "SV-GEOM-005" })
        #expect(f.severity == .error)
        #expect(f.message.contains("toe-in") && f.message.contains("diverge"))
        let m = try #require(rep.measurements.first?.result.measurement)
        #expect(abs((m.toeInDegrees ?? 0) - 2) < 0.1)
        let html = HTMLReport.page([rep])
        #expect(!html.contains("Verdict: <b>OK</b>"))
    }

    /// The second example: a 40 px shift into the room at 1280×960 is a warning with both readings.
    @Test func shiftIntoTheRoomGivesBothReadings() throws {
        let (l, r, s) = Self.render {
            $0.width = 1280; $0.height = 960; $0.horizontalShiftPixels = -40
        }
        let d = GeometryDiagnosis.diagnose(left: l, right: r, stereo: s.known())
        let f = try #require(d.findings.first { $0.ruleID == "SV-GEOM-016" })
        #expect(f.severity == .warning)
        #expect(
            f.message.contains("cannot decide") && f.message.contains("crop=iw-4")
                && f.message.contains("nothing in the scene is farther than"))
        #expect(!d.findings.contains { $0.severity == .error })
    }

    /// `--auto-disparity` capped at 5 % says so, and what stays in front of the window.
    @Test func autoDisparityCapIsReported() throws {
        let c = AutoDisparity.choice(nearDisparity: 0.104 * 1000, width: 1000)
        #expect(c.percent == 5 && abs(c.wanted - 10.5) < 0.01)
        let note = try #require(AutoDisparity.capNote(nearDisparity: 104, width: 1000, hfovDegrees: 60))
        #expect(note.contains("capped") && note.contains("5.5% of the width"))
        #expect(AutoDisparity.capNote(nearDisparity: 20, width: 1000, hfovDegrees: 60) == nil)
    }

    /// The fourth example: `--auto-disparity` on a pair whose nearest content needs more than 5 % says it was
    /// capped, and how much stays in front of the window.
    @Test func autoDisparityCapIsReportedByAlign() throws {
        let (l, r, _) = Self.render { $0.edgeBoxMetres = 0.5 }
        func image(_ g: GrayImage) throws -> Image {
            try Image(width: g.width, height: g.height, bitDepth: 8, format: .gray, planes: .u8([g.bytes]))
        }
        let p = try PairAligner.prepare(
            left: try image(l), right: try image(r), hfovDegrees: 60, align: false, autoDisparity: true)
        for line in p.report.lines { print(line) }
        #expect(p.report.disparityPercent == 5)
        #expect(p.report.lines.contains { $0.contains("capped at the +5") && $0.contains("in front of the window") })
    }

    static let gx8 = "\(Corpus.root)/corpus/sbs/Panasonic-DMC-GX8.jpg"
    static let frozenpond = "\(Corpus.root)/corpus/mpo/frozenpond.mpo"

    /// Apple's own Vision Pro photo: no geometry ERROR, and the measurement is symmetric in the eyes (before the
    /// symmetric rectification fit its yaw was +1.02° as labelled and −1.52° swapped).
    @Test(.needs(.sharedFiles(Corpus.visionPro)))
    func visionProIsSymmetricAndHasNoError() throws {
        let rep = Validator.validate(path: Corpus.visionPro)
        #expect(!rep.findings.contains { $0.ruleID.hasPrefix("SV-GEOM") && $0.severity == .error }, "\(rep.lines)")
        let m = try #require(rep.measurements.first?.result.measurement)
        #expect(m.toeInDegrees != nil)
        let file = try ISOFile.open(path: Corpus.visionPro)
        let px = try PixelSource.photo(file, limits: .default)
        let swapped = GeometryDiagnosis.run(
            EyePixels(left: px.right, right: px.left), facts: StereoFacts(rep.facts.stereo), label: "",
            options: StereoAnalysisOptions())
        let mb = try #require(swapped.result.measurement)
        print(
            "vision-pro as labelled: raw \(m.disparityFar) … \(m.disparityNear) px; swapped: raw \(mb.disparityFar) … \(mb.disparityNear) px"
        )
        #expect(abs(m.disparityFar + mb.disparityNear) <= max(1, 0.05 * abs(m.disparityFar)))
        #expect(abs(m.disparityNear + mb.disparityFar) <= max(1, 0.05 * abs(m.disparityNear)))
        #expect(abs(m.medianAbsDy - mb.medianAbsDy) <= 0.25)
        // The toe fitted both ways round: swapping the eyes flips its sign and nothing else.
        #expect(abs((m.toeInDegrees ?? 0) + (mb.toeInDegrees ?? 0)) <= 0.02)
        #expect(abs(m.rectifiedFar + mb.rectifiedNear) <= max(1, 0.05 * abs(m.rectifiedFar)))
    }

    /// The corpus MPOs and the Panasonic 3D-lens pair are shifted beyond infinity: divergence (an ERROR fixed by
    /// `--align`), never `--swap-eyes`; the GX8 pair gets the same verdict as a side-by-side JPEG and as two files.
    @Test(.needs(.sharedFiles(OneVerdictTests.gx8, OneVerdictTests.frozenpond, Corpus.mpo)))
    func shiftedCameraPairsAreDivergenceInEveryContainer() throws {
        func geometry(_ r: ValidationReport) -> Set<String> {
            Set(
                r.findings.filter { $0.ruleID.hasPrefix("SV-GEOM") && $0.severity >= .warning }.map {
                    "\($0.ruleID) \($0.severity)"
                })
        }
        for p in [Self.frozenpond, Corpus.mpo, Self.gx8] {
            let r = Validator.validate(path: p)
            #expect(
                r.findings.contains {
                    $0.ruleID == "SV-GEOM-006" && $0.severity == .error && $0.message.contains("--align")
                }, "\(p): \(r.lines)")
            #expect(!r.findings.contains { $0.message.contains("--swap-eyes") }, "\(p)")
        }
        let ff = try TestPrograms.requireFFmpeg()
        let dir = try TestPaths.tempDir("gx8-halves")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (name, x) in [("L.png", "0"), ("R.png", "iw/2")] {
            let res = try Run.program(
                ff, ["-nostdin", "-v", "error", "-y", "-i", Self.gx8, "-vf", "crop=iw/2:ih:\(x):0", dir + "/" + name],
                timeout: 300)
            try #require(res.status == 0, "\(res.err)")
        }
        let sbs = geometry(Validator.validate(path: Self.gx8))
        var o = ValidationOptions()
        o.rightEye = dir + "/R.png"
        let pair = geometry(Validator.validate(path: dir + "/L.png", options: o))
        #expect(sbs == pair, "SBS \(sbs.sorted()) vs two files \(pair.sorted())")
    }

    /// Apple's sample spatial video: no geometry ERROR.
    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func appleSampleHasNoGeometryError() {
        let r = Validator.validate(path: Corpus.appleVideo)
        #expect(!r.findings.contains { $0.ruleID.hasPrefix("SV-GEOM") && $0.severity == .error }, "\(r.lines)")
    }
}
