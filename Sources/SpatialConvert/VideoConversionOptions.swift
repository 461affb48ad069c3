import BinaryIO
import Codecs
import HEVC
import MediaDecode
import SpatialMedia
import SystemSupport

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

/// Options of `VideoConverter.convert(_:to:options:cancellation:progress:)`. Nil values mean
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
    /// machine's: one per eye encoder, and ``VideoConverter/multiviewFrameThreads`` for a multiview encoder whose
    /// library is patched to encode frames in parallel deterministically (one for an unpatched x265 4.1, whose output
    /// then varies run to run).
    public var poolThreadsPerEye: Int? = nil
    public var frameThreadsPerEye: Int? = nil
    /// Worker threads per eye when none are asked for: half the processors this process may run on, at least one —
    /// one per eye on two cores (measured best there), and the whole machine on larger ones, where a fixed one per
    /// eye left all but two cores idle while FFmpeg's libx265 uses them all.
    public static var defaultPoolThreadsPerEye: Int { max(1, ProcessorInfo.activeCount / 2) }
    /// The stereo parameters written, in stored units; a nil field takes the one table of defaults,
    /// ``/SpatialMedia/StereoParameters/defaults`` (reported as a default, never as a measurement). The hero eye (left
    /// or right) is also the base layer (what 2D players show). The projection is `rect`, or a sphere (``isSphere``):
    /// `hequ` (180°) or `equi` (360°) — each eye is then one half of the frame-packed sphere, written as MV-HEVC APMP
    /// with `vexu/proj/prji` and no `hfov` (a sphere's field of view is its projection's); an MP4/MOV input's spherical
    /// metadata must agree with the projection and ``layout``
    /// (``/SpatialMedia/StereoVideoMetadata/sphereSplit(width:height:projection:packing:)``), whose eye order is
    /// applied. Other kinds are refused.
    public var stereo = StereoParameters()
    /// Where a value of ``stereo`` came from when not from the caller (the eyes' own metadata), for the report; nil =
    /// given (or the default when the value is nil).
    public var stereoSources = StereoValueSources()
    /// Lines about the inputs found while planning (read-back values the eyes disagree on …), added to the report.
    public var inputNotes: [String] = []
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
    /// Form of the layer-1 SPS: `.multilayer` (default, Apple's form: layer 1's profile is Multiview Main from the VPS,
    /// and Apple's other free parameter-set choices: `general_non_packed_constraint_flag` 1, no latency limit, see
    /// ``/HEVC/MVHEVCAssemblyOptions/matchAppleChoices``) or `.full` (both encoders' SPSs kept whole; a split gives
    /// back x265's streams byte for byte).
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

/// Where each stereo value of a conversion came from when it was not given by the caller.
public struct StereoValueSources: Sendable, Equatable {
    public var baseline: String?
    public var hfov: String?
    public var disparity: String?
    public init(baseline: String? = nil, hfov: String? = nil, disparity: String? = nil) {
        self.baseline = baseline; self.hfov = hfov; self.disparity = disparity
    }
}
