import BinaryIO
import Codecs
import HEVC
import MediaDecode
import SpatialConvert
import SpatialMedia
import SystemSupport

/// A conversion as the user asked for it, before any default is filled or any range checked: a stereo image, MPO,
/// image pair, 3D video, video pair or pair of raw HEVC streams → a spatial photo or spatial video.
///
/// Every shell builds one of these and nothing else: the command line from its flags, the C ABI from `options_json`
/// (``init(input:left:right:output:values:)``), Python through the C ABI, `SpatialMediaKit` from its arguments. Whether
/// the job is a photo or a video, every default, every range and every refusal is ``ConvertPlan``'s.
public struct ConvertRequest: Sendable, Equatable {
    /// One file holding both eyes ("-" = Y4M on standard input); or nil with ``left`` and ``right``.
    public var input: String?
    public var left: String?
    public var right: String?
    public var output: String
    /// The route the caller's command itself names (`assemble`: ``ConvertRoute/hevcPair``); nil: probed from the
    /// inputs.
    public var route: ConvertRoute?

    public var layout: String?
    public var halfResolution: Bool?
    public var swapEyes: Bool?
    /// The stereo values in either unit (the stored one, or the human one); not both of one value.
    public var values = StereoValueInputs()
    public var align: Bool?
    public var autoDisparity: Bool?
    /// Refuse to write when the conversion-time geometry check finds a fault in the source (else: a warning naming the
    /// fix).
    public var strict: Bool?
    /// Photos: convert a frame-packed picture even when no stereo pair is measured in it (the caller vouches for the
    /// layout).
    public var force: Bool?

    // Photos.
    public var quality: Int?
    public var bitDepth: Int?
    public var form: String?
    /// Photos: an HDR gain map / depth map for each eye of a pair made elsewhere: a HEIC (its primary image, bytes kept
    /// — what `split --aux` writes) or a PNG/JPEG (encoded). It replaces one of the same kind the eye's source carries.
    public var leftGainMap: String?
    public var rightGainMap: String?
    public var leftDepth: String?
    public var rightDepth: String?
    public var threads: Int?

    // Videos.
    public var crf: Double?
    public var bitrate: Int?
    public var eyeQuality: String?
    public var maxBitrate: Int?
    public var vbvBufsize: Int?
    public var applePreset: String?
    public var encodePath: String?
    public var qp: Int?
    public var segment: String?
    public var preset: String?
    public var keyint: Int?
    public var bframes: Int?
    /// Tone-map an HDR (PQ, HLG) source to BT.709 SDR through FFmpeg (`--sdr`).
    public var sdr: Bool?
    public var audio: String?
    public var audioFrom: String?
    public var noAudio: Bool?
    public var heroEye: String?
    /// Raw HEVC pairs only: which eye layer 0 carries (the hero eye otherwise decides).
    public var baseEye: String?
    public var frameRate: String?
    public var decoder: String?
    public var threadsPerEye: Int?
    public var layerSps: String?
    public var container: String?
    public var faststart: Bool?
    public var keepStreams: String?
    /// Videos: the sphere the input is (`hequ` 180°, `equi` 360°) when its metadata does not say; with spherical
    /// metadata, read from the file (and a stated one must agree).
    public var projection: String?

    public init(input: String? = nil, left: String? = nil, right: String? = nil, output: String) {
        self.input = input; self.left = left; self.right = right; self.output = output
    }

    /// The request of the C ABI and Python: `values` by the keys of ``table`` (unknown keys and wrong types refused).
    public init(
        input: String?, left: String? = nil, right: String? = nil, output: String, values: [(String, RequestValue)]
    ) throws(ParseError) {
        self.init(input: input, left: left, right: right, output: output)
        try RequestValues.fill(values, table: Self.table, job: "convert") { (spec, value) throws(ParseError) in
            try set(spec, value)
        }
    }

    /// The name table: JSON key ↔ flag ↔ Python keyword, type, job and default (defaults from the library's values).
    public static var table: [OptionSpec] {
        let v = VideoConversionOptions()
        let s = StereoParameters.defaults
        return [
            OptionSpec(
                "layout", flag: "--layout", .text, .both,
                default:
                    "auto (the packing the input states, else the one way, sbs or tb, whose halves measure as a stereo pair; else refused)"
            ),
            OptionSpec("half_resolution", flag: "--half", .bool, .photo, default: "false"),
            OptionSpec("swap_eyes", flag: "--swap-eyes", .bool, .both, default: "false"),
            OptionSpec(
                "baseline_mm", flag: "--baseline", .number, .both,
                default: "source, else \(fmtNum(s.baselineMillimetres ?? 0))"),
            OptionSpec(
                "baseline_um", flag: nil, .integer, .both, default: "source, else \(s.baselineMicrometres ?? 0)"),
            OptionSpec(
                "hfov_degrees", flag: "--hfov", .number, .both,
                default: "source, else \(fmtNum(s.horizontalFieldOfViewDegrees ?? 0))"),
            OptionSpec(
                "hfov_millidegrees", flag: nil, .integer, .both,
                default: "source, else \(s.horizontalFieldOfViewMillidegrees ?? 0)"),
            OptionSpec(
                "disparity_percent", flag: "--disparity", .number, .both,
                default: "\(fmtNum(s.disparityPercent ?? 0))"),
            OptionSpec("disparity", flag: nil, .integer, .both, default: "\(s.disparityAdjustment ?? 0)"),
            OptionSpec("align", flag: "--align", .bool, .both, default: "false"),
            OptionSpec("auto_disparity", flag: "--auto-disparity", .bool, .both, default: "false"),
            OptionSpec("strict", flag: "--strict", .bool, .both, default: "false"),
            OptionSpec("force", flag: "--force", .bool, .both, default: "false"),
            OptionSpec("quality", flag: "--quality", .integer, .photo, default: "\(PhotoEncoding.defaultQuality)"),
            OptionSpec(
                "bit_depth", flag: "--bit-depth", .integer, .both,
                default: "10 for sources deeper than 8 bits, else 8"),
            OptionSpec("left_gain_map", flag: "--left-gain-map", .path, .photo),
            OptionSpec("right_gain_map", flag: "--right-gain-map", .path, .photo),
            OptionSpec("left_depth", flag: "--left-depth", .path, .photo),
            OptionSpec("right_depth", flag: "--right-depth", .path, .photo),
            OptionSpec(
                "form", flag: "--form", python: "photo_form", .text, .photo,
                default: PhotoConversionOptions().form.rawValue),
            OptionSpec("threads", flag: nil, .integer, .photo, default: "0 (all cores)"),
            OptionSpec("crf", flag: "--crf", .number, .video, default: fmtNum(VideoConversionOptions.defaultCRF)),
            OptionSpec("bitrate", flag: "--bitrate", .integer, .video),
            OptionSpec("eye_quality", flag: "--eye-quality", .text, .video, default: eyeQualityArgument(v.eyeQuality)),
            OptionSpec("max_bitrate", flag: "--max-bitrate", .integer, .video),
            OptionSpec("vbv_bufsize", flag: "--vbv-bufsize", .integer, .video),
            OptionSpec("apple_preset", flag: "--apple-preset", .text, .video),
            OptionSpec("encode_path", flag: "--encode-path", .text, .video, default: v.encodePath.rawValue),
            OptionSpec("qp", flag: "--qp", .integer, .video),
            OptionSpec("segment", flag: "--segment", .segment, .video),
            OptionSpec("preset", flag: "--preset", .text, .video, default: v.preset),
            OptionSpec("keyint", flag: "--keyint", .integer, .video, default: "2 s of frames"),
            OptionSpec("bframes", flag: "--bframes", .integer, .video, default: "\(v.bframes)"),
            OptionSpec("sdr", flag: "--sdr", .bool, .video, default: "false (HDR kept as recorded)"),
            OptionSpec("audio", flag: "--audio", .text, .video, default: v.audio.rawValue),
            OptionSpec("audio_from", flag: "--audio-from", .path, .video),
            OptionSpec("no_audio", flag: "--no-audio", .bool, .video, default: "false"),
            OptionSpec("hero_eye", flag: "--hero", .text, .video, default: "\(s.heroEye ?? .left)"),
            OptionSpec("base_eye", flag: nil, .text, .video, default: "the hero eye"),
            OptionSpec("frame_rate", flag: "--fps", .rate, .video, default: "the input's"),
            OptionSpec("decoder", flag: "--decoder", .text, .video, default: v.decoder.rawValue),
            OptionSpec(
                "threads_per_eye", flag: "--threads-per-eye", .integer, .video,
                default: "half the processors, at least 1"),
            OptionSpec("layer_sps", flag: "--sps-form", .text, .video, default: v.layerSPSForm.rawValue),
            OptionSpec("container", flag: "--mp4", .text, .video, default: v.container.rawValue),
            OptionSpec("faststart", flag: "--faststart", .bool, .video, default: "false"),
            OptionSpec("keep_streams", flag: "--keep-streams", .path, .video),
            OptionSpec(
                "projection", flag: "--projection", .text, .video,
                default: "the input's spherical metadata, else rectilinear"),
        ]
    }

    /// The `eye_quality` spelling of a library value ("equal", "asymmetric", "asymmetric:N").
    static func eyeQualityArgument(_ e: EyeQuality) -> String {
        switch e {
        case .automatic: return "auto"
        case .equal: return "equal"
        case .asymmetric(let d): return d == EyeQuality.defaultCRFOffset ? "asymmetric" : "asymmetric:\(fmtNum(d))"
        }
    }

    static func fmtNum(_ d: Double) -> String { NumberText.fixed(d, places: 3, trimZeros: true) }

    /// True when the option of `key` was given (a nil optional, or a false flag, is not given). Read by reflection
    /// over the stored properties, whose names are the keys in camel case, so no second list of the keys is kept.
    func isGiven(_ key: String) -> Bool {
        for child in Mirror(reflecting: self).children where child.label.map(Self.snakeCase) == key {
            let value = Mirror(reflecting: child.value)
            guard value.displayStyle == .optional, let inner = value.children.first?.value else { return false }
            return (inner as? Bool) ?? true
        }
        return false
    }

    /// "eyeQuality" → "eye_quality".
    static func snakeCase(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase { out += "_" + c.lowercased() } else { out.append(c) }
        }
        return out
    }

    private mutating func set(_ spec: OptionSpec, _ v: RequestValue) throws(ParseError) {
        switch spec.key {
        case "layout": layout = try RequestValues.text(v, spec)
        case "half_resolution": halfResolution = try RequestValues.bool(v, spec)
        case "swap_eyes": swapEyes = try RequestValues.bool(v, spec)
        case "baseline_mm": values.baselineMillimetres = try RequestValues.number(v, spec)
        case "baseline_um": values.baselineMicrometres = try RequestValues.integer(v, spec)
        case "hfov_degrees": values.hfovDegrees = try RequestValues.number(v, spec)
        case "hfov_millidegrees": values.hfovMillidegrees = try RequestValues.integer(v, spec)
        case "disparity_percent": values.disparityPercent = try RequestValues.number(v, spec)
        case "disparity": values.disparity = try RequestValues.integer(v, spec)
        case "align": align = try RequestValues.bool(v, spec)
        case "auto_disparity": autoDisparity = try RequestValues.bool(v, spec)
        case "strict": strict = try RequestValues.bool(v, spec)
        case "force": force = try RequestValues.bool(v, spec)
        case "quality": quality = try RequestValues.integer(v, spec)
        case "bit_depth": bitDepth = try RequestValues.integer(v, spec)
        case "form": form = try RequestValues.text(v, spec)
        case "left_gain_map": leftGainMap = try RequestValues.text(v, spec)
        case "right_gain_map": rightGainMap = try RequestValues.text(v, spec)
        case "left_depth": leftDepth = try RequestValues.text(v, spec)
        case "right_depth": rightDepth = try RequestValues.text(v, spec)
        case "threads": threads = try RequestValues.integer(v, spec)
        case "crf": crf = try RequestValues.number(v, spec)
        case "bitrate": bitrate = try RequestValues.integer(v, spec)
        case "eye_quality": eyeQuality = try RequestValues.text(v, spec)
        case "max_bitrate": maxBitrate = try RequestValues.integer(v, spec)
        case "vbv_bufsize": vbvBufsize = try RequestValues.integer(v, spec)
        case "apple_preset": applePreset = try RequestValues.text(v, spec)
        case "encode_path": encodePath = try RequestValues.text(v, spec)
        case "qp": qp = try RequestValues.integer(v, spec)
        case "segment": segment = try RequestValues.fraction(v, spec)
        case "preset": preset = try RequestValues.text(v, spec)
        case "keyint": keyint = try RequestValues.integer(v, spec)
        case "bframes": bframes = try RequestValues.integer(v, spec)
        case "sdr": sdr = try RequestValues.bool(v, spec)
        case "audio": audio = try RequestValues.text(v, spec)
        case "audio_from": audioFrom = try RequestValues.text(v, spec)
        case "no_audio": noAudio = try RequestValues.bool(v, spec)
        case "hero_eye": heroEye = try RequestValues.text(v, spec)
        case "base_eye": baseEye = try RequestValues.text(v, spec)
        case "frame_rate": frameRate = try RequestValues.fraction(v, spec)
        case "decoder": decoder = try RequestValues.text(v, spec)
        case "threads_per_eye": threadsPerEye = try RequestValues.integer(v, spec)
        case "layer_sps": layerSps = try RequestValues.text(v, spec)
        case "container": container = try RequestValues.text(v, spec)
        case "faststart": faststart = try RequestValues.bool(v, spec)
        case "keep_streams": keepStreams = try RequestValues.text(v, spec)
        case "projection": projection = try RequestValues.text(v, spec)
        default: throw ParseError(.invalidArgument, "unknown option \"\(spec.key)\" for convert")
        }
    }
}
