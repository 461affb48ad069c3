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

/// A FullBox holding one integer field (Apple spatial video boxes):
/// `hero` (u8 hero eye: 0 none, 1 left, 2 right), `blin` (u32 baseline in µm),
/// `dadj` (s32 disparity adjustment in 1/10000 of the image width), `prji` (FourCC projection kind),
/// `pkin` (FourCC view packing kind), `st3d` (u8 Google stereo mode).
public struct SingleValueFullBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    /// The value's width in bytes (1 or 4).
    public var width: Int
    /// The raw unsigned value (interpret `dadj` as signed with ``signedValue``).
    public var value: UInt32
    /// The box type this payload belongs to (decides how the value is shown; not written).
    public var kind: FourCC
    public init(kind: FourCC, value: UInt32) {
        fullBox = FullBoxHeader(); self.kind = kind; self.value = value
        width = (kind == "hero" || kind == "st3d") ? 1 : 4
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let type = context.parents.last ?? FourCC(0)
        kind = type
        width = (type == "hero" || type == "st3d") ? 1 : 4
        value = width == 1 ? UInt32(try r.readU8()) : try r.readU32()
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        if width == 1 { w.writeU8(UInt8(truncatingIfNeeded: value)) } else { w.writeU32(value) }
    }
    public var signedValue: Int32 { Int32(bitPattern: value) }
    public var fourCC: FourCC { FourCC(value) }
    public var summary: String {
        switch kind {
        case "hero": return "hero_eye=\(value) (\(["none", "left", "right"][safe: Int(value)] ?? "reserved"))"
        case "blin": return "baseline=\(value) µm (\(fmt(Double(value) / 1000)) mm)"
        case "dadj": return "disparity_adjustment=\(signedValue) (\(fmt(Double(signedValue) / 100, 2)) % of width)"
        case "prji", "pkin": return "kind='\(fourCC)'"
        case "st3d":
            return
                "stereo_mode=\(value) (\(["mono", "top-bottom", "left-right", "stereo-custom"][safe: Int(value)] ?? "reserved"))"
        default: return "value=\(value)"
        }
    }
    public var json: [(String, JSON)] {
        switch kind {
        case "prji", "pkin": return [("kind", .string(fourCC.description))]
        case "dadj": return [("value", .int(Int64(signedValue)))]
        default: return [("value", .uint(UInt64(value)))]
        }
    }
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

/// A FullBox followed by a list of 32-bit fields: `prhd` (yaw, pitch, roll 16.16 degrees),
/// `equi` (bounds top/bottom/left/right 0.32), `cbmp` (layout, padding).
public struct FullBoxU32Fields: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var values: [UInt32]
    /// A version-0 box with the given fields (3 for `prhd`, 4 for `equi`, 2 for `cbmp`).
    public init(values: [UInt32]) { fullBox = FullBoxHeader(); self.values = values }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let n: Int = ["prhd": 3, "equi": 4, "cbmp": 2][context.parents.last ?? FourCC(0)] ?? 0
        values = []
        for _ in 0..<n { values.append(try r.readU32()) }
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); for v in values { w.writeU32(v) } }
    public var summary: String { values.map { String(Int32(bitPattern: $0)) }.joined(separator: " ") }
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
