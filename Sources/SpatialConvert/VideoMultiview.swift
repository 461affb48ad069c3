// The multiview encode path: both eyes through one multiview libx265, with inter-layer prediction (issue 23).
// Specs/conversion.md, "Multiview encode path".
import BinaryIO
import Codecs
import HEVC
import ImageFormats
import SpatialMedia
import SystemSupport

/// Which encoder makes the two layers of a converted video.
public enum EncodePath: String, Sendable, CaseIterable {
    /// A multiview libx265 when the probe finds one (``/Codecs/X265MultiviewProbe``) and the options allow it, else the
    /// two-encode assembly (the report says which and why).
    case auto
    /// Always two single-layer x265 encodes assembled as MV-HEVC (independent layers).
    case assembled
    /// A multiview libx265, or an error when there is none or an option needs the assembly.
    case multiview
}

extension VideoConverter {
    /// Whether this conversion encodes through the multiview library, with the notes that explain a fallback or what
    /// the multiview path does differently. Throws (usage or unsupported) when `.multiview` is asked and cannot be
    /// used.
    static func encodeRoute(_ o: VideoConversionOptions, probe: X265MultiviewProbe, bitDepth: Int = 8)
        throws(ParseError)
        -> (multiview: Bool, notes: [String])
    {
        if o.encodePath == .assembled { return (false, []) }
        let asked = o.encodePath == .multiview
        guard probe.multiview else {
            if asked {
                throw ParseError(
                    .unsupported,
                    "the multiview encode path needs a multiview libx265, and none was found (\(probe.summary)); name one with \(X265MultiviewProbe.environmentVariable)"
                )
            }
            return (false, [])
        }
        // Options whose meaning needs one encoder per eye.
        var blockers: [String] = []
        if case .bitrate = o.rateControl { blockers.append("a bitrate for both eyes (split between the eyes)") }
        if o.maxBitrateKbps != nil || o.vbvBufferKbit != nil || o.publishing != nil {
            blockers.append("a VBV for both eyes (max bitrate, VBV buffer or publishing preset)")
        }
        if o.segment != nil { blockers.append("segment encoding (segments are joined from single-layer encodes)") }
        if o.keepStreamsPrefix != nil { blockers.append("keeping each eye's single-layer stream") }
        if bitDepth > 8 { blockers.append("\(bitDepth)-bit output (the multiview binding encodes 8-bit pictures)") }
        if case .asymmetric(let d) = o.eyeQuality, d > 0 {
            blockers.append(
                "eye quality asymmetric:\(fmt(d)) (x265's multiview encoder has one rate control: layer 1 takes layer 0's QP)"
            )
        }
        if !blockers.isEmpty {
            let list = blockers.joined(separator: ", ")
            if asked { throw ParseError(.invalidArgument, "the multiview encode path cannot be combined with \(list)") }
            return (false, ["multiview libx265 not used: \(list) needs the two-encode assembly"])
        }
        return (true, [])
    }

    /// The report's "encode path" line: which path made the layers, and what the multiview probe found.
    static func encodePathText(_ p: X265MultiviewProbe, multiview: Bool) -> String {
        if multiview {
            return "multiview x265 encode (one encoder, both layers, inter-layer prediction from layer 0): \(p.summary)"
        }
        let path = "two single-layer x265 encodes assembled as MV-HEVC (independent layers, no inter-layer prediction)"
        return p.multiview ? path + "; \(p.summary), not used" : path + "; multiview encoder: none (\(p.summary))"
    }

    /// Encodes both eyes with one multiview libx265 on this thread (x265's own worker threads do the work), writing
    /// each access unit as it comes. The hero eye is view 0 / layer 0. Frame threads of the multiview encoder when its
    /// library encodes frames in parallel deterministically (``/Codecs/X265MultiviewProbe/frameParallel``): two frames
    /// in flight keep twice the wavefront rows runnable, which a single multiview encoder needs to match two per-eye
    /// encoders running at once.
    public static let multiviewFrameThreads = 2

    /// The multiview encoder's frame threads for `o` with the library `probe` found: the count asked for, else
    /// ``multiviewFrameThreads`` where the library is frame-parallel, else one.
    static func frameThreads(_ o: VideoConversionOptions, probe: X265MultiviewProbe) -> Int {
        o.frameThreadsPerEye ?? (probe.frameParallel ? multiviewFrameThreads : 1)
    }

    /// Opens the multiview encoder for the plan's eye size: the settings both eyes would share, with the worker
    /// threads two per-eye encoders would have had.
    static func openMultiview(_ plan: Plan, options o: VideoConversionOptions, probe: X265MultiviewProbe)
        throws(ParseError)
        -> (encoder: X265MultiviewEncoder, settings: HEVCEncoderSettings)
    {
        var settings = encoderSettings(
            o, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen, colour: plan.colour, bitDepth: plan.bitDepth)
        settings.threads = 2 * (o.poolThreadsPerEye ?? VideoConversionOptions.defaultPoolThreadsPerEye)
        // Frame threads: a fixed count, never the machine's cores, so one request writes the same bytes on every
        // machine and through every shell. An unpatched x265 4.1 gets one (two made its multiview output differ from
        // run to run: rate control let a frame start before the one it depends on); the library set-up builds, patched,
        // gets ``multiviewFrameThreads`` (the same bytes as one thread at fast and medium; Benchmarks/RESULTS.md, issue
        // 39).
        settings.frameThreads = frameThreads(o, probe: probe)
        return (
            try X265MultiviewEncoder(
                library: probe.library, width: plan.eyeW, height: plan.eyeH, settings: settings,
                extraOptions: stereoOptions(eyeWidth: plan.eyeW, preset: o.preset), limits: o.limits), settings
        )
    }

    /// The share of the eye width up to which the inter-view search must reach (the disparities the geometry check
    /// measures on real stereo stay below it).
    static let interViewReach = 0.05

    /// x265 options for coding the second view from the first:
    /// - the motion search range (`merange`, used for the inter-layer reference like any other) covers
    ///   ``interViewReach`` of the eye width (192 px at 3840), never less than x265's default of 57;
    /// - one reference picture more than the preset's (``presetReferences``): x265 4.1's multiview encoder keeps one of
    ///   the `ref` slots of every layer-1 picture for the inter-view reference, so at the preset's own count layer 1
    ///   has one past picture fewer than a single-layer encode — none at all at ultrafast and superfast (`ref` 1),
    ///   where the second eye was coded from the first eye only and came out up to four times larger than the first
    ///   (issue 39; Specs/conversion.md "Multiview encode path"). With one more, layer 1 keeps the preset's temporal
    ///   references and gains the inter-view one.
    /// Nothing else: the partitions and every other speed/size trade-off are the preset's, so `--preset medium` costs
    /// what x265's medium costs. (Issue 30 turned on rectangular and asymmetric partitions from medium on; issue 33
    /// measured them at +30–65 % encoding time for 0–7 % smaller files on real and sphere clips — the trade x265's
    /// own `slow` makes, which turns `rect` on — so they are left to the preset: Benchmarks/RESULTS.md.)
    static func stereoOptions(eyeWidth: Int, preset: String) -> [(String, String)] {
        let reach = Int((Double(eyeWidth) * interViewReach).rounded(.up))
        var options = [("merange", String(max(57, reach)))]
        if let refs = presetReferences[preset] { options.append(("ref", String(min(refs + 1, maxReferences)))) }
        return options
    }

    /// x265's `ref` (maxNumReferences) for each named preset, as its `x265_param_default_preset` sets it (4.x).
    static let presetReferences: [String: Int] = [
        "ultrafast": 1, "superfast": 1, "veryfast": 2, "faster": 2, "fast": 3, "medium": 3, "slow": 4, "slower": 5,
        "veryslow": 5, "placebo": 5,
    ]

    /// The most references asked for: x265's presets stop at 5, and 6 keeps the decoded picture buffer of a
    /// full-size picture within the HEVC levels' maximum of 6.
    static let maxReferences = 6

    static func encodeMultiview(
        _ plan: Plan, encoder: X265MultiviewEncoder, settings: HEVCEncoderSettings, output: String,
        options o: VideoConversionOptions, probe: X265MultiviewProbe,
        cancellation: ConversionCancellation?, progress: ((VideoConversionProgress) -> Void)?,
        t0: Double
    ) throws(ParseError) -> Encoded {
        let cpu0 = threadCPUSeconds()
        let eyes = EyeEncoding(
            hero: settings, other: settings, summary: "both eyes \(rateText(o.rateControl)) (one rate control)",
            notes: [])
        let header = try MVHEVCStream(
            encoderHeaders: try encoder.headers().map { (b: [UInt8]) throws(ParseError) -> NALUnit in
                try NALUnit(bytes: b)
            },
            baseIsLeft: o.heroIsLeft)
        var mux = plan.mux
        mux.frameRateNum = UInt32(plan.fpsNum); mux.frameRateDen = UInt32(plan.fpsDen)
        let writer = try SpatialVideoStreamWriter(path: output, options: mux)
        var framesIn = 0, framesOut = 0
        // CPU of this thread spent inside x265's calls (picture copies, lookahead): x265's work, not ours.
        var x265CPU = 0.0
        func timed(_ body: () throws(ParseError) -> [EncodedFrame]) throws(ParseError) -> [EncodedFrame] {
            let t = threadCPUSeconds()
            defer { x265CPU += threadCPUSeconds() - t }
            return try body()
        }
        func deliver(_ coded: [EncodedFrame]) throws(ParseError) {
            for f in coded {
                let nals = try f.nalUnits.map { (b: [UInt8]) throws(ParseError) -> NALUnit in try NALUnit(bytes: b) }
                try writer.add(try MVHEVCAccessUnit(encoderOutput: nals, poc: f.poc))
                framesOut += 1
            }
        }
        let total = plan.producers.map(\.frameCountHint).compactMap { $0 }.min()
        var lastProgress = 0.0
        let sampler =
            plan.alignment == nil
            ? o.geometryCheck.map { VideoGeometrySampler($0, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen) } : nil
        while var pair = try nextPair(plan, options: o, frames: framesIn, cancellation: cancellation) {
            // `--align`: the shot's warp and the clip's crop (the encoder was opened at the cropped size).
            if let a = plan.alignment { pair = try a.apply(pair, frame: framesIn) }
            if let sampler { sampler.look(try eightBit(pair), frame: framesIn) }
            let (hero, other) = o.heroIsLeft ? (pair.0, pair.1) : (pair.1, pair.0)
            try deliver(
                try timed { () throws(ParseError) -> [EncodedFrame] in
                    try encoder.encode(base: hero, second: other, pts: Int64(framesIn))
                })
            framesIn += 1
            let now = monotonicSeconds()
            if let progress, now - lastProgress >= 0.25 {
                lastProgress = now
                progress(VideoConversionProgress(frames: framesIn, totalFrames: total, elapsedSeconds: now - t0))
            }
        }
        for p in plan.producers { try p.finish() }
        try deliver(try timed { () throws(ParseError) -> [EncodedFrame] in try encoder.flush() })
        if cancellation?.isCancelled == true {
            throw ParseError(.cancelled, path: output, "cancelled; nothing was written")
        }
        guard framesIn > 0 else { throw ParseError(.truncated, "the input has no frames (zero frames)") }
        guard framesOut == framesIn else {
            throw ParseError(
                .invalidValue, "the multiview encoder returned \(framesOut) access units for \(framesIn) frames")
        }
        progress?(
            VideoConversionProgress(frames: framesIn, totalFrames: framesIn, elapsedSeconds: monotonicSeconds() - t0))
        let text =
            "x265 \(encoder.version) multiview (\(probe.library)), 1 encoder for both layers (pools \(settings.threads), frame-threads \(settings.frameThreads)), preset \(o.preset), \(eyes.summary), hero (\(o.heroIsLeft ? "left" : "right")) eye layer 0, keyint \(settings.keyint), \(o.bframes) B-frames (fixed), closed GOP, no scene-cut; x265's own layer-1 SPS/PPS; stereo options \(stereoOptions(eyeWidth: encoder.width, preset: o.preset).map { "\($0.0) \($0.1)" }.joined(separator: ", "))"
        // Reading, splitting and muxing are ours; x265's work runs on its own threads and inside its calls.
        return Encoded(
            frames: framesIn, finishStream: { () throws(ParseError) -> MVHEVCStream in header }, writer: writer,
            settings: settings, eyes: eyes, ownCPU: threadCPUSeconds() - cpu0 - x265CPU, encoderText: text,
            pathText: encodePathText(probe, multiview: true), geometryCheck: sampler?.report)
    }

    static func rateText(_ r: HEVCEncoderSettings.RateControl) -> String {
        switch r {
        case .crf(let c): return "CRF \(fmt(c))"
        case .qp(let q): return "QP \(q)"
        case .bitrate(let k, _, _): return "\(k) kbit/s"
        }
    }
}
