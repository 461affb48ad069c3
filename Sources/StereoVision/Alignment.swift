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

/// The sizes of the faults `--align` removes below which a pair needs no alignment: the one table both `convert
/// --align` / `align` (which leave such a pair untouched) and `validate` (which warns above them) read.
public enum AlignmentTolerance {
    /// Vertical offset at the centre, % of the height.
    public static let verticalOffsetPercent = 0.5
    /// Roll of the right picture, degrees.
    public static let rollDegrees = 0.25
    /// Vertical scale (focal mismatch), %.
    public static let scalePercent = 0.5
    /// Keystone at the corners, % of the height.
    public static let keystonePercent = 1.0
    /// Far content beyond infinity after rectification, degrees of divergence.
    public static let divergenceDegrees = 0.1

    /// The alignable faults a measurement shows, each as "name value" text (empty: a fault-free pair, nothing for
    /// `--align` to do). `rect` is the measurement's rectification.
    public static func faults(_ m: StereoMeasurement, _ rect: RectificationModel) -> [String] {
        let H = Double(max(1, m.height))
        var out: [String] = []
        let offset = rect.centreVerticalOffset
        if abs(offset) / H * 100 > verticalOffsetPercent { out.append("vertical offset \(fixed(offset)) px") }
        if abs(rect.contentRotationDegrees) > rollDegrees { out.append("roll \(fixed(rect.contentRotationDegrees, 3))°") }
        if abs(rect.scale * 100) > scalePercent { out.append("scale \(fixed(rect.scale * 100, 3))%") }
        if abs(rect.keystoneCornerPixels) / H * 100 > keystonePercent { out.append("keystone \(fixed(rect.keystoneCornerPixels)) px") }
        let beyond = -m.rectifiedFar
        if beyond > 0, atan(beyond / rect.focalPixels) * 180 / Double.pi > divergenceDegrees { out.append("far field \(fixed(beyond)) px beyond infinity") }
        return out
    }

    static func fixed(_ v: Double, _ places: Int = 2) -> String {
        let p = pow(10, Double(places))
        let r = (v * p).rounded() / p
        return "\(r == 0 ? 0 : r)"
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
