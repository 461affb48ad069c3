import BinaryIO
// The only file that calls libturbojpeg.
import CTurboJPEG
import ImageFormats

/// JPEG decode / encode through libturbojpeg (TurboJPEG 2.x API).
public enum JPEG {
    /// The result of decoding: pixels (EXIF orientation already applied), the source EXIF block and
    /// notes about conversions made (for example CMYK → RGB).
    public struct Decoded: Sendable {
        public var image: Image
        /// TIFF-form EXIF of the file (after "Exif\0\0"), if any.
        public var exif: [UInt8]?
        public var exifInfo: ExifInfo
        /// Orientation that was applied (1 = none).
        public var appliedOrientation: Int
        public var notes: [String]
    }

    /// Decodes a baseline or progressive JPEG to 8-bit RGB (grey stays grey). CMYK/YCCK files are
    /// converted to RGB assuming Adobe's inverted CMYK (the form Photoshop writes). EXIF orientation
    /// 2…8 is applied unless `applyOrientation` is false.
    ///
    /// A warning of libjpeg-turbo (premature end of the file, corrupt data) means the picture is damaged or truncated:
    /// it is thrown as ``/BinaryIO/ParseError/Code/truncated`` (remedy ``/BinaryIO/ParseError/Remedy/force``) with the
    /// rows that were decoded, unless `acceptDamage` is true; then the picture is returned as the decoder filled it and
    /// ``Decoded/notes`` says so (Specs/codecs.md, "Damaged or truncated JPEG").
    public static func decode(
        _ data: [UInt8], applyOrientation: Bool = true, limits: Limits = .default,
        acceptDamage: Bool = false
    ) throws(ParseError) -> Decoded {
        let segs = try JPEGSegments(data)
        let exif = segs.exifTIFF
        let info = exif.map { ExifInfo(tiff: $0) } ?? ExifInfo()
        let tj = try TurboJPEG.library()
        guard let h = tj.initDecompress() else { throw CodecError.lib("libjpeg-turbo", "cannot create a decompressor") }
        defer { _ = tj.destroy(h) }
        let (w, ht, _, cs) = try header(tj, h, data)
        try Image.checkDimensions(width: Int(w), height: Int(ht), limits: limits)
        var notes: [String] = []
        let width = Int(w), height = Int(ht)
        let isCMYK = cs == Int32(TJCS_CMYK.rawValue) || cs == Int32(TJCS_YCCK.rawValue)
        let isGray = cs == Int32(TJCS_GRAY.rawValue)
        let pf: TJPF = isCMYK ? TJPF_CMYK : (isGray ? TJPF_GRAY : TJPF_RGB)
        let channels = isCMYK ? 4 : (isGray ? 1 : 3)
        var buf = [UInt8](repeating: 0, count: width * height * channels)
        let d = data.withUnsafeBufferPointer { src in
            buf.withUnsafeMutableBufferPointer { dst in
                tj.decompress2(
                    h, src.baseAddress, UInt(data.count), dst.baseAddress, w, Int32(width * channels), ht,
                    Int32(pf.rawValue), TJFLAG_ACCURATEDCT)
            }
        }
        if d != 0 {
            // Warnings (e.g. extraneous bytes) still produce an image; errors do not.
            if tj.getErrorCode(h) == Int32(TJERR_FATAL.rawValue) {
                throw CodecError.lib("libjpeg-turbo", "cannot decode: \(errText(h))")
            }
            let damage = damageText(warning: errText(h), rgb: buf, width: width, height: height, channels: channels)
            guard acceptDamage else {
                throw ParseError(
                    .truncated, offset: UInt64(data.count), "the JPEG is damaged or truncated: \(damage)",
                    remedy: .force)
            }
            notes.append("damaged or truncated JPEG decoded as it is: \(damage)")
        }
        var img: Image
        if isCMYK {
            var rgb = [UInt8](repeating: 0, count: width * height * 3)
            for i in 0..<(width * height) {
                let k = Int(buf[4 * i + 3])
                for c in 0..<3 { rgb[3 * i + c] = UInt8(Int(buf[4 * i + c]) * k / 255) }
            }
            img = try Image(width: width, height: height, bitDepth: 8, format: .rgb, planes: .u8([rgb]))
            notes.append("CMYK JPEG converted to RGB without colour management (Adobe inverted CMYK assumed)")
        } else {
            img = try Image(
                width: width, height: height, bitDepth: 8, format: isGray ? .gray : .rgb, planes: .u8([buf]))
        }
        var applied = 1
        if applyOrientation, let o = info.orientation, (2...8).contains(o) {
            img = try applyExifOrientation(img, o)
            applied = o
            notes.append("EXIF orientation \(o) applied")
        }
        return Decoded(image: img, exif: exif, exifInfo: info, appliedOrientation: applied, notes: notes)
    }

    /// Rotates/mirrors so that an image stored with EXIF orientation `o` displays upright.
    public static func applyExifOrientation(_ img: Image, _ o: Int) throws(ParseError) -> Image {
        switch o {
        case 2: return try ImageOps.mirror(img, horizontal: true)
        case 3: return try ImageOps.rotate(img, quarterTurns: 2)
        case 4: return try ImageOps.mirror(img, horizontal: false)
        case 5: return try ImageOps.rotate(ImageOps.mirror(img, horizontal: true), quarterTurns: 1)
        case 6: return try ImageOps.rotate(img, quarterTurns: 3)
        case 7: return try ImageOps.rotate(ImageOps.mirror(img, horizontal: true), quarterTurns: 3)
        case 8: return try ImageOps.rotate(img, quarterTurns: 1)
        default: return img
        }
    }

    /// Encodes RGB/RGBA/grey/YUV (converted to 8-bit RGB or grey first) at `quality` 1…100 with 4:2:0 chroma. When
    /// `exif` (TIFF form) is given it is written as an APP1 segment after SOI; `icc` (an ICC profile) follows as APP2
    /// `ICC_PROFILE` segments (split into chunks of at most 65519 bytes, at most 255 of them), and `xmp` (an XMP packet
    /// of at most 65502 bytes) as the standard XMP APP1 segment.
    public static func encode(
        _ image: Image, quality: Int = 92, exif: [UInt8]? = nil, icc: [UInt8]? = nil, xmp: [UInt8]? = nil
    ) throws(ParseError) -> [UInt8] {
        var img = image
        if img.format != .gray {
            img = try ColourConversion.dropAlpha(ColourConversion.toRGB(img, bitDepth: 8))
        } else {
            img = try ColourConversion.changeDepth(img, to: 8)
        }
        guard case .u8(let planes) = img.planes else {
            throw CodecError.lib("libjpeg-turbo", "internal: expected 8-bit samples")
        }
        let tj = try TurboJPEG.library()
        guard let h = tj.initCompress() else { throw CodecError.lib("libjpeg-turbo", "cannot create a compressor") }
        defer { _ = tj.destroy(h) }
        let gray = img.format == .gray
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let r = planes[0].withUnsafeBufferPointer { src in
            tj.compress2(
                h, src.baseAddress, Int32(img.width), Int32(img.width * (gray ? 1 : 3)), Int32(img.height),
                Int32((gray ? TJPF_GRAY : TJPF_RGB).rawValue), &out, &size,
                Int32((gray ? TJSAMP_GRAY : TJSAMP_420).rawValue), Int32(min(100, max(1, quality))), TJFLAG_ACCURATEDCT)
        }
        defer { if let out { tj.free(out) } }
        guard r == 0, let out, size > 0 else { throw CodecError.lib("libjpeg-turbo", "cannot encode: \(errText(h))") }
        var bytes = Array(UnsafeBufferPointer(start: out, count: Int(size)))
        if let exif, exif.count + 8 <= 65535, bytes.count >= 2 {
            let len = exif.count + 8
            let app1: [UInt8] = [0xFF, 0xE1, UInt8(len >> 8), UInt8(len & 0xFF), 0x45, 0x78, 0x69, 0x66, 0, 0] + exif
            bytes.insert(contentsOf: app1, at: 2)
        }
        if let icc, !icc.isEmpty, bytes.count >= 2 {
            let per = 65519
            let count = (icc.count + per - 1) / per
            guard count <= 255 else {
                throw CodecError.lib(
                    "libjpeg-turbo", "ICC profile of \(icc.count) bytes is too large for APP2 segments")
            }
            var segments: [UInt8] = []
            for k in 0..<count {
                let part = icc[(k * per)..<min(icc.count, (k + 1) * per)]
                let len = part.count + 16
                segments +=
                    [0xFF, 0xE2, UInt8(len >> 8), UInt8(len & 0xFF)] + Array("ICC_PROFILE".utf8) + [
                        0, UInt8(k + 1), UInt8(count),
                    ] + part
            }
            // After SOI and the APP1 (Exif) segment when there is one.
            var at = 2
            if bytes.count >= 6, bytes[2] == 0xFF, bytes[3] == 0xE1 { at = 4 + (Int(bytes[4]) << 8 | Int(bytes[5])) }
            bytes.insert(contentsOf: segments, at: min(at, bytes.count))
        }
        if let xmp, !xmp.isEmpty, bytes.count >= 2 {
            let ns = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
            let len = 2 + ns.count + xmp.count
            guard len <= 65535 else {
                throw CodecError.lib("libjpeg-turbo", "XMP packet of \(xmp.count) bytes does not fit one APP1 segment")
            }
            // Right after SOI and the Exif APP1 (XMP readers look for it among the first segments).
            var at = 2
            if bytes.count >= 6, bytes[2] == 0xFF, bytes[3] == 0xE1 { at = 4 + (Int(bytes[4]) << 8 | Int(bytes[5])) }
            bytes.insert(
                contentsOf: [0xFF, 0xE1, UInt8(len >> 8), UInt8(len & 0xFF)] + ns + xmp, at: min(at, bytes.count))
        }
        return bytes
    }

    /// Encodes interleaved 8-bit CMYK samples (Adobe inverted convention) as a YCCK JPEG — for print
    /// workflows and for testing the CMYK decode path.
    public static func encodeCMYK(_ samples: [UInt8], width: Int, height: Int, quality: Int = 90) throws(ParseError)
        -> [UInt8]
    {
        try Image.checkDimensions(width: width, height: height)
        guard samples.count == width * height * 4 else {
            throw CodecError.lib("libjpeg-turbo", "CMYK buffer size does not match \(width)×\(height)")
        }
        let tj = try TurboJPEG.library()
        guard let h = tj.initCompress() else { throw CodecError.lib("libjpeg-turbo", "cannot create a compressor") }
        defer { _ = tj.destroy(h) }
        var out: UnsafeMutablePointer<UInt8>? = nil
        var size: UInt = 0
        let r = samples.withUnsafeBufferPointer { src in
            tj.compress2(
                h, src.baseAddress, Int32(width), Int32(width * 4), Int32(height), Int32(TJPF_CMYK.rawValue), &out,
                &size,
                Int32(TJSAMP_444.rawValue), Int32(min(100, max(1, quality))), 0)
        }
        defer { if let out { tj.free(out) } }
        guard r == 0, let out, size > 0 else {
            throw CodecError.lib("libjpeg-turbo", "cannot encode CMYK: \(errText(h))")
        }
        return Array(UnsafeBufferPointer(start: out, count: Int(size)))
    }

    /// The coded size of a JPEG and the size of its MCU (minimum coded unit: 8 or 16 pixels by the chroma
    /// subsampling), read from the header alone.
    public struct Geometry: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var mcuWidth: Int
        public var mcuHeight: Int
    }

    /// Reads ``Geometry`` from the frame header.
    public static func geometry(_ data: [UInt8]) throws(ParseError) -> Geometry {
        let tj = try TurboJPEG.library()
        guard let h = tj.initDecompress() else { throw CodecError.lib("libjpeg-turbo", "cannot create a decompressor") }
        defer { _ = tj.destroy(h) }
        let (w, ht, sub, _) = try header(tj, h, data)
        // MCU sizes by subsampling (TurboJPEG's TJSAMP order: 4:4:4, 4:2:2, 4:2:0, grey, 4:4:0, 4:1:1).
        let mcu: [(Int, Int)] = [(8, 8), (16, 8), (16, 16), (8, 8), (8, 16), (32, 8)]
        guard sub >= 0, Int(sub) < mcu.count else {
            throw CodecError.lib("libjpeg-turbo", "unknown chroma subsampling \(sub)")
        }
        return Geometry(width: Int(w), height: Int(ht), mcuWidth: mcu[Int(sub)].0, mcuHeight: mcu[Int(sub)].1)
    }

    /// A rectangle of a picture in pixels.
    public struct Rect: Sendable, Equatable {
        public var x: Int, y: Int, width: Int, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x; self.y = y; self.width = width; self.height = height
        }
    }

    /// Cuts each rectangle out of a JPEG without decoding it (libjpeg-turbo's lossless transform; one pass over the
    /// coded data for all of them): the coded DCT blocks are moved as they are, so each result decodes to the source's
    /// pixels of its rectangle (only chroma upsampling at a cut edge can differ: the neighbours it reads are gone).
    /// Each rectangle's `x` and `y` must be multiples of the MCU size (``geometry(_:)``) and it must lie inside the
    /// picture. The markers (EXIF, ICC profile, XMP) are copied unchanged.
    public static func losslessCrops(_ data: [UInt8], _ rects: [Rect]) throws(ParseError) -> [[UInt8]] {
        let g = try geometry(data)
        guard !rects.isEmpty, rects.count <= 16 else {
            throw CodecError.lib("libjpeg-turbo", "1 to 16 crops at a time")
        }
        var transforms: [tjtransform] = []
        for c in rects {
            guard c.x >= 0, c.y >= 0, c.width > 0, c.height > 0, c.x <= g.width - c.width, c.y <= g.height - c.height,
                c.x % g.mcuWidth == 0, c.y % g.mcuHeight == 0
            else {
                throw CodecError.lib(
                    "libjpeg-turbo",
                    "a lossless crop at \(c.x),\(c.y) of \(c.width)×\(c.height) does not fit the \(g.width)×\(g.height) picture on its \(g.mcuWidth)×\(g.mcuHeight) MCU grid"
                )
            }
            var t = tjtransform()
            t.r = tjregion(x: Int32(c.x), y: Int32(c.y), w: Int32(c.width), h: Int32(c.height))
            t.op = Int32(TJXOP_NONE.rawValue)
            t.options = TJXOPT_CROP
            transforms.append(t)
        }
        let tj = try TurboJPEG.library()
        guard let h = tj.initTransform() else { throw CodecError.lib("libjpeg-turbo", "cannot create a transformer") }
        defer { _ = tj.destroy(h) }
        var outs = [UnsafeMutablePointer<UInt8>?](repeating: nil, count: rects.count)
        var sizes = [UInt](repeating: 0, count: rects.count)
        let r = data.withUnsafeBufferPointer { src in
            tj.transform(h, src.baseAddress, UInt(data.count), Int32(rects.count), &outs, &sizes, &transforms, 0)
        }
        defer { for o in outs { if let o { tj.free(o) } } }
        guard r == 0 else {
            // A warning is an error here too (the crops would carry the damage), named as every reader names it.
            if tj.getErrorCode(h) != Int32(TJERR_FATAL.rawValue) {
                throw ParseError(
                    .truncated, offset: UInt64(data.count),
                    "the JPEG is damaged or truncated: libjpeg-turbo: \(errText(h))")
            }
            throw CodecError.lib("libjpeg-turbo", "cannot crop: \(errText(h))")
        }
        var result: [[UInt8]] = []
        for (o, n) in zip(outs, sizes) {
            guard let o, n > 0 else { throw CodecError.lib("libjpeg-turbo", "cannot crop: empty result") }
            result.append(Array(UnsafeBufferPointer(start: o, count: Int(n))))
        }
        return result
    }

    /// The frame header read with the decompressor `h`: width, height, subsampling and colour space (TurboJPEG's
    /// codes).
    static func header(_ tj: TurboJPEG, _ h: tjhandle, _ data: [UInt8]) throws(ParseError) -> (
        Int32, Int32, Int32, Int32
    ) {
        guard data.count <= Int(UInt32.max) else { throw ParseError(.limitExceeded, "JPEG larger than 4 GiB") }
        var w: Int32 = 0, ht: Int32 = 0, sub: Int32 = 0, cs: Int32 = 0
        let r = data.withUnsafeBufferPointer {
            tj.decompressHeader3(h, $0.baseAddress, UInt(data.count), &w, &ht, &sub, &cs)
        }
        if r != 0 { throw CodecError.lib("libjpeg-turbo", "cannot read the JPEG header: \(errText(h))") }
        return (w, ht, sub, cs)
    }

    /// What a decoder warning means for the picture: libjpeg-turbo's words, and the rows it decoded. Data that ends
    /// early leaves the remaining blocks empty, which decode to flat mid-grey (128): the trailing rows that are wholly
    /// that grey are the ones the file did not hold.
    static func damageText(warning: String, rgb: [UInt8], width: Int, height: Int, channels: Int) -> String {
        let row = width * channels
        var grey = 0
        while grey < height {
            let start = (height - 1 - grey) * row
            guard start >= 0, start + row <= rgb.count,
                rgb[start..<(start + row)].allSatisfy({ $0 == 128 })
            else { break }
            grey += 1
        }
        let rows =
            grey > 0 && grey < height
            ? "rows 0–\(height - grey - 1) of \(height) decoded, the last \(grey) rows are missing (filled with grey)"
            : "the decoder does not say which of the \(height) rows are affected"
        return "libjpeg-turbo: \(warning); \(rows)"
    }

    static func errText(_ h: tjhandle) -> String {
        guard let s = (try? TurboJPEG.library())?.getErrorStr2(h) else { return "unknown error" }
        return String(cString: s)
    }
}
