import StereoVision

/// Thresholds of the pixel rules (documented in Specs/validation.md).
public enum GeometryThresholds {
    public static let medianDyWarnPercent = 0.5, medianDyErrorPercent = 1.0
    public static let p95DyWarnPercent = 1.0
    public static let rollWarnDegrees = 0.25, rollErrorDegrees = 1.0
    public static let scaleWarnPercent = 0.5, scaleErrorPercent = 1.5
    public static let keystoneWarnPercent = 1.0
    public static let divergenceErrorPercent = 0.25
    public static let swappedNegativeFraction = 0.85
    public static let noDepthPixels = 0.5
    public static let brightnessWarnLevels = 12.75 // 5 % of 255
    public static let contrastWarnRatio = 1.2
    public static let chromaWarnLevels = 4.0
    public static let lowConfidence = 0.3
}

enum GeometryRules {
    /// Findings for one measured (or unmeasurable) pair. `label` names the frame for videos.
    static func check(_ result: StereoAnalysisResult, pixels: EyePixels, facts: StereoFacts, label: String, f: inout [Finding]) {
        let at = label
        let T = GeometryThresholds.self
        // Brightness / colour first: they do not need matches.
        let ls = pixels.left.meanAndDeviation, rs = pixels.right.meanAndDeviation
        if abs(ls.mean - rs.mean) > T.brightnessWarnLevels {
            f.append(Finding("SV-GEOM-009", .warning, "mean brightness differs between the eyes: left \(Fmt.num(ls.mean, 1)), right \(Fmt.num(rs.mean, 1)) (of 255); match exposure", at: at))
        } else if max(ls.deviation, rs.deviation) / max(1, min(ls.deviation, rs.deviation)) > T.contrastWarnRatio {
            f.append(Finding("SV-GEOM-009", .warning, "contrast differs between the eyes: luma deviation \(Fmt.num(ls.deviation, 1)) vs \(Fmt.num(rs.deviation, 1))", at: at))
        }
        if let a = pixels.leftChroma, let b = pixels.rightChroma, max(abs(a.cb - b.cb), abs(a.cr - b.cr)) > T.chromaWarnLevels {
            f.append(Finding("SV-GEOM-010", .warning, "colour differs between the eyes: mean Cb/Cr \(Fmt.num(a.cb, 1))/\(Fmt.num(a.cr, 1)) vs \(Fmt.num(b.cb, 1))/\(Fmt.num(b.cr, 1)); match white balance", at: at))
        }
        guard let m = result.measurement else {
            f.append(Finding("SV-GEOM-011", .warning, "cannot measure the stereo geometry: \(result.failure ?? "unknown reason")", at: at))
            return
        }
        let H = Double(m.height), W = Double(m.width)
        for n in pixels.notes + m.notes { f.append(Finding("SV-GEOM-012", .info, n, at: at)) }
        func arc(_ px: Double) -> String { m.arcminutes(px).map { ", \(Fmt.num($0, 1)) arcmin" } ?? "" }
        // Depth sanity first: identical or swapped eyes make the other numbers meaningless.
        let range = m.disparityNear - m.disparityFar
        if range < T.noDepthPixels && m.medianAbsDy < 0.25 {
            f.append(Finding("SV-GEOM-008", .error, "the eyes show no depth: horizontal disparity spans only \(Fmt.num(range)) px — both eyes carry the same picture (2D)", at: at))
        }
        // Swapped eyes of a parallel rig: disparity dominantly negative with the nearest end close to zero (the far field of
        // the original pair) and no keystone. A uniformly shifted pair (|near| ≫ range, e.g. camera-aligned MPO) or a
        // toed-in pair (keystone) is divergent/converged instead (SV-GEOM-006).
        let keystoneSignificant = abs(m.keystoneCornerPixels) / H * 100 > T.keystoneWarnPercent
        let swapped = m.fractionNegativeDisparity >= T.swappedNegativeFraction && range >= T.noDepthPixels
            && m.disparityNear < 0 && abs(m.disparityNear) <= max(range, 0.005 * W) && !keystoneSignificant
        if swapped {
            f.append(Finding("SV-GEOM-007", .error, "the eyes look swapped: \(Fmt.num(m.fractionNegativeDisparity * 100, 0))% of matches have negative disparity (nearest \(Fmt.num(m.disparityNear)) px) — swap left and right (or the pair is converged behind all content)", at: at))
        } else if m.disparityFar < -T.divergenceErrorPercent / 100 * W {
            f.append(Finding("SV-GEOM-006", .error, "far content lies beyond infinity: far-field disparity \(Fmt.num(m.disparityFar)) px (\(Fmt.num(m.percentOfWidth(m.disparityFar)))% of the width) forces the eyes to diverge; shift the right eye \(Fmt.num(-m.disparityFar, 1)) px left (or the left eye right) so the far field sits at ≥ 0", at: at))
        }
        // Vertical disparity
        let medPct = m.percentOfHeight(m.medianAbsDy), p95Pct = m.percentOfHeight(m.p95AbsDy)
        if medPct > T.medianDyErrorPercent || medPct > T.medianDyWarnPercent {
            f.append(Finding("SV-GEOM-001", medPct > T.medianDyErrorPercent ? .error : .warning, "median vertical disparity \(Fmt.num(m.medianAbsDy)) px (\(Fmt.num(medPct))% of the height\(arc(m.medianAbsDy))); signed median \(Fmt.num(m.medianDy)) px — align the eyes vertically (shift the right eye by \(Fmt.num(-m.medianDy, 1)) px)", at: at))
        }
        if p95Pct > T.p95DyWarnPercent {
            f.append(Finding("SV-GEOM-002", .warning, "95th percentile vertical disparity \(Fmt.num(m.p95AbsDy)) px (\(Fmt.num(p95Pct))% of the height\(arc(m.p95AbsDy)))", at: at))
        }
        let roll = abs(m.rollDegrees)
        if roll > T.rollWarnDegrees {
            f.append(Finding("SV-GEOM-003", roll > T.rollErrorDegrees ? .error : .warning, "the right eye is rotated \(Fmt.num(m.rollDegrees, 3))° relative to the left (\(Fmt.num(abs(m.rollEdgePixels)))) px vertical error at the side edges); rectify", at: at))
        }
        let sc = abs(m.verticalScalePercent)
        if sc > T.scaleWarnPercent {
            f.append(Finding("SV-GEOM-004", sc > T.scaleErrorPercent ? .error : .warning, "the right eye is \(Fmt.num(m.verticalScalePercent))% \(m.verticalScalePercent > 0 ? "larger" : "smaller") vertically (\(Fmt.num(abs(m.scaleEdgePixels))) px at the top/bottom edges): focal lengths differ; rescale one eye", at: at))
        }
        let ks = abs(m.keystoneCornerPixels) / H * 100
        if ks > T.keystoneWarnPercent {
            let toe = m.toeInDegrees.map { " (≈ \(Fmt.num($0, 2))° toe-in)" } ?? ""
            f.append(Finding("SV-GEOM-005", .warning, "keystone of \(Fmt.num(abs(m.keystoneCornerPixels))) px at the corners\(toe): the cameras were converged; use parallel cameras or rectify", at: at))
        }
        if m.confidence < T.lowConfidence {
            f.append(Finding("SV-GEOM-013", .warning, "low measurement confidence (\(Fmt.num(m.confidence))): \(m.matches.count) inlier matches covering \(Fmt.num(m.coverage * 100, 0))% of the frame", at: at))
        }
        var summary = "vertical disparity median \(Fmt.num(m.medianAbsDy)) px (\(Fmt.num(medPct))% of H\(arc(m.medianAbsDy))), p95 \(Fmt.num(m.p95AbsDy)) px; roll \(Fmt.num(m.rollDegrees, 3))°, vertical scale \(Fmt.num(m.verticalScalePercent, 3))%, keystone \(Fmt.num(m.keystoneCornerPixels)) px"
        summary += "; \(m.matches.count) inliers of \(m.refinedMatches) matches, confidence \(Fmt.num(m.confidence)) (\(m.confidenceLabel))"
        f.append(Finding("SV-GEOM-012", .info, summary, at: at))
        var disp = "horizontal disparity far \(Fmt.num(m.disparityFar)) px, median \(Fmt.num(m.disparityMedian)) px, near \(Fmt.num(m.disparityNear)) px (\(Fmt.num(m.percentOfWidth(m.disparityFar)))% … \(Fmt.num(m.percentOfWidth(m.disparityNear)))% of W)"
        if let d = facts.disparityAdjustment {
            let shift = Double(d) / 10000 * W
            disp += "; the metadata's disparity adjustment \(Fmt.num(Double(d) / 100))% (\(Fmt.num(shift, 1)) px) places the zero-parallax plane at disparity \(Fmt.num(shift, 1)) px: "
            let inFront = m.matches.filter { $0.disparity > shift }.count
            disp += "\(Fmt.num(Double(inFront) / Double(max(1, m.matches.count)) * 100, 0))% of matched content appears in front of it"
        }
        f.append(Finding("SV-GEOM-014", .info, disp, at: at))
    }
}
