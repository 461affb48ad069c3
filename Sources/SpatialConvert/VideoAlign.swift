import BinaryIO
import ImageFormats
import MediaDecode
import StereoVision
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One shot of a clip as `convert --align` / `--auto-disparity` saw it.
public struct VideoShotAlignment: Sendable {
    /// First frame of the shot (display order, 0-based) and its length.
    public var firstFrame: Int
    public var frameCount: Int
    /// Frames measured in the shot, and those measured reliably (confidence ≥ ``VideoAligner/minConfidence``).
    public var samples: Int
    public var reliableSamples: Int
    /// Median confidence of the samples (a failed measurement counts as 0).
    public var confidence: Double
    /// The combined rectification (weighted medians of the samples' parameters), when the shot was measured reliably.
    public var model: RectificationModel?
    /// Horizontal shift that re-centres a far field beyond infinity (0 when none), pixels.
    public var recentreShift: Double
    /// Row-major homography applied to the non-hero eye (identity when the shot is left unwarped).
    public var homography: [Double]
    /// Whether the non-hero eye of this shot is warped.
    public var warped: Bool
    /// Vertical disparity |dy| of the samples before alignment: median over the samples of their median and p95, px.
    public var beforeMedian: Double?
    public var beforeP95: Double?
    /// Nearest significant content (98th percentile of the disparity as shown after the shot's warp), px.
    public var nearDisparity: Double?
    /// What was done and why, one line.
    public var note: String
    /// The frames measured (display order).
    public var sampleFrames: [Int] = []
}

/// What `--align` / `--auto-disparity` did to a video.
public struct VideoAlignmentReport: Sendable {
    public var shots: [VideoShotAlignment]
    /// Crop of both eyes for the whole clip, in input eye pixels (the full eye when nothing is warped).
    public var crop: (x: Int, y: Int, width: Int, height: Int)
    /// Field of view before and after the crop, degrees.
    public var hfovBefore: Double
    public var hfovAfter: Double
    /// The disparity adjustment chosen by `--auto-disparity`, percent of the (cropped) width.
    public var disparityPercent: Double?
    /// Vertical disparity |dy| before (median over the sampled frames of their median / p95), px.
    public var beforeMedian: Double?
    public var beforeP95: Double?
    /// The same measured on the frames handed to the encoder (warped and cropped), at sampled frames of warped shots.
    public var afterMedian: Double?
    public var afterP95: Double?
    public var afterFrames = 0
    /// Frames decoded and frames measured while estimating.
    public var framesScanned = 0
    public var framesMeasured = 0
    public var lines: [String]
}

/// Estimates one rectifying warp per shot of a stereo video and applies it while converting (`convert --align`),
/// and chooses one disparity adjustment for the clip (`--auto-disparity`). See Specs/validation.md ("Fixes").
public enum VideoAligner {
    /// Samples and shots below this confidence are not used / not warped.
    public static let minConfidence = 0.3
    /// A shot whose fitted vertical-disparity field stays below this at the corners and the centre (pixels) is not
    /// warped: the warp and its crop would cost more picture than they fix.
    public static let negligiblePixels = 0.1
    /// At most this many frames of each shot are kept to check the combined warp on them.
    static let verifyPerShot = 3
    /// At most this many frames are measured after warping, during encoding.
    static let maxAfterFrames = 24

    /// The plan the conversion follows: shot boundaries, the warp of each, the crop.
    final class Plan: @unchecked Sendable {
        var report: VideoAlignmentReport
        let heroIsLeft: Bool
        /// Frames of warped shots at which the output is measured again.
        var afterFrames: Set<Int>
        private var afterMedians: [Double] = []
        private var afterP95s: [Double] = []
        private var shotIndex = 0

        init(report: VideoAlignmentReport, heroIsLeft: Bool, afterFrames: Set<Int>) {
            self.report = report; self.heroIsLeft = heroIsLeft; self.afterFrames = afterFrames
        }

        var cropSize: (width: Int, height: Int) { (report.crop.width, report.crop.height) }

        /// The shot a frame belongs to (frames arrive in order).
        func shot(for frame: Int) -> VideoShotAlignment? {
            let shots = report.shots
            guard !shots.isEmpty else { return nil }
            if shotIndex >= shots.count || shots[shotIndex].firstFrame > frame { shotIndex = 0 }
            while shotIndex + 1 < shots.count && shots[shotIndex + 1].firstFrame <= frame { shotIndex += 1 }
            return shots[shotIndex]
        }

        /// Warps the non-hero eye of `frame` with its shot's warp and crops both eyes to the clip's crop.
        func apply(_ pair: (Image, Image), frame: Int) throws(ParseError) -> (Image, Image) {
            let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
            let s = shot(for: frame)
            let h = s?.warped == true ? (s?.homography ?? identity) : identity
            let c = report.crop
            // Nothing to do for this frame (an unwarped shot, no crop): the frame passes untouched.
            if h == identity && c.x == 0 && c.y == 0 && c.width == pair.0.width && c.height == pair.0.height {
                return pair
            }
            let l = try PairAligner.apply(pair.0, homography: heroIsLeft ? identity : h, crop: c)
            let r = try PairAligner.apply(pair.1, homography: heroIsLeft ? h : identity, crop: c)
            if afterFrames.contains(frame),
                let m = PairAligner.measure(l, r, hfovDegrees: report.hfovAfter).measurement,
                m.confidence >= VideoAligner.minConfidence
            {
                afterMedians.append(m.medianAbsDy); afterP95s.append(m.p95AbsDy)
            }
            return (l, r)
        }

        /// The report with the figures measured during encoding.
        func finished() -> VideoAlignmentReport {
            var r = report
            r.afterMedian = Stats.median(afterMedians); r.afterP95 = Stats.median(afterP95s);
            r.afterFrames = afterMedians.count
            if let a = r.afterMedian, let b = r.afterP95 {
                r.lines.append(
                    "after:  vertical disparity |dy| median \(NumberText.fixed(a, places: 2)) px, p95 \(NumberText.fixed(b, places: 2)) px (median over \(r.afterFrames) frames of warped shots, measured on the frames encoded)"
                )
            } else if r.shots.contains(where: \.warped) {
                r.lines.append("after:  the warped frames could not be measured reliably")
            }
            return r
        }
    }

    /// One measured frame.
    struct Sample {
        var frame: Int
        var confidence: Double
        var model: RectificationModel?
        var rectifiedFar = 0.0, rectifiedNear = 0.0, shownNear = 0.0
        var medianAbsDy = 0.0, p95AbsDy = 0.0
    }

    /// Frames of one shot as they are read.
    struct ShotScan {
        var first: Int
        var count = 0
        var samples: [Sample] = []
        var kept: [(Image, Image, Sample)] = []
        var nextSample = 1
    }

    /// Cheap shot-cut signature: mean luma of a 32×18 grid of cells (every 4th sample in each cell).
    static func signature(_ img: Image) -> [Float] {
        guard case .u8(let planes) = img.planes, let y = planes.first else { return [] }
        let w = img.width, h = img.height, ch = img.format.interleavedChannels
        let gx = 32, gy = 18
        var out = [Float](repeating: 0, count: gx * gy)
        guard w >= gx, h >= gy, y.count >= w * h * ch else { return out }
        for cy in 0..<gy {
            let y0 = h * cy / gy, y1 = h * (cy + 1) / gy
            for cx in 0..<gx {
                let x0 = w * cx / gx, x1 = w * (cx + 1) / gx
                var s = 0, n = 0
                var yy = y0
                while yy < y1 {
                    var xx = x0
                    while xx < x1 { s += Int(y[(yy * w + xx) * ch]); n += 1; xx += 2 }
                    yy += 2
                }
                out[cy * gx + cx] = n > 0 ? Float(s) / Float(n) : 0
            }
        }
        return out
    }

    /// A cut between two frames: the grid differs by more than 8 grey levels on average and by more than 3× the
    /// recent frame-to-frame change of the shot (median of the last 8), so steady motion is not a cut. A panning
    /// random texture (the hardest case: no large structures) changes the grid by 4.3 levels a frame and a cut to
    /// another such texture by 16.
    static func isCut(_ d: Double, recent: [Double]) -> Bool {
        guard d > 8 else { return false }
        guard let m = Stats.median(recent) else { return true }
        return d > 3 * max(m, 1)
    }

    static func weightedMedian(_ values: [(Double, Double)]) -> Double {
        let s = values.sorted { $0.0 < $1.0 }
        let total = s.reduce(0) { $0 + $1.1 }
        var acc = 0.0
        for v in s { acc += v.1; if acc >= total / 2 { return v.0 } }
        return s.last?.0 ?? 0
    }

    /// Reads the whole clip once (a second set of producers), finds the shots, measures sampled frames of each,
    /// combines them into one warp per shot, and decides the crop and the disparity adjustment.
    static func estimate(
        _ plan: VideoConverter.Plan, input: VideoInput, options o: VideoConversionOptions, hfovDegrees: Double,
        cancellation: ConversionCancellation?, progress: ((VideoConversionProgress) -> Void)? = nil
    ) throws(ParseError) -> Plan {
        var scanNotes: [String] = []
        var scan = plan
        scan.producers = try VideoConverter.openProducers(input, options: o, notes: &scanNotes).producers
        defer { for p in scan.producers { p.abort() } }
        let W = plan.eyeW, H = plan.eyeH
        let fps = Double(plan.fpsNum) / Double(max(1, plan.fpsDen))
        let gap = max(1, Int((2 * fps).rounded()))
        var shots: [VideoShotAlignment] = []
        var current: ShotScan? = nil
        var cutDetector = ShotCutDetector()
        var frame = 0, measured = 0
        let t0 = monotonicSeconds()
        var lastProgress = t0
        let total = scan.producers.map(\.frameCountHint).compactMap { $0 }.min()

        func measure(_ pair: (Image, Image), frame: Int) -> Sample {
            measured += 1
            guard let m = PairAligner.measure(pair.0, pair.1, hfovDegrees: hfovDegrees).measurement else {
                return Sample(frame: frame, confidence: 0)
            }
            var s = Sample(frame: frame, confidence: m.confidence, model: m.rectification)
            s.rectifiedFar = m.rectifiedFar; s.rectifiedNear = m.rectifiedNear
            s.shownNear = m.rectifiedNear + (m.rectification?.centreHorizontalShift ?? 0)
            if m.rectification == nil { s.shownNear = m.disparityNear }
            s.medianAbsDy = m.medianAbsDy; s.p95AbsDy = m.p95AbsDy
            return s
        }

        while let pair = try VideoConverter.nextPair(scan, options: o, frames: frame, cancellation: cancellation) {
            if cutDetector.startsShot(pair.0) || current == nil {
                if let c = current {
                    shots.append(
                        try finish(c, width: W, height: H, heroIsLeft: o.heroIsLeft, hfov: hfovDegrees, align: o.align))
                }
                current = ShotScan(first: frame)
            }
            if var c = current {
                let rel = frame - c.first
                if rel == c.nextSample {
                    let s = measure(pair, frame: frame)
                    c.samples.append(s)
                    if c.kept.count < verifyPerShot, s.confidence >= minConfidence {
                        c.kept.append((pair.0, pair.1, s))
                    }
                    c.nextSample = rel + gap * max(1, c.samples.count / 4)
                }
                c.count += 1
                current = c
            }
            frame += 1
            let now = monotonicSeconds()
            if let progress, now - lastProgress >= 0.25 {
                lastProgress = now
                progress(
                    VideoConversionProgress(
                        frames: frame, totalFrames: total, elapsedSeconds: now - t0, estimating: true))
            }
        }
        for p in scan.producers { try p.finish() }
        if let c = current {
            shots.append(
                try finish(c, width: W, height: H, heroIsLeft: o.heroIsLeft, hfov: hfovDegrees, align: o.align))
        }

        return alignmentPlan(
            shots: shots, width: W, height: H, framesScanned: frame, framesMeasured: measured, options: o,
            hfovDegrees: hfovDegrees)
    }

    /// The plan from the scanned shots: one crop for the whole clip, the report's lines, the disparity adjustment and
    /// the frames measured again after warping.
    private static func alignmentPlan(
        shots scanned: [VideoShotAlignment], width W: Int, height H: Int, framesScanned frame: Int,
        framesMeasured measured: Int, options o: VideoConversionOptions,
        hfovDegrees: Double
    ) -> Plan {
        var shots = scanned
        // One crop for the whole clip: the intersection of the warped shots' largest common areas.
        var x0 = 0, y0 = 0, x1 = W & ~1, y1 = H & ~1
        for (i, s) in shots.enumerated() where s.warped {
            guard let c = StereoWarp.largestCommonArea(s.homography, width: W, height: H),
                max(x0, c.x) + 2 <= min(x1, c.x + c.width), max(y0, c.y) + 2 <= min(y1, c.y + c.height)
            else {
                shots[i].warped = false
                continue
            }
            x0 = max(x0, c.x); y0 = max(y0, c.y); x1 = min(x1, c.x + c.width); y1 = min(y1, c.y + c.height)
        }
        let crop =
            shots.contains(where: \.warped)
            ? (x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            : (x: 0, y: 0, width: W, height: H)
        let f = Double(W) / 2 / tan(hfovDegrees * Double.pi / 360)
        let hfovAfter = crop.width == W ? hfovDegrees : 2 * atan(Double(crop.width) / 2 / f) * 180 / Double.pi
        var rep = VideoAlignmentReport(
            shots: shots, crop: crop, hfovBefore: hfovDegrees, hfovAfter: hfovAfter, lines: [])
        rep.framesScanned = frame; rep.framesMeasured = measured
        rep.beforeMedian = Stats.median(shots.compactMap(\.beforeMedian));
        rep.beforeP95 = Stats.median(shots.compactMap(\.beforeP95))
        let cuts = shots.dropFirst().map { "\($0.firstFrame)" }
        rep.lines.append(
            "geometry estimated per shot: \(shots.count) shot\(shots.count == 1 ? "" : "s")\(cuts.isEmpty ? "" : " (cuts before frames \(cuts.joined(separator: ", ")))"), \(measured) of \(frame) frames measured"
        )
        for (i, s) in shots.enumerated() {
            rep.lines.append("shot \(i + 1) (frames \(s.firstFrame)–\(s.firstFrame + s.frameCount - 1)): \(s.note)")
        }
        if o.align {
            if shots.contains(where: \.warped) {
                rep.lines.append(
                    "--align: \(o.heroIsLeft ? "right" : "left") (non-hero) eye warped, one warp per shot; both eyes cropped to \(PairAlignment.cropText(crop, width: W, height: H)) for the whole clip; field of view \(NumberText.fixed(hfovDegrees, places: 2))° → \(NumberText.fixed(hfovAfter, places: 2))°"
                )
            } else {
                rep.lines.append("--align: no shot warped; the eyes are encoded as they are")
            }
            if let a = rep.beforeMedian, let b = rep.beforeP95 {
                rep.lines.append(
                    "before: vertical disparity |dy| median \(NumberText.fixed(a, places: 2)) px, p95 \(NumberText.fixed(b, places: 2)) px (median over the shots of their samples)"
                )
            }
        }
        if o.autoDisparity {
            let nears = shots.compactMap(\.nearDisparity)
            if let near = nears.max() {
                let p = AutoDisparity.percent(nearDisparity: near, width: crop.width)
                rep.disparityPercent = p
                let cap =
                    AutoDisparity.capNote(nearDisparity: near, width: crop.width, hfovDegrees: hfovAfter).map {
                        " — \($0)"
                    } ?? ""
                rep.lines.append(
                    "--auto-disparity: nearest significant content over the clip (the nearest shot's median 98th percentile) at \(NumberText.fixed(near, places: 1)) px → disparity adjustment \(NumberText.fixed(p, places: 2))% for the whole file\(cap)"
                )
            } else {
                rep.lines.append(
                    "--auto-disparity: no shot could be measured reliably; the disparity adjustment is left at its default"
                )
            }
        }
        // Frames measured again after warping: the samples of warped shots, spread over the clip.
        let candidates = rep.shots.filter(\.warped).flatMap { s in s.sampleFrames }
        var after = Set<Int>()
        if !candidates.isEmpty {
            let n = min(maxAfterFrames, candidates.count)
            for k in 0..<n { after.insert(candidates[k * candidates.count / n]) }
        }
        return Plan(report: rep, heroIsLeft: o.heroIsLeft, afterFrames: o.align ? after : [])
    }

    /// Combines the samples of a finished shot into one warp, checks it on the kept frames, and describes it.
    static func finish(_ c: ShotScan, width W: Int, height H: Int, heroIsLeft: Bool, hfov: Double, align: Bool)
        throws(ParseError) -> VideoShotAlignment
    {
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        var s = VideoShotAlignment(
            firstFrame: c.first, frameCount: c.count, samples: c.samples.count, reliableSamples: 0, confidence: 0,
            model: nil, recentreShift: 0, homography: identity, warped: false, note: "")
        s.sampleFrames = c.samples.map(\.frame)
        let good = c.samples.filter { $0.confidence >= minConfidence && $0.model != nil }
        s.reliableSamples = good.count
        s.confidence = Stats.median(c.samples.map(\.confidence)) ?? 0
        guard !c.samples.isEmpty else { s.note = "too short to measure: left unwarped"; return s }
        guard !good.isEmpty, s.confidence >= minConfidence else {
            s.note =
                "cannot measure reliably (confidence \(NumberText.fixed(s.confidence, places: 2)), \(good.count) of \(c.samples.count) samples usable; wrong --layout?): left unwarped"
            return s
        }
        s.beforeMedian = Stats.median(good.map(\.medianAbsDy)); s.beforeP95 = Stats.median(good.map(\.p95AbsDy))
        s.nearDisparity = Stats.median(good.map(\.shownNear))
        let base = good.compactMap(\.model)
        guard var m = base.first else { return s }
        func wm(_ k: (RectificationModel) -> Double) -> Double {
            weightedMedian(zip(good, base).map { (k($0.1), $0.0.confidence) })
        }
        m.verticalOffset = wm(\.verticalOffset); m.pitch = wm(\.pitch); m.yaw = wm(\.yaw); m.roll = wm(\.roll);
        m.scale = wm(\.scale)
        s.model = m
        let far = weightedMedian(good.map { ($0.rectifiedFar, $0.confidence) })
        var h = m.homography
        // The far field back where the source showed it (at infinity when it diverged): the same rule as a pair's.
        let shift = PairAlignment.farFieldShift(rectifiedFar: far, centreShift: m.centreHorizontalShift)
        if shift != 0 { s.recentreShift = shift; h = Mat3.translated(h, shift, 0) }
        let target = PairAlignment.farFieldTarget(rectifiedFar: far, centreShift: m.centreHorizontalShift)
        // The fitted field's largest vertical disparity at the corners and the centre.
        let Wm = Double(W - 1), Hm = Double(H - 1)
        let field =
            [(0.0, 0.0), (Wm, 0), (0, Hm), (Wm, Hm), (Wm / 2, Hm / 2)].map {
                abs(m.verticalDisparity(atX: $0.0, y: $0.1))
            }.max() ?? 0
        guard align else {
            s.note =
                "measured: offset \(NumberText.fixed(m.centreVerticalOffset, places: 2)) px, roll \(NumberText.fixed(m.contentRotationDegrees, places: 3))°, scale \(NumberText.fixed(m.scale * 100, places: 3))%, nearest content \(NumberText.fixed(s.nearDisparity ?? 0, places: 1)) px from \(good.count) of \(c.samples.count) samples"
                + (field >= 0.5
                    ? "; vertical disparity up to \(NumberText.fixed(field, places: 1)) px at the corners: --align would remove it"
                    : "")
            s.recentreShift = 0
            return s
        }
        // A shot whose fitted field moves no corner by ``negligiblePixels`` vertically and needs no re-centring keeps
        // all its pixels.
        if field < negligiblePixels && s.recentreShift == 0 {
            s.note =
                "no fault worth a warp (vertical disparity of the fitted field at most \(NumberText.fixed(field, places: 2)) px at the corners, from \(good.count) of \(c.samples.count) samples): left unwarped"
            return s
        }
        guard let nonHero = heroIsLeft ? h : Mat3.inverse(h),
            let crop = StereoWarp.largestCommonArea(nonHero, width: W, height: H)
        else {
            s.note = "the warp leaves no usable common area: left unwarped"
            return s
        }
        let figures =
            "offset \(NumberText.fixed(m.centreVerticalOffset, places: 2)) px, roll \(NumberText.fixed(m.contentRotationDegrees, places: 3))°, scale \(NumberText.fixed(m.scale * 100, places: 3))%, yaw \(NumberText.fixed(m.yawDegrees, places: 2))°\(s.recentreShift != 0 ? ", far field put back by \(NumberText.fixed(-s.recentreShift, places: 1)) px to \(NumberText.fixed(target, places: 1)) px" : "") from \(good.count) of \(c.samples.count) samples (confidence \(NumberText.fixed(s.confidence, places: 2)))"
        // The combined warp on the kept frames: never make a shot worse.
        var before: [Double] = [], beforeP: [Double] = [], after: [Double] = [], afterP: [Double] = [],
            nears: [Double] = []
        for k in c.kept {
            let l = try PairAligner.apply(k.0, homography: heroIsLeft ? identity : nonHero, crop: crop)
            let r = try PairAligner.apply(k.1, homography: heroIsLeft ? nonHero : identity, crop: crop)
            guard let m2 = PairAligner.measure(l, r, hfovDegrees: hfov).measurement, m2.confidence >= minConfidence
            else { continue }
            before.append(k.2.medianAbsDy); beforeP.append(k.2.p95AbsDy); after.append(m2.medianAbsDy);
            afterP.append(m2.p95AbsDy)
            nears.append(m2.rectifiedNear)
        }
        if let b = Stats.median(before), let bp = Stats.median(beforeP), let a = Stats.median(after),
            let ap = Stats.median(afterP),
            a > b + 0.05 || ap > bp + 0.1
        {
            s.note =
                "\(figures); the warped frames measure no better (|dy| median \(NumberText.fixed(b, places: 2)) → \(NumberText.fixed(a, places: 2)) px, p95 \(NumberText.fixed(bp, places: 2)) → \(NumberText.fixed(ap, places: 2)) px): left unwarped"
            return s
        }
        s.homography = nonHero
        s.warped = true
        if let n = Stats.median(nears) {
            s.nearDisparity = n
        } else {
            s.nearDisparity = Stats.median(good.map(\.rectifiedNear)).map { $0 - s.recentreShift }
        }
        s.note = "\(figures): warped"
        return s
    }
}
