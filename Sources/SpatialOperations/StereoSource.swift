import SpatialMedia

/// Where the two eyes of a conversion's input are: the typed form of a request's inputs and layout, for Swift
/// callers (the Kit's `SpatialConversion`).
public enum StereoSource: Sendable, Equatable {
    /// One file, left eye in the left half (full resolution per eye).
    case sideBySide(String)
    /// One file, left eye in the top half.
    case topBottom(String)
    /// One file, side by side with each eye squeezed to half width (stretched back).
    case halfSideBySide(String)
    /// One file, top-bottom with each eye squeezed to half height (stretched back).
    case halfTopBottom(String)
    /// One file per eye.
    case pair(left: String, right: String)
}

extension ConvertRequest {
    /// The request of a conversion of `source` by the route named (``ConvertRoute/photo`` or ``ConvertRoute/video``):
    /// its inputs and layout spelt as every shell spells them (a video's squeezed eyes are the layouts `half-sbs` /
    /// `half-tb`, a photo's are `sbs` / `tb` with ``halfResolution``), and the given `stereo` values in stored units
    /// (nil fields: the plan's defaults). Everything else is left to ``ConvertPlan``.
    public init(
        _ source: StereoSource, output: String, stereo: StereoParameters = StereoParameters(), route: ConvertRoute
    ) {
        let photo = route == .photo
        switch source {
        case .pair(let l, let r): self.init(left: l, right: r, output: output)
        case .sideBySide(let p): self.init(input: p, output: output); layout = .sbs
        case .topBottom(let p): self.init(input: p, output: output); layout = .tb
        case .halfSideBySide(let p): self.init(input: p, output: output); layout = photo ? .sbs : .halfSBS
        case .halfTopBottom(let p): self.init(input: p, output: output); layout = photo ? .tb : .halfTB
        }
        if photo, input != nil {
            switch source {
            case .halfSideBySide, .halfTopBottom: halfResolution = true
            default: halfResolution = false
            }
        }
        self.route = route
        values.baselineMicrometres = stereo.baselineMicrometres.map { Int($0) }
        values.hfovMillidegrees = stereo.horizontalFieldOfViewMillidegrees.map { Int($0) }
        values.disparity = stereo.disparityAdjustment.map { Int($0) }
        switch stereo.heroEye {
        case .left?, .right?: heroEye = stereo.heroEye
        default: break
        }
        // A sphere the values name; a rectilinear one ("rect") is the default and needs no choice.
        projection = stereo.projectionKind.flatMap { SphereProjection(rawValue: $0.description) }
    }
}
