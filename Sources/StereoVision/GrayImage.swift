#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A single-channel image of `Float` samples (0…255 by convention), row-major, tightly packed.
public struct GrayImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [Float]

    /// Nil when the sizes are not positive or `pixels` does not hold `width × height` samples.
    public init?(width: Int, height: Int, pixels: [Float]) {
        guard width > 0, height > 0 else { return nil }
        let (n, o) = width.multipliedReportingOverflow(by: height)
        guard !o, pixels.count == n else { return nil }
        self.width = width; self.height = height; self.pixels = pixels
    }

    /// Builds from 8-bit samples.
    public init?(width: Int, height: Int, bytes: [UInt8]) {
        self.init(width: width, height: height, pixels: bytes.map { Float($0) })
    }

    /// Constant image.
    public init(width: Int, height: Int, value: Float) {
        self.width = max(1, width); self.height = max(1, height)
        pixels = [Float](repeating: value, count: self.width * self.height)
    }

    @inline(__always) public subscript(x: Int, y: Int) -> Float { pixels[y * width + x] }

    /// Bilinear sample with edge clamping.
    @inline(__always) public func sample(_ x: Float, _ y: Float) -> Float {
        let xc = min(max(x, 0), Float(width - 1)), yc = min(max(y, 0), Float(height - 1))
        let x0 = Int(xc), y0 = Int(yc)
        let x1 = min(x0 + 1, width - 1), y1 = min(y0 + 1, height - 1)
        let fx = xc - Float(x0), fy = yc - Float(y0)
        let a = pixels[y0 * width + x0], b = pixels[y0 * width + x1]
        let c = pixels[y1 * width + x0], d = pixels[y1 * width + x1]
        return (a * (1 - fx) + b * fx) * (1 - fy) + (c * (1 - fx) + d * fx) * fy
    }

    /// Halves both sides by averaging 2×2 blocks (odd trailing rows/columns are dropped).
    public func downsampled2x() -> GrayImage {
        let w = max(1, width / 2), h = max(1, height / 2)
        if width < 2 || height < 2 { return self }
        var out = [Float](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { p in
            out.withUnsafeMutableBufferPointer { o in
                for y in 0..<h {
                    let r0 = 2 * y * width, r1 = r0 + width
                    for x in 0..<w {
                        o[y * w + x] = 0.25 * (p[r0 + 2 * x] + p[r0 + 2 * x + 1] + p[r1 + 2 * x] + p[r1 + 2 * x + 1])
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out) ?? self
    }

    /// Separable box blur of radius `r` (window 2r+1), edges clamped.
    public func boxBlurred(radius r: Int) -> GrayImage {
        guard r > 0 else { return self }
        var tmp = [Float](repeating: 0, count: pixels.count)
        var out = tmp
        let norm = 1 / Float(2 * r + 1)
        let w = width, h = height
        pixels.withUnsafeBufferPointer { p in
            tmp.withUnsafeMutableBufferPointer { t in
                for y in 0..<h {
                    let row = y * w
                    var s: Float = 0
                    for k in -r...r { s += p[row + min(max(k, 0), w - 1)] }
                    for x in 0..<w {
                        t[row + x] = s * norm
                        s += p[row + min(x + r + 1, w - 1)] - p[row + max(x - r, 0)]
                    }
                }
            }
        }
        // Vertical pass in row order (one running sum per column): the same sums as column by column, read
        // sequentially instead of with a stride of one row.
        var sums = [Float](repeating: 0, count: w)
        tmp.withUnsafeBufferPointer { t in
            out.withUnsafeMutableBufferPointer { o in
                sums.withUnsafeMutableBufferPointer { s in
                    for k in -r...r {
                        let row = min(max(k, 0), h - 1) * w
                        for x in 0..<w { s[x] += t[row + x] }
                    }
                    for y in 0..<h {
                        let row = y * w, add = min(y + r + 1, h - 1) * w, sub = max(y - r, 0) * w
                        for x in 0..<w {
                            o[row + x] = s[x] * norm
                            s[x] += t[add + x] - t[sub + x]
                        }
                    }
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out) ?? self
    }

    /// Mean and standard deviation of the samples.
    public var meanAndDeviation: (mean: Double, deviation: Double) {
        var s = 0.0, s2 = 0.0
        for v in pixels { let d = Double(v); s += d; s2 += d * d }
        let n = Double(pixels.count)
        let m = s / n
        return (m, max(0, s2 / n - m * m).squareRoot())
    }

    /// A copy with pixel values mapped to 0…255 bytes (clamped), e.g. for thumbnails.
    public var bytes: [UInt8] { pixels.map { UInt8(min(max($0.rounded(), 0), 255)) } }

    /// Resized to `w × h` by area averaging (downscale) or bilinear sampling (upscale).
    public func resized(width w: Int, height h: Int) -> GrayImage {
        guard w > 0, h > 0, w != width || h != height else { return self }
        var out = [Float](repeating: 0, count: w * h)
        let sx = Float(width) / Float(w), sy = Float(height) / Float(h)
        if sx >= 1 && sy >= 1 {
            // Box filter: average every source pixel whose top-left corner falls in the destination cell.
            for y in 0..<h {
                let y0 = Int(Float(y) * sy), y1 = max(y0 + 1, min(height, Int(Float(y + 1) * sy)))
                for x in 0..<w {
                    let x0 = Int(Float(x) * sx), x1 = max(x0 + 1, min(width, Int(Float(x + 1) * sx)))
                    var s: Float = 0
                    for yy in y0..<y1 { for xx in x0..<x1 { s += pixels[yy * width + xx] } }
                    out[y * w + x] = s / Float((y1 - y0) * (x1 - x0))
                }
            }
        } else {
            for y in 0..<h {
                for x in 0..<w { out[y * w + x] = sample((Float(x) + 0.5) * sx - 0.5, (Float(y) + 0.5) * sy - 0.5) }
            }
        }
        return GrayImage(width: w, height: h, pixels: out) ?? self
    }
}

/// Small statistics helpers.
public enum Stats {
    /// The `p`-th percentile (0…100) by linear interpolation; nil for an empty array.
    public static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        let pos = min(max(p, 0), 100) / 100 * Double(s.count - 1)
        let i = Int(pos), f = pos - Double(i)
        if i + 1 >= s.count { return s[s.count - 1] }
        return s[i] * (1 - f) + s[i + 1] * f
    }
    /// The `p`th percentile moved inwards, when needed, so that at least `support` values lie at or beyond it: with
    /// few values (a small image, a weak eye) one stray match cannot become the far or near extreme.
    public static func supportedPercentile(_ values: [Double], _ p: Double, support: Int) -> Double? {
        guard let v = percentile(values, p) else { return nil }
        let s = values.sorted(), k = min(max(1, support), s.count)
        return p < 50 ? max(v, s[k - 1]) : min(v, s[s.count - k])
    }
    public static func median(_ v: [Double]) -> Double? { percentile(v, 50) }
    public static func mean(_ v: [Double]) -> Double? { v.isEmpty ? nil : v.reduce(0, +) / Double(v.count) }
}
