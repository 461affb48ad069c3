/// A detected corner with its binary descriptor.
public struct Keypoint: Sendable {
    public var x: Float
    public var y: Float
    public var response: Float
    /// 256-bit BRIEF-style descriptor.
    public var d0: UInt64, d1: UInt64, d2: UInt64, d3: UInt64
}

/// Corner detection (Shi–Tomasi minimum eigenvalue of the structure tensor, one best corner per grid cell)
/// and a 256-bit binary descriptor made of intensity comparisons on a smoothed image (BRIEF, Calonder et al. 2010).
public enum FeatureDetector {
    /// Half-size of the descriptor patch; keypoints stay this far from the border.
    public static let patchRadius = 15

    /// The comparison pairs, drawn once from a fixed-seed Gaussian (σ = patch/5), clipped to the patch.
    static let pairs: [(Int8, Int8, Int8, Int8)] = {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func uniform() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return (Double(state >> 11) + 0.5) / Double(1 << 53)
        }
        func gauss() -> Double {
            // Irwin–Hall approximation (sum of 12 uniforms − 6): no libm needed.
            var s = 0.0
            for _ in 0..<12 { s += uniform() }
            return s - 6
        }
        let sigma = Double(2 * patchRadius + 1) / 5
        func coord() -> Int8 { Int8(max(-Double(patchRadius), min(Double(patchRadius), (gauss() * sigma).rounded()))) }
        var out: [(Int8, Int8, Int8, Int8)] = []
        while out.count < 256 {
            let p = (coord(), coord(), coord(), coord())
            if p.0 == p.2 && p.1 == p.3 { continue }
            out.append(p)
        }
        return out
    }()

    /// Minimum-eigenvalue corner response (structure tensor summed over a 5×5 window).
    public static func cornerResponse(_ img: GrayImage) -> [Float] {
        let w = img.width, h = img.height
        var ixx = [Float](repeating: 0, count: w * h), iyy = ixx, ixy = ixx
        img.pixels.withUnsafeBufferPointer { p in
            for y in 1..<max(1, h - 1) {
                for x in 1..<max(1, w - 1) {
                    let i = y * w + x
                    let gx = 0.5 * (p[i + 1] - p[i - 1]), gy = 0.5 * (p[i + w] - p[i - w])
                    ixx[i] = gx * gx; iyy[i] = gy * gy; ixy[i] = gx * gy
                }
            }
        }
        let a = GrayImage(width: w, height: h, pixels: ixx)?.boxBlurred(radius: 2).pixels ?? ixx
        let b = GrayImage(width: w, height: h, pixels: iyy)?.boxBlurred(radius: 2).pixels ?? iyy
        let c = GrayImage(width: w, height: h, pixels: ixy)?.boxBlurred(radius: 2).pixels ?? ixy
        var r = [Float](repeating: 0, count: w * h)
        for i in 0..<(w * h) {
            let tr = a[i] + b[i], det = a[i] * b[i] - c[i] * c[i]
            let disc = max(0, tr * tr / 4 - det)
            r[i] = tr / 2 - disc.squareRoot()
        }
        return r
    }

    /// Detects up to about `maxFeatures` corners spread over the image: the strongest local maximum in each
    /// cell of a grid, kept when it exceeds `relativeThreshold` × the 90th-percentile cell maximum and an
    /// absolute floor (flat images give none).
    public static func detect(_ img: GrayImage, maxFeatures: Int = 2000, relativeThreshold: Float = 0.02) -> [Keypoint]
    {
        let w = img.width, h = img.height, m = patchRadius + 2
        guard w > 2 * m + 4, h > 2 * m + 4 else { return [] }
        let resp = cornerResponse(img)
        let area = Double((w - 2 * m) * (h - 2 * m))
        let cell = max(6, Int((area / Double(max(1, maxFeatures))).squareRoot()))
        var cand: [(Int, Int, Float)] = []
        var y0 = m
        while y0 < h - m {
            var x0 = m
            while x0 < w - m {
                var best: Float = 0, bx = -1, by = -1
                for y in y0..<min(y0 + cell, h - m) {
                    for x in x0..<min(x0 + cell, w - m) {
                        let v = resp[y * w + x]
                        if v > best && v >= resp[y * w + x - 1] && v >= resp[y * w + x + 1]
                            && v >= resp[(y - 1) * w + x] && v >= resp[(y + 1) * w + x]
                        {
                            best = v; bx = x; by = y
                        }
                    }
                }
                if bx >= 0 { cand.append((bx, by, best)) }
                x0 += cell
            }
            y0 += cell
        }
        guard !cand.isEmpty else { return [] }
        let sorted = cand.map { $0.2 }.sorted()
        let p90 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.9))]
        // Absolute floor: a gradient of ~2 grey levels per pixel over the window (noise-free flat areas give 0).
        let floor = max(p90 * relativeThreshold, 1.0)
        let smooth = img.boxBlurred(radius: 2)
        var out: [Keypoint] = []
        out.reserveCapacity(cand.count)
        for (x, y, r) in cand where r >= floor {
            let d = describe(smooth, x, y)
            out.append(Keypoint(x: Float(x), y: Float(y), response: r, d0: d.0, d1: d.1, d2: d.2, d3: d.3))
        }
        return out
    }

    static func describe(_ s: GrayImage, _ x: Int, _ y: Int) -> (UInt64, UInt64, UInt64, UInt64) {
        var d: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let w = s.width
        s.pixels.withUnsafeBufferPointer { p in
            for (k, q) in pairs.enumerated() {
                let a = p[(y + Int(q.1)) * w + x + Int(q.0)], b = p[(y + Int(q.3)) * w + x + Int(q.2)]
                if a < b {
                    let bit = UInt64(1) << UInt64(k & 63)
                    switch k >> 6 {
                    case 0: d.0 |= bit;
                    case 1: d.1 |= bit;
                    case 2: d.2 |= bit;
                    default: d.3 |= bit
                    }
                }
            }
        }
        return d
    }

    @inline(__always) static func hamming(_ a: Keypoint, _ b: Keypoint) -> Int {
        (a.d0 ^ b.d0).nonzeroBitCount + (a.d1 ^ b.d1).nonzeroBitCount + (a.d2 ^ b.d2).nonzeroBitCount
            + (a.d3 ^ b.d3).nonzeroBitCount
    }
}
