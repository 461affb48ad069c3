import BinaryIO
import SystemSupport

/// The fields of the parametric-immersive lens-collection boxes (Apple Projected Media Profile):
/// `lnhd` lens header, `rdim` reference dimensions, `lnin` intrinsics, `ldst` distortions,
/// `lfad` frame adjustment, `corg` extrinsic origin source, `uqua` unit quaternion.
///
/// Every field keeps its stored 32-bit (or 16-bit) pattern, so floats and signed values round-trip
/// bit for bit; ``LensFieldsBox/Field/value`` gives the human reading. Which optional fields exist
/// depends on the FullBox flags (`lnin`: bit 0 adds fy and skew, bit 1 a projection offset; `ldst`:
/// bit 0 adds a radial angle limit). Units of `lnin` (pixels or normalised to `rdim`) and of the
/// radial angle are not confirmed by any source we could read; the raw values are kept and shown.
///
/// One distinct type per code: the code is the type parameter (``LensHeaderBox`` is
/// `LensFieldsBox<LensBoxCode.Header>`), so `Box.payload(LensHeaderBox.self)` never matches an `rdim`.
public struct LensFieldsBox<Code: LensBoxCodeTag>: BoxPayload, FullBoxCarrying, Equatable {
    /// How a field is stored.
    public enum Kind: Sendable, Equatable { case u32, s32, s16, f32, fourCC }

    /// One stored field.
    public struct Field: Sendable, Equatable {
        public var name: String
        public var kind: Kind
        /// The stored bits (16-bit fields in the low half).
        public var bits: UInt32
        public init(name: String, kind: Kind, bits: UInt32) { self.name = name; self.kind = kind; self.bits = bits }
        /// The value as text in its natural unit (floats as decimal, FourCCs quoted).
        public var value: String {
            switch kind {
            case .u32: return String(bits)
            case .s32: return String(Int32(bitPattern: bits))
            case .s16: return String(Int16(truncatingIfNeeded: bits))
            case .f32: return "\(Float(bitPattern: bits))"
            case .fourCC: return "'\(FourCC(bits))'"
            }
        }
        var json: JSON {
            switch kind {
            case .u32: return .uint(UInt64(bits))
            case .s32: return .int(Int64(Int32(bitPattern: bits)))
            case .s16: return .int(Int64(Int16(truncatingIfNeeded: bits)))
            case .f32: return .double(Double(Float(bitPattern: bits)))
            case .fourCC: return .string(FourCC(bits).description)
            }
        }
    }

    public var fullBox: FullBoxHeader
    /// The box type (decides the layout; not written).
    public var kind: FourCC { Code.type }
    public var fields: [Field]

    /// The field layout of `type` for the given FullBox flags.
    public static func layout(of type: FourCC, flags: UInt32) -> [(String, Kind)] {
        switch type {
        case "lnhd":
            return [("lens_identifier", .u32), ("algorithm_kind", .fourCC), ("domain", .fourCC), ("role", .fourCC)]
        case "rdim": return [("reference_width", .u32), ("reference_height", .u32)]
        case "lnin":
            var l: [(String, Kind)] = [
                ("denominator_shift", .s16), ("skew_denominator_shift", .s16), ("focal_length_x", .s32),
                ("principal_point_x", .s32), ("principal_point_y", .s32),
            ]
            if flags & 1 != 0 { l += [("focal_length_y", .s32), ("skew_factor", .s32)] }
            if flags & 2 != 0 { l += [("projection_offset", .f32)] }
            return l
        case "ldst":
            var l: [(String, Kind)] = [("k1", .f32), ("k2", .f32), ("p1", .f32), ("p2", .f32)]
            if flags & 1 != 0 { l += [("radial_angle_limit", .f32)] }
            return l
        case "lfad":
            return [
                ("polynomial_x0", .f32), ("polynomial_x1", .f32), ("polynomial_x2", .f32),
                ("polynomial_y0", .f32), ("polynomial_y1", .f32), ("polynomial_y2", .f32),
            ]
        case "corg": return [("origin_source", .fourCC)]
        case "uqua": return [("x", .f32), ("y", .f32), ("z", .f32)]
        default: return []
        }
    }

    /// Builds a box from values in layout order (missing values are 0).
    public init(flags: UInt32 = 0, bits: [UInt32]) {
        fullBox = FullBoxHeader(flags: flags)
        fields = Self.layout(of: Code.type, flags: flags).enumerated().map { i, f in
            Field(name: f.0, kind: f.1, bits: i < bits.count ? bits[i] : 0)
        }
    }

    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        fields = []
        for (name, k) in Self.layout(of: kind, flags: fullBox.flags) {
            let bits: UInt32 = k == .s16 ? UInt32(try r.readU16()) : try r.readU32()
            fields.append(Field(name: name, kind: k, bits: bits))
        }
    }

    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        for f in fields {
            if f.kind == .s16 { w.writeU16(UInt16(truncatingIfNeeded: f.bits)) } else { w.writeU32(f.bits) }
        }
    }

    /// The field called `name`, if the layout has it.
    public func field(_ name: String) -> Field? { fields.first { $0.name == name } }

    public var summary: String {
        (fullBox.flags != 0 ? "flags=0x\(String(fullBox.flags, radix: 16)) " : "")
            + fields.map { "\($0.name)=\($0.value)" }.joined(separator: " ")
    }
    public var json: [(String, JSON)] { [("flags", .uint(UInt64(fullBox.flags)))] + fields.map { ($0.name, $0.json) } }
}

/// Marks a type that names one code of ``LensFieldsBox``.
public protocol LensBoxCodeTag: Sendable {
    /// The four-character code.
    static var type: FourCC { get }
}

/// The codes of ``LensFieldsBox``, one tag each.
public enum LensBoxCode {
    public enum Header: LensBoxCodeTag { public static var type: FourCC { "lnhd" } }
    public enum ReferenceDimensions: LensBoxCodeTag { public static var type: FourCC { "rdim" } }
    public enum Intrinsics: LensBoxCodeTag { public static var type: FourCC { "lnin" } }
    public enum Distortions: LensBoxCodeTag { public static var type: FourCC { "ldst" } }
    public enum FrameAdjustment: LensBoxCodeTag { public static var type: FourCC { "lfad" } }
    public enum ExtrinsicOriginSource: LensBoxCodeTag { public static var type: FourCC { "corg" } }
    public enum UnitQuaternion: LensBoxCodeTag { public static var type: FourCC { "uqua" } }
}

/// `lnhd` LensHeaderBox: lens identifier, algorithm kind, domain, role.
public typealias LensHeaderBox = LensFieldsBox<LensBoxCode.Header>
/// `rdim` IntrinsicMatrixReferenceDimensionsBox: reference width and height, pixels.
public typealias IntrinsicMatrixReferenceDimensionsBox = LensFieldsBox<LensBoxCode.ReferenceDimensions>
/// `lnin` LensIntrinsicsBox: shifts, focal lengths, principal point, skew, projection offset (flags decide).
public typealias LensIntrinsicsBox = LensFieldsBox<LensBoxCode.Intrinsics>
/// `ldst` LensDistortionsBox: k1, k2, p1, p2 and (flag 0) the radial angle limit.
public typealias LensDistortionsBox = LensFieldsBox<LensBoxCode.Distortions>
/// `lfad` LensFrameAdjustmentBox: the X and Y polynomial coefficients.
public typealias LensFrameAdjustmentBox = LensFieldsBox<LensBoxCode.FrameAdjustment>
/// `corg` ExtrinsicOriginSourceBox: the origin source FourCC.
public typealias ExtrinsicOriginSourceBox = LensFieldsBox<LensBoxCode.ExtrinsicOriginSource>
/// `uqua` UnitQuaternionBox: x, y, z (w implied).
public typealias UnitQuaternionBox = LensFieldsBox<LensBoxCode.UnitQuaternion>

/// `iref` ItemReferenceBox header (ISO/IEC 23008-12 §8.11.12): version and flags, before the reference
/// boxes; the version decides their item-id width (16 bits in version 0, 32 in version 1).
public typealias ItemReferenceBoxHeader = FullBoxHeaderOnlyBox<HeaderOnlyCode.ItemReference>
/// `lens` LensBox header inside `lnsc` (Apple Projected Media Profile): version and flags, before the
/// lens's boxes.
public typealias LensBoxHeader = FullBoxHeaderOnlyBox<HeaderOnlyCode.Lens>
/// `rect` RectilinearProjectionBox inside `vexu/proj`: names the projection kind; version and flags only.
public typealias RectilinearProjectionBox = FullBoxHeaderOnlyBox<HeaderOnlyCode.Rectilinear>
/// `equi` EquirectangularProjectionKindBox inside `vexu/proj` (Apple's 360° kind box; not Google's `equi`,
/// ``EquirectangularProjectionBox``): version and flags only.
public typealias EquirectangularProjectionKindBox = FullBoxHeaderOnlyBox<HeaderOnlyCode.Equirectangular>
/// `hequ` HalfEquirectangularProjectionBox inside `vexu/proj` (180°): version and flags only.
public typealias HalfEquirectangularProjectionBox = FullBoxHeaderOnlyBox<HeaderOnlyCode.HalfEquirectangular>
/// `fish` FisheyeProjectionBox inside `vexu/proj` (the older fisheye kind): version and flags only.
public typealias FisheyeProjectionBox = FullBoxHeaderOnlyBox<HeaderOnlyCode.Fisheye>
/// `prim` ParametricImmersiveProjectionBox inside `vexu/proj`: version and flags only; the lenses are
/// described by `lnsc`.
public typealias ParametricImmersiveProjectionBox = FullBoxHeaderOnlyBox<HeaderOnlyCode.ParametricImmersive>

extension BoxRegistry {
    /// Registers the Apple Projected Media Profile boxes: the kind boxes inside `vexu/proj`, the Google
    /// spherical v2 boxes inside `sv3d/proj` (the same FourCC `proj`, told apart by the grandparent),
    /// `must`, and the parametric-immersive lens collection.
    mutating func registerImmersive() {
        let googleCases = ["prhd", "equi", "cbmp", "mshp"].map { ResolverCase(type: FourCC($0), grandparent: "sv3d") }
        let appleCases = ["prji", "rect", "equi", "hequ", "fish", "prim"].map {
            ResolverCase(type: FourCC($0), grandparent: "vexu")
        }
        registerResolver(parent: "proj", cases: googleCases + appleCases) { type, ctx in
            let grandparent = ctx.parents.dropLast().last
            if grandparent == "sv3d" {
                switch type {
                case "prhd": return .fields("ProjectionHeaderBox (Google)", ProjectionHeaderBox.self)
                case "equi": return .fields("EquirectangularProjectionBox (Google)", EquirectangularProjectionBox.self)
                case "cbmp": return .fields("CubemapProjectionBox (Google)", CubemapProjectionBox.self)
                case "mshp": return .raw("MeshProjectionBox (Google)")
                default: return nil
                }
            }
            // Apple's proj (inside vexu) and any other parent: the projection information and kind boxes.
            switch type {
            case "prji": return .fields("ProjectionInformationBox", ProjectionInformationBox.self)
            case "rect": return .fields("ProjectionKindBox (rect)", RectilinearProjectionBox.self)
            case "equi": return .fields("ProjectionKindBox (equi)", EquirectangularProjectionKindBox.self)
            case "hequ": return .fields("ProjectionKindBox (hequ)", HalfEquirectangularProjectionBox.self)
            case "fish": return .fields("ProjectionKindBox (fish)", FisheyeProjectionBox.self)
            case "prim": return .fields("ProjectionKindBox (prim)", ParametricImmersiveProjectionBox.self)
            default: return nil
            }
        }
        register("must", parent: "vexu", .fields("RequiredBoxTypesBox", RequiredBoxTypesBox.self))
        register("must", parent: "eyes", .fields("RequiredBoxTypesBox", RequiredBoxTypesBox.self))
        register("lnsc", .container("LensCollectionBox"))
        register("lens", parent: "lnsc", .fieldsThenChildren("LensBox", LensBoxHeader.self))
        register("lnhd", parent: "lens", .fields("LensHeaderBox", LensHeaderBox.self))
        register(
            "rdim", parent: "lens",
            .fields("IntrinsicMatrixReferenceDimensionsBox", IntrinsicMatrixReferenceDimensionsBox.self))
        register("lnin", parent: "lens", .fields("LensIntrinsicsBox", LensIntrinsicsBox.self))
        register("ldst", parent: "lens", .fields("LensDistortionsBox", LensDistortionsBox.self))
        register("lfad", parent: "lens", .fields("LensFrameAdjustmentBox", LensFrameAdjustmentBox.self))
        register("lnex", parent: "lens", .container("LensExtrinsicsBox"))
        register("corg", parent: "lnex", .fields("ExtrinsicOriginSourceBox", ExtrinsicOriginSourceBox.self))
        register("cxfm", parent: "lnex", .container("ExtrinsicTransformBox"))
        register("uqua", parent: "cxfm", .fields("UnitQuaternionBox", UnitQuaternionBox.self))
    }
}
