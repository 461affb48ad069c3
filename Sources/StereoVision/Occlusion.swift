#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which eye sees more beside depth steps: evidence about the eye order that does not depend on the sign of
/// disparity.
///
/// Beside a near object each eye sees a strip of the background that the other eye cannot see (a half-occlusion):
/// the left eye on the object's left side, the right eye on its right side. In the picture labelled "left", such
/// a strip always has the larger disparity (x_left − x_right) on its right — whatever the eye order — so the
/// geometry alone cannot tell the order. What differs is the content of the strip: it belongs to the hidden,
/// farther surface. With the eyes in the right order the strip continues the surface on its left and the object
/// boundary (a change of texture) is at its right end; with the eyes swapped the strip continues the surface on its
/// right and the boundary is at its left end, while disparity says that surface is the nearer one — a contradiction
/// only a swapped pair produces. The test counts, over all strips found by a left–right consistency check, at
/// which end the texture changes.
public struct OcclusionEvidence: Sendable, Equatable {
    /// Half-occluded strips examined (width ≥ 3 working pixels beside a disparity step ≥ 2).
    public var strips: Int
    /// Strips whose boundary is at the right end (consistent with the eyes as labelled).
    public var consistent: Int
    /// Strips whose boundary is at the left end (consistent with swapped eyes).
    public var swapped: Int

    /// Evidence from `strips` examined strips, `consistent` of them pointing to the eyes as labelled and `swapped` to
    /// swapped eyes (the depth, noise and signal figures start at 0).
    public init(strips: Int, consistent: Int, swapped: Int) {
        self.strips = strips; self.consistent = consistent; self.swapped = swapped
    }

    public enum Verdict: String, Sendable {
        case asLabelled = "as labelled"
        case swapped, inconclusive
    }
    /// Needs at least 20 decided strips and a 70 % majority.
    public var verdict: Verdict {
        let decided = consistent + swapped
        guard decided >= 20 else { return .inconclusive }
        let f = Double(swapped) / Double(decided)
        return f >= 0.7 ? .swapped : f <= 0.3 ? .asLabelled : .inconclusive
    }
    /// The depth of the scene: the disparity range of the matches (2nd to 98th percentile), in the test's working
    /// pixels (the eyes reduced to at most 480 px wide).
    public var disparitySpan = 0.0
    /// Input pixels per working pixel of the test.
    public var workingScale = 1.0
    /// Coding noise: median matching cost (mean absolute difference over 5×5 pixels, on eyes normalised to a luma
    /// deviation of 50) where the eyes agree.
    public var noise = 0.0
    /// The occlusion signal: median difference of the texture change at the two ends of the decided strips (same
    /// scale).
    public var signal = 0.0

    /// A half-occlusion strip needs a depth step of at least 2 working pixels, and the consistency check that finds
    /// the strips tolerates 1 pixel: in a scene whose whole disparity range is below this many working pixels the
    /// steps are not above the search's own noise, and the strips found there decide nothing.
    public static let minSpanWorkingPixels = 8.0
    /// The texture change that decides a strip must stand this many times above the coding noise.
    public static let minSignalToNoise = 1.5

    /// Why the evidence is too weak for an eye-order verdict (nil when it is not): a disparity range of a few pixels,
    /// or coding noise comparable to the occlusion signal.
    public var weakness: String? {
        func n(_ v: Double, _ p: Int = 1) -> String { let k = pow(10, Double(p)); return "\(((v * k).rounded() / k))" }
        if disparitySpan < Self.minSpanWorkingPixels {
            let scaled =
                workingScale == 1
                ? ""
                : " of the eyes, \(n(disparitySpan)) px at the test's 1/\(Int(workingScale.rounded())) scale"
            return
                "the disparity spans only \(n(disparitySpan * workingScale)) px\(scaled) (2nd … 98th percentile; below "
                + "\(n(Self.minSpanWorkingPixels, 0)) px): too flat for half-occlusions or the sign of the disparity to tell "
                + "the eye order"
        }
        if consistent + swapped > 0, signal < Self.minSignalToNoise * noise {
            return "coding noise (matching residual \(n(noise)) grey levels) is comparable to the occlusion signal "
                + "(\(n(signal)) grey levels, " + "needed \(n(Self.minSignalToNoise))× the noise)"
        }
        return nil
    }

    /// Share of decided strips that point to swapped eyes (0…1).
    public var swappedFraction: Double { Double(swapped) / Double(max(1, consistent + swapped)) }
}

enum OcclusionTest {
    /// `left` and `right` must be rectified (same rows) and of equal size; disparities in their pixels.
    static func evaluate(left: GrayImage, right: GrayImage, disparityMin: Double, disparityMax: Double)
        -> OcclusionEvidence
    {
        var L = left, R = right, s = 1.0
        while L.width > 480 { L = L.downsampled2x(); R = R.downsampled2x(); s *= 2 }
        // Brightness and contrast differences between the eyes must not decide the matching.
        func normalised(_ g: GrayImage) -> GrayImage {
            let (m, d) = g.meanAndDeviation
            let k = Float(50 / max(d, 1))
            return GrayImage(width: g.width, height: g.height, pixels: g.pixels.map { 128 + ($0 - Float(m)) * k }) ?? g
        }
        L = normalised(L); R = normalised(R)
        let w = L.width, h = L.height
        guard w > 40, h > 20, R.width == w, R.height == h else {
            return OcclusionEvidence(strips: 0, consistent: 0, swapped: 0)
        }
        var dLo = Int((disparityMin / s).rounded(.down)) - 3, dHi = Int((disparityMax / s).rounded(.up)) + 3
        if dHi - dLo > 96 { let mid = (dHi + dLo) / 2; dLo = mid - 48; dHi = mid + 48 }
        let big: Float = 1e9
        var bestL = [Float](repeating: big, count: w * h), dispL = [Int](repeating: Int.min, count: w * h)
        var bestR = [Float](repeating: big, count: w * h), dispR = [Int](repeating: Int.min, count: w * h)
        for d in dLo...dHi {
            var diff = [Float](repeating: 255, count: w * h)
            for y in 0..<h {
                for x in 0..<w where x - d >= 0 && x - d < w {
                    diff[y * w + x] = abs(L.pixels[y * w + x] - R.pixels[y * w + x - d])
                }
            }
            guard let c = GrayImage(width: w, height: h, pixels: diff)?.boxBlurred(radius: 2) else { continue }
            for y in 0..<h {
                for x in 0..<w where x - d >= 2 && x - d < w - 2 {
                    let v = c.pixels[y * w + x]
                    if v < bestL[y * w + x] { bestL[y * w + x] = v; dispL[y * w + x] = d }
                    let xr = x - d
                    if v < bestR[y * w + xr] { bestR[y * w + xr] = v; dispR[y * w + xr] = d }
                }
            }
        }
        var ev = OcclusionEvidence(strips: 0, consistent: 0, swapped: 0)
        ev.disparitySpan = max(0, disparityMax - disparityMin) / s
        ev.workingScale = s
        var costs: [Float] = [], contrasts: [Float] = []
        var valid = [Bool](repeating: false, count: w)
        for y in 3..<(h - 3) {
            for x in 0..<w {
                let d = dispL[y * w + x]
                valid[x] =
                    d != Int.min && x - d >= 0 && x - d < w && abs(dispR[y * w + x - d] - d) <= 1
                    && bestL[y * w + x] < 40
                if valid[x] && (x + y) % 7 == 0 { costs.append(bestL[y * w + x]) }
            }
            var x = 4
            while x < w - 4 {
                guard !valid[x] && valid[x - 1] else { x += 1; continue }
                var e = x
                while e < w - 4 && !valid[e] { e += 1 }
                defer { x = e + 1 }
                guard e < w - 4, valid[e], valid[e + 1], valid[e + 2], valid[x - 2], valid[x - 3] else { continue }
                let width = e - x
                let a = [dispL[y * w + x - 1], dispL[y * w + x - 2], dispL[y * w + x - 3]].sorted()[1]
                let b = [dispL[y * w + e], dispL[y * w + e + 1], dispL[y * w + e + 2]].sorted()[1]
                let step = b - a
                guard width >= 3, step >= 2, abs(width - step) <= max(2, step / 2) else { continue }
                ev.strips += 1
                func g(_ i: Int) -> Float { abs(L.pixels[y * w + i] - L.pixels[y * w + i - 1]) }
                let atStart = max(g(x - 1), g(x), g(x + 1)), atEnd = max(g(e - 1), g(e), g(e + 1))
                if atEnd > 1.2 * atStart + 1 {
                    ev.consistent += 1
                } else if atStart > 1.2 * atEnd + 1 {
                    ev.swapped += 1
                } else {
                    continue
                }
                contrasts.append(abs(atEnd - atStart))
            }
        }
        ev.noise = Double(median(costs))
        ev.signal = Double(median(contrasts))
        return ev
    }

    static func median(_ v: [Float]) -> Float {
        guard !v.isEmpty else { return 0 }
        let s = v.sorted()
        return s[s.count / 2]
    }

    /// Mean gradient magnitude over the luma deviation: a contrast-independent sharpness figure.
    static func sharpness(_ img: GrayImage) -> Double {
        let w = img.width, h = img.height
        guard w > 2, h > 2 else { return 0 }
        var s = 0.0
        img.pixels.withUnsafeBufferPointer { p in
            for y in 0..<(h - 1) {
                for x in 0..<(w - 1) {
                    let i = y * w + x
                    s += Double(abs(p[i + 1] - p[i]) + abs(p[i + w] - p[i]))
                }
            }
        }
        let dev = max(1, img.meanAndDeviation.deviation)
        return s / Double((w - 1) * (h - 1)) / dev
    }
}
