#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
/// What `--align` does to a measured pair: one warp of the right eye (rectification: vertical offset, roll, focal
/// scale, keystone; plus a horizontal re-centring when the far field lies beyond infinity), the left eye untouched,
/// both cropped to the largest common rectangle centred on the image centre (the optical axis).
public struct PairAlignment: Sendable {
    /// Homographies applied to each eye (the left one is the identity).
    public var leftHomography: [Double]
    public var rightHomography: [Double]
    /// Crop of both eyes after warping, in input pixels (even sizes, equal margins).
    public var crop: (x: Int, y: Int, width: Int, height: Int)
    /// Horizontal shift (pixels) added to re-centre a far field beyond infinity at disparity 0 (0 when none).
    public var recentreShift: Double
    public var model: RectificationModel

    /// Far fields beyond infinity by more than this many pixels are re-centred.
    public static let recentreTolerance = 0.5

    public static func plan(_ m: StereoMeasurement, _ rect: RectificationModel) -> PairAlignment {
        var H = rect.homography
        var shift = 0.0
        if m.rectifiedFar < -recentreTolerance {
            shift = m.rectifiedFar
            H = Mat3.translated(H, shift, 0)
        }
        let crop = StereoWarp.centredCommonArea(H, width: m.width, height: m.height) ?? (0, 0, m.width & ~1, m.height & ~1)
        return PairAlignment(leftHomography: [1, 0, 0, 0, 1, 0, 0, 0, 1], rightHomography: H, crop: crop, recentreShift: shift, model: rect)
    }

    /// The horizontal field of view of the cropped eyes, degrees, given the original one.
    public func croppedHFOV(_ hfov: Double) -> Double {
        let f = model.focalPixels
        return 2 * atan(Double(crop.width) / 2 / f) * 180 / Double.pi
    }
}

/// The disparity adjustment that puts the nearest significant content at or just behind the window.
public enum AutoDisparity {
    /// Margin behind the window, % of the width.
    public static let marginPercent = 0.1
    /// Percent of the width for a near (98th percentile, rectified) disparity in pixels, within the comfort bounds.
    public static func percent(nearDisparity: Double, width: Int) -> Double {
        let p = nearDisparity / Double(max(1, width)) * 100 + marginPercent
        return min(5, max(-2, (p * 100).rounded() / 100))
    }
}
