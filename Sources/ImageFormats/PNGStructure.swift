import BinaryIO

/// The chunk structure of a PNG file, read in Swift before any pixel data reaches libpng.
///
/// Checks the signature, walks every chunk (length, type, CRC-32), validates `IHDR` (dimensions against
/// ``/BinaryIO/Limits/maxImageDimension``, bit depth and colour type combinations, compression, filter and
/// interlace methods), the chunk order rules that matter for decoding (`IHDR` first, `PLTE` before
/// `IDAT`, consecutive `IDAT`s, `IEND` last and empty) and picks up the ancillary chunks the converter
/// uses: `eXIf` (Exif, for the field of view), `cICP`, `sRGB`, `gAMA`, `iCCP` presence, `pHYs`, `tRNS`.
///
/// Errors carry the absolute offset of the offending chunk and a path of the form `PNG/IHDR`.
/// A CRC mismatch on a critical chunk is an error; on an ancillary chunk it is recorded in
/// ``warnings`` and the chunk's contents are ignored, as PNG decoders commonly do.
public struct PNGStructure: Sendable, Equatable {
    /// One chunk as it appears in the file.
    public struct Chunk: Sendable, Equatable {
        /// Four-character chunk type, e.g. `IHDR`.
        public var type: String
        /// Offset of the chunk's length field in the file.
        public var offset: Int
        /// Length of the chunk data in bytes.
        public var length: Int
        /// Whether the stored CRC-32 matches the type and data.
        public var crcValid: Bool
        /// Critical chunks have an upper-case first letter.
        public var isCritical: Bool { type.utf8.first.map { $0 & 0x20 == 0 } ?? false }
    }

    /// The PNG file signature.
    public static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    public var width = 0
    public var height = 0
    /// Bits per sample (1, 2, 4, 8 or 16).
    public var bitDepth = 0
    /// 0 grey, 2 RGB, 3 palette, 4 grey+alpha, 6 RGBA.
    public var colourType = 0
    /// Adam7 interlacing.
    public var interlaced = false
    /// Number of `PLTE` entries (0 when absent).
    public var paletteEntries = 0
    /// A `tRNS` chunk is present.
    public var hasTransparencyChunk = false
    /// `cICP`: colour primaries, transfer characteristics, matrix coefficients, full-range flag.
    public var cicp: (primaries: UInt8, transfer: UInt8, matrix: UInt8, fullRange: Bool)? = nil
    /// `sRGB` rendering intent.
    public var srgbIntent: UInt8? = nil
    /// `gAMA` value × 100 000.
    public var gamma: UInt32? = nil
    /// An `iCCP` profile is present.
    public var hasICCProfile = false
    /// `pHYs`: pixels per unit in x and y, unit 1 = metre, 0 = aspect ratio only.
    public var physical: (x: UInt32, y: UInt32, unit: UInt8)? = nil
    /// The TIFF block of an `eXIf` chunk.
    public var exif: [UInt8]? = nil
    /// Total bytes of compressed image data over all `IDAT` chunks.
    public var imageDataBytes = 0
    /// Every chunk in file order.
    public var chunks: [Chunk] = []
    /// Problems that do not stop decoding (ancillary CRC errors, data after `IEND`).
    public var warnings: [String] = []

    public static func == (a: PNGStructure, b: PNGStructure) -> Bool {
        a.width == b.width && a.height == b.height && a.bitDepth == b.bitDepth && a.colourType == b.colourType
            && a.interlaced == b.interlaced && a.chunks == b.chunks && a.exif == b.exif
    }

    /// Samples per pixel for the colour type (palette indices count as one).
    public var channels: Int {
        switch colourType {
        case 2: 3;
        case 4: 2;
        case 6: 4;
        default: 1
        }
    }

    /// Reads the structure of `data`. Only `data.count` bytes are ever touched; nothing is allocated
    /// from a length field except slices of chunks that are already inside the buffer.
    public init(_ data: [UInt8], limits: Limits = .default) throws(ParseError) {
        guard data.count >= 8, Array(data[0..<8]) == Self.signature else {
            throw ParseError(.notRecognised, path: "PNG", "not a PNG file (signature missing)")
        }
        var p = 8
        var seenIDAT = false, idatEnded = false, seenIEND = false, seenPLTE = false
        while p < data.count {
            guard p + 12 <= data.count else {
                throw ParseError(
                    .truncated, offset: UInt64(p), path: "PNG", "chunk header needs 12 bytes, \(data.count - p) left")
            }
            let length = Int(Self.u32(data, p))
            let typeBytes = Array(data[(p + 4)..<(p + 8)])
            guard typeBytes.allSatisfy({ (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }) else {
                throw ParseError(
                    .invalidValue, offset: UInt64(p + 4), path: "PNG",
                    "chunk type bytes \(Hex.string(typeBytes)) are not letters")
            }
            let type = String(decoding: typeBytes, as: UTF8.self)
            let path = "PNG/\(type)"
            guard length <= 0x7FFF_FFFF else {
                throw ParseError(.invalidValue, offset: UInt64(p), path: path, "chunk length \(length) exceeds 2^31−1")
            }
            guard length <= data.count - p - 12 else {
                throw ParseError(
                    .truncated, offset: UInt64(p), path: path,
                    "chunk of \(length) bytes runs past the end of the file (\(data.count - p - 12) left)")
            }
            let body = (p + 8)..<(p + 8 + length)
            let crcOK = CRC32.checksum(data[(p + 4)..<body.upperBound]) == Self.u32(data, body.upperBound)
            let chunk = Chunk(type: type, offset: p, length: length, crcValid: crcOK)
            if chunks.isEmpty && type != "IHDR" {
                throw ParseError(.invalidValue, offset: UInt64(p), path: path, "the first chunk must be IHDR")
            }
            if !crcOK {
                if chunk.isCritical {
                    throw ParseError(
                        .invalidValue, offset: UInt64(body.upperBound), path: path,
                        "CRC-32 of critical chunk \(type) does not match")
                }
                warnings.append("\(type) at offset \(p): CRC-32 does not match; chunk ignored")
            }
            chunks.append(chunk)
            if seenIDAT && type != "IDAT" { idatEnded = true }
            switch type {
            case "IHDR":
                guard chunks.count == 1 else {
                    throw ParseError(.invalidValue, offset: UInt64(p), path: path, "a second IHDR chunk")
                }
                try readHeader(data, body, limits: limits)
            case "PLTE":
                guard !seenIDAT else {
                    throw ParseError(.invalidValue, offset: UInt64(p), path: path, "PLTE after image data")
                }
                guard length % 3 == 0, length >= 3, length / 3 <= 256 else {
                    throw ParseError(
                        .invalidValue, offset: UInt64(p), path: path,
                        "palette of \(length) bytes (must be 3…768, a multiple of 3)")
                }
                guard colourType != 0 && colourType != 4 else {
                    throw ParseError(
                        .invalidValue, offset: UInt64(p), path: path,
                        "palette in a greyscale image (colour type \(colourType))")
                }
                if colourType == 3 && length / 3 > 1 << bitDepth {
                    throw ParseError(
                        .invalidValue, offset: UInt64(p), path: path,
                        "\(length / 3) palette entries for a \(bitDepth)-bit index")
                }
                seenPLTE = true
                paletteEntries = length / 3
            case "IDAT":
                guard !idatEnded else {
                    throw ParseError(.invalidValue, offset: UInt64(p), path: path, "IDAT chunks are not consecutive")
                }
                if colourType == 3 && !seenPLTE {
                    throw ParseError(
                        .invalidValue, offset: UInt64(p), path: path, "palette image without PLTE before its data")
                }
                seenIDAT = true
                imageDataBytes += length
            case "IEND":
                guard length == 0 else {
                    throw ParseError(
                        .invalidValue, offset: UInt64(p), path: path, "IEND carries \(length) bytes (must be empty)")
                }
                seenIEND = true
            default:
                if crcOK { readAncillary(type, data, body) }
            }
            p = body.upperBound + 4
            if seenIEND {
                if p < data.count { warnings.append("\(data.count - p) bytes after IEND ignored") }
                break
            }
        }
        guard seenIDAT else {
            throw ParseError(.truncated, offset: UInt64(data.count), path: "PNG", "no IDAT chunk (no image data)")
        }
        if !seenIEND { warnings.append("no IEND chunk: the file may be truncated") }
    }

    private mutating func readHeader(_ d: [UInt8], _ body: Range<Int>, limits: Limits) throws(ParseError) {
        let at = UInt64(body.lowerBound), path = "PNG/IHDR"
        guard body.count == 13 else {
            throw ParseError(.invalidValue, offset: at, path: path, "IHDR holds \(body.count) bytes (must be 13)")
        }
        let w = Self.u32(d, body.lowerBound), h = Self.u32(d, body.lowerBound + 4)
        guard w > 0, h > 0, w <= 0x7FFF_FFFF, h <= 0x7FFF_FFFF else {
            throw ParseError(.invalidValue, offset: at, path: path, "image size \(w)×\(h) (each must be 1…2^31−1)")
        }
        try Limits.check(Int(w), limits.maxImageDimension, "maxImageDimension (width)", offset: at)
        try Limits.check(Int(h), limits.maxImageDimension, "maxImageDimension (height)", offset: at + 4)
        width = Int(w); height = Int(h)
        bitDepth = Int(d[body.lowerBound + 8]); colourType = Int(d[body.lowerBound + 9])
        let allowed: [Int]
        switch colourType {
        case 0: allowed = [1, 2, 4, 8, 16]
        case 3: allowed = [1, 2, 4, 8]
        case 2, 4, 6: allowed = [8, 16]
        default:
            throw ParseError(
                .invalidValue, offset: at + 9, path: path, "colour type \(colourType) (must be 0, 2, 3, 4 or 6)")
        }
        guard allowed.contains(bitDepth) else {
            throw ParseError(
                .invalidValue, offset: at + 8, path: path,
                "bit depth \(bitDepth) is not allowed for colour type \(colourType)")
        }
        guard d[body.lowerBound + 10] == 0 else {
            throw ParseError(
                .invalidValue, offset: at + 10, path: path, "compression method \(d[body.lowerBound + 10]) (must be 0)")
        }
        guard d[body.lowerBound + 11] == 0 else {
            throw ParseError(
                .invalidValue, offset: at + 11, path: path, "filter method \(d[body.lowerBound + 11]) (must be 0)")
        }
        let il = d[body.lowerBound + 12]
        guard il <= 1 else {
            throw ParseError(.invalidValue, offset: at + 12, path: path, "interlace method \(il) (must be 0 or 1)")
        }
        interlaced = il == 1
    }

    /// Ancillary chunks with a malformed size are ignored, as a decoder would.
    private mutating func readAncillary(_ type: String, _ d: [UInt8], _ body: Range<Int>) {
        let s = body.lowerBound
        switch type {
        case "cICP" where body.count == 4: cicp = (d[s], d[s + 1], d[s + 2], d[s + 3] == 1)
        case "sRGB" where body.count == 1: srgbIntent = d[s]
        case "gAMA" where body.count == 4: gamma = Self.u32(d, s)
        case "iCCP": hasICCProfile = true
        case "pHYs" where body.count == 9: physical = (Self.u32(d, s), Self.u32(d, s + 4), d[s + 8])
        case "tRNS": hasTransparencyChunk = true
        case "eXIf" where body.count >= 8 && exif == nil: exif = Array(d[body])
        default: break
        }
    }

    private static func u32(_ d: [UInt8], _ i: Int) -> UInt32 {
        UInt32(d[i]) << 24 | UInt32(d[i + 1]) << 16 | UInt32(d[i + 2]) << 8 | UInt32(d[i + 3])
    }
}

/// CRC-32 as used by PNG and zlib (reflected polynomial 0xEDB88320, initial and final XOR 0xFFFFFFFF).
public enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// CRC-32 of `bytes`.
    public static func checksum<C: Collection>(_ bytes: C) -> UInt32 where C.Element == UInt8 {
        var c: UInt32 = 0xFFFF_FFFF
        table.withUnsafeBufferPointer { t in
            for b in bytes { c = t[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        }
        return c ^ 0xFFFF_FFFF
    }
}

/// Embedding an ICC profile in a PNG file (`iCCP` chunk right after `IHDR`).
public enum PNGColourProfile {
    /// `png` with an `iCCP` chunk holding `icc` inserted after `IHDR` (and any `sRGB`/`gAMA`/`cHRM`/`iCCP` chunk
    /// libpng wrote removed, since they would contradict the profile). The profile is stored in a zlib stream of
    /// stored (uncompressed) deflate blocks, which every inflater reads. Returns `png` unchanged when it does not
    /// start with a signature and `IHDR`.
    public static func embedding(_ icc: [UInt8], name: String = "ICC Profile", in png: [UInt8]) -> [UInt8] {
        let sig: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard png.count >= 33, Array(png[0..<8]) == sig, Array(png[12..<16]) == Array("IHDR".utf8), !icc.isEmpty else {
            return png
        }
        func u32(_ i: Int) -> Int { Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3]) }
        var out = Array(png[0..<33])
        var data = Array(name.utf8.prefix(79)) + [0, 0] + zlibStored(icc)
        var chunk: [UInt8] = []
        func be(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        chunk += be(UInt32(data.count))
        data = Array("iCCP".utf8) + data
        chunk += data + be(CRC32.checksum(data))
        out += chunk
        var i = 33
        while i + 12 <= png.count {
            let len = u32(i)
            guard len >= 0, i + 12 + len <= png.count else { out += png[i...]; return out }
            let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
            if !["sRGB", "gAMA", "cHRM", "iCCP"].contains(type) { out += png[i..<(i + 12 + len)] }
            i += 12 + len
        }
        if i < png.count { out += png[i...] }
        return out
    }

    /// A zlib stream (RFC 1950) of stored deflate blocks (RFC 1951 §3.2.4) holding `data`.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var pos = 0
        repeat {
            let n = min(65535, data.count - pos)
            let last = pos + n >= data.count
            out.append(last ? 1 : 0)
            out += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[pos..<(pos + n)]
            pos += n
        } while pos < data.count
        var a: UInt32 = 1, b: UInt32 = 0
        for x in data { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        let adler = b << 16 | a
        out += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xFF), UInt8((adler >> 8) & 0xFF), UInt8(adler & 0xFF)]
        return out
    }
}

/// XMP in PNG: an `iTXt` chunk with the keyword `XML:com.adobe.xmp`, uncompressed, no language tag (Adobe XMP
/// Specification Part 3, PNG).
public enum PNGXMP {
    /// `png` with an `iTXt` XMP chunk holding `xmp` inserted before the first `IDAT` (any XMP chunk already there
    /// removed). Returns `png` unchanged when its chunks cannot be walked to an `IDAT`.
    public static func embedding(_ xmp: [UInt8], in png: [UInt8]) -> [UInt8] {
        guard png.count >= 33, Array(png[0..<8]) == PNGStructure.signature, !xmp.isEmpty else { return png }
        func u32(_ i: Int) -> Int { Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3]) }
        func be(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        let keyword = Array("XML:com.adobe.xmp".utf8)
        let body = Array("iTXt".utf8) + keyword + [0, 0, 0, 0, 0] + xmp
        let chunk = be(UInt32(body.count - 4)) + body + be(CRC32.checksum(body))
        var out = Array(png[0..<8])
        var i = 8, inserted = false
        while i + 12 <= png.count {
            let len = u32(i)
            guard i + 12 + len <= png.count else { break }
            let type = String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self)
            if type == "IDAT" && !inserted { out += chunk; inserted = true }
            let isXMP =
                type == "iTXt" && len >= keyword.count + 1
                && Array(png[(i + 8)..<(i + 8 + keyword.count)]) == keyword && png[i + 8 + keyword.count] == 0
            if !isXMP { out += png[i..<(i + 12 + len)] }
            i += 12 + len
        }
        guard inserted, i == png.count else { return png }
        return out
    }

    /// The text of the first uncompressed `iTXt` XMP chunk of a PNG (nil when there is none before `IDAT`'s end, it
    /// is larger than `maxBytes`, or the chunks cannot be walked). Reads chunk headers only, bounded by the source.
    public static func packet(in src: any ByteSource, maxBytes: Int) -> [UInt8]? {
        let keyword = Array("XML:com.adobe.xmp".utf8) + [0]
        var p: UInt64 = 8
        var chunks = 0
        while p + 12 <= src.size, chunks < 100_000 {
            chunks += 1
            guard let h = try? src.read(at: p, count: 8), h.count == 8 else { return nil }
            let length = UInt64(h[0]) << 24 | UInt64(h[1]) << 16 | UInt64(h[2]) << 8 | UInt64(h[3])
            let type = String(decoding: h[4..<8], as: UTF8.self)
            guard length <= src.size - p - 12, type != "IEND" else { return nil }
            if type == "iTXt", length > UInt64(keyword.count + 2), length <= UInt64(maxBytes),
                let body = try? src.read(at: p + 8, count: Int(length)), Array(body.prefix(keyword.count)) == keyword,
                body[keyword.count] == 0
            {
                // Compression flag 0, method, then language tag and translated keyword (each NUL-ended), then the text.
                var i = keyword.count + 2
                for _ in 0..<2 {
                    guard let z = body[i...].firstIndex(of: 0) else { return nil }
                    i = z + 1
                }
                return Array(body[i...])
            }
            p += 12 + length
        }
        return nil
    }
}
