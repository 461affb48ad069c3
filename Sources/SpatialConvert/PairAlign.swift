import BinaryIO
import Codecs
import Dispatch
import ImageFormats
import MediaDecode
import StereoVision
import SystemSupport

/// Geometry figures of a pair, printed before and after `--align`.
public struct PairFigures: Sendable {
    public var medianAbsDy: Double
    public var p95AbsDy: Double
    public var verticalOffset: Double
    public var rollDegrees: Double
    public var scalePercent: Double
    public var yawDegrees: Double
    public var disparityFar: Double
    public var disparityNear: Double
    public var inliers: Int
    public var confidence: Double

    init(_ m: StereoMeasurement) {
        medianAbsDy = m.medianAbsDy; p95AbsDy = m.p95AbsDy
        let r = m.rectification
        verticalOffset = r?.centreVerticalOffset ?? m.medianDy
        rollDegrees = r?.contentRotationDegrees ?? 0
        scalePercent = (r?.scale ?? 0) * 100
        yawDegrees = r?.yawDegrees ?? 0
        disparityFar = m.rectification == nil ? m.disparityFar : m.rectifiedFar
        disparityNear = m.rectification == nil ? m.disparityNear : m.rectifiedNear
        inliers = m.matches.count; confidence = m.confidence
    }

    public var line: String {
        func n(_ v: Double, _ p: Int = 2) -> String { NumberText.fixed(v, places: p) }
        return
            "vertical disparity |dy| median \(n(medianAbsDy)) px, p95 \(n(p95AbsDy)) px; offset \(n(verticalOffset)) px, roll \(n(rollDegrees, 3))°, scale \(n(scalePercent, 3))%, yaw \(n(yawDegrees))°; disparity far \(n(disparityFar)) px, near \(n(disparityNear)) px (\(inliers) inliers, confidence \(n(confidence)))"
    }
}

/// What `--align` / `--auto-disparity` did to a pair.
public struct PairPreparationReport: Sendable {
    public var before: PairFigures?
    public var after: PairFigures?
    /// The field of view after the crop (when aligned).
    public var hfovDegrees: Double?
    /// The disparity adjustment chosen by `--auto-disparity`, percent of the width.
    public var disparityPercent: Double?
    public var lines: [String]
    /// `--align` warped and cropped the eyes (false when the pair needed no alignment, could not be measured, or
    /// would not improve).
    public var aligned = false
    /// What was applied to the eyes when ``aligned``: each eye's homography and the common crop, in eye pixels (so a
    /// job can transform the eyes' auxiliary images the same way).
    public var warp: EyeWarp?
}

/// Measurement, rectification (`--align`) and automatic window placement (`--auto-disparity`) of stereo pairs.
public enum PairAligner {
    /// Luma of an image on a 0…255 scale, reduced by an integer factor so the longer side is at most `maxSide`.
    public static func luma(_ img: Image, maxSide: Int = 4096) -> (gray: GrayImage, factor: Int)? {
        let w = img.width, h = img.height
        guard w > 0, h > 0 else { return nil }
        let k = max(1, (max(w, h) + maxSide - 1) / maxSide)
        let ow = max(1, w / k), oh = max(1, h / k)
        let norm = 255.0 / Double(img.maxValue)
        let rgb = img.format == .rgb || img.format == .rgba
        if k == 1 {
            // Fast path: read the first plane directly.
            let ch = img.format.interleavedChannels, n = w * h
            let fn = Float(norm)
            @inline(__always) func convert<T: BinaryInteger>(_ p: [T]) -> [Float] {
                guard p.count >= n * ch else { return [] }
                let kr = 0.299 * fn, kg = 0.587 * fn, kb = 0.114 * fn
                return [Float](unsafeUninitializedCapacity: n) { o, count in
                    p.withUnsafeBufferPointer { src in
                        if rgb {
                            for i in 0..<n {
                                let j = i &* ch;
                                o[i] = kr * Float(src[j]) + kg * Float(src[j &+ 1]) + kb * Float(src[j &+ 2])
                            }
                        } else {
                            for i in 0..<n { o[i] = Float(src[i &* ch]) * fn }
                        }
                    }
                    count = n
                }
            }
            let px: [Float]
            switch img.planes {
            case .u8(let ps): px = ps.first.map { convert($0 as [UInt8]) } ?? []
            case .u16(let ps): px = ps.first.map { convert($0 as [UInt16]) } ?? []
            }
            return GrayImage(width: w, height: h, pixels: px).map { ($0, 1) }
        }
        var out = [Float](repeating: 0, count: ow * oh)
        for oy in 0..<oh {
            for ox in 0..<ow {
                var s = 0.0
                for yy in (oy * k)..<(oy * k + k) {
                    for xx in (ox * k)..<(ox * k + k) {
                        if rgb {
                            s +=
                                0.299 * Double(img.sample(0, xx, yy, channel: 0)) + 0.587
                                * Double(img.sample(0, xx, yy, channel: 1)) + 0.114
                                * Double(img.sample(0, xx, yy, channel: 2))
                        } else {
                            s += Double(img.sample(0, xx, yy))
                        }
                    }
                }
                out[oy * ow + ox] = Float(s / Double(k * k) * norm)
            }
        }
        return GrayImage(width: ow, height: oh, pixels: out).map { ($0, k) }
    }

    /// Measures a pair (full resolution up to 4096 px per side).
    public static func measure(_ left: Image, _ right: Image, hfovDegrees: Double?) -> StereoAnalysisResult {
        // Both eyes' luma at once (one per core).
        let slots = Slots<(gray: GrayImage, factor: Int)>(count: 2)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            if let g = luma(i == 0 ? left : right) { slots.set(i, g) }
        }
        guard let a = slots.get(0), let b = slots.get(1) else { return .cannotMeasure("the eyes are empty") }
        var o = StereoAnalysisOptions()
        o.hfovDegrees = hfovDegrees
        o.occlusionTest = false
        switch StereoAnalyzer.analyze(left: a.gray, right: b.gray, options: o) {
        case .cannotMeasure(let why): return .cannotMeasure(why)
        case .measured(var m):
            guard a.factor > 1 else { return .measured(m) }
            // Back to input pixels.
            let s = Double(a.factor)
            func up(_ v: Double) -> Double { (v + 0.5) * s - 0.5 }
            m.matches = m.matches.map {
                StereoMatch(xl: up($0.xl), yl: up($0.yl), xr: up($0.xr), yr: up($0.yr), ncc: $0.ncc)
            }
            m.width = left.width; m.height = left.height
            for k in [
                \StereoMeasurement.medianDy, \.medianAbsDy, \.p95AbsDy, \.meanDy, \.residualRMS, \.disparityFar,
                \.disparityNear, \.disparityMedian,
                \.rectifiedFar, \.rectifiedNear, \.rectifiedMedian, \.rectifiedMedianAbsDy, \.rectifiedP95AbsDy,
            ] { m[keyPath: k] *= s }
            m.rectification = RectificationModel.fitSymmetric(
                m.matches, width: m.width, height: m.height, focalPixels: m.focalPixels)
            return .measured(m)
        }
    }

    /// Applies an alignment plan to one eye: warp through `homography` (identity: crop only) and crop.
    public static func apply(_ img: Image, homography h: [Double], crop: (x: Int, y: Int, width: Int, height: Int))
        throws(ParseError) -> Image
    {
        let identity = h == [1, 0, 0, 0, 1, 0, 0, 0, 1]
        let W = img.width, H = img.height
        guard crop.x >= 0, crop.y >= 0, crop.x + crop.width <= W, crop.y + crop.height <= H, crop.width > 0,
            crop.height > 0
        else {
            throw ParseError(.invalidValue, "alignment crop outside the image")
        }
        let ch = img.format.interleavedChannels
        func planeDims(_ p: Int) -> (w: Int, h: Int, sx: Int, sy: Int) {
            if p == 0 { return (W, H, 1, 1) }
            let s = img.format.chromaShift
            return (
                Image.planeWidth(width: W, format: img.format, plane: p),
                Image.planeHeight(height: H, format: img.format, plane: p), 1 << s.x, 1 << s.y
            )
        }
        func cropFor(_ p: Int) -> (x: Int, y: Int, width: Int, height: Int) {
            let d = planeDims(p)
            // A subsampled plane of an odd-sized crop holds the rounded-up half (as
            // ``Image/planeWidth(width:format:plane:)``).
            return (
                x: crop.x / d.sx, y: crop.y / d.sy, width: max(1, (crop.width + d.sx - 1) / d.sx),
                height: max(1, (crop.height + d.sy - 1) / d.sy)
            )
        }
        func one<T: FixedWidthInteger & UnsignedInteger & Sendable>(_ values: [T], _ p: Int) -> [T] {
            let d = planeDims(p), c = cropFor(p), k = p == 0 ? ch : 1
            return identity
                ? StereoWarp.cropPlane(values, width: d.w, channels: k, crop: c)
                : StereoWarp.warpPlane(
                    values, width: d.w, height: d.h, channels: k, homography: h, subX: d.sx, subY: d.sy, crop: c,
                    maxValue: img.maxValue)
        }
        let planes: Planes
        switch img.planes {
        case .u8(let ps): planes = .u8(ps.indices.map { one(ps[$0], $0) })
        case .u16(let ps): planes = .u16(ps.indices.map { one(ps[$0], $0) })
        }
        return try Image(
            width: crop.width, height: crop.height, bitDepth: img.bitDepth, format: img.format, planes: planes,
            colour: img.colour)
    }

    /// Measures the pair and, as asked, rectifies the right eye onto the left (`align`) and chooses the disparity
    /// adjustment that puts the nearest significant content just behind the window (`autoDisparity`).
    /// A pair that cannot be measured reliably is returned unchanged, with the reason.
    public static func prepare(left: Image, right: Image, hfovDegrees: Double, align: Bool, autoDisparity: Bool)
        throws(ParseError) -> (left: Image, right: Image, report: PairPreparationReport)
    {
        var rep = PairPreparationReport(before: nil, after: nil, hfovDegrees: nil, disparityPercent: nil, lines: [])
        guard left.width == right.width, left.height == right.height else {
            throw ParseError(.invalidValue, "the eyes differ in size")
        }
        guard let m = measure(left, right, hfovDegrees: hfovDegrees).measurement, m.confidence >= 0.3,
            let rect = m.rectification
        else {
            rep.lines.append("cannot measure the pair reliably (wrong layout?): nothing aligned, no disparity chosen")
            return (left, right, rep)
        }
        let before = PairFigures(m)
        rep.before = before
        var l = left, r = right
        var near = m.rectifiedNear + rect.centreHorizontalShift
        let faults = AlignmentTolerance.faults(m, rect)
        if align && faults.isEmpty {
            rep.lines.append(
                "--align: the pair needs no alignment (vertical offset \(NumberText.fixed(before.verticalOffset, places: 2)) px, roll \(NumberText.fixed(before.rollDegrees, places: 3))°, scale \(NumberText.fixed(before.scalePercent, places: 3))%, no far field beyond infinity: all within what validate accepts); the eyes are left as they are, not warped or cropped"
            )
            rep.lines.append("before: " + before.line)
        }
        if align && !faults.isEmpty {
            let plan = PairAlignment.plan(m, rect)
            l = try apply(left, homography: plan.leftHomography, crop: plan.crop)
            r = try apply(right, homography: plan.rightHomography, crop: plan.crop)
            let hf = plan.croppedHFOV(hfovDegrees)
            rep.hfovDegrees = hf
            rep.aligned = true
            rep.warp = EyeWarp(
                leftHomography: plan.leftHomography, rightHomography: plan.rightHomography, crop: plan.crop,
                width: left.width, height: left.height)
            rep.lines.append(
                "--align: fixes \(faults.joined(separator: ", ")); right eye rectified (offset \(NumberText.fixed(before.verticalOffset, places: 2)) px, roll \(NumberText.fixed(before.rollDegrees, places: 3))°, scale \(NumberText.fixed(before.scalePercent, places: 3))%, yaw \(NumberText.fixed(before.yawDegrees, places: 2))°\(plan.farFieldText)), both eyes cropped to \(PairAlignment.cropText(plan.crop, width: left.width, height: left.height)); field of view \(NumberText.fixed(hfovDegrees, places: 2))° → \(NumberText.fixed(hf, places: 2))°"
            )
            rep.lines.append("before: " + before.line)
            if let m2 = measure(l, r, hfovDegrees: hf).measurement {
                let after = PairFigures(m2)
                rep.after = after
                rep.lines.append("after:  " + after.line)
                near = m2.rectifiedNear
                // Never make a pair worse: keep the original when the aligned pair measures no better.
                if after.medianAbsDy > before.medianAbsDy + 0.05 || after.p95AbsDy > before.p95AbsDy + 0.1 {
                    rep.lines.append(
                        "--align: the aligned pair measures no better than the original; the original eyes are kept")
                    l = left; r = right; rep.hfovDegrees = nil; rep.after = nil; rep.aligned = false; rep.warp = nil;
                    near = m.rectifiedNear + rect.centreHorizontalShift
                }
            } else {
                near = m.rectifiedNear - plan.recentreShift
            }
        }
        if autoDisparity {
            let p = AutoDisparity.percent(nearDisparity: near, width: l.width)
            rep.disparityPercent = p
            let cap = AutoDisparity.capNote(
                nearDisparity: near, width: l.width, hfovDegrees: rep.hfovDegrees ?? hfovDegrees)
            rep.lines.append(
                "--auto-disparity: nearest significant content (98th percentile) at \(NumberText.fixed(near, places: 1)) px → disparity adjustment \(NumberText.fixed(p, places: 2))%"
                    + (cap.map { " — \($0)" } ?? " (window just in front of it)"))
        }
        return (l, r, rep)
    }
}
