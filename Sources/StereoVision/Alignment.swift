#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
/// What `--align` does to a measured pair: one warp of the right eye (rectification: vertical offset, roll, focal
/// scale, keystone; plus a horizontal re-centring when the far field lies beyond infinity), the left eye untouched,
/// both cropped to the largest common rectangle (``StereoWarp/largestCommonArea(_:width:height:)``).
public struct PairAlignment: Sendable {
    /// Homographies applied to each eye (the left one is the identity).
    public var leftHomography: [Double]
    public var rightHomography: [Double]
    /// Crop of both eyes after warping, in input pixels (even offsets and sizes).
    public var crop: (x: Int, y: Int, width: Int, height: Int)
    /// Horizontal shift (pixels) added after the rectification to put the far field back where it belongs
    /// (``farFieldTarget(rectifiedFar:centreShift:)``); 0 when it is there already. Positive: the right eye moved right
    /// (every disparity smaller by this much).
    public var recentreShift: Double
    /// Where the far field sits after the warp, pixels of disparity (where the source showed it, or 0).
    public var farFieldAfter = 0.0
    /// Where the far field sat in the source as shown (rectified far field plus the rectification's own shift of the
    /// centre), pixels.
    public var farFieldShown = 0.0
    public var model: RectificationModel

    /// The crop as report text: "W×H" and where it sits when not centred.
    public static func cropText(_ c: (x: Int, y: Int, width: Int, height: Int), width: Int, height: Int) -> String {
        let centred = abs(2 * c.x + c.width - width) <= 2 && abs(2 * c.y + c.height - height) <= 2
        return "\(c.width)×\(c.height)"
            + (centred ? " around the centre" : " at x \(c.x), y \(c.y) (\(width)×\(height) before)")
    }

    /// A far field off its target by more than this many pixels is moved.
    public static let recentreTolerance = 0.5

    /// Where the far field belongs after a rotation that changes disparity: where the source showed it — the far
    /// field after rectification (`rectifiedFar`) plus the horizontal shift the rectification itself gave the centre
    /// (`centreShift`, f·tan(yaw) for a yaw) — or at infinity (0) when the source shows it beyond infinity.
    public static func farFieldTarget(rectifiedFar: Double, centreShift: Double) -> Double {
        max(0, rectifiedFar + centreShift)
    }

    /// The horizontal shift to add after the rectification so the far field lands on its target (0 when within
    /// ``recentreTolerance``).
    public static func farFieldShift(rectifiedFar: Double, centreShift: Double) -> Double {
        let shift = rectifiedFar - farFieldTarget(rectifiedFar: rectifiedFar, centreShift: centreShift)
        return abs(shift) > recentreTolerance ? shift : 0
    }

    public static func plan(_ m: StereoMeasurement, _ rect: RectificationModel) -> PairAlignment {
        var H = rect.homography
        let shown = m.rectifiedFar + rect.centreHorizontalShift
        let shift = farFieldShift(rectifiedFar: m.rectifiedFar, centreShift: rect.centreHorizontalShift)
        if shift != 0 { H = Mat3.translated(H, shift, 0) }
        let crop =
            StereoWarp.largestCommonArea(H, width: m.width, height: m.height)
            ?? (0, 0, m.width & ~1, m.height & ~1)
        return PairAlignment(
            leftHomography: [1, 0, 0, 0, 1, 0, 0, 0, 1], rightHomography: H, crop: crop,
            recentreShift: shift,
            farFieldAfter: m.rectifiedFar - shift, farFieldShown: shown, model: rect)
    }

    /// The report's words for the far field's move, empty when none was needed.
    public var farFieldText: String {
        guard recentreShift != 0 else { return "" }
        let target =
            farFieldShown < 0
            ? "at infinity (the source showed it \(AlignmentTolerance.fixed(-farFieldShown, 1)) px beyond)"
            : "where the source showed it"
        let by = AlignmentTolerance.fixed(-recentreShift, 1), to = AlignmentTolerance.fixed(farFieldAfter, 1)
        return ", far field put back by \(by) px to \(to) px, \(target)"
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
    /// Toe-in / toe-out between the camera axes (the rectification's yaw), degrees.
    public static let toeDegrees = 0.5
    /// Far content beyond infinity after rectification, degrees of divergence.
    public static let divergenceDegrees = 0.1

    /// The alignable faults a measurement shows, each as "name value" text (empty: a fault-free pair, nothing for
    /// `--align` to do). `rect` is the measurement's rectification.
    public static func faults(_ m: StereoMeasurement, _ rect: RectificationModel) -> [String] {
        let H = Double(max(1, m.height))
        var out: [String] = []
        let offset = rect.centreVerticalOffset
        if abs(offset) / H * 100 > verticalOffsetPercent { out.append("vertical offset \(fixed(offset)) px") }
        if abs(rect.contentRotationDegrees) > rollDegrees {
            out.append("roll \(fixed(rect.contentRotationDegrees, 3))°")
        }
        if abs(rect.scale * 100) > scalePercent { out.append("scale \(fixed(rect.scale * 100, 3))%") }
        if abs(rect.yawDegrees) >= toeDegrees {
            out.append(
                "\(rect.yaw < 0 ? "toe-in" : "toe-out") \(fixed(abs(rect.yawDegrees)))° (keystone \(fixed(rect.keystoneCornerPixels)) px)"
            )
        }
        // The far field as the viewer sees it: a toe-in's shift of infinity counts.
        let beyond = -(m.rectifiedFar + min(0, rect.centreHorizontalShift))
        if beyond > 0, atan(beyond / rect.focalPixels) * 180 / Double.pi > divergenceDegrees {
            out.append("far field \(fixed(beyond)) px beyond infinity")
        }
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
    /// The comfort bounds of the chosen adjustment, percent of the width (Specs/validation.md).
    public static let minPercent = -2.0, maxPercent = 5.0

    /// Percent of the width for a near (98th percentile, rectified) disparity in pixels, within the comfort bounds.
    public static func percent(nearDisparity: Double, width: Int) -> Double {
        choice(nearDisparity: nearDisparity, width: width).percent
    }

    /// The adjustment chosen (`percent`, within ``minPercent`` … ``maxPercent``) and the one the nearest content would
    /// need (`wanted`); they differ when the bound capped the choice — the content then stays `wanted − percent` % of
    /// the width in front of the window, which callers must say.
    public static func choice(nearDisparity: Double, width: Int) -> (percent: Double, wanted: Double) {
        let p = ((nearDisparity / Double(max(1, width)) * 100 + marginPercent) * 100).rounded() / 100
        return (min(maxPercent, max(minPercent, p)), p)
    }

    /// The sentence that reports a capped choice, nil when the bounds did not cap it. `hfovDegrees`: the field of view
    /// of the eyes (for the angle the content stays in front of the window).
    public static func capNote(nearDisparity: Double, width: Int, hfovDegrees: Double) -> String? {
        let c = choice(nearDisparity: nearDisparity, width: width)
        guard c.percent != c.wanted else { return nil }
        let f = Double(max(1, width)) / 2 / tan(min(max(hfovDegrees, 1), 179) * Double.pi / 360)
        let leftPx = (c.wanted - c.percent) / 100 * Double(width)
        let deg = atan(abs(leftPx) / f) * 180 / Double.pi
        let bound =
            c.percent == maxPercent
            ? "capped at the +\(fmt(maxPercent))% comfort bound" : "held at the \(fmt(minPercent))% comfort bound"
        return c.wanted > c.percent
            ? "\(bound): the nearest content would need \(fmt(c.wanted))%, so it stays \(fmt(c.wanted - c.percent))% of the width (\(fmt(leftPx)) px, \(fmt(deg))°) in front of the window"
            : "\(bound): the nearest content would allow \(fmt(c.wanted))%, so the window stands \(fmt(c.percent - c.wanted))% of the width (\(fmt(-leftPx)) px, \(fmt(deg))°) in front of it"
    }

    static func fmt(_ v: Double) -> String { AlignmentTolerance.fixed(v) }
}
