import BinaryIO
import ISOBMFF

/// Multi-Picture Object files (CIPA DC-007): several JPEGs in one file, found through the MP Index
/// IFD of the APP2 "MPF" segment of the first image.
public struct MPO: Sendable {
    /// One image of the file.
    public struct Picture: Sendable {
        /// Absolute byte range of the JPEG in the file.
        public var range: Range<Int>
        /// MP Entry individual image attribute (type code in the low 24 bits, e.g. 0x020002 = disparity image).
        public var attribute: UInt32
        /// MP attributes of this image, when its MPF segment has an attribute IFD.
        public var attributes: Attributes
        /// Why this picture is taken for an HDR gain map (its own XMP or ISO 21496-1 block, or the primary's
        /// GContainer directory), or nil.
        public var gainMap: GainMapEvidence?
    }
    /// Stereo-relevant MP attribute tags.
    public struct Attributes: Sendable, Equatable {
        /// MPIndividualNum (0xB101): viewpoints are numbered from left to right starting at 1.
        public var individualNumber: Int?
        /// BaseViewpointNum (0xB204).
        public var baseViewpointNumber: Int?
        /// ConvergenceAngle (0xB205), degrees.
        public var convergenceAngleDegrees: Double?
        /// BaselineLength (0xB206), stored in metres; here in millimetres.
        public var baselineMM: Double?
        public init() {}
    }

    public var pictures: [Picture]
    /// Pictures the MP Index lists whose declared bytes run past the end of the file: (entry number from 1, declared
    /// range). A file cut short loses its last pictures this way; the readers call it damaged or truncated.
    public var picturesPastEnd: [(number: Int, range: Range<Int>)] = []
    /// The MP Index's number of entries (0 without a usable index).
    public var indexEntries = 0
    /// True when the images were found through the MP Index; false when by scanning for a second SOI.
    public var fromIndex: Bool

    /// Parses the MP index. Throws when the data is not a JPEG; a JPEG without MPF yields one picture.
    public init(_ data: [UInt8]) throws(ParseError) {
        let first = try JPEGSegments(data)
        var pics: [Picture] = []
        var indexed = false
        var cut: [(Int, Range<Int>)] = []
        var entries = 0
        if let (mpfOffset, tiffBytes) = MPO.mpf(first), let t = try? TIFFReader(tiffBytes),
            let ifd = try? t.ifd(at: t.firstIFD),
            let entry = ifd.entries[0xB002], entry.count % 16 == 0
        {
            let n = entry.value.count / 16
            entries = n
            for i in 0..<n {
                guard let attr = t.uint32(entry, i * 4), let size = t.uint32(entry, i * 4 + 1),
                    let off = t.uint32(entry, i * 4 + 2)
                else { continue }
                let start = i == 0 ? 0 : mpfOffset + Int(off)
                let (end, o) = start.addingReportingOverflow(Int(size))
                if !o, start >= 0, size > 0, end > data.count { cut.append((i + 1, start..<end)) }
                guard !o, start >= 0, size > 0, end <= data.count, start + 1 < data.count, data[start] == 0xFF,
                    data[start + 1] == 0xD8
                else { continue }
                pics.append(Picture(range: start..<end, attribute: attr, attributes: Attributes()))
            }
            indexed = pics.count >= 1
            // The attribute IFD of the first image follows its index IFD.
            if !pics.isEmpty, ifd.next > 0, let a = try? t.ifd(at: ifd.next) {
                pics[0].attributes = MPO.attributes(a.entries, t)
            }
        }
        if pics.isEmpty {
            // No (usable) index: take the first image and any JPEG that starts right after its EOI.
            let end = first.endOfImage ?? data.count
            pics.append(Picture(range: 0..<end, attribute: 0, attributes: Attributes()))
            var p = end
            while p + 4 <= data.count, pics.count < 16 {
                if data[p] == 0xFF && data[p + 1] == 0xD8, let s = try? JPEGSegments(data, start: p),
                    let e = s.endOfImage
                {
                    pics.append(Picture(range: p..<e, attribute: 0, attributes: Attributes())); p = e
                } else {
                    p += 1
                }
            }
        }
        // Attributes of the other images live in their own MPF segments.
        for i in pics.indices where i > 0 {
            if let s = try? JPEGSegments(Array(data[pics[i].range])), let (_, tb) = MPO.mpf(s),
                let t = try? TIFFReader(tb), let a = try? t.ifd(at: t.firstIFD)
            {
                pics[i].attributes = MPO.attributes(a.entries, t)
            }
        }
        pictures = pics
        fromIndex = indexed
        picturesPastEnd = cut.map { (number: $0.0, range: $0.1) }
        indexEntries = entries
        for i in pictures.indices {
            pictures[i].gainMap = MPO.gainMapEvidence(Array(data[pictures[i].range]))
        }
        // The primary's GContainer directory (Ultra HDR) names which picture is the gain map.
        if let xmp = MPO.xmp(first), let semantics = MPO.containerSemantics(xmp) {
            for (i, s) in semantics.enumerated()
            where i > 0 && i < pictures.count && s.lowercased() == "gainmap" && pictures[i].gainMap == nil {
                pictures[i].gainMap = .containerDirectory
            }
        }
    }

    /// The MP type code of picture `i` (the low 24 bits of its attribute).
    public func type(_ i: Int) -> UInt32 { pictures[i].attribute & 0xFF_FFFF }

    /// MP type codes (CIPA DC-007 §5.2.3.3.1).
    public enum TypeCode {
        public static let baselinePrimary: UInt32 = 0x03_0000
        public static let largeThumbnailVGA: UInt32 = 0x01_0001
        public static let largeThumbnailFullHD: UInt32 = 0x01_0002
        public static let panorama: UInt32 = 0x02_0001
        public static let disparity: UInt32 = 0x02_0002
        public static let multiAngle: UInt32 = 0x02_0003
        public static let undefined: UInt32 = 0
        /// A name for people.
        public static func name(_ t: UInt32) -> String {
            switch t {
            case baselinePrimary: return "baseline primary"
            case largeThumbnailVGA, largeThumbnailFullHD: return "large thumbnail"
            case panorama: return "multi-frame panorama"
            case disparity: return "disparity (stereo view)"
            case multiAngle: return "multi-angle view"
            case undefined: return "undefined"
            default: return "type 0x" + String(t, radix: 16, uppercase: true)
            }
        }
    }

    /// The two pictures that make a stereo pair, in file order, or nil when the file is not a stereo MPO. Only MP
    /// type Disparity (0x020002, the first two of them) or Multi-angle (0x020003, exactly two) makes one; a picture
    /// the file marks as an HDR gain map never does. A file without a usable MP index (JPEGs found one after the other)
    /// is a pair when it holds two or more pictures and neither of the first two is a gain map.
    public var stereoPair: (Int, Int)? {
        if !fromIndex {
            guard pictures.count >= 2, pictures[0].gainMap == nil, pictures[1].gainMap == nil else { return nil }
            return (0, 1)
        }
        let disparity = pictures.indices.filter { type($0) == TypeCode.disparity && pictures[$0].gainMap == nil }
        if disparity.count >= 2 { return (disparity[0], disparity[1]) }
        let angles = pictures.indices.filter { type($0) == TypeCode.multiAngle && pictures[$0].gainMap == nil }
        if angles.count == 2 { return (angles[0], angles[1]) }
        return nil
    }

    /// The first picture after the primary that the file marks as an HDR gain map, when the file is not a stereo MPO.
    public var gainMapIndex: Int? {
        guard stereoPair == nil else { return nil }
        return pictures.indices.dropFirst().first { pictures[$0].gainMap != nil }
    }

    /// What marks a picture as an HDR gain map.
    public enum GainMapEvidence: String, Sendable, Equatable {
        /// Its XMP has `hdrgm:Version` (Ultra HDR / Adobe gain map).
        case hdrgm
        /// It has an APP2 ISO 21496-1 block (`urn:iso:std:iso:ts:21496:-1`) with metadata.
        case iso21496
        /// Its XMP names Apple's HDR gain-map auxiliary type.
        case apple
        /// The primary's GContainer directory names it `GainMap`.
        case containerDirectory
    }

    /// The evidence in one picture's own segments that it is a gain map, or nil.
    static func gainMapEvidence(_ jpeg: [UInt8]) -> GainMapEvidence? {
        guard let s = try? JPEGSegments(jpeg) else { return nil }
        if let iso = isoBlock(s), iso.count > 4 { return .iso21496 }
        guard let x = xmp(s) else { return nil }
        let text = String(decoding: x, as: UTF8.self)
        if XMPText.values(of: "hdrgm:Version", in: text) != nil, XMPText.values(of: "hdrgm:GainMapMax", in: text) != nil
        {
            return .hdrgm
        }
        if text.contains("urn:com:apple:photo:2020:aux:hdrgainmap") { return .apple }
        return nil
    }

    /// The XMP packet of the first standard XMP APP1 segment.
    public static func xmp(_ s: JPEGSegments) -> [UInt8]? {
        let ns = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
        for a in s.app where a.marker == 0xE1 && a.payload.count > ns.count && Array(a.payload.prefix(ns.count)) == ns {
            return Array(a.payload.dropFirst(ns.count))
        }
        return nil
    }

    /// The bytes after the identifier of the first APP2 ISO 21496-1 segment (versions, then metadata in a gain map).
    public static func isoBlock(_ s: JPEGSegments) -> [UInt8]? {
        let id = Array(GainMapMetadata.isoURN.utf8) + [0]
        for a in s.app where a.marker == 0xE2 && a.payload.count >= id.count && Array(a.payload.prefix(id.count)) == id
        {
            return Array(a.payload.dropFirst(id.count))
        }
        return nil
    }

    /// The `Item:Semantic` values of a GContainer directory (`Container:Directory`), in order; nil without one.
    static func containerSemantics(_ xmp: [UInt8]) -> [String]? {
        let text = Array(xmp.prefix(1 << 20))
        guard XMPText.find(Array("Container:Directory".utf8), in: text, from: 0) != nil else { return nil }
        var out: [String] = []
        let key = Array("Item:Semantic".utf8)
        var p = 0
        while out.count < 16, let at = XMPText.find(key, in: text, from: p) {
            p = at + key.count
            var q = p
            while q < text.count, text[q] == 0x20 || text[q] == 0x3D { q += 1 }
            guard q < text.count, text[q] == 0x22 || text[q] == 0x27,
                let end = text[(q + 1)...].firstIndex(of: text[q])
            else { continue }
            out.append(String(decoding: text[(q + 1)..<end], as: UTF8.self))
        }
        return out
    }

    /// The JPEG bytes of picture `i`.
    public func jpeg(_ i: Int, in data: [UInt8]) -> [UInt8] { Array(data[pictures[i].range]) }

    /// (absolute offset of the TIFF header, TIFF bytes) of the first APP2 "MPF\0" segment.
    static func mpf(_ s: JPEGSegments) -> (Int, [UInt8])? {
        for a in s.app
        where a.marker == 0xE2 && a.payload.count > 8 && Array(a.payload.prefix(4)) == [0x4D, 0x50, 0x46, 0] {
            return (a.offset + 8, Array(a.payload.dropFirst(4)))
        }
        return nil
    }

    static func attributes(_ e: [UInt16: TIFFReader.Entry], _ t: TIFFReader) -> Attributes {
        var a = Attributes()
        a.individualNumber = t.uint(e[0xB101]).map(Int.init)
        a.baseViewpointNumber = t.uint(e[0xB204]).map(Int.init)
        a.convergenceAngleDegrees = t.rational(e[0xB205])
        if let b = t.rational(e[0xB206]), b > 0 { a.baselineMM = b * 1000 }
        return a
    }
}
