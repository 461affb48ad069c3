import BinaryIO

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
        if let (mpfOffset, tiffBytes) = MPO.mpf(first), let t = try? TIFFReader(tiffBytes), let ifd = try? t.ifd(at: t.firstIFD),
           let entry = ifd.entries[0xB002], entry.count % 16 == 0 {
            let n = entry.value.count / 16
            entries = n
            for i in 0..<n {
                guard let attr = t.uint32(entry, i * 4), let size = t.uint32(entry, i * 4 + 1), let off = t.uint32(entry, i * 4 + 2) else { continue }
                let start = i == 0 ? 0 : mpfOffset + Int(off)
                let (end, o) = start.addingReportingOverflow(Int(size))
                if !o, start >= 0, size > 0, end > data.count { cut.append((i + 1, start..<end)) }
                guard !o, start >= 0, size > 0, end <= data.count, start + 1 < data.count, data[start] == 0xFF, data[start + 1] == 0xD8 else { continue }
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
                if data[p] == 0xFF && data[p + 1] == 0xD8, let s = try? JPEGSegments(data, start: p), let e = s.endOfImage {
                    pics.append(Picture(range: p..<e, attribute: 0, attributes: Attributes())); p = e
                } else { p += 1 }
            }
        }
        // Attributes of the other images live in their own MPF segments.
        for i in pics.indices where i > 0 {
            if let s = try? JPEGSegments(Array(data[pics[i].range])), let (_, tb) = MPO.mpf(s), let t = try? TIFFReader(tb), let a = try? t.ifd(at: t.firstIFD) {
                pics[i].attributes = MPO.attributes(a.entries, t)
            }
        }
        pictures = pics
        fromIndex = indexed
        picturesPastEnd = cut.map { (number: $0.0, range: $0.1) }
        indexEntries = entries
    }

    /// The JPEG bytes of picture `i`.
    public func jpeg(_ i: Int, in data: [UInt8]) -> [UInt8] { Array(data[pictures[i].range]) }

    /// (absolute offset of the TIFF header, TIFF bytes) of the first APP2 "MPF\0" segment.
    static func mpf(_ s: JPEGSegments) -> (Int, [UInt8])? {
        for a in s.app where a.marker == 0xE2 && a.payload.count > 8 && Array(a.payload.prefix(4)) == [0x4D, 0x50, 0x46, 0] {
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
