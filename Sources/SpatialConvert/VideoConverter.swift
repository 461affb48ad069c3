import BinaryIO
import Codecs
import HEVC
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialMedia
import SystemSupport

/// SBS / top-bottom / two-file 3D video → spatial video (MV-HEVC), streaming frame by frame.
///
/// Inputs: Y4M (file or "-" for standard input), MP4/MOV with HEVC (libde265, base layer), anything else through FFmpeg
/// (MKV, AVI, M2TS, H.264, AV1, VP9, ProRes, MPEG-2 …). Each frame is split into two eyes, both eyes are encoded at
/// once by two x265 instances (one per core) with identical fixed GOPs, the two single-layer streams are assembled into
/// a two-layer MV-HEVC stream (``/HEVC/MVHEVCAssembler``) and muxed (``/SpatialMedia/SpatialVideoMuxer``) with the
/// input's audio (`VideoAudio`: copied when Apple players play it, else AAC; silent AAC when there is none). Raw frames
/// are never accumulated: the reader hands each eye to its encoder through a one-frame queue per eye; coded pictures
/// are paired and written as they come. See Specs/conversion.md ("Video").
public enum VideoConverter {
    /// Everything decided before encoding: the opened inputs, the geometry, the rate, the audio plan.
    struct Plan {
        var producers: [VideoFrameProducer]
        var sourceName: String
        var cropW: Int, cropH: Int, eyeW: Int, eyeH: Int
        var fpsNum: Int, fpsDen: Int
        var mux: SpatialVideoMuxOptions
        var audio: VideoAudio.Plan
        var notes: [String]
        /// Segment mode: the clip position of the first frame encoded (``VideoSegments``).
        var segmentFirstFrame: Int? = nil
        /// `--align` / `--auto-disparity`: the warp of each shot and the crop (``VideoAligner``).
        var alignment: VideoAligner.Plan? = nil
        /// The sphere cut into the two views (``VideoConversionOptions/isSphere``).
        var sphere: SphereSplit? = nil
        /// The colour written: the source's as it states it (``VideoColour/unstatedDefault`` when it states nothing).
        var colour: VideoColour = .unstatedDefault
        /// Bits per sample of both layers (8 or 10).
        var bitDepth = 8
    }

    /// What the encoding pipeline produced.
    struct Encoded {
        var frames: Int
        /// Writes the last access units and returns the stream's header (parameter sets) for the sample entry.
        var finishStream: () throws(ParseError) -> MVHEVCStream
        var writer: SpatialVideoStreamWriter
        var settings: HEVCEncoderSettings
        var eyes: EyeEncoding
        var ownCPU: Double
        /// The report's description of the encoder and of the path that made the layers.
        var encoderText: String
        var pathText: String
        /// What the conversion-time geometry check found (``VideoGeometryCheck``).
        var geometryCheck: VideoGeometryCheckReport? = nil
    }

    /// Converts `input` to a spatial video at `output`. On any error or cancellation nothing is left at `output`.
    @discardableResult
    package static func convert(
        _ input: VideoInput, to output: String, options o: VideoConversionOptions = VideoConversionOptions(),
        cancellation: ConversionCancellation? = nil,
        progress: ((VideoConversionProgress) -> Void)? = nil
    ) throws(ParseError) -> VideoConversionReport {
        // This function polls for cancellation and unwinds by itself (producers and encoders stopped, the
        // output's temporary file removed): a signal does not end the process under it.
        Interruption.beginCooperative()
        defer { Interruption.endCooperative() }
        let cancellation = cancellation ?? ConversionCancellation()
        let t0 = monotonicSeconds(), cpu0 = processCPUSeconds()
        // Options that need no input.
        if case .crf(let c) = o.rateControl, !(0...51).contains(c) {
            throw ParseError(.invalidArgument, "CRF \(c) is outside 0…51")
        }
        if case .bitrate(let k, _, _) = o.rateControl, k <= 0 {
            throw ParseError(.invalidArgument, "bitrate must be positive (kbit/s)")
        }
        if let k = o.keyint, k < 1 { throw ParseError(.invalidArgument, "keyint must be at least 1") }
        guard (0...16).contains(o.bframes) else { throw ParseError(.invalidArgument, "bframes must be 0…16") }
        try checkEyeOptions(o)
        let planCPU0 = threadCPUSeconds()
        var o = try VideoSegments.prepare(o)
        var plan = try makePlan(input, output: output, options: &o)
        if plan.sphere?.firstIsRight == true { o.swapEyes.toggle() }
        defer { for p in plan.producers { p.abort() } }
        try VideoSegments.restrict(&plan, input: input, options: o, cancellation: cancellation)
        if o.align || o.autoDisparity {
            try prepareAlignment(&plan, input: input, options: o, cancellation: cancellation, progress: progress)
        }
        let planCPU = threadCPUSeconds() - planCPU0
        let probe = X265MultiviewProbe.current
        let route = try encodeRoute(o, probe: probe, bitDepth: plan.bitDepth)
        var multiview: (encoder: X265MultiviewEncoder, settings: HEVCEncoderSettings)? = nil
        if route.multiview {
            // A library the probe accepted but whose API build or layout this program does not know: the assembly.
            do throws(ParseError) { multiview = try openMultiview(plan, options: o, probe: probe) } catch {
                if o.encodePath == .multiview { throw error }
                plan.notes.append("multiview libx265 not used: \(error.message); two single-layer encodes instead")
            }
        }
        if multiview != nil { plan.notes += route.notes }
        var encoded: Encoded
        if let m = multiview {
            encoded = try encodeMultiview(
                plan, encoder: m.encoder, settings: m.settings, output: output, options: o, probe: probe,
                cancellation: cancellation, progress: progress, t0: t0)
        } else {
            if !route.multiview { plan.notes += route.notes }
            encoded = try encode(
                plan, output: output, options: o, cancellation: cancellation, progress: progress, t0: t0)
        }
        encoded.ownCPU += planCPU
        for p in plan.producers {
            if let f = p as? FFmpegProducer, f.repeatedFrames + f.droppedFrames > 0 {
                plan.notes.append(
                    "variable frame rate made constant at \(plan.fpsNum)/\(plan.fpsDen) fps: FFmpeg repeated \(f.repeatedFrames) and dropped \(f.droppedFrames) pictures"
                )
            }
            if let f = p as? FFmpegProducer, let d = f.damage {
                plan.notes.append("\(d); converted the \(f.framesRead) frames that were read (--force)")
            }
            if let y = p as? Y4MProducer, let d = y.damage {
                plan.notes.append("\(d); converted the \(y.framesRead) whole frames before the cut (--force)")
            }
        }
        // The last pictures, the audio (now that the duration is known), then the movie.
        let finishCPU0 = threadCPUSeconds()
        var header = try encoded.finishStream()
        header.sei = try withHDRMessages(header.sei, plan.colour)
        if cancellation.isCancelled == true {
            throw ParseError(.cancelled, path: output, "cancelled; nothing was written")
        }
        let seconds = Double(encoded.frames) * Double(plan.fpsDen) / Double(plan.fpsNum)
        let audio = try VideoAudio.tracks(
            plan.audio, seconds: seconds, output: output, limits: o.limits, notes: &plan.notes)
        if o.audio == .copy,
            let n = VideoAudio.spatialAudioNote(
                source: VideoAudio.source(for: input, options: o), written: audio.tracks, limits: o.limits)
        {
            plan.notes.append(n)
        }
        try encoded.writer.finish(header: header, audio: audio.tracks)
        encoded.ownCPU += threadCPUSeconds() - finishCPU0
        var r = report(
            plan, encoded, audio: audio.lines, output: output, options: o, seconds: monotonicSeconds() - t0,
            processCPU: processCPUSeconds() - cpu0)
        r.geometryCheck = encoded.geometryCheck
        r.sphere = plan.sphere
        if let a = plan.alignment {
            r.alignment = a.finished()
            if o.align && a.report.shots.contains(where: \.warped) {
                r.hfovSource = "\(r.hfovSource), cropped by --align"
            }
            if a.report.disparityPercent != nil { r.disparitySource = "--auto-disparity (measured)" }
        }
        return r
    }

    /// `--align` / `--auto-disparity`: estimates the warps on a first pass over the input and adapts the plan (eye
    /// size = the crop, field of view, disparity adjustment).
    static func prepareAlignment(
        _ plan: inout Plan, input: VideoInput, options o: VideoConversionOptions, cancellation: ConversionCancellation?,
        progress: ((VideoConversionProgress) -> Void)?
    ) throws(ParseError) {
        if case .packed(let p) = input, p == "-" {
            throw ParseError(
                .invalidArgument,
                "alignment and automatic disparity read the input twice (estimate, then convert): give a file, not standard input"
            )
        }
        guard o.segment == nil else {
            throw ParseError(
                .invalidArgument,
                "alignment and automatic disparity decide one crop and one disparity adjustment for the whole clip: convert it whole, not as segments"
            )
        }
        if o.autoDisparity && o.stereo.disparityAdjustment != nil {
            throw ParseError(.invalidArgument, "give a disparity adjustment or ask for the automatic one, not both")
        }
        let hfov = plan.mux.stereo.horizontalFieldOfViewDegrees ?? 60
        let a = try VideoAligner.estimate(
            plan, input: input, options: o, hfovDegrees: hfov, cancellation: cancellation, progress: progress)
        plan.alignment = a
        let c = a.report.crop
        if c.width != plan.eyeW || c.height != plan.eyeH {
            try Image.checkDimensions(width: c.width, height: c.height, limits: o.limits)
            plan.eyeW = c.width; plan.eyeH = c.height
            try plan.mux.stereo.setHorizontalFieldOfView(degrees: a.report.hfovAfter)
        }
        if let d = a.report.disparityPercent { try plan.mux.stereo.setDisparity(percent: d) }
    }

    // MARK: - Plan

    /// Checks the options, opens the inputs, recognises the layout when asked
    /// (``VideoConversionOptions/recogniseLayout``; after the inputs are opened, so that what their readers refuse is
    /// refused first), decides the geometry, the frame rate and the audio.
    static func makePlan(_ input: VideoInput, output: String, options o: inout VideoConversionOptions)
        throws(ParseError) -> Plan
    {
        if case .crf(let c) = o.rateControl, !(0...51).contains(c) {
            throw ParseError(.invalidValue, "CRF \(c) is outside 0…51")
        }
        if case .bitrate(let k, _, _) = o.rateControl, k <= 0 {
            throw ParseError(.invalidValue, "bitrate must be positive (kbit/s)")
        }
        if let k = o.keyint, k < 1 { throw ParseError(.invalidValue, "keyint must be at least 1") }
        guard (0...16).contains(o.bframes) else { throw ParseError(.invalidValue, "bframes must be 0…16") }
        var mux = SpatialVideoMuxOptions()
        let sphere = try sphereSplit(input, options: o)
        mux.stereo = sphere == nil ? o.stereo.filled() : try sphereParameters(o)
        guard mux.stereo.heroEye == .left || mux.stereo.heroEye == .right else {
            throw ParseError(.invalidArgument, "the hero eye of a converted video is its base layer: left or right")
        }
        try mux.stereo.validate()
        mux.container = o.container
        mux.faststart = o.faststart
        try checkOutputDirectory(output)

        var notes: [String] = sphere?.notes ?? []
        let opened = try openProducers(input, options: o, notes: &notes)
        let producers = opened.producers
        var sourceName = opened.sourceName
        do throws(ParseError) {
            if o.recogniseLayout, sphere == nil, case .packed(let p) = input {
                let r = try PairRecognition.recogniseVideoLayout(p, options: o)
                o.layout = r.layout; o.layoutSource = r.note; o.recogniseLayout = false
                sourceName = "\(p) (\(o.layout.rawValue), \(producers[0].kind))"
            }
            if let s = o.layoutSource, sphere == nil {
                notes.append(
                    "layout: \(o.layout.horizontal ? "side by side" : "top-bottom"), from \(s) (--layout overrides it)")
            }
            let g = try geometry(producers, input: input, options: o, notes: &notes)
            let c = try colourPlan(producers, options: o, notes: &notes)
            let audio = try VideoAudio.plan(for: input, options: o, notes: &notes)
            return Plan(
                producers: producers, sourceName: sourceName, cropW: g.cropW, cropH: g.cropH, eyeW: g.eyeW,
                eyeH: g.eyeH,
                fpsNum: g.fpsNum, fpsDen: g.fpsDen, mux: mux,
                audio: audio, notes: notes, sphere: sphere, colour: c.colour, bitDepth: c.bitDepth)
        } catch {
            for p in producers { p.abort() }
            throw error
        }
    }

    // MARK: - Pipeline

    /// Starts both encoders, runs the read → split → queue loop, waits for the encoders.
    static func encode(
        _ plan: Plan, output: String, options o: VideoConversionOptions, cancellation: ConversionCancellation?,
        progress: ((VideoConversionProgress) -> Void)?, t0: Double
    ) throws(ParseError) -> Encoded {
        var ownCPU = 0.0
        let readerCPUStart = threadCPUSeconds()
        let settings = encoderSettings(
            o, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen, colour: plan.colour, bitDepth: plan.bitDepth)
        let eyeSettings = try eyeEncoding(
            settings, options: o, eyeW: plan.eyeW, eyeH: plan.eyeH, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen)
        let leftSettings = o.heroIsLeft ? eyeSettings.hero : eyeSettings.other
        let rightSettings = o.heroIsLeft ? eyeSettings.other : eyeSettings.hero
        // Opening the encoders is x265's work, not ours: taken out of the reader thread's CPU time.
        let encoderOpenStart = threadCPUSeconds()
        let keepDir = o.keepStreamsPrefix.map { p -> String in
            guard let slash = p.lastIndex(of: "/") else { return "." }
            return String(p[..<slash]).isEmpty ? "/" : String(p[..<slash])
        }
        let left = try EyeEncoder(
            name: "left", layer: o.heroIsLeft ? 0 : 1, width: plan.eyeW, height: plan.eyeH, settings: leftSettings,
            keepIn: keepDir, limits: o.limits)
        let right = try EyeEncoder(
            name: "right", layer: o.heroIsLeft ? 1 : 0, width: plan.eyeW, height: plan.eyeH, settings: rightSettings,
            keepIn: keepDir, limits: o.limits)
        ownCPU -= threadCPUSeconds() - encoderOpenStart
        let eyes = [left, right]
        // Pictures are paired, assembled and written while the encoders run: the coded streams are never held whole.
        var mux = plan.mux
        mux.frameRateNum = UInt32(plan.fpsNum); mux.frameRateDen = UInt32(plan.fpsDen)
        let writer = try SpatialVideoStreamWriter(path: output, options: mux)
        let base = o.heroIsLeft ? left : right, second = o.heroIsLeft ? right : left
        let assembly = try MVHEVCAssembler.LivePairing(
            baseHeaders: base.headers, secondHeaders: second.headers,
            options: MVHEVCAssemblyOptions(
                baseIsLeft: o.heroIsLeft, layerSPSForm: o.layerSPSForm, matchAppleChoices: o.layerSPSForm == .multilayer
            ), writer: writer)
        for e in eyes { e.assembly = assembly }
        if let first = plan.segmentFirstFrame {
            for e in eyes { e.aligner = try SliceFlagAligner(headers: e.headers, firstFrame: first) }
        }
        left.start(); right.start()

        var frames = 0
        let total = plan.producers.map(\.frameCountHint).compactMap { $0 }.min()
        let sampler =
            plan.alignment == nil
            ? o.geometryCheck.map { VideoGeometrySampler($0, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen) } : nil
        var lastProgress = 0.0
        var encoderFailed = false
        do throws(ParseError) {
            while var pair = try nextPair(plan, options: o, frames: frames, cancellation: cancellation) {
                if let a = plan.alignment { pair = try a.apply(pair, frame: frames) }
                if let sampler { sampler.look(try eightBit(pair), frame: frames) }
                // reported below
                guard left.queue.put(pair.0), right.queue.put(pair.1) else { encoderFailed = true; break }
                frames += 1
                let now = monotonicSeconds()
                if let progress, now - lastProgress >= 0.25 {
                    lastProgress = now
                    progress(VideoConversionProgress(frames: frames, totalFrames: total, elapsedSeconds: now - t0))
                }
            }
            // After an encoder failure the producers are stopped (defer), not waited for: ffmpeg may be blocked
            // writing.
            if !encoderFailed { for p in plan.producers { try p.finish() } }
        } catch {
            for e in eyes { e.queue.abort() }
            for e in eyes { e.join() }
            if cancellation?.isCancelled == true {
                throw ParseError(.cancelled, path: output, "cancelled; nothing was written")
            }
            throw error
        }
        // Own CPU of this (reader) thread, minus time blocked in the queues (blocking costs no CPU).
        ownCPU += threadCPUSeconds() - readerCPUStart
        for e in eyes { e.queue.close() }
        for e in eyes { e.join() }
        try keepStreams(eyes, frames: frames, options: o)
        for e in eyes { if let err = e.error { throw err } }
        if cancellation?.isCancelled == true {
            throw ParseError(.cancelled, path: output, "cancelled; nothing was written")
        }
        guard frames > 0 else { throw ParseError(.truncated, "the input has no frames (zero frames)") }
        guard left.framesOut == frames, right.framesOut == frames else {
            throw ParseError(
                .invalidValue, "x265 returned \(left.framesOut)/\(right.framesOut) pictures for \(frames) frames")
        }
        ownCPU += left.packCPU + right.packCPU
        progress?(VideoConversionProgress(frames: frames, totalFrames: frames, elapsedSeconds: monotonicSeconds() - t0))
        let x265 =
            "x265 \(HEVCEncoder.version), 2 encoders at once (pools \(settings.threads), frame-threads \(settings.frameThreads) each), preset \(o.preset), \(eyeSettings.summary), keyint \(settings.keyint), \(o.bframes) B-frames (fixed), closed GOP, no scene-cut; layer-1 SPS \(o.layerSPSForm.rawValue) form"
        return Encoded(
            frames: frames,
            finishStream: { () throws(ParseError) -> MVHEVCStream in
                try assembly.finish(); return assembly.header
            },
            writer: writer, settings: settings, eyes: eyeSettings, ownCPU: ownCPU,
            encoderText: x265, pathText: encodePathText(X265MultiviewProbe.current, multiview: false),
            geometryCheck: sampler?.report)
    }

    /// The next frame of the input(s) as two eyes (8-bit, cropped, stretched back for half layouts), or nil at the end.
    static func nextPair(
        _ plan: Plan, options o: VideoConversionOptions, frames: Int, cancellation: ConversionCancellation?
    ) throws(ParseError) -> (Image, Image)? {
        if cancellation?.isCancelled == true { throw ParseError(.cancelled, "cancelled") }
        let producers = plan.producers
        let w = plan.cropW, h = plan.cropH
        guard var a = try producers[0].next() else {
            if producers.count == 2, try producers[1].next() != nil {
                throw ParseError(
                    .invalidValue,
                    "the two inputs have different frame counts: the left ends after \(frames) frames, the right has more"
                )
            }
            return nil
        }
        if a.bitDepth != plan.bitDepth { a = try ColourConversion.changeDepth(a, to: plan.bitDepth) }
        var pair: (Image, Image)
        if producers.count == 2 {
            guard var b = try producers[1].next() else {
                throw ParseError(
                    .invalidValue,
                    "the two inputs have different frame counts: the right ends after \(frames) frames, the left has more"
                )
            }
            if b.bitDepth != plan.bitDepth { b = try ColourConversion.changeDepth(b, to: plan.bitDepth) }
            pair = (try crop(a, 0, 0, w, h), try crop(b, 0, 0, w, h))
        } else {
            pair =
                o.layout.horizontal
                ? (try crop(a, 0, 0, w, h), try crop(a, w, 0, w, h))
                : (try crop(a, 0, 0, w, h), try crop(a, 0, h, w, h))
            if o.layout.half {
                pair = (
                    try stretch2(pair.0, horizontal: o.layout.horizontal),
                    try stretch2(pair.1, horizontal: o.layout.horizontal)
                )
            }
        }
        return o.swapEyes ? (pair.1, pair.0) : pair
    }

    /// `--keep-streams`: each eye's single-layer stream (written even when pairing them failed: a debugging aid).
    static func keepStreams(_ eyes: [EyeEncoder], frames: Int, options o: VideoConversionOptions) throws(ParseError) {
        guard let prefix = o.keepStreamsPrefix, frames > 0 else { return }
        for e in eyes {
            guard let kept = e.kept else { continue }
            let src = try kept.source()
            try AtomicFile.write(path: prefix + "-\(e.name).hevc") { (f: AtomicFile) throws(ParseError) in
                try AtomicFile.writeSegments([.range(offset: 0, length: src.size)], to: f, source: src)
            }
        }
    }

    /// Fails early (before any encoding) when the output cannot be created.
    static func checkOutputDirectory(_ output: String) throws(ParseError) {
        let dir: String
        if let slash = output.lastIndex(of: "/") {
            dir = String(output[..<slash]).isEmpty ? "/" : String(output[..<slash])
        } else {
            dir = "."
        }
        guard FileSystem.kind(dir) == .directory else {
            throw ParseError(.io, path: output, "cannot write \(output): directory '\(dir)' does not exist")
        }
        guard FileSystem.isWritableDirectory(dir) else {
            throw ParseError(.io, path: output, "cannot write \(output): directory '\(dir)' is not writable")
        }
        if FileSystem.kind(output) == .directory {
            throw ParseError(.io, path: output, "cannot write \(output): it is a directory")
        }
    }

}
