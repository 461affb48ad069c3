#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import StereoVision

/// Thresholds of the pixel rules (documented with their rationale in Specs/validation.md).
public enum GeometryThresholds {
    /// Vertical disparity at the image centre, % of the height.
    public static let offsetWarnPercent = 0.5, offsetErrorPercent = 1.0
    /// Vertical disparity left after the fitted field is removed (lens distortion, rolling shutter), % of the height.
    public static let residualP95WarnPercent = 1.0
    public static let rollWarnDegrees = 0.25, rollErrorDegrees = 1.0
    public static let scaleWarnPercent = 0.5, scaleErrorPercent = 1.5
    /// Keystone at the corners, % of the height (≈ 0.5 % per degree of toe-in at 60° HFOV).
    public static let keystoneWarnPercent = 1.0, keystoneErrorPercent = 3.0
    /// Far content beyond infinity after rectification, degrees of divergence.
    public static let divergenceWarnDegrees = 0.1, divergenceErrorDegrees = 0.25
    /// Farthest content nearer than this (metres, from the baseline and field of view) suggests a shifted pair.
    public static let shiftedFarMetres = 1.0
    /// Share of matched content in front of the window above which the window is misplaced.
    public static let inFrontWarnFraction = 0.75
    /// Content in front of the window within this share of the width from the left/right edge is a window violation.
    public static let windowEdgeFraction = 0.05
    public static let swappedNegativeFraction = 0.85
    public static let noDepthPixels = 0.5
    public static let brightnessWarnLevels = 12.75 // 5 % of 255
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

enum GeometryRules {
    /// Findings for one measured (or unmeasurable) pair. `label` names the frame for videos.
    static func check(_ result: StereoAnalysisResult, pixels: EyePixels, facts: StereoFacts, label: String, f: inout [Finding]) {
        let (faults, findings) = diagnose(result, pixels: pixels, facts: facts, label: label)
        _ = faults
        f += findings
    }

    /// The causes found on one pair, strongest first, and the findings that report them.
    static func diagnose(_ result: StereoAnalysisResult, pixels: EyePixels, facts: StereoFacts, label at: String) -> ([GeometryFault], [Finding]) {
        var faults: [GeometryFault] = []
        var f: [Finding] = []
        let T = GeometryThresholds.self
        func add(_ kind: String, _ id: String, _ sev: Severity, _ value: Double, _ unit: String, _ weight: Double, align: Bool = false, auto: Bool = false, _ message: String) {
            faults.append(GeometryFault(kind: kind, ruleID: id, severity: sev, value: value, unit: unit, weight: weight, fixedByAlign: align, fixedByAutoDisparity: auto))
            f.append(Finding(id, sev, message, at: at))
        }
        // Brightness / colour first: they do not need matches.
        let ls = pixels.left.meanAndDeviation, rs = pixels.right.meanAndDeviation
        let dMean = rs.mean - ls.mean
        if abs(dMean) > T.brightnessWarnLevels {
            add("brightness", "SV-GEOM-009", .warning, dMean, "levels", abs(dMean) / T.brightnessWarnLevels,
                "mean brightness differs between the eyes: left \(Fmt.num(ls.mean, 1)), right \(Fmt.num(rs.mean, 1)) (of 255; right − left \(Fmt.num(dMean, 1))); match the exposure of the eyes in the source (not fixable by spatial-media)")
        } else if max(ls.deviation, rs.deviation) / max(1, min(ls.deviation, rs.deviation)) > T.contrastWarnRatio {
            let r = max(ls.deviation, rs.deviation) / max(1, min(ls.deviation, rs.deviation))
            add("brightness", "SV-GEOM-009", .warning, r, "ratio", r / T.contrastWarnRatio,
                "contrast differs between the eyes: luma deviation \(Fmt.num(ls.deviation, 1)) vs \(Fmt.num(rs.deviation, 1)); match the grading of the eyes in the source")
        }
        if let a = pixels.leftChroma, let b = pixels.rightChroma, max(abs(a.cb - b.cb), abs(a.cr - b.cr)) > T.chromaWarnLevels {
            let d = max(abs(a.cb - b.cb), abs(a.cr - b.cr))
            add("colour", "SV-GEOM-010", .warning, d, "levels", d / T.chromaWarnLevels,
                "colour differs between the eyes: mean Cb/Cr \(Fmt.num(a.cb, 1))/\(Fmt.num(a.cr, 1)) vs \(Fmt.num(b.cb, 1))/\(Fmt.num(b.cr, 1)); match the white balance of the eyes in the source")
        }
        guard let m = result.measurement else {
            add("unreliable", "SV-GEOM-011", .warning, 0, "", 0, "cannot measure the stereo geometry: \(result.failure ?? "unknown reason")")
            return (faults, f)
        }
        let H = Double(m.height), W = Double(m.width)
        for n in pixels.notes + m.notes { f.append(Finding("SV-GEOM-012", .info, n, at: at)) }
        let hfov = facts.hfovDegrees ?? m.hfovDegrees
        let focal = W / 2 / tan((hfov ?? T.assumedHFOV) * Double.pi / 360)
        let hfovNote = hfov == nil ? " (angles assume a \(Fmt.num(T.assumedHFOV, 0))° field of view)" : ""
        func deg(_ px: Double) -> Double { atan(px / focal) * 180 / Double.pi }
        func arc(_ px: Double) -> String { ", \(Fmt.num(deg(px) * 60, 1)) arcmin" }
        // Sharpness does not need a reliable geometry either.
        if m.sharpnessLeft > 0, m.sharpnessRight > 0 {
            let r = max(m.sharpnessLeft, m.sharpnessRight) / min(m.sharpnessLeft, m.sharpnessRight)
            if r > T.sharpnessWarnRatio {
                let blurred = m.sharpnessLeft < m.sharpnessRight ? "left" : "right"
                add("sharpness", "SV-GEOM-018", .warning, r, "ratio", (r - 1) / (T.sharpnessWarnRatio - 1),
                    "the \(blurred) eye is softer: contrast-normalised detail \(Fmt.num(m.sharpnessLeft, 3)) (left) vs \(Fmt.num(m.sharpnessRight, 3)) (right), ratio \(Fmt.num(r)); check focus, lens and encoder settings of that eye (not fixable by spatial-media)")
            }
        }
        // Below the confidence floor: one finding, no fixes, no errors.
        if m.confidence < T.lowConfidence {
            add("unreliable", "SV-GEOM-013", .warning, m.confidence, "", 0,
                "cannot measure reliably — wrong layout? Only \(m.matches.count) matches agree (confidence \(Fmt.num(m.confidence)), \(Fmt.num(m.coverage * 100, 0))% of the frame covered); if the input packs the eyes differently, give `--layout sbs` or `--layout tb` (or `--swap-eyes`); no geometry verdict is given")
            f.append(Finding("SV-GEOM-012", .info, "measured (unreliable): \(m.matches.count) inliers of \(m.refinedMatches) matches, confidence \(Fmt.num(m.confidence))", at: at))
            return (faults, f)
        }
        let rect = m.rectification
        let range = m.rectifiedNear - m.rectifiedFar
        if range < T.noDepthPixels && m.medianAbsDy < 0.25 && abs(m.rectifiedMedian) < 0.5 {
            add("no-depth", "SV-GEOM-008", .error, range, "px", 10,
                "the eyes show no depth: horizontal disparity spans only \(Fmt.num(range)) px — both eyes carry the same picture (2D); convert from a real stereo source")
        }
        // Vertical offset at the centre.
        let offset = rect?.centreVerticalOffset ?? m.model.predict(x: m.model.cx, y: m.model.cy)
        let offPct = abs(offset) / H * 100
        if offPct > T.offsetWarnPercent {
            add("vertical-offset", "SV-GEOM-001", offPct > T.offsetErrorPercent ? .error : .warning, offset, "px", offPct / T.offsetWarnPercent, align: true,
                "vertical offset: the right eye's picture sits \(Fmt.num(abs(offset))) px \(offset > 0 ? "lower" : "higher") than the left at the centre (\(Fmt.num(offPct))% of the height\(arc(abs(offset))))\(hfovNote); fix: `spatial-media convert --align` (new files) or `spatial-media align FILE -o OUT` (spatial photos)")
        }
        if let r = rect {
            let roll = r.contentRotationDegrees
            if abs(roll) > T.rollWarnDegrees {
                let edge = abs(tan(r.roll)) * W / 2
                add("roll", "SV-GEOM-003", abs(roll) > T.rollErrorDegrees ? .error : .warning, roll, "°", abs(roll) / T.rollWarnDegrees, align: true,
                    "roll: the right eye's picture is rotated \(Fmt.num(abs(roll), 3))° \(roll > 0 ? "clockwise" : "anticlockwise") relative to the left (\(Fmt.num(edge)) px vertical error at the side edges); fix: `spatial-media convert --align` or `spatial-media align FILE -o OUT`")
            }
            let sc = r.scale * 100
            if abs(sc) > T.scaleWarnPercent {
                add("vertical-scale", "SV-GEOM-004", abs(sc) > T.scaleErrorPercent ? .error : .warning, sc, "%", abs(sc) / T.scaleWarnPercent, align: true,
                    "focal mismatch: the right eye's picture is \(Fmt.num(abs(sc)))% \(sc > 0 ? "larger" : "smaller") (\(Fmt.num(abs(r.scale) * H / 2)) px vertical error at the top/bottom edges); fix: `spatial-media convert --align` or `spatial-media align FILE -o OUT`")
            }
            let ks = abs(r.keystoneCornerPixels) / H * 100
            if ks > T.keystoneWarnPercent {
                let toe = r.yawDegrees < 0 ? "toe-in (converged cameras)" : "toe-out (diverging camera axes)"
                let shift = r.centreHorizontalShift
                add("keystone", "SV-GEOM-005", ks > T.keystoneErrorPercent ? .error : .warning, r.yawDegrees, "°", ks / T.keystoneWarnPercent, align: true,
                    "keystone of \(Fmt.num(abs(r.keystoneCornerPixels))) px at the corners (\(Fmt.num(ks))% of the height): \(toe) of \(Fmt.num(abs(r.yawDegrees), 2))° between the cameras\(hfovNote); it also moves infinity by \(Fmt.num(abs(shift), 1)) px\(shift < 0 ? " (uncorrected, far content lies beyond infinity: divergence)" : " (uncorrected, the scene is pulled forward)"); fix: `spatial-media convert --align` (rectifies to parallel axes) or `spatial-media align FILE -o OUT`")
            }
        }
        let resPct = m.rectifiedP95AbsDy / H * 100
        if resPct > T.residualP95WarnPercent {
            add("residual", "SV-GEOM-002", .warning, m.rectifiedP95AbsDy, "px", resPct / T.residualP95WarnPercent,
                "95th percentile vertical disparity left after removing the fitted roll/scale/keystone field: \(Fmt.num(m.rectifiedP95AbsDy)) px (\(Fmt.num(resPct))% of the height): lens distortion differs between the eyes or rolling shutter; `--align` cannot remove it — undistort the eyes in the source")
        }
        // Eye order: occlusion evidence together with disparity.
        let occ = m.occlusion
        let negative = m.rectifiedFractionNegative
        var swapped = false, maybeSwapped = false
        if let o = occ, o.verdict == .swapped, negative > 0.5 {
            swapped = true
            add("swapped-eyes", "SV-GEOM-007", facts.spatial ? .error : .warning, o.swappedFraction, "", 20,
                "the eyes are swapped: beside depth steps the picture labelled left sees what the right eye should (\(o.swapped) of \(o.swapped + o.consistent) half-occluded strips), and \(Fmt.num(negative * 100, 0))% of matches have negative disparity; fix: `spatial-media convert --swap-eyes`")
        } else if negative >= T.swappedNegativeFraction && range >= T.noDepthPixels && (occ?.verdict ?? .inconclusive) == .inconclusive {
            maybeSwapped = true
            add("swapped-eyes", "SV-GEOM-007", .warning, negative, "", 1,
                "\(Fmt.num(negative * 100, 0))% of matches have negative disparity and the occlusions do not tell the eye order (\(occ.map { "\($0.swapped) swapped vs \($0.consistent) as labelled" } ?? "not tested")): either the eyes are swapped (`spatial-media convert --swap-eyes`) or the pair is shifted so all content sits beyond infinity (`spatial-media convert --align`)")
        }
        // Divergence: the far field after rectification, in viewing angle (infinity is disparity 0 for an optically
        // centred pair, whatever the window).
        let d0 = Double(facts.disparityAdjustment ?? 0) / 10000 * W
        // What the viewer sees: the fitted field's spread removed, its constant horizontal part (toe-in/out) kept.
        let shift0 = rect?.centreHorizontalShift ?? 0
        let shownFar = m.rectifiedFar + shift0
        if !swapped {
            let divDeg = deg(-m.rectifiedFar)
            let shownDeg = deg(-shownFar)
            if divDeg <= T.divergenceWarnDegrees, shownDeg > T.divergenceWarnDegrees, let k = faults.firstIndex(where: { $0.kind == "keystone" }) {
                // The toe-in is the cause: one finding, escalated, with the divergence it causes.
                if shownDeg > T.divergenceErrorDegrees && facts.spatial { faults[k].severity = .error }
                faults[k].weight += shownDeg / T.divergenceWarnDegrees
                if let fi = f.lastIndex(where: { $0.ruleID == "SV-GEOM-005" }) {
                    f[fi].severity = faults[k].severity
                    f[fi].message += " — as it is, the far field lies \(Fmt.num(-shownFar, 1)) px beyond infinity (\(Fmt.num(shownDeg, 2))° of divergence)"
                }
            } else if divDeg > T.divergenceWarnDegrees && !maybeSwapped {
                add("divergence", "SV-GEOM-006", divDeg > T.divergenceErrorDegrees && facts.spatial ? .error : .warning, m.rectifiedFar, "px", divDeg / T.divergenceWarnDegrees, align: true,
                    "far content lies beyond infinity: after rectification the far field has disparity \(Fmt.num(m.rectifiedFar)) px (\(Fmt.num(divDeg, 2))° of divergence\(hfovNote)) — the right eye was shifted \(Fmt.num(-m.rectifiedFar, 1)) px right or cropped off-centre, which moves its centre off the optical axis; fix: `spatial-media convert --align` (re-centres the far field at 0 px) and set the window with `--auto-disparity`, not by shifting pixels")
            } else if let b = facts.baselineMM, b > 0, m.rectifiedFar > 0.5 {
                let z = focal * b / 1000 / m.rectifiedFar
                if z < T.shiftedFarMetres {
                    add("shifted", "SV-GEOM-016", .warning, m.rectifiedFar, "px", T.shiftedFarMetres / z,
                        "the farthest content has disparity \(Fmt.num(m.rectifiedFar)) px, i.e. nothing is farther than ≈ \(Fmt.num(z, 2)) m for a \(Fmt.num(b, 1)) mm baseline: a close-up, or the eyes were shifted / cropped off-centre (optical centering wants disparity 0 at infinity); if shifted, undo the shift and place the window with `spatial-media convert --auto-disparity`")
                }
            }
        }
        // The window: where the metadata's zero-parallax plane puts the content.
        let disp = m.rectifiedDisparities.map { $0 + shift0 }
        if !swapped, !disp.isEmpty {
            let inFront = disp.filter { $0 > d0 + 0.5 }.count
            let frac = Double(inFront) / Double(disp.count)
            let edge = T.windowEdgeFraction * W
            let H0 = rect?.homography
            var edgeHits = 0
            for (mt, d) in zip(m.matches, disp) where d > d0 + 0.5 {
                let xr = H0.map { Mat3.apply($0, mt.xr, mt.yr).x } ?? mt.xr
                if mt.xl < edge || xr > W - 1 - edge { edgeHits += 1 }
            }
            let shownNear = m.rectifiedNear + shift0
            let nearAngle = deg(shownNear - d0)
            if let dadj = facts.disparityAdjustment {
                let dadjText = "disparity adjustment \(Fmt.num(Double(dadj) / 100))% (zero-parallax plane at \(Fmt.num(d0, 1)) px)"
                if edgeHits >= max(3, disp.count / 100) {
                    add("window", "SV-GEOM-017", .warning, Double(edgeHits), "matches", Double(edgeHits) / Double(max(3, disp.count / 100)), auto: true,
                        "window violation: with the \(dadjText), \(edgeHits) matched points in front of the window touch the left/right frame edge (within \(Fmt.num(T.windowEdgeFraction * 100, 0))% of the width); the frame cuts objects that stand out of it — push the scene back with `spatial-media convert --auto-disparity` (or a larger `--disparity`)")
                }
                if frac > T.inFrontWarnFraction {
                    add("in-front", "SV-GEOM-020", .warning, frac * 100, "%", frac / T.inFrontWarnFraction, auto: true,
                        "\(Fmt.num(frac * 100, 0))% of the matched content appears in front of the window with the \(dadjText); the nearest content stands \(Fmt.num(nearAngle, 2))° in front of it — set the window just in front of the nearest content: `spatial-media convert --auto-disparity` (measures it) or `--disparity \(Fmt.num(AutoDisparity.percent(nearDisparity: shownNear, width: m.width), 2))`")
                }
            }
        }
        // Summary lines.
        var summary = "vertical offset \(Fmt.num(offset)) px at the centre (\(Fmt.num(offPct))% of H\(arc(abs(offset))))"
        if let r = rect { summary += "; roll \(Fmt.num(r.contentRotationDegrees, 3))°, vertical scale \(Fmt.num(r.scale * 100, 3))%, keystone \(Fmt.num(r.keystoneCornerPixels)) px (yaw \(Fmt.num(r.yawDegrees, 2))°)" }
        summary += "; |dy| median \(Fmt.num(m.medianAbsDy)) px, p95 \(Fmt.num(m.p95AbsDy)) px before rectification, \(Fmt.num(m.rectifiedMedianAbsDy)) / \(Fmt.num(m.rectifiedP95AbsDy)) px after"
        summary += "; \(m.matches.count) inliers of \(m.refinedMatches) matches, confidence \(Fmt.num(m.confidence)) (\(m.confidenceLabel))"
        if let o = occ { summary += "; occlusions: \(o.consistent) strips as labelled, \(o.swapped) swapped (\(o.verdict.rawValue))" }
        f.append(Finding("SV-GEOM-012", .info, summary, at: at))
        var dtext = "rectified horizontal disparity far \(Fmt.num(m.rectifiedFar)) px, median \(Fmt.num(m.rectifiedMedian)) px, near \(Fmt.num(m.rectifiedNear)) px (\(Fmt.num(m.percentOfWidth(m.rectifiedFar)))% … \(Fmt.num(m.percentOfWidth(m.rectifiedNear)))% of W; raw \(Fmt.num(m.disparityFar)) … \(Fmt.num(m.disparityNear)) px)"
        if facts.disparityAdjustment == nil {
            dtext += "; no disparity adjustment in the input: `spatial-media convert --auto-disparity` would write \(Fmt.num(AutoDisparity.percent(nearDisparity: m.rectifiedNear + shift0, width: m.width), 2))%"
        } else {
            dtext += "; window (zero-parallax plane) at \(Fmt.num(d0, 1)) px: depth budget \(Fmt.num(deg(m.rectifiedNear + shift0 - d0), 2))° in front … \(Fmt.num(deg(d0 - shownFar), 2))° behind"
        }
        f.append(Finding("SV-GEOM-014", .info, dtext, at: at))
        faults.sort { $0.severity != $1.severity ? $0.severity > $1.severity : $0.weight > $1.weight }
        return (faults, f)
    }
}

/// Diagnosis of one pair for callers outside the validator (convert's warning, the accuracy sweep).
public enum GeometryDiagnosis {
    /// Measures the pair and returns the causes found (strongest first) and the findings.
    /// `asSpatial`: judge the pair as a spatial file (divergence and swapped eyes are errors), e.g. before writing one.
    public static func diagnose(left: GrayImage, right: GrayImage, hfovDegrees: Double? = nil, disparityAdjustment: Int32? = nil, baselineMM: Double? = nil, asSpatial: Bool = false,
                                leftChroma: (cb: Double, cr: Double)? = nil, rightChroma: (cb: Double, cr: Double)? = nil,
                                options: StereoAnalysisOptions = StereoAnalysisOptions()) -> (faults: [GeometryFault], findings: [Finding], result: StereoAnalysisResult) {
        var o = options
        o.hfovDegrees = hfovDegrees ?? o.hfovDegrees
        let result = StereoAnalyzer.analyze(left: left, right: right, options: o)
        var facts = StereoFacts()
        facts.hfovDegrees = hfovDegrees; facts.disparityAdjustment = disparityAdjustment; facts.baselineMM = baselineMM
        facts.spatial = asSpatial
        let px = EyePixels(left: left, right: right, leftChroma: leftChroma, rightChroma: rightChroma)
        let d = GeometryRules.diagnose(result, pixels: px, facts: facts, label: "")
        return (d.0, d.1, result)
    }
}
