#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The vertical-disparity field of a stereo pair, fitted to matched points:
/// `dy(x, y) = a + b·u + c·v + d·u·v + e·v²` with `u = (x − cx)/n`, `v = (y − cy)/n`, `n` = half the longer side.
///
/// For a right camera rotated by small angles (pitch ωx, toe-in ωy, roll ωz) and a focal ratio 1 + s relative to
/// the left one (focal length f in pixels), first-order projection gives
/// `dy ≈ ωz·x + s·y − ωx·f − ωx·y²/f + ωy·x·y/f` (x, y relative to the principal point). So `b` is roll, `c` is a
/// vertical scale difference, `d` is keystone (toe-in), `e` the quadratic pitch term and `a` a vertical offset
/// (pitch, vertical baseline, principal-point shift).
public struct VerticalDisparityModel: Sendable, Equatable {
    public var a = 0.0, b = 0.0, c = 0.0, d = 0.0, e = 0.0
    public var cx: Double, cy: Double, n: Double
    public init(cx: Double, cy: Double, n: Double) { self.cx = cx; self.cy = cy; self.n = max(n, 1) }

    @inline(__always) func basis(_ x: Double, _ y: Double) -> (Double, Double, Double, Double, Double) {
        let u = (x - cx) / n, v = (y - cy) / n
        return (1, u, v, u * v, v * v)
    }
    public func predict(x: Double, y: Double) -> Double {
        let f = basis(x, y)
        return a + b * f.1 + c * f.2 + d * f.3 + e * f.4
    }

    /// Roll of the right view relative to the left, degrees (positive: right image turned clockwise on screen).
    public var rollDegrees: Double { atan(b / n) * 180 / Double.pi }
    /// Vertical scale of the right view relative to the left, minus 1 (0.01 = 1 % larger).
    public var verticalScale: Double { c / n }
    /// Keystone term in pixels at the image corners (x = ±W/2, y = ±H/2).
    public func keystoneCornerPixels(width: Int, height: Int) -> Double {
        d * (Double(width) / 2) * (Double(height) / 2) / (n * n)
    }
    /// Toe-in (yaw) angle implied by the keystone term, degrees, for a focal length in pixels.
    public func toeInDegrees(focalPixels f: Double) -> Double { atan(d * f / (n * n)) * 180 / Double.pi }
    /// Quadratic (pitch) term in pixels at the top/bottom edge.
    public func pitchEdgePixels(height: Int) -> Double { e * (Double(height) / 2) * (Double(height) / 2) / (n * n) }
}

enum LinearSolve {
    /// Solves A·x = b (A is k×k, row-major) by Gaussian elimination with partial pivoting; nil when singular.
    static func solve(_ A: [Double], _ b: [Double], _ k: Int) -> [Double]? {
        var m = A, r = b
        var scale = 0.0
        for v in A { scale = max(scale, abs(v)) }
        guard scale > 0 else { return nil }
        for col in 0..<k {
            var piv = col
            for row in (col + 1)..<k where abs(m[row * k + col]) > abs(m[piv * k + col]) { piv = row }
            if abs(m[piv * k + col]) < 1e-12 * scale { return nil }
            if piv != col {
                for j in 0..<k { m.swapAt(col * k + j, piv * k + j) }
                r.swapAt(col, piv)
            }
            let p = m[col * k + col]
            for row in (col + 1)..<k {
                let f = m[row * k + col] / p
                if f == 0 { continue }
                for j in col..<k { m[row * k + j] -= f * m[col * k + j] }
                r[row] -= f * r[col]
            }
        }
        var x = [Double](repeating: 0, count: k)
        for row in stride(from: k - 1, through: 0, by: -1) {
            var s = r[row]
            for j in (row + 1)..<k { s -= m[row * k + j] * x[j] }
            x[row] = s / m[row * k + row]
        }
        return x.allSatisfy { $0.isFinite } ? x : nil
    }
}

/// Robust fitting of ``VerticalDisparityModel`` (RANSAC, Fischler & Bolles 1981, then least squares on the inliers).
enum DisparityFit {
    /// Least-squares fit with the first `terms` basis functions (1, 3 or 5).
    static func leastSquares(
        _ pts: [(x: Double, y: Double, dy: Double)], model base: VerticalDisparityModel, terms: Int
    ) -> VerticalDisparityModel? {
        let k = terms
        guard pts.count >= k else { return nil }
        var A = [Double](repeating: 0, count: k * k), B = [Double](repeating: 0, count: k)
        for p in pts {
            let f = base.basis(p.x, p.y)
            let row = [f.0, f.1, f.2, f.3, f.4]
            for i in 0..<k {
                B[i] += row[i] * p.dy
                for j in 0..<k { A[i * k + j] += row[i] * row[j] }
            }
        }
        // A tiny ridge keeps badly spread point sets from exploding the higher-order terms.
        for i in 1..<k { A[i * k + i] += 1e-6 * Double(pts.count) }
        guard let s = LinearSolve.solve(A, B, k) else { return nil }
        var m = base
        m.a = s[0]; m.b = k > 1 ? s[1] : 0; m.c = k > 2 ? s[2] : 0; m.d = k > 3 ? s[3] : 0; m.e = k > 4 ? s[4] : 0
        return m
    }

    /// How many model terms the spread of the points supports.
    static func supportedTerms(_ pts: [(x: Double, y: Double, dy: Double)], base: VerticalDisparityModel) -> Int {
        if pts.count < 6 { return 1 }
        var su = 0.0, sv = 0.0, su2 = 0.0, sv2 = 0.0
        for p in pts { let f = base.basis(p.x, p.y); su += f.1; sv += f.2; su2 += f.1 * f.1; sv2 += f.2 * f.2 }
        let n = Double(pts.count)
        let du = (max(0, su2 / n - (su / n) * (su / n))).squareRoot(),
            dv = (max(0, sv2 / n - (sv / n) * (sv / n))).squareRoot()
        if du < 0.08 || dv < 0.08 { return 1 }
        if pts.count < 20 || du < 0.2 || dv < 0.2 { return 3 }
        return 5
    }

    /// RANSAC over 5-point (or 3-point) samples; returns the model and the inlier mask.
    static func ransac(
        _ pts: [(x: Double, y: Double, dy: Double)], base: VerticalDisparityModel, threshold: Double,
        iterations: Int = 400
    ) -> (VerticalDisparityModel, [Bool])? {
        guard !pts.isEmpty else { return nil }
        let terms = supportedTerms(pts, base: base)
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func rnd(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var best: VerticalDisparityModel? = nil, bestCount = -1, bestCost = Double.infinity
        let sampleSize = terms
        for _ in 0..<(pts.count <= sampleSize ? 1 : iterations) {
            var idx: [Int] = []
            var guardCount = 0
            while idx.count < sampleSize && guardCount < 100 {
                let i = rnd(pts.count); guardCount += 1
                if !idx.contains(i) { idx.append(i) }
            }
            guard let m = leastSquares(idx.map { pts[$0] }, model: base, terms: terms) else { continue }
            var count = 0, cost = 0.0
            for p in pts {
                let r = abs(p.dy - m.predict(x: p.x, y: p.y))
                if r < threshold { count += 1; cost += r } else { cost += threshold }
            }
            if count > bestCount || (count == bestCount && cost < bestCost) {
                best = m; bestCount = count; bestCost = cost
            }
        }
        guard var model = best else { return nil }
        var mask = pts.map { abs($0.dy - model.predict(x: $0.x, y: $0.y)) < threshold }
        // Refine: least squares on the inliers, then re-select with a threshold from the residual spread.
        for _ in 0..<3 {
            let inl = zip(pts, mask).filter { $0.1 }.map { $0.0 }
            let t = supportedTerms(inl, base: base)
            guard let m = leastSquares(inl, model: base, terms: t) else { break }
            model = m
            let res = inl.map { abs($0.dy - m.predict(x: $0.x, y: $0.y)) }
            let mad = Stats.median(res) ?? threshold
            let th = min(threshold, max(3.5 * 1.4826 * mad, threshold * 0.35))
            mask = pts.map { abs($0.dy - m.predict(x: $0.x, y: $0.y)) < th }
        }
        return (model, mask)
    }
}
