// The everyday tasks as a developer would guess them: read metadata (`SpatialVideo`, `SpatialPhoto`, in
// SpatialMedia), edit it (`SpatialVideo.editMetadata`, `SpatialPhoto.editMetadata`), convert frame-packed or
// two-file sources (`SpatialConversion`), validate (`SpatialValidator`) and split (`SpatialSplit`). Each builds a
// request of SpatialOperations and runs it through `Operations`, the one door to every job; there is no second
// implementation, default or layout decision here.

/// Conversion of stereo sources to Apple spatial video (MV-HEVC) and spatial photos (stereo HEIC). Request builders:
/// each call builds one ``/SpatialOperations/ConvertRequest``
/// (``/SpatialOperations/ConvertRequest/init(_:output:stereo:route:)``) and runs it as every shell does
/// (``/SpatialOperations/Operations/convert(_:spelling:events:cancellation:)``); the layout of
/// ``/SpatialOperations/StereoSource``, every default and every check are the operations layer's.
///
/// ```swift
/// let stereo = try StereoParameters(baselineMillimetres: 64, horizontalFieldOfViewDegrees: 63.5)
/// try SpatialConversion.video(.sideBySide("sbs.mp4"), to: "spatial.mov", stereo: stereo) { $0.crf = 20 }
/// ```
public enum SpatialConversion {
    /// Converts a video. `stereo`'s given fields are written (nil fields: the source's, else
    /// ``/SpatialMedia/StereoParameters/defaults``); `adjust` sets any other option of the request (`crf`,
    /// `encodePath`, …). Nothing is left at `output` on error.
    @discardableResult
    public static func video(
        _ source: StereoSource, to output: String, stereo: StereoParameters = StereoParameters(),
        _ adjust: (inout ConvertRequest) -> Void = { _ in }
    ) throws(ParseError) -> OperationReport {
        var r = ConvertRequest(source, output: output, stereo: stereo, route: .video)
        adjust(&r)
        return try Operations.convert(r, spelling: .key)
    }

    /// Converts a photo: like ``video(_:to:stereo:_:)`` (baseline, field of view and disparity of `stereo`; a photo
    /// has no hero eye or projection).
    @discardableResult
    public static func photo(
        _ source: StereoSource, to output: String, stereo: StereoParameters = StereoParameters(),
        _ adjust: (inout ConvertRequest) -> Void = { _ in }
    ) throws(ParseError) -> OperationReport {
        var r = ConvertRequest(source, output: output, stereo: stereo, route: .photo)
        adjust(&r)
        return try Operations.convert(r, spelling: .key)
    }
}

extension SpatialConversion {
    /// Runs a conversion exactly as every other shell does
    /// (``/SpatialOperations/Operations/convert(_:spelling:events:cancellation:)``): the route from what the input is,
    /// every default and check the library's, the output read back through the validator before it is kept. The same
    /// request through the command line, the C ABI or Python writes the same bytes and the same report.
    ///
    /// ```swift
    /// var r = ConvertRequest(input: "sbs.mp4", output: "spatial.mov")
    /// r.heroEye = .right; r.frameRate = "24"
    /// let report = try SpatialConversion.convert(r)
    /// print(report.json.serialized(pretty: true))
    /// ```
    @discardableResult
    public static func convert(
        _ request: ConvertRequest, events: OperationEvents = OperationEvents(),
        cancellation: ConversionCancellation? = nil
    ) throws(ParseError) -> OperationReport {
        try Operations.convert(request, spelling: .key, events: events, cancellation: cancellation)
    }
}

/// Validates spatial photos and videos: metadata rules and, unless ``/SpatialValidation/ValidationOptions/pixels`` is
/// off, the stereo geometry of decoded pixels (``/SpatialOperations/Operations/validate(path:options:)``).
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
    public func validate(_ path: String) -> ValidationReport { Operations.validate(path: path, options: options) }

    /// Validates files and directories as `spatial-media validate` does
    /// (``/SpatialOperations/Operations/validate(_:options:)``): directories are
    /// searched, non-media files skipped, `NAME_L`/`NAME_R` images validated as one pair; results in input order.
    public func validate(_ paths: [String]) -> [ValidationReport] { Operations.validate(paths, options: options) }
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
    public static func video(_ path: String, to target: VideoSplitTarget, options: VideoSplitOptions? = nil)
        throws(ParseError) -> OperationReport
    {
        var r = SplitRequest(input: path)
        switch target {
        case .sideBySide(let p): r.sbs = p
        case .overUnder(let p): r.ou = p
        case .eyes(let l, let rt): r.left = l; r.right = rt
        }
        if let o = options {
            r.half = o.half
            r.copy = o.copy
            if !o.copy {
                r.crf = o.crf
                r.preset = try SplitRequest.choiceValue("preset", o.preset, .key)
            }
            r.noAudio = !o.audio
            r.layout = o.layout
        }
        return try Operations.split(r, spelling: .key)
    }

    /// Splits a spatial photo, an MPO or a side-by-side / top-bottom picture (`layout`: `sbs`, `tb`, `auto`) into its
    /// eyes and/or one side-by-side image (a spatial photo's `.heic` eyes are copied with their auxiliary images). Like
    /// every shell, through the operations layer
    /// (``/SpatialOperations/Operations/split(_:spelling:events:cancellation:)``): output names checked, each file read
    /// back before it is kept. (`limits` is the library's default for every shell.)
    public static func photo(
        _ path: String, left: String? = nil, right: String? = nil, sideBySide: String? = nil,
        quality: Int? = nil, layout: String? = nil, limits: Limits = .default
    ) throws(ParseError) {
        let layout: StereoLayout? = try SplitRequest.choiceValue("layout", layout, .key)
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

extension SpatialVideo {
    /// Changes the stereo metadata of every MV-HEVC video track without touching sample data.
    ///
    /// `change` receives the current ``/SpatialMedia/SpatialVideo/stereo`` of the movie and edits it; fields it
    /// changes are written, fields it sets to nil are removed, the others are kept. Writes `output`, or with
    /// `inPlace` the file itself. A request builder: the edit runs as every shell's does
    /// (``/SpatialOperations/Operations/edit(_:spelling:progress:)`` with
    /// ``/SpatialOperations/EditRequest/init(path:output:from:to:)``), the result read back before it is kept.
    @discardableResult
    public static func editMetadata(
        of path: String, to output: String? = nil, inPlace: Bool = false,
        _ change: (inout StereoParameters) throws(ParseError) -> Void
    ) throws(ParseError) -> OperationReport {
        guard inPlace || output != nil else {
            throw ParseError(.invalidArgument, path: path, "name an output, or edit in place")
        }
        let old = try SpatialVideo(contentsOf: path).stereo
        var new = old
        try change(&new)
        let request = try EditRequest(path: path, output: inPlace ? nil : output, from: old, to: new)
        return try Operations.edit(request, spelling: .key)
    }
}

extension SpatialPhoto {
    /// Changes the baseline, field of view or disparity adjustment of the spatial photo at `path` without
    /// re-encoding. `change` receives the photo's current ``/SpatialMedia/SpatialPhoto/stereo`` and edits it; fields
    /// it changes are written, the others kept (a photo's values cannot be removed). Writes `output`, or with
    /// `inPlace` replaces the file. A request builder over
    /// ``/SpatialOperations/Operations/edit(_:spelling:progress:)``, like `SpatialVideo.editMetadata`; `form` is the
    /// camera property form of boxes that do not exist yet.
    @discardableResult
    public static func editMetadata(
        of path: String, to output: String? = nil, inPlace: Bool = false, form: CameraPropertyForm = .apple,
        _ change: (inout StereoParameters) throws(ParseError) -> Void
    ) throws(ParseError) -> OperationReport {
        guard inPlace || output != nil else {
            throw ParseError(.invalidArgument, path: path, "name an output, or edit in place")
        }
        let old = try SpatialPhoto(contentsOf: path).stereo
        var new = old
        try change(&new)
        var r = try EditRequest(path: path, output: inPlace ? nil : output, from: old, to: new)
        r.form = form
        return try Operations.edit(r, spelling: .key)
    }
}
