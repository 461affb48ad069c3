import ImageFormats
import SpatialMedia
import StereoVision

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Thresholds of the pixel rules (documented with their rationale in Specs/validation.md).
public enum GeometryThresholds {
    /// Vertical disparity at the image centre, % of the height. The warning thresholds of the faults `--align` removes
    /// are ``/StereoVision/AlignmentTolerance`` (below them `--align` leaves a pair untouched).
    public static let offsetWarnPercent = AlignmentTolerance.verticalOffsetPercent, offsetErrorPercent = 1.0
    /// Vertical disparity left after the fitted field is removed (lens distortion, rolling shutter), % of the height.
    public static let residualP95WarnPercent = 1.0
    public static let rollWarnDegrees = AlignmentTolerance.rollDegrees, rollErrorDegrees = 1.0
    public static let scaleWarnPercent = AlignmentTolerance.scalePercent, scaleErrorPercent = 1.5
    /// Toe-in / toe-out between the camera axes (the rectification's yaw), degrees: a warning from here (Apple's
    /// spatial format wants parallel axes; 0.5° of toe moves infinity by 0.5° of viewing angle, half of the ±1°
    /// comfort zone). The keystone's vertical disparity at the corners makes it an error above
    /// ``keystoneErrorPercent``; a toe-in also becomes an error when the divergence it causes crosses
    /// ``divergenceErrorDegrees``.
    public static let toeWarnDegrees = AlignmentTolerance.toeDegrees
    /// Keystone at the corners, % of the height (≈ 0.5 % per degree of toe-in at 60° HFOV): an error above this.
    public static let keystoneErrorPercent = 3.0
    /// Far content beyond infinity as the viewer sees it, degrees of divergence.
    public static let divergenceWarnDegrees = AlignmentTolerance.divergenceDegrees, divergenceErrorDegrees = 0.25
    /// Far field (rectified, toe removed) in front of infinity by more than this share of the width, %: the pixels
    /// cannot tell a shifted pair / off-centre crop from a scene with nothing far away (SV-GEOM-016).
    public static let shiftedWarnPercent = 0.5
    /// Swapped eyes are offered (without occlusion evidence) only when the swapped pair's far field would put the
    /// whole scene at least this far away, metres; otherwise a shift beyond infinity is the simpler reading.
    public static let swappedSceneMinMetres = 1.0
    /// Baseline assumed for the "nothing farther than N m" reading when the input states none, millimetres.
    public static let assumedBaselineMillimetres = 64.0
    /// Share of matched content in front of the window above which the window is misplaced.
    public static let inFrontWarnFraction = 0.75
    /// Content in front of the window within this share of the width from the left/right edge is a window violation.
    public static let windowEdgeFraction = 0.05
    public static let swappedNegativeFraction = 0.85
    public static let noDepthPixels = 0.5
    public static let brightnessWarnLevels = 12.75  // 5 % of 255
    public static let contrastWarnRatio = 1.2
    public static let chromaWarnLevels = 4.0
    /// Sharpness ratio between the eyes (contrast-normalised mean gradient).
    public static let sharpnessWarnRatio = 1.25
    /// Below this confidence nothing but "cannot measure reliably" is reported.
    public static let lowConfidence = 0.3
    /// Field of view assumed for angles when the input carries none (degrees).
    public static let assumedHFOV = 60.0
}

/// One diagnosed cause with its measured value (the sweep and the convert warning read these).
public struct GeometryFault: Sendable, Equatable {
    /// `vertical-offset`, `roll`, `vertical-scale`, `keystone`, `swapped-eyes`, `divergence`, `shifted`, `window`,
    /// `in-front`, `brightness`, `colour`, `sharpness`, `residual`, `no-depth`, `unreliable`.
    public var kind: String
    public var ruleID: String
    public var severity: Severity
    /// The measured value in `unit`.
    public var value: Double
    public var unit: String
    /// How far past its warning threshold (1 = at the threshold): ranks causes.
    public var weight: Double
    /// Fixable by `--align` (rectification) / `--auto-disparity`.
    public var fixedByAlign: Bool
    public var fixedByAutoDisparity: Bool
}

/// The causes and findings of one pair while it is diagnosed.
struct DiagnosisLog {
    var faults: [GeometryFault] = []
    var findings: [Finding] = []
    /// For each fault, the index in ``findings`` of the finding that reports it.
    var findingOfFault: [Int] = []
    let at: String
    /// The commands the findings name as fixes, for the kind of file diagnosed.
    var fix = FixAdvice(spatialPhoto: false)

    mutating func add(
        _ kind: String, _ id: String, _ sev: Severity, _ value: Double, _ unit: String, _ weight: Double,
        align: Bool = false, auto: Bool = false, _ message: String
    ) {
        faults.append(
            GeometryFault(
                kind: kind, ruleID: id, severity: sev, value: value, unit: unit, weight: weight, fixedByAlign: align,
                fixedByAutoDisparity: auto))
        findingOfFault.append(findings.count)
        findings.append(Finding(id, sev, message, at: at))
    }
    mutating func info(_ id: String, _ message: String) { findings.append(Finding(id, .info, message, at: at)) }
}

/// The commands a finding names as its fix. A spatial photo is fixed as it is: `align` rectifies it, `edit` sets its
/// window without re-encoding. A source (a packed image, an MPO, a pair, a video) is fixed while `convert` makes the
/// spatial file. (`convert` of a spatial photo re-makes it from both eyes too, but re-encodes where `edit` need not.)
struct FixAdvice {
    let spatialPhoto: Bool
    /// Rectification (`--align`).
    var align: String {
        spatialPhoto
            ? "`spatial-media align FILE -o OUT`"
            : "`spatial-media convert --align` (new files) or `spatial-media align FILE -o OUT` (spatial photos)"
    }
    /// Rectification that also re-centres the far field, then the window set from the measurement.
    var alignThenWindow: String {
        spatialPhoto
            ? "`spatial-media align FILE -o OUT --auto-disparity` (re-centres the far field at 0 px and sets the window)"
            : "`spatial-media convert --align` (re-centres the far field at 0 px) and set the window with `--auto-disparity`"
    }
    /// Setting the window in front of the nearest content, `choice` being the measured one (and the sentence
    /// reporting its cap, if the comfort bounds capped it).
    func window(_ choice: (percent: Double, cap: String?)) -> String {
        window(percent: choice.percent) + (choice.cap.map { " — \($0)" } ?? "")
    }
    /// Setting the window in front of the nearest content, `percent` being the measured choice.
    func window(percent: Double) -> String {
        spatialPhoto
            ? "`spatial-media edit FILE --disparity \(Fmt.num(percent, 2))` (no re-encoding) or `spatial-media align FILE -o OUT --auto-disparity`"
            : "`spatial-media convert --auto-disparity` (measures it) or `--disparity \(Fmt.num(percent, 2))`"
    }
    /// Swapping the eyes.
    var swapEyes: String {
        spatialPhoto
            ? "`spatial-media convert FILE -o OUT --swap-eyes` (re-makes the photo from both eyes)"
            : "`spatial-media convert --swap-eyes`"
    }
}

/// Pixels → viewing angle for one pair (the file's field of view, or the assumed one).
struct ViewAngles {
    let focal: Double
    /// The field of view the angles use, degrees.
    let hfov: Double
    /// Appended to messages whose angles use the assumed field of view.
    let note: String
    init(width: Double, hfov given: Double?) {
        hfov = given ?? GeometryThresholds.assumedHFOV
        focal = width / 2 / tan(hfov * Double.pi / 360)
        note = given == nil ? " (angles assume a \(Fmt.num(GeometryThresholds.assumedHFOV, 0))° field of view)" : ""
    }
    func deg(_ px: Double) -> Double { atan(px / focal) * 180 / Double.pi }
    func arc(_ px: Double) -> String { ", \(Fmt.num(deg(px) * 60, 1)) arcmin" }
}

enum GeometryRules {
    typealias T = GeometryThresholds

    /// The causes found on one pair, strongest first, and the findings that report them.
    static func diagnose(_ result: StereoAnalysisResult, pixels: EyePixels, facts: StereoFacts, label at: String) -> (
        [GeometryFault], [Finding]
    ) {
        var d = DiagnosisLog(at: at)
        d.fix = FixAdvice(spatialPhoto: facts.spatialPhoto)
        // Brightness / colour first: they do not need matches.
        photometric(pixels, &d)
        guard let m = result.measurement else {
            d.add(
                "unreliable", "SV-GEOM-011", .warning, 0, "", 0,
                "cannot measure the stereo geometry: \(result.failure ?? "unknown reason")")
            return (d.faults, d.findings)
        }
        for n in pixels.notes + m.notes { d.info("SV-GEOM-012", n) }
        let angles = ViewAngles(
            width: Double(m.width), hfov: facts.stereo.horizontalFieldOfViewDegrees ?? m.hfovDegrees)
        // Sharpness does not need a reliable geometry either.
        sharpness(m, &d)
        // Below the confidence floor: one finding, no fixes, no errors.
        if m.confidence < T.lowConfidence {
            let agree =
                "only \(m.matches.count) matches agree (confidence \(Fmt.num(m.confidence)), \(Fmt.num(m.coverage * 100, 0))% of the frame covered)"
            d.add(
                "unreliable", "SV-GEOM-013", .warning, m.confidence, "", 0,
                pixels.fromOnePicture
                    ? "cannot measure reliably — wrong layout? O\(agree.dropFirst()); if the input packs the eyes differently, give `--layout sbs` or `--layout tb`; swapping the eyes would not change it (the measurement is symmetric); no geometry verdict is given"
                    : "cannot measure reliably: \(agree); the views may show different scenes or too little texture to match (they were decoded apart, so the layout is not the cause); no geometry verdict is given"
            )
            d.info(
                "SV-GEOM-012",
                "measured (unreliable): \(m.matches.count) inliers of \(m.refinedMatches) matches, confidence \(Fmt.num(m.confidence))"
            )
            return (d.faults, d.findings)
        }
        let range = m.rectifiedNear - m.rectifiedFar
        if range < T.noDepthPixels && m.medianAbsDy < 0.25 && abs(m.rectifiedMedian) < 0.5 {
            d.add(
                "no-depth", "SV-GEOM-008", .error, range, "px", 10,
                "the eyes show no depth: horizontal disparity spans only \(Fmt.num(range)) px — both eyes carry the same picture (2D); convert from a real stereo source"
            )
        }
        let offset = alignable(m, angles, &d)
        toe(m, angles, &d)
        let order = eyeOrder(m, facts, angles, range: range, &d)
        if !order.swapped {
            divergence(m, facts, angles, maybeSwapped: order.maybeSwapped, &d)
            window(m, facts, angles, &d)
        }
        summary(m, facts, angles, offset: offset, &d)
        d.faults.sort { $0.severity != $1.severity ? $0.severity > $1.severity : $0.weight > $1.weight }
        return (d.faults, d.findings)
    }

    /// SV-GEOM-009 brightness/contrast and SV-GEOM-010 colour differences between the eyes.
    static func photometric(_ pixels: EyePixels, _ d: inout DiagnosisLog) {
        let ls = pixels.left.meanAndDeviation, rs = pixels.right.meanAndDeviation
        let dMean = rs.mean - ls.mean
        if abs(dMean) > T.brightnessWarnLevels {
            d.add(
                "brightness", "SV-GEOM-009", .warning, dMean, "levels", abs(dMean) / T.brightnessWarnLevels,
                "mean brightness differs between the eyes: left \(Fmt.num(ls.mean, 1)), right \(Fmt.num(rs.mean, 1)) (of 255; right − left \(Fmt.num(dMean, 1))); match the exposure of the eyes in the source (not fixable by spatial-media)"
            )
        } else if max(ls.deviation, rs.deviation) / max(1, min(ls.deviation, rs.deviation)) > T.contrastWarnRatio {
            let r = max(ls.deviation, rs.deviation) / max(1, min(ls.deviation, rs.deviation))
            d.add(
                "brightness", "SV-GEOM-009", .warning, r, "ratio", r / T.contrastWarnRatio,
                "contrast differs between the eyes: luma deviation \(Fmt.num(ls.deviation, 1)) vs \(Fmt.num(rs.deviation, 1)); match the grading of the eyes in the source"
            )
        }
        if let a = pixels.leftChroma, let b = pixels.rightChroma,
            max(abs(a.cb - b.cb), abs(a.cr - b.cr)) > T.chromaWarnLevels
        {
            let c = max(abs(a.cb - b.cb), abs(a.cr - b.cr))
            d.add(
                "colour", "SV-GEOM-010", .warning, c, "levels", c / T.chromaWarnLevels,
                "colour differs between the eyes: mean Cb/Cr \(Fmt.num(a.cb, 1))/\(Fmt.num(a.cr, 1)) vs \(Fmt.num(b.cb, 1))/\(Fmt.num(b.cr, 1)); match the white balance of the eyes in the source"
            )
        }
    }

    /// SV-GEOM-018: one eye softer than the other.
    static func sharpness(_ m: StereoMeasurement, _ d: inout DiagnosisLog) {
        guard m.sharpnessLeft > 0, m.sharpnessRight > 0 else { return }
        let r = max(m.sharpnessLeft, m.sharpnessRight) / min(m.sharpnessLeft, m.sharpnessRight)
        guard r > T.sharpnessWarnRatio else { return }
        let blurred = m.sharpnessLeft < m.sharpnessRight ? "left" : "right"
        d.add(
            "sharpness", "SV-GEOM-018", .warning, r, "ratio", (r - 1) / (T.sharpnessWarnRatio - 1),
            "the \(blurred) eye is softer: contrast-normalised detail \(Fmt.num(m.sharpnessLeft, 3)) (left) vs \(Fmt.num(m.sharpnessRight, 3)) (right), ratio \(Fmt.num(r)); check focus, lens and encoder settings of that eye (not fixable by spatial-media)"
        )
    }

    /// What `--align` removes: SV-GEOM-001 vertical offset, 003 roll, 004 vertical scale, 005 keystone; and what it
    /// cannot, SV-GEOM-002 residual vertical disparity. Returns the vertical offset at the centre.
    static func alignable(_ m: StereoMeasurement, _ a: ViewAngles, _ d: inout DiagnosisLog) -> Double {
        let H = Double(m.height), W = Double(m.width)
        let offset = m.rectification?.centreVerticalOffset ?? m.model.predict(x: m.model.cx, y: m.model.cy)
        let offPct = abs(offset) / H * 100
        if offPct > T.offsetWarnPercent {
            d.add(
                "vertical-offset", "SV-GEOM-001", offPct > T.offsetErrorPercent ? .error : .warning, offset, "px",
                offPct / T.offsetWarnPercent, align: true,
                "vertical offset: the right eye's picture sits \(Fmt.num(abs(offset))) px \(offset > 0 ? "lower" : "higher") than the left at the centre (\(Fmt.num(offPct))% of the height\(a.arc(abs(offset))))\(a.note); fix: \(d.fix.align)"
            )
        }
        if let r = m.rectification {
            let roll = r.contentRotationDegrees
            if abs(roll) > T.rollWarnDegrees {
                let edge = abs(tan(r.roll)) * W / 2
                d.add(
                    "roll", "SV-GEOM-003", abs(roll) > T.rollErrorDegrees ? .error : .warning, roll, "°",
                    abs(roll) / T.rollWarnDegrees, align: true,
                    "roll: the right eye's picture is rotated \(Fmt.num(abs(roll), 3))° \(roll > 0 ? "clockwise" : "anticlockwise") relative to the left (\(Fmt.num(edge)) px vertical error at the side edges); fix: \(d.fix.align)"
                )
            }
            let sc = r.scale * 100
            if abs(sc) > T.scaleWarnPercent {
                d.add(
                    "vertical-scale", "SV-GEOM-004", abs(sc) > T.scaleErrorPercent ? .error : .warning, sc, "%",
                    abs(sc) / T.scaleWarnPercent, align: true,
                    "focal mismatch: the right eye's picture is \(Fmt.num(abs(sc)))% \(sc > 0 ? "larger" : "smaller") (\(Fmt.num(abs(r.scale) * H / 2)) px vertical error at the top/bottom edges); fix: \(d.fix.align)"
                )
            }
        }
        let resPct = m.rectifiedP95AbsDy / H * 100
        if resPct > T.residualP95WarnPercent {
            d.add(
                "residual", "SV-GEOM-002", .warning, m.rectifiedP95AbsDy, "px", resPct / T.residualP95WarnPercent,
                "95th percentile vertical disparity left after removing the fitted roll/scale/keystone field: \(Fmt.num(m.rectifiedP95AbsDy)) px (\(Fmt.num(resPct))% of the height): lens distortion differs between the eyes or rolling shutter; `--align` cannot remove it — undistort the eyes in the source"
            )
        }
        return offset
    }

    /// SV-GEOM-005: toe-in / toe-out between the camera axes, judged in degrees of yaw, and the divergence a toe-in
    /// causes as the viewer sees it: the toe moves infinity by `f·tan(yaw)` pixels, on top of the far field the
    /// scene itself has (a far field already beyond infinity is SV-GEOM-006's, so it does not count here).
    static func toe(_ m: StereoMeasurement, _ a: ViewAngles, _ d: inout DiagnosisLog) {
        guard let r = m.rectification else { return }
        let H = Double(m.height)
        let yaw = r.yawDegrees, ks = abs(r.keystoneCornerPixels) / H * 100
        let shift = r.centreHorizontalShift
        let shownFar = max(0, m.rectifiedFar) + shift
        let toeDivergence = a.deg(-shownFar)
        let diverges = yaw < 0 && toeDivergence > T.divergenceErrorDegrees
        // Judged as reported, to 0.01°: "from 0.5°" includes a measured 0.499°.
        guard (abs(yaw) * 100).rounded() / 100 >= T.toeWarnDegrees || diverges else { return }
        let error = ks > T.keystoneErrorPercent || diverges
        let kind = yaw < 0 ? "toe-in (converged cameras)" : "toe-out (diverging camera axes)"
        let effect =
            yaw < 0
            ? (toeDivergence > 0
                ? "as shown the far field lies \(Fmt.num(-shownFar, 1)) px beyond infinity: the eyes diverge by \(Fmt.num(toeDivergence, 2))°\(diverges ? " (more than the \(Fmt.num(T.divergenceErrorDegrees, 2))° the divergence rule allows)" : "")"
                : "the scene's far field is near enough to absorb it (far field as shown \(Fmt.num(shownFar, 1)) px)")
            : "it pulls the whole scene \(Fmt.num(a.deg(shift), 2))° forward (infinity shown \(Fmt.num(shift, 1)) px in front of where it belongs)"
        d.add(
            "keystone", "SV-GEOM-005", error ? .error : .warning, yaw, "°",
            max(abs(yaw) / T.toeWarnDegrees, toeDivergence / T.divergenceWarnDegrees) + (error ? 1 : 0), align: true,
            "\(kind) of \(Fmt.num(abs(yaw), 2))° between the camera axes\(a.note) (Apple's spatial format wants parallel axes; keystone \(Fmt.num(abs(r.keystoneCornerPixels))) px at the corners, \(Fmt.num(ks))% of the height); the toe moves infinity by \(Fmt.num(abs(shift), 1)) px (\(Fmt.num(a.deg(abs(shift)), 2))°): \(effect); \(radialText(r)); fix: \(d.fix.align) (rectifies to parallel axes)"
        )
    }

    /// Which explains the bow-tie vertical disparity, toe or lens distortion, and how sure the fit is (issue 41):
    /// the radial term fitted alongside the rotation, its standard error, and the yaw a fit without it reads.
    static func radialText(_ r: RectificationModel) -> String {
        let yaw = abs(r.yawDegrees), sigma = r.yawError > 0 ? " ± \(Fmt.num(r.yawError, 2))°" : ""
        guard let free = r.distortionFreeYawDegrees else {
            return r.radialK1Error > 0
                ? "a radial distortion term fitted alongside (±\(Fmt.num(r.radialK1Error, 3)), the same in both eyes) "
                    + "does not clearly explain the vertical disparity: the \(Fmt.num(yaw, 2))°\(sigma) is read as toe"
                : "measured as toe\(sigma.isEmpty ? "" : " (\(sigma.dropFirst(1)))")"
        }
        let k = "radial k1 \(Fmt.num(r.radialK1, 3)) ± \(Fmt.num(r.radialK1Error, 3))"
        let with = "\(Fmt.num(yaw, 2))°\(sigma)", without = Fmt.num(abs(free), 2)
        return "lens distortion fitted alongside (\(k), the same in both eyes): the toe is \(with) with it, "
            + "\(without)° without it, so distortion accounts for \(Fmt.num(abs(free) - yaw, 2))°"
    }

    /// SV-GEOM-007: eye order from occlusion evidence together with disparity. Without occlusion evidence, swapped eyes
    /// are offered only when swapping alone gives a plausible pair (the nearest end of the disparity, where a swapped
    /// pair's far field lands, neither beyond infinity nor nearer than ``GeometryThresholds/swappedSceneMinMetres``);
    /// otherwise the pair is shifted beyond infinity (divergence, SV-GEOM-006), and `--swap-eyes` would not fix it.
    static func eyeOrder(
        _ m: StereoMeasurement, _ facts: StereoFacts, _ a: ViewAngles, range: Double, _ d: inout DiagnosisLog
    ) -> (swapped: Bool, maybeSwapped: Bool) {
        let occ = m.occlusion
        let negative = m.rectifiedFractionNegative
        // Evidence in proportion to the claim: a scene a few pixels deep, or strips decided by coding noise, give no
        // verdict either way — neither from the occlusions nor from the sign of the disparity, which noise decides
        // as well there (issue 41: a nearly flat room encoded at a fast preset was called swapped).
        if let o = occ, let why = o.weakness, o.verdict != .inconclusive || negative >= T.swappedNegativeFraction {
            d.info(
                "SV-GEOM-007",
                "no eye-order verdict: \(why) (half-occlusions \(o.consistent) strips as labelled, "
                    + "\(o.swapped) swapped; " + "\(Fmt.num(negative * 100, 0))% of matches with negative disparity)")
            return (false, false)
        }
        if let o = occ, m.eyeOrderVerdict == .swapped {
            d.add(
                "swapped-eyes", "SV-GEOM-007", .error, o.swappedFraction, "", 20,
                "the eyes are swapped: beside depth steps the picture labelled left sees what the right eye should (\(o.swapped) of \(o.swapped + o.consistent) half-occluded strips), and \(Fmt.num(negative * 100, 0))% of matches have negative disparity; fix: \(d.fix.swapEyes)"
            )
            return (true, false)
        }
        let near = m.rectifiedNear
        // Swapped, the far field would be −near: not beyond infinity (SV-GEOM-006), and not so far in front that the
        // whole scene would lie nearer than 1 m (baseline stated, else assumed) — a shift is the simpler reading then.
        let baseline = facts.stereo.baselineMillimetres.flatMap { $0 > 0 ? $0 : nil } ?? T.assumedBaselineMillimetres
        let swappedNearestFar = near < -0.5 ? a.focal * baseline / 1000 / -near : .infinity
        let swapAloneCentres = a.deg(near) <= T.divergenceWarnDegrees && swappedNearestFar >= T.swappedSceneMinMetres
        if negative >= T.swappedNegativeFraction && range >= T.noDepthPixels
            && (occ?.verdict ?? .inconclusive) == .inconclusive && swapAloneCentres
        {
            d.add(
                "swapped-eyes", "SV-GEOM-007", .warning, negative, "", 1,
                "\(Fmt.num(negative * 100, 0))% of matches have negative disparity, the nearest end lies at \(Fmt.num(near)) px (where a swapped pair's far field lands) and the occlusions do not tell the eye order (\(occ.map { "\($0.swapped) swapped vs \($0.consistent) as labelled" } ?? "not tested")): either the eyes are swapped (\(d.fix.swapEyes)) or the pair is shifted so all content sits \(Fmt.num(-m.rectifiedFar, 1)) px beyond infinity (\(d.fix.alignThenWindow))"
            )
            return (false, true)
        }
        return (false, false)
    }

    /// SV-GEOM-006 divergence and SV-GEOM-016 shifted pair: the far field after rectification (the toe's part is
    /// SV-GEOM-005's), in viewing angle; infinity is disparity 0 for an optically centred pair, whatever the window.
    static func divergence(
        _ m: StereoMeasurement, _ facts: StereoFacts, _ a: ViewAngles, maybeSwapped: Bool, _ d: inout DiagnosisLog
    ) {
        let W = Double(m.width)
        let divDeg = a.deg(-m.rectifiedFar)
        if divDeg > T.divergenceWarnDegrees && !maybeSwapped {
            // What the viewer sees: the toe's shift of infinity (SV-GEOM-005) added back. A toe-out that pulls the
            // scene forward can hide a shift: then the eyes do not diverge as shown, and this is a warning about what
            // `--align` (which removes the toe) would expose.
            let toe = d.faults.contains { $0.kind == "keystone" } ? m.rectification?.centreHorizontalShift ?? 0 : 0
            let shownFar = m.rectifiedFar + toe, shownDeg = a.deg(-shownFar)
            let error = divDeg > T.divergenceErrorDegrees && shownDeg > T.divergenceErrorDegrees
            let shown =
                toe == 0
                ? ""
                : shownFar < 0
                    ? "; with the toe of SV-GEOM-005 the far field is shown \(Fmt.num(-shownFar, 1)) px (\(Fmt.num(shownDeg, 2))°) beyond infinity"
                    : "; the toe-out of SV-GEOM-005 pulls it forward, so as shown the far field lies \(Fmt.num(shownFar, 1)) px in front of infinity (no divergence now; removing the toe alone would expose it)"
            d.add(
                "divergence", "SV-GEOM-006", error ? .error : .warning, m.rectifiedFar, "px",
                divDeg / T.divergenceWarnDegrees, align: true,
                "far content lies beyond infinity: after rectification the far field has disparity \(Fmt.num(m.rectifiedFar)) px (\(Fmt.num(divDeg, 2))° of divergence\(a.note); the rule allows \(Fmt.num(T.divergenceWarnDegrees, 2))°, \(Fmt.num(T.divergenceErrorDegrees, 2))° as shown is an error)\(shown) — the right eye was shifted \(Fmt.num(-m.rectifiedFar, 1)) px right or cropped off-centre, which moves its centre off the optical axis; not fixed by swapping the eyes; fix: \(d.fix.alignThenWindow), not by shifting pixels"
            )
            return
        }
        // Judged against the window when the stated disparity adjustment is the undo of a shift: it presents the far
        // field at the window (within the tolerance), as a `--disparity` given for a shifted pair does (issue 31), so
        // only what stays in front of the window is ambiguous. An adjustment that puts the window further forward than
        // that (one chosen for the near content, as `--auto-disparity` chooses it) undoes no shift: the far field is
        // judged against infinity (issue 41), so a far field that `--align` left in front is not hidden behind it.
        let statedPx = max(0, SpatialUnits.fraction(fromDisparityUnits: facts.stereo.disparityAdjustment ?? 0) * W)
        let undo = m.rectifiedFar - statedPx >= -T.shiftedWarnPercent / 100 * W
        let windowPx = undo ? statedPx : 0
        let ahead = m.rectifiedFar - windowPx
        let pct = ahead / W * 100
        guard !maybeSwapped, pct > T.shiftedWarnPercent else { return }
        let stated = facts.stereo.baselineMillimetres.flatMap { $0 > 0 ? $0 : nil }
        let b = stated ?? T.assumedBaselineMillimetres
        let z = a.focal * b / 1000 / m.rectifiedFar
        let px = Int(ahead.rounded())
        let window =
            windowPx > 0
            ? ", \(Fmt.num(ahead, 1)) px in front of the window at the stated disparity adjustment"
            : statedPx > 0
                ? " (judged against infinity: the stated disparity adjustment puts the window at "
                    + "\(Fmt.num(statedPx, 1)) px, well in front of the far field, so it undoes no shift)"
                : " (the window: no disparity adjustment)"
        d.add(
            "shifted", "SV-GEOM-016", .warning, m.rectifiedFar, "px", pct / T.shiftedWarnPercent,
            "the pixels cannot decide this: the farthest content sits \(Fmt.num(m.rectifiedFar, 1)) px in front of infinity after rectification\(window) (\(Fmt.num(pct))% of the width, \(Fmt.num(a.deg(ahead), 2))°; more than \(Fmt.num(T.shiftedWarnPercent, 1))%). Either (1) the eyes were shifted or one was cropped off-centre by ≈ \(px) px — the whole scene then stands that much nearer than it was shot; undo it by cutting \(px) px off the left edge of the left eye and off the right edge of the right eye, e.g. `ffmpeg -i LEFT -vf crop=iw-\(px):ih:\(px):0 L.png` and `ffmpeg -i RIGHT -vf crop=iw-\(px):ih:0:0 R.png`, then `spatial-media convert --left L.png --right R.png`; or (2) nothing in the scene is farther than ≈ \(Fmt.num(z, 1)) m (for a \(Fmt.num(b, 1)) mm baseline\(stated == nil ? " (assumed: the input states none)" : "") and \(Fmt.num(a.hfov, 1))° field of view\(a.note.isEmpty ? "" : " (assumed: the input states none)")): a close-up, nothing to undo"
        )
    }

    /// SV-GEOM-017 window violation and SV-GEOM-020 content in front of the window, where the metadata's
    /// zero-parallax plane puts the content as shown (the toe's shift of infinity included). An input that states
    /// no disparity adjustment is judged at 0 % — what `convert` writes unless told — and the finding says so, so
    /// the same pictures get the same verdict in every container.
    static func window(_ m: StereoMeasurement, _ facts: StereoFacts, _ a: ViewAngles, _ d: inout DiagnosisLog) {
        let W = Double(m.width)
        let shift0 = m.rectification?.centreHorizontalShift ?? 0
        let disp = m.rectifiedDisparities.map { $0 + shift0 }
        guard !disp.isEmpty else { return }
        let dadj = facts.stereo.disparityAdjustment ?? 0
        let d0 = SpatialUnits.fraction(fromDisparityUnits: dadj) * W
        let frac = Double(disp.filter { $0 > d0 + 0.5 }.count) / Double(disp.count)
        let edge = T.windowEdgeFraction * W
        let H0 = m.rectification?.homography
        var edgeHits = 0
        for (mt, dd) in zip(m.matches, disp) where dd > d0 + 0.5 {
            let xr = H0.map { Mat3.apply($0, mt.xr, mt.yr).x } ?? mt.xr
            // Either eye: in front of the window, the eye that still sees the content at a frame edge is the one
            // whose position is nearer that edge (the other eye's view of it is cut off).
            if min(mt.xl, xr) < edge || max(mt.xl, xr) > W - 1 - edge { edgeHits += 1 }
        }
        let shownNear = m.rectifiedNear + shift0
        let nearAngle = a.deg(shownNear - d0)
        let dadjText =
            "\(facts.stereo.disparityAdjustment == nil ? "default " : "")disparity adjustment \(Fmt.num(SpatialUnits.percent(fromDisparityUnits: dadj)))% (zero-parallax plane at \(Fmt.num(d0, 1)) px\(facts.stereo.disparityAdjustment == nil ? "; the input states none, and 0 % is what `convert` writes unless told" : ""))"
        let minHits = max(3, disp.count / 100)
        if edgeHits >= minHits {
            // Window placement is a setting, not a fault of the pictures: it ranks after every cause (weight ≤ 1).
            d.add(
                "window", "SV-GEOM-017", .warning, Double(edgeHits), "matches",
                min(1, Double(edgeHits) / Double(minHits)), auto: true,
                "window violation: with the \(dadjText), \(edgeHits) matched points in front of the window touch the left/right frame edge (within \(Fmt.num(T.windowEdgeFraction * 100, 0))% of the width); the frame cuts objects that stand out of it — push the scene back: \(d.fix.window((AutoDisparity.percent(nearDisparity: shownNear, width: m.width), AutoDisparity.capNote(nearDisparity: shownNear, width: m.width, hfovDegrees: a.hfov))))"
            )
        }
        if frac > T.inFrontWarnFraction {
            d.add(
                "in-front", "SV-GEOM-020", .warning, frac * 100, "%", min(1, frac / T.inFrontWarnFraction), auto: true,
                "\(Fmt.num(frac * 100, 0))% of the matched content appears in front of the window with the \(dadjText); the nearest content stands \(Fmt.num(nearAngle, 2))° in front of it — set the window just in front of the nearest content: \(d.fix.window((AutoDisparity.percent(nearDisparity: shownNear, width: m.width), AutoDisparity.capNote(nearDisparity: shownNear, width: m.width, hfovDegrees: a.hfov))))"
            )
        }
    }

    /// The SV-GEOM-012 measurement summary and the SV-GEOM-014 disparity / depth-budget line.
    static func summary(
        _ m: StereoMeasurement, _ facts: StereoFacts, _ a: ViewAngles, offset: Double, _ d: inout DiagnosisLog
    ) {
        let offPct = abs(offset) / Double(m.height) * 100
        var text = "vertical offset \(Fmt.num(offset)) px at the centre (\(Fmt.num(offPct))% of H\(a.arc(abs(offset))))"
        if let r = m.rectification {
            text +=
                "; roll \(Fmt.num(r.contentRotationDegrees, 3))°, vertical scale \(Fmt.num(r.scale * 100, 3))%, keystone \(Fmt.num(r.keystoneCornerPixels)) px (yaw \(Fmt.num(r.yawDegrees, 2))°)"
            if let free = r.distortionFreeYawDegrees {
                text +=
                    "; radial distortion k1 \(Fmt.num(r.radialK1, 3)) ± \(Fmt.num(r.radialK1Error, 3)) fitted in "
                    + "both eyes (without it the yaw reads \(Fmt.num(free, 2))°)"
            }
        }
        text +=
            "; |dy| median \(Fmt.num(m.medianAbsDy)) px, p95 \(Fmt.num(m.p95AbsDy)) px before rectification, \(Fmt.num(m.rectifiedMedianAbsDy)) / \(Fmt.num(m.rectifiedP95AbsDy)) px after"
        text +=
            "; \(m.matches.count) inliers of \(m.refinedMatches) matches, confidence \(Fmt.num(m.confidence)) (\(m.confidenceLabel))"
        if let o = m.occlusion {
            text +=
                "; occlusions: \(o.consistent) strips as labelled, \(o.swapped) swapped (\(o.verdict.rawValue); disparity span \(Fmt.num(o.disparitySpan, 1)) px at "
                + "the test's scale, coding noise \(Fmt.num(o.noise, 1)), signal \(Fmt.num(o.signal, 1)))"
        }
        d.info("SV-GEOM-012", text)
        let shift0 = m.rectification?.centreHorizontalShift ?? 0
        let d0 = (facts.stereo.disparityFraction ?? 0) * Double(m.width)
        var dtext =
            "rectified horizontal disparity far \(Fmt.num(m.rectifiedFar)) px, median \(Fmt.num(m.rectifiedMedian)) px, near \(Fmt.num(m.rectifiedNear)) px (\(Fmt.num(m.percentOfWidth(m.rectifiedFar)))% … \(Fmt.num(m.percentOfWidth(m.rectifiedNear)))% of W; raw \(Fmt.num(m.disparityFar)) … \(Fmt.num(m.disparityNear)) px)"
        if facts.stereo.disparityAdjustment == nil {
            let p = AutoDisparity.percent(nearDisparity: m.rectifiedNear + shift0, width: m.width)
            dtext +=
                d.fix.spatialPhoto
                ? "; no disparity adjustment in the input: `spatial-media edit FILE --disparity \(Fmt.num(p, 2))` would set one"
                : "; no disparity adjustment in the input: `spatial-media convert --auto-disparity` would write \(Fmt.num(p, 2))%"
        } else {
            dtext +=
                "; window (zero-parallax plane) at \(Fmt.num(d0, 1)) px: depth budget \(Fmt.num(a.deg(m.rectifiedNear + shift0 - d0), 2))° in front … \(Fmt.num(a.deg(d0 - m.rectifiedFar - shift0), 2))° behind"
        }
        d.info("SV-GEOM-014", dtext)
    }
}

/// Diagnosis of one pair for callers outside the validator (convert's warning, the accuracy sweep).
public enum GeometryDiagnosis {
    /// Measures the pair and returns the causes found (strongest first) and the findings.
    /// `stereo`: what is known of the pair (field of view for the angles, disparity adjustment for the window,
    /// baseline for the nearest-distance estimate). `asSpatial`: the pair is (or is about to become) a spatial file;
    /// recorded in the facts only — the verdict of one pair is the same in every container (issue 31).
    /// `fromOnePicture`: both eyes were cut from one packed picture (``EyePixels/fromOnePicture``).
    public static func diagnose(
        left: GrayImage, right: GrayImage, stereo: StereoParameters = StereoParameters(), asSpatial: Bool = false,
        leftChroma: (cb: Double, cr: Double)? = nil, rightChroma: (cb: Double, cr: Double)? = nil,
        fromOnePicture: Bool = false,
        options: StereoAnalysisOptions = StereoAnalysisOptions()
    ) -> (faults: [GeometryFault], findings: [Finding], result: StereoAnalysisResult) {
        var px = EyePixels(left: left, right: right, leftChroma: leftChroma, rightChroma: rightChroma)
        px.fromOnePicture = fromOnePicture
        return run(px, facts: StereoFacts(stereo, spatial: asSpatial), label: "", options: options)
    }

    /// The one diagnosis of a pair that `validate`, `convert` (photos and videos), `align` and the sweep all reach:
    /// the measurement with the input's field of view (else the assumed one), then the rules.
    static func run(_ px: EyePixels, facts: StereoFacts, label: String, options: StereoAnalysisOptions) -> (
        faults: [GeometryFault], findings: [Finding], result: StereoAnalysisResult
    ) {
        var o = options
        o.hfovDegrees = facts.stereo.horizontalFieldOfViewDegrees ?? o.hfovDegrees
        let result = StereoAnalyzer.analyze(left: px.left, right: px.right, options: o)
        let d = GeometryRules.diagnose(result, pixels: px, facts: facts, label: label)
        return (d.0, d.1, result)
    }
}

/// A fault worth a warning before a spatial file is written (`convert`, photos and videos), with the options of
/// `convert` that fix it.
public struct ConversionFault: Sendable, Equatable {
    public var ruleID: String
    public var severity: Severity
    public var message: String
    /// `--align` and/or `--auto-disparity` when they fix it and were not given.
    public var fixes: [String]
    /// `--align` and/or `--auto-disparity` when they fix it, given or not.
    public var fixedBy: [String] = []
    /// `ERROR SV-GEOM-001: …` / `warning SV-GEOM-020: …`.
    public var line: String { "\(severity == .error ? "ERROR" : "warning") \(ruleID): \(message)" }
}

extension GeometryDiagnosis {
    /// The faults of one pair worth a warning at conversion time: the validator's rules and thresholds, the pair
    /// judged as a spatial file with the metadata it will carry (`stereo`). A nil disparity adjustment means none was
    /// given (the default 0 % is judged and `--auto-disparity` offered for window faults); `align` / `autoDisparity`:
    /// options already given (not offered).
    public static func conversionFaults(
        left: GrayImage, right: GrayImage, stereo: StereoParameters, align: Bool, autoDisparity: Bool,
        fromOnePicture: Bool = false
    ) -> [ConversionFault] {
        var known = stereo
        known.disparityAdjustment = stereo.disparityAdjustment ?? 0
        return faults(
            diagnose(left: left, right: right, stereo: known, asSpatial: true, fromOnePicture: fromOnePicture),
            stereo: stereo, align: align, autoDisparity: autoDisparity)
    }

    /// The warnings and errors of a diagnosis as conversion faults, with the options that fix them.
    static func faults(
        _ d: (faults: [GeometryFault], findings: [Finding], result: StereoAnalysisResult), stereo: StereoParameters,
        align: Bool, autoDisparity: Bool
    ) -> [ConversionFault] {
        d.findings.filter { $0.severity >= .warning }.map { f in
            let faults = d.faults.filter { $0.ruleID == f.ruleID && $0.severity >= .warning }
            var fixes: [String] = []
            if !align && faults.contains(where: \.fixedByAlign) { fixes.append("--align") }
            if !autoDisparity && stereo.disparityAdjustment == nil && faults.contains(where: \.fixedByAutoDisparity) {
                fixes.append("--auto-disparity")
            }
            let by =
                (faults.contains(where: \.fixedByAlign) ? ["--align"] : [])
                + (faults.contains(where: \.fixedByAutoDisparity) ? ["--auto-disparity"] : [])
            return ConversionFault(
                ruleID: f.ruleID, severity: f.severity, message: f.message, fixes: fixes, fixedBy: by)
        }
    }

    /// ``conversionFaults(left:right:stereo:align:autoDisparity:fromOnePicture:)`` of two decoded eyes, read exactly as
    /// `validate` reads them (the same grey conversion, reduction and colour statistics), so a fault is measured in the
    /// same pixels by both (issue 28: one focal mismatch was 14.5 px in convert and 29 px in validate when convert
    /// measured at half size).
    public static func conversionFaults(
        left: Image, right: Image, stereo: StereoParameters, align: Bool, autoDisparity: Bool,
        fromOnePicture: Bool = false
    ) -> [ConversionFault] {
        guard let px = try? PixelSource.eyes(left, right) else { return [] }
        var known = stereo
        known.disparityAdjustment = stereo.disparityAdjustment ?? 0
        let d = diagnose(
            left: px.left, right: px.right, stereo: known, asSpatial: true, leftChroma: px.leftChroma,
            rightChroma: px.rightChroma,
            fromOnePicture: fromOnePicture)
        return faults(d, stereo: stereo, align: align, autoDisparity: autoDisparity)
    }

    /// What a conversion with `--align` / `--auto-disparity` reports: the faults of the pair as written (`after`,
    /// measured on the fixed eyes with the values written) as they are, and each fault of the input (`before`) that
    /// is gone from what was written, with the options that fixed it (`fixedBy`, or "the conversion" when none
    /// claims it). A fault that is still there is reported once, as found after the fixes.
    public static func faultsAfterFixes(before: [ConversionFault], after: [ConversionFault]) -> (
        remaining: [ConversionFault], fixed: [(fault: ConversionFault, by: String)]
    ) {
        let fixed = before.filter { b in !after.contains { $0.ruleID == b.ruleID } }.map { b in
            (fault: b, by: b.fixedBy.isEmpty ? "the conversion" : b.fixedBy.joined(separator: " and "))
        }
        return (after, fixed)
    }
}
