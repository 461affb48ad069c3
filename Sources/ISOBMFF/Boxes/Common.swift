import BinaryIO
import SystemSupport

/// A major brand, a minor version and compatible brands to the end of the box: the syntax shared by
/// ``FileTypeBox`` (`ftyp`) and ``SegmentTypeBox`` (`styp`), which adopt it for their parse and write.
public protocol BrandListPayload: BoxPayload {
    var majorBrand: FourCC { get }
    var minorVersion: UInt32 { get }
    var compatibleBrands: [FourCC] { get }
    init(majorBrand: FourCC, minorVersion: UInt32, compatibleBrands: [FourCC])
}

extension BrandListPayload {
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        let major = try r.readFourCC()
        let minor = try r.readU32()
        var brands: [FourCC] = []
        while r.remaining >= 4 { brands.append(try r.readFourCC()) }
        self.init(majorBrand: major, minorVersion: minor, compatibleBrands: brands)
    }
    public func write(to w: inout ByteWriter) {
        w.writeFourCC(majorBrand); w.writeU32(minorVersion)
        for b in compatibleBrands { w.writeFourCC(b) }
    }
    public var summary: String {
        "major=\(majorBrand) minor=\(minorVersion) compatible=[\(compatibleBrands.map(\.description).joined(separator: ","))]"
    }
    public var json: [(String, JSON)] {
        [
            ("major_brand", .string(majorBrand.description)), ("minor_version", .uint(UInt64(minorVersion))),
            ("compatible_brands", .array(compatibleBrands.map { .string($0.description) })),
        ]
    }
}

/// `ftyp` FileTypeBox (ISO/IEC 14496-12 §4.3): the file's brands.
public struct FileTypeBox: BrandListPayload, Equatable {
    public var majorBrand: FourCC
    public var minorVersion: UInt32
    public var compatibleBrands: [FourCC]
    public init(majorBrand: FourCC, minorVersion: UInt32 = 0, compatibleBrands: [FourCC]) {
        self.majorBrand = majorBrand; self.minorVersion = minorVersion; self.compatibleBrands = compatibleBrands
    }
}

/// `styp` SegmentTypeBox (ISO/IEC 14496-12 §8.16.2): a media segment's brands (the `ftyp` syntax).
public struct SegmentTypeBox: BrandListPayload, Equatable {
    public var majorBrand: FourCC
    public var minorVersion: UInt32
    public var compatibleBrands: [FourCC]
    public init(majorBrand: FourCC, minorVersion: UInt32 = 0, compatibleBrands: [FourCC]) {
        self.majorBrand = majorBrand; self.minorVersion = minorVersion; self.compatibleBrands = compatibleBrands
    }
}

/// `nmhd` NullMediaHeaderBox (ISO/IEC 14496-12 §8.4.5.2): version and flags only.
public typealias NullMediaHeaderBox = FullBoxHeaderOnlyBox<HeaderOnlyCode.NullMediaHeader>
/// `sthd` SubtitleMediaHeaderBox (ISO/IEC 14496-12 §12.6.2): version and flags only.
public typealias SubtitleMediaHeaderBox = FullBoxHeaderOnlyBox<HeaderOnlyCode.SubtitleMediaHeader>

/// `meta` (ISO/IEC 14496-12 §8.11.1 MetaBox). ISO files write it as a FullBox; QuickTime writes a
/// plain box whose first child (usually `hdlr`) starts right after the header. Both forms are kept.
public struct MetaBoxHeader: BoxPayload, FullBoxCarrying, Equatable {
    /// nil for the QuickTime form (no version/flags).
    public var isoFullBox: FullBoxHeader?
    public var fullBox: FullBoxHeader { isoFullBox ?? FullBoxHeader() }
    public init(isoFullBox: FullBoxHeader? = FullBoxHeader()) { self.isoFullBox = isoFullBox }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        // QuickTime form: the payload starts with a box header whose type is printable (hdlr, keys…).
        if r.remaining >= 8, let b4 = r.peekU8(ahead: 4), let b7 = r.peekU8(ahead: 7),
            (0x61...0x7A).contains(b4) || (0x41...0x5A).contains(b4), b7 >= 0x20, r.peekU8(ahead: 0) == 0,
            let size = r.peekU32(), size >= 8, Int(size) <= r.remaining
        {
            isoFullBox = nil
        } else {
            isoFullBox = try FullBoxHeader(parsing: &r)
        }
    }
    public func write(to w: inout ByteWriter) { isoFullBox?.write(to: &w) }
    public var summary: String { isoFullBox == nil ? "QuickTime form" : "ISO form v\(fullBox.version)" }
    public var json: [(String, JSON)] { [("form", .string(isoFullBox == nil ? "quicktime" : "iso"))] }
}

/// `hdlr` HandlerBox (ISO/IEC 14496-12 §8.4.3; QuickTime "handler reference atom").
public struct HandlerBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    /// ISO: pre_defined (0). QuickTime: component type (`mhlr`, `dhlr`).
    public var preDefined: UInt32
    public var handlerType: FourCC
    /// Three 32-bit reserved words (QuickTime: manufacturer, flags, flags mask).
    public var reserved: [UInt8]
    /// The name bytes exactly as stored (ISO: NUL-terminated UTF-8; QuickTime: Pascal string).
    public var nameBytes: [UInt8]

    public init(handlerType: FourCC, name: String) {
        fullBox = FullBoxHeader(); preDefined = 0; self.handlerType = handlerType
        reserved = [UInt8](repeating: 0, count: 12); nameBytes = Array(name.utf8) + [0]
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        preDefined = try r.readU32()
        handlerType = try r.readFourCC()
        reserved = try r.readBytes(12)
        nameBytes = r.readRemaining()
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(preDefined); w.writeFourCC(handlerType); w.write(reserved); w.write(nameBytes)
    }
    /// The handler name, decoded from either form.
    public var name: String {
        var b = nameBytes
        // Pascal string
        if let first = b.first, Int(first) == b.count - 1, first > 0, preDefined != 0 { b.removeFirst() }
        if let nul = b.firstIndex(of: 0) { b = Array(b[..<nul]) }
        return String(decoding: b, as: UTF8.self)
    }
    public var summary: String { "handler=\(handlerType) name=\"\(name)\"" }
    public var json: [(String, JSON)] { [("handler_type", .string(handlerType.description)), ("name", .string(name))] }
}

/// A payload made of a FullBox header and opaque bytes: for boxes that are recognised but whose
/// fields are not modelled individually (kept exactly).
public struct OpaqueFullBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var data: [UInt8]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        data = r.readRemaining()
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); w.write(data) }
    public var summary: String { "v\(fullBox.version) flags=0x\(String(fullBox.flags, radix: 16)) \(data.count) bytes" }
}

/// Reads a table of `count` entries of `entrySize` bytes, checking first that the bytes are present
/// and that the count is within ``Limits/maxTableEntries`` (never allocates from the count alone).
@inline(__always)
func checkTable(_ r: ByteReader, count: UInt64, entrySize: Int, _ name: String, _ ctx: ParseContext) throws(ParseError)
    -> Int
{
    let n = try Checked.int(count, offset: r.absoluteOffset)
    try Limits.check(n, ctx.limits.maxTableEntries, "maxTableEntries (\(name))", offset: r.absoluteOffset)
    let bytes = try Checked.mul(n, entrySize, offset: r.absoluteOffset)
    if bytes > r.remaining {
        throw ParseError(
            .truncated, offset: r.absoluteOffset,
            "\(name) declares \(n) entries (\(bytes) bytes) but only \(r.remaining) bytes remain")
    }
    return n
}

func fixed16(_ v: UInt32) -> Double { Double(v) / 65536 }
func fmt(_ d: Double, _ places: Int = 3) -> String { NumberText.fixed(d, places: places, trimZeros: true) }
func pow10(_ n: Int) -> Double { var r = 1.0; for _ in 0..<n { r *= 10 }; return r }
