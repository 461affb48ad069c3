import BinaryIO
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialMedia
import SystemSupport

/// Pixel checks of frame-packed movies and of spheres (Specs/validation.md, "Frame-packed and spherical pixels").
extension Validator {
    /// A sphere is measured only in its centre, where an equirectangular picture is close to a rectilinear one: this
    /// many degrees either side of the centre, horizontally and vertically (a 60°×60° window; at its edges the
    /// equirectangular scale is within 1 − cos 30° ≈ 13 % horizontally and tan 30° / (π/6) ≈ 10 % radially of a
    /// rectilinear view's).
    static let sphereHalfWindowDegrees = 30.0

    /// The rules the centre of a sphere answers for: vertical disparity (SV-GEOM-001 … 004), eye order (007) and the
    /// measurement's own notes (011 … 013). The others assume a flat picture with a window and a field of view.
    static let sphereRules: Set<String> = [
        "SV-GEOM-001", "SV-GEOM-002", "SV-GEOM-003", "SV-GEOM-004", "SV-GEOM-007", "SV-GEOM-011", "SV-GEOM-012",
        "SV-GEOM-013",
    ]

    /// Measures a frame-packed movie (both eyes in one picture, `layout` or its metadata) or a sphere (frame-packed or
    /// MV-HEVC; its centre only). Returns false when the movie is neither, leaving it to the other checks.
    static func framePackedOrSpherePixels(
        _ file: ISOFile, path: String, verdict v: VideoRules.Verdict, options: ValidationOptions,
        facts: StereoFacts, into r: inout ValidationReport
    ) -> Bool {
        let profile = v.profile.profile
        let sphere = profile == .apmp180 || profile == .apmp360 || profile == .googleSpherical
        guard sphere || profile == .framePacked3D || options.layout != nil else { return false }
        let report = SpatialVideoReport(file)
        guard let primary = report.primary else { return true }
        let m = primary.metadata
        var span: Double?
        if sphere {
            span = sphereSpan(m)
            if span == nil {
                r.findings.append(
                    Finding(
                        "SV-GEOM-015", .info,
                        "pixels not checked: the sphere's projection (\(m.projectionForms.map(\.text).joined(separator: "; "))) is neither equirectangular 360° nor 180°, whose centre is measured"
                    ))
                return true
            }
        }
        let track = file.tracks.first { $0.trackID == primary.trackID }
        // Presented frames (the metadata rules count them for HEVC tracks; otherwise the track's samples).
        let total = v.frameCount > 0 ? v.frameCount : track?.sampleCount ?? 0
        let picks = PixelSource.pickFrames(total: max(1, total), count: options.frames)
        var pairs: [(index: Int, left: Image, right: Image)] = []
        var how: String
        let packedLayout = options.layout ?? m.framePacking.map { $0 == .sideBySide ? StereoLayout.sbs : .tb }
        do throws(ParseError) {
            if let given = packedLayout {
                let d = (try? track?.samples(first: 1))??.first.map { Int($0.duration) } ?? 0
                let ts = Int(track?.timescale ?? 0)
                pairs = try FramePackedFrames.sample(
                    path, indices: picks, fpsNum: ts > 0 && d > 0 ? ts : 30, fpsDen: ts > 0 && d > 0 ? d : 1,
                    layout: given)
                how =
                    "frame-packed \(given.resolved(width: primary.width, height: primary.height) == .sbs ? "side by side" : "top-bottom") picture decoded by FFmpeg and cut in half"
            } else if v.hasTwoLayerStream || primary.isMVHEVC {
                pairs = try SpatialVideoSource.inspect(path, limits: options.limits).sampledFrames(picks)
                how = "both views decoded by FFmpeg"
            } else {
                r.findings.append(
                    Finding(
                        "SV-GEOM-015", .info,
                        "pixels not checked: one view only (no frame packing or second layer), so there is no stereo pair to measure"
                    ))
                return true
            }
        } catch {
            r.findings.append(
                Finding.pixelsNotChecked(error.message))
            return true
        }
        var region: String?
        for p in pairs {
            let label = "frame \(p.index)"
            do throws(ParseError) {
                let notes = ["\(how) (frame \(p.index) of \(total) presented)"]
                region =
                    try measurePair(
                        p.left, p.right, span: span, notes: notes, label: label, facts: facts,
                        fromOnePicture: packedLayout != nil,
                        options: options, into: &r) ?? region
            } catch {
                r.findings.append(Finding("SV-GEOM-022", .info, "\(label) could not be measured: \(error.message)"))
            }
        }
        r.facts = facts
        if let region { r.findings.append(Finding("SV-GEOM-022", .info, region)) }
        r.findings.append(
            Finding(
                "SV-GEOM-022", .info,
                "measured \(pairs.count) frame\(pairs.count == 1 ? "" : "s") (\(pairs.map { "frame \($0.index)" }.joined(separator: ", ")))"
            ))
        return true
    }

    /// Measures one pair: the whole pictures, or for a sphere (`span`: degrees of longitude per eye) their central
    /// 60°×60° with only the rules that region answers for (``sphereRules``). Returns the sphere's region sentence.
    /// `fromOnePicture`: the two images were cut from one frame-packed picture (``EyePixels/fromOnePicture``).
    static func measurePair(
        _ left: Image, _ right: Image, span: Double?, notes: [String], label: String, facts: StereoFacts,
        fromOnePicture: Bool, options: ValidationOptions, into r: inout ValidationReport
    ) throws(ParseError) -> String? {
        var l = left, rt = right, region: String?
        if let span {
            let w = l.width, h = l.height
            let cw = max(2, Int(Double(w) * sphereHalfWindowDegrees * 2 / span)),
                ch = max(2, Int(Double(h) * sphereHalfWindowDegrees * 2 / 180))
            let x = max(0, (w - min(w, cw)) / 2), y = max(0, (h - min(h, ch)) / 2)
            l = try ImageOps.crop(l, x: x, y: y, width: min(w, cw), height: min(h, ch))
            rt = try ImageOps.crop(rt, x: x, y: y, width: min(w, cw), height: min(h, ch))
            region =
                "sphere (\(NumberText.fixed(span, places: 0))° wide per eye): measured its central \(Int(sphereHalfWindowDegrees * 2))°×\(Int(sphereHalfWindowDegrees * 2))° (\(l.width)×\(l.height) px of each eye), where the projection is near rectilinear; vertical disparity and eye order only"
        }
        var e = try PixelSource.eyes(l, rt, notes: notes)
        e.label = label
        e.fromOnePicture = fromOnePicture
        var regionFacts = facts
        if span != nil {
            regionFacts.stereo.horizontalFieldOfViewMillidegrees = UInt32(sphereHalfWindowDegrees * 2 * 1000)
        }
        let start = r.findings.count
        measure(e, facts: regionFacts, label: label, options: options, into: &r)
        if span != nil {
            let added = r.findings[start...].filter { Self.sphereRules.contains($0.ruleID) }
            r.findings.removeSubrange(start...)
            r.findings.append(contentsOf: added)
        }
        return region
    }

    /// Degrees of longitude one eye's picture spans: 360 (`equi`, Google full sphere), 180 (`hequ`, Google middle
    /// half); nil for other projections (fisheye, meshes, cubemaps, other crops).
    static func sphereSpan(_ m: StereoVideoMetadata) -> Double? {
        if let p = m.projectionKind { return p == "equi" ? 360 : p == "hequ" ? 180 : nil }
        if case .success(let s) = m.googleToAPMP() { return s.projection == "hequ" ? 180 : 360 }
        return nil
    }
}
