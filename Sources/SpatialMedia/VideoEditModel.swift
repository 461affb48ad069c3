// The edit model of SpatialVideoEditor: what to change, how it was written.
import BinaryIO
import SystemSupport

/// One field of an edit: leave it, set it, or remove its box.
public enum MetadataFieldEdit<Value: Sendable & Equatable>: Sendable, Equatable {
    case keep
    case set(Value)
    case remove
}

/// A change to the spatial metadata of every MV-HEVC video track, in stored units.
/// Build values from human units with ``SpatialUnits``.
public struct SpatialVideoEdit: Sendable, Equatable {
    /// `vexu/eyes/cams/blin`, micrometres.
    public var baselineMicrometres: MetadataFieldEdit<UInt32> = .keep
    /// `hfov`, millidegrees; must lie in 1…179 999.
    public var horizontalFieldOfViewMillidegrees: MetadataFieldEdit<UInt32> = .keep
    /// `vexu/eyes/cmfy/dadj`, 1/10000 of the image width; |value| ≤ 10 000.
    public var disparityAdjustment: MetadataFieldEdit<Int32> = .keep
    /// `vexu/eyes/hero`. `.set(.none)` writes indicator 0; `.remove` drops the box (absent also means none).
    public var heroEye: MetadataFieldEdit<HeroEye> = .keep
    /// `vexu/proj/prji` projection kind: `rect` (spatial and 3D video), `hequ`/`equi` (APMP 180°/360°),
    /// `fish`/`prim` (wide FOV; the lens collection is not authored).
    public var projectionKind: MetadataFieldEdit<FourCC> = .keep
    /// `vexu/pack/pkin` view packing of a frame-packed track: `side` (left eye on the left) or `over` (left eye on
    /// top). Setting it also declares both eyes (`vexu/eyes/stri` 0x03) when `stri` is absent.
    public var viewPacking: MetadataFieldEdit<FourCC> = .keep
    /// Convert Google spherical metadata to APMP or back (see ``SphericalConversion``).
    public var spherical: SphericalConversion? = nil
    /// Remove `vexu` and `hfov` from every video sample entry (applied before nothing else; the other fields are
    /// ignored).
    public var removeSpatial = false

    public init() {}

    /// An edit that sets every non-nil field of `stereo` and keeps the others.
    public init(setting stereo: StereoParameters) {
        self.init()
        set(stereo)
    }

    /// An edit that turns `old` into `new`: fields that differ are set, fields that became nil are removed.
    public init(from old: StereoParameters, to new: StereoParameters) {
        func change<T: Sendable & Equatable>(_ a: T?, _ b: T?) -> MetadataFieldEdit<T> {
            if a == b { return .keep }
            return b.map { .set($0) } ?? .remove
        }
        self.init()
        baselineMicrometres = change(old.baselineMicrometres, new.baselineMicrometres)
        horizontalFieldOfViewMillidegrees = change(
            old.horizontalFieldOfViewMillidegrees, new.horizontalFieldOfViewMillidegrees)
        disparityAdjustment = change(old.disparityAdjustment, new.disparityAdjustment)
        heroEye = change(old.heroEye, new.heroEye)
        projectionKind = change(old.projectionKind, new.projectionKind)
    }

    /// Sets every non-nil field of `stereo`; the other fields of the edit are left as they are.
    public mutating func set(_ stereo: StereoParameters) {
        if let b = stereo.baselineMicrometres { baselineMicrometres = .set(b) }
        if let f = stereo.horizontalFieldOfViewMillidegrees { horizontalFieldOfViewMillidegrees = .set(f) }
        if let d = stereo.disparityAdjustment { disparityAdjustment = .set(d) }
        if let h = stereo.heroEye { heroEye = .set(h) }
        if let p = stereo.projectionKind { projectionKind = .set(p) }
    }

    /// True when the edit changes nothing.
    public var isEmpty: Bool {
        !removeSpatial && baselineMicrometres == .keep && horizontalFieldOfViewMillidegrees == .keep
            && disparityAdjustment == .keep
            && heroEye == .keep && projectionKind == .keep && viewPacking == .keep && spherical == nil
    }

    static func isSet<T>(_ e: MetadataFieldEdit<T>) -> Bool { if case .set = e { return true }; return false }

    /// True when the edit adds or replaces a value.
    var setsSomething: Bool {
        !removeSpatial
            && (Self.isSet(baselineMicrometres) || Self.isSet(horizontalFieldOfViewMillidegrees)
                || Self.isSet(disparityAdjustment)
                || Self.isSet(heroEye) || Self.isSet(projectionKind) || Self.isSet(viewPacking))
    }

    /// True when the edit writes something inside `vexu/eyes` (which then needs `stri`).
    var touchesEyes: Bool {
        Self.isSet(baselineMicrometres) || Self.isSet(disparityAdjustment) || Self.isSet(heroEye)
            || Self.isSet(viewPacking)
    }

    /// True when the edit describes a frame-packed or projected picture rather than MV-HEVC spatial metadata.
    var framePackedOrProjected: Bool {
        if spherical != nil || Self.isSet(viewPacking) { return true }
        if case .set(let k) = projectionKind, k != "rect" { return true }
        return false
    }

    /// Checks ranges; returns warnings (a baseline above 1 m, an HFOV above 90°) for values that are still written.
    public func validate() throws(ParseError) -> [String] {
        var warnings: [String] = []
        if case .set(let f) = horizontalFieldOfViewMillidegrees, f == 0 || f >= 180_000 {
            throw ParseError(
                .invalidValue, "horizontal field of view must be greater than 0° and less than 180° (got \(f) m°)")
        }
        if case .set(let f) = horizontalFieldOfViewMillidegrees, f > 90_000 {
            warnings.append(
                "horizontal field of view \(SpatialFormat.degrees(f))° is above the 90° Apple recommends for spatial video; written anyway"
            )
        }
        if case .set(let d) = disparityAdjustment, d < -10_000 || d > 10_000 {
            throw ParseError(
                .invalidValue, "disparity adjustment must be within ±10000 (±100 %) of the image width (got \(d))")
        }
        if case .set(let b) = baselineMicrometres, b > SpatialUnits.implausibleBaselineMicrometres {
            warnings.append("baseline \(SpatialFormat.millimetres(b)) mm is more than 1 m; written anyway")
        }
        if case .set(let p) = projectionKind, !["rect", "equi", "hequ", "fish", "prim"].contains(p) {
            throw ParseError(
                .invalidValue, "projection '\(p)' is not one Apple documents (rect, equi, hequ, fish, prim)")
        }
        if case .set(let k) = viewPacking, k != "side" && k != "over" {
            throw ParseError(.invalidValue, "view packing must be 'side' or 'over' (got '\(k)')")
        }
        if case .set(let p) = projectionKind, p == "equi" || p == "hequ",
            case .set(let f) = horizontalFieldOfViewMillidegrees
        {
            warnings.append(
                "hfov \(SpatialFormat.degrees(f))° with projection '\(p)', which covers \(p == "hequ" ? "180" : "360")° by definition; hfov describes a rectilinear picture — written anyway"
            )
        }
        if spherical != nil
            && (removeSpatial || Self.isSet(baselineMicrometres) || Self.isSet(horizontalFieldOfViewMillidegrees)
                || Self.isSet(disparityAdjustment) || projectionKind != .keep || viewPacking != .keep)
        {
            throw ParseError(
                .invalidValue, "a spherical conversion takes its values from the file; it combines only with a hero eye"
            )
        }
        return warnings
    }
}

/// Conversion between Google spherical metadata (`st3d`/`sv3d`, v1 `uuid` XML) and the Apple Projected Media
/// Profile (`vexu{eyes{stri}, proj{prji}, pack{pkin}}`), sample data untouched.
public enum SphericalConversion: Sendable, Equatable {
    /// Writes APMP boxes that say exactly what the Google metadata says, keeping the Google boxes (players that
    /// read only them keep working). `assume` states the projection of a mesh (`hequ`/`equi`), which cannot be
    /// checked without decoding the mesh.
    case toAPMP(assume: FourCC?)
    /// Writes `st3d`/`sv3d` that say exactly what the APMP boxes say (unless equivalent Google metadata is
    /// already there) and removes `vexu` and `hfov`.
    case toGoogle
}

/// How an edit was written.
public enum SpatialEditStrategy: String, Sendable {
    /// `moov` was the last box: the new `moov` was appended and the old one turned into `free`.
    case inPlaceMoovAtEnd = "in-place (moov at end)"
    /// A `free` box after `moov` held the new `moov`; the old one was turned into `free`.
    case inPlaceFreeSpace = "in-place (free space after moov)"
    /// The new `moov` has the size of the old one and differs from it within one 512-byte sector: that
    /// sector's changed bytes were rewritten (one atomic write); the file did not grow.
    case inPlaceOverwrite = "in-place (moov updated within one sector)"
    /// A `free` box right before `moov` held the new `moov`; the rest of it and the old `moov` became one
    /// `free` box. The file did not grow.
    case inPlaceFreeBefore = "in-place (free space before moov)"
    /// A new file was written (temporary file + rename) with `mdat` streamed and chunk offsets patched.
    case rewrite = "rewrite"
    /// Nothing needed changing; nothing was written.
    case unchanged = "unchanged"
}

/// What an edit did.
public struct SpatialEditResult: Sendable {
    public var strategy: SpatialEditStrategy
    public var outputPath: String
    /// Bytes written to disk (file data, not counting metadata of the file system).
    public var bytesWritten: UInt64
    /// One line per changed field, e.g. `track 1: baseline 19.240 mm → 42.000 mm`.
    public var changes: [String]
    public var warnings: [String]
    /// Why in place was asked for but a rewrite was done.
    public var fallbackReason: String?
    /// Size of the output file.
    public var outputSize: UInt64

    /// Machine-readable form.
    public var json: JSON {
        var o: [(String, JSON)] = [
            ("output", .string(outputPath)), ("strategy", .string(strategy.rawValue)),
            ("bytes_written", .uint(bytesWritten)),
            ("output_size", .uint(outputSize)), ("changes", .array(changes.map { .string($0) })),
            ("warnings", .array(warnings.map { .string($0) })),
        ]
        if let f = fallbackReason { o.append(("fallback_reason", .string(f))) }
        return .object(o)
    }
}
