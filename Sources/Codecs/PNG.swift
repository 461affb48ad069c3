import BinaryIO
// The only file that calls libpng (simplified `png_image` API: no setjmp/longjmp).
@preconcurrency import CPNG
import ImageFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// PNG decode / encode through libpng's simplified API.
///
/// 8-bit files decode to 8-bit sRGB-encoded samples. The simplified API hands 16-bit data over as
/// *linear* light; we re-encode it with the sRGB transfer curve so that 16-bit images carry the same
/// (gamma-encoded) meaning as 8-bit ones, and do the inverse when writing 16-bit files (libpng then
/// writes a gAMA of 1.0). Alpha is kept (RGBA / grey+alpha → RGBA).
public enum PNG {
    /// Decodes a PNG to RGB, RGBA or grey at 8 or 16 bits (palette images become RGB/RGBA).
    ///
    /// The chunk structure is read and checked in Swift first (``/ImageFormats/PNGStructure``), so malformed files fail
    /// with an offset and chunk name and oversized dimensions are refused before libpng allocates.
    public static func decode(_ data: [UInt8], limits: Limits = .default) throws(ParseError) -> Image {
        _ = try PNGStructure(data, limits: limits)
        let png = try LibPNG.library()
        var img = png_image()
        img.version = png_uint_32(PNG_IMAGE_VERSION)
        let ok = data.withUnsafeBytes { png.image_begin_read_from_memory(&img, $0.baseAddress, $0.count) }
        guard ok != 0 else { throw CodecError.lib("libpng", "cannot read the PNG header: \(message(&img))") }
        defer { png.image_free(&img) }
        let width = Int(img.width), height = Int(img.height)
        try Image.checkDimensions(width: width, height: height, limits: limits)
        let srcFormat = img.format
        let hasAlpha = srcFormat & png_uint_32(PNG_FORMAT_FLAG_ALPHA) != 0
        let isColour =
            srcFormat & png_uint_32(PNG_FORMAT_FLAG_COLOR) != 0
            || srcFormat & png_uint_32(PNG_FORMAT_FLAG_COLORMAP) != 0
        let is16 = srcFormat & png_uint_32(PNG_FORMAT_FLAG_LINEAR) != 0
        // Grey+alpha is widened to RGBA; grey without alpha stays grey.
        let format: PixelFormat = hasAlpha ? .rgba : (isColour ? .rgb : .gray)
        var f: png_uint_32 = format == .gray ? 0 : png_uint_32(PNG_FORMAT_FLAG_COLOR)
        if hasAlpha { f |= png_uint_32(PNG_FORMAT_FLAG_ALPHA) }
        if is16 { f |= png_uint_32(PNG_FORMAT_FLAG_LINEAR); img.flags |= png_uint_32(PNG_IMAGE_FLAG_16BIT_sRGB) }
        img.format = f
        let ch = format.interleavedChannels
        let samples = width * height * ch
        if is16 {
            var buf = [UInt16](repeating: 0, count: samples)
            let r = buf.withUnsafeMutableBytes { png.image_finish_read(&img, nil, $0.baseAddress, 0, nil) }
            guard r != 0 else { throw CodecError.lib("libpng", "cannot decode: \(message(&img))") }
            let lut = SRGB.encodeLUT
            // Linear, premultiplied alpha → straight alpha, sRGB-encoded.
            for i in 0..<(width * height) {
                let a = hasAlpha ? Int(buf[i * ch + ch - 1]) : 65535
                for c in 0..<(hasAlpha ? ch - 1 : ch) {
                    var v = Int(buf[i * ch + c])
                    if hasAlpha { v = a == 0 ? 0 : min(65535, (v * 65535 + a / 2) / a) }
                    buf[i * ch + c] = lut[v]
                }
            }
            return try Image(width: width, height: height, bitDepth: 16, format: format, planes: .u16([buf]))
        } else {
            var buf = [UInt8](repeating: 0, count: samples)
            let r = buf.withUnsafeMutableBytes { png.image_finish_read(&img, nil, $0.baseAddress, 0, nil) }
            guard r != 0 else { throw CodecError.lib("libpng", "cannot decode: \(message(&img))") }
            return try Image(width: width, height: height, bitDepth: 8, format: format, planes: .u8([buf]))
        }
    }

    /// Encodes RGB/RGBA/grey (YUV is converted to RGB) at 8 bits, or 16 bits when the image is deeper
    /// than 8 bits and `allow16` is true.
    public static func encode(_ image: Image, allow16: Bool = true) throws(ParseError) -> [UInt8] {
        var src = image
        if src.format.isYUV { src = try ColourConversion.toRGB(src, bitDepth: src.bitDepth > 8 && allow16 ? 16 : 8) }
        let deep = src.bitDepth > 8 && allow16
        src = try ColourConversion.changeDepth(src, to: deep ? 16 : 8)
        let png = try LibPNG.library()
        var img = png_image()
        img.version = png_uint_32(PNG_IMAGE_VERSION)
        img.width = png_uint_32(src.width); img.height = png_uint_32(src.height)
        var f: png_uint_32 = 0
        if src.format != .gray { f |= png_uint_32(PNG_FORMAT_FLAG_COLOR) }
        if src.format == .rgba { f |= png_uint_32(PNG_FORMAT_FLAG_ALPHA) }
        if deep { f |= png_uint_32(PNG_FORMAT_FLAG_LINEAR) }
        img.format = f
        let ch = src.format.interleavedChannels
        /// The PNG of the samples in `raw`: asked for its size first, then written.
        func write(_ raw: UnsafeRawBufferPointer) -> [UInt8]? {
            var size: Int = 0
            guard png.image_write_to_memory(&img, nil, &size, 0, raw.baseAddress, 0, nil) != 0, size > 0 else {
                return nil
            }
            var out = [UInt8](repeating: 0, count: size)
            let ok = out.withUnsafeMutableBytes {
                png.image_write_to_memory(&img, $0.baseAddress, &size, 0, raw.baseAddress, 0, nil)
            }
            return ok != 0 ? Array(out.prefix(size)) : nil
        }
        let result: [UInt8]?
        switch src.planes {
        case .u8(let p):
            result = p[0].withUnsafeBytes(write)
        case .u16(let p):
            // sRGB-encoded straight alpha → linear premultiplied, as the simplified API expects.
            let lut = SRGB.decodeLUT
            var lin = p[0]
            let alpha = src.format == .rgba
            for i in 0..<(src.width * src.height) {
                let a = alpha ? Int(lin[i * ch + 3]) : 65535
                for c in 0..<(alpha ? 3 : ch) {
                    var v = Int(lut[Int(lin[i * ch + c])])
                    if alpha { v = (v * a + 32767) / 65535 }
                    lin[i * ch + c] = UInt16(v)
                }
            }
            result = lin.withUnsafeBytes(write)
        }
        defer { png.image_free(&img) }
        guard let result else { throw CodecError.lib("libpng", "cannot encode: \(message(&img))") }
        return result
    }

    static func message(_ img: inout png_image) -> String {
        withUnsafeBytes(of: &img.message) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// sRGB transfer curve lookup tables at 16 bits.
enum SRGB {
    static let encodeLUT: [UInt16] = (0...65535).map { i in
        let l = Double(i) / 65535
        let v = l <= 0.0031308 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
        return UInt16(min(65535, max(0, (v * 65535).rounded())))
    }
    static let decodeLUT: [UInt16] = (0...65535).map { i in
        let v = Double(i) / 65535
        let l = v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
        return UInt16(min(65535, max(0, (l * 65535).rounded())))
    }
}
