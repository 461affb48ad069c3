import Testing

@testable import StereoVision

/// Accuracy harness: synthetic pairs from a known camera model; the measured values must match the injected truth.
@Suite("Stereo accuracy harness")
struct AccuracyHarnessTests {
    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var scene: SyntheticStereo
        var swap = false
        var identical = false
        var description: String { name }
    }

    static func scene(_ edit: (inout SyntheticStereo) -> Void) -> SyntheticStereo {
        var s = SyntheticStereo()
        edit(&s)
        return s
    }

    static func measure(_ c: Case) -> StereoAnalysisResult {
        var (l, r) = c.scene.render()
        if c.swap { swap(&l, &r) }
        if c.identical { r = l }
        var o = StereoAnalysisOptions()
        o.hfovDegrees = c.scene.hfovDegrees
        return StereoAnalyzer.analyze(left: l, right: r, options: o)
    }

    static func row(_ name: String, _ injected: String, _ m: StereoMeasurement) -> String {
        func f(_ v: Double) -> String { let s = (v * 1000).rounded() / 1000; return "\(s)" }
        return
            "| \(name) | \(injected) | dy med \(f(m.medianDy)) px, |dy| med \(f(m.medianAbsDy)), roll \(f(m.rollDegrees))°, scale \(f(m.verticalScalePercent)) %, keystone \(f(m.keystoneCornerPixels)) px, pitch² \(f(m.pitchEdgePixels)) px, disp far \(f(m.disparityFar)) near \(f(m.disparityNear)), inliers \(m.matches.count), conf \(f(m.confidence)) |"
    }

    @Test func perfectPair() throws {
        let m = try #require(Self.measure(Case(name: "perfect", scene: SyntheticStereo())).measurement)
        print(Self.row("perfect", "nothing", m))
        #expect(abs(m.medianDy) < 0.1)
        #expect(m.medianAbsDy < 0.3)
        #expect(abs(m.rollDegrees) < 0.05)
        #expect(abs(m.verticalScalePercent) < 0.2)
        #expect(m.disparityFar > -0.5)  // nothing beyond infinity
        #expect(m.disparityNear > 8)  // nearest plane at 1.6 m: f·B/Z ≈ 13.9 px
        #expect(m.matches.count > 100)
    }

    @Test(arguments: [3.0, -2.5])
    func verticalOffset(_ v: Double) throws {
        let c = Case(name: "offset \(v)", scene: Self.scene { $0.verticalOffsetPixels = v })
        let m = try #require(Self.measure(c).measurement)
        print(Self.row("vertical offset", "\(v) px", m))
        #expect(abs(m.medianDy - v) < 0.3)
        #expect(abs(m.rollDegrees) < 0.05)
    }

    @Test(arguments: [0.3, -1.5])
    func roll(_ deg: Double) throws {
        let c = Case(name: "roll \(deg)", scene: Self.scene { $0.rollDegrees = deg })
        let m = try #require(Self.measure(c).measurement)
        print(Self.row("roll", "\(deg)° (camera)", m))
        // A camera rolled by +ρ shows its content turned by −ρ.
        #expect(abs(m.rollDegrees + deg) < 0.05)
    }

    @Test(arguments: [1.01, 0.985])
    func focalMismatch(_ k: Double) throws {
        let c = Case(name: "focal \(k)", scene: Self.scene { $0.focalRatio = k })
        let m = try #require(Self.measure(c).measurement)
        print(Self.row("focal mismatch", "×\(k)", m))
        #expect(abs(m.verticalScalePercent - (k - 1) * 100) < 0.1)
        #expect(abs(m.rollDegrees) < 0.05)
    }

    @Test func pitch() throws {
        let c = Case(name: "pitch", scene: Self.scene { $0.pitchDegrees = 0.5 })
        let m = try #require(Self.measure(c).measurement)
        print(Self.row("pitch", "0.5°", m))
        // Pitch moves the content vertically by ≈ f·tan(0.5°) (≈ 3 px at 60° HFOV over 400 px).
        let f = Double(c.scene.width) / 2 / (c.scene.hfovDegrees / 2 * Double.pi / 180).tanValue
        let expected = f * (0.5 * Double.pi / 180).tanValue
        #expect(abs(abs(m.medianDy) - expected) < 0.3)
        #expect(abs(m.rollDegrees) < 0.05)
    }

    @Test func toeIn() throws {
        let c = Case(name: "toe-in", scene: Self.scene { $0.yawDegrees = -2 })
        let m = try #require(Self.measure(c).measurement)
        print(Self.row("toe-in", "yaw −2°", m))
        #expect(abs(m.keystoneCornerPixels) > 0.3)
        #expect(abs(m.rollDegrees) < 0.05)
        let toe = try #require(m.toeInDegrees)
        #expect(abs(abs(toe) - 2) < 0.5)
    }

    @Test func horizontalShift() throws {
        let base = try #require(Self.measure(Case(name: "base", scene: SyntheticStereo())).measurement)
        let c = Case(name: "shift", scene: Self.scene { $0.horizontalShiftPixels = 12 })
        let m = try #require(Self.measure(c).measurement)
        print(Self.row("horizontal shift", "+12 px (right content to the right)", m))
        // Moving the right content right lowers every disparity (xl − xr) by 12 px: the far field goes beyond infinity.
        #expect(abs((base.disparityFar - m.disparityFar) - 12) < 0.5)
        #expect(m.disparityFar < -9)
    }

    @Test func swappedEyes() throws {
        let m = try #require(Self.measure(Case(name: "swapped", scene: SyntheticStereo(), swap: true)).measurement)
        print(Self.row("swapped eyes", "L↔R", m))
        #expect(m.fractionNegativeDisparity > 0.85)
        #expect(m.disparityNear < 0.5)
    }

    @Test func identicalEyes() throws {
        let m = try #require(
            Self.measure(Case(name: "identical", scene: SyntheticStereo(), identical: true)).measurement)
        print(Self.row("identical eyes", "R = L", m))
        #expect(abs(m.disparityNear - m.disparityFar) < 0.2)
        #expect(m.medianAbsDy < 0.05)
    }

    @Test func badInputs() {
        let tiny = GrayImage(width: 16, height: 16, value: 100)
        #expect(StereoAnalyzer.analyze(left: tiny, right: tiny).failure != nil)
        let flat = GrayImage(width: 200, height: 150, value: 90)
        let r = StereoAnalyzer.analyze(left: flat, right: flat)
        #expect(r.failure?.contains("texture") == true)
        let other = GrayImage(width: 201, height: 150, value: 90)
        #expect(StereoAnalyzer.analyze(left: flat, right: other).failure?.contains("differ in size") == true)
        #expect(GrayImage(width: 10, height: 10, pixels: [1, 2, 3]) == nil)
        #expect(GrayImage(width: -1, height: 10, pixels: []) == nil)
    }
}

extension Double {
    var tanValue: Double {
        #if canImport(Glibc)
            return Glibc.tan(self)
        #else
            return Darwin.tan(self)
        #endif
    }
}
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
