import BinaryIO
import Dispatch
import SystemSupport

/// Runs `body` over bands of rows `0..<rows` on all cores (each band is disjoint, so bodies that write
/// only their own rows need no locking). Small images run on the calling thread.
package func forEachRowBand(_ rows: Int, pixelsPerRow: Int, _ body: (Range<Int>) -> Void) {
    let cores = max(1, ProcessorInfo.activeCount)
    guard cores > 1, rows >= 2, rows * pixelsPerRow >= 1 << 16 else { body(0..<max(0, rows)); return }
    let bands = min(rows, cores * 4)
    withoutActuallyEscaping(body) { work in
        let shared = RowBandWork(run: work)
        DispatchQueue.concurrentPerform(iterations: bands) { b in
            shared.run((rows * b / bands)..<(rows * (b + 1) / bands))
        }
    }
}

/// The per-band closure of ``forEachRowBand``; the caller guarantees that bands touch disjoint rows.
private struct RowBandWork: @unchecked Sendable { let run: (Range<Int>) -> Void }

/// RGB ↔ YUV conversion (BT.601 / BT.709 / BT.2020 matrices, full or limited range), in Swift.
///
/// Integer fixed point with 16 fractional bits. Chroma subsampling (RGB → 4:2:0/4:2:2) averages
/// the co-sited block (centre siting); upsampling (4:2:0 → RGB) is bilinear with chroma samples
/// at the centre of each 2×2 block, which matches what most HEIF readers do.
public enum ColourConversion {
    struct Coeffs {
        let kr: Double, kb: Double
        var kg: Double { 1 - kr - kb }
        init(_ m: ColourSpace.Matrix) {
            switch m {
            case .bt601: kr = 0.299; kb = 0.114
            case .bt709: kr = 0.2126; kb = 0.0722
            case .bt2020: kr = 0.2627; kb = 0.0593
            }
        }
    }

    /// Converts any image to interleaved RGB (or RGBA when the source has alpha) at `bitDepth` (8 or 16 …).
    /// YUV sources use their own ``Image/colour``; grey is replicated.
    public static func toRGB(_ img: Image, bitDepth outDepth: Int = 8) throws(ParseError) -> Image {
        switch img.format {
        case .rgb, .rgba:
            return try changeDepth(img, to: outDepth)
        case .gray:
            let g = try changeDepth(img, to: outDepth)
            let n = img.width * img.height
            /// Each grey sample written three times, as red, green and blue.
            func tripled<T: FixedWidthInteger>(_ grey: [T]) -> [T] {
                var out = [T](repeating: 0, count: n * 3)
                for i in 0..<n { let v = grey[i]; out[3 * i] = v; out[3 * i + 1] = v; out[3 * i + 2] = v }
                return out
            }
            let planes: Planes
            switch g.planes {
            case .u8(let p): planes = .u8([tripled(p[0])])
            case .u16(let p): planes = .u16([tripled(p[0])])
            }
            return try Image(
                width: img.width, height: img.height, bitDepth: outDepth, format: .rgb, planes: planes,
                colour: img.colour)
        case .yuv420, .yuv422, .yuv444:
            break
        }
        if img.bitDepth == 8 && outDepth == 8, case .u8(let planes) = img.planes, planes.count == 3 {
            return try yuv8ToRGB8(img, planes)
        }
        return try yuvToRGB(img, bitDepth: outDepth)
    }

    /// Any YUV depth to RGB at `outDepth`, through Int32 planes (the reference for the 8-bit fast path).
    static func yuvToRGB(_ img: Image, bitDepth outDepth: Int) throws(ParseError) -> Image {
        let w = img.width, h = img.height
        let y = intPlane(img, 0), cb = intPlane(img, 1), cr = intPlane(img, 2)
        let cw = img.planeWidth(1), ch = img.planeHeight(1)
        let (sx, sy) = img.format.chromaShift
        let c = Coeffs(img.colour.matrix)
        let inMax = Double(img.maxValue), outMax = Double((1 << outDepth) - 1)
        let mid = Double(1 << (img.bitDepth - 1))
        let scaleIn = Double(1 << (img.bitDepth - 8))
        let yOff = img.colour.fullRange ? 0.0 : 16 * scaleIn
        let yRange = img.colour.fullRange ? inMax : 219 * scaleIn
        let cRange = img.colour.fullRange ? inMax : 224 * scaleIn
        // out = (Y - yOff) * a + (Cr - mid) * b ...
        let F = 65536.0
        let ay = Int64((outMax / yRange * F).rounded())
        let rcr = Int64((2 * (1 - c.kr) * outMax / cRange * F).rounded())
        let bcb = Int64((2 * (1 - c.kb) * outMax / cRange * F).rounded())
        let gcb = Int64((-2 * (1 - c.kb) * c.kb / c.kg * outMax / cRange * F).rounded())
        let gcr = Int64((-2 * (1 - c.kr) * c.kr / c.kg * outMax / cRange * F).rounded())
        let yo = Int64(yOff), mo = Int64(mid), om = Int64(outMax), half = Int64(1 << 15)
        // Upsample chroma to full resolution (bilinear, centre-sited) into Int32 buffers.
        let cbFull = upsample(cb, cw: cw, ch: ch, w: w, h: h, sx: sx, sy: sy)
        let crFull = upsample(cr, cw: cw, ch: ch, w: w, h: h, sx: sx, sy: sy)
        let n = w * h
        // Row bands in parallel; every band reads shared planes and writes only its own rows.
        func convert<T: FixedWidthInteger & UnsignedInteger>(_ out: inout [T]) {
            y.withUnsafeBufferPointer { yp in
                cbFull.withUnsafeBufferPointer { cbp in
                    crFull.withUnsafeBufferPointer { crp in
                        out.withUnsafeMutableBufferPointer { o in
                            forEachRowBand(h, pixelsPerRow: w) { rows in
                                for i in (rows.lowerBound * w)..<(rows.upperBound * w) {
                                    let yy = (Int64(yp[i]) - yo) * ay
                                    let u = Int64(cbp[i]) - mo, v = Int64(crp[i]) - mo
                                    o[3 * i] = T(truncatingIfNeeded: min(om, max(0, (yy + rcr * v + half) >> 16)))
                                    o[3 * i + 1] = T(
                                        truncatingIfNeeded: min(om, max(0, (yy + gcb * u + gcr * v + half) >> 16)))
                                    o[3 * i + 2] = T(truncatingIfNeeded: min(om, max(0, (yy + bcb * u + half) >> 16)))
                                }
                            }
                        }
                    }
                }
            }
        }
        if outDepth == 8 {
            var out = [UInt8](repeating: 0, count: n * 3)
            convert(&out)
            return try Image(width: w, height: h, bitDepth: 8, format: .rgb, planes: .u8([out]), colour: img.colour)
        } else {
            var out = [UInt16](repeating: 0, count: n * 3)
            convert(&out)
            return try Image(
                width: w, height: h, bitDepth: outDepth, format: .rgb, planes: .u16([out]), colour: img.colour)
        }
    }

    /// The 8-bit YUV → 8-bit RGB case (every HEIC and video frame we decode): the same fixed-point
    /// arithmetic and bilinear centre-sited chroma as the generic path, bit for bit, but fused per row —
    /// chroma is interpolated vertically into a row of the chroma plane, then horizontally into a
    /// full-width row, and converted straight from the 8-bit planes — in 32-bit integers (every 8-bit
    /// intermediate fits), on all cores.
    static func yuv8ToRGB8(_ img: Image, _ planes: [[UInt8]]) throws(ParseError) -> Image {
        let w = img.width, h = img.height
        let cw = img.planeWidth(1), ch = img.planeHeight(1)
        let (sx, sy) = img.format.chromaShift
        let c = Coeffs(img.colour.matrix)
        let full = img.colour.fullRange
        let yRange = full ? 255.0 : 219.0, cRange = full ? 255.0 : 224.0
        let F = 65536.0
        let ay = Int32((255 / yRange * F).rounded())
        let rcr = Int32((2 * (1 - c.kr) * 255 / cRange * F).rounded())
        let bcb = Int32((2 * (1 - c.kb) * 255 / cRange * F).rounded())
        let gcb = Int32((-2 * (1 - c.kb) * c.kb / c.kg * 255 / cRange * F).rounded())
        let gcr = Int32((-2 * (1 - c.kr) * c.kr / c.kg * 255 / cRange * F).rounded())
        let yo: Int32 = full ? 0 : 16
        // Chroma taps, as in `upsample`: for a full-resolution coordinate, the two chroma samples and
        // the weight of the second in quarters (centre siting). Without subsampling: one sample, weight 0.
        func taps(_ pos: Int, _ shift: Int, _ count: Int) -> (Int, Int, Int32) {
            if shift == 0 { return (pos, pos, 0) }
            let num = 2 * pos - 1
            let base = num >= 0 ? num / 4 : -1
            return (min(max(base, 0), count - 1), min(max(base + 1, 0), count - 1), Int32(num - base * 4))
        }
        let xt = (0..<w).map { taps($0, sx, cw) }
        let yt = (0..<h).map { taps($0, sy, ch) }
        // The generic path rounds (sum + 8) >> 4 after weighting both directions by quarters; without
        // subsampling in a direction its weight is 4 (one tap), so the same formula holds.
        // Every byte of the output is written below (each row in full), so it starts uninitialised.
        let out = [UInt8](unsafeUninitializedCapacity: w * h * 3) { o, count in
            count = w * h * 3
            planes[0].withUnsafeBufferPointer { yp in
                planes[1].withUnsafeBufferPointer { cbp in
                    planes[2].withUnsafeBufferPointer { crp in
                        xt.withUnsafeBufferPointer { xtp in
                            do {
                                forEachRowBand(h, pixelsPerRow: w) { rows in
                                    // Per-band scratch rows: two vertically interpolated chroma rows (cw) and two
                                    // full-width chroma rows (w), centred on zero.
                                    let scratch = UnsafeMutablePointer<Int32>.allocate(capacity: 2 * cw + 2 * w)
                                    defer { scratch.deallocate() }
                                    let vcb = scratch, vcr = scratch + cw, rowCb = scratch + 2 * cw,
                                        rowCr = scratch + 2 * cw + w
                                    // Wrapping arithmetic: every intermediate is bounded (|value| < 2^26) for 8-bit
                                    // input.
                                    for y in rows {
                                        let (ya, yb, fy) = yt[y]
                                        let fy0 = 4 &- fy
                                        let ca = cbp.baseAddress.map { $0 + ya * cw },
                                            cb2 = cbp.baseAddress.map { $0 + yb * cw }
                                        let ra = crp.baseAddress.map { $0 + ya * cw },
                                            rb = crp.baseAddress.map { $0 + yb * cw }
                                        guard let ca, let cb2, let ra, let rb,
                                            let yRowPtr = yp.baseAddress.map({ $0 + y * w }),
                                            let out = o.baseAddress.map({ $0 + 3 * y * w })
                                        else { continue }
                                        // Vertical taps, eight chroma samples at a time.
                                        let f0 = SIMD8<Int32>(repeating: fy0), f1 = SIMD8<Int32>(repeating: fy)
                                        var k = 0
                                        while k + 8 <= cw {
                                            store8(load8(ca + k) &* f0 &+ load8(cb2 + k) &* f1, vcb + k)
                                            store8(load8(ra + k) &* f0 &+ load8(rb + k) &* f1, vcr + k)
                                            k += 8
                                        }
                                        while k < cw {
                                            vcb[k] = Int32(ca[k]) &* fy0 &+ Int32(cb2[k]) &* fy
                                            vcr[k] = Int32(ra[k]) &* fy0 &+ Int32(rb[k]) &* fy
                                            k += 1
                                        }
                                        if sx == 1 {
                                            // Centre-sited 2× upsampling: even x weighs (k-1, k) 1:3, odd x (k, k+1)
                                            // 3:1, clamped at the edges (the general taps below, unrolled). The first
                                            // and last chroma columns take the clamped path; the interior goes eight at
                                            // a time.
                                            func pair(_ k: Int) {
                                                let left = max(k - 1, 0), right = min(k + 1, cw - 1)
                                                let b3 = vcb[k] &* 3 &+ 8, r3 = vcr[k] &* 3 &+ 8
                                                let x = 2 * k
                                                rowCb[x] = ((b3 &+ vcb[left]) &>> 4) &- 128
                                                rowCr[x] = ((r3 &+ vcr[left]) &>> 4) &- 128
                                                if x + 1 < w {
                                                    rowCb[x + 1] = ((b3 &+ vcb[right]) &>> 4) &- 128
                                                    rowCr[x + 1] = ((r3 &+ vcr[right]) &>> 4) &- 128
                                                }
                                            }
                                            pair(0)
                                            if cw > 1 { pair(cw - 1) }
                                            var k = 1
                                            while k + 9 <= cw {
                                                upsample2x(vcb + k, into: rowCb + 2 * k)
                                                upsample2x(vcr + k, into: rowCr + 2 * k)
                                                k += 8
                                            }
                                            while k < cw - 1 { pair(k); k += 1 }
                                        } else {
                                            for x in 0..<w {
                                                let (xa, xb, fx) = xtp[x]
                                                rowCb[x] = ((vcb[xa] &* (4 &- fx) &+ vcb[xb] &* fx &+ 8) &>> 4) &- 128
                                                rowCr[x] = ((vcr[xa] &* (4 &- fx) &+ vcr[xb] &* fx &+ 8) &>> 4) &- 128
                                            }
                                        }
                                        for x in 0..<w {
                                            let yy = (Int32(yRowPtr[x]) &- yo) &* ay &+ 32768
                                            let u = rowCb[x], v = rowCr[x]
                                            out[3 * x] = UInt8(
                                                truncatingIfNeeded: min(255, max(0, (yy &+ rcr &* v) &>> 16)))
                                            out[3 * x + 1] = UInt8(
                                                truncatingIfNeeded: min(
                                                    255, max(0, (yy &+ gcb &* u &+ gcr &* v) &>> 16)))
                                            out[3 * x + 2] = UInt8(
                                                truncatingIfNeeded: min(255, max(0, (yy &+ bcb &* u) &>> 16)))
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return try Image(width: w, height: h, bitDepth: 8, format: .rgb, planes: .u8([out]), colour: img.colour)
    }

    /// Converts RGB/RGBA/grey/YUV to planar YUV `format` at `bitDepth` using `colour` (alpha is dropped).
    public static func toYUV(
        _ img: Image, format: PixelFormat = .yuv420, bitDepth outDepth: Int = 8, colour: ColourSpace = .jpeg
    ) throws(ParseError) -> Image {
        guard format.isYUV else { throw ParseError(.invalidValue, "toYUV needs a YUV target format") }
        if img.format.isYUV && img.format == format && img.colour == colour {
            return try changeDepth(img, to: outDepth)
        }
        let rgb = try toRGB(img, bitDepth: img.bitDepth)
        let w = rgb.width, h = rgb.height, n = w * h
        let ch = rgb.format.interleavedChannels
        let src = intPlane(rgb, 0)
        let c = Coeffs(colour.matrix)
        let inMax = Double(rgb.maxValue)
        let scaleOut = Double(1 << (outDepth - 8))
        let outMax = Double((1 << outDepth) - 1)
        let yOff = colour.fullRange ? 0.0 : 16 * scaleOut
        let yRange = colour.fullRange ? outMax : 219 * scaleOut
        let cRange = colour.fullRange ? outMax : 224 * scaleOut
        let mid = Int64(1 << (outDepth - 1))
        let F = 65536.0
        let yr = Int64((c.kr * yRange / inMax * F).rounded()), yg = Int64((c.kg * yRange / inMax * F).rounded()),
            yb = Int64((c.kb * yRange / inMax * F).rounded())
        let cbr = Int64((-c.kr / (2 * (1 - c.kb)) * cRange / inMax * F).rounded())
        let cbg = Int64((-c.kg / (2 * (1 - c.kb)) * cRange / inMax * F).rounded())
        let cbb = Int64((0.5 * cRange / inMax * F).rounded())
        let crr = cbb
        let crg = Int64((-c.kg / (2 * (1 - c.kr)) * cRange / inMax * F).rounded())
        let crb = Int64((-c.kb / (2 * (1 - c.kr)) * cRange / inMax * F).rounded())
        let yo = Int64(yOff) << 16, om = Int64(outMax)
        var yP = [Int32](repeating: 0, count: n), uP = [Int32](repeating: 0, count: n),
            vP = [Int32](repeating: 0, count: n)
        src.withUnsafeBufferPointer { s in
            for i in 0..<n {
                let r = Int64(s[ch * i]), g = Int64(s[ch * i + 1]), b = Int64(s[ch * i + 2])
                yP[i] = Int32(min(om, max(0, (yo + yr * r + yg * g + yb * b + 32768) >> 16)))
                // Chroma kept at 16 fractional bits until subsampling.
                uP[i] = Int32(clamping: (cbr * r + cbg * g + cbb * b) >> 4)
                vP[i] = Int32(clamping: (crr * r + crg * g + crb * b) >> 4)
            }
        }
        let (sx, sy) = format.chromaShift
        let cw = (w + (1 << sx) - 1) >> sx, chh = (h + (1 << sy) - 1) >> sy
        func sub(_ p: [Int32]) -> [Int32] {
            var out = [Int32](repeating: 0, count: cw * chh)
            for cy in 0..<chh {
                for cx in 0..<cw {
                    var acc: Int64 = 0, cnt: Int64 = 0
                    for dy in 0..<(1 << sy) {
                        let yy = (cy << sy) + dy
                        if yy >= h { continue }
                        for dx in 0..<(1 << sx) {
                            let xx = (cx << sx) + dx
                            if xx >= w { continue }
                            acc += Int64(p[yy * w + xx]); cnt += 1
                        }
                    }
                    let v = (acc / max(cnt, 1) + (1 << 11)) >> 12
                    out[cy * cw + cx] = Int32(min(om, max(0, v + mid)))
                }
            }
            return out
        }
        let uS = sub(uP), vS = sub(vP)
        let planes: Planes
        if outDepth == 8 {
            planes = .u8([
                yP.map { UInt8(clamping: $0) }, uS.map { UInt8(clamping: $0) }, vS.map { UInt8(clamping: $0) },
            ])
        } else {
            planes = .u16([
                yP.map { UInt16(clamping: $0) }, uS.map { UInt16(clamping: $0) }, vS.map { UInt16(clamping: $0) },
            ])
        }
        return try Image(width: w, height: h, bitDepth: outDepth, format: format, planes: planes, colour: colour)
    }

    /// Changes the bit depth of every sample (rounding when reducing, bit replication when increasing).
    public static func changeDepth(_ img: Image, to depth: Int) throws(ParseError) -> Image {
        guard (8...16).contains(depth) else { throw ParseError(.invalidValue, "bit depth \(depth) is not supported") }
        if depth == img.bitDepth { return img }
        let from = img.bitDepth
        let planes: [[Int32]] = (0..<img.format.planeCount).map { intPlane(img, $0) }
        let outMax = Int32((1 << depth) - 1)
        func conv(_ v: Int32) -> Int32 {
            if depth < from {
                let s = Int32(from - depth)
                return min(outMax, (v + (1 << (s - 1))) >> s)
            }
            let s = Int32(depth - from)
            return (v << s) | (v >> max(0, Int32(from) - s))
        }
        let out: Planes
        if depth == 8 {
            out = .u8(planes.map { $0.map { UInt8(clamping: conv($0)) } })
        } else {
            out = .u16(planes.map { $0.map { UInt16(clamping: conv($0)) } })
        }
        return try Image(
            width: img.width, height: img.height, bitDepth: depth, format: img.format, planes: out, colour: img.colour)
    }

    /// Drops the alpha channel of an RGBA image (no compositing).
    public static func dropAlpha(_ img: Image) throws(ParseError) -> Image {
        guard img.format == .rgba else { return img }
        let n = img.width * img.height
        /// Red, green and blue of each pixel, its alpha left out.
        func opaque<T: FixedWidthInteger>(_ rgba: [T]) -> [T] {
            var o = [T](repeating: 0, count: n * 3)
            for i in 0..<n { o[3 * i] = rgba[4 * i]; o[3 * i + 1] = rgba[4 * i + 1]; o[3 * i + 2] = rgba[4 * i + 2] }
            return o
        }
        let planes: Planes
        switch img.planes {
        case .u8(let p): planes = .u8([opaque(p[0])])
        case .u16(let p): planes = .u16([opaque(p[0])])
        }
        return try Image(
            width: img.width, height: img.height, bitDepth: img.bitDepth, format: .rgb, planes: planes,
            colour: img.colour)
    }

    static func intPlane(_ img: Image, _ p: Int) -> [Int32] {
        switch img.planes {
        case .u8(let pl): return pl[p].map { Int32($0) }
        case .u16(let pl): return pl[p].map { Int32($0) }
        }
    }

    /// Bilinear, centre-sited upsampling of a chroma plane to w×h.
    static func upsample(_ c: [Int32], cw: Int, ch: Int, w: Int, h: Int, sx: Int, sy: Int) -> [Int32] {
        if sx == 0 && sy == 0 { return c }
        var out = [Int32](repeating: 0, count: w * h)
        // Horizontal weights: for full x, the chroma position is (x + 0.5) / 2^sx - 0.5.
        func taps(_ full: Int, _ shift: Int, _ count: Int) -> (Int, Int, Int32) {
            if shift == 0 { return (full, full, 0) }
            // in quarter units: pos4 = (2x + 1) * 2 / 2^shift... for shift 1: (2x+1)/4 - 0.5 = (2x - 1)/4
            let num = 2 * full - 1  // position × 4
            let base = num >= 0 ? num / 4 : -1
            let frac = Int32(num - base * 4)  // 0…3 quarters
            let a = min(max(base, 0), count - 1), b = min(max(base + 1, 0), count - 1)
            return (a, b, frac)
        }
        let xt = (0..<w).map { taps($0, sx, cw) }
        let yt = (0..<h).map { taps($0, sy, ch) }
        c.withUnsafeBufferPointer { src in
            xt.withUnsafeBufferPointer { xtp in
                out.withUnsafeMutableBufferPointer { o in
                    forEachRowBand(h, pixelsPerRow: w) { rows in
                        for y in rows {
                            let (ya, yb, fy) = yt[y]
                            let ra = ya * cw, rb = yb * cw
                            for x in 0..<w {
                                let (xa, xb, fx) = xtp[x]
                                let top = src[ra + xa] * (4 - fx) + src[ra + xb] * fx
                                let bot = src[rb + xa] * (4 - fx) + src[rb + xb] * fx
                                o[y * w + x] = (top * (4 - fy) + bot * fy + 8) >> 4
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}

// Eight-lane helpers of the fused 8-bit path (unaligned loads and stores of plain integer vectors).
@inline(__always) private func load8(_ p: UnsafePointer<UInt8>) -> SIMD8<Int32> {
    SIMD8<Int32>(truncatingIfNeeded: UnsafeRawPointer(p).loadUnaligned(as: SIMD8<UInt8>.self))
}
@inline(__always) private func store8(_ v: SIMD8<Int32>, _ p: UnsafeMutablePointer<Int32>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Int32>.self)
}
/// Interior 2× centre-sited upsampling of eight vertically weighted chroma samples at `v` (needs v[-1]
/// and v[8]) into sixteen full-resolution values centred on zero.
@inline(__always) private func upsample2x(_ v: UnsafeMutablePointer<Int32>, into out: UnsafeMutablePointer<Int32>) {
    let l = UnsafeRawPointer(v - 1).loadUnaligned(as: SIMD8<Int32>.self)
    let m = UnsafeRawPointer(v).loadUnaligned(as: SIMD8<Int32>.self)
    let r = UnsafeRawPointer(v + 1).loadUnaligned(as: SIMD8<Int32>.self)
    let m3 = m &* 3 &+ 8
    let even = ((m3 &+ l) &>> 4) &- 128, odd = ((m3 &+ r) &>> 4) &- 128
    let both = SIMD16<Int32>(
        even[0], odd[0], even[1], odd[1], even[2], odd[2], even[3], odd[3],
        even[4], odd[4], even[5], odd[5], even[6], odd[6], even[7], odd[7])
    UnsafeMutableRawPointer(out).storeBytes(of: both, as: SIMD16<Int32>.self)
}
