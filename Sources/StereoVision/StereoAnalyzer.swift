#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Settings of ``StereoAnalyzer``.
public struct StereoAnalysisOptions: Sendable {
    /// Features are detected on a power-of-two downscale whose longer side is at most this.
    public var maxWorkingSide = 1280
    /// Matches are refined on a power-of-two downscale whose longer side is at most this (full resolution when
    /// smaller).
    public var maxRefineSide = 4096
    public var maxFeatures = 2500
    /// Lowe's ratio test threshold on Hamming distances.
    public var ratio: Float = 0.8
    /// Matches are searched within ±this fraction of the height vertically…
    public var maxVerticalSearch = 0.08
    /// …and ±this fraction of the width horizontally.
    public var maxHorizontalSearch = 0.35
    /// NCC patch radius for sub-pixel refinement (patch = 2r+1).
    public var patchRadius = 7
    public var minNCC = 0.7
    /// Fewer inliers than this: "cannot measure".
    public var minInliers = 12
    /// Horizontal field of view, degrees, when known (for arc-minutes and angles).
    public var hfovDegrees: Double?
    /// Smallest side accepted.
    public var minSide = 48
    /// Run the half-occlusion test of the eye order (a dense disparity search at ≤ 480 px width).
    public var occlusionTest = true
    public init() {}
}

/// The measured geometry of a stereo pair. Pixel values are in the pixels of the input (full-resolution) images.
/// The eye order a measurement establishes, on evidence in proportion to the claim — one reading for `validate`
/// (SV-GEOM-007) and for `convert` of an input that states no eye order.
extension StereoMeasurement {
    /// `.swapped` when the half-occlusion test says swapped, its evidence is not weak (``OcclusionEvidence/weakness``)
    /// and most matches have negative disparity (a swapped pair puts its far field in front and its near content
    /// beyond); `.asLabelled` when the test says so and its evidence is not weak; `.inconclusive` otherwise, and when
    /// the test was not run.
    public var eyeOrderVerdict: OcclusionEvidence.Verdict {
        guard let o = occlusion, o.weakness == nil else { return .inconclusive }
        switch o.verdict {
        case .swapped: return rectifiedFractionNegative > 0.5 ? .swapped : .inconclusive
        case .asLabelled, .inconclusive: return o.verdict
        }
    }
}

public struct StereoMeasurement: Sendable {
    public var width: Int
    public var height: Int
    /// Input pixels per working (feature-detection) pixel; 1 when not downscaled.
    public var workingScale: Int
    /// Input pixels per refinement pixel (1 = refined at full resolution).
    public var refineScale: Int
    public var keypointsLeft: Int
    public var keypointsRight: Int
    public var tentativeMatches: Int
    /// Matches that passed NCC refinement.
    public var refinedMatches: Int
    /// Inlier matches of the vertical-disparity model (what every statistic below is computed on).
    public var matches: [StereoMatch]
    /// Matches rejected by the robust fit (for drawing).
    public var outliers: [StereoMatch]
    public var model: VerticalDisparityModel

    // Vertical disparity of the inliers (yr − yl).
    public var medianDy: Double
    public var medianAbsDy: Double
    public var p95AbsDy: Double
    public var meanDy: Double
    /// RMS of the residual after removing the fitted field (measurement noise + unmodelled parallax).
    public var residualRMS: Double

    // Horizontal disparity (xl − xr) of the inliers.
    public var disparityFar: Double  // 2nd percentile: the far field
    public var disparityNear: Double  // 98th percentile: the nearest content
    public var disparityMedian: Double
    public var fractionNegativeDisparity: Double

    public var hfovDegrees: Double?
    /// Coverage of a 4×4 grid by inliers (0…1).
    public var coverage: Double
    /// 0…1 from the inlier count, the inlier ratio and the coverage.
    public var confidence: Double
    public var notes: [String]

    /// Pose/focal error of the right camera fitted to the inliers, and the rectifying homography (nil when the
    /// fit failed).
    public var rectification: RectificationModel? = nil
    /// Horizontal disparity of the inliers after the right points are rectified (roll/scale/keystone removed):
    /// 2nd percentile (far), 98th percentile (near), median, share below zero.
    public var rectifiedFar = 0.0, rectifiedNear = 0.0, rectifiedMedian = 0.0, rectifiedFractionNegative = 0.0
    /// Vertical disparity left after rectification: median |dy| and 95th percentile |dy|, pixels.
    public var rectifiedMedianAbsDy = 0.0, rectifiedP95AbsDy = 0.0
    /// Half-occlusion evidence about the eye order (nil when not run).
    public var occlusion: OcclusionEvidence? = nil
    /// Contrast-independent sharpness of each eye (mean gradient / luma deviation).
    public var sharpnessLeft = 0.0, sharpnessRight = 0.0

    /// Rectified horizontal disparities of the inliers.
    public var rectifiedDisparities: [Double] {
        guard let r = rectification else { return matches.map(\.disparity) }
        let H = r.homography
        return matches.map { $0.xl - Mat3.apply(H, $0.xr, $0.yr).x }
    }

    public var focalPixels: Double? {
        guard let h = hfovDegrees, h > 0, h < 180 else { return nil }
        return Double(width) / 2 / tan(h * Double.pi / 360)
    }
    public func percentOfHeight(_ px: Double) -> Double { px / Double(height) * 100 }
    public func percentOfWidth(_ px: Double) -> Double { px / Double(width) * 100 }
    /// Pixels → arc-minutes at the image centre, when the field of view is known.
    public func arcminutes(_ px: Double) -> Double? { focalPixels.map { atan(px / $0) * 180 / Double.pi * 60 } }
    public var rollDegrees: Double { model.rollDegrees }
    /// Vertical displacement caused by the roll at the left/right image edge.
    public var rollEdgePixels: Double { model.b / model.n * Double(width) / 2 }
    public var verticalScalePercent: Double { model.verticalScale * 100 }
    public var scaleEdgePixels: Double { model.verticalScale * Double(height) / 2 }
    public var keystoneCornerPixels: Double { model.keystoneCornerPixels(width: width, height: height) }
    /// Toe between the camera axes, degrees: positive toe-in (converged), negative toe-out. The rectification's yaw
    /// (fitted with the stated field of view, else 60°); without a rectification, the keystone term's, when the field
    /// of view is known.
    public var toeInDegrees: Double? {
        if let r = rectification { return -r.yawDegrees }
        return focalPixels.map { model.toeInDegrees(focalPixels: $0) }
    }
    public var pitchEdgePixels: Double { model.pitchEdgePixels(height: height) }
    public var confidenceLabel: String { confidence >= 0.6 ? "high" : confidence >= 0.3 ? "medium" : "low" }
}

/// Why a pair could not be measured, or the measurement.
public enum StereoAnalysisResult: Sendable {
    case measured(StereoMeasurement)
    case cannotMeasure(String)

    public var measurement: StereoMeasurement? { if case .measured(let m) = self { return m } else { return nil } }
    public var failure: String? { if case .cannotMeasure(let r) = self { return r } else { return nil } }

    /// The pair could not be measured because there was nothing to match (eyes of different sizes, too small, or
    /// with too little texture), as opposed to features found in both eyes that do not agree as one stereo pair.
    public var failedForLackOfFeatures: Bool {
        guard let r = failure else { return false }
        return StereoAnalyzer.featurelessReasons.contains { r.hasPrefix($0) }
    }
}

/// Measures vertical disparity, rectification and horizontal disparity of a stereo pair from pixels.
public enum StereoAnalyzer {
    /// How the reasons begin when there is nothing to match (``StereoAnalysisResult/failedForLackOfFeatures``).
    static let featurelessReasons = ["the eyes differ in size", "the eyes are ", "too little texture"]

    public static func analyze(
        left: GrayImage, right: GrayImage, options o: StereoAnalysisOptions = StereoAnalysisOptions()
    ) -> StereoAnalysisResult {
        guard left.width == right.width, left.height == right.height else {
            return .cannotMeasure(
                "the eyes differ in size (\(left.width)×\(left.height) and \(right.width)×\(right.height))")
        }
        let W = left.width, H = left.height
        guard min(W, H) >= o.minSide else {
            return .cannotMeasure(
                "the eyes are \(W)×\(H) px; at least \(o.minSide) px per side are needed to find features")
        }
        var notes: [String] = []
        // Pyramids: refinement level (≤ maxRefineSide) and working level (≤ maxWorkingSide).
        var refineL = left, refineR = right, refineScale = 1
        while max(refineL.width, refineL.height) > o.maxRefineSide {
            let pair = parallelMap(2) { $0 == 0 ? refineL.downsampled2x() : refineR.downsampled2x() }
            refineL = pair[0]; refineR = pair[1]; refineScale *= 2
        }
        if refineScale > 1 {
            notes.append(
                "the \(W)×\(H) eyes were downscaled \(refineScale)× for measurement (\(refineL.width)×\(refineL.height)); results are converted back to input pixels"
            )
        }
        var workL = refineL, workR = refineR, workScale = 1
        while max(workL.width, workL.height) > o.maxWorkingSide {
            let pair = parallelMap(2) { $0 == 0 ? workL.downsampled2x() : workR.downsampled2x() }
            workL = pair[0]; workR = pair[1]; workScale *= 2
        }
        let kps = parallelMap(2) { i in FeatureDetector.detect(i == 0 ? workL : workR, maxFeatures: o.maxFeatures) }
        let kl = kps[0], kr = kps[1]
        if kl.count < o.minInliers || kr.count < o.minInliers {
            return .cannotMeasure(
                "too little texture: \(kl.count) corners in the left eye and \(kr.count) in the right (featureless or flat images)"
            )
        }
        let pairs = Matcher.match(
            kl, kr, maxDy: Float(o.maxVerticalSearch) * Float(workL.height),
            maxDx: Float(o.maxHorizontalSearch) * Float(workL.width), ratio: o.ratio)
        if pairs.count < o.minInliers {
            return .cannotMeasure(
                "only \(pairs.count) left↔right feature matches survived the ratio and mutual checks (needed \(o.minInliers)); the eyes may show different scenes"
            )
        }
        // Refine each match at the refinement level.
        let f = workScale  // working → refinement pixels
        let search = f + 1
        let refined: [StereoMatch] = parallelMap(workerCount) { c -> [StereoMatch] in
            let lo = pairs.count * c / workerCount, hi = pairs.count * (c + 1) / workerCount
            var out: [StereoMatch] = []
            for (li, ri) in pairs[lo..<hi] {
                let a = kl[li], b = kr[ri]
                let xl = Int(a.x) * f + f / 2, yl = Int(a.y) * f + f / 2
                let xr = Int(b.x) * f + f / 2, yr = Int(b.y) * f + f / 2
                if let m = Matcher.refine(
                    left: refineL, right: refineR, xl: xl, yl: yl, xr0: xr, yr0: yr, radius: o.patchRadius,
                    search: search, minNCC: o.minNCC)
                {
                    out.append(m)
                }
            }
            return out
        }.flatMap { $0 }
        if refined.count < o.minInliers {
            return .cannotMeasure(
                "only \(refined.count) matches passed sub-pixel refinement (NCC ≥ \(o.minNCC)); needed \(o.minInliers)")
        }
        // Back to input pixels (pixel centres: x_in = (x + 0.5)·s − 0.5).
        let s = Double(refineScale)
        let full = refined.map { m in
            StereoMatch(
                xl: (m.xl + 0.5) * s - 0.5, yl: (m.yl + 0.5) * s - 0.5, xr: (m.xr + 0.5) * s - 0.5,
                yr: (m.yr + 0.5) * s - 0.5, ncc: m.ncc)
        }
        let base = VerticalDisparityModel(cx: Double(W - 1) / 2, cy: Double(H - 1) / 2, n: Double(max(W, H)) / 2)
        let pts = full.map { (x: $0.xl, y: $0.yl, dy: $0.dy) }
        let threshold = max(1.0, 1.5 * Double(workScale * refineScale))
        guard let (model, mask) = DisparityFit.ransac(pts, base: base, threshold: threshold) else {
            return .cannotMeasure("the vertical-disparity model could not be fitted")
        }
        let inl = zip(full, mask).filter { $0.1 }.map { $0.0 }
        let outl = zip(full, mask).filter { !$0.1 }.map { $0.0 }
        if inl.count < o.minInliers {
            return .cannotMeasure(
                "only \(inl.count) matches agree on one vertical-disparity field (needed \(o.minInliers))")
        }
        let dys = inl.map(\.dy), absDy = dys.map { abs($0) }, disp = inl.map(\.disparity)
        let resid = inl.map { $0.dy - model.predict(x: $0.xl, y: $0.yl) }
        var cells = Set<Int>()
        for m in inl { cells.insert(min(3, Int(m.xl / Double(W) * 4)) * 4 + min(3, Int(m.yl / Double(H) * 4))) }
        let coverage = Double(cells.count) / 16
        let ratio = Double(inl.count) / Double(max(1, full.count))
        let confidence = min(1, Double(inl.count) / 150) * (0.4 + 0.6 * coverage) * min(1, ratio / 0.5)
        var result = StereoMeasurement(
            width: W, height: H, workingScale: workScale * refineScale, refineScale: refineScale,
            keypointsLeft: kl.count, keypointsRight: kr.count, tentativeMatches: pairs.count,
            refinedMatches: refined.count,
            matches: inl, outliers: outl, model: model,
            medianDy: Stats.median(dys) ?? 0, medianAbsDy: Stats.median(absDy) ?? 0,
            p95AbsDy: Stats.percentile(absDy, 95) ?? 0,
            meanDy: Stats.mean(dys) ?? 0,
            residualRMS: ((resid.map { $0 * $0 }.reduce(0, +)) / Double(resid.count)).squareRoot(),
            disparityFar: Stats.percentile(disp, 2) ?? 0, disparityNear: Stats.percentile(disp, 98) ?? 0,
            disparityMedian: Stats.median(disp) ?? 0,
            fractionNegativeDisparity: Double(disp.filter { $0 < 0 }.count) / Double(disp.count),
            hfovDegrees: o.hfovDegrees, coverage: coverage, confidence: confidence, notes: notes)
        finish(&result, left: workL, right: workR, workScale: Double(workScale * refineScale), options: o)
        return .measured(result)
    }

    /// Rectification fit, rectified disparity statistics, occlusion evidence and sharpness.
    static func finish(
        _ m: inout StereoMeasurement, left: GrayImage, right: GrayImage, workScale: Double,
        options o: StereoAnalysisOptions
    ) {
        m.sharpnessLeft = OcclusionTest.sharpness(left)
        m.sharpnessRight = OcclusionTest.sharpness(right)
        guard
            let rect = RectificationModel.fitSymmetric(
                m.matches, width: m.width, height: m.height, focalPixels: m.focalPixels)
        else { return }
        m.rectification = rect
        let H = rect.homography
        var disp: [Double] = [], dy: [Double] = []
        // Rectified with the fitted radial term (both eyes undistorted): a far field at infinity has one disparity
        // across the frame, where a distorted pair spreads it by the lens's stretch at the edges.
        for mt in m.matches {
            let p = rect.rectified(mt)
            disp.append(p.disparity); dy.append(abs(p.dy))
        }
        // The far and near ends need at least three matches behind them (one stray match is not a far field).
        m.rectifiedFar = Stats.supportedPercentile(disp, 2, support: 3) ?? 0
        m.rectifiedNear = Stats.supportedPercentile(disp, 98, support: 3) ?? 0
        m.rectifiedMedian = Stats.median(disp) ?? 0
        m.rectifiedFractionNegative = Double(disp.filter { $0 < 0 }.count) / Double(max(1, disp.count))
        m.rectifiedMedianAbsDy = Stats.median(dy) ?? 0
        m.rectifiedP95AbsDy = Stats.percentile(dy, 95) ?? 0
        guard o.occlusionTest else { return }
        // The rectifying warp at working resolution: conjugate by the scale.
        let s = workScale, c = 0.5 * (s - 1)
        let toFull: [Double] = [s, 0, c, 0, s, c, 0, 0, 1],
            toWork: [Double] = [1 / s, 0, -c / s, 0, 1 / s, -c / s, 0, 0, 1]
        let Hw = Mat3.mul(toWork, Mat3.mul(H, toFull))
        let rr = StereoWarp.warp(right, Hw)
        m.occlusion = OcclusionTest.evaluate(
            left: left, right: rr, disparityMin: (Stats.percentile(disp, 0.5) ?? 0) / s,
            disparityMax: (Stats.percentile(disp, 99.5) ?? 0) / s)
        // Input pixels per test pixel (the test reduces the working eyes further); the depth the scene has there, far
        // to near end of the matches (2nd … 98th percentile, each with three matches behind it: not one stray match).
        m.occlusion?.workingScale *= s
        if let k = m.occlusion?.workingScale {
            m.occlusion?.disparitySpan = max(0, m.rectifiedNear - m.rectifiedFar) / k
        }
    }
}
