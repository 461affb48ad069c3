import BinaryIO
import ImageFormats
import MediaDecode
import StereoVision
import SystemSupport

/// Whether the two eyes cut from one frame-packed picture are a stereo pair: the check that keeps an ordinary photo
/// from being written as a "spatial photo" of its two halves.
///
/// The halves are measured (``/StereoVision/StereoAnalyzer``, luma reduced to at most ``maxSide`` px). A pair is
/// recognised when the measurement succeeds with at least ``minimumConfidence``, or with at least
/// ``minimumAgreeingShare`` of its matches agreeing. Otherwise:
/// * layout not given (`auto`): the picture is measured both ways, side by side and top-bottom
///   (``recogniseLayout(_:frames:)``, the one recognition photos and videos share); it is cut the one way whose halves
///   are a stereo pair, and refused otherwise, naming what was measured (`notRecognised`, remedy
///   ``/BinaryIO/ParseError/Remedy/giveLayoutOrForce``) — its shape never decides; a picture with nothing to measure
///   either way (too flat or small) is refused the same way, as a video is: no stereo pair can be seen in it;
/// * layout given: refused the same way, with remedy ``/BinaryIO/ParseError/Remedy/force`` (the validator too gives no
///   verdict below that confidence: the matches that agree are too few to be a stereo pair);
/// * layout given, nothing to measure (halves too small or too flat to find features): converted with a note saying
///   the pair could not be checked.
///
/// Pairs that are two pictures already (an MPO, two files, a spatial photo) and ``PhotoConversionOptions/force`` skip
/// it.
public enum PairRecognition {
    /// Longest side of the luma the check measures (fast; the geometry report measures at full size).
    public static let maxSide = 1024
    /// A measurement with at least this confidence shows a stereo pair (the validator's "unreliable" floor).
    public static let minimumConfidence = 0.3
    /// A measurement of lower confidence (few matches, or a small part of the frame textured) still shows a stereo pair
    /// when at least this share of the refined matches agree on one geometry: chance matches between two different
    /// pictures agree far less (the halves of the corpus's ordinary photos: 46–70 %; a real side-by-side photo with
    /// little texture, `capoda.left-right.jpg`: 95 %).
    public static let minimumAgreeingShare = 0.85

    /// What measuring two pictures as one stereo pair found.
    public enum Verdict: Sendable, Equatable {
        /// They show one scene from two viewpoints: the measurement's confidence (0…1).
        case pair(Double)
        /// Features were found, but they do not agree as one stereo pair (what was measured).
        case notPair(String)
        /// Nothing to measure: too small or too flat (the reason).
        case nothingToMeasure(String)

        public var isPair: Bool { if case .pair = self { return true } else { return false } }
        /// The confidence of a pair, 0 for anything else.
        public var pairConfidence: Double { if case .pair(let c) = self { return c } else { return 0 } }
        public var measurable: Bool { if case .nothingToMeasure = self { return false } else { return true } }
    }

    /// Measures `left` and `right` (luma reduced to ``maxSide``) as one stereo pair, by the criteria above.
    public static func measure(_ left: Image, _ right: Image) -> Verdict {
        guard let a = PairAligner.luma(left, maxSide: maxSide), let b = PairAligner.luma(right, maxSide: maxSide) else {
            return .nothingToMeasure("no picture")
        }
        var o = StereoAnalysisOptions()
        o.occlusionTest = false
        let result = StereoAnalyzer.analyze(left: a.gray, right: b.gray, options: o)
        if let m = result.measurement,
            m.confidence >= minimumConfidence
                || Double(m.matches.count) >= minimumAgreeingShare * Double(m.refinedMatches)
        {
            return .pair(m.confidence)
        }
        if result.failedForLackOfFeatures { return .nothingToMeasure(result.failure ?? "nothing to measure") }
        return .notPair(
            result.measurement.map {
                "only \($0.matches.count) of \($0.refinedMatches) matches agree on one stereo geometry (\(NumberText.fixed($0.coverage * 100, places: 0))% of the frame covered), confidence \(NumberText.fixed($0.confidence, places: 2)) (a stereo pair needs \(NumberText.fixed(minimumConfidence, places: 2)), or \(NumberText.fixed(minimumAgreeingShare * 100, places: 0))% of the matches agreeing)"
            } ?? result.failure ?? "no matches agree")
    }

    /// Checks `pair` as described above; returns a note for the report when the pair could not be checked, nil when it
    /// is recognised or needs no check. A layout that was not given (``/MediaDecode/StereoPair/layoutGuessed``) is
    /// decided here by measuring both ways (``recogniseLayout(_:frames:)``): the pair is cut again when the other way
    /// is the stereo pair; a picture's shape alone never decides.
    public static func check(_ pair: inout StereoPair, options: PhotoConversionOptions) throws(ParseError) -> String? {
        guard let layout = pair.packedLayout, !options.force, !pair.layoutChecked else { return nil }
        pair.layoutChecked = true
        if pair.layoutGuessed { return try recogniseGuessed(&pair, layout: layout, options: options) }
        let cut = layout == .sbs ? "cut side by side" : "cut top and bottom"
        switch measure(pair.left, pair.right) {
        case .pair: return nil
        case .nothingToMeasure(let why):
            return "the stereo pair could not be checked (\(why)); converted \(cut) as told"
        case .notPair(let measured):
            throw ParseError(
                .notRecognised,
                "no stereo pair found: \(cut) as told, its two halves do not match — \(measured); check the layout, or convert anyway if you are sure",
                remedy: .force)
        }
    }

    /// A photo whose layout was not given: the picture put back together from its halves, measured both ways.
    static func recogniseGuessed(_ pair: inout StereoPair, layout: StereoLayout, options: PhotoConversionOptions)
        throws(ParseError) -> String?
    {
        let whole = try ImageOps.join(pair.left, pair.right, vertical: layout == .tb, limits: options.limits)
        let r = recogniseLayout([whole])
        // A picture with nothing to measure either way (too small or flat to find features) shows no stereo pair: it is
        // refused as a video is, naming what was measured (the layout, when given, is taken as told).
        guard let found = r.layout else { throw r.refusal(subject: "the picture", kind: "an ordinary picture") }
        var how = "layout \(found == .sbs ? "side by side" : "top-bottom") measured (\(r.summary))"
        if !options.swapEyes { how += "; " + (try checkEyeOrder([whole], layout: found, subject: "the picture")) }
        if found != layout {
            guard !options.halfResolution else {
                throw ParseError(
                    .notRecognised,
                    "the picture measures as \(found == .sbs ? "side by side" : "top-bottom") (\(r.summary)): name that layout",
                    remedy: .giveLayout)
            }
            let eyes = try StereoImages.halves(whole, layout: found)
            pair.left = eyes.left; pair.right = eyes.right
            pair.packedLayout = found
            let kind =
                pair.sourceDescription.lastIndex(of: " ").map { String(pair.sourceDescription[..<$0]) }
                ?? pair.sourceDescription
            pair.sourceDescription = kind + (found == .sbs ? " side-by-side" : " top-bottom")
        }
        return how
    }

    /// What measuring a frame-packed input both ways found (``recogniseLayout(_:frames:)``).
    public struct LayoutReading: Sendable {
        /// The layout whose halves are a stereo pair, when exactly one of the two is (`sbs` or `tb`); nil otherwise.
        public var layout: StereoLayout?
        /// Per picture measured: its verdict cut side by side, and cut top and bottom.
        public var sideBySide: [Verdict]
        public var topBottom: [Verdict]
        /// The frame numbers measured (display order), when the pictures are frames of a video.
        public var frames: [Int]
        /// True when neither reading had anything to measure (all pictures too flat or small).
        public var nothingMeasured: Bool {
            !sideBySide.contains { $0.measurable } && !topBottom.contains { $0.measurable }
        }

        /// A reading is a stereo pair when its halves are one on at least one picture and on at least half of the
        /// pictures that had something to measure (a title card or a black frame does not outvote the film).
        static func holdsPair(_ v: [Verdict]) -> Bool {
            let pairs = v.filter(\.isPair).count, measurable = v.filter(\.measurable).count
            return pairs > 0 && 2 * pairs >= measurable
        }

        /// One line: what each reading measured, and on which frames.
        public var summary: String {
            func part(_ name: String, _ v: [Verdict]) -> String {
                let pairs = v.filter(\.isPair).count, flat = v.filter { !$0.measurable }.count
                var t =
                    "\(name): a stereo pair on \(pairs) of \(v.count) \(frames.isEmpty ? "picture" : "frame")\(v.count == 1 ? "" : "s")"
                if pairs > 0 {
                    t +=
                        ", confidence \(v.filter(\.isPair).map { NumberText.fixed($0.pairConfidence, places: 2) }.joined(separator: ", "))"
                }
                if flat > 0 { t += " (\(flat) with nothing to measure)" }
                if pairs == 0,
                    let why = v.lazy.compactMap({ (x: Verdict) -> String? in
                        if case .notPair(let m) = x { return m } else { return nil }
                    }).first
                {
                    t += " — \(why)"
                }
                return t
            }
            let list = frames.isEmpty ? "" : " (frames \(frames.map(String.init).joined(separator: ", ")))"
            return "halves measured both ways\(list); " + part("side by side", sideBySide) + "; "
                + part("top-bottom", topBottom)
        }

        /// The refusal when no layout (or both) holds a stereo pair: names what was measured; remedy: give the layout,
        /// or force the default.
        public func refusal(subject: String, kind: String) -> ParseError {
            let both = LayoutReading.holdsPair(sideBySide) && LayoutReading.holdsPair(topBottom)
            let what =
                both
                ? "its halves look like a stereo pair both side by side and top-bottom, neither clearly more than the other, so neither can be chosen"
                : nothingMeasured
                    ? "its halves have nothing to measure (too flat or too small), so no stereo pair can be seen"
                    : "its halves, cut side by side or top and bottom, do not show one scene from two viewpoints: it looks like \(kind)"
            return ParseError(
                .notRecognised,
                "no stereo pair found in \(subject) (no layout given, and none stated): \(what) — \(summary). Name the layout if it really holds two eyes, or convert anyway",
                remedy: .giveLayoutOrForce)
        }
    }

    /// When both ways hold a stereo pair, one is chosen only when the sum of its confidences is at least this many
    /// times the other's; else neither is.
    public static let strongerReading = 1.5

    /// Measures each picture of a frame-packed input both ways — its left and right halves, and its top and bottom
    /// halves — as a stereo pair (``measure(_:_:)``). The layout is the one reading that holds a pair; a picture's
    /// shape plays no part.
    public static func recogniseLayout(_ pictures: [Image], frames: [Int] = []) -> LayoutReading {
        var sbs: [Verdict] = [], tb: [Verdict] = []
        for p in pictures {
            for (layout, into) in [(StereoLayout.sbs, 0), (.tb, 1)] {
                let v: Verdict
                if let eyes = try? StereoImages.halves(p, layout: layout) {
                    v = measure(eyes.left, eyes.right)
                } else {
                    v = .nothingToMeasure("too small to cut")
                }
                if into == 0 { sbs.append(v) } else { tb.append(v) }
            }
        }
        let s = LayoutReading.holdsPair(sbs), t = LayoutReading.holdsPair(tb)
        var layout: StereoLayout? = s == t ? nil : s ? .sbs : .tb
        if s && t {
            // Both ways hold a pair (a repeating pattern matches itself both ways): the clearly stronger one, if any.
            let cs = sbs.map(\.pairConfidence).reduce(0, +), ct = tb.map(\.pairConfidence).reduce(0, +)
            layout = cs >= strongerReading * ct ? .sbs : ct >= strongerReading * cs ? .tb : nil
        }
        return LayoutReading(layout: layout, sideBySide: sbs, topBottom: tb, frames: frames)
    }
}

extension PairRecognition {
    /// Frames a video's layout is recognised from: at most this many, spread across the input.
    public static let videoSamples = 4

    /// `count` frame numbers spread evenly across `total` frames (the middle of each of `count` equal parts: a film
    /// may open on black, or on a title).
    public static func spread(total: Int, count: Int = videoSamples) -> [Int] {
        guard total > 1, count > 0 else { return [0] }
        let n = min(count, total)
        var out: [Int] = []
        for k in 0..<n {
            let i = min(total - 1, Int((Double(k) + 0.5) / Double(n) * Double(total)))
            if out.last != i { out.append(i) }
        }
        return out
    }

    /// The layout of a frame-packed video that states none and was given none
    /// (``VideoConversionOptions/recogniseLayout``): frames sampled across it (``spread(total:count:)``; a Y4M file
    /// read directly, anything else decoded by FFmpeg with a seek to each) are measured both ways
    /// (``recogniseLayout(_:frames:)``). Returns the layout and a line saying what was measured; refuses
    /// (``LayoutReading/refusal(subject:kind:)``) when not exactly one reading holds a stereo pair, unless `force`,
    /// which converts side by side (the default) with that line.
    public static func recogniseVideoLayout(_ path: String, options o: VideoConversionOptions) throws(ParseError) -> (
        layout: StereoVideoLayout, note: String
    ) {
        guard path != "-" else {
            if o.force {
                return (
                    .sbs, "the default: standard input cannot be sampled to recognise the layout; converted as forced"
                )
            }
            throw ParseError(
                .notRecognised, path: path,
                "standard input is read once, so its frames cannot be sampled to recognise the layout (no layout given, and a Y4M stream states none): name the layout, or convert anyway as side by side",
                remedy: .giveLayoutOrForce)
        }
        // A damaged or truncated input is named as such before its frames are measured (a cut stream's frames are
        // grey or broken, and would read as "no stereo pair"): the reading `convert`, `info` and `validate` share.
        if !o.force, FileProbe.kind(of: path) != .y4m, let tool = try? FFmpeg.require(.any, for: "reading \(path)"),
            let probe = try? MediaProbe.run(path, tool: tool),
            let damage = try StreamIntegrity.scan(path: path, tool: tool, probe: probe)
        {
            throw ParseError(.truncated, path: path, damage, remedy: .force)
        }
        let sampled = try videoPictures(path, options: o)
        let r = recogniseLayout(sampled.map(\.picture), frames: sampled.map(\.index))
        if let l = r.layout {
            var note = "measuring its frames (\(r.summary))"
            if !o.swapEyes {
                do throws(ParseError) {
                    note +=
                        "; "
                        + (try checkEyeOrder(
                            sampled.map(\.picture), layout: l, frames: sampled.map(\.index), subject: "this video"))
                } catch {
                    var e = error
                    e.path = path
                    throw e
                }
            }
            return (l == .sbs ? .sbs : .tb, note)
        }
        guard o.force else {
            var e = r.refusal(subject: "this video", kind: "a 2D video")
            e.path = path
            throw e
        }
        return (.sbs, "the default: no single layout holds a stereo pair (\(r.summary)); converted as forced")
    }

    /// The frames of `path` a layout is recognised from (``spread(total:count:)``): a Y4M file's read in order (no
    /// decoder needed), any other input's decoded by FFmpeg (`ffmpeg`: a program to use instead of the one found).
    public static func sampledFrames(_ path: String, limits: Limits, ffmpeg: String? = nil) throws(ParseError) -> [(
        index: Int, picture: Image
    )] {
        var o = VideoConversionOptions()
        o.limits = limits
        o.ffmpeg = ffmpeg
        return try videoPictures(path, options: o)
    }

    /// The sampled frames of `path`: a Y4M file's read in order (no decoder needed), any other input's decoded by
    /// FFmpeg.
    static func videoPictures(_ path: String, options o: VideoConversionOptions) throws(ParseError) -> [(
        index: Int, picture: Image
    )] {
        if FileProbe.kind(of: path) == .y4m {
            let reader = try Y4M.Reader(path: path, limits: o.limits)
            let frameBytes = reader.header.frameBytes
            var total = 0
            if let size = try? FileSource(path: path).size, frameBytes > 0 {
                total = Int(clamping: size / UInt64(frameBytes + 6))
            }
            let wanted = spread(total: total)
            var out: [(Int, Image)] = []
            var i = 0
            while let last = wanted.last, i <= last, let img = try reader.next() {
                if wanted.contains(i) { out.append((i, img)) }
                i += 1
            }
            return out
        }
        let tool: FFmpegTool
        do throws(ParseError) {
            tool = try FFmpeg.require(.any, for: "measuring the layout of \(path)", override: o.ffmpeg)
        } catch {
            throw ParseError(
                .notRecognised, path: path,
                "no layout given and none stated, and its frames cannot be measured to recognise one: \(error.message)",
                remedy: .giveLayoutOrForce)
        }
        let probe = try MediaProbe.run(path, tool: tool)
        let rate = probe.frameRate ?? (num: 30, den: 1)
        var total = 0
        if let d = probe.durationSeconds, d > 0, d < 1e7 {
            total = Int((d * Double(rate.num) / Double(max(1, rate.den))).rounded(.down))
        }
        return try FramePackedFrames.pictures(
            path, indices: spread(total: total), fpsNum: rate.num, fpsDen: rate.den, ffmpeg: o.ffmpeg)
    }
}

extension PairRecognition {
    /// What the half-occlusion test found about the eye order of an input whose layout was recognised from its pixels
    /// (``readEyeOrder(_:layout:frames:)``): one verdict per picture measured.
    public struct EyeOrderReading: Sendable {
        /// Per picture, ``/StereoVision/StereoMeasurement/eyeOrderVerdict`` of its halves as cut (first half = left).
        public var verdicts: [OcclusionEvidence.Verdict]
        /// Per picture, the strips behind the verdict (nil when the halves could not be measured).
        public var evidence: [OcclusionEvidence?]
        /// The frame numbers measured (display order), when the pictures are frames of a video.
        public var frames: [Int]

        /// The first half is the right eye: the evidence says so on at least one picture and the opposite on none.
        public var firstHalfIsRight: Bool { verdicts.contains(.swapped) && !verdicts.contains(.asLabelled) }

        /// One line: the verdict counts, and the strips of each decided picture.
        public var summary: String {
            let unit = frames.isEmpty ? "picture" : "frame"
            let n = verdicts.count
            func count(_ v: OcclusionEvidence.Verdict) -> Int { verdicts.filter { $0 == v }.count }
            var parts: [String] = []
            for (i, v) in verdicts.enumerated() where v != .inconclusive {
                guard let e = evidence[i] else { continue }
                let which = frames.indices.contains(i) ? "frame \(frames[i])" : "the picture"
                parts.append(
                    "\(which): \(e.swapped) of \(e.consistent + e.swapped) half-occluded strips point to swapped eyes")
            }
            let detail = parts.isEmpty ? "" : " — " + parts.joined(separator: "; ")
            return
                "half-occlusion test of the eye order on \(n) \(unit)\(n == 1 ? "" : "s"): as labelled on \(count(.asLabelled)), "
                + "swapped on \(count(.swapped)), undecided on \(count(.inconclusive))\(detail)"
        }
    }

    /// Measures the halves of each picture, cut by `layout`, with the half-occlusion test
    /// (``/StereoVision/StereoMeasurement/eyeOrderVerdict``: a verdict only on evidence that is not weak).
    public static func readEyeOrder(_ pictures: [Image], layout: StereoLayout, frames: [Int] = []) -> EyeOrderReading {
        var verdicts: [OcclusionEvidence.Verdict] = [], evidence: [OcclusionEvidence?] = []
        for p in pictures {
            guard let eyes = try? StereoImages.halves(p, layout: layout),
                let a = PairAligner.luma(eyes.left, maxSide: maxSide),
                let b = PairAligner.luma(eyes.right, maxSide: maxSide),
                let m = StereoAnalyzer.analyze(left: a.gray, right: b.gray, options: StereoAnalysisOptions())
                    .measurement
            else {
                verdicts.append(.inconclusive); evidence.append(nil); continue
            }
            verdicts.append(m.eyeOrderVerdict); evidence.append(m.occlusion)
        }
        return EyeOrderReading(verdicts: verdicts, evidence: evidence, frames: frames)
    }

    /// The eye order of an input whose layout was recognised from its pixels, where nothing states which half is the
    /// left eye: the first half is taken as the left eye (the usual order) unless the half-occlusion test says it is
    /// the right eye (``EyeOrderReading/firstHalfIsRight``), which is refused (remedy
    /// ``/BinaryIO/ParseError/Remedy/swapEyesOrForce``) rather than written with the eyes swapped. Returns the line the
    /// report carries.
    static func checkEyeOrder(_ pictures: [Image], layout: StereoLayout, frames: [Int] = [], subject: String)
        throws(ParseError) -> String
    {
        let r = readEyeOrder(pictures, layout: layout, frames: frames)
        let first = layout == .sbs ? "left half" : "top half"
        guard r.firstHalfIsRight else { return "eye order: the \(first) taken as the left eye (\(r.summary))" }
        throw ParseError(
            .notRecognised,
            "\(subject) looks packed right eye first, and nothing in it states the eye order: beside depth steps the \(first) sees what a right eye sees (\(r.summary)). Exchange the eyes if its \(first) is the right eye, or convert it anyway as it is",
            remedy: .swapEyesOrForce)
    }
}
