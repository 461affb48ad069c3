import BinaryIO
import ISOBMFF
import SystemSupport

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
    /// `equi` bounds (top, bottom, left, right; 0.32 fixed-point fractions cropped from each edge).
    public var bounds: [UInt32]
    /// `prhd` initial pose (yaw, pitch, roll; 16.16 fixed-point degrees): zero from APMP (which has none), the
    /// source's own when a Google sphere is carried over.
    public var pose: [Int32] = [0, 0, 0]

    /// `sv3d{svhd "spatial-media", proj{prhd pose, equi bounds}}`: the one place the project writes a Google sphere.
    public var sv3d: Box {
        let p = (0..<3).map { $0 < pose.count ? pose[$0] : 0 }
        let b = (0..<4).map { $0 < bounds.count ? bounds[$0] : 0 }
        let proj = Box(
            type: "proj",
            children: [
                Box(ProjectionHeaderBox(poseYaw: p[0], posePitch: p[1], poseRoll: p[2]), type: "prhd"),
                Box(
                    EquirectangularProjectionBox(
                        boundsTop: b[0], boundsBottom: b[1], boundsLeft: b[2], boundsRight: b[3]),
                    type: "equi"),
            ])
        return Box(type: "sv3d", children: [Box(SphericalVideoHeaderBox(source: "spatial-media"), type: "svhd"), proj])
    }

    /// The two boxes, in the order a sample entry carries them: `st3d` (FullBox, the stereo mode) then ``sv3d``.
    public var boxes: [Box] {
        [Box(Stereoscopic3DVideoBox(stereoMode: stereoMode), type: "st3d"), sv3d]
    }
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
                t +=
                    ", pose yaw \(Self.fixed16(pose[0]))° pitch \(Self.fixed16(pose[1]))° roll \(Self.fixed16(pose[2]))°"
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
            let fw = v1Int("FullPanoWidthPixels"), let fh = v1Int("FullPanoHeightPixels"), fw > 0, fh > 0
        else { return nil }
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
        guard hasGoogleSphere else {
            return .failure(.init("the track carries no Google spherical metadata (st3d/sv3d or the v1 uuid XML)"))
        }
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
                return .failure(
                    .init(
                        "sv3d/proj/prhd sets an initial pose (yaw \(Self.fixed16(pose[0]))°, pitch \(Self.fixed16(pose[1]))°, roll \(Self.fixed16(pose[2]))°); APMP has no pose, so the view would turn"
                    ))
            }
            switch googleProjection {
            case "equi":
                let b = googleEquirectBounds ?? [0, 0, 0, 0]
                if b == [0, 0, 0, 0] {
                    kind = "equi"
                } else if b == [0, 0, Self.quarterBound, Self.quarterBound] {
                    kind = "hequ"
                } else {
                    return .failure(
                        .init(
                            "the equirectangular crop \(Self.coverageText(bounds: b)) is neither the whole sphere (equi) nor its middle half (hequ)"
                        ))
                }
            case "mshp":
                guard let a = assumeProjection else {
                    return .failure(
                        .init(
                            "the projection is a mesh (sv3d/proj/mshp): whether it is half-equirectangular cannot be checked without decoding the mesh; state the projection (hequ or equi)",
                            remedy: .giveProjection))
                }
                kind = a
            case "cbmp": return .failure(.init("a cubemap projection (sv3d/proj/cbmp) has no APMP equivalent"))
            default: return .failure(.init("sv3d has no projection box"))
            }
        } else {
            guard (sphericalV1Projection ?? "equirectangular").lowercased() == "equirectangular" else {
                return .failure(.init("v1 projection '\(sphericalV1Projection ?? "")' has no APMP equivalent"))
            }
            for f in [
                "InitialViewHeadingDegrees", "InitialViewPitchDegrees", "InitialViewRollDegrees", "PoseHeadingDegrees",
                "PosePitchDegrees", "PoseRollDegrees",
            ] {
                if let v = sphericalV1Fields.first(where: { $0.0 == f })?.1, let d = Double(v), d != 0 {
                    return .failure(
                        .init("the v1 XML sets \(f) = \(v); APMP has no initial view or pose, so the view would turn"))
                }
            }
            if let c = v1Coverage, let cw = v1Int("CroppedAreaImageWidthPixels"), let fw = v1Int("FullPanoWidthPixels")
            {
                let left = v1Int("CroppedAreaLeftPixels") ?? 0, top = v1Int("CroppedAreaTopPixels") ?? 0
                if c.h == 360 && c.v == 180 && left == 0 && top == 0 {
                    kind = "equi"
                } else if cw * 2 == fw && left * 4 == fw && top == 0 && c.v == 180 {
                    kind = "hequ"
                } else {
                    return .failure(
                        .init(
                            "the v1 cropped area (\(c.h)°×\(c.v)° of the sphere) is neither the whole sphere nor its middle half"
                        ))
                }
            } else {
                kind = "equi"
            }
        }
        if let a = assumeProjection, a != kind {
            return .failure(
                .init("the projection given, '\(a)', contradicts the Google metadata, which says '\(kind)'"))
        }
        return .success(APMPSignal(projection: kind, packing: packing))
    }

    /// The Google v2 metadata that says exactly what the APMP boxes say, or the reason there is none.
    public func apmpToGoogle(isMVHEVC: Bool) -> Result<GoogleSphericalSignal, SphericalConversionError> {
        guard let p = projectionKind else {
            return .failure(.init("the track has no APMP projection (vexu/proj/prji)"))
        }
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
                return .failure(
                    .init("the stereo is MV-HEVC (two layers); Google's st3d describes frame-packed pictures only"))
            }
        case let k?: return .failure(.init("view packing '\(k)' has no Google equivalent"))
        }
        return .success(GoogleSphericalSignal(stereoMode: mode, bounds: bounds))
    }
}

/// How a frame-packed stereo sphere is cut into two views for MV-HEVC APMP (`convert`): the projection to write,
/// the packing to cut along, the eye order, and where each fact came from.
public struct SphereSplit: Sendable, Equatable {
    /// `hequ` (180°, half-equirectangular) or `equi` (360°, equirectangular): written as `vexu/proj/prji`.
    public var projection: FourCC
    /// Side by side (left half, right half) or over-under (top half, bottom half).
    public var packing: FramePacking
    /// The first half (left or top) holds the right eye (`vexu/eyes/stri` `eye_views_reversed` on the source).
    public var firstIsRight: Bool
    /// Where the projection and the packing were read ("Google spherical v1 (uuid XML)", "stated", …).
    public var source: String
    /// What a person should know (a mesh whose coverage was assumed, a layout taken from the picture's shape).
    public var notes: [String]
    public init(
        projection: FourCC, packing: FramePacking, firstIsRight: Bool = false, source: String, notes: [String] = []
    ) {
        self.projection = projection; self.packing = packing; self.firstIsRight = firstIsRight; self.source = source;
        self.notes = notes
    }

    /// The sphere's coverage in words, e.g. "180° half-equirectangular ('hequ')".
    public var projectionText: String {
        projection == "hequ" ? "180° half-equirectangular ('hequ')" : "360° equirectangular ('equi')"
    }

    /// The packing a picture of `width`×`height` has when each eye is a full `projection` picture (`hequ` 1:1 eyes,
    /// `equi` 2:1 eyes), or nil when neither packing fits within 1 %.
    public static func packing(width: Int, height: Int, projection: FourCC) -> FramePacking? {
        guard width > 0, height > 0 else { return nil }
        let eye = projection == "hequ" ? 1.0 : 2.0
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 0.01 * b }
        let sbs = near(Double(width) / 2 / Double(height), eye), tb = near(Double(width) / (Double(height) / 2), eye)
        return sbs == tb ? nil : sbs ? .sideBySide : .topBottom
    }
}

extension StereoVideoMetadata {
    /// The cut of this track's picture into two sphere views, or nil when the track says nothing of a sphere and no
    /// projection is stated; a failure names why the sphere cannot become MV-HEVC APMP as it is.
    ///
    /// The projection comes from the APMP boxes (`vexu/proj/prji` `hequ`/`equi`), else from the Google metadata
    /// (``googleToAPMP(assumeProjection:)``: v2 `sv3d` wins over the v1 XML; a mesh needs `projection` stated; a
    /// crop other than the whole sphere or its middle half is refused, because `hequ`/`equi` carry no field of view
    /// and the picture would be stretched over more of the sphere than it shows), else from `projection` (an untagged
    /// picture). The packing comes from `vexu/pack/pkin`, `st3d` or the v1 XML, else from `packing`, else (untagged)
    /// from the picture's shape (`width`×`height`). A stated value that contradicts the file is refused; so is a
    /// monoscopic sphere (one view: nothing to put in a second layer).
    public func sphereSplit(width: Int, height: Int, projection stated: FourCC?, packing statedPacking: FramePacking?)
        -> Result<SphereSplit?, SphericalConversionError>
    {
        func fail(_ m: String, _ remedy: ParseError.Remedy? = nil) -> Result<SphereSplit?, SphericalConversionError> {
            .failure(.init(m, remedy: remedy))
        }
        if let s = stated, s != "hequ" && s != "equi" {
            return fail("the projection must be hequ (180°) or equi (360°), not '\(s)'")
        }
        let apmp = projectionKind.flatMap { $0 == "rect" ? nil : $0 }
        guard apmp != nil || hasGoogleSphere || stated != nil else { return .success(nil) }
        var kind: FourCC, source: String, notes: [String] = []
        if let p = apmp {
            guard p == "hequ" || p == "equi" else {
                return fail(
                    "the projection is '\(p)' (\(SpatialFormat.projectionName(p))); only equirectangular spheres (hequ, equi) are cut into two views"
                )
            }
            if let s = stated, s != p {
                return fail("the projection given, '\(s)', contradicts the file's vexu/proj/prji '\(p)'")
            }
            if hasGoogleSphere,
                case .success(let g) = googleToAPMP(assumeProjection: googleProjection == "mshp" ? p : nil),
                g.projection != p
            {
                return fail(
                    "the file's APMP projection '\(p)' disagrees with its Google metadata ('\(g.projection)'); remove one of them first"
                )
            }
            kind = p; source = "APMP vexu/proj/prji"
        } else if hasGoogleSphere {
            switch googleToAPMP(assumeProjection: stated) {
            case .success(let g): kind = g.projection
            case .failure(let e):
                let crop = e.reason.contains("crop") || e.reason.contains("cropped")
                return fail(
                    e.reason
                        + (crop
                            ? "; APMP's hequ (180°×180°) and equi (360°×180°) carry no field of view, so the cropped picture would be stretched over a whole half sphere or sphere — refused (keep it frame-packed, or pad it to a full 180° or 360° picture first)"
                            : ""),
                    e.remedy)
            }
            source = presentBoxes.contains("sv3d") ? "Google sv3d (v2)" : "Google spherical v1 (uuid XML)"
            if googleProjection == "mshp" {
                notes.append(
                    "the projection is a camera mesh (sv3d/proj/mshp) whose coverage was not checked: '\(kind)' declares \(kind == "hequ" ? "a 180°×180° half sphere" : "the whole 360°×180° sphere"), as stated; a picture that covers less is stretched over it by players"
                )
            }
        } else {
            kind = stated ?? "hequ"; source = "stated (the file carries no spherical metadata)"
        }
        var packing = framePacking
        if packing == nil, let f = viewFlags, f.hasLeftEye && f.hasRightEye, statedPacking == nil, apmp != nil {
            return fail(
                "vexu/eyes/stri declares two eyes but no packing (vexu/pack, st3d); state the layout (sbs or tb)")
        }
        if packing == nil && (apmp != nil || hasGoogleSphere) && statedPacking == nil
            && (viewFlags.map { !($0.hasLeftEye && $0.hasRightEye) } ?? true)
        {
            return fail(
                "the sphere is monoscopic (one view, no frame packing in its metadata): MV-HEVC stereo needs two views. Tag it as APMP without re-encoding instead: `spatial-media edit IN -o OUT --to-apmp`"
            )
        }
        if let p = packing, let s = statedPacking, p != s {
            return fail("the layout given (\(s.rawValue)) contradicts the file's frame packing (\(p.rawValue))")
        }
        if packing == nil { packing = statedPacking }
        if packing == nil {
            guard let guess = SphereSplit.packing(width: width, height: height, projection: kind) else {
                return fail(
                    "the \(width)×\(height) picture is neither two \(kind == "hequ" ? "1:1" : "2:1") eyes side by side nor over-under; state the layout (sbs or tb)"
                )
            }
            packing = guess
            notes.append(
                "layout \(guess == .sideBySide ? "side by side" : "over-under") from the picture's shape (\(width)×\(height): two \(kind == "hequ" ? "1:1" : "2:1") \(kind) eyes)"
            )
        }
        guard let packing else { return fail("no frame packing") }
        return .success(
            SphereSplit(
                projection: kind, packing: packing, firstIsRight: viewFlags?.eyeViewsReversed ?? false, source: source,
                notes: notes))
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
    /// ``/SpatialMedia/StereoVideoMetadata/sphereSplit(width:height:projection:packing:)`` of the primary video of the
    /// movie at `path`; nil when it is not a movie this library reads, has no video, or is already MV-HEVC (nothing to
    /// cut). The one reading of a sphere input that `convert`'s plan and the video converter share.
    public static func sphereSplit(path: String, limits: Limits = .default, projection: FourCC?, packing: FramePacking?)
        -> Result<SphereSplit?, SphericalConversionError>?
    {
        guard let file = try? ISOFile.open(path: path, limits: limits), let v = SpatialVideoReport(file).primary,
            !v.isMVHEVC
        else { return nil }
        return v.metadata.sphereSplit(width: v.width, height: v.height, projection: projection, packing: packing)
    }
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
        let what =
            "the video is a sphere (\(forms)); converting it to spatial video would flatten it to a rectilinear picture"
        if let p = m.projectionKind, p != "rect" {
            return
                "\(what). It already carries its APMP projection ('\(p)'): Apple's players show it as is (check it with `spatial-media validate`)"
        }
        switch m.googleToAPMP() {
        case .success(let s) where s.packing != nil:
            return
                "\(what). Convert it to MV-HEVC APMP ('\(s.projection)') with its projection (`spatial-media convert` reads it from the metadata; the library: VideoConversionOptions.stereo.projectionKind), or tag it as APMP without re-encoding: `spatial-media edit IN -o OUT --to-apmp` (writes proj '\(s.projection)', pack '\(s.packing?.description ?? "")')"
        case .success(let s):
            return
                "\(what). Tag it as APMP without re-encoding instead: `spatial-media edit IN -o OUT --to-apmp` (writes proj '\(s.projection)')"
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
        return
            "the video is already MV-HEVC with two views (a spatial or 3D video): `convert` takes side-by-side, over-under or two-file 3D video, and would cut one view in half. Change its metadata with `spatial-media edit IN -o OUT` (baseline, field of view, disparity, hero), repair it with `spatial-media fix`, or re-encode it by splitting it into a side-by-side movie (`spatial-media split`) and converting that"
    }
}
