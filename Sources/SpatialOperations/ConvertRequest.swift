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
public struct ConvertRequest: Sendable, Equatable, OptionTableRequest {
    /// One file holding both eyes ("-" = Y4M on standard input); or nil with ``left`` and ``right``.
    public var input: String?
    public var left: String?
    public var right: String?
    public var output: String
    /// The route the caller's command itself names (`assemble`: ``ConvertRoute/hevcPair``); nil: probed from the
    /// inputs.
    public var route: ConvertRoute?

    /// The packing of a frame-packed input; nil: `auto` (stated by the input, else recognised from its pixels). A photo
    /// takes `sbs` and `tb` (its squeezed eyes are ``halfResolution``).
    public var layout: StereoVideoLayout?
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
    public var form: CameraPropertyForm?
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
    public var eyeQuality: EyeQuality?
    public var maxBitrate: Int?
    public var vbvBufsize: Int?
    public var applePreset: PublishingPreset?
    public var encodePath: EncodePath?
    public var qp: Int?
    public var segment: VideoSegment?
    public var preset: X265Preset?
    public var keyint: Int?
    public var bframes: Int?
    /// Tone-map an HDR (PQ, HLG) source to BT.709 SDR through FFmpeg (`--sdr`).
    public var sdr: Bool?
    public var audio: VideoConversionOptions.Audio?
    public var audioFrom: String?
    public var noAudio: Bool?
    public var heroEye: HeroEye?
    /// Raw HEVC pairs only: which eye layer 0 carries (the hero eye otherwise decides).
    public var baseEye: HeroEye?
    public var frameRate: String?
    public var decoder: VideoDecoderChoice?
    public var threadsPerEye: Int?
    public var layerSps: LayerSPSForm?
    public var container: SpatialVideoMuxOptions.Container?
    public var faststart: Bool?
    public var keepStreams: String?
    /// Videos: the sphere the input is (`hequ` 180°, `equi` 360°) when its metadata does not say; with spherical
    /// metadata, read from the file (and a stated one must agree).
    public var projection: SphereProjection?

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
    public static var table: [OptionSpec] { options.map(\.spec) }

    /// One row per option: its names, type and default, the property that holds it, how an untyped value is read
    /// into it (once, here: a choice's text becomes the library's value) and whether it is given. The table, the
    /// C ABI's setter and ``isGiven(_:)`` all come from these rows.
    static var options: [RequestOption<ConvertRequest>] {
        let v = VideoConversionOptions()
        let s = StereoParameters.defaults
        let p = PhotoConversionOptions()
        let rows: [RequestOption<ConvertRequest>] = [
            .optional(
                OptionSpec(
                    "layout", flag: "--layout", .text, .both,
                    default:
                        "auto (the packing the input states, else the one way, sbs or tb, whose halves measure as a stereo pair; else refused)",
                    allowed: ["auto"] + StereoVideoLayout.allowedValues), \.layout
            ) { (v, spec) throws(ParseError) in try layout(RequestValues.text(v, spec), .key) },
            .flag(OptionSpec("half_resolution", flag: "--half", .bool, .photo, default: "false"), \.halfResolution),
            .flag(OptionSpec("swap_eyes", flag: "--swap-eyes", .bool, .both, default: "false"), \.swapEyes),
            .value(
                OptionSpec(
                    "baseline_mm", flag: "--baseline", .number, .both,
                    default: "source, else \(fmtNum(s.baselineMillimetres ?? 0))"), \.values.baselineMillimetres,
                RequestValues.number),
            .value(
                OptionSpec(
                    "baseline_um", flag: nil, .integer, .both, default: "source, else \(s.baselineMicrometres ?? 0)"),
                \.values.baselineMicrometres, RequestValues.integer),
            .value(
                OptionSpec(
                    "hfov_degrees", flag: "--hfov", .number, .both,
                    default: "source, else \(fmtNum(s.horizontalFieldOfViewDegrees ?? 0))"), \.values.hfovDegrees,
                RequestValues.number),
            .value(
                OptionSpec(
                    "hfov_millidegrees", flag: nil, .integer, .both,
                    default: "source, else \(s.horizontalFieldOfViewMillidegrees ?? 0)"), \.values.hfovMillidegrees,
                RequestValues.integer),
            .value(
                OptionSpec(
                    "disparity_percent", flag: "--disparity", .number, .both,
                    default: "\(fmtNum(s.disparityPercent ?? 0))"), \.values.disparityPercent, RequestValues.number),
            .value(
                OptionSpec("disparity", flag: nil, .integer, .both, default: "\(s.disparityAdjustment ?? 0)"),
                \.values.disparity, RequestValues.integer),
            .flag(OptionSpec("align", flag: "--align", .bool, .both, default: "false"), \.align),
            .flag(
                OptionSpec("auto_disparity", flag: "--auto-disparity", .bool, .both, default: "false"),
                \.autoDisparity),
            .flag(OptionSpec("strict", flag: "--strict", .bool, .both, default: "false"), \.strict),
            .flag(OptionSpec("force", flag: "--force", .bool, .both, default: "false"), \.force),
            .value(
                OptionSpec("quality", flag: "--quality", .integer, .photo, default: "\(PhotoEncoding.defaultQuality)"),
                \.quality, RequestValues.integer),
            .value(
                OptionSpec(
                    "bit_depth", flag: "--bit-depth", .integer, .both,
                    default: "10 for sources deeper than 8 bits, else 8"), \.bitDepth, RequestValues.integer),
            .value(
                OptionSpec("left_gain_map", flag: "--left-gain-map", .path, .photo), \.leftGainMap, RequestValues.text),
            .value(
                OptionSpec("right_gain_map", flag: "--right-gain-map", .path, .photo), \.rightGainMap,
                RequestValues.text),
            .value(OptionSpec("left_depth", flag: "--left-depth", .path, .photo), \.leftDepth, RequestValues.text),
            .value(OptionSpec("right_depth", flag: "--right-depth", .path, .photo), \.rightDepth, RequestValues.text),
            .choice(
                OptionSpec(
                    "form", flag: "--form", python: "photo_form", .text, .photo,
                    default: p.form.rawValue), \.form),
            .value(
                OptionSpec("threads", flag: nil, .integer, .photo, default: "\(p.threads) (all cores)"), \.threads,
                RequestValues.integer),
            .value(
                OptionSpec("crf", flag: "--crf", .number, .video, default: fmtNum(VideoConversionOptions.defaultCRF)),
                \.crf, RequestValues.number),
            .value(OptionSpec("bitrate", flag: "--bitrate", .integer, .video), \.bitrate, RequestValues.integer),
            .choice(
                OptionSpec(
                    "eye_quality", flag: "--eye-quality", .text, .video, default: eyeQualityArgument(v.eyeQuality)),
                \.eyeQuality),
            .value(
                OptionSpec("max_bitrate", flag: "--max-bitrate", .integer, .video), \.maxBitrate,
                RequestValues.integer),
            .value(
                OptionSpec(
                    "vbv_bufsize", flag: "--vbv-bufsize", .integer, .video, default: "1 s of the maximum bitrate"),
                \.vbvBufsize, RequestValues.integer),
            .choice(OptionSpec("apple_preset", flag: "--apple-preset", .text, .video), \.applePreset),
            .choice(
                OptionSpec("encode_path", flag: "--encode-path", .text, .video, default: v.encodePath.rawValue),
                \.encodePath),
            .value(OptionSpec("qp", flag: "--qp", .integer, .video), \.qp, RequestValues.integer),
            .value(OptionSpec("segment", flag: "--segment", .segment, .video), \.segment) {
                (v, spec) throws(ParseError) in try spec.choice(RequestValues.fraction(v, spec), .key)
            },
            .choice(OptionSpec("preset", flag: "--preset", .text, .video, default: v.preset), \.preset),
            .value(
                OptionSpec("keyint", flag: "--keyint", .integer, .video, default: "2 s of frames"), \.keyint,
                RequestValues.integer),
            .value(
                OptionSpec("bframes", flag: "--bframes", .integer, .video, default: "\(v.bframes)"), \.bframes,
                RequestValues.integer),
            .flag(OptionSpec("sdr", flag: "--sdr", .bool, .video, default: "false (HDR kept as recorded)"), \.sdr),
            .choice(OptionSpec("audio", flag: "--audio", .text, .video, default: v.audio.rawValue), \.audio),
            .value(OptionSpec("audio_from", flag: "--audio-from", .path, .video), \.audioFrom, RequestValues.text),
            .flag(OptionSpec("no_audio", flag: "--no-audio", .bool, .video, default: "false"), \.noAudio),
            .choice(OptionSpec("hero_eye", flag: "--hero", .text, .video, default: "\(s.heroEye ?? .left)"), \.heroEye),
            .choice(OptionSpec("base_eye", flag: nil, .text, .video, default: "the hero eye"), \.baseEye),
            .value(
                OptionSpec("frame_rate", flag: "--fps", .rate, .video, default: "the input's"), \.frameRate,
                RequestValues.fraction),
            .choice(OptionSpec("decoder", flag: "--decoder", .text, .video, default: v.decoder.rawValue), \.decoder),
            .value(
                OptionSpec(
                    "threads_per_eye", flag: "--threads-per-eye", .integer, .video,
                    default: "half the processors, at least 1"), \.threadsPerEye, RequestValues.integer),
            .choice(
                OptionSpec("layer_sps", flag: "--sps-form", .text, .video, default: v.layerSPSForm.rawValue), \.layerSps
            ),
            .choice(OptionSpec("container", flag: "--mp4", .text, .video, default: v.container.rawValue), \.container),
            .flag(OptionSpec("faststart", flag: "--faststart", .bool, .video, default: "false"), \.faststart),
            .value(
                OptionSpec("keep_streams", flag: "--keep-streams", .path, .video), \.keepStreams, RequestValues.text),
            .choice(
                OptionSpec(
                    "projection", flag: "--projection", .text, .video,
                    default: "the input's spherical metadata, else rectilinear"), \.projection),
        ]
        return rows.map { $0.ranged(Self.ranges[$0.spec.key] ?? StereoValueInputs.range($0.spec.key)) }
    }

    /// The ranges of the numbers the plan checks (its refusals state them).
    static let ranges: [String: ClosedRange<Double>] = [
        "quality": 0...100, "threads": 0...256, "crf": 0...51, "qp": 0...51, "bitrate": 2...480_000, "bframes": 0...16,
        "threads_per_eye": 1...64, "keyint": 1...Double(Int32.max),
    ]

    /// The row of `key` (a key of ``table``).
    static func spec(_ key: String) -> OptionSpec { row(key) }

    /// The value of the choice `key` that `text` spells (nil when `text` is nil), read by the option's row as the C ABI
    /// reads it: the command line's way in to the one parser; a wrong value is refused naming the allowed ones.
    public static func choice<T: OptionChoice>(_ key: String, _ text: String?, _ spelling: OptionSpelling)
        throws(ParseError) -> T?
    {
        guard let text else { return nil }
        return try spec(key).choice(text, spelling)
    }

    /// The layout `text` spells: `auto` is nil (the input's stated or recognised packing).
    public static func layout(_ text: String?, _ spelling: OptionSpelling) throws(ParseError) -> StereoVideoLayout? {
        guard let text, text != "auto" else { return nil }
        guard let l = StereoVideoLayout(rawValue: text) else {
            throw ParseError(
                .invalidOption,
                "\(spec("layout").name(spelling)) must be auto or \(StereoVideoLayout.allowedText)")
        }
        return l
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

    /// True when the option of `key` was given (a nil optional, or a false switch, is not given), by its row.
    func isGiven(_ key: String) -> Bool {
        Self.options.first { $0.spec.key == key }?.isGiven(self) ?? false
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
        guard let option = Self.options.first(where: { $0.spec.key == spec.key }) else {
            throw ParseError(.invalidOption, "unknown option \"\(spec.key)\" for convert")
        }
        try option.set(&self, v)
    }
}
