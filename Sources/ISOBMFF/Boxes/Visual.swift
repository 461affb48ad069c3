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

/// `pasp` PixelAspectRatioBox (ISO/IEC 14496-12 §12.1.4): the pixel's relative width and height.
public struct PixelAspectRatioBox: PlainFixedFieldsPayload, Equatable {
    public var hSpacing: UInt32
    public var vSpacing: UInt32
    public init(hSpacing: UInt32, vSpacing: UInt32) { self.hSpacing = hSpacing; self.vSpacing = vSpacing }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4, 4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(
            hSpacing: UInt32(truncatingIfNeeded: f[safe: 0] ?? 0), vSpacing: UInt32(truncatingIfNeeded: f[safe: 1] ?? 0)
        )
    }
    public var storedFields: [UInt64] { [UInt64(hSpacing), UInt64(vSpacing)] }
    public var summary: String { valuesSummary(storedFields) }
    public var json: [(String, JSON)] { valuesJSON(storedFields) }
}

/// `clap` CleanApertureBox (ISO/IEC 14496-12 §12.1.4): width, height and the centre's offsets, each a
/// numerator/denominator pair. The offset numerators are signed.
public struct CleanApertureBox: PlainFixedFieldsPayload, Equatable {
    public var cleanApertureWidthN, cleanApertureWidthD, cleanApertureHeightN, cleanApertureHeightD: UInt32
    public var horizOffN: Int32
    public var horizOffD: UInt32
    public var vertOffN: Int32
    public var vertOffD: UInt32
    public init(
        cleanApertureWidthN: UInt32, cleanApertureWidthD: UInt32, cleanApertureHeightN: UInt32,
        cleanApertureHeightD: UInt32, horizOffN: Int32, horizOffD: UInt32, vertOffN: Int32, vertOffD: UInt32
    ) {
        self.cleanApertureWidthN = cleanApertureWidthN; self.cleanApertureWidthD = cleanApertureWidthD
        self.cleanApertureHeightN = cleanApertureHeightN; self.cleanApertureHeightD = cleanApertureHeightD
        self.horizOffN = horizOffN; self.horizOffD = horizOffD; self.vertOffN = vertOffN; self.vertOffD = vertOffD
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4, 4, 4, 4, 4, 4, 4, 4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        let v = (0..<8).map { UInt32(truncatingIfNeeded: f[safe: $0] ?? 0) }
        self.init(
            cleanApertureWidthN: v[0], cleanApertureWidthD: v[1], cleanApertureHeightN: v[2],
            cleanApertureHeightD: v[3], horizOffN: Int32(bitPattern: v[4]), horizOffD: v[5],
            vertOffN: Int32(bitPattern: v[6]), vertOffD: v[7])
    }
    public var storedFields: [UInt64] {
        [
            cleanApertureWidthN, cleanApertureWidthD, cleanApertureHeightN, cleanApertureHeightD,
            UInt32(bitPattern: horizOffN), horizOffD, UInt32(bitPattern: vertOffN), vertOffD,
        ].map { UInt64($0) }
    }
    public var summary: String { valuesSummary(storedFields) }
    public var json: [(String, JSON)] { valuesJSON(storedFields) }
}

/// `btrt` BitRateBox (ISO/IEC 14496-12 §8.5.2.2): decoder buffer size in bytes, maximum and average
/// bit rate in bits per second.
public struct BitRateBox: PlainFixedFieldsPayload, Equatable {
    public var bufferSizeDB, maxBitrate, avgBitrate: UInt32
    public init(bufferSizeDB: UInt32, maxBitrate: UInt32, avgBitrate: UInt32) {
        self.bufferSizeDB = bufferSizeDB; self.maxBitrate = maxBitrate; self.avgBitrate = avgBitrate
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4, 4, 4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        let v = (0..<3).map { UInt32(truncatingIfNeeded: f[safe: $0] ?? 0) }
        self.init(bufferSizeDB: v[0], maxBitrate: v[1], avgBitrate: v[2])
    }
    public var storedFields: [UInt64] { [bufferSizeDB, maxBitrate, avgBitrate].map { UInt64($0) } }
    public var summary: String { valuesSummary(storedFields) }
    public var json: [(String, JSON)] { valuesJSON(storedFields) }
}

/// `hfov` HorizontalFieldOfViewBox (Apple spatial video, in the visual sample entry): the horizontal
/// field of view in thousandths of a degree.
public struct HorizontalFieldOfViewBox: PlainFixedFieldsPayload, Equatable {
    /// Field of view, 1/1000 degree (63 400 = 63.4°).
    public var fieldOfView: UInt32
    public init(fieldOfView: UInt32) { self.fieldOfView = fieldOfView }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [4] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        fieldOfView = UInt32(truncatingIfNeeded: f[safe: 0] ?? 0)
    }
    public var storedFields: [UInt64] { [UInt64(fieldOfView)] }
    public var summary: String { "field_of_view=\(fieldOfView) (\(fmt(Double(fieldOfView) / 1000))°)" }
    public var json: [(String, JSON)] { valuesJSON(storedFields) }
}

/// `fiel` FieldHandlingAtom (QuickTime): field count (1 progressive, 2 interlaced) and field ordering.
public struct FieldHandlingBox: PlainFixedFieldsPayload, Equatable {
    public var fieldCount: UInt8
    public var fieldOrdering: UInt8
    public init(fieldCount: UInt8, fieldOrdering: UInt8) {
        self.fieldCount = fieldCount; self.fieldOrdering = fieldOrdering
    }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [1, 1] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        self.init(
            fieldCount: UInt8(truncatingIfNeeded: f[safe: 0] ?? 0),
            fieldOrdering: UInt8(truncatingIfNeeded: f[safe: 1] ?? 0))
    }
    public var storedFields: [UInt64] { [UInt64(fieldCount), UInt64(fieldOrdering)] }
    public var summary: String { bytesSummary(self) }
    public var json: [(String, JSON)] { bytesJSON(self) }
}

/// `chrm` ChromaLocationAtom (QuickTime, written by Apple's VideoToolbox): one 16-bit chroma location,
/// kept as stored.
public struct ChromaLocationBox: PlainFixedFieldsPayload, Equatable {
    public var chromaLocation: UInt16
    public init(chromaLocation: UInt16) { self.chromaLocation = chromaLocation }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [2] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        chromaLocation = UInt16(truncatingIfNeeded: f[safe: 0] ?? 0)
    }
    public var storedFields: [UInt64] { [UInt64(chromaLocation)] }
    public var summary: String { bytesSummary(self) }
    public var json: [(String, JSON)] { bytesJSON(self) }
}
