import BinaryIO
import MediaDecode
import SpatialMedia

/// The sphere route of ``VideoConverter``: a frame-packed 180°/360° stereo movie cut into its two views and written as
/// MV-HEVC APMP (`vexu{eyes{stri}, proj{prji 'hequ'|'equi'}}`, no `hfov`). See Specs/spatial-video.md ("Spheres").
extension VideoConverter {
    /// The cut of the input into sphere views when the options ask for a sphere (``VideoConversionOptions/isSphere``),
    /// checked against an MP4/MOV input's own spherical metadata; nil for rectilinear video. A projection other than
    /// `rect`, `hequ` or `equi`, and metadata that contradicts the options, are refused.
    static func sphereSplit(_ input: VideoInput, options o: VideoConversionOptions) throws(ParseError) -> SphereSplit? {
        guard let p = o.stereo.projectionKind, p != "rect" else { return nil }
        guard o.isSphere else {
            throw ParseError(
                .invalidArgument,
                "a converted video is rectilinear ('rect') or an equirectangular sphere ('hequ' 180°, 'equi' 360°); projection '\(p)' cannot be written by conversion"
            )
        }
        if o.align || o.autoDisparity {
            throw ParseError(
                .invalidArgument,
                "alignment and automatic disparity measure rectilinear pictures; a sphere ('\(p)') is converted as it is"
            )
        }
        if o.layout.half {
            throw ParseError(
                .invalidArgument,
                "a sphere's eyes are cut as they are (sbs or tb); half-resolution layouts are for rectilinear 3D video")
        }
        let packing: FramePacking = o.layout.horizontal ? .sideBySide : .topBottom
        let stated = SphereSplit(projection: p, packing: packing, source: "stated")
        guard case .packed(let path) = input, path != "-" else { return stated }
        if !isISOBMFF(path) {
            // Matroska, WebM, …: the projection and stereo mode as FFmpeg reads them (MediaProbe.sphereSplit).
            guard !isY4M(path), let ff = try? FFmpeg.require(.any, for: "reading \(path)", override: o.ffmpeg),
                let probe = try? MediaProbe.run(path, tool: ff)
            else { return stated }
            switch probe.sphereSplit(projection: p, packing: packing) {
            case .success(let s): return s ?? stated
            case .failure(let e):
                throw ParseError(.unsupported, path: path, "cannot cut this sphere into two views: \(e.reason)")
            }
        }
        switch SpatialVideoReport.sphereSplit(path: path, limits: o.limits, projection: p, packing: packing) {
        case .success(let s)?: return s ?? stated
        case .failure(let e)?:
            throw ParseError(
                .unsupported, path: path, "cannot cut this sphere into two views: \(e.reason)", remedy: e.remedy)
        case nil: return stated
        }
    }

    /// The values a sphere's MV-HEVC carries: its projection, the hero eye (default left), and the baseline and
    /// disparity adjustment only when given — no field of view (a sphere's is its projection's; `hfov` describes a
    /// rectilinear camera), so one given is refused.
    static func sphereParameters(_ o: VideoConversionOptions) throws(ParseError) -> StereoParameters {
        if let f = o.stereo.horizontalFieldOfViewDegrees {
            throw ParseError(
                .invalidArgument,
                "a field of view (\(fmt(f))°) describes a rectilinear camera; a sphere's is its projection's ('\(o.stereo.projectionKind?.description ?? "")'), and APMP writes no hfov for it"
            )
        }
        var s = o.stereo
        s.heroEye = s.heroEye ?? StereoParameters.defaults.heroEye
        return s
    }
}
