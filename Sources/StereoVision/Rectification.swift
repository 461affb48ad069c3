#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The pose and focal error of the right camera relative to the left one, inferred from vertical disparity, and the
/// homography that rectifies the right eye onto the left.
///
/// Camera axes: x right, y down, z forward. The right camera's orientation is `R = Rz(roll)·Ry(yaw)·Rx(pitch)`
/// (camera → world); its focal length is `f·(1 + scale)`; its principal point is shifted down by `verticalOffset`
/// pixels. A right-image pixel `p` seen through `R` and re-projected by the left camera `K` lands at
/// `H·p` with `H = K·R·K_r⁻¹`: applying `H` to the right eye removes the rotation, the focal mismatch and the vertical
/// shift together while the image centre stays on the optical axis. Negative yaw turns the right camera towards
/// the left one (toe-in, converged cameras); positive yaw is toe-out.
public struct RectificationModel: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Focal length of the left camera in pixels (from the field of view; 60° assumed when unknown).
    public var focalPixels: Double
    /// Radians.
    public var pitch = 0.0, yaw = 0.0, roll = 0.0
    /// Right focal length / left focal length − 1.
    public var scale = 0.0
    /// Right principal point below the left one, pixels.
    public var verticalOffset = 0.0
    /// Radial lens distortion, the same in both eyes, one term on coordinates normalised by the focal length: a ray
    /// at normalised position `u` (radius `r`) is imaged at `u·(1 + k1·r²)` about the eye's lens centre. 0 when not
    /// fitted or when the data cannot tell it from toe.
    public var radialK1 = 0.0
    /// One standard error of ``radialK1`` (0 when not fitted).
    public var radialK1Error = 0.0
    /// One standard error of the yaw, degrees (0 when not known).
    public var yawError = 0.0
    /// The yaw a fit without the radial term reads, degrees; nil when the radial term was not kept (then the yaw is
    /// that fit's). The difference from ``yawDegrees`` is what lens distortion would have been read as toe.
    public var distortionFreeYawDegrees: Double?
    /// Where the right eye's lens centre sits right of the image centre, pixels (the radial term is about it).
    public var distortionCentreShift = 0.0

    public init(width: Int, height: Int, focalPixels: Double) {
        self.width = max(1, width); self.height = max(1, height)
        self.focalPixels =
            focalPixels.isFinite && focalPixels > 1 ? focalPixels : Double(max(1, width)) / 2 / tan(Double.pi / 6)
    }

    var cx: Double { Double(width - 1) / 2 }
    var cy: Double { Double(height - 1) / 2 }

    /// Row-major 3×3 homography from right-image pixels to rectified pixels.
    public var homography: [Double] {
        let R = rotation
        let f = focalPixels, fr = f * (1 + scale)
        let K: [Double] = [f, 0, cx, 0, f, cy, 0, 0, 1]
        let KrInv: [Double] = [1 / fr, 0, -cx / fr, 0, 1 / fr, -(cy + verticalOffset) / fr, 0, 0, 1]
        return Mat3.mul(K, Mat3.mul(R, KrInv))
    }

    /// The right camera's rotation `Rz(roll)·Ry(yaw)·Rx(pitch)`, row-major.
    var rotation: [Double] {
        let (cp, sp) = (cos(pitch), sin(pitch)), (cyw, syw) = (cos(yaw), sin(yaw)), (cr, sr) = (cos(roll), sin(roll))
        let rx: [Double] = [1, 0, 0, 0, cp, -sp, 0, sp, cp]
        let ry: [Double] = [cyw, 0, syw, 0, 1, 0, -syw, 0, cyw]
        let rz: [Double] = [cr, -sr, 0, sr, cr, 0, 0, 0, 1]
        return Mat3.mul(rz, Mat3.mul(ry, rx))
    }

    /// Where a right-image pixel lands after rectification.
    public func rectify(x: Double, y: Double) -> (x: Double, y: Double) { Mat3.apply(homography, x, y) }

    /// Vertical disparity this model predicts at a left-image position (right y − left y for content at infinity).
    public func verticalDisparity(atX x: Double, y: Double) -> Double {
        guard let inv = Mat3.inverse(homography) else { return 0 }
        return Mat3.apply(inv, x, y).y - y
    }

    public var rollDegrees: Double { roll * 180 / Double.pi }
    public var yawDegrees: Double { yaw * 180 / Double.pi }
    public var pitchDegrees: Double { pitch * 180 / Double.pi }
    /// Rotation of the right eye's picture relative to the left, degrees (positive: clockwise on screen). A camera
    /// rolled by +ρ shows its content turned by −ρ.
    public var contentRotationDegrees: Double { -rollDegrees }
    /// Vertical disparity at the image centre, pixels (right − left).
    public var centreVerticalOffset: Double { verticalDisparity(atX: cx, y: cy) }
    /// Keystone: the vertical disparity the x·y (bow-tie) term alone gives at the bottom-right corner, pixels
    /// (a quarter of the top/bottom difference of the left/right corner differences).
    public var keystoneCornerPixels: Double {
        let W = Double(width - 1), H = Double(height - 1)
        let tl = verticalDisparity(atX: 0, y: 0), tr = verticalDisparity(atX: W, y: 0)
        let bl = verticalDisparity(atX: 0, y: H), br = verticalDisparity(atX: W, y: H)
        return ((br - bl) - (tr - tl)) / 4
    }
    /// Horizontal shift of content at the image centre that rectification applies (yaw and horizontal parts), pixels.
    public var centreHorizontalShift: Double { rectify(x: cx, y: cy).x - cx }

    /// Fits the model symmetrically in the eyes: once with the right points rectified onto the left and once the
    /// other way round, the two halves averaged (the reverse fit's parameters negated). One fit alone reads a
    /// vertical-disparity field at one eye's x positions; where a field grows with disparity (lens distortion of a
    /// close scene) the two eyes' fits differ — the Vision Pro photo measured yaw +1.02° as labelled and −1.52° with
    /// the eyes swapped — so swapping the inputs would change more than the sign (issue 31). The average negates
    /// exactly when the inputs are swapped.
    ///
    /// With `radial` (the default) one radial distortion term, the same in both eyes, is fitted alongside (see
    /// ``radialK1``), and ``distortionFreeYawDegrees`` keeps the yaw a fit without it reads.
    public static func fitSymmetric(
        _ matches: [StereoMatch], width: Int, height: Int, focalPixels: Double?,
        radial: Bool = true
    ) -> RectificationModel? {
        guard var m = symmetric(matches, width: width, height: height, focalPixels: focalPixels, radial: false) else {
            return nil
        }
        guard radial, let d = symmetric(matches, width: width, height: height, focalPixels: focalPixels, radial: true)
        else { return m }
        // The radial term is kept only when it earns its place: a fitted k1 within three standard errors of 0 says
        // the data cannot tell distortion from toe (a flat scene), and the distortion-free fit stands.
        // It must also explain the vertical disparity clearly better (RMS down by a tenth): a term that only
        // shaves noise, or rests on a far field that is not at infinity (eyes swapped), is not kept.
        func rms(_ x: RectificationModel) -> Double {
            let r = x.verticalResiduals(matches)
            return (r.reduce(0) { $0 + $1 * $1 } / Double(max(1, r.count))).squareRoot()
        }
        guard abs(d.radialK1) > 3 * d.radialK1Error, abs(d.radialK1) >= 0.02, rms(d) < 0.9 * rms(m) else {
            m.radialK1Error = d.radialK1Error
            m.yawError = d.yawError
            return m
        }
        let free = m.yawDegrees
        m = d
        m.distortionFreeYawDegrees = free
        return m
    }

    static func symmetric(_ matches: [StereoMatch], width: Int, height: Int, focalPixels: Double?, radial: Bool)
        -> RectificationModel?
    {
        guard let forward = fit(matches, width: width, height: height, focalPixels: focalPixels, radial: radial) else {
            return nil
        }
        let swapped = matches.map { StereoMatch(xl: $0.xr, yl: $0.yr, xr: $0.xl, yr: $0.yl, ncc: $0.ncc) }
        let reverseFit = fit(
            swapped, width: width, height: height, focalPixels: focalPixels, radial: radial,
            swappedEyes: true)
        guard let reverse = reverseFit else {
            return forward
        }
        var m = forward
        // The reverse fit's rotation is the inverse (transpose) of the forward one: average the two matrices and read
        // the angles of `Rz·Ry·Rx` back (negating the reverse angles instead is wrong to second order when a large
        // yaw and a roll come together).
        let a = forward.rotation, b = reverse.rotation
        let R = [
            a[0] + b[0], a[1] + b[3], a[2] + b[6], a[3] + b[1], a[4] + b[4], a[5] + b[7], a[6] + b[2], a[7] + b[5],
            a[8] + b[8],
        ].map { $0 / 2 }
        m.yaw = asin(max(-1, min(1, -R[6] / (R[6] * R[6] + R[7] * R[7] + R[8] * R[8]).squareRoot())))
        m.pitch = atan2(R[7], R[8])
        m.roll = atan2(R[3], R[0])
        // The reverse focal ratio is 1 / (1 + s): its scale is −s / (1 + s).
        m.scale = (forward.scale - reverse.scale / (1 + reverse.scale)) / 2
        m.verticalOffset = (forward.verticalOffset - reverse.verticalOffset) / 2
        m.radialK1 = (forward.radialK1 + reverse.radialK1) / 2
        m.radialK1Error = max(forward.radialK1Error, reverse.radialK1Error)
        m.yawError = max(forward.yawError, reverse.yawError)
        m.distortionCentreShift = (forward.distortionCentreShift - reverse.distortionCentreShift) / 2
        return m
    }

    /// A pixel of an eye with radial distortion `k1` about (`cx`, `cy`) at focal length `f`, moved to where a
    /// pinhole would have imaged it (the fixed point of `u = d / (1 + k1·|u|²)` in normalised coordinates).
    @inline(__always)
    static func undistort(_ x: Double, _ y: Double, cx: Double, cy: Double, f: Double, k1: Double)
        -> (x: Double, y: Double)
    {
        guard k1 != 0 else { return (x, y) }
        let xd = (x - cx) / f, yd = (y - cy) / f
        var u = xd, v = yd
        for _ in 0..<5 { let s = 1 + k1 * (u * u + v * v); guard s > 0.2 else { break }; u = xd / s; v = yd / s }
        return (cx + f * u, cy + f * v)
    }

    /// The vertical residual of every match under the model: the rectified right point's row minus the left one's
    /// (both undistorted by the radial term first).
    func verticalResiduals(_ matches: [StereoMatch]) -> [Double] {
        let H = homography, k1 = radialK1, f = focalPixels, fr = f * (1 + scale)
        let rcx = cx + distortionCentreShift, rcy = cy + verticalOffset
        return matches.map { mt in
            let l = Self.undistort(mt.xl, mt.yl, cx: cx, cy: cy, f: f, k1: k1)
            let r = Self.undistort(mt.xr, mt.yr, cx: rcx, cy: rcy, f: fr, k1: k1)
            return Mat3.apply(H, r.x, r.y).y - l.y
        }
    }

    /// A match rectified by the model: horizontal disparity (left x − rectified right x) and vertical residual, both
    /// eyes undistorted by the radial term first (the homography alone when there is none).
    public func rectified(_ mt: StereoMatch) -> (disparity: Double, dy: Double) {
        let f = focalPixels
        let l = Self.undistort(mt.xl, mt.yl, cx: cx, cy: cy, f: f, k1: radialK1)
        let r = Self.undistort(
            mt.xr, mt.yr, cx: cx + distortionCentreShift, cy: cy + verticalOffset,
            f: f * (1 + scale), k1: radialK1)
        let p = Mat3.apply(homography, r.x, r.y)
        return (l.x - p.x, p.y - l.y)
    }

    /// The far field (2nd percentile of the disparity, three matches behind it) of the matches rectified by the model
    /// (both eyes undistorted first); with `swappedEyes` (the matches' eyes swapped, disparities negated) the far
    /// field is the 98th percentile.
    func undistortedFarField(_ matches: [StereoMatch], swappedEyes: Bool) -> Double? {
        let d = matches.map { rectified($0).disparity }
        return Stats.supportedPercentile(d, swappedEyes ? 98 : 2, support: 3)
    }

    /// Fits the model to matches (left → right) by Gauss–Newton on the vertical residual of the rectified right
    /// points. Pitch and the vertical offset differ only by a quadratic term, so pitch is lightly damped.
    ///
    /// With `radial`, one radial distortion term (``radialK1``) is fitted too. Its bow-tie (x·y) field grows with
    /// each match's disparity, a toe's does not; a radial term about each eye's own lens centre also depends on
    /// where the right eye's centre sits, which vertical disparity barely shows: it is taken where the far field
    /// says (a picture shifted to put the far field at disparity d was shifted by −d from its lens centre; content
    /// at infinity), re-read after each of three rounds. `swappedEyes`: the matches are the eyes the other way round
    /// (their far field is at the other end of the disparities).
    public static func fit(
        _ matches: [StereoMatch], width: Int, height: Int, focalPixels: Double?,
        radial: Bool = false, swappedEyes: Bool = false
    ) -> RectificationModel? {
        var m = RectificationModel(width: width, height: height, focalPixels: focalPixels ?? .nan)
        guard matches.count >= (radial ? 12 : 8) else { return nil }
        for _ in 0..<(radial ? 3 : 1) {
            guard let next = solve(matches, start: m, radial: radial) else { return nil }
            m = next
            guard radial, let far = m.undistortedFarField(matches, swappedEyes: swappedEyes) else { break }
            m.distortionCentreShift = -far
        }
        return m
    }

    /// One Levenberg–Marquardt solve from `start` (its centre shift held), with standard errors of yaw and k1.
    static func solve(_ matches: [StereoMatch], start: RectificationModel, radial: Bool) -> RectificationModel? {
        let m = start, f = m.focalPixels, width = m.width, height = m.height
        let n = radial ? 6 : 5
        // Parameter scaling so every step is in comparable pixel units.
        let unit: [Double] = [1, 1 / f, 1 / f, 2 / Double(max(width, height)), 2 / Double(max(width, height)), 0.1]
        func params(_ m: RectificationModel) -> [Double] {
            let all = [
                m.verticalOffset, m.pitch / unit[1], m.yaw / unit[2], m.roll / unit[3], m.scale / unit[4],
                m.radialK1 / unit[5],
            ]
            return Array(all.prefix(n))
        }
        func model(_ p: [Double]) -> RectificationModel {
            var r = m; r.verticalOffset = p[0]; r.pitch = p[1] * unit[1]; r.yaw = p[2] * unit[2]
            r.roll = p[3] * unit[3]; r.scale = p[4] * unit[4]; if n > 5 { r.radialK1 = p[5] * unit[5] }
            return r
        }
        // A weak prior holds k1 near 0 where the data cannot tell it from toe (1 px² of cost at k1 = 0.3).
        func residuals(_ p: [Double]) -> [Double] {
            let r = model(p).verticalResiduals(matches)
            return n > 5 ? r + [p[5] * unit[5] / 0.3] : r
        }
        func jacobian(_ p: [Double]) -> [[Double]] {
            (0..<n).map { k in
                var q = p; q[k] += 0.5; let a = residuals(q)
                q[k] -= 1; let b = residuals(q)
                return zip(a, b).map { ($0 - $1) }
            }
        }
        func normal(_ J: [[Double]], _ r: [Double]) -> (A: [Double], g: [Double]) {
            var A = [Double](repeating: 0, count: n * n), g = [Double](repeating: 0, count: n)
            for i in 0..<n {
                for j in i..<n {
                    var s = 0.0; for k in 0..<r.count { s += J[i][k] * J[j][k] }
                    A[i * n + j] = s; A[j * n + i] = s
                }
                var s = 0.0; for k in 0..<r.count { s += J[i][k] * r[k] }; g[i] = -s
            }
            return (A, g)
        }
        var p = params(m)
        var lambda = 1e-3
        var r = residuals(p)
        var cost = r.reduce(0) { $0 + $1 * $1 }
        var done = false
        for _ in 0..<30 where !done {
            let (A, g) = normal(jacobian(p), r)
            let N = Double(r.count)
            var improved = false
            for _ in 0..<6 {
                var Ad = A
                for i in 0..<n { Ad[i * n + i] += lambda * max(A[i * n + i], 1e-9) + (i == 1 ? 0.05 * N : 1e-6 * N) }
                guard let step = LinearSolve.solve(Ad, g, n) else { lambda *= 10; continue }
                let q = zip(p, step).map { $0 + $1 }
                let rq = residuals(q)
                let c = rq.reduce(0) { $0 + $1 * $1 }
                if c < cost {
                    let small = step.map { abs($0) }.max() ?? 0
                    p = q; r = rq; cost = c; lambda = max(lambda / 10, 1e-7); improved = true
                    if small < 1e-4 { done = true }
                    break
                }
                lambda *= 10
            }
            if !improved { break }
        }
        var out = model(p)
        // Standard errors from the curvature at the solution: σ²·(JᵀJ)⁻¹, σ² the residual variance.
        let (A, _) = normal(jacobian(p), r)
        let dof = Double(max(1, r.count - n)), s2 = cost / dof
        func variance(_ k: Int) -> Double? {
            var e = [Double](repeating: 0, count: n); e[k] = 1
            return LinearSolve.solve(A, e, n).map { $0[k] * s2 }
        }
        out.yawError = (variance(2).map { max(0, $0).squareRoot() } ?? .infinity) * unit[2] * 180 / Double.pi
        if n > 5 { out.radialK1Error = (variance(5).map { max(0, $0).squareRoot() } ?? .infinity) * unit[5] }
        return out
    }
}

/// 3×3 matrices, row-major.
public enum Mat3 {
    public static func mul(_ a: [Double], _ b: [Double]) -> [Double] {
        var o = [Double](repeating: 0, count: 9)
        for i in 0..<3 {
            for j in 0..<3 { o[i * 3 + j] = a[i * 3] * b[j] + a[i * 3 + 1] * b[3 + j] + a[i * 3 + 2] * b[6 + j] }
        }
        return o
    }
    @inline(__always) public static func apply(_ h: [Double], _ x: Double, _ y: Double) -> (x: Double, y: Double) {
        let w = h[6] * x + h[7] * y + h[8]
        let iw = abs(w) > 1e-12 ? 1 / w : 0
        return ((h[0] * x + h[1] * y + h[2]) * iw, (h[3] * x + h[4] * y + h[5]) * iw)
    }
    public static func inverse(_ m: [Double]) -> [Double]? {
        let a = m[0], b = m[1], c = m[2], d = m[3], e = m[4], f = m[5], g = m[6], h = m[7], i = m[8]
        let A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g
        let det = a * A + b * B + c * C
        guard abs(det) > 1e-15, det.isFinite else { return nil }
        let inv = [
            A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d,
        ]
        return inv.map { $0 / det }
    }
    /// Translation by (tx, ty) applied after `h`.
    public static func translated(_ h: [Double], _ tx: Double, _ ty: Double) -> [Double] {
        mul([1, 0, tx, 0, 1, ty, 0, 0, 1], h)
    }
}

/// Resampling of one eye through a homography, and the common area of a rectified pair.
public enum StereoWarp {
    /// The largest rectangle centred on the image centre, with the image's aspect ratio, that lies inside the
    /// image of the `width × height` frame under `h` (so every output pixel has a source pixel). Returns the
    /// crop as (x, y, width, height) with even sizes, or nil when the warp leaves no usable area.
    public static func centredCommonArea(_ h: [Double], width: Int, height: Int) -> (
        x: Int, y: Int, width: Int, height: Int
    )? {
        guard let inv = Mat3.inverse(h) else { return nil }
        let W = Double(width), H = Double(height), cx = Double(width - 1) / 2, cy = Double(height - 1) / 2
        func inside(_ k: Double) -> Bool {
            // Sample the border of the centred rectangle of relative size k; each point must come from inside the
            // source.
            let hw = k * (W - 1) / 2, hh = k * (H - 1) / 2
            for t in stride(from: 0.0, through: 1.0, by: 0.05) {
                for (x, y) in [
                    (cx - hw + 2 * hw * t, cy - hh), (cx - hw + 2 * hw * t, cy + hh), (cx - hw, cy - hh + 2 * hh * t),
                    (cx + hw, cy - hh + 2 * hh * t),
                ] {
                    let s = Mat3.apply(inv, x, y)
                    if !(s.x >= 0 && s.x <= W - 1 && s.y >= 0 && s.y <= H - 1) { return false }
                }
            }
            return true
        }
        var lo = 0.0, hi = 1.0
        if inside(1) {
            lo = 1
        } else {
            for _ in 0..<30 { let mid = (lo + hi) / 2; if inside(mid) { lo = mid } else { hi = mid } }
        }
        guard lo > 0.5 else { return nil }
        // Equal, even margins on both sides keep the centre on the optical axis (and chroma planes aligned).
        func margin(_ full: Int, _ keep: Double) -> Int {
            min(full / 2 - 1, ((full - Int(keep.rounded(.down)) + 3) / 4) * 2)
        }
        let mx = max(0, margin(width, lo * W)), my = max(0, margin(height, lo * H))
        let w = width - 2 * mx, hgt = height - 2 * my
        guard w >= 2, hgt >= 2 else { return nil }
        return (mx, my, w, hgt)
    }

    /// The largest axis-aligned rectangle (by area) whose every pixel lies inside the `width × height` frame and has
    /// a source pixel in the frame's image under `h` — the common area of an eye left as it is and an eye warped by
    /// `h`. Not tied to the aspect ratio or the centre: a horizontal shift by t px costs a t-px strip on one side (a
    /// centred, aspect-kept crop costs t px on each side and the rows to match). Returns (x, y, width, height) with
    /// even offsets and sizes (chroma planes stay aligned), or nil when it keeps less than a quarter of the frame.
    public static func largestCommonArea(_ h: [Double], width: Int, height: Int)
        -> (x: Int, y: Int, width: Int, height: Int)?
    {
        guard width >= 4, height >= 4 else { return nil }
        let W = Double(width - 1), H = Double(height - 1)
        // The warped frame: a convex quadrilateral (a homography that keeps the frame in front of the camera maps
        // it to one), clipped to the frame.
        var poly = [(0.0, 0.0), (W, 0), (W, H), (0, H)].map { Mat3.apply(h, $0.0, $0.1) }.map { (x: $0.x, y: $0.y) }
        guard poly.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { return nil }
        poly = clip(poly, width: W, height: H)
        guard poly.count >= 3, let top = poly.map(\.y).min(), let bottom = poly.map(\.y).max(), bottom - top >= 2 else {
            return nil
        }
        // The polygon's horizontal extent along a row (convex: one interval).
        func extent(_ y: Double) -> (Double, Double)? {
            var lo = Double.infinity, hi = -Double.infinity
            for i in poly.indices {
                let a = poly[i], b = poly[(i + 1) % poly.count]
                if (a.y - y) * (b.y - y) > 0 { continue }
                if abs(b.y - a.y) < 1e-12 { lo = min(lo, a.x, b.x); hi = max(hi, a.x, b.x); continue }
                let x = a.x + (y - a.y) / (b.y - a.y) * (b.x - a.x)
                lo = min(lo, x); hi = max(hi, x)
            }
            return lo <= hi ? (lo, hi) : nil
        }
        // Rows sampled at most 256 times; a rectangle is inside a convex region when its four corners are, so its
        // extent is the narrower of its top and bottom rows'.
        let n = min(256, max(2, Int(bottom - top)))
        let ys = (0...n).map { top + (bottom - top) * Double($0) / Double(n) }
        let ext = ys.map { extent($0) }
        var best: (area: Double, x0: Double, x1: Double, y0: Double, y1: Double)?
        for i in ys.indices {
            guard let a = ext[i] else { continue }
            for j in i..<ys.count {
                guard let b = ext[j] else { continue }
                let x0 = max(a.0, b.0), x1 = min(a.1, b.1)
                guard x1 > x0 else { continue }
                let area = (x1 - x0) * (ys[j] - ys[i])
                if area > (best?.area ?? 0) { best = (area, x0, x1, ys[i], ys[j]) }
            }
        }
        guard let r = best else { return nil }
        // Whole pixels inside, even offsets and sizes.
        func span(_ lo: Double, _ hi: Double, _ full: Int) -> (Int, Int) {
            var a = Int((lo - 1e-9).rounded(.up)), b = Int((hi + 1e-9).rounded(.down))
            a = max(0, a); b = min(full - 1, b)
            if a % 2 != 0 { a += 1 }
            var n = b - a + 1
            if n % 2 != 0 { n -= 1 }
            return (a, max(0, n))
        }
        let (x, w) = span(r.x0, r.x1, width), (y, hh) = span(r.y0, r.y1, height)
        guard w >= 2, hh >= 2, w * hh * 4 >= width * height else { return nil }
        return (x, y, w, hh)
    }

    /// Clips a convex polygon to the rectangle [0, w] × [0, h] (Sutherland–Hodgman, one edge at a time).
    static func clip(_ poly: [(x: Double, y: Double)], width w: Double, height h: Double) -> [(x: Double, y: Double)] {
        var out = poly
        let edges: [((x: Double, y: Double)) -> Double] = [{ $0.x }, { w - $0.x }, { $0.y }, { h - $0.y }]
        for inside in edges {
            let input = out
            out = []
            for i in input.indices {
                let a = input[i], b = input[(i + 1) % input.count]
                let da = inside(a), db = inside(b)
                if da >= 0 { out.append(a) }
                if (da >= 0) != (db >= 0) {
                    let t = da / (da - db)
                    out.append((x: a.x + t * (b.x - a.x), y: a.y + t * (b.y - a.y)))
                }
            }
            if out.isEmpty { return [] }
        }
        return out
    }

    /// Warps a grey image: output pixel q takes the source at `h⁻¹·q` (bilinear, edges clamped).
    public static func warp(_ img: GrayImage, _ h: [Double]) -> GrayImage {
        guard let inv = Mat3.inverse(h) else { return img }
        let w = img.width, hgt = img.height
        let rows: [[Float]] = parallelMap(workerCount) { c in
            let y0 = hgt * c / workerCount, y1 = hgt * (c + 1) / workerCount
            var out = [Float](repeating: 0, count: (y1 - y0) * w)
            for y in y0..<y1 {
                for x in 0..<w {
                    let s = Mat3.apply(inv, Double(x), Double(y))
                    out[(y - y0) * w + x] = img.sample(Float(s.x), Float(s.y))
                }
            }
            return out
        }
        return GrayImage(width: w, height: hgt, pixels: rows.flatMap { $0 }) ?? img
    }

    /// Warps one plane of 8- or 16-bit samples (`values` row-major, `width × height`, `channels` interleaved samples
    /// per pixel) through `h` given in the coordinates of a plane `subX × subY` times larger (chroma), writing only the
    /// crop rectangle (in plane pixels). Bilinear, edges clamped.
    @_specialize(where T == UInt8)
    @_specialize(where T == UInt16)
    public static func warpPlane<T: FixedWidthInteger & UnsignedInteger & Sendable>(
        _ values: [T], width: Int, height: Int, channels ch: Int = 1, homography h: [Double], subX: Int, subY: Int,
        crop: (x: Int, y: Int, width: Int, height: Int), maxValue: Int
    ) -> [T] {
        guard let inv = Mat3.inverse(h), width > 0, height > 0, ch > 0, values.count >= width * height * ch else {
            return []
        }
        // Plane pixel p ↔ luma coordinate l = (p + 0.5)·s − 0.5: conjugate the inverse homography into plane pixels.
        let sx = Double(subX), sy = Double(subY)
        let toLuma: [Double] = [sx, 0, 0.5 * sx - 0.5, 0, sy, 0.5 * sy - 0.5, 0, 0, 1]
        let toPlane: [Double] = [1 / sx, 0, (0.5 - 0.5 * sx) / sx, 0, 1 / sy, (0.5 - 0.5 * sy) / sy, 0, 0, 1]
        let m = Mat3.mul(toPlane, Mat3.mul(inv, toLuma))
        let ow = crop.width, oh = crop.height
        let (total, overflow) = (ow * ch).multipliedReportingOverflow(by: oh)
        guard !overflow, ow > 0, oh > 0 else { return [] }
        // One output buffer; each worker fills its own band of rows. Channel counts 1, 3 and 4 get their own
        // inlined loop (the sample loop unrolled).
        return [T](unsafeUninitializedCapacity: total) { out, count in
            let box = UncheckedSendable(value: out.baseAddress)
            values.withUnsafeBufferPointer { src in
                let srcBox = UncheckedSendable(value: src)
                _ = parallelMap(workerCount) { c -> Int in
                    guard let dst = box.value else { return 0 }
                    let y0 = oh * c / workerCount, y1 = oh * (c + 1) / workerCount
                    let band = Band(m: m, width: width, height: height, crop: crop, maxValue: Float(maxValue))
                    switch ch {
                    case 1: band.fill(srcBox.value, dst, rows: y0..<y1, channels: 1)
                    case 3: band.fill(srcBox.value, dst, rows: y0..<y1, channels: 3)
                    case 4: band.fill(srcBox.value, dst, rows: y0..<y1, channels: 4)
                    default: band.fill(srcBox.value, dst, rows: y0..<y1, channels: ch)
                    }
                    return 0
                }
            }
            count = total
        }
    }

    /// The inverse homography walked incrementally along each output row (one division per pixel), bilinear
    /// sampling with edge clamping.
    struct Band {
        let m: [Double]
        let width: Int, height: Int
        let crop: (x: Int, y: Int, width: Int, height: Int)
        let maxValue: Float

        @_specialize(where T == UInt8)
        @_specialize(where T == UInt16)
        func fill<T: FixedWidthInteger & UnsignedInteger>(
            _ src: UnsafeBufferPointer<T>, _ dst: UnsafeMutablePointer<T>, rows: Range<Int>, channels ch: Int
        ) {
            let m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3], m4 = m[4], m5 = m[5], m6 = m[6], m7 = m[7], m8 = m[8]
            let maxX = Float(width - 1), maxY = Float(height - 1), maxV = maxValue
            let ow = crop.width, lastX = width - 1, lastY = height - 1
            guard let s = src.baseAddress else { return }
            // The source position is exact (one division) every `span` pixels and linear in between: the
            // interpolation error is span²/8 × the homography's curvature, ≈ 0.003 px for a 5° yaw on a
            // 480 px-wide picture and below 0.001 px at 2560 px.
            let span = 8
            for oy in rows {
                let py = Double(oy + crop.y), px0 = Double(crop.x)
                var nx = m0 * px0 + m1 * py + m2, ny = m3 * px0 + m4 * py + m5, nw = m6 * px0 + m7 * py + m8
                @inline(__always) func point() -> (Double, Double) {
                    let iw = abs(nw) > 1e-12 ? 1 / nw : 0
                    return (nx * iw, ny * iw)
                }
                var o = dst + oy &* ow &* ch
                var (u, v) = point()
                var x = 0
                while x < ow {
                    let n = min(span, ow - x)
                    nx += m0 * Double(n); ny += m3 * Double(n); nw += m6 * Double(n)
                    let (u1, v1) = point()
                    let du = Float((u1 - u) / Double(n)), dv = Float((v1 - v) / Double(n))
                    let fu0 = Float(u), fv0 = Float(v)
                    for i in 0..<n {
                        let fxs = min(max(fu0 + du * Float(i), 0), maxX), fys = min(max(fv0 + dv * Float(i), 0), maxY)
                        let x0 = Int(fxs), yi = Int(fys)
                        let dx = x0 < lastX ? ch : 0, dyRow = yi < lastY ? width &* ch : 0
                        let fx = fxs - Float(x0), fy = fys - Float(yi)
                        let p0 = s + (yi &* width &+ x0) &* ch, p1 = p0 + dyRow
                        if T.self == UInt8.self {
                            // 8-bit samples: integer bilinear with weights in 1/256 (OpenCV's warps use 1/32).
                            let wx = Int32(fx * 256), wy = Int32(fy * 256)
                            for k in 0..<ch {
                                let a = Int32(p0[k]), b = Int32(p0[k &+ dx]), cc = Int32(p1[k]), d = Int32(p1[k &+ dx])
                                let top = (a &<< 8) &+ (b &- a) &* wx, bottom = (cc &<< 8) &+ (d &- cc) &* wx
                                o[k] = T(truncatingIfNeeded: ((top &<< 8) &+ (bottom &- top) &* wy &+ 32768) &>> 16)
                            }
                            o += ch
                            continue
                        }
                        for k in 0..<ch {
                            let a = Float(p0[k]), b = Float(p0[k &+ dx]), cc = Float(p1[k]), d = Float(p1[k &+ dx])
                            let top = a + (b - a) * fx, bottom = cc + (d - cc) * fx
                            o[k] = T(truncatingIfNeeded: Int(min(max(top + (bottom - top) * fy + 0.5, 0), maxV)))
                        }
                        o += ch
                    }
                    u = u1; v = v1; x += n
                }
            }
        }
    }

    /// Copies the crop rectangle of a plane (`channels` interleaved samples per pixel).
    public static func cropPlane<T: Sendable>(
        _ values: [T], width: Int, channels ch: Int = 1, crop: (x: Int, y: Int, width: Int, height: Int)
    ) -> [T] {
        var out: [T] = []
        out.reserveCapacity(crop.width * crop.height * ch)
        for y in crop.y..<(crop.y + crop.height) {
            out += values[((y * width + crop.x) * ch)..<((y * width + crop.x + crop.width) * ch)]
        }
        return out
    }
}
