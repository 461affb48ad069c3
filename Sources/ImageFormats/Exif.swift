import BinaryIO
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A bounded TIFF structure reader (EXIF and MPF use the TIFF IFD layout).
public struct TIFFReader: Sendable {
    public let bytes: [UInt8]
    public let littleEndian: Bool
    /// Offset of the first IFD.
    public let firstIFD: Int

    public struct Entry: Sendable {
        public var tag: UInt16
        public var type: UInt16
        public var count: Int
        /// The value bytes (inline or at the pointed-to offset), bounded by the buffer.
        public var value: [UInt8]
    }

    /// Parses the 8-byte TIFF header ("II*\0" or "MM\0*" + first IFD offset).
    public init(_ bytes: [UInt8]) throws(ParseError) {
        guard bytes.count >= 8 else { throw ParseError(.truncated, "TIFF header is truncated") }
        if bytes[0] == 0x49 && bytes[1] == 0x49 {
            littleEndian = true
        } else if bytes[0] == 0x4D && bytes[1] == 0x4D {
            littleEndian = false
        } else {
            throw ParseError(.notRecognised, "not a TIFF byte-order mark")
        }
        self.bytes = bytes
        let le = littleEndian
        guard TIFFReader.u16(bytes, 2, le) == 42 else {
            throw ParseError(.notRecognised, offset: 2, "TIFF magic is not 42")
        }
        firstIFD = Int(TIFFReader.u32(bytes, 4, le) ?? 0)
    }

    static func u16(_ b: [UInt8], _ o: Int, _ le: Bool) -> UInt16? {
        guard o >= 0, o + 2 <= b.count else { return nil }
        return le ? UInt16(b[o]) | UInt16(b[o + 1]) << 8 : UInt16(b[o]) << 8 | UInt16(b[o + 1])
    }
    static func u32(_ b: [UInt8], _ o: Int, _ le: Bool) -> UInt32? {
        guard o >= 0, o + 4 <= b.count else { return nil }
        let v = (UInt32(b[o]), UInt32(b[o + 1]), UInt32(b[o + 2]), UInt32(b[o + 3]))
        return le ? v.0 | v.1 << 8 | v.2 << 16 | v.3 << 24 : v.0 << 24 | v.1 << 16 | v.2 << 8 | v.3
    }
    public func u16(_ o: Int) -> UInt16? { TIFFReader.u16(bytes, o, littleEndian) }
    public func u32(_ o: Int) -> UInt32? { TIFFReader.u32(bytes, o, littleEndian) }

    /// Reads the IFD at `offset`: its entries and the offset of the next IFD (0 = none).
    public func ifd(at offset: Int) throws(ParseError) -> (entries: [UInt16: Entry], next: Int) {
        guard offset >= 8, let n = u16(offset) else {
            throw ParseError(
                .truncated, offset: UInt64(max(0, offset)), "IFD offset \(offset) is outside the TIFF data")
        }
        guard offset + 2 + Int(n) * 12 + 4 <= bytes.count else {
            throw ParseError(.truncated, offset: UInt64(offset), "IFD with \(n) entries runs past the data")
        }
        var out: [UInt16: Entry] = [:]
        for i in 0..<Int(n) {
            let e = offset + 2 + i * 12
            guard let tag = u16(e), let type = u16(e + 2), let count = u32(e + 4) else { continue }
            let size: Int
            switch type {
            case 1, 2, 6, 7: size = 1
            case 3, 8: size = 2
            case 4, 9, 11: size = 4
            case 5, 10, 12: size = 8
            default: continue
            }
            let (total, o) = Int(count).multipliedReportingOverflow(by: size)
            guard !o, total <= bytes.count else { continue }
            let start: Int
            if total <= 4 { start = e + 8 } else { guard let off = u32(e + 8) else { continue }; start = Int(off) }
            guard start >= 0, start <= bytes.count - total else { continue }
            out[tag] = Entry(tag: tag, type: type, count: Int(count), value: Array(bytes[start..<(start + total)]))
        }
        let next = Int(u32(offset + 2 + Int(n) * 12) ?? 0)
        return (out, next)
    }

    /// First unsigned integer of an entry (BYTE, SHORT or LONG).
    public func uint(_ e: Entry?) -> UInt32? {
        guard let e else { return nil }
        switch e.type {
        case 1, 7: return e.value.first.map(UInt32.init)
        case 3: return TIFFReader.u16(e.value, 0, littleEndian).map(UInt32.init)
        case 4: return TIFFReader.u32(e.value, 0, littleEndian)
        default: return nil
        }
    }
    /// i-th unsigned LONG of an entry.
    public func uint32(_ e: Entry, _ i: Int) -> UInt32? { TIFFReader.u32(e.value, i * 4, littleEndian) }
    /// First RATIONAL / SRATIONAL as Double (nil when the denominator is 0).
    public func rational(_ e: Entry?) -> Double? {
        guard let e, e.type == 5 || e.type == 10, let n = TIFFReader.u32(e.value, 0, littleEndian),
            let d = TIFFReader.u32(e.value, 4, littleEndian), d != 0
        else { return nil }
        if e.type == 10 { return Double(Int32(bitPattern: n)) / Double(Int32(bitPattern: d)) }
        return Double(n) / Double(d)
    }
    public func string(_ e: Entry?) -> String? {
        guard let e, e.type == 2 else { return nil }
        return String(decoding: e.value.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// The EXIF fields conversion needs. Unknown or malformed fields are simply absent.
public struct ExifInfo: Sendable, Equatable {
    /// TIFF orientation 1…8 (1 = as stored).
    public var orientation: Int?
    public var make: String?
    public var model: String?
    /// FocalLength (tag 0x920A) in millimetres.
    public var focalLengthMM: Double?
    /// FocalLengthIn35mmFilm (0xA405) in millimetres (0 = unknown, reported as nil).
    public var focalLength35mm: Double?
    /// FocalPlaneXResolution (0xA20E) in pixels per millimetre (unit 0xA210 applied).
    public var focalPlaneXResolutionPerMM: Double?
    /// PixelXDimension (0xA002) — the width the focal-plane resolution refers to.
    public var pixelXDimension: Int?

    public init() {}

    /// Parses a TIFF-form EXIF block (the bytes after "Exif\0\0").
    public init(tiff: [UInt8]) {
        self.init()
        guard let t = try? TIFFReader(tiff), let ifd0 = try? t.ifd(at: t.firstIFD) else { return }
        orientation = t.uint(ifd0.entries[0x0112]).map(Int.init)
        make = t.string(ifd0.entries[0x010F])
        model = t.string(ifd0.entries[0x0110])
        guard let sub = t.uint(ifd0.entries[0x8769]), let exif = try? t.ifd(at: Int(sub)) else { return }
        focalLengthMM = t.rational(exif.entries[0x920A])
        if let f = t.uint(exif.entries[0xA405]), f > 0 { focalLength35mm = Double(f) }
        if let r = t.rational(exif.entries[0xA20E]), r > 0 {
            switch t.uint(exif.entries[0xA210]) ?? 2 {
            case 3: focalPlaneXResolutionPerMM = r / 10  // per cm
            case 4: focalPlaneXResolutionPerMM = r / 1  // per mm
            default: focalPlaneXResolutionPerMM = r / 25.4  // per inch
            }
        }
        pixelXDimension = t.uint(exif.entries[0xA002]).map(Int.init)
    }

    /// Horizontal field of view in degrees for an image `width` pixels wide, with how it was derived:
    /// FocalLengthIn35mmFilm (36 mm wide frame; assumes the image is landscape), else FocalLength with
    /// FocalPlaneXResolution (sensor width = PixelXDimension / resolution). Nil when neither is present.
    public func horizontalFOV(imageWidth: Int, imageHeight: Int) -> (degrees: Double, source: String)? {
        if let f35 = focalLength35mm, f35 > 0 {
            // The 35 mm equivalent refers to the diagonal of a 36×24 frame; map to the image aspect.
            let diag35 = (36.0 * 36.0 + 24.0 * 24.0).squareRoot()
            let w = Double(imageWidth), h = Double(imageHeight)
            let d = (w * w + h * h).squareRoot()
            let sensorW = diag35 * w / d
            return (2 * atanDeg(sensorW / (2 * f35)), "EXIF FocalLengthIn35mmFilm \(fmt1(f35)) mm")
        }
        if let f = focalLengthMM, f > 0, let res = focalPlaneXResolutionPerMM, res > 0 {
            let px = Double(pixelXDimension ?? imageWidth)
            let sensorW = px / res
            return (2 * atanDeg(sensorW / (2 * f)), "EXIF FocalLength \(fmt1(f)) mm and FocalPlaneXResolution")
        }
        return nil
    }
}

package func fmt1(_ v: Double) -> String { NumberText.fixed(v, places: 1, trimZeros: true) }

package func atanDeg(_ x: Double) -> Double { atan(x) * 180 / Double.pi }
/// tan of an angle in degrees.
public func tanDegrees(_ d: Double) -> Double { tan(d * Double.pi / 180) }
/// atan in degrees.
public func atanDegrees(_ x: Double) -> Double { atanDeg(x) }

/// JPEG marker segments (before the scan): APPn payloads and the SOF frame info.
public struct JPEGSegments: Sendable {
    public var app: [(marker: UInt8, offset: Int, payload: [UInt8])] = []
    /// Byte offset just past the EOI that ends the first image (or nil if not found).
    public var endOfImage: Int?
    /// The frame header (SOFn): size, components and sample precision; nil when not reached.
    public var frame: (width: Int, height: Int, components: Int, precision: Int)?

    /// Scans markers from SOI up to SOS; bounded by the buffer.
    public init(_ b: [UInt8], start: Int = 0) throws(ParseError) {
        guard start >= 0, start + 4 <= b.count, b[start] == 0xFF, b[start + 1] == 0xD8 else {
            throw ParseError(.notRecognised, offset: UInt64(max(0, start)), "not a JPEG (no SOI marker)")
        }
        var p = start + 2
        while p + 4 <= b.count {
            guard b[p] == 0xFF else { throw ParseError(.invalidValue, offset: UInt64(p), "JPEG marker expected") }
            let m = b[p + 1]
            if m == 0xFF { p += 1; continue }
            if m == 0xD9 { endOfImage = p + 2; return }
            if m == 0x01 || (0xD0...0xD7).contains(m) { p += 2; continue }
            let len = Int(b[p + 2]) << 8 | Int(b[p + 3])
            guard len >= 2, p + 2 + len <= b.count else {
                throw ParseError(.truncated, offset: UInt64(p), "JPEG segment runs past the end of the data")
            }
            if (0xE0...0xEF).contains(m) { app.append((m, p, Array(b[(p + 4)..<(p + 2 + len)]))) }
            if (0xC0...0xCF).contains(m), m != 0xC4, m != 0xC8, m != 0xCC, len >= 8, frame == nil {
                frame = (
                    Int(b[p + 7]) << 8 | Int(b[p + 8]), Int(b[p + 5]) << 8 | Int(b[p + 6]), Int(b[p + 9]), Int(b[p + 4])
                )
            }
            if m == 0xDA { return }
            p += 2 + len
        }
    }

    /// The ICC profile carried in APP2 `ICC_PROFILE` segments (chunks joined in their sequence order), or nil when
    /// there is none or the chunks do not make a complete set.
    public var iccProfile: [UInt8]? {
        let tag = Array("ICC_PROFILE".utf8) + [0]
        var chunks: [(seq: Int, count: Int, data: ArraySlice<UInt8>)] = []
        for a in app where a.marker == 0xE2 && a.payload.count > 14 && Array(a.payload.prefix(12)) == tag {
            chunks.append((Int(a.payload[12]), Int(a.payload[13]), a.payload[14...]))
        }
        guard let n = chunks.first?.count, n == chunks.count, chunks.allSatisfy({ $0.count == n }),
            Set(chunks.map(\.seq)) == Set(1...max(1, n))
        else { return nil }
        return chunks.sorted { $0.seq < $1.seq }.flatMap(\.data)
    }

    /// The TIFF block of the first APP1 "Exif\0\0" segment.
    public var exifTIFF: [UInt8]? {
        for a in app
        where a.marker == 0xE1 && a.payload.count > 6 && Array(a.payload.prefix(6)) == [0x45, 0x78, 0x69, 0x66, 0, 0] {
            return Array(a.payload.dropFirst(6))
        }
        return nil
    }
}
