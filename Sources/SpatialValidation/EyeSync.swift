import MediaDecode
import StereoVision
import SystemSupport

/// Time offset between the eyes of a video (SV-GEOM-019), measured on short runs of consecutive frames.
///
/// Each eye's frames are reduced to about ``EyeSync/width`` pixels wide and cut into a grid of blocks; a block's motion
/// at a frame step is the mean absolute luma change between the two frames (insensitive to the eyes' colour balance).
/// Each block signal has its mean over the run removed (what is left is *when* things move), and the normalised
/// cross-correlation of all blocks together is computed for lags −``EyeSync/maxLag``…+``EyeSync/maxLag``, each with the
/// one horizontal shift of the right eye's block grid (a disparity, constant over the run) that explains it best. In
/// steady horizontal motion a delay and a shift look the same; ``steadiness`` detects that case, which is not judged.
public struct EyeSyncMeasurement: Sendable, Equatable {
    /// Frames by which the right eye is late: the right eye shows at frame t + lag what the left shows at frame t
    /// (negative: the right eye is ahead).
    public var lag: Int
    /// Normalised cross-correlation at ``lag`` and at zero lag (−1…1).
    public var correlation: Double
    public var correlationAtZero: Double
    /// Typical change of a block's motion over the run (grey levels, 0…255): how much there was to measure.
    public var motion: Double
    /// Frame steps compared (over all runs).
    public var steps: Int
    /// The best lag is clearly better than the others: the correlation is at least ``EyeSync/minCorrelation``, and
    /// there is enough motion.
    public var reliable: Bool
    /// The second-best lag and its correlation: when it explains the motion about as well as ``lag`` (a residual
    /// 1 − correlation less than ``EyeSync/minResidualRatio`` times larger), the clip cannot tell them apart.
    public var runnerUpLag: Int = 0
    public var runnerUpCorrelation: Double = 0
    /// Horizontal shift of the right eye's block grid (pixels at ``EyeSync/width``) that best matched at ``lag``.
    public var shift: Int = 0
    /// How well one eye's motion one frame later is explained by a horizontal shift of that same eye's motion
    /// (normalised correlation): near 1 in steady horizontal motion, where a time offset cannot be told from disparity.
    public var steadiness: Double = 0
    /// Another lag explains the eyes' motion about as well as the best one (a steady pan: a time offset and a
    /// horizontal shift look the same).
    public var ambiguous: Bool {
        (1 - runnerUpCorrelation) < EyeSync.minResidualRatio * (1 - correlation)
    }
    /// Reliable, non-zero, better than zero lag by at least ``EyeSync/minMargin``, and leaving at most
    /// 1 / ``EyeSync/minResidualRatio`` of the residual (1 − correlation) that zero lag leaves.
    public var outOfSync: Bool {
        reliable && lag != 0 && !ambiguous && steadiness < EyeSync.maxSteadiness
            && correlation - correlationAtZero >= EyeSync.minMargin
            && (1 - correlationAtZero) >= EyeSync.minResidualRatio * (1 - correlation)
    }
}

public enum EyeSync {
    /// Consecutive frames of both eyes (same count).
    public typealias Run = (left: [GrayImage], right: [GrayImage])
    /// Width the frames are reduced to before measuring.
    public static let width = 160
    /// Consecutive frames decoded per run.
    public static let runLength = 12
    /// Largest offset searched, in frames.
    public static let maxLag = 3
    /// Below this motion (grey levels) the scene is static: nothing to measure.
    public static let minMotion = 0.35
    /// The best lag must correlate at least this well…
    public static let minCorrelation = 0.5
    /// …and beat zero lag by this much before a time offset is reported…
    public static let minMargin = 0.1
    /// …and explain the motion this much better than zero lag does (ratio of the residuals 1 − correlation).
    public static let minResidualRatio = 1.5
    static let grid = (x: 8, y: 6)
    /// Largest horizontal shift of the right eye's block grid searched (pixels at ``width``: 5 % of the width).
    static let maxShift = 4
    /// At or above this ``EyeSyncMeasurement/steadiness`` the motion is a steady translation and no lag is judged.
    public static let maxSteadiness = 0.8

    /// Block motion signals of one eye's run for each horizontal shift of the block grid in `shifts`:
    /// `[shift][block][step]`. Nil when fewer than 2 frames or mixed sizes.
    static func blockMotion(_ frames: [GrayImage], shifts: [Int] = [0]) -> [[[Double]]]? {
        guard frames.count >= 2 else { return nil }
        let small = frames.map { reduce($0) }
        let w = small[0].width, h = small[0].height
        guard small.allSatisfy({ $0.width == w && $0.height == h }), w >= grid.x, h >= grid.y else { return nil }
        var out = [[[Double]]](repeating: [[Double]](repeating: [], count: grid.x * grid.y), count: shifts.count)
        var columns = [Double](repeating: 0, count: w)
        for t in 0..<(small.count - 1) {
            let a = small[t].pixels, b = small[t + 1].pixels
            for by in 0..<grid.y {
                let y0 = by * h / grid.y, y1 = (by + 1) * h / grid.y
                // Per-column sums of the band's absolute change, so that any horizontal shift of the grid is cheap.
                for x in 0..<w { columns[x] = 0 }
                for y in y0..<y1 { for x in 0..<w { columns[x] += Double(abs(a[y * w + x] - b[y * w + x])) } }
                for (i, s) in shifts.enumerated() {
                    for bx in 0..<grid.x {
                        let x0 = max(0, min(w, bx * w / grid.x + s)), x1 = max(0, min(w, (bx + 1) * w / grid.x + s))
                        var sum = 0.0
                        for x in x0..<x1 { sum += columns[x] }
                        out[i][by * grid.x + bx].append(sum / Double(max(1, (y1 - y0) * (x1 - x0))))
                    }
                }
            }
        }
        return out
    }

    /// Reduced to at most ``width`` pixels wide by area averaging.
    static func reduce(_ g: GrayImage) -> GrayImage {
        guard g.width > width else { return g }
        return g.resized(width: width, height: max(1, g.height * width / g.width))
    }

    /// Measures the offset from runs of consecutive frames of both eyes (each run: left frames, right frames, same
    /// count). Nil when no run has at least `2 × maxLag + 3` frames of matching sizes.
    public static func measure(runs: [Run]) -> EyeSyncMeasurement? {
        let shifts = Array(-maxShift...maxShift)
        // pairs[shift index]: (left block signal, right block signal with the grid shifted), centred.
        var pairs = [[(l: [Double], r: [Double])]](repeating: [], count: shifts.count)
        var selfPairs = pairs
        var steps = 0
        for run in runs where run.left.count == run.right.count && run.left.count >= 2 * maxLag + 3 {
            guard let ls = blockMotion(run.left, shifts: shifts), let r = blockMotion(run.right, shifts: shifts),
                let l = ls.dropFirst(maxShift).first, r.allSatisfy({ $0.count == l.count })
            else { continue }
            steps += run.left.count - 1
            let lc = l.map(centred)
            for (i, rs) in r.enumerated() { for b in 0..<l.count { pairs[i].append((lc[b], centred(rs[b]))) } }
            for (i, ss) in ls.enumerated() { for b in 0..<l.count { selfPairs[i].append((lc[b], centred(ss[b]))) } }
        }
        let unshifted = pairs[maxShift]
        guard !unshifted.isEmpty else { return nil }
        // Motion: root-mean-square of the centred signals of both eyes (unshifted grid).
        var energy = 0.0, n = 0
        for p in unshifted { for v in p.l + p.r { energy += v * v; n += 1 } }
        let motion = (energy / Double(max(1, n))).squareRoot()
        // Each lag with the grid shift (one for the whole run: a disparity) that explains it best.
        var scores: [(lag: Int, ncc: Double, shift: Int)] = []
        for k in -maxLag...maxLag {
            var best = (ncc: -2.0, shift: 0)
            for (i, s) in shifts.enumerated() {
                let c = correlation(pairs[i], lag: k)
                if c > best.ncc || (c == best.ncc && abs(s) < abs(best.shift)) { best = (c, s) }
            }
            scores.append((k, best.ncc, best.shift))
        }
        let zero = scores.first { $0.lag == 0 }?.ncc ?? 0
        // Steady translation: the left eye one frame later explained by a shift of the left eye itself.
        let steady = selfPairs.map { correlation($0, lag: 1) }.max() ?? 0
        // Best lag; ties go to the smaller offset (zero first).
        let order = scores.sorted { a, b in a.ncc != b.ncc ? a.ncc > b.ncc : abs(a.lag) < abs(b.lag) }
        let best = order.first ?? (0, zero, 0)
        let second = order.dropFirst().first ?? best
        return EyeSyncMeasurement(
            lag: best.lag, correlation: best.ncc, correlationAtZero: zero, motion: motion,
            steps: steps, reliable: motion >= minMotion && best.ncc >= minCorrelation,
            runnerUpLag: second.lag, runnerUpCorrelation: second.ncc, shift: best.shift, steadiness: steady)
    }

    static func centred(_ s: [Double]) -> [Double] {
        let m = s.reduce(0, +) / Double(max(1, s.count))
        return s.map { $0 - m }
    }

    /// NCC of left[t] with right[t + lag] over the overlapping steps of every block, pooled.
    static func correlation(_ pairs: [(l: [Double], r: [Double])], lag k: Int) -> Double {
        var sxy = 0.0, sxx = 0.0, syy = 0.0
        for p in pairs {
            let n = min(p.l.count, p.r.count)
            for t in max(0, -k)..<max(max(0, -k), min(n, n - k)) {
                let x = p.l[t], y = p.r[t + k]
                sxy += x * y; sxx += x * x; syy += y * y
            }
        }
        let d = (sxx * syy).squareRoot()
        return d > 0 ? sxy / d : 0
    }

    /// The SV-GEOM-019 finding for a measurement (nil measurement: the runs were too short).
    public static func finding(_ m: EyeSyncMeasurement?, frames: Int) -> Finding {
        guard let m else {
            return Finding(
                "SV-GEOM-019", .info,
                "eye sync not measured: fewer than \(2 * maxLag + 3) consecutive frames could be decoded (the video has \(frames))"
            )
        }
        let figures =
            "lag \(m.lag), correlation \(fmt(m.correlation)) (at zero lag \(fmt(m.correlationAtZero))), steadiness \(fmt(m.steadiness)), motion \(fmt(m.motion)) grey levels over \(m.steps) frame steps"
        if m.motion < minMotion {
            return Finding(
                "SV-GEOM-019", .info,
                "eye sync cannot be measured: too little motion in the sampled frames (a static scene, or only noise; \(figures))"
            )
        }
        if !m.reliable {
            return Finding(
                "SV-GEOM-019", .info,
                "eye sync cannot be measured reliably: the eyes' motion does not correlate at any lag from −\(maxLag) to +\(maxLag) frames (\(figures))"
            )
        }
        if m.outOfSync {
            let n = abs(m.lag), frames = "\(n) frame\(n == 1 ? "" : "s")"
            let what =
                m.lag > 0
                ? "the right eye is \(frames) late (it shows at frame t + \(n) what the left shows at frame t)"
                : "the right eye is \(frames) early (it shows at frame t what the left shows at frame t + \(n))"
            let first = n == 1 ? "the first frame" : "the first \(n) frames"
            let fix = "drop \(first) of the \(m.lag > 0 ? "right" : "left") eye"
            return Finding(
                "SV-GEOM-019", .warning,
                "the eyes are out of sync: \(what) (\(figures)); re-cut the eyes before converting — \(fix) (e.g. FFmpeg `trim=start_frame=\(n)` on that eye) so both start on the same moment, then convert again with `spatial-media convert`"
            )
        }
        if m.steadiness >= maxSteadiness {
            return Finding(
                "SV-GEOM-019", .info,
                "eye sync cannot be measured: the motion is a steady translation (one frame later looks like the same frame shifted sideways, steadiness \(fmt(m.steadiness))), and in steady horizontal motion such as an even pan a time offset between the eyes looks the same as their disparity; only changes of motion (speed changes, objects entering or stopping, vertical motion) tell them apart (\(figures))"
            )
        }
        if m.ambiguous {
            return Finding(
                "SV-GEOM-019", .info,
                "eye sync cannot be measured: lags \(m.lag) and \(m.runnerUpLag) explain the eyes' motion about equally (correlation \(fmt(m.correlation)) and \(fmt(m.runnerUpCorrelation)); regular or periodic motion cannot tell them apart; \(figures))"
            )
        }
        if m.lag != 0 {
            return Finding(
                "SV-GEOM-019", .info,
                "no clear time offset between the eyes: lag \(m.lag) is not clearly better than zero lag (regular or periodic motion cannot tell neighbouring lags apart; \(figures))"
            )
        }
        return Finding("SV-GEOM-019", .info, "eyes in sync (\(figures))")
    }

    static func fmt(_ v: Double) -> String { NumberText.fixed(v, places: 2) }

    /// Where the runs start: one in the middle of a short clip, else at a third and two thirds of it.
    static func runStarts(total n: Int) -> [Int] {
        guard n > 2 * runLength else { return [max(0, (n - runLength) / 2)] }
        return [n / 3 - runLength / 2, 2 * n / 3 - runLength / 2].map { max(0, $0) }
    }

    /// The runs of a spatial video decoded with FFmpeg (each eye reduced to ``width`` pixels by FFmpeg); runs that
    /// cannot be decoded are left out.
    static func runs(_ source: SpatialVideoSource, total: Int) -> [Run] {
        var out: [Run] = []
        for start in runStarts(total: max(1, total)) {
            guard let run = try? source.frameRun(start: start, count: runLength, eyeWidth: width) else { continue }
            let l = run.compactMap { PixelSource.gray($0.left)?.0 },
                r = run.compactMap { PixelSource.gray($0.right)?.0 }
            if l.count == r.count { out.append((l, r)) }
        }
        return out
    }
}
