import BinaryIO
import ISOBMFF
import SpatialMedia
import SystemSupport

/// A metadata edit of a spatial video or photo (`spatial-media edit`, `sm_edit_*`, Python's `edit`): values set,
/// replaced or removed without touching sample data, as the user asked for them.
public struct EditRequest: Sendable, Equatable, OptionTableRequest {
    public var path: String
    /// nil: the input is edited in place.
    public var output: String?
    public var values = StereoValueInputs()
    /// Left, right, or none (the hero box removed: players read a missing box as none).
    public var heroEye: HeroEye?
    /// A projection kind of ``/SpatialMedia/StereoParameters/documentedProjections`` (`rect`, `hequ`, `equi`, …).
    public var projection: ProjectionChoice?
    /// Frame packing of a single-layer movie: side or over.
    public var packing: ViewPackingChoice?
    public var toAPMP = false
    public var toGoogle = false
    public var removeSpatial = false
    public var faststart = false
    /// Photos: the camera property form of boxes that do not exist yet ("apple", "standard", "both").
    public var form: CameraPropertyForm?
    /// Videos: fields to remove ("baseline", "hfov", "disparity", "hero_eye", "projection").
    public var remove: [String] = []

    public init(path: String, output: String?) { self.path = path; self.output = output }

    /// The request from untyped values by the keys of ``table`` (unknown keys, a key given twice and wrong types
    /// refused; the choices' words, ranges and combinations are the run's).
    public init(path: String, output: String?, values: [(String, RequestValue)]) throws(ParseError) {
        self.init(path: path, output: output)
        try RequestValues.fill(values, into: &self, options: Self.options, job: "edit")
    }

    /// The name table (key ↔ flag ↔ Python keyword, default, allowed values, range), from its `options` rows.
    public static var table: [OptionSpec] { options.map(\.spec) }

    /// One row per option: its names, type, default, allowed values and range, the property that holds it and how an
    /// untyped value is read into it. The choices are held as their text (the C ABI's edit handle sets them) and
    /// read by these rows in the run.
    static var options: [RequestOption<EditRequest>] {
        StereoValueInputs.rows(\.values, .both) + [
            .choice(OptionSpec("hero_eye", flag: "--hero", .text, .video, allowed: HeroEye.allowedValues), \.heroEye),
            .choice(
                OptionSpec("projection", flag: "--projection", .text, .video, allowed: ProjectionChoice.allowedValues),
                \.projection),
            .choice(
                OptionSpec("packing", flag: "--packing", .text, .video, allowed: ViewPackingChoice.allowedValues),
                \.packing),
            .toggle(OptionSpec("to_apmp", flag: "--to-apmp", .bool, .video, default: "false"), \.toAPMP),
            .toggle(OptionSpec("to_google", flag: "--to-google", .bool, .video, default: "false"), \.toGoogle),
            .toggle(
                OptionSpec("remove_spatial", flag: "--remove-spatial", .bool, .video, default: "false"), \.removeSpatial
            ),
            .toggle(OptionSpec("faststart", flag: "--faststart", .bool, .video, default: "false"), \.faststart),
            .choice(
                OptionSpec(
                    "form", flag: "--camera-form", python: "photo_form", .text, .photo,
                    default: CameraPropertyForm.apple.rawValue, allowed: CameraPropertyForm.allowedValues), \.form),
            RequestOption(
                spec: OptionSpec("remove", flag: nil, .text, .video, allowed: RemovableField.allowedValues),
                set: { (r: inout EditRequest, v: RequestValue) throws(ParseError) in
                    let spec = EditRequest.row("remove")
                    switch v {
                    case .array(let items):
                        r.remove = []
                        for i in items { r.remove.append(try RequestValues.text(i, spec)) }
                    default: r.remove = [try RequestValues.text(v, spec)]
                    }
                },
                isGiven: { !$0.remove.isEmpty }),
        ]
    }
}

extension Operations {
    /// Plans and runs an edit. Photos (HEIF, by content) take the stereo values and the form; videos everything else.
    /// An edit to another file is written to scratch and read back before it is kept; for an edit in place the input's
    /// ERROR rules are taken first and the file is read back after the edit, an ERROR it introduced reported as a
    /// refusal (exit 2) naming the rule.
    public static func edit(_ r: EditRequest, spelling: OptionSpelling, progress: ((UInt64, UInt64) -> Void)? = nil)
        throws(ParseError) -> OperationReport
    {
        func name(_ k: String) -> String { EditRequest.table.first { $0.key == k }?.name(spelling) ?? k }
        func refuse(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        if let o = r.output {
            try OutputPaths.check(outputs: [(role: "output", path: o)], inputs: [(role: "input", path: r.path)])
        }
        if SpatialPhotoEditor.isHEIF(path: r.path) { return try editPhoto(r, spelling: spelling, name: name) }
        if r.form != nil { throw refuse("\(name("form")) applies to photos only") }
        var edit = SpatialVideoEdit()
        edit.removeSpatial = r.removeSpatial
        edit.set(try r.values.parameters(photo: false, name: name))
        if let eye = r.heroEye {
            edit.heroEye = eye == .none ? .remove : .set(eye)
        }
        let projection = r.projection, packing = r.packing
        if r.removeSpatial
            && (!r.values.isEmpty || r.heroEye != nil || r.projection != nil || r.packing != nil || r.toAPMP
                || r.toGoogle)
        {
            throw refuse("\(name("remove_spatial")) cannot be combined with values")
        }
        if r.toAPMP && r.toGoogle { throw refuse("\(name("to_apmp")) and \(name("to_google")) exclude each other") }
        if (r.toAPMP || r.toGoogle) && (!r.values.isEmpty || r.packing != nil) {
            throw refuse(
                "\(name("to_apmp"))/\(name("to_google")) take their values from the file (only \(name("hero_eye")), and \(name("projection")) with \(name("to_apmp")) for a mesh, combine with them)"
            )
        }
        if r.toGoogle && r.projection != nil { throw refuse("\(name("to_google")) takes the projection from the file") }
        if r.toAPMP {
            edit.spherical = .toAPMP(assume: projection?.code)
        } else if r.toGoogle {
            edit.spherical = .toGoogle
        } else {
            if let p = projection { edit.projectionKind = .set(p.code) }
            if let k = packing { edit.viewPacking = .set(FourCC(k.rawValue)) }
        }
        try removals(r.remove, into: &edit, name: name("remove"))
        if edit.isEmpty && !r.faststart {
            throw ParseError(
                .invalidArgument, "nothing to do (give a value, \(name("remove_spatial")) or \(name("faststart")))")
        }
        let expect: OutputExpectation = r.removeSpatial || r.toGoogle ? .ordinary : .spatial
        let before = r.output == nil ? OutputCheck.errorRules(of: [r.path]) : nil
        let written = try r.output.map { o throws(ParseError) in try scratchPath(keepingExtensionOf: o) }
        do throws(ParseError) {
            var x = try SpatialVideoEditor.edit(
                path: r.path, output: written, inPlace: written == nil, edit: edit, faststart: r.faststart,
                progress: progress)
            let out = r.output ?? r.path
            x.outputPath = out
            var report = OperationReport(
                job: "edit", route: "video", outputs: [out],
                headline: "\(x.strategy.rawValue): wrote \(x.bytesWritten) bytes to \(out) (file size \(x.outputSize))",
                lines: x.changes.map { "changed: \($0)" } + x.warnings.map { "warning: \($0)" },
                fields: editFields(x.json), warnings: [], check: OutputCheckResult(file: out))
            try finishEdit(
                &report, written: written ?? r.path, output: out, input: r.path, before: before, expect: expect)
            return report
        } catch {
            if let written { discard(written) }
            throw error
        }
    }

    static func removals(_ names: [String], into edit: inout SpatialVideoEdit, name: String) throws(ParseError) {
        for n in names {
            switch n {
            case "baseline": edit.baselineMicrometres = .remove
            case "hfov": edit.horizontalFieldOfViewMillidegrees = .remove
            case "disparity": edit.disparityAdjustment = .remove
            case "hero_eye": edit.heroEye = .remove
            case "projection": edit.projectionKind = .remove
            default:
                throw ParseError(
                    .invalidOption,
                    "\(name): unknown field \"\(n)\" (baseline, hfov, disparity, hero_eye, projection)")
            }
        }
    }

    static func editPhoto(_ r: EditRequest, spelling: OptionSpelling, name: (String) -> String) throws(ParseError)
        -> OperationReport
    {
        let videoOnly = [
            "hero_eye": r.heroEye != nil, "projection": r.projection != nil, "packing": r.packing != nil,
            "to_apmp": r.toAPMP,
            "to_google": r.toGoogle, "remove_spatial": r.removeSpatial, "faststart": r.faststart,
            "remove": !r.remove.isEmpty,
        ]
        .filter(\.value).keys.sorted().map(name)
        if !videoOnly.isEmpty {
            throw ParseError(
                .invalidOption,
                "\(videoOnly.joined(separator: ", ")) apply to videos; photos take \(name("baseline_mm")), \(name("hfov_degrees")), \(name("disparity_percent"))"
            )
        }
        let form = r.form ?? .apple
        let stereo = try r.values.parameters(photo: true, name: name)
        if stereo.isEmpty {
            throw ParseError(
                .invalidArgument,
                "nothing to do (give \(name("baseline_mm")), \(name("hfov_degrees")) or \(name("disparity_percent")))")
        }
        if let o = r.output { try OutputKind.check(o, .heic) }
        let before = r.output == nil ? OutputCheck.errorRules(of: [r.path]) : nil
        let written = try r.output.map { o throws(ParseError) in try scratchPath(keepingExtensionOf: o) }
        do throws(ParseError) {
            var x = try SpatialPhotoEditor.edit(path: r.path, output: written, stereo: stereo, form: form)
            let out = r.output ?? r.path
            x.output = out
            var report = OperationReport(
                job: "edit", route: "photo", outputs: [out],
                headline:
                    "wrote \(x.bytesWritten) bytes to \(out) (left item \(x.leftItemID), right item \(x.rightItemID))",
                lines: x.changes.map { "changed: \($0)" },
                fields: [
                    ("output", .string(out)), ("left_item_id", .uint(UInt64(x.leftItemID))),
                    ("right_item_id", .uint(UInt64(x.rightItemID))),
                    ("changes", .array(x.changes.map { .string($0) })), ("bytes_written", .uint(x.bytesWritten)),
                ],
                warnings: [], check: OutputCheckResult(file: out))
            try finishEdit(
                &report, written: written ?? r.path, output: out, input: r.path, before: before, expect: .spatial)
            return report
        } catch {
            if let written { discard(written) }
            throw error
        }
    }

    /// The end of an edit: an edit to another file is checked against its input and kept only when it passes; an
    /// edit in place has no other copy to compare with, so only an unreadable result is refused (and reported).
    static func finishEdit(
        _ report: inout OperationReport, written: String, output: String, input: String, before: Set<String>?,
        expect: OutputExpectation
    ) throws(ParseError) {
        report.check = OutputCheck.run(
            written: written, output: output, inputs: [input], expect: expect, inputRules: before)
        if before != nil {
            // In place: the edit is made; a refusal says so (exit 2) but cannot take it back.
            if !report.check.passed { throw report.check.refusal }
            return
        }
        if !report.check.passed { throw report.check.refusal }
        try AtomicFile.commit(scratch: written, to: output)
    }

    /// The facts of a video edit: its result's fields, its textual warnings under `edit_warnings` (the report's own
    /// `warnings` are the geometry faults every job reports; one key each, never printed twice).
    static func editFields(_ j: JSON) -> [(String, JSON)] {
        objectFields(j).map { $0.0 == "warnings" ? ("edit_warnings", $0.1) : $0 }
    }

    /// The fields of a JSON object (empty for anything else).
    static func objectFields(_ j: JSON) -> [(String, JSON)] {
        if case .object(let f) = j { return f }
        return []
    }
}

extension StereoValueInputs {
    /// No value given.
    public var isEmpty: Bool {
        baselineMillimetres == nil && baselineMicrometres == nil && hfovDegrees == nil && hfovMillidegrees == nil
            && disparityPercent == nil && disparity == nil
    }
}

extension EditRequest {
    /// The edit from the values a file states (`old`) to the ones wanted (`new`), in stored units: a field that
    /// changed is set, a field `new` leaves nil is removed (videos; a photo's values cannot be removed, so such an
    /// edit is refused when run), the others are kept. The request builder of the Kit's `editMetadata`.
    public init(path: String, output: String?, from old: StereoParameters, to new: StereoParameters)
        throws(ParseError)
    {
        self.init(path: path, output: output)
        if new.baselineMicrometres != old.baselineMicrometres {
            if let b = new.baselineMicrometres {
                values.baselineMicrometres = Int(b)
            } else {
                remove.append("baseline")
            }
        }
        if new.horizontalFieldOfViewMillidegrees != old.horizontalFieldOfViewMillidegrees {
            if let h = new.horizontalFieldOfViewMillidegrees {
                values.hfovMillidegrees = Int(h)
            } else {
                remove.append("hfov")
            }
        }
        if new.disparityAdjustment != old.disparityAdjustment {
            if let d = new.disparityAdjustment { values.disparity = Int(d) } else { remove.append("disparity") }
        }
        if new.heroEye != old.heroEye {
            if let eye = new.heroEye { heroEye = eye } else { remove.append("hero_eye") }
        }
        if new.projectionKind != old.projectionKind {
            if let p = new.projectionKind {
                projection = try EditRequest.choiceValue("projection", p.description, .key)
            } else {
                remove.append("projection")
            }
        }
    }
}
