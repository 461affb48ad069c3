import BinaryIO
import StereoVision
import SystemSupport

extension ValidationReport {
    /// Text for people.
    public var lines: [String] {
        var out: [String] = []
        out.append("\(input): \(kind)")
        if let p = profile { out.append("  profile: \(p.title)") }
        let errs = findings.filter { $0.severity == .error }.count,
            warns = findings.filter { $0.severity == .warning }.count
        switch kind {
        case "spatial-video", "movie":
            out.append(
                spatial
                    ? "  will it be spatial? yes — it has everything Apple documents for spatial video (not verified on a device)"
                    : "  will it be spatial? no")
        case "spatial-photo", "heif-image":
            out.append(spatial ? "  will it be spatial? yes — a spatial photo" : "  will it be spatial? no")
        case "unreadable", "isobmff", "hevc-stream", "2d-image", "2d-video":
            out.append("  will it be spatial? no" + (whyNotSpatial.first.map { " (\($0))" } ?? ""))
        default:
            out.append(
                "  will it be spatial? no (\(whyNotSpatial.first ?? "no spatial metadata")); the pixels are checked as a stereo pair"
            )
        }
        if !spatial, ["spatial-video", "movie", "spatial-photo", "heif-image"].contains(kind) {
            for w in whyNotSpatial { out.append("    because \(w)") }
        }
        for (label, res) in measurements {
            let prefix = label.isEmpty ? "  geometry" : "  geometry (\(label))"
            if let m = res.measurement {
                var s =
                    "\(prefix): vertical disparity median \(Fmt.num(m.medianAbsDy)) px (\(Fmt.num(m.percentOfHeight(m.medianAbsDy)))% H"
                if let a = m.arcminutes(m.medianAbsDy) { s += ", \(Fmt.num(a, 1))′" }
                s +=
                    "), p95 \(Fmt.num(m.p95AbsDy)) px; roll \(Fmt.num(m.rollDegrees, 3))°; scale \(Fmt.num(m.verticalScalePercent, 3))%; keystone \(Fmt.num(m.keystoneCornerPixels)) px; disparity \(Fmt.num(m.disparityFar)) … \(Fmt.num(m.disparityNear)) px; \(m.matches.count) inliers, confidence \(m.confidenceLabel)"
                out.append(s)
            } else {
                out.append("\(prefix): cannot measure: \(res.failure ?? "")")
            }
        }
        for f in findings.sorted(by: { $0.severity > $1.severity }) {
            out.append(
                "  \(f.severity.rawValue.uppercased()) \(f.ruleID): \(f.message)"
                    + (f.location.isEmpty ? "" : " [\(f.location)]"))
        }
        out.append("  result: \(errs) error(s), \(warns) warning(s)")
        return out
    }

    /// Machine-readable form.
    public var json: JSON {
        var o: [(String, JSON)] = [
            ("file", .string(input)), ("kind", .string(kind)), ("spatial", .bool(spatial)),
            ("why_not_spatial", .array(whyNotSpatial.map { .string($0) })),
            ("worst", worst.map { .string($0.rawValue) } ?? .null), ("exit_code", .int(Int64(exitCode))),
        ]
        if let p = profile { o.append(("profile", p.json)) }
        o.append(("metadata", .object(summary)))
        o.append(("geometry", .array(measurements.map { Self.measurementJSON($0.label, $0.result) })))
        o.append(("findings", .array(findings.map(\.json))))
        if !timings.isEmpty {
            o.append(
                (
                    "timings_seconds",
                    .object(timings.map { ($0.stage, .double(($0.seconds * 10000).rounded() / 10000)) })
                ))
        }
        return .object(o)
    }

    static func measurementJSON(_ label: String, _ r: StereoAnalysisResult) -> JSON {
        var o: [(String, JSON)] = []
        if !label.isEmpty { o.append(("frame", .string(label))) }
        guard let m = r.measurement else {
            o.append(("measured", .bool(false))); o.append(("reason", .string(r.failure ?? "")))
            return .object(o)
        }
        func opt(_ v: Double?) -> JSON { v.map { .double(($0 * 10000).rounded() / 10000) } ?? .null }
        func d(_ v: Double) -> JSON { opt(v) }
        o += [
            ("measured", .bool(true)), ("width", .int(Int64(m.width))), ("height", .int(Int64(m.height))),
            ("working_scale", .int(Int64(m.workingScale))),
            ("keypoints", .array([.int(Int64(m.keypointsLeft)), .int(Int64(m.keypointsRight))])),
            ("matches", .int(Int64(m.refinedMatches))),
            ("inliers", .int(Int64(m.matches.count))), ("confidence", d(m.confidence)), ("coverage", d(m.coverage)),
            (
                "vertical_disparity",
                .object([
                    ("median_px", d(m.medianDy)), ("median_abs_px", d(m.medianAbsDy)), ("p95_abs_px", d(m.p95AbsDy)),
                    ("mean_px", d(m.meanDy)), ("median_abs_percent_height", d(m.percentOfHeight(m.medianAbsDy))),
                    ("median_abs_arcmin", opt(m.arcminutes(m.medianAbsDy))), ("residual_rms_px", d(m.residualRMS)),
                ])
            ),
            (
                "rectification",
                .object([
                    ("roll_degrees", d(m.rollDegrees)), ("roll_edge_px", d(m.rollEdgePixels)),
                    ("vertical_scale_percent", d(m.verticalScalePercent)), ("scale_edge_px", d(m.scaleEdgePixels)),
                    ("keystone_corner_px", d(m.keystoneCornerPixels)), ("toe_in_degrees", opt(m.toeInDegrees)),
                    ("pitch_quadratic_edge_px", d(m.pitchEdgePixels)), ("offset_px", d(m.model.a)),
                ])
            ),
            (
                "horizontal_disparity",
                .object([
                    ("far_px", d(m.disparityFar)), ("median_px", d(m.disparityMedian)), ("near_px", d(m.disparityNear)),
                    ("far_percent_width", d(m.percentOfWidth(m.disparityFar))),
                    ("near_percent_width", d(m.percentOfWidth(m.disparityNear))),
                    ("fraction_negative", d(m.fractionNegativeDisparity)),
                ])
            ),
            ("notes", .array(m.notes.map { .string($0) })),
        ]
        return .object(o)
    }
}
