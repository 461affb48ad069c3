#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Dispatch)
import Dispatch
#endif
import BinaryIO
import MediaDecode
import ISOBMFF
import HEVC
import Codecs
import SpatialMedia
import SystemSupport
import ImageFormats

/// How the two eyes are packed in one video frame.
public enum StereoVideoLayout: String, Sendable, CaseIterable {
    /// Left eye in the left half, right eye in the right half, each at full resolution.
    case sbs
    /// Left eye on top, right eye below.
    case tb
    /// Side by side, each eye squeezed to half width: stretched back to full width.
    case halfSBS = "half-sbs"
    /// Top-bottom, each eye squeezed to half height: stretched back to full height.
    case halfTB = "half-tb"
    var horizontal: Bool { self == .sbs || self == .halfSBS }
    var half: Bool { self == .halfSBS || self == .halfTB }
}

/// What a video conversion reads.
public enum VideoInput: Sendable, Equatable {
    /// One file ("-" = Y4M on standard input) holding both eyes in one frame.
    case packed(String)
    /// One file per eye.
    case pair(left: String, right: String)
}

/// Options of ``VideoConverter/convert(_:to:options:cancellation:progress:)``. Nil values mean
/// "derive or use the documented default" (defaults are reported as such, never as measurements).
public struct VideoConversionOptions: Sendable {
    public enum Audio: String, Sendable { case copy, none }
    public typealias Decoder = VideoDecoderChoice
    public var layout: StereoVideoLayout = .sbs
    /// Where ``layout`` came from when the input stated it (its frame-packing metadata) or its frames showed it, rather
    /// than the caller; the report notes it. nil = given, or the default.
    public var layoutSource: String? = nil
    /// No layout was given and a frame-packed input states none: ``layout`` is recognised from the input's pixels
    /// (``PairRecognition/recogniseVideoLayout(_:options:)``: frames sampled across it, their halves measured side by
    /// side and top-bottom) once the input is opened, and the conversion is refused unless exactly one way holds a
    /// stereo pair. Off: ``layout`` as set.
    public var recogniseLayout = false
    /// Go on where the input's evidence says stop: with ``recogniseLayout``, convert side by side even when no single
    /// layout is measured to hold a stereo pair; and convert the frames that were read from a damaged or truncated
    /// input FFmpeg reads (``/MediaDecode/StreamIntegrity``) instead of refusing it. The report says which.
    public var force = false
    /// The left half / top / first file is the right eye.
    public var swapEyes = false
    /// Rate of the hero eye as a CRF or QP (the other eye follows ``eyeQuality``), or `.bitrate` for both eyes
    /// together (split between them by ``eyeQuality``; its VBV fields likewise are totals).
    public var rateControl: HEVCEncoderSettings.RateControl = .crf(VideoConversionOptions.defaultCRF)
    /// How the eyes share quality: the non-hero eye coarser by default (see ``EyeQuality``).
    public var eyeQuality: EyeQuality = .standard
    /// VBV max rate and buffer of both eyes together (kbit/s, kbit); nil = none (or the preset's).
    public var maxBitrateKbps: Int? = nil
    public var vbvBufferKbit: Int? = nil
    /// Limits of a playback platform (size per eye, peak bitrate).
    public var publishing: PublishingPreset? = nil
    public var preset = "medium"
    /// Distance between IDR pictures in frames; nil = 2 seconds of frames.
    public var keyint: Int? = nil
    /// B-frames in the fixed pattern (x265 `--bframes`, `--b-adapt 0`).
    public var bframes = 3
    /// x265 worker threads per eye (`--pools`) and frame threads (`--frame-threads`); nil = the defaults:
    /// ``defaultPoolThreadsPerEye`` workers and one frame thread per eye (the two eye encoders run at once; the
    /// multiview encoder gets both eyes' workers). Worker threads never change the bytes written (wavefront rows are
    /// coded the same however many threads take them); frame threads can, so their count is fixed, never the
    /// machine's: one per eye encoder, and ``multiviewFrameThreads`` for a multiview encoder whose library is patched to
    /// encode frames in parallel deterministically (one for an unpatched x265 4.1, whose output then varies run to run).
    public var poolThreadsPerEye: Int? = nil
    public var frameThreadsPerEye: Int? = nil
    /// Worker threads per eye when none are asked for: half the processors this process may run on, at least one —
    /// one per eye on two cores (measured best there), and the whole machine on larger ones, where a fixed one per
    /// eye left all but two cores idle while FFmpeg's libx265 uses them all.
    public static var defaultPoolThreadsPerEye: Int { max(1, ProcessorInfo.activeCount / 2) }
    /// The stereo parameters written, in stored units; a nil field takes the one table of defaults,
    /// ``/SpatialMedia/StereoParameters/defaults`` (reported as a default, never as a measurement). The hero eye (left or right) is
    /// also the base layer (what 2D players show). The projection is `rect`, or a sphere (``isSphere``): `hequ` (180°) or
    /// `equi` (360°) — each eye is then one half of the frame-packed sphere, written as MV-HEVC APMP with
    /// `vexu/proj/prji` and no `hfov` (a sphere's field of view is its projection's); an MP4/MOV input's spherical
    /// metadata must agree with the projection and ``layout`` (``/SpatialMedia/StereoVideoMetadata/sphereSplit(width:height:projection:packing:)``),
    /// whose eye order is applied. Other kinds are refused.
    public var stereo = StereoParameters()
    /// The bits of a tone-mapped picture when ``sdr`` is asked for (8 unless ``bitDepth`` says 10), else nil.
    var sdrDepth: Int? { sdr ? (bitDepth ?? 8) : nil }
    /// The projection is an equirectangular sphere (`hequ` or `equi`): the APMP route.
    public var isSphere: Bool { stereo.projectionKind == "hequ" || stereo.projectionKind == "equi" }
    /// The hero eye (``stereo``) is the left eye (the default).
    public var heroIsLeft: Bool { (stereo.heroEye ?? StereoParameters.defaults.heroEye) != .right }
    public var audio: Audio = .copy
    /// Take the audio tracks from this movie instead of the input.
    public var audioFrom: String? = nil
    /// Frame rate override (num/den); nil = the input's.
    public var fps: (num: Int, den: Int)? = nil
    public var container: SpatialVideoMuxOptions.Container = .mov
    /// Form of the layer-1 SPS: `.multilayer` (default, Apple's form: layer 1's profile is Multiview Main from
    /// the VPS, and Apple's other free parameter-set choices: `general_non_packed_constraint_flag` 1, no latency limit,
    /// see ``/HEVC/MVHEVCAssemblyOptions/matchAppleChoices``) or `.full` (both encoders' SPSs kept whole; a split gives back
    /// x265's streams byte for byte).
    public var layerSPSForm: LayerSPSForm = .multilayer
    public var faststart = false
    public var decoder: Decoder = .auto
    /// Path or name of ffmpeg; nil = `SPATIAL_MEDIA_FFMPEG`, then `ffmpeg` on PATH.
    public var ffmpeg: String? = nil
    /// Debug: also write each eye's single-layer HEVC stream to `PREFIX-left.hevc` / `PREFIX-right.hevc`.
    public var keepStreamsPrefix: String? = nil
    /// Encode only segment K of N (whole GOPs of the input, no audio) to a segment file for ``VideoSegmentJoiner``.
    public var segment: VideoSegment? = nil
    /// Which encoder makes the two layers (see ``EncodePath``).
    public var encodePath: EncodePath = .auto
    public var limits: Limits = .default
    /// `--align`: estimate one rectifying warp per shot (``VideoAligner``), warp the non-hero eye with it and crop both
    /// eyes to one common area for the whole clip (field of view updated). Needs an input file (two passes).
    public var align = false
    /// `--auto-disparity`: set the disparity adjustment from the measured disparity (one value for the file).
    public var autoDisparity = false
    /// Measures a few sampled frames while converting without `--align` (``VideoGeometryCheck``), so that faults are
    /// reported before the file is written. Ignored with `--align` / `--auto-disparity` (those measure every shot).
    public var geometryCheck: VideoGeometryCheck? = nil

    /// Bits per sample of the output: nil = the source's (10 for a source of more than 8 bits, else 8); 8 rounds a
    /// deeper source to 8 bits (its colour description is kept: an HDR transfer in 8 bits bands, the report says so).
    public var bitDepth: Int? = nil
    /// `--sdr`: an HDR (PQ or HLG) source is tone-mapped by FFmpeg to BT.709 SDR (8 bits, or ``bitDepth``) and tagged
    /// BT.709, with a report line naming what was converted; a source that is not HDR is written as it states.
    public var sdr = false

    public static let defaultCRF = 23.0
    public init() {}
}

/// Progress of a running conversion.
public struct VideoConversionProgress: Sendable {
    public var frames: Int
    /// Expected total, when known.
    public var totalFrames: Int?
    public var elapsedSeconds: Double
    /// True while `--align` / `--auto-disparity` read the clip a first time (frames scanned, not encoded).
    public var estimating = false
    public var framesPerSecond: Double { elapsedSeconds > 0 ? Double(frames) / elapsedSeconds : 0 }
    public var etaSeconds: Double? {
        guard let t = totalFrames, t > frames, framesPerSecond > 0 else { return nil }
        return Double(t - frames) / framesPerSecond
    }
}

/// What a video conversion produced and measured.
public struct VideoConversionReport: Sendable, StereoValuesReport {
    public var output: String
    public var source: String
    public var frames: Int
    public var eyeWidth: Int
    public var eyeHeight: Int
    public var fpsNum: Int
    public var fpsDen: Int
    public var bytes: UInt64
    /// Bytes of layer-0 and layer-1 NAL units (payload of the samples).
    public var layer0Bytes: Int
    public var layer1Bytes: Int
    /// The stereo parameters written (every field set).
    public var stereo: StereoParameters
    public var baselineSource: String
    public var hfovSource: String
    public var disparitySource: String
    /// The hero eye (and base layer) is the left eye.
    public var heroIsLeft: Bool { stereo.heroEye != .right }
    public var audioTracks: [String]
    public var encoder: String
    /// How the two layers were encoded, and whether a multiview libx265 was found.
    public var encodePath: String
    /// Things done to the input a person should know about (dropped columns, 10-bit → 8-bit, …).
    public var notes: [String]
    /// Wall-clock seconds, total and per phase.
    public var seconds: Double
    /// CPU seconds of our own work outside x265: reading/decoding input, splitting, queueing (reader thread),
    /// Annex B packing (encoder threads), assembly, muxing and writing.
    public var ownCPUSeconds: Double
    /// CPU seconds of the whole process (x265 included).
    public var processCPUSeconds: Double
    public var peakRSSBytes: UInt64
    /// What `--align` / `--auto-disparity` measured and did (nil when neither was asked).
    public var alignment: VideoAlignmentReport? = nil
    /// What the conversion-time geometry check found (nil when none was asked or `--align` measured instead).
    public var geometryCheck: VideoGeometryCheckReport? = nil
    /// The sphere cut into the two views (the APMP route), nil for rectilinear video.
    public var sphere: SphereSplit? = nil

    public var layer1ToLayer0: Double { layer0Bytes > 0 ? Double(layer1Bytes) / Double(layer0Bytes) : 0 }
    public var kbps: (layer0: Double, layer1: Double) {
        let d = Double(frames) * Double(fpsDen) / Double(max(1, fpsNum))
        guard d > 0 else { return (0, 0) }
        return (Double(layer0Bytes) * 8 / d / 1000, Double(layer1Bytes) * 8 / d / 1000)
    }

    /// Human-readable lines (the CLI prints them).
    public var lines: [String] {
        var l = [
            "\(frames) frames, \(eyeWidth)×\(eyeHeight) per eye, \(fpsNum)/\(fpsDen) fps, \(bytes) bytes, from \(source)",
            "encoder: \(encoder)",
            "encode path: \(encodePath)",
            "layer 0 (\(heroIsLeft ? "left" : "right")): \(Int(kbps.layer0.rounded())) kbit/s, layer 1: \(Int(kbps.layer1.rounded())) kbit/s (layer 1 / layer 0 = \(fmt((layer1ToLayer0 * 100).rounded() / 100)))",
        ] + stereoLines + [
            "hero eye: \(heroIsLeft ? "left" : "right") (base layer)",
            "audio: " + (audioTracks.isEmpty ? "none" : audioTracks.joined(separator: "; ")),
            "time: \(fmt(seconds)) s (\(fmt(Double(frames) / max(seconds, 1e-9))) fps); work outside x265: \(fmt(ownCPUSeconds)) of \(fmt(processCPUSeconds)) CPU s",
        ]
        if let a = alignment { l += a.lines }
        if let g = geometryCheck { l += g.lines }
        for n in notes { l.append("note: \(n)") }
        return l
    }

    /// The stereo values written: baseline, field of view and disparity; for a sphere its projection instead of a
    /// field of view, and only the values given.
    var stereoLines: [String] {
        guard let s = sphere else {
            return ["baseline: \(fmt(baselineMM)) mm (\(baselineSource))", "horizontal field of view: \(fmt(hfovDegrees))° (\(hfovSource))",
                    "disparity adjustment: \(fmt(disparityPercent)) % (\(disparitySource))"]
        }
        return ["projection: \(s.projectionText) from \(s.source); source \(s.packing == .sideBySide ? "side by side" : "over-under")\(s.firstIsRight ? ", right eye first (stri eye_views_reversed)" : ""); MV-HEVC APMP, no hfov (only rectilinear video carries one)",
                stereo.baselineMicrometres.map { "baseline: \(fmt(SpatialUnits.millimetres(fromMicrometres: $0))) mm (\(baselineSource))" } ?? "baseline: not written (not known; --baseline sets it)",
                stereo.disparityAdjustment.map { "disparity adjustment: \(fmt(SpatialUnits.percent(fromDisparityUnits: $0))) % (\(disparitySource))" } ?? "disparity adjustment: not written"]
    }
}

func fmt(_ v: Double) -> String { NumberText.fixed(v, places: 3, trimZeros: true) }

/// One eye's encoder running on its own thread, fed through a bounded queue. Each coded picture goes to
/// `assembly` as soon as x265 returns it (and, for `--keep-streams`, to a scratch file).
final class EyeEncoder: @unchecked Sendable {
    let name: String
    /// 0 for the base layer (hero eye), 1 for the second.
    let layer: Int
    let queue: BoundedQueue<Image>
    private let encoder: HEVCEncoder
    /// VPS, SPS, PPS from x265 at open.
    let headers: [NALUnit]
    var assembly: StreamingAssembly?
    /// Segment mode: aligns x265's counter-derived slice flag with the whole clip's (``SliceFlagAligner``).
    var aligner: SliceFlagAligner?
    /// The eye's single-layer stream, kept only for `keepStreamsPrefix`.
    let kept: ScratchFile?
    private(set) var error: ParseError?
    private(set) var framesOut = 0
    private(set) var packCPU = 0.0
    private var group: DispatchGroup?

    init(name: String, layer: Int, width: Int, height: Int, settings: HEVCEncoderSettings, keepIn directory: String?, limits: Limits) throws(ParseError) {
        self.name = name
        self.layer = layer
        encoder = try HEVCEncoder(width: width, height: height, settings: settings, limits: limits)
        queue = BoundedQueue(capacity: 1)
        headers = try encoder.headers().map { (b: [UInt8]) throws(ParseError) -> NALUnit in try NALUnit(bytes: b) }
        kept = try directory.map { (d: String) throws(ParseError) -> ScratchFile in try ScratchFile(directory: d) }
        try kept?.append(AccessUnitWriter.annexB(headers))
    }

    private func deliver(_ frames: [EncodedFrame]) throws(ParseError) {
        let t0 = threadCPUSeconds()
        for f in frames {
            // x265 may repeat VPS/SPS/PPS in the first access unit: the headers are already known.
            let raw = framesOut == 0 ? f.nalUnits.filter { n in !(n.count > 1 && [32, 33, 34].contains((n[0] >> 1) & 0x3F)) } : f.nalUnits
            var nals = try raw.map { (b: [UInt8]) throws(ParseError) -> NALUnit in try NALUnit(bytes: b) }
            if let aligner { nals = try aligner.align(nals, poc: f.poc) }
            try kept?.append(AccessUnitWriter.annexB(nals))
            try assembly?.add(layer: layer, accessUnit: nals)
            framesOut += 1
        }
        packCPU += threadCPUSeconds() - t0
    }

    func start() {
        group = startThread("spatial-media.encode.\(name)") { [self] in
            var pts: Int64 = 0
            do throws(ParseError) {
                while let img = queue.take() {
                    try deliver(try encoder.encode(img, pts: pts))
                    pts += 1
                }
                if queue.isAborted { return }  // stopped: no flush, nothing will be used
                try deliver(try encoder.flush())
            } catch {
                self.error = ParseError(error.code, offset: error.offset, path: error.path, "\(name) eye: \(error.message)")
                queue.abort()
                assembly?.abort()
            }
        }
    }

    /// Waits for the thread to finish.
    func join() { group?.wait() }
}

/// Pairs the two encoders' pictures in decoding order and writes each pair as one MV-HEVC access unit as soon as
/// both exist (``MVHEVCAssemblySession``, ``SpatialVideoStreamWriter``), so only the pictures one encoder is
/// ahead of the other are ever held. Called from the encoder threads.
final class StreamingAssembly: @unchecked Sendable {
    private let lock = Lock()
    private var readers: [SingleLayerReader]
    private var waiting: [[SingleLayerReader.Picture]] = [[], []]
    private var session: MVHEVCAssemblySession
    let writer: SpatialVideoStreamWriter
    private var failed = false

    init(baseHeaders: [NALUnit], secondHeaders: [NALUnit], options: MVHEVCAssemblyOptions, writer: SpatialVideoStreamWriter) throws(ParseError) {
        var a = SingleLayerReader(name: "base (layer 0) stream"), b = SingleLayerReader(name: "second (layer 1) stream")
        _ = try a.add(accessUnit: baseHeaders)
        _ = try b.add(accessUnit: secondHeaders)
        readers = [a, b]
        session = try MVHEVCAssemblySession(base: a, second: b, options: options)
        self.writer = writer
    }

    var header: MVHEVCStream { lock.withLock { session.header } }

    /// One coded picture (an access unit of NAL units) of `layer`.
    func add(layer: Int, accessUnit nals: [NALUnit]) throws(ParseError) {
        try lock.withLock { () throws(ParseError) in
            guard !failed else { return }
            do throws(ParseError) {
                if let p = try readers[layer].add(accessUnit: nals) { waiting[layer].append(p) }
                if readers[layer].newParameterSetAfterFirstPicture {
                    throw ParseError(.unsupported, offset: 0, "x265 sent a new parameter set after the first picture")
                }
                try pairWaiting()
            } catch {
                failed = true
                throw error
            }
        }
    }

    private func pairWaiting() throws(ParseError) {
        while !waiting[0].isEmpty && !waiting[1].isEmpty {
            let pa = waiting[0].removeFirst(), pb = waiting[1].removeFirst()
            try writer.add(try session.accessUnit(base: pa, second: pb))
        }
    }

    /// Stops pairing after a failure elsewhere.
    func abort() { lock.withLock { failed = true } }

    /// After both encoders have finished: the last pictures, and a check that the two streams had as many.
    func finish() throws(ParseError) {
        try lock.withLock { () throws(ParseError) in
            for l in 0..<2 { if let p = readers[l].finish() { waiting[l].append(p) } }
            try pairWaiting()
            guard waiting[0].isEmpty, waiting[1].isEmpty else {
                throw ParseError(.invalidValue, offset: 0, "the two encoders returned different numbers of pictures (\(session.count + waiting[0].count) and \(session.count + waiting[1].count))")
            }
        }
    }
}

/// SBS / top-bottom / two-file 3D video → spatial video (MV-HEVC), streaming frame by frame.
///
/// Inputs: Y4M (file or "-" for standard input), MP4/MOV with HEVC (libde265, base layer), anything else through
/// FFmpeg (MKV, AVI, M2TS, H.264, AV1, VP9, ProRes, MPEG-2 …). Each frame is split into two eyes, both eyes are
/// encoded at once by two x265 instances (one per core) with identical fixed GOPs, the two single-layer streams are
/// assembled into a two-layer MV-HEVC stream (``/HEVC/MVHEVCAssembler``) and muxed (``/SpatialMedia/SpatialVideoMuxer``) with the
/// input's audio (`VideoAudio`: copied when Apple players play it, else AAC; silent AAC when there is none).
/// Raw frames are never accumulated: the reader hands each eye to its encoder through a one-frame queue per eye; coded
/// pictures are paired and written as they come. See Specs/conversion.md ("Video").
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
    public static func convert(_ input: VideoInput, to output: String, options o: VideoConversionOptions = VideoConversionOptions(),
                               cancellation: ConversionCancellation? = nil,
                               progress: ((VideoConversionProgress) -> Void)? = nil) throws(ParseError) -> VideoConversionReport {
        // This function polls for cancellation and unwinds by itself (producers and encoders stopped, the
        // output's temporary file removed): a signal does not end the process under it.
        Interruption.beginCooperative()
        defer { Interruption.endCooperative() }
        let cancellation = cancellation ?? ConversionCancellation()
        let t0 = monotonicSeconds(), cpu0 = processCPUSeconds()
        // Options that need no input.
        if case .crf(let c) = o.rateControl, !(0...51).contains(c) { throw ParseError(.invalidArgument, offset: 0, "CRF \(c) is outside 0…51") }
        if case .bitrate(let k, _, _) = o.rateControl, k <= 0 { throw ParseError(.invalidArgument, offset: 0, "bitrate must be positive (kbit/s)") }
        if let k = o.keyint, k < 1 { throw ParseError(.invalidArgument, offset: 0, "keyint must be at least 1") }
        guard (0...16).contains(o.bframes) else { throw ParseError(.invalidArgument, offset: 0, "bframes must be 0…16") }
        try checkEyeOptions(o)
        let planCPU0 = threadCPUSeconds()
        var o = try VideoSegments.prepare(o)
        var plan = try makePlan(input, output: output, options: &o)
        if plan.sphere?.firstIsRight == true { o.swapEyes.toggle() }
        defer { for p in plan.producers { p.abort() } }
        try VideoSegments.restrict(&plan, input: input, options: o, cancellation: cancellation)
        if o.align || o.autoDisparity { try prepareAlignment(&plan, input: input, options: o, cancellation: cancellation, progress: progress) }
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
            encoded = try encodeMultiview(plan, encoder: m.encoder, settings: m.settings, output: output, options: o, probe: probe,
                                          cancellation: cancellation, progress: progress, t0: t0)
        } else {
            if !route.multiview { plan.notes += route.notes }
            encoded = try encode(plan, output: output, options: o, cancellation: cancellation, progress: progress, t0: t0)
        }
        encoded.ownCPU += planCPU
        for p in plan.producers {
            if let f = p as? FFmpegProducer, f.repeatedFrames + f.droppedFrames > 0 {
                plan.notes.append("variable frame rate made constant at \(plan.fpsNum)/\(plan.fpsDen) fps: FFmpeg repeated \(f.repeatedFrames) and dropped \(f.droppedFrames) pictures")
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
        if cancellation.isCancelled == true { throw ParseError(.io, offset: 0, path: output, "cancelled; nothing was written") }
        let seconds = Double(encoded.frames) * Double(plan.fpsDen) / Double(plan.fpsNum)
        let audio = try VideoAudio.tracks(plan.audio, seconds: seconds, output: output, limits: o.limits, notes: &plan.notes)
        if o.audio == .copy, let n = VideoAudio.spatialAudioNote(source: VideoAudio.source(for: input, options: o), written: audio.tracks, limits: o.limits) {
            plan.notes.append(n)
        }
        try encoded.writer.finish(header: header, audio: audio.tracks)
        encoded.ownCPU += threadCPUSeconds() - finishCPU0
        var r = report(plan, encoded, audio: audio.lines, output: output, options: o, seconds: monotonicSeconds() - t0,
                       processCPU: processCPUSeconds() - cpu0)
        r.geometryCheck = encoded.geometryCheck
        r.sphere = plan.sphere
        if let a = plan.alignment {
            r.alignment = a.finished()
            if o.align && a.report.shots.contains(where: \.warped) { r.hfovSource = "\(r.hfovSource), cropped by --align" }
            if a.report.disparityPercent != nil { r.disparitySource = "--auto-disparity (measured)" }
        }
        return r
    }

    /// `--align` / `--auto-disparity`: estimates the warps on a first pass over the input and adapts the plan (eye
    /// size = the crop, field of view, disparity adjustment).
    static func prepareAlignment(_ plan: inout Plan, input: VideoInput, options o: VideoConversionOptions, cancellation: ConversionCancellation?,
                                 progress: ((VideoConversionProgress) -> Void)?) throws(ParseError) {
        if case .packed(let p) = input, p == "-" {
            throw ParseError(.invalidArgument, offset: 0, "alignment and automatic disparity read the input twice (estimate, then convert): give a file, not standard input")
        }
        guard o.segment == nil else {
            throw ParseError(.invalidArgument, offset: 0, "alignment and automatic disparity decide one crop and one disparity adjustment for the whole clip: convert it whole, not as segments")
        }
        if o.autoDisparity && o.stereo.disparityAdjustment != nil {
            throw ParseError(.invalidArgument, offset: 0, "give a disparity adjustment or ask for the automatic one, not both")
        }
        let hfov = plan.mux.stereo.horizontalFieldOfViewDegrees ?? 60
        let a = try VideoAligner.estimate(plan, input: input, options: o, hfovDegrees: hfov, cancellation: cancellation, progress: progress)
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

    /// Checks the options, opens the inputs, recognises the layout when asked (``VideoConversionOptions/recogniseLayout``;
    /// after the inputs are opened, so that what their readers refuse is refused first), decides the geometry, the
    /// frame rate and the audio.
    static func makePlan(_ input: VideoInput, output: String, options o: inout VideoConversionOptions) throws(ParseError) -> Plan {
        if case .crf(let c) = o.rateControl, !(0...51).contains(c) { throw ParseError(.invalidValue, offset: 0, "CRF \(c) is outside 0…51") }
        if case .bitrate(let k, _, _) = o.rateControl, k <= 0 { throw ParseError(.invalidValue, offset: 0, "bitrate must be positive (kbit/s)") }
        if let k = o.keyint, k < 1 { throw ParseError(.invalidValue, offset: 0, "keyint must be at least 1") }
        guard (0...16).contains(o.bframes) else { throw ParseError(.invalidValue, offset: 0, "bframes must be 0…16") }
        var mux = SpatialVideoMuxOptions()
        let sphere = try sphereSplit(input, options: o)
        mux.stereo = sphere == nil ? o.stereo.filled() : try sphereParameters(o)
        guard mux.stereo.heroEye == .left || mux.stereo.heroEye == .right else {
            throw ParseError(.invalidArgument, offset: 0, "the hero eye of a converted video is its base layer: left or right")
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
            if let s = o.layoutSource, sphere == nil { notes.append("layout: \(o.layout.horizontal ? "side by side" : "top-bottom"), from \(s) (--layout overrides it)") }
            let g = try geometry(producers, input: input, options: o, notes: &notes)
            let c = try colourPlan(producers, options: o, notes: &notes)
            let audio = try VideoAudio.plan(for: input, options: o, notes: &notes)
            return Plan(producers: producers, sourceName: sourceName, cropW: g.cropW, cropH: g.cropH, eyeW: g.eyeW, eyeH: g.eyeH,
                        fpsNum: g.fpsNum, fpsDen: g.fpsDen, mux: mux,
                        audio: audio, notes: notes, sphere: sphere, colour: c.colour, bitDepth: c.bitDepth)
        } catch {
            for p in producers { p.abort() }
            throw error
        }
    }

    /// Opens the frame producers of an input (one for a packed file, one per eye for a pair).
    static func openProducers(_ input: VideoInput, options o: VideoConversionOptions, notes: inout [String]) throws(ParseError) -> (producers: [VideoFrameProducer], sourceName: String) {
        var producers: [VideoFrameProducer] = []
        let sourceName: String
        switch input {
        case .packed(let p):
            producers = [try VideoInputs.producer(for: p, decoder: o.decoder, ffmpeg: o.ffmpeg, limits: o.limits,
                                                  squarePixels: !o.layout.half, sphere: o.isSphere,
                                                  sdrDepth: o.sdrDepth, notes: &notes)]
            (producers[0] as? FFmpegProducer)?.acceptDamage = o.force
            (producers[0] as? Y4MProducer)?.acceptDamage = o.force
            sourceName = "\(p == "-" ? "standard input" : p) (\(o.layout.rawValue), \(producers[0].kind))"
        case .pair(let l, let r):
            producers = [try VideoInputs.producer(for: l, decoder: o.decoder, ffmpeg: o.ffmpeg, limits: o.limits,
                                                  sphere: o.isSphere, sdrDepth: o.sdrDepth, notes: &notes)]
            do throws(ParseError) {
                producers.append(try VideoInputs.producer(for: r, decoder: o.decoder, ffmpeg: o.ffmpeg,
                                                          limits: o.limits, sphere: o.isSphere, sdrDepth: o.sdrDepth,
                                                          notes: &notes))
            } catch {
                producers[0].abort()
                throw error
            }
            for case let f as FFmpegProducer in producers { f.acceptDamage = o.force }
            for case let y as Y4MProducer in producers { y.acceptDamage = o.force }
            sourceName = "\(l) + \(r) (\(producers[0].kind))"
        }
        return (producers, sourceName)
    }

    /// The crop of each eye in the input frame, the size of each eye, and the frame rate.
    static func geometry(_ producers: [VideoFrameProducer], input: VideoInput, options o: VideoConversionOptions, notes: inout [String])
        throws(ParseError) -> (cropW: Int, cropH: Int, eyeW: Int, eyeH: Int, fpsNum: Int, fpsDen: Int) {
        let inputName: String
        switch input { case .packed(let p): inputName = p; case .pair(let l, _): inputName = l }
        for p in producers {
            guard p.format == .yuv420 else {
                throw ParseError(.unsupported, offset: 0, path: inputName,
                                 "the input is \(p.format == .gray ? "monochrome" : p.format == .yuv422 ? "4:2:2" : p.format.rawValue); spatial video (Multiview Main) is 8-bit 4:2:0 — convert first, e.g. ffmpeg -i IN -pix_fmt yuv420p -f yuv4mpegpipe OUT.y4m (or decode with FFmpeg, which converts)", remedy: .decodeWithFFmpeg)
            }
            guard p.bitDepth == 8 || p.bitDepth == 10 || p.bitDepth == 12 else {
                throw ParseError(.unsupported, offset: 0, path: inputName, "\(p.bitDepth)-bit input is not supported (8, 10 or 12)")
            }
        }
        let first = producers[0]
        let inW = first.width, inH = first.height
        var fpsNum = first.fpsNum, fpsDen = first.fpsDen
        var cropW: Int, cropH: Int, eyeW: Int, eyeH: Int
        if producers.count == 2 {
            let b = producers[1]
            guard b.width == inW, b.height == inH else {
                throw ParseError(.invalidValue, offset: 0, path: inputName, "the two inputs have different sizes: left \(inW)×\(inH), right \(b.width)×\(b.height); scale one to match")
            }
            guard b.fpsNum * fpsDen == fpsNum * b.fpsDen else {
                throw ParseError(.invalidValue, offset: 0, path: inputName, "the two inputs have different frame rates: left \(fpsNum)/\(fpsDen), right \(b.fpsNum)/\(b.fpsDen)")
            }
            guard b.bitDepth == first.bitDepth else {
                throw ParseError(.invalidValue, offset: 0, path: inputName, "the two inputs have different bit depths: \(first.bitDepth) and \(b.bitDepth)")
            }
            cropW = inW & ~1; cropH = inH & ~1
            if cropW != inW { notes.append("odd width \(inW): the last column of each eye is dropped (4:2:0 needs even sizes)") }
            if cropH != inH { notes.append("odd height \(inH): the last row of each eye is dropped (4:2:0 needs even sizes)") }
            eyeW = cropW; eyeH = cropH
        } else if o.layout.horizontal {
            cropH = inH & ~1
            let half = inW / 2
            guard half % 2 == 0 else {
                throw ParseError(.unsupported, offset: 0, path: inputName, "width \(inW) gives \(half)-pixel-wide eyes; the right eye would start on an odd column, which 4:2:0 chroma cannot be split at — is it really side by side? If so, crop or scale it to a width that is a multiple of 4 (e.g. ffmpeg -vf crop=\(inW - inW % 4):ih:0:0)")
            }
            cropW = half
            if inW % 2 != 0 { notes.append("odd width \(inW): the last column belongs to neither eye and is dropped") }
            if cropH != inH { notes.append("odd height \(inH): the last row is dropped (4:2:0 needs even sizes)") }
            eyeW = o.layout.half ? cropW * 2 : cropW; eyeH = cropH
        } else {
            cropW = inW & ~1
            let half = inH / 2
            guard half % 2 == 0 else {
                throw ParseError(.unsupported, offset: 0, path: inputName, "height \(inH) gives \(half)-row-high eyes; the bottom eye would start on an odd row, which 4:2:0 chroma cannot be split at — is it really top-bottom? If so, crop or scale it to a height that is a multiple of 4 (e.g. ffmpeg -vf crop=iw:\(inH - inH % 4):0:0)")
            }
            cropH = half
            if inH % 2 != 0 { notes.append("odd height \(inH): the last row belongs to neither eye and is dropped") }
            if cropW != inW { notes.append("odd width \(inW): the last column is dropped (4:2:0 needs even sizes)") }
            eyeW = cropW; eyeH = o.layout.half ? cropH * 2 : cropH
        }
        try Image.checkDimensions(width: eyeW, height: eyeH, limits: o.limits)
        guard eyeW >= 16, eyeH >= 16 else { throw ParseError(.invalidValue, offset: 0, path: inputName, "each eye would be \(eyeW)×\(eyeH); at least 16×16 is needed") }
        if let f = o.fps {
            guard f.num > 0, f.den > 0 else { throw ParseError(.invalidValue, offset: 0, "frame rate \(f.num)/\(f.den) is not positive") }
            fpsNum = f.num; fpsDen = f.den
        }
        guard fpsNum > 0, fpsDen > 0, fpsNum <= 1_000_000, fpsDen <= 1_000_000 else {
            throw ParseError(.invalidValue, offset: 0, path: inputName, "the input's frame rate \(fpsNum)/\(fpsDen) is not usable; give the frame rate", remedy: .giveFrameRate)
        }
        if o.layout.half && producers.count == 1 {
            notes.append("half-resolution \(o.layout.horizontal ? "SBS" : "TB"): each eye stretched from \(cropW)×\(cropH) to \(eyeW)×\(eyeH) (linear)")
        }
        return (cropW, cropH, eyeW, eyeH, fpsNum, fpsDen)
    }

    /// The colour and bit depth written (Specs/conversion.md, "Colour as recorded"): the source's colour description,
    /// range and HDR metadata as it states them, and 10 bits for a source of more than 8 (8 when asked, or when an
    /// option works on 8-bit pictures only), each choice in a note.
    static func colourPlan(_ producers: [VideoFrameProducer], options o: VideoConversionOptions, notes: inout [String])
        throws(ParseError) -> (colour: VideoColour, bitDepth: Int) {
        let source = producers[0].bitDepth
        if let d = o.bitDepth, d != 8 && d != 10 {
            throw ParseError(.invalidArgument, offset: 0, "bit depth \(d): spatial video is written with 8 or 10 bits")
        }
        var depth = o.bitDepth ?? (source > 8 ? 10 : 8)
        var colour = producers[0].colour ?? .unstatedDefault
        let mapped = producers.compactMap { ($0 as? FFmpegProducer)?.toneMapped }
        if o.sdr {
            notes.append(mapped.first.map { "--sdr: \($0)\(producers.count == 2 ? " (both inputs)" : "")" }
                         ?? "--sdr: the source is not HDR (\(colour.text)): nothing to tone-map, its colour is kept")
        }
        if producers.count == 2, let r = producers[1].colour, r != colour {
            notes.append("the right input states another colour (\(r.text)) than the left (\(colour.text)): the left's is written")
        }
        if colour.stated && colour.primaries == 2 && colour.transfer == 2 && colour.matrix == 2 {
            // Only the range is stated (a Y4M stream): the range is kept, the description stays BT.709.
            colour = VideoColour(primaries: 1, transfer: 1, matrix: 1, fullRange: colour.fullRange, stated: true)
        }
        let banding = colour.isHDR ? "; its \(VideoColour.transferName(colour.transfer)) transfer is kept and may band in 8 bits" : ""
        if depth == 10 && (o.layout.half || o.align || o.autoDisparity) {
            depth = 8
            let why = o.layout.half ? "the half-resolution stretch" : "alignment"
            notes.append("\(source)-bit input written with 8 bits: \(why) works on 8-bit pictures\(banding)")
        } else if depth == 8 && source > 8 {
            notes.append("\(source)-bit input rounded to 8 bits (--bit-depth 8)\(banding)")
        } else if depth == 10 && source > 8 {
            let kept = source > 10 ? "\(source)-bit input rounded to 10 bits" : "10-bit input kept"
            notes.append("\(kept): both layers Main 10 (--bit-depth 8 writes 8-bit Multiview Main)")
        } else if depth == 10 {
            notes.append("8-bit input written with 10 bits (--bit-depth 10)")
        }
        if colour.stated && mapped.isEmpty {
            var line = "colour as the source states it: \(colour.text)"
            if colour.fullRange { line += " (kept full range: VUI video_full_range_flag 1, colr nclx full range)" }
            if let h = colour.hdrMetadataText { line += "; \(h) (mdcv/clli and SEI)" }
            notes.append(line)
        }
        if colour.transfer == 16 && colour.masteringDisplay == nil {
            notes.append("PQ source without mastering display metadata: none is written")
        }
        return (colour, depth)
    }

    /// 8-bit copies of a pair for the measurements that read 8-bit pictures (the geometry check).
    static func eightBit(_ pair: (Image, Image)) throws(ParseError) -> (Image, Image) {
        guard pair.0.bitDepth > 8 || pair.1.bitDepth > 8 else { return pair }
        return (try ColourConversion.changeDepth(pair.0, to: 8), try ColourConversion.changeDepth(pair.1, to: 8))
    }

    /// The stream's header SEI with the mastering display (137) and content light level (144) of `colour` added, so
    /// that they reach `hvcC` (and, from there, `mdcv`/`clli`).
    static func withHDRMessages(_ sei: NALUnit, _ colour: VideoColour) throws(ParseError) -> NALUnit {
        let extra = colour.hdrSEIMessages
        guard !extra.isEmpty else { return sei }
        var list = try SEIMessageList(nal: sei)
        list.messages.removeAll { $0.payloadType == 137 || $0.payloadType == 144 }
        list.messages += extra
        return list.nalUnit()
    }

    /// x265 settings shared by both eyes: identical fixed GOPs so the pictures pair up.
    static func encoderSettings(_ o: VideoConversionOptions, fpsNum: Int, fpsDen: Int, colour: VideoColour = .unstatedDefault,
                                bitDepth: Int = 8) -> HEVCEncoderSettings {
        var settings = HEVCEncoderSettings()
        settings.preset = o.preset
        settings.rateControl = o.rateControl
        let fps = Double(fpsNum) / Double(fpsDen)
        settings.keyint = o.keyint ?? max(1, Int((2 * fps).rounded()))
        settings.minKeyint = settings.keyint
        settings.sceneCut = false
        settings.openGOP = false
        settings.bframes = o.bframes
        settings.fpsNum = fpsNum; settings.fpsDen = fpsDen
        settings.threads = o.poolThreadsPerEye ?? VideoConversionOptions.defaultPoolThreadsPerEye
        settings.frameThreads = o.frameThreadsPerEye ?? 1
        settings.colour = ColourSpace(matrixCoefficients: colour.matrix, fullRange: colour.fullRange)
        settings.matrixCoefficients = colour.matrix
        settings.colourPrimaries = colour.primaries; settings.transferCharacteristics = colour.transfer
        settings.bitDepth = bitDepth
        settings.extraOptions = ["b-adapt": "0", "lookahead-threads": "0", "hist-scenecut": "0"]
        return settings
    }

    // MARK: - Pipeline

    /// Starts both encoders, runs the read → split → queue loop, waits for the encoders.
    static func encode(_ plan: Plan, output: String, options o: VideoConversionOptions, cancellation: ConversionCancellation?,
                       progress: ((VideoConversionProgress) -> Void)?, t0: Double) throws(ParseError) -> Encoded {
        var ownCPU = 0.0
        let readerCPUStart = threadCPUSeconds()
        let settings = encoderSettings(o, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen, colour: plan.colour, bitDepth: plan.bitDepth)
        let eyeSettings = try eyeEncoding(settings, options: o, eyeW: plan.eyeW, eyeH: plan.eyeH, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen)
        let leftSettings = o.heroIsLeft ? eyeSettings.hero : eyeSettings.other
        let rightSettings = o.heroIsLeft ? eyeSettings.other : eyeSettings.hero
        // Opening the encoders is x265's work, not ours: taken out of the reader thread's CPU time.
        let encoderOpenStart = threadCPUSeconds()
        let keepDir = o.keepStreamsPrefix.map { p -> String in
            guard let slash = p.lastIndex(of: "/") else { return "." }
            return String(p[..<slash]).isEmpty ? "/" : String(p[..<slash])
        }
        let left = try EyeEncoder(name: "left", layer: o.heroIsLeft ? 0 : 1, width: plan.eyeW, height: plan.eyeH, settings: leftSettings, keepIn: keepDir, limits: o.limits)
        let right = try EyeEncoder(name: "right", layer: o.heroIsLeft ? 1 : 0, width: plan.eyeW, height: plan.eyeH, settings: rightSettings, keepIn: keepDir, limits: o.limits)
        ownCPU -= threadCPUSeconds() - encoderOpenStart
        let eyes = [left, right]
        // Pictures are paired, assembled and written while the encoders run: the coded streams are never held whole.
        var mux = plan.mux
        mux.frameRateNum = UInt32(plan.fpsNum); mux.frameRateDen = UInt32(plan.fpsDen)
        let writer = try SpatialVideoStreamWriter(path: output, options: mux)
        let base = o.heroIsLeft ? left : right, second = o.heroIsLeft ? right : left
        let assembly = try StreamingAssembly(baseHeaders: base.headers, secondHeaders: second.headers,
                                             options: MVHEVCAssemblyOptions(baseIsLeft: o.heroIsLeft, layerSPSForm: o.layerSPSForm, matchAppleChoices: o.layerSPSForm == .multilayer), writer: writer)
        for e in eyes { e.assembly = assembly }
        if let first = plan.segmentFirstFrame {
            for e in eyes { e.aligner = try SliceFlagAligner(headers: e.headers, firstFrame: first) }
        }
        left.start(); right.start()

        var frames = 0
        let total = plan.producers.map(\.frameCountHint).compactMap { $0 }.min()
        let sampler = plan.alignment == nil ? o.geometryCheck.map { VideoGeometrySampler($0, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen) } : nil
        var lastProgress = 0.0
        var encoderFailed = false
        do throws(ParseError) {
            while var pair = try nextPair(plan, options: o, frames: frames, cancellation: cancellation) {
                if let a = plan.alignment { pair = try a.apply(pair, frame: frames) }
                if let sampler { sampler.look(try eightBit(pair), frame: frames) }
                guard left.queue.put(pair.0), right.queue.put(pair.1) else { encoderFailed = true; break }  // reported below
                frames += 1
                let now = monotonicSeconds()
                if let progress, now - lastProgress >= 0.25 {
                    lastProgress = now
                    progress(VideoConversionProgress(frames: frames, totalFrames: total, elapsedSeconds: now - t0))
                }
            }
            // After an encoder failure the producers are stopped (defer), not waited for: ffmpeg may be blocked writing.
            if !encoderFailed { for p in plan.producers { try p.finish() } }
        } catch {
            for e in eyes { e.queue.abort() }
            for e in eyes { e.join() }
            if cancellation?.isCancelled == true { throw ParseError(.io, offset: 0, path: output, "cancelled; nothing was written") }
            throw error
        }
        // Own CPU of this (reader) thread, minus time blocked in the queues (blocking costs no CPU).
        ownCPU += threadCPUSeconds() - readerCPUStart
        for e in eyes { e.queue.close() }
        for e in eyes { e.join() }
        try keepStreams(eyes, frames: frames, options: o)
        for e in eyes { if let err = e.error { throw err } }
        if cancellation?.isCancelled == true { throw ParseError(.io, offset: 0, path: output, "cancelled; nothing was written") }
        guard frames > 0 else { throw ParseError(.truncated, offset: 0, "the input has no frames (zero frames)") }
        guard left.framesOut == frames, right.framesOut == frames else {
            throw ParseError(.invalidValue, offset: 0, "x265 returned \(left.framesOut)/\(right.framesOut) pictures for \(frames) frames")
        }
        ownCPU += left.packCPU + right.packCPU
        progress?(VideoConversionProgress(frames: frames, totalFrames: frames, elapsedSeconds: monotonicSeconds() - t0))
        let x265 = "x265 \(HEVCEncoder.version), 2 encoders at once (pools \(settings.threads), frame-threads \(settings.frameThreads) each), preset \(o.preset), \(eyeSettings.summary), keyint \(settings.keyint), \(o.bframes) B-frames (fixed), closed GOP, no scene-cut; layer-1 SPS \(o.layerSPSForm.rawValue) form"
        return Encoded(frames: frames, finishStream: { () throws(ParseError) -> MVHEVCStream in try assembly.finish(); return assembly.header },
                       writer: writer, settings: settings, eyes: eyeSettings, ownCPU: ownCPU,
                       encoderText: x265, pathText: encodePathText(X265MultiviewProbe.current, multiview: false),
                       geometryCheck: sampler?.report)
    }

    /// The next frame of the input(s) as two eyes (8-bit, cropped, stretched back for half layouts), or nil at the end.
    static func nextPair(_ plan: Plan, options o: VideoConversionOptions, frames: Int, cancellation: ConversionCancellation?) throws(ParseError) -> (Image, Image)? {
        if cancellation?.isCancelled == true { throw ParseError(.io, offset: 0, "cancelled") }
        let producers = plan.producers
        let w = plan.cropW, h = plan.cropH
        guard var a = try producers[0].next() else {
            if producers.count == 2, try producers[1].next() != nil {
                throw ParseError(.invalidValue, offset: 0, "the two inputs have different frame counts: the left ends after \(frames) frames, the right has more")
            }
            return nil
        }
        if a.bitDepth != plan.bitDepth { a = try ColourConversion.changeDepth(a, to: plan.bitDepth) }
        var pair: (Image, Image)
        if producers.count == 2 {
            guard var b = try producers[1].next() else {
                throw ParseError(.invalidValue, offset: 0, "the two inputs have different frame counts: the right ends after \(frames) frames, the left has more")
            }
            if b.bitDepth != plan.bitDepth { b = try ColourConversion.changeDepth(b, to: plan.bitDepth) }
            pair = (try crop(a, 0, 0, w, h), try crop(b, 0, 0, w, h))
        } else {
            pair = o.layout.horizontal ? (try crop(a, 0, 0, w, h), try crop(a, w, 0, w, h)) : (try crop(a, 0, 0, w, h), try crop(a, 0, h, w, h))
            if o.layout.half {
                pair = (try stretch2(pair.0, horizontal: o.layout.horizontal), try stretch2(pair.1, horizontal: o.layout.horizontal))
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

    // MARK: - Report

    static func report(_ plan: Plan, _ e: Encoded, audio: [String], output: String, options o: VideoConversionOptions,
                       seconds: Double, processCPU: Double) -> VideoConversionReport {
        // A sphere carries only the values given (none is a default there).
        let absent = plan.sphere == nil ? "default, not measured" : "not written"
        return VideoConversionReport(
            output: output, source: plan.sourceName, frames: e.frames, eyeWidth: plan.eyeW, eyeHeight: plan.eyeH,
            fpsNum: plan.fpsNum, fpsDen: plan.fpsDen, bytes: UInt64(fileSize(output)),
            layer0Bytes: e.writer.layer0Bytes, layer1Bytes: e.writer.layer1Bytes,
            stereo: plan.mux.stereo, baselineSource: o.stereo.baselineMicrometres == nil ? absent : "--baseline",
            hfovSource: plan.sphere != nil ? "not written: a sphere's field of view is its projection's" : o.stereo.horizontalFieldOfViewMillidegrees == nil ? absent : "--hfov",
            disparitySource: o.stereo.disparityAdjustment == nil ? absent : "--disparity",
            audioTracks: audio, encoder: e.encoderText, encodePath: e.pathText,
            notes: plan.notes + e.eyes.notes, seconds: seconds,
            ownCPUSeconds: e.ownCPU, processCPUSeconds: processCPU, peakRSSBytes: peakRSSBytes())
    }

    static func fileSize(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }

    static func isISOBMFF(_ path: String) -> Bool {
        let k = FileProbe.kind(of: path)
        return k == .movie || k == .heif
    }

    static func isY4M(_ path: String) -> Bool { FileProbe.kind(of: path) == .y4m }

    /// Fails early (before any encoding) when the output cannot be created.
    static func checkOutputDirectory(_ output: String) throws(ParseError) {
        let dir: String
        if let slash = output.lastIndex(of: "/") { dir = String(output[..<slash]).isEmpty ? "/" : String(output[..<slash]) } else { dir = "." }
        var st = stat()
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ParseError(.io, offset: 0, path: output, "cannot write \(output): directory '\(dir)' does not exist")
        }
        guard access(dir, W_OK) == 0 else {
            throw ParseError(.io, offset: 0, path: output, "cannot write \(output): directory '\(dir)' is not writable")
        }
        if stat(output, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw ParseError(.io, offset: 0, path: output, "cannot write \(output): it is a directory")
        }
    }

    /// Crop on the 4:2:0 grid (x, y, w, h even): row copies per plane, no colour conversion.
    static func crop(_ img: Image, _ x: Int, _ y: Int, _ w: Int, _ h: Int) throws(ParseError) -> Image {
        guard case .u8(let planes) = img.planes, img.format == .yuv420, x % 2 == 0, y % 2 == 0, w % 2 == 0, h % 2 == 0,
              x >= 0, y >= 0, x + w <= img.width, y + h <= img.height else {
            return try ImageOps.crop(img, x: x, y: y, width: w, height: h)
        }
        if x == 0 && y == 0 && w == img.width && h == img.height { return img }
        var out: [[UInt8]] = []
        out.reserveCapacity(3)
        for (p, src) in planes.enumerated() {
            let shift = p == 0 ? 0 : 1
            let sw = img.planeWidth(p), ow = w >> shift, oh = h >> shift, ox = x >> shift, oy = y >> shift
            let dst = [UInt8](unsafeUninitializedCapacity: ow * oh) { buf, count in
                src.withUnsafeBufferPointer { s in
                    guard let sb = s.baseAddress, let db = buf.baseAddress else { return }
                    for row in 0..<oh { (db + row * ow).update(from: sb + (oy + row) * sw + ox, count: ow) }
                }
                count = ow * oh
            }
            out.append(dst)
        }
        return try Image(width: w, height: h, bitDepth: 8, format: .yuv420, planes: .u8(out), colour: img.colour)
    }

    /// Doubles the width (or height) of an 8-bit planar image with linear interpolation
    /// (sample positions of a centred 2× upsampling: 3/4 nearest + 1/4 next).
    static func stretch2(_ img: Image, horizontal: Bool) throws(ParseError) -> Image {
        guard case .u8(let planes) = img.planes else { throw ParseError(.unsupported, offset: 0, "stretch needs 8-bit samples") }
        var out: [[UInt8]] = []
        for (p, src) in planes.enumerated() {
            let w = img.planeWidth(p), h = img.planeHeight(p)
            let ow = horizontal ? 2 * w : w, oh = horizontal ? h : 2 * h
            var dst = [UInt8](repeating: 0, count: ow * oh)
            src.withUnsafeBufferPointer { s in
                dst.withUnsafeMutableBufferPointer { d in
                    if horizontal {
                        for y in 0..<h {
                            let r = y * w, o = y * ow
                            for x in 0..<w {
                                let c = Int(s[r + x]) * 3
                                let l = Int(s[r + max(0, x - 1)]), rr = Int(s[r + min(w - 1, x + 1)])
                                d[o + 2 * x] = UInt8((c + l + 2) >> 2)
                                d[o + 2 * x + 1] = UInt8((c + rr + 2) >> 2)
                            }
                        }
                    } else {
                        for y in 0..<h {
                            let up = max(0, y - 1) * w, dn = min(h - 1, y + 1) * w, r = y * w
                            for x in 0..<w {
                                let c = Int(s[r + x]) * 3
                                d[2 * y * w + x] = UInt8((c + Int(s[up + x]) + 2) >> 2)
                                d[(2 * y + 1) * w + x] = UInt8((c + Int(s[dn + x]) + 2) >> 2)
                            }
                        }
                    }
                }
            }
            out.append(dst)
        }
        return try Image(width: horizontal ? img.width * 2 : img.width, height: horizontal ? img.height : img.height * 2,
                         bitDepth: 8, format: img.format, planes: .u8(out), colour: img.colour)
    }
}
