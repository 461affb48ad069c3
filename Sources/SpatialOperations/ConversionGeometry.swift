import BinaryIO
import ImageFormats
import MediaDecode
import SpatialConvert
import SpatialMedia
import SpatialValidation
import StereoVision

/// Conversion-time geometry: the faults of the source found before a spatial file is written, and the work of
/// `align` / `auto_disparity`. The faults come from the source's content, not from the job: they are warnings naming
/// the option that fixes them (a refusal with `strict`).
enum ConversionGeometry {
    /// The faults of one pair worth a warning before a spatial file is written (`GeometryDiagnosis.conversionFaults`),
    /// measured in the pixels `validate` reads (the same grey conversion and size), so both give one verdict.
    static func warnings(
        left: Image, right: Image, stereo: StereoParameters, align: Bool, autoDisparity: Bool, fromOnePicture: Bool
    ) -> [VideoGeometryWarning] {
        GeometryDiagnosis.conversionFaults(
            left: left, right: right, stereo: stereo, align: align, autoDisparity: autoDisparity,
            fromOnePicture: fromOnePicture
        ).map {
            VideoGeometryWarning(ruleID: $0.ruleID, severity: $0.severity, message: $0.message, fixes: $0.fixes)
        }
    }

    static func line(_ w: VideoGeometryWarning) -> String { "\(w.severityLabel) \(w.ruleID): \(w.message)" }

    /// The check run on sampled frames of a video converted without `align` / `auto_disparity`: each fault is told
    /// (`message`) the first time a frame shows it, while the file is still being encoded.
    /// `fromOnePicture`: the eyes are cut from one frame-packed picture (not two files or two views).
    static func video(_ o: VideoConversionOptions, fromOnePicture: Bool, message: (@Sendable (String) -> Void)?)
        -> VideoGeometryCheck
    {
        // What the written file will say (the given values, else the defaults); no disparity adjustment when none was
        // given.
        var known = o.stereo.filled()
        known.disparityAdjustment = o.stereo.disparityAdjustment
        return VideoGeometryCheck(
            inspect: { [known] _, l, r in
                warnings(
                    left: l, right: r, stereo: known, align: false, autoDisparity: false, fromOnePicture: fromOnePicture
                )
            },
            onFirstWarning: { frame, w in
                message?("frame \(frame): \(line(w))")
            })
    }

    /// Measures the pair, applies the requested fixes to `pair` and `options`, tells the faults of what will be written
    /// (measured as `validate` measures, naming the option that fixes them) and the input's faults the fixes removed
    /// ("fixed by --align"), and returns the faults that remain.
    static func prepare(
        _ pair: inout StereoPair, options o: inout PhotoConversionOptions, align: Bool, autoDisparity: Bool,
        message: (@Sendable (String) -> Void)?
    ) throws(ParseError) -> [VideoGeometryWarning] {
        let hfov = PhotoConverter.fieldOfView(pair, options: o)
        // What the written file will say: the given values, else the source's, else the defaults; no disparity
        // adjustment when neither gives one (so `auto_disparity` is offered).
        var known = try PhotoConverter.chosenStereo(pair, options: o)
        if o.stereo.disparityAdjustment == nil && pair.sourceStereo.disparityAdjustment == nil {
            known.disparityAdjustment = nil
        }
        let before = GeometryDiagnosis.conversionFaults(
            left: pair.left, right: pair.right, stereo: known, align: align, autoDisparity: autoDisparity,
            fromOnePicture: pair.packedLayout != nil)
        var found = before
        var fixed: [(fault: ConversionFault, by: String)] = []
        if align || autoDisparity {
            let p = try PairAligner.prepare(
                left: pair.left, right: pair.right, hfovDegrees: hfov.degrees, align: align,
                autoDisparity: autoDisparity)
            pair.left = p.left; pair.right = p.right
            if let w = p.report.warp { pair.eyeWarp = w }
            if let h = p.report.hfovDegrees {
                try o.stereo.setHorizontalFieldOfView(degrees: h); o.hfovSource = "\(hfov.source), cropped by --align";
                try known.setHorizontalFieldOfView(degrees: h)
            }
            if let d = p.report.disparityPercent {
                try o.stereo.setDisparity(percent: d); o.disparitySource = "--auto-disparity (measured)";
                try known.setDisparity(percent: d)
            }
            pair.notes += p.report.lines
            for l in p.report.lines { message?(l) }
            if p.report.aligned || p.report.disparityPercent != nil {
                let after = GeometryDiagnosis.conversionFaults(
                    left: pair.left, right: pair.right, stereo: known, align: align, autoDisparity: autoDisparity,
                    fromOnePicture: pair.packedLayout != nil)
                (found, fixed) = GeometryDiagnosis.faultsAfterFixes(before: before, after: after)
            }
        }
        for w in found { message?(w.line) }
        for f in fixed {
            message?("fixed by \(f.by): \(f.fault.line)")
            pair.notes.append("fixed by \(f.by): \(f.fault.ruleID)")
        }
        let hints = ["--align", "--auto-disparity"].filter(Set(found.flatMap(\.fixes)).contains)
        if !hints.isEmpty {
            message?("the pair has fixable faults; add \(hints.joined(separator: " ")) to fix them while converting")
        }
        return found.map {
            VideoGeometryWarning(ruleID: $0.ruleID, severity: $0.severity, message: $0.message, fixes: $0.fixes)
        }
    }
}
