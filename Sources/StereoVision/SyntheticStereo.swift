#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Renders stereo pairs of a synthetic scene with a known camera model: textured fronto-parallel planes at several
/// depths seen by a left camera at the origin and a right camera at +x by the baseline, with injected pitch,
/// toe-in (yaw), roll, focal mismatch, vertical offset and horizontal shift. Used by the accuracy harness and
/// the benchmark; the truth for each injected error is known in closed form (see ``VerticalDisparityModel``).
public struct SyntheticStereo: Sendable {
    public var width = 400
    public var height = 300
    public var hfovDegrees = 60.0
    public var baselineMetres = 0.064
    /// Right camera rotation, degrees (pitch about x, yaw/toe-in about y, roll about z; camera axes x right, y down, z
    /// forward).
    public var pitchDegrees = 0.0
    public var yawDegrees = 0.0
    public var rollDegrees = 0.0
    /// Right focal length / left focal length.
    public var focalRatio = 1.0
    /// Right image principal point shift in pixels (positive y moves the right image content down).
    public var verticalOffsetPixels = 0.0
    /// Right image principal point shift in pixels (positive x moves the right image content right).
    public var horizontalShiftPixels = 0.0
    /// Radial lens distortion of both eyes, one term on normalised coordinates: a ray at undistorted normalised
    /// position `u` (radius `r`) lands at `u·(1 + k1·r²)` around each eye's own principal point (positive:
    /// pincushion). 0 is a pinhole.
    public var radialK1 = 0.0
    /// Distance of the background wall, metres (a far wall stands in for content at infinity).
    public var farWallMetres = 12.0
    /// Seed of the texture.
    /// When set, a box at this distance (metres) that runs off the left edge of the frame (for window violations).
    public var edgeBoxMetres: Double? = nil
    public var seed: UInt64 = 1
    /// Amplitude of the per-pixel noise (grey levels).
    public var noise: Float = 1.5
    public init() {}

    /// Horizontal disparity (pixels) of the background wall for a parallel, optically centred pair.
    public var farWallDisparity: Double { focal * baselineMetres / farWallMetres }

    var focal: Double { Double(width) / 2 / tan(hfovDegrees * Double.pi / 360) }

    struct Plane { var z: Double; var x0, x1, y0, y1: Double; var offset: (Double, Double) }

    /// The scene: a far wall at 12 m and boxes at 1.5–5 m.
    var planes: [Plane] {
        [
            Plane(z: 1.6, x0: -0.55, x1: -0.15, y0: -0.1, y1: 0.35, offset: (11, 3)),
            Plane(z: 2.6, x0: 0.1, x1: 0.9, y0: -0.6, y1: 0.1, offset: (5, 17)),
            Plane(z: 4.0, x0: -1.6, x1: 0.2, y0: 0.4, y1: 1.6, offset: (23, 7)),
            Plane(z: farWallMetres, x0: -1e9, x1: 1e9, y0: -1e9, y1: 1e9, offset: (0, 0)),
        ]
            + (edgeBoxMetres.map { z in
                [Plane(z: z, x0: -1e9, x1: -0.25 * z, y0: -0.2 * z, y1: 0.2 * z, offset: (17, 29))]
            } ?? [])
    }

    /// A smooth random texture (blurred white noise, bilinear lookups are continuous).
    func texture() -> GrayImage {
        let n = 512
        var s = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var px = [Float](repeating: 0, count: n * n)
        for i in 0..<px.count {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17
            px[i] = Float(s % 256)
        }
        let t = (GrayImage(width: n, height: n, pixels: px) ?? GrayImage(width: n, height: n, value: 0)).boxBlurred(
            radius: 1)
        // Stretch the contrast back after blurring.
        let (m, d) = t.meanAndDeviation
        return GrayImage(width: n, height: n, pixels: t.pixels.map { Float(128 + (Double($0) - m) / max(d, 1) * 55) })
            ?? t
    }

    /// Renders (left, right).
    public func render() -> (left: GrayImage, right: GrayImage) {
        let tex = texture()
        let l = renderEye(tex, isRight: false)
        let r = renderEye(tex, isRight: true)
        return (l, r)
    }

    /// The ray (z = 1) whose image under `k1` lands at normalised position (xd, yd): the fixed point of
    /// `u = d / (1 + k1·|u|²)`.
    static func undistorted(_ xd: Double, _ yd: Double, k1: Double) -> (Double, Double, Double) {
        var x = xd, y = yd
        if k1 != 0 {
            for _ in 0..<8 { let s = 1 + k1 * (x * x + y * y); x = xd / s; y = yd / s }
        }
        return (x, y, 1)
    }

    func renderEye(_ tex: GrayImage, isRight: Bool) -> GrayImage {
        let f0 = focal
        let f = isRight ? f0 * focalRatio : f0
        let cx = Double(width - 1) / 2 + (isRight ? horizontalShiftPixels : 0)
        let cy = Double(height - 1) / 2 + (isRight ? verticalOffsetPixels : 0)
        let c: (Double, Double, Double) = isRight ? (baselineMetres, 0, 0) : (0, 0, 0)
        // R = Rz(roll)·Ry(yaw)·Rx(pitch): camera → world.
        let (p, y, r) =
            isRight
            ? (pitchDegrees * Double.pi / 180, yawDegrees * Double.pi / 180, rollDegrees * Double.pi / 180) : (0, 0, 0)
        let rx: [Double] = [1, 0, 0, 0, cos(p), -sin(p), 0, sin(p), cos(p)]
        let ry: [Double] = [cos(y), 0, sin(y), 0, 1, 0, -sin(y), 0, cos(y)]
        let rz: [Double] = [cos(r), -sin(r), 0, sin(r), cos(r), 0, 0, 0, 1]
        func mul(_ a: [Double], _ b: [Double]) -> [Double] {
            var o = [Double](repeating: 0, count: 9)
            for i in 0..<3 { for j in 0..<3 { for k in 0..<3 { o[i * 3 + j] += a[i * 3 + k] * b[k * 3 + j] } } }
            return o
        }
        let R = mul(rz, mul(ry, rx))
        let planes = self.planes
        var out = [Float](repeating: 0, count: width * height)
        var s = seed &+ (isRight ? 77 : 11)
        let texSize = Double(tex.width)
        for j in 0..<height {
            for i in 0..<width {
                let dc = Self.undistorted((Double(i) - cx) / f, (Double(j) - cy) / f, k1: radialK1)
                let d = (
                    R[0] * dc.0 + R[1] * dc.1 + R[2] * dc.2, R[3] * dc.0 + R[4] * dc.1 + R[5] * dc.2,
                    R[6] * dc.0 + R[7] * dc.1 + R[8] * dc.2
                )
                var best = Double.infinity
                var value: Float = 0
                if d.2 > 1e-6 {
                    for pl in planes {
                        let t = (pl.z - c.2) / d.2
                        guard t > 0, t < best else { continue }
                        let X = c.0 + t * d.0, Y = c.1 + t * d.1
                        guard X >= pl.x0, X <= pl.x1, Y >= pl.y0, Y <= pl.y1 else { continue }
                        best = t
                        // About 2.5 image pixels per texel at the plane's depth.
                        let texel = pl.z * 2.5 / f0
                        var u = (X / texel + pl.offset.0 * 31).truncatingRemainder(dividingBy: texSize - 2)
                        var v = (Y / texel + pl.offset.1 * 31).truncatingRemainder(dividingBy: texSize - 2)
                        if u < 0 { u += texSize - 2 }
                        if v < 0 { v += texSize - 2 }
                        value = tex.sample(Float(u), Float(v))
                    }
                }
                s ^= s << 13; s ^= s >> 7; s ^= s << 17
                let nz = (Float(s % 1000) / 1000 - 0.5) * 2 * noise
                out[j * width + i] = min(255, max(0, value + nz))
            }
        }
        return GrayImage(width: width, height: height, pixels: out) ?? GrayImage(width: width, height: height, value: 0)
    }
}
