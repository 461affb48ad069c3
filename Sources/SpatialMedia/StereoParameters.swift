import BinaryIO
import ISOBMFF

/// The stereo parameters of a spatial photo or video, in the units Apple's files store them.
///
/// One type for the numbers every part of the library reads, edits, writes and reports: the video reader
/// (`vexu`/`hfov`), video metadata edits, the muxer, both converters, the photo writer and editor, the command
/// line and the C ABI. Each field is optional because a file may lack the box; `nil` in an edit or a conversion
/// means "keep what is there" or "use ``StereoParameters/defaults``".
///
/// | field | stored in | unit |
/// |---|---|---|
/// | ``baselineMicrometres`` | video `vexu/eyes/cams/blin`; photo right-eye extrinsics position x | µm |
/// | ``horizontalFieldOfViewMillidegrees`` | video `hfov`; photo intrinsics (as a focal length) | 1/1000 ° |
/// | ``disparityAdjustment`` | video `vexu/eyes/cmfy/dadj`; photo Apple disparity property | 1/10000 of the image width |
/// | ``heroEye`` | video `vexu/eyes/hero` (photos have none) | — |
/// | ``projectionKind`` | video `vexu/proj/prji` (photos have none) | four-character code |
///
/// Human units are computed views (``baselineMillimetres``, ``horizontalFieldOfViewDegrees``,
/// ``disparityPercent``). Build values from human units with the throwing initialiser or setters, which round to
/// the nearest stored unit (halves away from zero) and reject values that do not fit — never a silent truncation.
/// Units, ranges and defaults are stated in `Specs/stereo-parameters.md`.
public struct StereoParameters: Sendable, Equatable {
    /// Distance between the two cameras in micrometres.
    public var baselineMicrometres: UInt32?
    /// Horizontal field of view of one eye in thousandths of a degree (valid: 1…179 999).
    public var horizontalFieldOfViewMillidegrees: UInt32?
    /// Horizontal disparity adjustment in 1/10000 of the per-eye image width (valid: −10 000…10 000; positive
    /// pushes the scene back).
    public var disparityAdjustment: Int32?
    /// Which eye a 2D presentation shows (videos only).
    public var heroEye: HeroEye?
    /// Projection of the picture (`rect`, `equi`, `hequ`, `fish`, `prim`; videos only).
    public var projectionKind: FourCC?

    /// Creates parameters from stored values (`nil`: absent or not given).
    public init(
        baselineMicrometres: UInt32? = nil, horizontalFieldOfViewMillidegrees: UInt32? = nil,
        disparityAdjustment: Int32? = nil,
        heroEye: HeroEye? = nil, projectionKind: FourCC? = nil
    ) {
        self.baselineMicrometres = baselineMicrometres
        self.horizontalFieldOfViewMillidegrees = horizontalFieldOfViewMillidegrees
        self.disparityAdjustment = disparityAdjustment
        self.heroEye = heroEye
        self.projectionKind = projectionKind
    }

    /// Creates parameters from human units: millimetres, degrees and percent of the image width. Each value is
    /// rounded to the nearest stored unit; a value that is not finite or does not fit its field (a negative
    /// baseline, a field of view outside (0°, 180°), a disparity beyond ±100 %) throws
    /// ``/BinaryIO/ParseError/Code/invalidArgument``.
    public init(
        baselineMillimetres: Double?, horizontalFieldOfViewDegrees: Double? = nil, disparityPercent: Double? = nil,
        heroEye: HeroEye? = nil, projectionKind: FourCC? = nil
    ) throws(ParseError) {
        self.init(heroEye: heroEye, projectionKind: projectionKind)
        if let b = baselineMillimetres { try setBaseline(millimetres: b) }
        if let f = horizontalFieldOfViewDegrees { try setHorizontalFieldOfView(degrees: f) }
        if let d = disparityPercent { try setDisparity(percent: d) }
    }

    /// The one table of defaults: what a conversion, assembly, mux or new spatial photo writes for a value the
    /// caller did not give and the input does not carry. 64 mm (a typical adult interpupillary distance), 60°
    /// (a neutral rectilinear field of view), no disparity adjustment, left hero eye, rectilinear projection.
    /// None is a measurement; reports say so. Rationale in `Specs/stereo-parameters.md`.
    public static let defaults = StereoParameters(
        baselineMicrometres: 64_000, horizontalFieldOfViewMillidegrees: 60_000,
        disparityAdjustment: 0, heroEye: .left, projectionKind: "rect")

    /// No value is set.
    public var isEmpty: Bool {
        baselineMicrometres == nil && horizontalFieldOfViewMillidegrees == nil && disparityAdjustment == nil
            && heroEye == nil && projectionKind == nil
    }

    /// These parameters with every `nil` field taken from `base` (by default ``defaults``).
    public func filled(from base: StereoParameters = .defaults) -> StereoParameters {
        StereoParameters(
            baselineMicrometres: baselineMicrometres ?? base.baselineMicrometres,
            horizontalFieldOfViewMillidegrees: horizontalFieldOfViewMillidegrees
                ?? base.horizontalFieldOfViewMillidegrees,
            disparityAdjustment: disparityAdjustment ?? base.disparityAdjustment,
            heroEye: heroEye ?? base.heroEye, projectionKind: projectionKind ?? base.projectionKind)
    }

    // MARK: human views

    /// Baseline in millimetres (µm / 1000).
    public var baselineMillimetres: Double? { baselineMicrometres.map(SpatialUnits.millimetres(fromMicrometres:)) }
    /// Horizontal field of view in degrees (m° / 1000).
    public var horizontalFieldOfViewDegrees: Double? {
        horizontalFieldOfViewMillidegrees.map(SpatialUnits.degrees(fromMillidegrees:))
    }
    /// Disparity adjustment in percent of the image width (units / 100).
    public var disparityPercent: Double? { disparityAdjustment.map(SpatialUnits.percent(fromDisparityUnits:)) }
    /// Disparity adjustment as a fraction of the image width (units / 10000).
    public var disparityFraction: Double? { disparityAdjustment.map(SpatialUnits.fraction(fromDisparityUnits:)) }

    // MARK: checked setters from human units

    /// Sets the baseline from millimetres (rounded to µm); throws when negative, not finite or above `UInt32` µm.
    public mutating func setBaseline(millimetres: Double) throws(ParseError) {
        baselineMicrometres = try SpatialUnits.micrometres(fromMillimetres: millimetres)
    }
    /// Sets the field of view from degrees (rounded to 1/1000°); throws unless strictly between 0° and 180°.
    public mutating func setHorizontalFieldOfView(degrees: Double) throws(ParseError) {
        horizontalFieldOfViewMillidegrees = try SpatialUnits.millidegrees(fromDegrees: degrees)
    }
    /// Sets the disparity adjustment from percent of the width (rounded to 1/10000); throws beyond ±100 %.
    public mutating func setDisparity(percent: Double) throws(ParseError) {
        disparityAdjustment = try SpatialUnits.disparityUnits(fromPercent: percent)
    }

    /// Checks stored values against the ranges of their fields: field of view 1…179 999 m°, disparity within
    /// ±10 000, hero eye not a reserved indicator, projection one Apple documents. Throws
    /// ``/BinaryIO/ParseError/Code/invalidValue`` naming the field.
    public func validate() throws(ParseError) {
        if let f = horizontalFieldOfViewMillidegrees, f == 0 || f >= 180_000 {
            throw ParseError(
                .invalidValue, "horizontal field of view must be greater than 0° and less than 180° (got \(f) m°)")
        }
        if let d = disparityAdjustment, d < -10_000 || d > 10_000 {
            throw ParseError(
                .invalidValue, "disparity adjustment must be within ±10000 (±100 %) of the image width (got \(d))")
        }
        if case .reserved(let v)? = heroEye { throw ParseError(.invalidValue, "hero eye \(v) is reserved") }
        if let p = projectionKind, !Self.documentedProjections.contains(p) {
            throw ParseError(
                .invalidValue, "projection '\(p)' is not one Apple documents (rect, equi, hequ, fish, prim)")
        }
    }

    /// The projection kinds Apple documents for `vexu/proj/prji`.
    public static let documentedProjections: [FourCC] = ["rect", "equi", "hequ", "fish", "prim"]
}
