import BinaryIO
import SystemSupport
import Testing

@testable import SpatialValidation
@testable import StereoVision

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The generated sweep: each fault alone at three magnitudes and in pairs, on rendered textured scenes with known
/// truth. The test suite runs a small subset; `Benchmarks/geometry_sweep.sh` runs the whole table
/// (`SPATIAL_SWEEP=full`) and writes it to Benchmarks/RESULTS.md.
enum GeometrySweep {
    struct Fault: Sendable { var kind: String; var magnitude: Double }
    struct Case: Sendable {
        var faults: [Fault]; var seed: UInt64 = 3
        /// Rendered size (the issue's everyday cases are rendered at 1280×960, as reported).
        var width = GeometrySweep.width, height = GeometrySweep.height
        var name: String {
            let size = width == GeometrySweep.width ? "" : " @\(width)×\(height)"
            return
                (faults.isEmpty
                ? "fault-free (seed \(seed))"
                : faults.map { "\($0.kind) \(NumberText.fixed($0.magnitude, places: 2))" }.joined(separator: " + "))
                + size
        }
    }
    struct Outcome: Sendable {
        var name: String
        var injected: [String]
        var primary: String
        var found: [String]
        /// Rule ID and severity of each warning/error, strongest first.
        var severities: [String] = []
        var errors: [String]
        var magnitudes: [(kind: String, truth: Double, measured: Double?, ok: Bool)]
        var primaryRight: Bool
        var residualMedian: Double?
        var residualP95: Double?
        var seconds: Double
    }

    static let width = 480, height = 360
    /// Faults `--align` removes: the residual after alignment is checked on every case that injects one.
    static let fixable: Set<String> = ["vertical-offset", "roll", "vertical-scale", "keystone", "divergence"]

    static func scene(_ c: Case) -> SyntheticStereo {
        var s = SyntheticStereo()
        s.width = c.width; s.height = c.height; s.seed = c.seed; s.farWallMetres = 100
        for f in c.faults {
            switch f.kind {
            case "vertical-offset": s.verticalOffsetPixels = f.magnitude
            case "roll": s.rollDegrees = -f.magnitude  // content rotation = −camera roll
            case "vertical-scale": s.focalRatio = 1 + f.magnitude / 100
            case "keystone": s.yawDegrees = f.magnitude
            case "toe-in": s.yawDegrees = -f.magnitude  // the right camera turned towards the left one
            case "toe-out": s.yawDegrees = f.magnitude
            case "divergence": s.horizontalShiftPixels = f.magnitude
            case "shift": s.horizontalShiftPixels = -f.magnitude  // the right eye's content moved left: into the room
            case "crop":
                // Rendered 2c wider with the same focal length; the left eye is cropped centred, the right one c px
                // off-centre (see `run`).
                let focal = Double(c.width) / 2 / tan(s.hfovDegrees * Double.pi / 360)
                s.width = c.width + 2 * Int(f.magnitude)
                s.hfovDegrees = 2 * atan(Double(s.width) / 2 / focal) * 180 / Double.pi
            default: break
            }
        }
        return s
    }

    /// The diagnosis (fault kind) each injected fault should get.
    static func diagnosis(_ kind: String) -> String {
        switch kind {
        case "toe-in", "toe-out": return "keystone"
        case "shift", "crop": return "shifted"
        default: return kind
        }
    }

    /// The expected measured value of each injected fault.
    static func truth(_ f: Fault, _ s: SyntheticStereo) -> Double? {
        switch f.kind {
        case "vertical-offset", "roll", "vertical-scale", "keystone", "brightness", "colour": return f.magnitude
        case "toe-in": return -f.magnitude
        case "toe-out": return f.magnitude
        case "divergence": return -f.magnitude + s.farWallDisparity
        case "shift", "crop": return f.magnitude + s.farWallDisparity
        default: return nil
        }
    }

    /// 10 % of the truth, or the equivalent of 0.2 px at the image edge (corner for keystone).
    static func tolerance(_ kind: String, _ truth: Double, _ s: SyntheticStereo) -> Double {
        let f = Double(s.width) / 2 / tan(s.hfovDegrees * Double.pi / 360)
        let px: Double
        switch kind {
        case "vertical-offset", "divergence": px = 0.2
        case "roll": px = atan(0.2 / (Double(s.width) / 2)) * 180 / Double.pi
        case "vertical-scale": px = 0.2 / (Double(s.height) / 2) * 100
        case "keystone", "toe-in", "toe-out":
            px = 0.2 * f / (Double(s.width) / 2 * Double(s.height) / 2) * 180 / Double.pi
        default: px = 0.2
        }
        return max(0.1 * abs(truth), px)
    }

    static func run(_ c: Case) -> Outcome {
        let start = ContinuousClock.now
        let s = scene(c)
        var (l, r) = s.render()
        if let c0 = c.faults.first(where: { $0.kind == "crop" }).map({ Int($0.magnitude) }),
            let cl = crop(l, (c0, 0, c.width, c.height)), let cr = crop(r, (2 * c0, 0, c.width, c.height))
        {
            (l, r) = (cl, cr)
        }
        var lc: (cb: Double, cr: Double)? = (128, 128), rc: (cb: Double, cr: Double)? = (128, 128)
        for f in c.faults {
            switch f.kind {
            case "swapped-eyes": swap(&l, &r)
            case "brightness":
                r =
                    GrayImage(
                        width: r.width, height: r.height,
                        pixels: r.pixels.map { min(255, max(0, $0 + Float(f.magnitude))) }) ?? r
            case "colour": rc = (128 + f.magnitude, 128)
            case "sharpness": r = r.boxBlurred(radius: Int(f.magnitude))
            default: break
            }
        }
        // The file's own field of view: the crop cases carry the cropped eye's.
        // The window where a fault-free file of this scene has it: just in front of its nearest box (1.6 m), as
        // `--auto-disparity` would set it; window findings then speak of what the injected faults moved.
        let nearest = s.focal * s.baselineMetres / 1.6
        let window = Int32((AutoDisparity.percent(nearDisparity: nearest, width: c.width) * 100).rounded())
        var known = s.known(disparity: window, withBaseline: true)
        known.horizontalFieldOfViewMillidegrees = UInt32(
            (2 * atan(Double(c.width) / 2 / s.focal) * 180 / Double.pi * 1000).rounded())
        let d = GeometryDiagnosis.diagnose(
            left: l, right: r, stereo: known, asSpatial: true, leftChroma: lc, rightChroma: rc)
        let kinds = d.faults.filter { $0.severity >= .warning }.map(\.kind)
        let primary = kinds.first ?? "none"
        let injected = c.faults.map { diagnosis($0.kind) }
        var mags: [(String, Double, Double?, Bool)] = []
        for f in c.faults {
            guard let t = truth(f, s) else { continue }
            let measured = d.faults.first { $0.kind == diagnosis(f.kind) }?.value
            mags.append((f.kind, t, measured, measured.map { abs($0 - t) <= tolerance(f.kind, t, s) } ?? false))
            if f.kind == "crop" || f.kind == "shift" {
                mags[mags.count - 1].3 = measured.map { abs($0 - t) <= max(0.2, 0.1 * abs(t)) } ?? false
            }
        }
        let right =
            injected.isEmpty ? kinds.isEmpty : injected.contains(primary) && injected.allSatisfy { kinds.contains($0) }
        let errors = d.faults.filter { $0.severity == .error && !injected.contains($0.kind) }.map(\.kind)
        let severities = d.faults.filter { $0.severity >= .warning }.map {
            "\($0.ruleID) \($0.severity == .error ? "ERROR" : "warning")"
        }
        // Residual after --align, measured again by our own analyser on the rectified pair.
        var resMed: Double?, resP95: Double?
        if let m = d.result.measurement, let rect = m.rectification, injected.contains(where: { fixable.contains($0) }),
            !injected.contains("swapped-eyes")
        {
            let a = PairAlignment.plan(m, rect)
            let al = StereoWarp.warp(l, a.leftHomography), ar = StereoWarp.warp(r, a.rightHomography)
            if let cl = crop(al, a.crop), let cr = crop(ar, a.crop),
                let m2 = StereoAnalyzer.analyze(left: cl, right: cr).measurement
            {
                resMed = m2.medianAbsDy; resP95 = m2.p95AbsDy
                // For the independent check (Benchmarks/sweep_opencv_check.py): the aligned eyes as PGM files.
                if let dir = getenv("SPATIAL_SWEEP_DUMP").map({ String(cString: $0) }) {
                    let base =
                        dir + "/" + c.name.map { $0.isLetter || $0.isNumber ? $0 : "_" }.reduce("") { $0 + String($1) }
                    writePGM(cl, base + "-L.pgm"); writePGM(cr, base + "-R.pgm")
                }
            }
        }
        return Outcome(
            name: c.name, injected: injected, primary: primary, found: kinds, severities: severities, errors: errors,
            magnitudes: mags, primaryRight: right,
            residualMedian: resMed, residualP95: resP95, seconds: Self.seconds(ContinuousClock.now - start))
    }

    static func crop(_ g: GrayImage, _ c: (x: Int, y: Int, width: Int, height: Int)) -> GrayImage? {
        GrayImage(width: c.width, height: c.height, pixels: StereoWarp.cropPlane(g.pixels, width: g.width, crop: c))
    }

    static func writePGM(_ g: GrayImage, _ path: String) {
        guard let fp = fopen(path, "wb") else {
            Issue.record("cannot write \(path)")
            return
        }
        let header = Array("P5\n\(g.width) \(g.height)\n255\n".utf8)
        let body = g.bytes
        _ = header.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, fp) }
        _ = body.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, fp) }
        fclose(fp)
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    static let magnitudes: [String: [Double]] = [
        "vertical-offset": [3, 6, 12], "roll": [0.4, 0.8, 1.6], "vertical-scale": [0.8, 1.6, 3.0],
        "keystone": [-3, -5, 4], "divergence": [5, 10, 20], "swapped-eyes": [1, 2, 3],
        "brightness": [16, 24, 40], "colour": [6, 10, 16], "sharpness": [2, 3, 4],
    ]
    static let order = [
        "vertical-offset", "roll", "vertical-scale", "keystone", "divergence", "swapped-eyes", "brightness", "colour",
        "sharpness",
    ]
    static let pairs: [(String, String)] = [
        ("vertical-offset", "roll"), ("roll", "vertical-scale"), ("vertical-scale", "vertical-offset"),
        ("keystone", "vertical-offset"),
        ("roll", "brightness"), ("divergence", "roll"), ("swapped-eyes", "brightness"),
        ("sharpness", "vertical-offset"),
        ("keystone", "roll"), ("divergence", "colour"),
    ]

    /// Issue 31's everyday magnitudes, at 1280×960 as reported: toe-in/out (°), horizontal shift into the room and
    /// off-centre crop of one eye (px), each alone and with a vertical offset of 8 px (0.83 % of H).
    static let everyday: [(String, [Double])] = [
        ("toe-in", [0.5, 1, 2]), ("toe-out", [0.5, 1, 2]), ("shift", [10, 20, 40]), ("crop", [30, 60]),
    ]

    static func everydayCases() -> [Case] {
        var out: [Case] = []
        for seed: UInt64 in [3, 5] { out.append(Case(faults: [], seed: seed, width: 1280, height: 960)) }
        for (k, ms) in everyday {
            for m in ms {
                out.append(Case(faults: [Fault(kind: k, magnitude: m)], width: 1280, height: 960))
                out.append(
                    Case(
                        faults: [Fault(kind: k, magnitude: m), Fault(kind: "vertical-offset", magnitude: 8)], seed: 7,
                        width: 1280, height: 960))
            }
        }
        return out
    }

    static func cases(full: Bool) -> [Case] {
        guard full else {
            // The suite's subset: fault-free, one swapped pair, one pair of faults, a 2° toe-in and a 30 px
            // off-centre crop with a vertical offset (seconds, not minutes).
            return [
                Case(faults: []), Case(faults: [Fault(kind: "swapped-eyes", magnitude: 1)]),
                Case(
                    faults: [Fault(kind: "vertical-offset", magnitude: 6), Fault(kind: "roll", magnitude: 0.8)], seed: 7
                ),
                Case(faults: [Fault(kind: "toe-in", magnitude: 2)]),
                Case(
                    faults: [Fault(kind: "crop", magnitude: 30), Fault(kind: "vertical-offset", magnitude: 6)],
                    seed: 7),
            ]
        }
        var out: [Case] = []
        for seed: UInt64 in [3, 5, 9] { out.append(Case(faults: [], seed: seed)) }
        for k in order {
            for (i, m) in (magnitudes[k] ?? []).enumerated() {
                out.append(
                    Case(
                        faults: [Fault(kind: k, magnitude: k == "swapped-eyes" ? 1 : m)],
                        seed: k == "swapped-eyes" ? UInt64(3 + 2 * i) : 3))
            }
        }
        for (a, b) in pairs {
            out.append(
                Case(
                    faults: [
                        Fault(kind: a, magnitude: magnitudes[a]?[1] ?? 1),
                        Fault(kind: b, magnitude: magnitudes[b]?[1] ?? 1),
                    ], seed: 7))
        }
        return out + everydayCases()
    }

    static func table(_ outcomes: [Outcome]) -> String {
        func f(_ v: Double?) -> String { v.map { NumberText.fixed($0, places: 2) } ?? "—" }
        var t =
            "| case | primary diagnosis | all warnings/errors (rule, severity) | magnitudes: truth → measured | residual |dy| after align: median / p95 px | s |\n|---|---|---|---|---|---|\n"
        for o in outcomes {
            let mags = o.magnitudes.map { "\($0.kind) \(f($0.truth)) → \(f($0.measured))\($0.ok ? "" : " ✗")" }.joined(
                separator: "; ")
            t +=
                "| \(o.name) | \(o.primary)\(o.primaryRight ? "" : " ✗") | \(zip(o.found, o.severities).map { "\($0) (\($1))" }.joined(separator: ", ")) | \(mags) | \(f(o.residualMedian)) / \(f(o.residualP95)) | \(NumberText.fixed(o.seconds, places: 2)) |\n"
        }
        let right = outcomes.filter(\.primaryRight).count
        let mags = outcomes.flatMap(\.magnitudes), magOK = mags.filter(\.ok).count
        let res: [(Double, Double)] = outcomes.compactMap { (o: Outcome) -> (Double, Double)? in
            guard let a = o.residualMedian else { return nil }; return (a, o.residualP95 ?? 99)
        }
        let resOK = res.filter { $0.0 <= 0.2 && $0.1 <= 0.5 }.count
        let falseErrors = outcomes.filter { !$0.errors.isEmpty }.count
        let n = outcomes.count
        let pct: String = NumberText.fixed(Double(right) / Double(max(1, n)) * 100, places: 1)
        let line1: String =
            "\nPrimary diagnosis right: \(right)/\(n) (\(pct)%); magnitudes within 10 % or 0.2 px: \(magOK)/\(mags.count); "
        let line2: String =
            "aligned pairs within 0.2 px median and 0.5 px p95: \(resOK)/\(res.count); cases with an ERROR for a fault not injected: \(falseErrors)\n"
        t += line1
        t += line2
        return t
    }
}

@Suite("Geometry sweep")
struct GeometrySweepTests {
    @Test func sweep() {
        let full = getenv("SPATIAL_SWEEP").map { String(cString: $0) } == "full"
        let outcomes = GeometrySweep.cases(full: full).map(GeometrySweep.run)
        let table = GeometrySweep.table(outcomes)
        print(table)
        if let path = getenv("SPATIAL_SWEEP_OUT").map({ String(cString: $0) }) {
            if let fp = fopen(path, "w") { fputs(table, fp); fclose(fp) }
        }
        let right = outcomes.filter(\.primaryRight).count
        #expect(
            Double(right) >= 0.95 * Double(outcomes.count), "primary diagnosis right in \(right) of \(outcomes.count)")
        for o in outcomes {
            #expect(o.errors.isEmpty, "\(o.name): ERROR for a fault not injected: \(o.errors)")
            for m in o.magnitudes {
                #expect(m.ok, "\(o.name): \(m.kind) truth \(m.truth), measured \(String(describing: m.measured))")
            }
            if let med = o.residualMedian, let p95 = o.residualP95 {
                #expect(med <= 0.2 && p95 <= 0.5, "\(o.name): residual after align \(med) / \(p95) px")
            }
        }
    }
}
