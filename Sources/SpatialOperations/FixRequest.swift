import BinaryIO
import SpatialMedia
import SystemSupport

/// Safe repairs of a movie (`spatial-media fix`): hev1 → hvc1, moov before mdat, a missing hero eye or field of view.
public struct FixRequest: Sendable, Equatable, OptionTableRequest {
    public var path: String
    /// nil: the input is repaired itself (atomic rewrite).
    public var output: String?
    /// Field of view to add where a stereo track has none, in degrees.
    public var hfovDegrees: Double?
    /// Hero eye to add where a stereo track has none (default: the eye of the base layer).
    public var heroEye: EyeChoice?

    public init(path: String, output: String?) { self.path = path; self.output = output }

    /// The request from untyped values by the keys of ``table`` (unknown keys, a key given twice and wrong types
    /// refused; the hero eye's words and the range are the run's).
    public init(path: String, output: String?, values: [(String, RequestValue)]) throws(ParseError) {
        self.init(path: path, output: output)
        try RequestValues.fill(values, into: &self, options: Self.options, job: "fix")
    }

    /// The name table (key ↔ flag ↔ Python keyword, default, allowed values, range), from its `options` rows.
    public static var table: [OptionSpec] { options.map(\.spec) }

    /// One row per option: its names, type, default, allowed values and range, the property that holds it and how an
    /// untyped value is read into it.
    static var options: [RequestOption<FixRequest>] {
        [
            .value(
                OptionSpec(
                    "hfov_degrees", flag: "--hfov", .number, .video, range: StereoValueInputs.range("hfov_degrees")),
                \.hfovDegrees, RequestValues.number),
            .choice(
                OptionSpec(
                    "hero_eye", flag: "--hero", .text, .video, default: "the eye of the base layer",
                    allowed: EyeChoice.allowedValues), \.heroEye),
        ]
    }
}

extension Operations {
    /// Plans and runs a repair. A repair to another file is written beside it and read back before it is kept; a
    /// repair in place is read back after it, compared with the input's ERRORs taken before. Nothing repaired:
    /// nothing written. The report's `not_repaired` lists what is left (the command line exits 1 for it).
    public static func fix(_ r: FixRequest, spelling: OptionSpelling) throws(ParseError) -> OperationReport {
        if let o = r.output {
            try OutputPaths.check(outputs: [(role: "output", path: o)], inputs: [(role: "input", path: r.path)])
        }
        var o = RepairOptions()
        if let eye = r.heroEye { o.heroEye = eye.heroEye }
        if let h = r.hfovDegrees {
            do throws(ParseError) {
                o.horizontalFieldOfViewMillidegrees = try SpatialUnits.millidegrees(fromDegrees: h)
            } catch {
                // The library's range refusal of the value is a refused option here.
                var e = error
                if e.code == .invalidArgument { e.code = .invalidOption }
                throw e
            }
        }
        let before = r.output == nil ? OutputCheck.errorRules(of: [r.path]) : nil
        let written = try r.output.map { p throws(ParseError) in try scratchPath(keepingExtensionOf: p) }
        do throws(ParseError) {
            var x = try MovieRepair.fix(path: r.path, output: written, inPlace: written == nil, options: o)
            let out = r.output ?? r.path
            x.outputPath = out
            var report = OperationReport(
                job: "fix", route: "video", outputs: x.repairs.isEmpty ? [] : [out],
                headline: x.repairs.isEmpty
                    ? "nothing repaired; nothing written"
                        + (x.notRepaired.isEmpty ? " (no breakage of the kinds fix repairs)" : "")
                    : "wrote \(x.bytesWritten) bytes to \(out)",
                lines: x.repairs.map { "repaired: \($0)" } + x.notRepaired.map { "not repaired: \($0)" }
                    + x.notes.map { "note: \($0)" },
                fields: objectFields(x.json), warnings: [], check: OutputCheckResult(file: out))
            guard !x.repairs.isEmpty else {
                if let written { discard(written) }
                return report
            }
            try finishEdit(
                &report, written: written ?? r.path, output: out, input: r.path, before: before, expect: .spatial)
            return report
        } catch {
            if let written { discard(written) }
            throw error
        }
    }
}
