/// One left↔right correspondence in full-resolution pixels.
public struct StereoMatch: Sendable, Equatable {
    public var xl: Double, yl: Double, xr: Double, yr: Double
    /// Normalised cross-correlation of the refined match (−1…1).
    public var ncc: Double
    /// Horizontal disparity `xl − xr` (positive = nearer than infinity for a parallel rig).
    public var disparity: Double { xl - xr }
    /// Vertical disparity `yr − yl`.
    public var dy: Double { yr - yl }
    public init(xl: Double, yl: Double, xr: Double, yr: Double, ncc: Double) {
        self.xl = xl; self.yl = yl; self.xr = xr; self.yr = yr; self.ncc = ncc
    }
}

enum Matcher {
    /// Descriptor matching with a band constraint (|Δy| ≤ maxDy, |Δx| ≤ maxDx), Lowe's ratio test and a mutual
    /// (left→right and right→left best) check. Returns (left index, right index) pairs.
    static func match(_ L: [Keypoint], _ R: [Keypoint], maxDy: Float, maxDx: Float, ratio: Float) -> [(Int, Int)] {
        guard !L.isEmpty, !R.isEmpty else { return [] }
        let rOrder = R.indices.sorted { R[$0].y < R[$1].y }
        let rYs = rOrder.map { R[$0].y }
        let lOrder = L.indices.sorted { L[$0].y < L[$1].y }
        let lYs = lOrder.map { L[$0].y }
        func lowerBound(_ a: [Float], _ v: Float) -> Int {
            var lo = 0, hi = a.count
            while lo < hi { let mid = (lo + hi) / 2; if a[mid] < v { lo = mid + 1 } else { hi = mid } }
            return lo
        }
        // best[i] = (index, distance, second distance) for queries in `Q` against `T` sorted by y.
        func bestMatches(_ Q: [Keypoint], _ T: [Keypoint], _ order: [Int], _ ys: [Float]) -> [(Int, Int, Int)] {
            let chunks = workerCount
            let parts = parallelMap(chunks) { c -> [(Int, Int, Int)] in
                let lo = Q.count * c / chunks, hi = Q.count * (c + 1) / chunks
                var out: [(Int, Int, Int)] = []
                out.reserveCapacity(hi - lo)
                for qi in lo..<hi {
                    let q = Q[qi]
                    var b1 = Int.max, b2 = Int.max, bi = -1
                    var k = lowerBound(ys, q.y - maxDy)
                    while k < ys.count && ys[k] <= q.y + maxDy {
                        let t = T[order[k]]
                        if abs(t.x - q.x) <= maxDx {
                            let d = FeatureDetector.hamming(q, t)
                            if d < b1 { b2 = b1; b1 = d; bi = order[k] } else if d < b2 { b2 = d }
                        }
                        k += 1
                    }
                    out.append((bi, b1, b2))
                }
                return out
            }
            return parts.flatMap { $0 }
        }
        let lr = bestMatches(L, R, rOrder, rYs)
        let rl = bestMatches(R, L, lOrder, lYs)
        var pairs: [(Int, Int)] = []
        for (i, m) in lr.enumerated() where m.0 >= 0 {
            // Ratio test on Hamming distances; an absolute cap rejects matches no better than chance (128 of 256).
            guard m.1 <= 80 else { continue }
            if m.2 != Int.max && Float(m.1) > ratio * Float(m.2) { continue }
            guard rl[m.0].0 == i else { continue }
            pairs.append((i, m.0))
        }
        return pairs
    }

    /// Sub-pixel refinement by normalised cross-correlation of a (2r+1)² patch around the integer left position,
    /// searched over ±`search` pixels around the predicted right position, with a parabola fitted to the NCC peak
    /// in x and in y separately. Nil when the peak is weak (< `minNCC`), on the search border, or out of bounds.
    static func refine(
        left: GrayImage, right: GrayImage, xl: Int, yl: Int, xr0: Int, yr0: Int, radius r: Int, search s: Int,
        minNCC: Double
    ) -> StereoMatch? {
        let w = left.width, h = left.height
        guard xl - r >= 0, yl - r >= 0, xl + r < w, yl + r < h else { return nil }
        guard xr0 - s - r - 1 >= 0, yr0 - s - r - 1 >= 0, xr0 + s + r + 1 < right.width, yr0 + s + r + 1 < right.height
        else { return nil }
        let side = 2 * r + 1, n = Double(side * side)
        var patch = [Double](repeating: 0, count: side * side)
        var sum = 0.0, sum2 = 0.0
        for j in 0..<side {
            for i in 0..<side {
                let v = Double(left.pixels[(yl - r + j) * w + xl - r + i]); patch[j * side + i] = v; sum += v;
                sum2 += v * v
            }
        }
        let mean = sum / n
        let varL = sum2 - n * mean * mean
        guard varL > n * 4 else { return nil }  // patch std below 2 grey levels: not measurable
        for k in 0..<patch.count { patch[k] -= mean }
        let span = 2 * s + 3  // one extra ring for the parabola at the border of the search
        var scores = [Double](repeating: -2, count: span * span)
        let rw = right.width
        right.pixels.withUnsafeBufferPointer { rp in
            for oy in 0..<span {
                for ox in 0..<span {
                    let cx = xr0 - s - 1 + ox, cy = yr0 - s - 1 + oy
                    var sr = 0.0, sr2 = 0.0, cross = 0.0
                    for j in 0..<side {
                        let row = (cy - r + j) * rw + cx - r
                        for i in 0..<side {
                            let v = Double(rp[row + i]); sr += v; sr2 += v * v; cross += patch[j * side + i] * v
                        }
                    }
                    let varR = sr2 - sr * sr / n
                    if varR > 1e-9 { scores[oy * span + ox] = cross / (varL * varR).squareRoot() }
                }
            }
        }
        var bi = 0
        for k in 1..<scores.count where scores[k] > scores[bi] { bi = k }
        let bx = bi % span, by = bi / span
        guard bx >= 1, by >= 1, bx <= span - 2, by <= span - 2, scores[bi] >= minNCC else { return nil }
        func peak(_ m: Double, _ c: Double, _ p: Double) -> Double {
            let den = m - 2 * c + p
            guard den < -1e-12 else { return 0 }
            return min(0.5, max(-0.5, 0.5 * (m - p) / den))
        }
        let fx = peak(scores[bi - 1], scores[bi], scores[bi + 1])
        let fy = peak(scores[bi - span], scores[bi], scores[bi + span])
        let xr = Double(xr0 - s - 1 + bx) + fx, yr = Double(yr0 - s - 1 + by) + fy
        return StereoMatch(xl: Double(xl), yl: Double(yl), xr: xr, yr: yr, ncc: scores[bi])
    }
}
