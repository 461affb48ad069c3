import BinaryIO
import Codecs
import ISOBMFF
import ImageFormats

/// JPEGs with an HDR gain map written from the published layouts, for tests: an Android Ultra HDR photo (MPF index
/// with the primary as Baseline MP Primary and the gain map as Undefined; primary XMP with `hdrgm:Version` and a
/// GContainer directory; gain-map XMP with the `hdrgm` values as attributes) and an Adobe / Lightroom HDR export (the
/// same, plus an APP2 ISO 21496-1 block: versions only in the primary, the full metadata in the gain map; the gain-map
/// XMP with the values as elements). Pixels are encoded with the project's libjpeg-turbo binding.
public enum UltraHDRFixture {
    public enum Variant: String, Sendable, CaseIterable { case android, adobe }

    /// The gain-map values a fixture states (hdrgm view, SDR base).
    public struct Values: Sendable, Equatable {
        public var gainMapMin: Double, gainMapMax: Double, gamma: Double, offsetSDR: Double, offsetHDR: Double
        public var capacityMin: Double, capacityMax: Double
        public init(
            gainMapMin: Double, gainMapMax: Double, gamma: Double, offsetSDR: Double, offsetHDR: Double,
            capacityMin: Double, capacityMax: Double
        ) {
            self.gainMapMin = gainMapMin; self.gainMapMax = gainMapMax; self.gamma = gamma; self.offsetSDR = offsetSDR
            self.offsetHDR = offsetHDR; self.capacityMin = capacityMin; self.capacityMax = capacityMax
        }
    }

    public struct Made: Sendable {
        public var bytes: [UInt8]
        public var primary: Image
        public var gainMap: Image
        public var gainMapJPEG: [UInt8]
        public var values: Values
    }

    /// A photo of `width`×`height` (a textured gradient with noise, so its halves are no stereo pair) and its grey gain
    /// map (full size for Android, as some phones write; a quarter of each side for Adobe), with `values`.
    public static func make(_ variant: Variant, width: Int = 256, height: Int = 192, seed: UInt32 = 1, values: Values)
        throws -> Made
    {
        var rng = seed &* 2_654_435_761 &+ 12345
        func next() -> UInt8 { rng = rng &* 1_664_525 &+ 1_013_904_223; return UInt8(truncatingIfNeeded: rng >> 24) }
        var rgb = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                let n = Int(next() % 64)
                rgb[i] = UInt8(clamping: (x * 255 / max(1, width - 1) + n) / 2 + Int(seed % 7) * 9)
                rgb[i + 1] = UInt8(clamping: (y * 255 / max(1, height - 1) + n) / 2)
                rgb[i + 2] = UInt8(clamping: ((x ^ y) & 0xFF) / 2 + n)
            }
        }
        let primary = try Image(width: width, height: height, bitDepth: 8, format: .rgb, planes: .u8([rgb]))
        let gw = variant == .android ? width : width / 4, gh = variant == .android ? height : height / 4
        var grey = [UInt8](repeating: 0, count: gw * gh)
        for y in 0..<gh {
            for x in 0..<gw {
                // Smooth, like a real map: brighter where the picture is (a gradient and a soft bump).
                let dx = Double(x) / Double(max(1, gw - 1)) - 0.6, dy = Double(y) / Double(max(1, gh - 1)) - 0.4
                let v =
                    60 + 120 * (Double(x) / Double(max(1, gw))) * 0.5 + 110 * max(0, 1 - (dx * dx + dy * dy) * 4)
                    + Double(seed % 5) * 4
                grey[y * gw + x] = UInt8(clamping: Int(v.rounded()))
            }
        }
        let gain = try Image(width: gw, height: gh, bitDepth: 8, format: .gray, planes: .u8([grey]))
        var gainJPEG = try JPEG.encode(
            gain, quality: 95, xmp: Array(gainMapXMP(values, elements: variant == .adobe).utf8))
        if variant == .adobe { gainJPEG = insertAPP2(isoBlock(values, full: true), into: gainJPEG) }
        var primaryJPEG = try JPEG.encode(
            primary, quality: 92, xmp: Array(primaryXMP(gainMapLength: gainJPEG.count).utf8))
        if variant == .adobe { primaryJPEG = insertAPP2(isoBlock(values, full: false), into: primaryJPEG) }
        return Made(
            bytes: withMPF(primaryJPEG, secondary: gainJPEG), primary: primary, gainMap: gain, gainMapJPEG: gainJPEG,
            values: values)
    }

    /// The primary's XMP: `hdrgm:Version` and a GContainer directory naming the primary and the gain map.
    public static func primaryXMP(gainMapLength: Int) -> String {
        """
        <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
        <rdf:Description rdf:about="" xmlns:Container="http://ns.google.com/photos/1.0/container/"
          xmlns:Item="http://ns.google.com/photos/1.0/container/item/" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0">
        <Container:Directory><rdf:Seq>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li>
        <rdf:li rdf:parseType="Resource"><Container:Item Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="\(gainMapLength)"/></rdf:li>
        </rdf:Seq></Container:Directory>
        </rdf:Description></rdf:RDF></x:xmpmeta>
        """
    }

    /// The gain map's XMP with the `hdrgm` values, as attributes (Android) or elements (Adobe).
    public static func gainMapXMP(_ v: Values, elements: Bool) -> String {
        let fields: [(String, String)] = [
            ("Version", "1.0"), ("GainMapMin", "\(v.gainMapMin)"), ("GainMapMax", "\(v.gainMapMax)"),
            ("Gamma", "\(v.gamma)"), ("OffsetSDR", "\(v.offsetSDR)"), ("OffsetHDR", "\(v.offsetHDR)"),
            ("HDRCapacityMin", "\(v.capacityMin)"), ("HDRCapacityMax", "\(v.capacityMax)"),
            ("BaseRenditionIsHDR", "False"),
        ]
        let open =
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"
            + "<rdf:Description rdf:about=\"\" xmlns:hdrgm=\"http://ns.adobe.com/hdr-gain-map/1.0/\""
        if elements {
            return open + ">" + fields.map { "<hdrgm:\($0.0)>\($0.1)</hdrgm:\($0.0)>" }.joined()
                + "</rdf:Description></rdf:RDF></x:xmpmeta>"
        }
        return open + fields.map { " hdrgm:\($0.0)=\"\($0.1)\"" }.joined() + "/></rdf:RDF></x:xmpmeta>"
    }

    /// The ISO 21496-1 APP2 payload: identifier, versions, and (in the gain map) the metadata with a denominator of 1
    /// 000 000.
    public static func isoBlock(_ v: Values, full: Bool) -> [UInt8] {
        var w = ByteWriter()
        w.write(Array(GainMapMetadata.isoURN.utf8) + [0])
        w.writeU16(0); w.writeU16(0)
        guard full else { return w.take() }
        func f(_ x: Double) { w.writeU32(UInt32(bitPattern: Int32((x * 1_000_000).rounded()))); w.writeU32(1_000_000) }
        w.writeU8(0x40)
        f(v.capacityMin); f(v.capacityMax)
        f(v.gainMapMin); f(v.gainMapMax); f(v.gamma); f(v.offsetSDR); f(v.offsetHDR)
        return w.take()
    }

    /// `jpeg` with an APP2 segment holding `payload` right after SOI.
    public static func insertAPP2(_ payload: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let len = payload.count + 2
        return Array(jpeg.prefix(2)) + [0xFF, 0xE2, UInt8(len >> 8), UInt8(len & 0xFF)] + payload
            + Array(jpeg.dropFirst(2))
    }

    /// The primary with an APP2 `MPF` index (big-endian TIFF) right after SOI: entry 1 Baseline MP Primary (0x030000),
    /// entry 2 Undefined (0x000000) at its offset from the MPF TIFF header; then the secondary picture.
    public static func withMPF(_ primary: [UInt8], secondary: [UInt8], types: (UInt32, UInt32) = (0x03_0000, 0))
        -> [UInt8]
    {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        let tiffLength = 8 + 2 + 3 * 12 + 4 + 32
        let segmentLength = 2 + 4 + tiffLength
        let firstSize = primary.count + 2 + segmentLength
        let tiffStart = 2 + 4 + 4
        var tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A] + be32(8) + be16(3)
        tiff += be16(0xB000) + be16(7) + be32(4) + Array("0100".utf8)
        tiff += be16(0xB001) + be16(4) + be32(1) + be32(2)
        tiff += be16(0xB002) + be16(7) + be32(32) + be32(50)
        tiff += be32(0)
        tiff += be32(0x2000_0000 | types.0) + be32(UInt32(firstSize)) + be32(0) + be16(0) + be16(0)
        tiff += be32(types.1) + be32(UInt32(secondary.count)) + be32(UInt32(firstSize - tiffStart)) + be16(0) + be16(0)
        let app2: [UInt8] = [0xFF, 0xE2] + be16(segmentLength) + Array("MPF".utf8) + [0] + tiff
        return Array(primary.prefix(2)) + app2 + Array(primary.dropFirst(2)) + secondary
    }
}
