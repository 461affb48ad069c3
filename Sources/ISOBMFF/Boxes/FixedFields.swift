import BinaryIO
import SystemSupport

/// A payload made of fixed-width unsigned integer fields, optionally after a FullBox version and flags.
///
/// Each four-character code has its own named payload type (``PixelAspectRatioBox``,
/// ``HeroStereoEyeDescriptionBox`` …); those types only say how wide their fields are and map the stored
/// values to and from their named properties. Reading and writing the bytes is this protocol's default
/// implementation, shared by all of them, so every field (reserved bits included) is kept as stored.
public protocol FixedFieldsPayload: BoxPayload {
    /// Whether the fields follow a FullBox version and flags (false for plain boxes such as `pasp`).
    static var hasFullBoxHeader: Bool { get }
    /// The byte width (1, 2, 4 or 8) of each field, in order, for a box with this FullBox header
    /// (the version can widen a field, as in `tfdt`).
    static func fieldWidths(_ fullBox: FullBoxHeader) -> [Int]
    /// The FullBox version and flags (version 0, flags 0 and not written for plain boxes).
    var fieldsHeader: FullBoxHeader { get }
    /// The fields' stored values, in order; each fits its width.
    var storedFields: [UInt64] { get }
    /// Builds the value from its header and stored fields (missing fields read as 0).
    init(fieldsHeader: FullBoxHeader, storedFields: [UInt64])
}

extension FixedFieldsPayload {
    public static var hasFullBoxHeader: Bool { true }

    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        let header = Self.hasFullBoxHeader ? try FullBoxHeader(parsing: &r) : FullBoxHeader()
        var values: [UInt64] = []
        for width in Self.fieldWidths(header) {
            switch width {
            case 1: values.append(UInt64(try r.readU8()))
            case 2: values.append(UInt64(try r.readU16()))
            case 4: values.append(UInt64(try r.readU32()))
            default: values.append(try r.readU64())
            }
        }
        self.init(fieldsHeader: header, storedFields: values)
    }

    public func write(to w: inout ByteWriter) {
        if Self.hasFullBoxHeader { fieldsHeader.write(to: &w) }
        let values = storedFields
        for (i, width) in Self.fieldWidths(fieldsHeader).enumerated() {
            let v = values[safe: i] ?? 0
            switch width {
            case 1: w.writeU8(UInt8(truncatingIfNeeded: v))
            case 2: w.writeU16(UInt16(truncatingIfNeeded: v))
            case 4: w.writeU32(UInt32(truncatingIfNeeded: v))
            default: w.writeU64(v)
            }
        }
    }
}

/// A ``FixedFieldsPayload`` without a FullBox header (`pasp`, `clap`, `btrt`, `hfov`, `fiel`, `chrm`).
public protocol PlainFixedFieldsPayload: FixedFieldsPayload {}

extension PlainFixedFieldsPayload {
    public static var hasFullBoxHeader: Bool { false }
    public var fieldsHeader: FullBoxHeader { FullBoxHeader() }
}

/// A FullBox with fixed-width fields: the header is stored in `fullBox`.
public protocol FullBoxFixedFieldsPayload: FixedFieldsPayload, FullBoxCarrying {
    var fullBox: FullBoxHeader { get }
}

extension FullBoxFixedFieldsPayload {
    public var fieldsHeader: FullBoxHeader { fullBox }
}

/// A FullBox with no fields of its own beyond version and flags (`nmhd`, `sthd`, the `iref` and `lens`
/// headers, Apple's projection kind boxes). Named types adopt it and share its parse and write.
public protocol FullBoxHeaderOnlyPayload: BoxPayload, FullBoxCarrying {
    var fullBox: FullBoxHeader { get }
    init(_ fullBox: FullBoxHeader)
}

extension FullBoxHeaderOnlyPayload {
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        self.init(try FullBoxHeader(parsing: &r))
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w) }
    public var versionForChildren: UInt8? { fullBox.version }
    public var summary: String { "v\(fullBox.version) flags=0x\(String(fullBox.flags, radix: 16))" }
    public var json: [(String, JSON)] {
        [("version", .uint(UInt64(fullBox.version))), ("flags", .uint(UInt64(fullBox.flags)))]
    }
}

/// A FullBox with no fields of its own, one distinct type per four-character code: the code is the type
/// parameter (``NullMediaHeaderBox`` is `FullBoxHeaderOnlyBox<HeaderOnlyCode.NullMediaHeader>`), so
/// `Box.payload(NullMediaHeaderBox.self)` never matches an `sthd`.
public struct FullBoxHeaderOnlyBox<Code: HeaderOnlyCodeTag>: FullBoxHeaderOnlyPayload, Equatable {
    public var fullBox: FullBoxHeader
    public init(_ fullBox: FullBoxHeader = FullBoxHeader()) { self.fullBox = fullBox }
}

/// Marks a type that names one code of ``FullBoxHeaderOnlyBox``.
public protocol HeaderOnlyCodeTag: Sendable {}

/// The codes of ``FullBoxHeaderOnlyBox``, one tag each.
public enum HeaderOnlyCode {
    public enum NullMediaHeader: HeaderOnlyCodeTag {}
    public enum SubtitleMediaHeader: HeaderOnlyCodeTag {}
    public enum ItemReference: HeaderOnlyCodeTag {}
    public enum Lens: HeaderOnlyCodeTag {}
    public enum Rectilinear: HeaderOnlyCodeTag {}
    public enum Equirectangular: HeaderOnlyCodeTag {}
    public enum HalfEquirectangular: HeaderOnlyCodeTag {}
    public enum Fisheye: HeaderOnlyCodeTag {}
    public enum ParametricImmersive: HeaderOnlyCodeTag {}
}

/// The dump line and JSON of a list of 32-bit fields (`pasp`, `clap`, `btrt`): the values in order.
func valuesSummary(_ values: [UInt64]) -> String { values.map { String($0) }.joined(separator: " ") }
func valuesJSON(_ values: [UInt64]) -> [(String, JSON)] { [("values", .array(values.map { .uint($0) }))] }
/// The dump line and JSON of a box of single bytes (`fiel`, `chrm`, `irot`, `imir`): the bytes in hex.
func bytesSummary(_ p: some BoxPayload) -> String { Hex.string(p.serialized(), separator: " ") }
func bytesJSON(_ p: some BoxPayload) -> [(String, JSON)] { [("bytes", .string(Hex.string(p.serialized())))] }
