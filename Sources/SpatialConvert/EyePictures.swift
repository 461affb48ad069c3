import BinaryIO
import ImageFormats

extension VideoConverter {
    /// 8-bit copies of a pair for the measurements that read 8-bit pictures (the geometry check).
    static func eightBit(_ pair: (Image, Image)) throws(ParseError) -> (Image, Image) {
        guard pair.0.bitDepth > 8 || pair.1.bitDepth > 8 else { return pair }
        return (try ColourConversion.changeDepth(pair.0, to: 8), try ColourConversion.changeDepth(pair.1, to: 8))
    }

    /// Crop on the 4:2:0 grid (x, y, w, h even): row copies per plane, no colour conversion.
    static func crop(_ img: Image, _ x: Int, _ y: Int, _ w: Int, _ h: Int) throws(ParseError) -> Image {
        guard case .u8(let planes) = img.planes, img.format == .yuv420, x % 2 == 0, y % 2 == 0, w % 2 == 0, h % 2 == 0,
            x >= 0, y >= 0, x + w <= img.width, y + h <= img.height
        else {
            return try ImageOps.crop(img, x: x, y: y, width: w, height: h)
        }
        if x == 0 && y == 0 && w == img.width && h == img.height { return img }
        var out: [[UInt8]] = []
        out.reserveCapacity(3)
        for (p, src) in planes.enumerated() {
            let shift = p == 0 ? 0 : 1
            let sw = img.planeWidth(p), ow = w >> shift, oh = h >> shift, ox = x >> shift, oy = y >> shift
            let dst = [UInt8](unsafeUninitializedCapacity: ow * oh) { buf, count in
                src.withUnsafeBufferPointer { s in
                    guard let sb = s.baseAddress, let db = buf.baseAddress else { return }
                    for row in 0..<oh { (db + row * ow).update(from: sb + (oy + row) * sw + ox, count: ow) }
                }
                count = ow * oh
            }
            out.append(dst)
        }
        return try Image(width: w, height: h, bitDepth: 8, format: .yuv420, planes: .u8(out), colour: img.colour)
    }

    /// Doubles the width (or height) of an 8-bit planar image with linear interpolation
    /// (sample positions of a centred 2× upsampling: 3/4 nearest + 1/4 next).
    static func stretch2(_ img: Image, horizontal: Bool) throws(ParseError) -> Image {
        guard case .u8(let planes) = img.planes else { throw ParseError(.unsupported, "stretch needs 8-bit samples") }
        var out: [[UInt8]] = []
        for (p, src) in planes.enumerated() {
            let w = img.planeWidth(p), h = img.planeHeight(p)
            let ow = horizontal ? 2 * w : w, oh = horizontal ? h : 2 * h
            var dst = [UInt8](repeating: 0, count: ow * oh)
            src.withUnsafeBufferPointer { s in
                dst.withUnsafeMutableBufferPointer { d in
                    if horizontal {
                        for y in 0..<h {
                            let r = y * w, o = y * ow
                            for x in 0..<w {
                                let c = Int(s[r + x]) * 3
                                let l = Int(s[r + max(0, x - 1)]), rr = Int(s[r + min(w - 1, x + 1)])
                                d[o + 2 * x] = UInt8((c + l + 2) >> 2)
                                d[o + 2 * x + 1] = UInt8((c + rr + 2) >> 2)
                            }
                        }
                    } else {
                        for y in 0..<h {
                            let up = max(0, y - 1) * w, dn = min(h - 1, y + 1) * w, r = y * w
                            for x in 0..<w {
                                let c = Int(s[r + x]) * 3
                                d[2 * y * w + x] = UInt8((c + Int(s[up + x]) + 2) >> 2)
                                d[(2 * y + 1) * w + x] = UInt8((c + Int(s[dn + x]) + 2) >> 2)
                            }
                        }
                    }
                }
            }
            out.append(dst)
        }
        return try Image(
            width: horizontal ? img.width * 2 : img.width, height: horizontal ? img.height : img.height * 2,
            bitDepth: 8, format: img.format, planes: .u8(out), colour: img.colour)
    }
}
