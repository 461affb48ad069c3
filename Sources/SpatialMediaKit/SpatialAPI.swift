// The everyday tasks as a developer would guess them: read metadata (`SpatialVideo`, `SpatialPhoto`, in
// SpatialMedia), edit it (`SpatialVideo.editMetadata`, `SpatialPhoto.editMetadata`), convert frame-packed or
// two-file sources (`SpatialConversion`), validate (`SpatialValidator`) and split (`SpatialSplit`). Each is a thin
// facade over the library call named in its documentation; there is no second implementation here.

/// Where the two eyes of a conversion's input are.
public enum StereoSource: Sendable, Equatable {
    /// One file, left eye in the left half (full resolution per eye).
    case sideBySide(String)
    /// One file, left eye in the top half.
    case topBottom(String)
    /// One file, side by side with each eye squeezed to half width (stretched back).
    case halfSideBySide(String)
    /// One file, top-bottom with each eye squeezed to half height (stretched back).
    case halfTopBottom(String)
    /// One file per eye.
    case pair(left: String, right: String)
}

/// Conversion of stereo sources to Apple spatial video (MV-HEVC) and spatial photos (stereo HEIC).
///
/// ```swift
/// try SpatialConversion.video(.sideBySide("sbs.mp4"), to: "spatial.mov",
///                             stereo: try StereoParameters(baselineMillimetres: 64, horizontalFieldOfViewDegrees: 63.5))
/// ```
public enum SpatialConversion {
    /// Converts a video (``/SpatialConvert/VideoConverter/convert(_:to:options:cancellation:progress:)``). `stereo` overrides
    /// `options.stereo` field by field; nil fields take ``/SpatialMedia/StereoParameters/defaults``. Nothing is left at `output` on
    /// error.
    @discardableResult
    public static func video(_ source: StereoSource, to output: String, stereo: StereoParameters = StereoParameters(),
                             options: VideoConversionOptions = VideoConversionOptions()) throws(ParseError) -> VideoConversionReport {
        var o = options
        o.stereo = stereo.filled(from: options.stereo)
        let input: VideoInput
        switch source {
        case .sideBySide(let p): o.layout = .sbs; input = .packed(p)
        case .topBottom(let p): o.layout = .tb; input = .packed(p)
        case .halfSideBySide(let p): o.layout = .halfSBS; input = .packed(p)
        case .halfTopBottom(let p): o.layout = .halfTB; input = .packed(p)
        case .pair(let l, let r): input = .pair(left: l, right: r)
        }
        let inputs: [String]
        switch input {
        case .packed(let p): inputs = [p]
        case .pair(let l, let r): inputs = [l, r]
        }
        // Read back through the validator before it is kept, like every shell's conversion.
        var (report, _) = try Operations.checkedWrite(to: output, inputs: inputs) { (scratch: String) throws(ParseError) in
            try VideoConverter.convert(input, to: scratch, options: o)
        }
        report.output = output
        return report
    }

    /// Converts a photo (``/MediaDecode/StereoImages`` to load, ``/SpatialConvert/PhotoConverter/convert(_:options:to:)`` to encode and write).
    /// `stereo` overrides `options.stereo` field by field (baseline, field of view, disparity; a photo has no hero eye
    /// or projection).
    @discardableResult
    public static func photo(_ source: StereoSource, to output: String, stereo: StereoParameters = StereoParameters(),
                             options: PhotoConversionOptions = PhotoConversionOptions()) throws(ParseError) -> PhotoConversionReport {
        var o = options
        o.stereo = stereo.filled(from: options.stereo)
        let pair: StereoPair
        switch source {
        case .pair(let l, let r): pair = try StereoImages.load(left: l, right: r, limits: o.limits)
        case .sideBySide(let p), .topBottom(let p), .halfSideBySide(let p), .halfTopBottom(let p):
            switch source {
            case .topBottom, .halfTopBottom: o.layout = .tb
            default: o.layout = .sbs
            }
            switch source {
            case .halfSideBySide, .halfTopBottom: o.halfResolution = true
            default: o.halfResolution = false
            }
            pair = try StereoImages.load(p, packing: o.packing)
        }
        let inputs: [String]
        switch source {
        case .pair(let l, let r): inputs = [l, r]
        case .sideBySide(let p), .topBottom(let p), .halfSideBySide(let p), .halfTopBottom(let p): inputs = [p]
        }
        let (report, _) = try Operations.checkedWrite(to: output, inputs: inputs) { (scratch: String) throws(ParseError) in
            try PhotoConverter.convert(pair, options: o, to: scratch)
        }
        return report
    }
}

extension SpatialConversion {
    /// Runs a conversion exactly as every other shell does (``/SpatialOperations/Operations/convert(_:spelling:events:cancellation:)``):
    /// the route from what the input is, every default and check the library's, the output read back through the
    /// validator before it is kept. The same request through the command line, the C ABI or Python writes the same
    /// bytes and the same report.
    ///
    /// ```swift
    /// var r = ConvertRequest(input: "sbs.mp4", output: "spatial.mov")
    /// r.heroEye = "right"; r.frameRate = "24"
    /// let report = try SpatialConversion.convert(r)
    /// print(report.json.serialized(pretty: true))
    /// ```
    @discardableResult
    public static func convert(_ request: ConvertRequest, events: OperationEvents = OperationEvents(),
                               cancellation: ConversionCancellation? = nil) throws(ParseError) -> OperationReport {
        try Operations.convert(request, spelling: .key, events: events, cancellation: cancellation)
    }
}

/// Validates spatial photos and videos: metadata rules and, unless ``/SpatialValidation/ValidationOptions/pixels`` is off, the stereo
/// geometry of decoded pixels (``/SpatialValidation/Validator/validate(path:options:)``).
///
/// ```swift
/// let report = SpatialValidator().validate("clip.mov")
/// for f in report.findings { print(f.ruleID, f.severity, f.message) }
/// ```
public struct SpatialValidator: Sendable {
    public var options: ValidationOptions
    public init(options: ValidationOptions = ValidationOptions()) { self.options = options }

    /// Validates one file (a photo, a video, or an image holding both eyes). Never throws: an unreadable file is a
    /// report with ``/SpatialValidation/ValidationReport/unreadable`` set.
    public func validate(_ path: String) -> ValidationReport { Validator.validate(path: path, options: options) }

    /// Validates files and directories as `spatial-media validate` does (``/SpatialValidation/BatchValidator``): directories are
    /// searched, non-media files skipped, `NAME_L`/`NAME_R` images validated as one pair; results in input order.
    public func validate(_ paths: [String]) -> [ValidationReport] {
        let plan = BatchValidator.plan(paths)
        var reports = BatchValidator.validate(plan.files, options: options)
        for pair in plan.pairs {
            var o = options
            o.rightEye = pair.right
            reports.append(Validator.validate(path: pair.left, options: o))
        }
        return reports
    }
}

/// Splits spatial media back into ordinary files.
///
/// ```swift
/// try SpatialSplit.video("spatial.mov", to: .sideBySide("sbs.mp4"))
/// try SpatialSplit.photo("photo.heic", left: "l.png", right: "r.png")
/// ```
public enum SpatialSplit {
    /// Splits any spatial video or frame-packed movie into one file per eye or one frame-packed file, re-encoded (or,
    /// with `options.copy`, the coded layers to `.hevc`). Like every shell, through the operations layer
    /// (``/SpatialOperations/Operations/split(_:spelling:events:cancellation:)``): output names checked, each file
    /// read back before it is kept. From `options` the request takes half, copy, crf and preset (not with copy),
    /// audio and layout; its `ffmpeg` and `limits` are the library's own (FFmpeg as the CLI finds it).
    @discardableResult
    public static func video(_ path: String, to target: VideoSplitTarget, options: VideoSplitOptions? = nil) throws(ParseError) -> OperationReport {
        var r = SplitRequest(input: path)
        switch target {
        case .sideBySide(let p): r.sbs = p
        case .overUnder(let p): r.ou = p
        case .eyes(let l, let rt): r.left = l; r.right = rt
        }
        if let o = options {
            r.half = o.half
            r.copy = o.copy
            if !o.copy { r.crf = o.crf; r.preset = o.preset }
            r.noAudio = !o.audio
            r.layout = o.layout?.rawValue
        }
        return try Operations.split(r, spelling: .key)
    }

    /// Splits a spatial photo, an MPO or a side-by-side / top-bottom picture (`layout`: `sbs`, `tb`, `auto`) into its
    /// eyes and/or one side-by-side image (a spatial photo's `.heic` eyes are copied with their auxiliary images:
    /// ``/SpatialConvert/PhotoSplitter/split(_:left:right:sbs:aux:quality:limits:)``).
    /// Like every shell, through the operations layer (``/SpatialOperations/Operations/split(_:spelling:events:cancellation:)``): output names
    /// checked, each file read back before it is kept. (`limits` is the library's default for every shell.)
    public static func photo(_ path: String, left: String? = nil, right: String? = nil, sideBySide: String? = nil,
                             quality: Int? = nil, layout: String? = nil, limits: Limits = .default) throws(ParseError) {
        var eyes = SplitRequest(input: path)
        eyes.left = left; eyes.right = right; eyes.quality = quality; eyes.layout = layout
        if left != nil || right != nil { try Operations.split(eyes, spelling: .key) }
        if let sideBySide {
            var side = SplitRequest(input: path)
            side.sbs = sideBySide; side.quality = quality; side.layout = layout
            try Operations.split(side, spelling: .key)
        }
    }
}
