import BinaryIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Geometric operations on ``Image``: crop, rotate, mirror, paste (grid assembly), split, resize.
///
/// Operations that move chroma samples of subsampled YUV (crop at odd offsets, 90° rotation of
/// 4:2:2) convert the image to RGB first; every other case works plane by plane without loss.
public enum ImageOps {
    /// Crops to the rectangle (x, y, w, h); the rectangle must lie inside the image.
    public static func crop(_ img: Image, x: Int, y: Int, width w: Int, height h: Int) throws(ParseError) -> Image {
        guard x >= 0, y >= 0, w > 0, h > 0, x <= img.width - w, y <= img.height - h else {
            throw ParseError(
                .invalidValue, "crop \(w)×\(h)+\(x)+\(y) lies outside the \(img.width)×\(img.height) image")
        }
        if x == 0 && y == 0 && w == img.width && h == img.height { return img }
        let (sx, sy) = img.format.chromaShift
        if (sx > 0 && (x & 1) != 0) || (sy > 0 && (y & 1) != 0) {
            return try crop(ColourConversion.toRGB(img, bitDepth: img.bitDepth), x: x, y: y, width: w, height: h)
        }
        return try remap(img, width: w, height: h) { p, ox, oy in
            let shx = p == 0 ? 0 : sx, shy = p == 0 ? 0 : sy
            return (ox + (x >> shx), oy + (y >> shy))
        }
    }

    /// Rotates anticlockwise by `quarterTurns` × 90° (the HEIF `irot` convention).
    public static func rotate(_ img: Image, quarterTurns: Int) throws(ParseError) -> Image {
        let q = ((quarterTurns % 4) + 4) % 4
        if q == 0 { return img }
        if q != 2 && img.format == .yuv422 {
            return try rotate(ColourConversion.toRGB(img, bitDepth: img.bitDepth), quarterTurns: q)
        }
        if img.format.isYUV && img.format != .yuv444 && ((img.width & 1) != 0 || (img.height & 1) != 0) {
            return try rotate(ColourConversion.toRGB(img, bitDepth: img.bitDepth), quarterTurns: q)
        }
        let nw = q == 2 ? img.width : img.height, nh = q == 2 ? img.height : img.width
        return try remap(img, width: nw, height: nh) { p, ox, oy in
            let iw = img.planeWidth(p) / (p == 0 ? img.format.interleavedChannels : 1), ih = img.planeHeight(p)
            switch q {
            case 1: return (iw - 1 - oy, ox)  // anticlockwise 90°
            case 2: return (iw - 1 - ox, ih - 1 - oy)
            default: return (oy, ih - 1 - ox)  // 270°
            }
        }
    }

    /// Mirrors: `horizontal` true flips left↔right (HEIF `imir` axis 1 in the 2019+ spec
    /// wording "mirror about a vertical axis"), false flips top↔bottom.
    public static func mirror(_ img: Image, horizontal: Bool) throws(ParseError) -> Image {
        if img.format.isYUV && img.format != .yuv444 && ((img.width & 1) != 0 || (img.height & 1) != 0) {
            return try mirror(ColourConversion.toRGB(img, bitDepth: img.bitDepth), horizontal: horizontal)
        }
        return try remap(img, width: img.width, height: img.height) { p, ox, oy in
            let iw = img.planeWidth(p) / (p == 0 ? img.format.interleavedChannels : 1), ih = img.planeHeight(p)
            return horizontal ? (iw - 1 - ox, oy) : (ox, ih - 1 - oy)
        }
    }

    /// Builds a plane-by-plane copy where each output sample (plane p, x, y) reads input `map(p, x, y)`.
    static func remap(_ img: Image, width w: Int, height h: Int, _ map: (Int, Int, Int) -> (Int, Int))
        throws(ParseError) -> Image
    {
        let ch = img.format.interleavedChannels
        func run<T: FixedWidthInteger>(_ planes: [[T]]) -> [[T]] {
            var out: [[T]] = []
            for p in 0..<img.format.planeCount {
                let ow = Image.planeWidth(width: w, format: img.format, plane: p) / (p == 0 ? ch : 1)
                let oh = Image.planeHeight(height: h, format: img.format, plane: p)
                let iStride = img.planeWidth(p)
                let c = p == 0 ? ch : 1
                var o = [T](repeating: 0, count: ow * oh * c)
                planes[p].withUnsafeBufferPointer { src in
                    o.withUnsafeMutableBufferPointer { dst in
                        for oy in 0..<oh {
                            for ox in 0..<ow {
                                let (ix, iy) = map(p, ox, oy)
                                let si = iy * iStride + ix * c, di = (oy * ow + ox) * c
                                for k in 0..<c { dst[di + k] = src[si + k] }
                            }
                        }
                    }
                }
                out.append(o)
            }
            return out
        }
        let planes: Planes
        switch img.planes {
        case .u8(let p): planes = .u8(run(p))
        case .u16(let p): planes = .u16(run(p))
        }
        return try Image(
            width: w, height: h, bitDepth: img.bitDepth, format: img.format, planes: planes, colour: img.colour)
    }

    /// Copies `tile` into `canvas` at (x, y), clipping at the canvas edges. Formats and depths must match;
    /// for subsampled YUV, x and y must be multiples of 2.
    public static func paste(_ tile: Image, into canvas: inout Image, x: Int, y: Int) throws(ParseError) {
        guard tile.format == canvas.format, tile.bitDepth == canvas.bitDepth else {
            throw ParseError(
                .invalidValue,
                "grid tile is \(tile.format.rawValue) \(tile.bitDepth)-bit but the canvas is \(canvas.format.rawValue) \(canvas.bitDepth)-bit"
            )
        }
        let (sx, sy) = canvas.format.chromaShift
        guard (x >> sx) << sx == x, (y >> sy) << sy == y, x >= 0, y >= 0 else {
            throw ParseError(.invalidValue, "tile position \(x),\(y) is not aligned to the chroma grid")
        }
        let ch = canvas.format.interleavedChannels
        func copy<T>(_ src: [[T]], _ dst: inout [[T]]) {
            for p in 0..<canvas.format.planeCount {
                let c = p == 0 ? ch : 1
                let shx = p == 0 ? 0 : sx, shy = p == 0 ? 0 : sy
                let px = x >> shx, py = y >> shy
                let cw = canvas.planeWidth(p) / c, chh = canvas.planeHeight(p)
                let tw = tile.planeWidth(p) / c, th = tile.planeHeight(p)
                let cols = min(tw, cw - px), rows = min(th, chh - py)
                if cols <= 0 || rows <= 0 { continue }
                src[p].withUnsafeBufferPointer { s in
                    dst[p].withUnsafeMutableBufferPointer { d in
                        guard let sb = s.baseAddress, let db = d.baseAddress else { return }
                        for r in 0..<rows {
                            let si = r * tw * c, di = ((py + r) * cw + px) * c
                            (db + di).update(from: sb + si, count: cols * c)
                        }
                    }
                }
            }
        }
        // The canvas's planes are taken out of it first, so that they are uniquely referenced and the copy writes
        // into them in place (otherwise every tile would copy whole canvas planes: copy on write).
        var planes = canvas.planes
        canvas.planes = .u8([])
        switch tile.planes {
        case .u8(let s):
            guard case .u8(var d) = planes else {
                canvas.planes = planes; throw ParseError(.invalidValue, "grid tile sample size differs from the canvas")
            }
            planes = .u8([])
            copy(s, &d)
            canvas.planes = .u8(d)
        case .u16(let s):
            guard case .u16(var d) = planes else {
                canvas.planes = planes; throw ParseError(.invalidValue, "grid tile sample size differs from the canvas")
            }
            planes = .u16([])
            copy(s, &d)
            canvas.planes = .u16(d)
        }
    }

    /// Places `left` and `right` next to each other (or one above the other when `vertical`).
    public static func join(_ left: Image, _ right: Image, vertical: Bool = false, limits: Limits = .default)
        throws(ParseError) -> Image
    {
        var a = left, b = right
        if a.format != b.format || a.bitDepth != b.bitDepth || a.format.chromaShift != (0, 0) {
            a = try ColourConversion.toRGB(a, bitDepth: max(a.bitDepth, b.bitDepth) > 8 ? 16 : 8)
            b = try ColourConversion.toRGB(b, bitDepth: a.bitDepth)
        }
        let w = vertical ? max(a.width, b.width) : a.width + b.width
        let h = vertical ? a.height + b.height : max(a.height, b.height)
        var canvas = try Image.blank(
            width: w, height: h, bitDepth: a.bitDepth, format: a.format, colour: a.colour, limits: limits)
        try paste(a, into: &canvas, x: 0, y: 0)
        try paste(b, into: &canvas, x: vertical ? 0 : a.width, y: vertical ? a.height : 0)
        return canvas
    }

    /// Resizes with bilinear filtering (area-averaging when shrinking by 2 or more is not attempted).
    /// Works on RGB/RGBA/grey; YUV input is converted to RGB first.
    public static func resize(_ img: Image, width w: Int, height h: Int, limits: Limits = .default) throws(ParseError)
        -> Image
    {
        try Image.checkDimensions(width: w, height: h, limits: limits)
        if w == img.width && h == img.height { return img }
        let src = img.format.isYUV ? try ColourConversion.toRGB(img, bitDepth: img.bitDepth) : img
        let c = src.format.interleavedChannels
        let sw = src.width, sh = src.height
        let plane = ColourConversion.intPlane(src, 0)
        var out = [Int32](repeating: 0, count: w * h * c)
        // 8 fractional bits of position.
        func taps(_ o: Int, _ n: Int, _ size: Int) -> (Int, Int, Int32) {
            let pos = ((2 * o + 1) * n * 256) / (2 * size) - 128
            let p = max(0, pos)
            let a = min(p >> 8, n - 1), b = min(a + 1, n - 1)
            return (a, b, Int32(p & 255))
        }
        let xt = (0..<w).map { taps($0, sw, w) }, yt = (0..<h).map { taps($0, sh, h) }
        plane.withUnsafeBufferPointer { s in
            out.withUnsafeMutableBufferPointer { d in
                for y in 0..<h {
                    let (ya, yb, fy) = yt[y]
                    for x in 0..<w {
                        let (xa, xb, fx) = xt[x]
                        for k in 0..<c {
                            let t = s[(ya * sw + xa) * c + k] * (256 - fx) + s[(ya * sw + xb) * c + k] * fx
                            let bo = s[(yb * sw + xa) * c + k] * (256 - fx) + s[(yb * sw + xb) * c + k] * fx
                            d[(y * w + x) * c + k] = Int32(
                                (Int64(t) * Int64(256 - fy) + Int64(bo) * Int64(fy) + 32768) >> 16)
                        }
                    }
                }
            }
        }
        let planes: Planes =
            src.bitDepth == 8 ? .u8([out.map { UInt8(clamping: $0) }]) : .u16([out.map { UInt16(clamping: $0) }])
        return try Image(
            width: w, height: h, bitDepth: src.bitDepth, format: src.format, planes: planes, colour: src.colour)
    }

    /// Pads to w×h by repeating the last column / row (encoders need whole tiles).
    public static func padEdge(_ img: Image, width w: Int, height h: Int) throws(ParseError) -> Image {
        if w == img.width && h == img.height { return img }
        guard w >= img.width, h >= img.height else { throw ParseError(.invalidValue, "pad target smaller than image") }
        let (sx, sy) = img.format.chromaShift
        return try remap(img, width: w, height: h) { p, ox, oy in
            let c = p == 0 ? img.format.interleavedChannels : 1
            let iw = img.planeWidth(p) / c, ih = img.planeHeight(p)
            _ = (sx, sy)
            return (min(ox, iw - 1), min(oy, ih - 1))
        }
    }

    /// Peak signal-to-noise ratio in dB between two images of equal geometry over every sample of
    /// every plane (infinity when identical).
    public static func psnr(_ a: Image, _ b: Image) throws(ParseError) -> Double {
        guard a.width == b.width, a.height == b.height, a.format == b.format, a.bitDepth == b.bitDepth else {
            throw ParseError(
                .invalidValue,
                "PSNR needs images of equal size, format and depth (\(a.width)×\(a.height) \(a.format.rawValue) vs \(b.width)×\(b.height) \(b.format.rawValue))"
            )
        }
        var se: Double = 0, n = 0
        for p in 0..<a.format.planeCount {
            let x = ColourConversion.intPlane(a, p), y = ColourConversion.intPlane(b, p)
            for i in 0..<x.count { let d = Double(x[i] - y[i]); se += d * d }
            n += x.count
        }
        if se == 0 { return .infinity }
        let m = Double(a.maxValue)
        return 10 * log10(m * m / (se / Double(n)))
    }
}
