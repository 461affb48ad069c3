import BinaryIO
import SystemSupport

/// `colr` ColourInformationBox (§12.1.5; QuickTime `nclc`). `nclx` fields are modelled;
/// ICC profiles (`rICC`, `prof`) are kept as bytes.
public struct ColourInformationBox: BoxPayload, Equatable {
    public var colourType: FourCC
    public var colourPrimaries: UInt16 = 0
    public var transferCharacteristics: UInt16 = 0
    public var matrixCoefficients: UInt16 = 0
    /// nclx: full_range_flag(1) + reserved(7), kept whole.
    public var rangeByte: UInt8 = 0
    /// ICC profile or any bytes after the modelled fields.
    public var data: [UInt8] = []
    /// An `nclx` (ISO, with the full-range flag) or `nclc` (QuickTime, without it) colour description.
    public init(
        colourType: FourCC, colourPrimaries: UInt16, transferCharacteristics: UInt16, matrixCoefficients: UInt16,
        fullRange: Bool = false
    ) {
        self.colourType = colourType
        self.colourPrimaries = colourPrimaries
        self.transferCharacteristics = transferCharacteristics
        self.matrixCoefficients = matrixCoefficients
        rangeByte = colourType == "nclx" && fullRange ? 0x80 : 0
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        colourType = try r.readFourCC()
        if colourType == "nclx" || colourType == "nclc" {
            colourPrimaries = try r.readU16(); transferCharacteristics = try r.readU16();
            matrixCoefficients = try r.readU16()
            if colourType == "nclx" { rangeByte = try r.readU8() }
        }
        data = r.readRemaining()
    }
    public func write(to w: inout ByteWriter) {
        w.writeFourCC(colourType)
        if colourType == "nclx" || colourType == "nclc" {
            w.writeU16(colourPrimaries); w.writeU16(transferCharacteristics); w.writeU16(matrixCoefficients)
            if colourType == "nclx" { w.writeU8(rangeByte) }
        }
        w.write(data)
    }
    public var fullRange: Bool { rangeByte & 0x80 != 0 }
    public var summary: String {
        colourType == "nclx" || colourType == "nclc"
            ? "\(colourType) primaries=\(colourPrimaries) transfer=\(transferCharacteristics) matrix=\(matrixCoefficients)"
                + (colourType == "nclx" ? " full_range=\(fullRange)" : "")
            : "\(colourType) \(data.count) bytes"
    }
    public var json: [(String, JSON)] {
        [
            ("colour_type", .string(colourType.description)), ("primaries", .uint(UInt64(colourPrimaries))),
            ("transfer", .uint(UInt64(transferCharacteristics))), ("matrix", .uint(UInt64(matrixCoefficients))),
            ("full_range", .bool(fullRange)),
        ]
    }
}

/// A box made of a fixed number of unsigned 32-bit fields:
/// `pasp` (2: h/v spacing), `clap` (8: width, height, h/v offset as N/D pairs), `btrt` (3: buffer size,
/// max bitrate, average bitrate), `hfov` (1: field of view in 1/1000 degree).
public struct U32FieldsBox: BoxPayload, Equatable {
    public var values: [UInt32]
    public init(values: [UInt32]) { self.values = values }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        let type = context.parents.last ?? FourCC(0)
        let n = U32FieldsBox.counts[type] ?? 0
        values = []
        for _ in 0..<n { values.append(try r.readU32()) }
    }
    public func write(to w: inout ByteWriter) { for v in values { w.writeU32(v) } }
    static let counts: [FourCC: Int] = ["pasp": 2, "clap": 8, "btrt": 3, "hfov": 1]
    public var summary: String {
        if values.count == 1 { return "field_of_view=\(values[0]) (\(fmt(Double(values[0]) / 1000))°)" }
        return values.map(String.init).joined(separator: " ")
    }
    public var json: [(String, JSON)] { [("values", .array(values.map { .uint(UInt64($0)) }))] }
}

/// A box made of raw bytes that are small, known fields shown in dumps:
/// `fiel` (field count, field ordering), `chrm` (QuickTime chroma location), `irot`, `imir`.
public struct SmallFieldsBox: BoxPayload, Equatable {
    public var bytes: [UInt8]
    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        bytes = r.readRemaining()
    }
    public func write(to w: inout ByteWriter) { w.write(bytes) }
    public var summary: String { Hex.string(bytes, separator: " ") }
    public var json: [(String, JSON)] { [("bytes", .string(Hex.string(bytes)))] }
}
