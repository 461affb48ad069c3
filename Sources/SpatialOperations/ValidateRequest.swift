import BinaryIO
import MediaDecode
import SpatialMedia
import SpatialValidation
import SystemSupport

/// A validation (`spatial-media validate`, `sm_validate_path` / `sm_validate`, Python's `validate`, the Kit's
/// `SpatialValidator`): files and directories, or one left/right image pair, checked against the rules of
/// Specs/validation.md.
public struct ValidateRequest: Sendable, Equatable, OptionTableRequest {
    /// Files or directories (directories are searched recursively; `NAME_L`/`NAME_R` images in them become pairs).
    public var inputs: [String]
    /// The left image of a pair given by name (with ``right``).
    public var left: String?
    /// The right image of a pair given by name (with ``left``).
    public var right: String?
    /// Decode pixels and measure the stereo geometry (false: metadata only).
    public var pixels = true
    /// How one picture holding both eyes packs them (`layout`).
    public enum Layout: String, Sendable, CaseIterable, OptionChoice {
        /// Side by side, left eye on the left.
        case sbs
        /// Top-bottom, left eye on top.
        case tb

        /// The library's layout.
        public var stereoLayout: StereoLayout { self == .sbs ? .sbs : .tb }
    }

    /// The input holds both eyes in one picture: side by side or top-bottom.
    public var layout: Layout?
    /// Frames measured per video, spread over its duration (``frameRange``; nil: the validator's default).
    public var frames: Int?
    /// Raw pairs are judged at these values (baseline, field of view, disparity adjustment).
    public var values = StereoValueInputs()
    /// Keep reduced previews of the eyes (for the HTML report).
    public var keepPreview = false
    /// Search directories among ``inputs`` for media (false: every input is one file, as the C ABI's one-file
    /// entries take it; a directory is then an unreadable input).
    public var searchDirectories = true

    /// The frames a video may be measured at, the same for every shell.
    public static let frameRange = 1...1000

    public init(inputs: [String], left: String? = nil, right: String? = nil) {
        self.inputs = inputs; self.left = left; self.right = right
    }

    /// The request of the C ABI and Python: `path` (the left image when `right_eye` is given) and the options by the
    /// keys of ``table``; unknown keys, a key given twice and wrong types refused. Ranges are the run's.
    public init(path: String, values: [(String, RequestValue)]) throws(ParseError) {
        self.init(inputs: [path])
        try RequestValues.fill(values, into: &self, options: Self.options, job: "validate")
        if let r = right {
            inputs = []
            left = path
            right = r
        }
    }

    /// The name table (key ↔ flag ↔ Python keyword, default, allowed values, range), from its `options` rows.
    public static var table: [OptionSpec] { options.map(\.spec) }

    /// One row per option: its names, type, default and range, the property that holds it and how an untyped value
    /// is read into it.
    static var options: [RequestOption<ValidateRequest>] {
        [
            .toggle(OptionSpec("pixels", flag: "--no-pixels", .bool, .both, default: "true"), \.pixels),
            .choice(OptionSpec("layout", flag: "--layout", .text, .both), \.layout),
            .value(
                OptionSpec(
                    "frames", flag: "--frames", .integer, .video, default: String(ValidationOptions().frames),
                    range: Double(frameRange.lowerBound)...Double(frameRange.upperBound)), \.frames,
                RequestValues.integer),
            .value(
                OptionSpec(
                    "baseline_mm", flag: "--baseline", python: "baseline", .number, .photo,
                    default:
                        "the MPO's, else \(ConvertRequest.fmtNum(StereoParameters.defaults.baselineMillimetres ?? 0)) mm"
                ),
                \.values.baselineMillimetres, RequestValues.number),
            .value(
                OptionSpec(
                    "hfov_degrees", flag: "--hfov", python: "hfov", .number, .photo,
                    default:
                        "the input's EXIF, else \(ConvertRequest.fmtNum(StereoParameters.defaults.horizontalFieldOfViewDegrees ?? 0))°"
                ), \.values.hfovDegrees, RequestValues.number),
            .value(
                OptionSpec(
                    "disparity_percent", flag: "--disparity", python: "disparity", .number, .photo, default: "0"),
                \.values.disparityPercent, RequestValues.number),
            .value(OptionSpec("right_eye", flag: "--right", .path, .photo), \.right, RequestValues.path),
        ]
    }
}

/// What a validation found: one report per input (pairs first, then files in order), and what was not validated.
public struct ValidationRun: Sendable {
    /// One report per input: a pair given by name first, then pairs found in directories, then files in order.
    public var reports: [ValidationReport]
    /// Files in the directories given that are not media (skipped).
    public var skipped: [String]
    /// Directories given that held no media at all.
    public var directoriesWithoutMedia: [String]
    /// Nothing was validated, or a directory held no media: a problem, not a success.
    public var nothingValidated: Bool

    /// The exit status every shell reports: the worst report's (0 clean, 1 findings, 2 unreadable), at least 1 when
    /// nothing was validated.
    public var exitCode: Int32 { max(reports.map(\.exitCode).max() ?? 0, nothingValidated ? 1 : 0) }

    /// The JSON of the run: one report's object, or an array of them.
    public var json: JSON { reports.count == 1 ? reports[0].json : .array(reports.map(\.json)) }
}

extension Operations {
    /// Checks a validation request and runs it: the one routing of `validate` for every shell. Argument faults
    /// throw; a file that cannot be read is a report (``/SpatialValidation/ValidationReport/unreadable``).
    public static func validate(_ r: ValidateRequest, spelling: OptionSpelling) throws(ParseError) -> ValidationRun {
        func name(_ k: String) -> String { ValidateRequest.table.first { $0.key == k }?.name(spelling) ?? k }
        func refuse(_ m: String) -> ParseError { ParseError(.invalidArgument, m) }
        if (r.left == nil) != (r.right == nil) { throw refuse("give both left and right images of a pair") }
        if r.left == nil && r.inputs.isEmpty {
            throw refuse("give one or more files or directories, or a left and right image")
        }
        var o = ValidationOptions()
        o.pixels = r.pixels
        if let l = r.layout { o.layout = l.stereoLayout }
        if let f = r.frames { o.frames = try ValidateRequest.row("frames").checkRange(f, spelling) }
        o.stated = try r.values.parameters(photo: true, name: name)
        o.keepPreview = r.keepPreview
        var reports: [ValidationReport] = []
        if let left = r.left, let right = r.right {
            var po = o
            po.rightEye = right
            reports.append(Validator.validate(path: left, options: po))
        }
        var plan = BatchValidator.Plan()
        if r.searchDirectories { plan = BatchValidator.plan(r.inputs) } else { plan.files = r.inputs }
        for pair in plan.pairs {
            var po = o
            po.rightEye = pair.right
            reports.append(Validator.validate(path: pair.left, options: po))
        }
        reports += BatchValidator.validate(plan.files, options: o)
        return ValidationRun(
            reports: reports, skipped: plan.skipped, directoriesWithoutMedia: plan.directoriesWithoutMedia,
            nothingValidated: r.left == nil && plan.count == 0 || !plan.directoriesWithoutMedia.isEmpty)
    }

    /// Validates files and directories with options already filled (the Kit's `SpatialValidator`): the same run as
    /// ``validate(_:spelling:)`` without a request's checks. Reports in input order, pairs found in directories
    /// after the files.
    public static func validate(_ paths: [String], options: ValidationOptions) -> [ValidationReport] {
        let plan = BatchValidator.plan(paths)
        var reports = BatchValidator.validate(plan.files, options: options)
        for pair in plan.pairs {
            var o = options
            o.rightEye = pair.right
            reports.append(Validator.validate(path: pair.left, options: o))
        }
        return reports
    }

    /// Validates one file with options already filled (the Kit's `SpatialValidator`); never throws: an unreadable
    /// file is a report with ``/SpatialValidation/ValidationReport/unreadable`` set.
    public static func validate(path: String, options: ValidationOptions) -> ValidationReport {
        Validator.validate(path: path, options: options)
    }
}
