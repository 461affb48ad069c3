import BinaryIO
import ISOBMFF
import SpatialMedia
import SystemSupport

/// A spatial photo made without re-encoding from two HEIF files, or from two images of one HEIF
/// (``/SpatialMedia/SpatialPhotoEditor``), as the user asked for it. Every shell fills it and nothing else: values not
/// given are filled by ``Operations/combine(_:spelling:)`` alone (the input's calibration when it is already a spatial
/// photo, else the one table of defaults, so the eyes always get their camera intrinsics and extrinsics).
public struct CombineRequest: Sendable, Equatable, OptionTableRequest {
    public var left: String
    public var right: String?
    public var output: String
    public var leftItem: UInt32?
    public var rightItem: UInt32?
    public var swapEyes = false
    public var values = StereoValueInputs()
    /// Camera property form: "apple" (default), "standard" or "both" (``/SpatialMedia/CameraPropertyForm``, read by the
    /// row in the run: the C ABI sets the text).
    public var form: CameraPropertyForm?

    public init(left: String, right: String? = nil, output: String) {
        self.left = left; self.right = right; self.output = output
    }

    /// The request from untyped values by the keys of ``table`` (unknown keys, a key given twice and wrong types
    /// refused; ranges, the form's words and combinations are the run's).
    public init(left: String, right: String?, output: String, values: [(String, RequestValue)]) throws(ParseError) {
        self.init(left: left, right: right, output: output)
        try RequestValues.fill(values, into: &self, options: Self.options, job: "combine")
    }

    /// The name table (key ↔ flag ↔ Python keyword, default, allowed values, range), from its `options` rows.
    public static var table: [OptionSpec] { options.map(\.spec) }

    /// One row per option: its names, type, default, allowed values and range, the property that holds it and how an
    /// untyped value is read into it.
    static var options: [RequestOption<CombineRequest>] {
        let item: (RequestValue, OptionSpec) throws(ParseError) -> UInt32 = { (v, spec) throws(ParseError) in
            let i = try RequestValues.integer(v, spec)
            guard let id = UInt32(exactly: try spec.checkRange(i, .key)) else {
                throw RequestValues.typeError(spec, "an item ID")
            }
            return id
        }
        let itemRange = 1...Double(UInt32.max)
        return [
            .value(OptionSpec("left_item", flag: "--left-item", .integer, .photo, range: itemRange), \.leftItem, item),
            .value(
                OptionSpec("right_item", flag: "--right-item", .integer, .photo, range: itemRange), \.rightItem, item),
            .toggle(OptionSpec("swap_eyes", flag: "--swap-eyes", .bool, .photo, default: "false"), \.swapEyes),
        ]
            + StereoValueInputs.rows(
                \.values, .photo,
                defaults: [
                    "baseline_mm":
                        "the input's, else \(ConvertRequest.fmtNum(StereoParameters.defaults.baselineMillimetres ?? 0))"
                ])
            + [
                .choice(
                    OptionSpec(
                        "form", flag: "--camera-form", python: "photo_form", .text, .photo,
                        default: CameraPropertyForm.apple.rawValue, allowed: CameraPropertyForm.allowedValues), \.form)
            ]
    }
}

extension Operations {
    /// Plans and runs a combine: outputs ≠ inputs, the output named .heic, items given together and only for one
    /// input, defaults filled (notes say which), the file written to scratch, read back, then kept.
    public static func combine(_ r: CombineRequest, spelling: OptionSpelling) throws(ParseError) -> OperationReport {
        func name(_ k: String) -> String { CombineRequest.table.first { $0.key == k }?.name(spelling) ?? k }
        func refuseOption(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        if (r.leftItem == nil) != (r.rightItem == nil) {
            throw refuseOption("give both \(name("left_item")) and \(name("right_item")), or neither")
        }
        if r.right != nil && r.leftItem != nil {
            throw refuseOption("\(name("left_item"))/\(name("right_item")) apply to a single input")
        }
        let form = r.form ?? .apple
        try OutputKind.check(r.output, .heic)
        try OutputPaths.check(
            outputs: [(role: "output", path: r.output)],
            inputs: [(role: "left input", path: r.left)] + (r.right.map { [(role: "right input", path: $0)] } ?? []))
        let given = try r.values.parameters(photo: true, name: name)
        // An input that is already a spatial photo, or two eyes that carry their camera (split keeps it), keeps its
        // calibration where no new value is given.
        let (edit, kept) = SpatialPhotoEditor.fillingDefaults(given, combiningLeft: r.left, right: r.right)
        var notes = kept.map { "kept the input's \($0)" }
        if given.baselineMicrometres == nil, !kept.contains(where: { $0.hasPrefix("baseline") }),
            let b = edit.baselineMillimetres
        {
            notes.append("baseline \(ConvertRequest.fmtNum(b)) mm is a default, not a measurement")
        }
        if given.horizontalFieldOfViewMillidegrees == nil, !kept.contains(where: { $0.hasPrefix("horizontal") }),
            let h = edit.horizontalFieldOfViewDegrees
        {
            notes.append("horizontal field of view \(ConvertRequest.fmtNum(h))° is a default, not a measurement")
        }
        var (x, check) = try checkedWrite(to: r.output, inputs: [r.left] + (r.right.map { [$0] } ?? [])) {
            (scratch: String) throws(ParseError) in
            if let right = r.right {
                let (a, b) = r.swapEyes ? (right, r.left) : (r.left, right)
                return try SpatialPhotoEditor.combine(
                    leftPath: a, rightPath: b, stereo: edit, form: form, output: scratch)
            }
            return try SpatialPhotoEditor.combine(
                path: r.left, leftItem: r.leftItem, rightItem: r.rightItem, swapEyes: r.swapEyes, stereo: edit,
                form: form, output: scratch)
        }
        x.output = r.output
        return OperationReport(
            job: "combine", route: "photo", outputs: [r.output],
            headline:
                "\(r.output): spatial photo combined without re-encoding, \(x.bytesWritten) bytes (left item \(x.leftItemID), right item \(x.rightItemID))",
            lines: x.changes.map { "changed: \($0)" } + notes,
            fields: [
                ("output", .string(r.output)), ("left_item_id", .uint(UInt64(x.leftItemID))),
                ("right_item_id", .uint(UInt64(x.rightItemID))),
                ("changes", .array(x.changes.map { .string($0) })), ("notes", .array(notes.map { .string($0) })),
                ("bytes_written", .uint(x.bytesWritten)),
            ],
            warnings: [], check: check)
    }
}
