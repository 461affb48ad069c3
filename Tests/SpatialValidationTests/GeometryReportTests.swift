import Codecs
import Foundation
import ImageFormats
import SpatialMedia
import TestSupport
import Testing

@testable import SpatialConvert
@testable import SpatialValidation
@testable import StereoVision

/// The diagnosis on pairs the issue named, alignment of images, and the HTML report looked at in a real browser.
@Suite("Geometry diagnosis, alignment and report")
struct GeometryReportTests {
    static func pair(_ edit: (inout SyntheticStereo) -> Void) -> (GrayImage, GrayImage, SyntheticStereo) {
        var s = SyntheticStereo()
        s.width = 320; s.height = 240; s.farWallMetres = 100
        edit(&s)
        let (l, r) = s.render()
        return (l, r, s)
    }

    @Test func toeInIsKeystoneNotSwappedEyes() {
        let (l, r, s) = Self.pair { $0.yawDegrees = -3 }
        let d = GeometryDiagnosis.diagnose(left: l, right: r, stereo: s.known(), asSpatial: true)
        #expect(d.faults.first?.kind == "keystone")
        #expect(!d.faults.contains { $0.kind == "swapped-eyes" })
        let k = d.findings.first { $0.ruleID == "SV-GEOM-005" }
        #expect(k?.message.contains("toe-in") == true)
        #expect(k?.message.contains("--align") == true)
    }

    @Test func pureRollGetsNoShiftAdvice() {
        let (l, r, s) = Self.pair { $0.rollDegrees = 1 }
        let d = GeometryDiagnosis.diagnose(left: l, right: r, stereo: s.known(), asSpatial: true)
        #expect(d.faults.first?.kind == "roll")
        #expect(!d.findings.contains { $0.ruleID == "SV-GEOM-006" })
        #expect(!d.findings.contains { $0.message.contains("shift the right eye") })
    }

    @Test func horizontalTranslationIsReported() {
        let (l, r, s) = Self.pair { $0.horizontalShiftPixels = 25 }
        let d = GeometryDiagnosis.diagnose(left: l, right: r, stereo: s.known(), asSpatial: true)
        let f = d.faults.first { $0.kind == "divergence" }
        #expect(f?.severity == .error)
        #expect(abs((f?.value ?? 0) - (-25 + s.farWallDisparity)) < 1)
    }

    @Test func defaultWindowWarnsAndNamesAutoDisparity() {
        // A parallel rig indoors (back wall at 6 m): with a 0 % adjustment everything stands in front of the window.
        let (l, r, s) = Self.pair { $0.farWallMetres = 6 }
        let d = GeometryDiagnosis.diagnose(left: l, right: r, stereo: s.known(disparity: 0), asSpatial: true)
        let f = d.findings.first { $0.ruleID == "SV-GEOM-020" }
        #expect(f?.severity == .warning)
        #expect(f?.message.contains("--auto-disparity") == true)
        #expect(!d.findings.contains { $0.severity == .error })
    }

    @Test func nearContentAtTheFrameEdgeIsAWindowViolation() {
        // A box at 0.8 m runs off the left edge; the window (3.75 % = 24 px) sits behind the other boxes (≥ 1.6 m,
        // ≤ 22 px) but in front of the edge box (44 px): only the edge box stands out of the window.
        func scene(_ edgeBox: Double?) -> (faults: [GeometryFault], findings: [Finding]) {
            let (l, r, s) = Self.pair {
                $0.width = 640; $0.height = 360; $0.edgeBoxMetres = edgeBox
            }
            let d = GeometryDiagnosis.diagnose(left: l, right: r, stereo: s.known(disparity: 375), asSpatial: true)
            return (d.faults, d.findings)
        }
        let fires = scene(0.8)
        let f = fires.faults.first { $0.kind == "window" }
        #expect(f?.ruleID == "SV-GEOM-017")
        #expect(f?.severity == .warning)
        #expect((f?.value ?? 0) >= 3)
        #expect(fires.findings.first { $0.ruleID == "SV-GEOM-017" }?.message.contains("--auto-disparity") == true)
        #expect(!fires.findings.contains { $0.severity == .error })
        // The same scene without the edge box: nothing in front of the window touches an edge.
        let quiet = scene(nil)
        #expect(!quiet.findings.contains { $0.ruleID == "SV-GEOM-017" })
    }

    @Test func wrongLayoutGivesNoVerdict() {
        // A side-by-side picture split as top/bottom: the "eyes" are different pictures.
        let (l, r, _) = Self.pair { _ in }
        var packed = [Float](repeating: 0, count: 640 * 240)
        for y in 0..<240 { for x in 0..<320 { packed[y * 640 + x] = l[x, y]; packed[y * 640 + 320 + x] = r[x, y] } }
        let top = GrayImage(width: 640, height: 120, pixels: Array(packed[0..<(640 * 120)]))!
        let bottom = GrayImage(width: 640, height: 120, pixels: Array(packed[(640 * 120)...]))!
        let d = GeometryDiagnosis.diagnose(left: top, right: bottom, asSpatial: true)
        #expect(!d.findings.contains { $0.severity == .error })
        #expect(d.findings.contains { $0.ruleID == "SV-GEOM-013" || $0.ruleID == "SV-GEOM-011" })
        #expect(!d.findings.contains { $0.message.contains("--align") })
    }

    /// SV-GEOM-013 names `--layout` only when the eyes were cut from one packed picture: for views decoded apart
    /// (an MV-HEVC sphere's layers, found on a converted VR180 whose centre had too few features) a layout cannot be
    /// wrong, and the hint sent users to `validate vr.mov --layout sbs`, which measures one view as a pair.
    @Test func unreliableMeasurementNamesTheLayoutOnlyForPackedPictures() throws {
        let (l, r, _) = Self.pair { _ in }
        var packed = [Float](repeating: 0, count: 640 * 240)
        for y in 0..<240 { for x in 0..<320 { packed[y * 640 + x] = l[x, y]; packed[y * 640 + 320 + x] = r[x, y] } }
        let top = try #require(GrayImage(width: 640, height: 120, pixels: Array(packed[0..<(640 * 120)])))
        let bottom = try #require(GrayImage(width: 640, height: 120, pixels: Array(packed[(640 * 120)...])))
        let cut = GeometryDiagnosis.diagnose(left: top, right: bottom, asSpatial: true, fromOnePicture: true)
        let apart = GeometryDiagnosis.diagnose(left: top, right: bottom, asSpatial: true, fromOnePicture: false)
        let a = try #require(cut.findings.first { $0.ruleID == "SV-GEOM-013" }, "\(cut.findings.map(\.ruleID))")
        let b = try #require(apart.findings.first { $0.ruleID == "SV-GEOM-013" }, "\(apart.findings.map(\.ruleID))")
        #expect(a.message.contains("wrong layout?") && a.message.contains("--layout sbs"), "\(a.message)")
        #expect(!b.message.contains("--layout") && !b.message.contains("wrong layout"), "\(b.message)")
        #expect(b.message.contains("decoded apart") && b.message.contains("no geometry verdict"), "\(b.message)")
        #expect(a.severity == b.severity)
    }

    @Test func alignRectifiesImagesAndPrintsBeforeAfter() throws {
        let (l, r, s) = Self.pair {
            $0.rollDegrees = 0.8; $0.verticalOffsetPixels = 4; $0.focalRatio = 1.012
        }
        let li = try Image(width: l.width, height: l.height, bitDepth: 8, format: .gray, planes: .u8([l.bytes]))
        let ri = try Image(width: r.width, height: r.height, bitDepth: 8, format: .gray, planes: .u8([r.bytes]))
        let p = try PairAligner.prepare(
            left: li, right: ri, hfovDegrees: s.hfovDegrees, align: true, autoDisparity: true)
        let before = try #require(p.report.before), after = try #require(p.report.after)
        #expect(before.medianAbsDy > 2)
        #expect(after.medianAbsDy <= 0.2)
        #expect(after.p95AbsDy <= 0.5)
        #expect(p.left.width == p.right.width && p.left.width < 320 && p.left.width % 2 == 0)
        #expect((p.report.hfovDegrees ?? 99) < s.hfovDegrees)
        #expect((p.report.disparityPercent ?? 0) > 0)
        #expect(
            p.report.lines.contains { $0.hasPrefix("before:") } && p.report.lines.contains { $0.hasPrefix("after:") })
    }

    static let chromium = ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap { TestPaths.which($0) }
        .first

    func toedInReport() -> String {
        let (l, r, s) = Self.pair {
            $0.yawDegrees = -3; $0.rollDegrees = 0.5
        }
        var o = ValidationOptions()
        o.keepPreview = true
        var rep = Validator.validatePair(
            left: l, right: r, name: "toed-in pair", stereo: s.known(disparity: 200), options: o)
        rep.facts.stereo.baselineMicrometres = 64_000
        return HTMLReport.page([rep])
    }

    @Test func reportShowsVerdictFirst() throws {
        let html = toedInReport()
        let verdict = try #require(html.range(of: "Verdict:")), meta = try #require(html.range(of: "Spatial metadata"))
        let firstWarning = try #require(html.range(of: "SV-GEOM-005"))
        #expect(verdict.lowerBound < firstWarning.lowerBound && firstWarning.lowerBound < meta.lowerBound)
        #expect(html.contains("disparity adjustment") && html.contains("200 (2.00% of the width)"))
        #expect(html.contains("depth budget") && html.contains("full fitted field"))
        for outside in ["formats.md", "peers.md", "oracles.md", "../shared"] {
            #expect(!html.contains(outside), "cites \(outside)")
        }
    }

    /// The same report looks right in a browser (a screenshot by headless Chromium, an optional viewer).
    @Test(.needs(Requirement("Chromium (headless screenshot of the report) not installed") { chromium != nil }))
    func reportLooksRightInChromium() throws {
        let dir = Temp.dir()
        let page = dir + "/report.html"
        try toedInReport().write(toFile: page, atomically: true, encoding: .utf8)
        let shot = dir + "/report.png"
        _ = try Run.program(
            try #require(Self.chromium),
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--window-size=1400,2600",
                "--screenshot=\(shot)", "file://\(page)",
            ], timeout: 300)
        let png = try Data(contentsOf: URL(fileURLWithPath: shot))
        #expect(png.count > 50_000)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        print("report screenshot: \(shot)")
    }
}

extension SyntheticStereo {
    /// What the rig's metadata would say, in the stored units the validator takes: its field of view, and on request
    /// a disparity adjustment (1/10000 of the width) and its baseline.
    func known(disparity: Int32? = nil, withBaseline: Bool = false) -> StereoParameters {
        StereoParameters(
            baselineMicrometres: withBaseline ? UInt32((baselineMetres * 1_000_000).rounded()) : nil,
            horizontalFieldOfViewMillidegrees: UInt32((hfovDegrees * 1000).rounded()), disparityAdjustment: disparity)
    }
}
