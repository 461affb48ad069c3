import BinaryIO
import SystemSupport

/// `stri` StereoViewInformationBox inside `eyes` (Apple spatial video; FullBox + one flag byte).
/// Bit 0 left eye present, bit 1 right eye, bit 2 additional views, bit 3 eye views reversed;
/// bits 4–7 reserved and kept.
public struct StereoViewInformationBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var flagsByte: UInt8
    public init(left: Bool, right: Bool, additionalViews: Bool = false, reversed: Bool = false) {
        fullBox = FullBoxHeader()
        flagsByte = (left ? 1 : 0) | (right ? 2 : 0) | (additionalViews ? 4 : 0) | (reversed ? 8 : 0)
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r); flagsByte = try r.readU8()
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); w.writeU8(flagsByte) }
    public var hasLeftEye: Bool { flagsByte & 1 != 0 }
    public var hasRightEye: Bool { flagsByte & 2 != 0 }
    public var hasAdditionalViews: Bool { flagsByte & 4 != 0 }
    public var eyeViewsReversed: Bool { flagsByte & 8 != 0 }
    public var summary: String {
        "flags=0x\(String(flagsByte, radix: 16).leftPadded(2)) left=\(hasLeftEye) right=\(hasRightEye)"
            + (hasAdditionalViews ? " additional" : "") + (eyeViewsReversed ? " reversed" : "")
    }
    public var json: [(String, JSON)] {
        [
            ("has_left_eye", .bool(hasLeftEye)), ("has_right_eye", .bool(hasRightEye)),
            ("has_additional_views", .bool(hasAdditionalViews)), ("eye_views_reversed", .bool(eyeViewsReversed)),
        ]
    }
}

/// `hero` HeroStereoEyeDescriptionBox inside `vexu/eyes` (Apple spatial video): which eye is the hero.
public struct HeroStereoEyeDescriptionBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// 0 none, 1 left, 2 right; other values reserved and kept.
    public var heroEye: UInt8
    public init(heroEye: UInt8, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.heroEye = heroEye
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [1] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(heroEye: UInt8(truncatingIfNeeded: f[safe: 0] ?? 0), fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [UInt64(heroEye)] }
    public var summary: String {
        "hero_eye=\(heroEye) (\(["none", "left", "right"][safe: Int(heroEye)] ?? "reserved"))"
    }
    public var json: [(String, JSON)] { [("value", .uint(UInt64(heroEye)))] }
}

/// `blin` StereoCameraSystemBaselineBox inside `vexu/cams` (Apple spatial video): the distance between
/// the two cameras' centres.
public struct StereoCameraSystemBaselineBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// Baseline in micrometres (19 240 = 19.24 mm).
    public var baseline: UInt32
    public init(baseline: UInt32, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.baseline = baseline
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(baseline: UInt32(truncatingIfNeeded: f[safe: 0] ?? 0), fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [UInt64(baseline)] }
    public var summary: String { "baseline=\(baseline) µm (\(fmt(Double(baseline) / 1000)) mm)" }
    public var json: [(String, JSON)] { [("value", .uint(UInt64(baseline)))] }
}

/// `dadj` StereoComfortDisparityAdjustmentBox inside `vexu/cmfy` (Apple spatial video): the horizontal
/// disparity adjustment.
public struct StereoComfortDisparityAdjustmentBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// Disparity adjustment in 1/10000 of the image width (signed; 200 = 2 %).
    public var disparityAdjustment: Int32
    public init(disparityAdjustment: Int32, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.disparityAdjustment = disparityAdjustment
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(
            disparityAdjustment: Int32(bitPattern: UInt32(truncatingIfNeeded: f[safe: 0] ?? 0)), fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [UInt64(UInt32(bitPattern: disparityAdjustment))] }
    public var summary: String {
        "disparity_adjustment=\(disparityAdjustment) (\(fmt(Double(disparityAdjustment) / 100, 2)) % of width)"
    }
    public var json: [(String, JSON)] { [("value", .int(Int64(disparityAdjustment)))] }
}

/// `pkin` ViewPackingInformationBox inside `vexu/pack` (Apple Projected Media Profile): how the two views
/// share a frame.
public struct ViewPackingInformationBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// `side` (left eye on the left), `over` (left eye on top); 0 when signalled elsewhere.
    public var packingKind: FourCC
    public init(packingKind: FourCC, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.packingKind = packingKind
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(packingKind: FourCC(UInt32(truncatingIfNeeded: f[safe: 0] ?? 0)), fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [UInt64(packingKind.rawValue)] }
    public var summary: String { "kind='\(packingKind)'" }
    public var json: [(String, JSON)] { [("kind", .string(packingKind.description))] }
}

/// `prji` ProjectionInformationBox inside `vexu/proj` (Apple Projected Media Profile): the projection kind.
public struct ProjectionInformationBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// `rect`, `equi`, `hequ`, `fish`, `prim`; other values kept as stored.
    public var projectionKind: FourCC
    public init(projectionKind: FourCC, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.projectionKind = projectionKind
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(projectionKind: FourCC(UInt32(truncatingIfNeeded: f[safe: 0] ?? 0)), fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [UInt64(projectionKind.rawValue)] }
    public var summary: String { "kind='\(projectionKind)'" }
    public var json: [(String, JSON)] { [("kind", .string(projectionKind.description))] }
}

/// `st3d` Stereoscopic3DVideoBox (Google spherical video v2), in the visual sample entry.
public struct Stereoscopic3DVideoBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    /// 0 mono, 1 top-bottom, 2 left-right, 3 stereo-custom; other values reserved and kept.
    public var stereoMode: UInt8
    public init(stereoMode: UInt8, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.stereoMode = stereoMode
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [1] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(stereoMode: UInt8(truncatingIfNeeded: f[safe: 0] ?? 0), fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [UInt64(stereoMode)] }
    public var summary: String {
        let names = ["mono", "top-bottom", "left-right", "stereo-custom"]
        return "stereo_mode=\(stereoMode) (\(names[safe: Int(stereoMode)] ?? "reserved"))"
    }
    public var json: [(String, JSON)] { [("value", .uint(UInt64(stereoMode)))] }
}

/// `must` RequiredBoxTypesBox: a FullBox with a list of box types a reader must understand.
public struct RequiredBoxTypesBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var types: [FourCC]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        types = []
        while r.remaining >= 4 { types.append(try r.readFourCC()) }
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); for t in types { w.writeFourCC(t) } }
    public var summary: String { "types=[\(types.map(\.description).joined(separator: ","))]" }
}

/// `svhd` SphericalVideoHeader (Google spherical video v2): metadata source string.
public struct SphericalVideoHeaderBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var metadataSource: StoredString
    /// A header naming `source` (written NUL-terminated).
    public init(source: String) { fullBox = FullBoxHeader(); metadataSource = StoredString(source) }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r); metadataSource = StoredString(reading: &r)
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); metadataSource.write(to: &w) }
    public var summary: String { "source=\"\(metadataSource.value)\"" }
}

/// `prhd` ProjectionHeaderBox inside `sv3d/proj` (Google spherical video v2): the pose, each angle a
/// signed 16.16 fixed-point number of degrees.
public struct ProjectionHeaderBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    public var poseYaw, posePitch, poseRoll: Int32
    public init(poseYaw: Int32, posePitch: Int32, poseRoll: Int32, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.poseYaw = poseYaw; self.posePitch = posePitch; self.poseRoll = poseRoll
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4, 4, 4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        let v = (0..<3).map { Int32(bitPattern: UInt32(truncatingIfNeeded: f[safe: $0] ?? 0)) }
        self.init(poseYaw: v[0], posePitch: v[1], poseRoll: v[2], fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [poseYaw, posePitch, poseRoll].map { UInt64(UInt32(bitPattern: $0)) } }
    public var summary: String { signedSummary(storedFields) }
}

/// `equi` EquirectangularProjectionBox inside `sv3d/proj` (Google spherical video v2): the crop from each
/// edge as a 0.32 fixed-point fraction of the frame.
public struct EquirectangularProjectionBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    public var boundsTop, boundsBottom, boundsLeft, boundsRight: UInt32
    public init(
        boundsTop: UInt32, boundsBottom: UInt32, boundsLeft: UInt32, boundsRight: UInt32,
        fullBox: FullBoxHeader = FullBoxHeader()
    ) {
        self.fullBox = fullBox; self.boundsTop = boundsTop; self.boundsBottom = boundsBottom
        self.boundsLeft = boundsLeft; self.boundsRight = boundsRight
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4, 4, 4, 4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        let v = (0..<4).map { UInt32(truncatingIfNeeded: f[safe: $0] ?? 0) }
        self.init(boundsTop: v[0], boundsBottom: v[1], boundsLeft: v[2], boundsRight: v[3], fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [boundsTop, boundsBottom, boundsLeft, boundsRight].map { UInt64($0) } }
    public var summary: String { signedSummary(storedFields) }
}

/// `cbmp` CubemapProjectionBox inside `sv3d/proj` (Google spherical video v2): layout and padding.
public struct CubemapProjectionBox: FullBoxFixedFieldsPayload, Equatable {
    public var fullBox: FullBoxHeader
    public var layout: UInt32
    /// Padding around each face, pixels.
    public var padding: UInt32
    public init(layout: UInt32, padding: UInt32, fullBox: FullBoxHeader = FullBoxHeader()) {
        self.fullBox = fullBox; self.layout = layout; self.padding = padding
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4, 4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        let v = (0..<2).map { UInt32(truncatingIfNeeded: f[safe: $0] ?? 0) }
        self.init(layout: v[0], padding: v[1], fullBox: fieldsHeader)
    }
    public var storedFields: [UInt64] { [UInt64(layout), UInt64(padding)] }
    public var summary: String { signedSummary(storedFields) }
}

/// The dump line of Google's projection boxes: each 32-bit field as a signed integer.
func signedSummary(_ values: [UInt64]) -> String {
    values.map { String(Int32(bitPattern: UInt32(truncatingIfNeeded: $0))) }.joined(separator: " ")
}

/// QuickTime `data` box inside a metadata item (`ilst`): type indicator, locale, value bytes.
public struct MetadataDataBox: BoxPayload, Equatable {
    public var typeIndicator: UInt32
    public var locale: UInt32
    public var value: [UInt8]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        typeIndicator = try r.readU32(); locale = try r.readU32(); value = r.readRemaining()
    }
    public func write(to w: inout ByteWriter) { w.writeU32(typeIndicator); w.writeU32(locale); w.write(value) }
    public var summary: String {
        typeIndicator & 0xFFFFFF == 1
            ? "utf8 \"\(String(decoding: value.prefix(80), as: UTF8.self))\""
            : "type=\(typeIndicator) \(value.count) bytes"
    }
}

/// QuickTime `keys` box (metadata key table): FullBox, count, then (size, namespace, key bytes).
public struct MetadataKeysBox: BoxPayload, FullBoxCarrying, Equatable {
    public struct Key: Sendable, Equatable { public var namespace: FourCC; public var value: [UInt8] }
    public var fullBox: FullBoxHeader
    public var keys: [Key]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let n = try checkTable(r, count: UInt64(try r.readU32()), entrySize: 8, "keys", context)
        keys = []
        for _ in 0..<n {
            let size = try r.readU32()
            guard size >= 8 else { throw r.fail(.sizeTooSmall, "metadata key size \(size) < 8") }
            let ns = try r.readFourCC()
            keys.append(Key(namespace: ns, value: try r.readBytes(Int(size) - 8)))
        }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(UInt32(truncatingIfNeeded: keys.count))
        for k in keys {
            w.writeU32(UInt32(truncatingIfNeeded: k.value.count + 8)); w.writeFourCC(k.namespace); w.write(k.value)
        }
    }
    public var summary: String {
        keys.map { "\($0.namespace):\(String(decoding: $0.value, as: UTF8.self))" }.joined(separator: ", ")
    }
}

extension Array {
    subscript(safe i: Int) -> Element? { i >= 0 && i < count ? self[i] : nil }
}
