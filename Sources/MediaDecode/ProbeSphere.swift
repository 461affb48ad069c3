import BinaryIO
import SpatialMedia

extension MediaProbe {
    /// How a movie that FFmpeg reads for us (Matroska, WebM, …) is cut into two sphere views, from the spherical and
    /// stereo side data FFmpeg reports (Matroska `Projection` and `StereoMode`) — the decisions
    /// ``/SpatialMedia/StereoVideoMetadata/sphereSplit(width:height:projection:packing:)`` makes from MP4/MOV boxes:
    /// `equirectangular` is `equi`, `half equirectangular` and a tiled equirectangular picture covering 180°×180° are
    /// `hequ`; any other crop, projection (cubemap, fisheye, …) or a monoscopic sphere is refused with the reason.
    /// `stated` / `statedPacking`: what the caller gave (a contradiction is refused). nil when FFmpeg reports no
    /// sphere and none is stated.
    public func sphereSplit(projection stated: FourCC?, packing statedPacking: FramePacking?) -> Result<
        SphereSplit?, SphericalConversionError
    > {
        func fail(_ m: String) -> Result<SphereSplit?, SphericalConversionError> { .failure(.init(m)) }
        if let s = stated, s != "hequ" && s != "equi" {
            return fail("the projection must be hequ (180°) or equi (360°), not '\(s)'")
        }
        let sphere = spherical.flatMap { $0.isSphere ? $0 : nil }
        guard sphere != nil || stated != nil else { return .success(nil) }
        var kind: FourCC, source: String, notes: [String] = []
        if let sph = sphere {
            let read: FourCC
            switch sph.projection {
            case "equirectangular": read = "equi"
            case "half equirectangular": read = "hequ"
            case "tiled equirectangular":
                guard let b = sph.tileBounds, b.count == 4, let size = videoSize else {
                    return fail(
                        "FFmpeg reports a tiled equirectangular picture without its bounds; state the projection (hequ or equi) if it covers a full half sphere or sphere"
                    )
                }
                let h = 360 * Double(size.width) / Double(max(1, size.width + b[0] + b[2]))
                let v = 180 * Double(size.height) / Double(max(1, size.height + b[1] + b[3]))
                if abs(h - 180) <= 2, v >= 178 {
                    read = "hequ"
                } else if h >= 358, v >= 178 {
                    read = "equi"
                } else {
                    return fail(
                        "the equirectangular picture covers \(Int(h.rounded()))°×\(Int(v.rounded()))° (FFmpeg: tiled equirectangular \(b)); APMP's hequ (180°×180°) and equi (360°×180°) carry no field of view, so the cropped picture would be stretched over a whole half sphere or sphere — refused (keep it frame-packed, or pad it to a full 180° or 360° picture first)"
                    )
                }
            default:
                return fail(
                    "the projection is '\(sph.projection)' (as FFmpeg reads the file); only equirectangular spheres (hequ, equi) are cut into two views"
                )
            }
            if let s = stated, s != read {
                return fail(
                    "the projection given, '\(s)', contradicts the file's ('\(sph.projection)', which is '\(read)')")
            }
            kind = read
            source = "the file's projection as FFmpeg reads it (\(sph.projection))"
        } else {
            kind = stated ?? "hequ"; source = "stated (FFmpeg reports no spherical metadata)"
        }
        if let p = stereoPacking, let s = statedPacking, p != s {
            return fail("the layout given (\(s.rawValue)) contradicts the file's stereo mode (\(p.rawValue))")
        }
        var packing = stereoPacking ?? statedPacking
        if packing == nil, sphere != nil {
            return fail(
                "the sphere is monoscopic as far as its metadata says (no stereo mode): MV-HEVC stereo needs two views; if the picture holds two eyes, state the layout (sbs or tb)"
            )
        }
        if packing == nil, let size = videoSize {
            guard let guess = SphereSplit.packing(width: size.width, height: size.height, projection: kind) else {
                return fail(
                    "the \(size.width)×\(size.height) picture is neither two \(kind == "hequ" ? "1:1" : "2:1") eyes side by side nor over-under; state the layout (sbs or tb)"
                )
            }
            packing = guess
            notes.append(
                "layout \(guess == .sideBySide ? "side by side" : "over-under") from the picture's shape (\(size.width)×\(size.height))"
            )
        }
        guard let packing else { return fail("no frame packing: state the layout (sbs or tb)") }
        return .success(SphereSplit(projection: kind, packing: packing, source: source, notes: notes))
    }

    /// Why a movie FFmpeg reads must not be converted to (rectilinear) spatial video, or nil: it is a sphere.
    public var sphereRefusal: String? {
        guard let s = spherical, s.isSphere else { return nil }
        return
            "the video is a sphere (FFmpeg reads its projection as '\(s.projection)'); converting it to spatial video would flatten it to a rectilinear picture. `spatial-media convert` cuts an equirectangular 180°/360° stereo sphere into MV-HEVC APMP when it reads the projection (or give --projection hequ|equi)"
    }
}
