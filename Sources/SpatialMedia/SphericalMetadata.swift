import BinaryIO
import SystemSupport
import ISOBMFF

/// Projection and frame packing in Apple's terms (`vexu/proj/prji`, `vexu/pack/pkin`), the target of a
/// conversion from Google's spherical metadata and its source when converting back.
public struct APMPSignal: Sendable, Equatable {
    /// `prji` projection kind: `equi` (360°) or `hequ` (180°) from Google metadata.
    public var projection: FourCC
    /// `pkin` view packing (`side`, `over`), nil for mono.
    public var packing: FourCC?
    public init(projection: FourCC, packing: FourCC?) { self.projection = projection; self.packing = packing }
}

/// Google spherical metadata in its v2 box form (`st3d` + `sv3d{svhd, proj{prhd, equi}}`).
public struct GoogleSphericalSignal: Sendable, Equatable {
    /// `st3d` stereo mode: 0 mono, 1 top-bottom, 2 left-right.
    public var stereoMode: UInt8
    /// `equi` bounds (top, bottom, left, right; 0.32 fractions cropped from each edge).
    public var bounds: [UInt32]
}

extension StereoVideoMetadata {
    /// 0.32 fixed-point quarter: the left and right crop of a 180° half of a 360° equirectangular frame.
    static let quarterBound: UInt32 = 0x4000_0000

    /// True when Google spherical metadata is present (v2 `sv3d`, or v1 XML saying the video is spherical).
    public var hasGoogleSphere: Bool {
        presentBoxes.contains("sv3d") || sphericalV1Projection != nil
            || sphericalV1Fields.contains { $0.0 == "Spherical" && $0.1.lowercased() == "true" }
    }

    /// True when any form of metadata says the picture is not a flat rectilinear view: an APMP projection
    /// other than `rect`, Google `sv3d`, or the v1 XML.
    public var isSpherical: Bool {
        if let p = projectionKind, p != "rect" { return true }
        return hasGoogleSphere
    }

    /// Every projection statement in the file, one per form, as (source, text) for `info`.
    public var projectionForms: [(source: String, text: String)] {
        var out: [(String, String)] = []
        if let p = projectionKind {
            var t = SpatialFormat.projectionName(p)
            if let n = lensCount { t += ", lens collection of \(n) lens\(n == 1 ? "" : "es")" }
            out.append(("APMP vexu/proj", t))
        }
        if presentBoxes.contains("sv3d") {
            var t: String
            switch googleProjection {
            case "equi":
                t = "equirectangular"
                if let b = googleEquirectBounds { t += " " + Self.coverageText(bounds: b) }
            case "mshp": t = "mesh ('mshp')"
            case "cbmp": t = "cubemap ('cbmp')"
            case let g?: t = "'\(g)'"
            case nil: t = "no projection box"
            }
            if let pose = googlePose, pose.contains(where: { $0 != 0 }) {
                t += ", pose yaw \(Self.fixed16(pose[0]))° pitch \(Self.fixed16(pose[1]))° roll \(Self.fixed16(pose[2]))°"
            }
            out.append(("Google sv3d (v2)", t))
        }
        if sphericalV1Projection != nil || !sphericalV1Fields.isEmpty {
            var t = sphericalV1Projection ?? "no ProjectionType"
            if let c = v1Coverage { t += " (\(c.h)°×\(c.v)° of the sphere)" }
            out.append(("Google spherical v1 (uuid XML)", t))
        }
        return out
    }

    static func fixed16(_ v: Int32) -> String { NumberText.fixed(Double(v) / 65536, places: 3) }

    /// "(360°×180°)" style coverage of an `equi` crop.
    static func coverageText(bounds b: [UInt32]) -> String {
        let c = coverage(bounds: b)
        return "(\(NumberText.fixed(c.h, places: 1))°×\(NumberText.fixed(c.v, places: 1))° of the sphere)"
    }

    /// Degrees of the sphere left after cropping `bounds` (top, bottom, left, right) off a 360°×180° frame.
    static func coverage(bounds b: [UInt32]) -> (h: Double, v: Double) {
        guard b.count == 4 else { return (360, 180) }
        let scale = 4_294_967_296.0
        return (360 * (1 - (Double(b[2]) + Double(b[3])) / scale), 180 * (1 - (Double(b[0]) + Double(b[1])) / scale))
    }

    func v1Int(_ name: String) -> Int? { sphericalV1Fields.first { $0.0 == name }.flatMap { Int($0.1) } }

    /// Coverage in whole degrees from the v1 cropped-area fields, when they are all present.
    var v1Coverage: (h: Int, v: Int)? {
        guard let cw = v1Int("CroppedAreaImageWidthPixels"), let ch = v1Int("CroppedAreaImageHeightPixels"),
              let fw = v1Int("FullPanoWidthPixels"), let fh = v1Int("FullPanoHeightPixels"), fw > 0, fh > 0 else { return nil }
        return (Int((360 * Double(cw) / Double(fw)).rounded()), Int((180 * Double(ch) / Double(fh)).rounded()))
    }

    /// The APMP signalling that says exactly what the Google metadata says, or the reason there is none.
    ///
    /// v2 wins over v1. Mono or frame-packed (`st3d` 0/1/2, v1 `mono`/`top-bottom`/`left-right`);
    /// equirectangular covering the whole sphere → `equi`, exactly the middle half horizontally and the whole
    /// height → `hequ`. Refused: other crops, cubemaps, a non-zero initial pose, `st3d` 3 (per-eye meshes),
    /// and meshes — unless `assumeProjection` is given (a VR180 camera mesh is usually half-equirectangular,
    /// but checking that would need the mesh decoded, so the caller must say so).
    public func googleToAPMP(assumeProjection: FourCC? = nil) -> Result<APMPSignal, SphericalConversionError> {
        guard hasGoogleSphere else { return .failure(.init("the track carries no Google spherical metadata (st3d/sv3d or the v1 uuid XML)")) }
        var packing: FourCC?
        if let m = googleStereoMode {
            switch m {
            case 0: packing = nil
            case 1: packing = "over"
            case 2: packing = "side"
            default: return .failure(.init("st3d stereo mode \(m) (per-eye meshes or reserved) has no APMP equivalent"))
            }
        } else if let x = sphericalV1StereoMode?.lowercased() {
            switch x {
            case "mono": packing = nil
            case "top-bottom": packing = "over"
            case "left-right": packing = "side"
            default: return .failure(.init("v1 stereo mode '\(x)' has no APMP equivalent"))
            }
        }
        var kind: FourCC
        if presentBoxes.contains("sv3d") {
            if let pose = googlePose, pose.contains(where: { $0 != 0 }) {
                return .failure(.init("sv3d/proj/prhd sets an initial pose (yaw \(Self.fixed16(pose[0]))°, pitch \(Self.fixed16(pose[1]))°, roll \(Self.fixed16(pose[2]))°); APMP has no pose, so the view would turn"))
            }
            switch googleProjection {
            case "equi":
                let b = googleEquirectBounds ?? [0, 0, 0, 0]
                if b == [0, 0, 0, 0] { kind = "equi" }
                else if b == [0, 0, Self.quarterBound, Self.quarterBound] { kind = "hequ" }
                else { return .failure(.init("the equirectangular crop \(Self.coverageText(bounds: b)) is neither the whole sphere (equi) nor its middle half (hequ)")) }
            case "mshp":
                guard let a = assumeProjection else {
                    return .failure(.init("the projection is a mesh (sv3d/proj/mshp): whether it is half-equirectangular cannot be checked without decoding the mesh; state the projection (hequ or equi)", remedy: .giveProjection))
                }
                kind = a
            case "cbmp": return .failure(.init("a cubemap projection (sv3d/proj/cbmp) has no APMP equivalent"))
            default: return .failure(.init("sv3d has no projection box"))
            }
        } else {
            guard (sphericalV1Projection ?? "equirectangular").lowercased() == "equirectangular" else {
                return .failure(.init("v1 projection '\(sphericalV1Projection ?? "")' has no APMP equivalent"))
            }
            for f in ["InitialViewHeadingDegrees", "InitialViewPitchDegrees", "InitialViewRollDegrees", "PoseHeadingDegrees", "PosePitchDegrees", "PoseRollDegrees"] {
                if let v = sphericalV1Fields.first(where: { $0.0 == f })?.1, let d = Double(v), d != 0 {
                    return .failure(.init("the v1 XML sets \(f) = \(v); APMP has no initial view or pose, so the view would turn"))
                }
            }
            if let c = v1Coverage, let cw = v1Int("CroppedAreaImageWidthPixels"), let fw = v1Int("FullPanoWidthPixels") {
                let left = v1Int("CroppedAreaLeftPixels") ?? 0, top = v1Int("CroppedAreaTopPixels") ?? 0
                if c.h == 360 && c.v == 180 && left == 0 && top == 0 { kind = "equi" }
                else if cw * 2 == fw && left * 4 == fw && top == 0 && c.v == 180 { kind = "hequ" }
                else { return .failure(.init("the v1 cropped area (\(c.h)°×\(c.v)° of the sphere) is neither the whole sphere nor its middle half")) }
            } else {
                kind = "equi"
            }
        }
        if let a = assumeProjection, a != kind {
            return .failure(.init("the projection given, '\(a)', contradicts the Google metadata, which says '\(kind)'"))
        }
        return .success(APMPSignal(projection: kind, packing: packing))
    }

    /// The Google v2 metadata that says exactly what the APMP boxes say, or the reason there is none.
    public func apmpToGoogle(isMVHEVC: Bool) -> Result<GoogleSphericalSignal, SphericalConversionError> {
        guard let p = projectionKind else { return .failure(.init("the track has no APMP projection (vexu/proj/prji)")) }
        let bounds: [UInt32]
        switch p {
        case "equi": bounds = [0, 0, 0, 0]
        case "hequ": bounds = [0, 0, Self.quarterBound, Self.quarterBound]
        default: return .failure(.init("projection '\(p)' has no Google spherical equivalent (only equi and hequ do)"))
        }
        var mode: UInt8 = 0
        switch viewPackingKind {
        case "side": mode = 2
        case "over": mode = 1
        case nil:
            if isMVHEVC, let f = viewFlags, f.hasLeftEye && f.hasRightEye {
                return .failure(.init("the stereo is MV-HEVC (two layers); Google's st3d describes frame-packed pictures only"))
            }
        case let k?: return .failure(.init("view packing '\(k)' has no Google equivalent"))
        }
        return .success(GoogleSphericalSignal(stereoMode: mode, bounds: bounds))
    }
}

/// Why spherical metadata cannot be converted without changing its meaning.
public struct SphericalConversionError: Error, Sendable, Equatable {
    public var reason: String
    /// What the caller can state to get past it (the projection of a mesh), if anything.
    public var remedy: ParseError.Remedy?
    public init(_ reason: String, remedy: ParseError.Remedy? = nil) { self.reason = reason; self.remedy = remedy }
}

extension SpatialVideoReport {
    /// Why the primary video of `file` must not be converted to (rectilinear) spatial video, or nil.
    ///
    /// A sphere — an APMP projection other than `rect`, Google `sv3d`, or the v1 XML — converted to spatial video
    /// would be shown flat at an arbitrary field of view. Used by `convert`, which refuses such sources; the
    /// reason names the projection and the lossless alternative.
    public static func sphereRefusal(_ file: ISOFile) -> String? {
        let r = SpatialVideoReport(file)
        guard let m = r.primary?.metadata, m.isSpherical else { return nil }
        let forms = m.projectionForms.map { "\($0.source): \($0.text)" }.joined(separator: "; ")
        let what = "the video is a sphere (\(forms)); converting it to spatial video would flatten it to a rectilinear picture"
        if let p = m.projectionKind, p != "rect" {
            return "\(what). It already carries its APMP projection ('\(p)'): Apple's players show it as is (check it with `spatial-media validate`)"
        }
        switch m.googleToAPMP() {
        case .success(let s):
            return "\(what). Tag it as APMP without re-encoding instead: `spatial-media edit IN -o OUT --to-apmp` (writes proj '\(s.projection)'\(s.packing.map { ", pack '\($0)'" } ?? ""))"
        case .failure(let e):
            return "\(what), and its Google metadata has no exact APMP form (\(e.reason))"
        }
    }

    /// Why `convert` refuses a movie whose video is already MV-HEVC (two views in two layers), or nil. Its frames are
    /// not a side-by-side or over-under picture: a decoder of the base layer gives one eye, which the conversion would
    /// cut in half. The message names what the user most likely meant.
    public static func multiviewRefusal(_ file: ISOFile) -> String? {
        let r = SpatialVideoReport(file)
        guard let v = r.primary, v.isMVHEVC else { return nil }
        return "the video is already MV-HEVC with two views (a spatial or 3D video): `convert` takes side-by-side, over-under or two-file 3D video, and would cut one view in half. Change its metadata with `spatial-media edit IN -o OUT` (baseline, field of view, disparity, hero), repair it with `spatial-media fix`, or re-encode it by splitting it into a side-by-side movie (`spatial-media split`) and converting that"
    }
}
