import BinaryIO
import SpatialValidation
import SystemSupport

extension ParseError.Code {
    /// A written file failed the read-back check of its own output: the job introduced an ERROR of the validator's
    /// metadata/structure rules, or (`strict`) the source showed a geometry fault. Nothing was left at the output.
    public static let outputCheckFailed = ParseError.Code(rawValue: "output-check-failed")
}

/// The verdict of the read-back check every write ends with (Specs/operations.md): the written file run through
/// the validator's metadata and structure rules, its ERRORs split into those the job introduced (not found by the
/// same rules in any input) and those it inherited from an input.
public struct OutputCheckResult: Sendable {
    /// The file checked, named as the user named the output.
    public var file: String
    /// ERROR findings of the output whose rule does not fire as an ERROR on any input: the job's own faults. Any →
    /// the output is refused.
    public var introduced: [Finding] = []
    /// ERROR findings whose rule fires on an input too: carried over from the source, reported, not refused.
    public var inherited: [Finding] = []
    /// WARNING findings of the output (reported; never a refusal).
    public var warnings: [Finding] = []

    public var passed: Bool { introduced.isEmpty }

    public var json: JSON {
        .object([
            ("verdict", .string(passed ? "passed" : "refused")), ("rules", .string("metadata and structure")),
            ("introduced", .array(introduced.map(\.json))), ("inherited", .array(inherited.map(\.json))),
            ("warnings", .array(warnings.map(\.json))),
        ])
    }

    /// One line for the text report.
    public var line: String {
        if !passed {
            return "output check: refused, " + introduced.map { "\($0.ruleID): \($0.message)" }.joined(separator: "; ")
        }
        var s = "output check: passed (metadata and structure rules)"
        if !inherited.isEmpty { s += "; inherited from the input: " + inherited.map(\.ruleID).joined(separator: ", ") }
        if !warnings.isEmpty { s += "; warnings: " + warnings.map(\.ruleID).joined(separator: ", ") }
        return s
    }

    /// The refusal, naming each rule the job broke (exit 2; `output-check-failed`).
    public var refusal: ParseError {
        ParseError(
            .outputCheckFailed, path: file,
            "the written file fails its own validator, so it was not kept: "
                + introduced.map { "\($0.ruleID) \($0.message)" }.joined(separator: "; ")
                + " (a fault of this tool: please report it)")
    }
}

/// What a job claims to write, which decides the rules it answers for.
public enum OutputExpectation: Sendable {
    /// A spatial photo or video: every metadata and structure rule.
    case spatial
    /// An ordinary file (one eye, a frame-packed picture or video, a raw stream): every rule except those that only
    /// say the file is not spatial (``OutputCheck/notSpatialRules``). Tags it does carry must still be right.
    case ordinary
}

/// Reads a written file back through the validator's metadata/structure rules (no pixels: the job's pixels were
/// checked while it ran, where it touched them) before any success is reported.
public enum OutputCheck {
    /// Checks `written` (the scratch file a job wrote; reported as `output`) against the rules, comparing its ERRORs
    /// with those the same rules find in `inputs` (only run when the output has ERRORs).
    /// Rules whose ERROR only says "this is not a spatial file": no `ster` group, no second layer or its
    /// configuration, no `vexu`, `stri`, `blin` or `hfov`. Not a fault of a job that writes an ordinary file.
    public static let notSpatialRules: Set<String> = [
        "SV-PHOTO-001", "SV-VIDEO-004", "SV-VIDEO-005", "SV-VIDEO-009", "SV-VIDEO-010",
        "SV-VIDEO-015", "SV-VIDEO-018",
    ]

    /// The rules that fire as an ERROR on `paths` (metadata and structure rules): what a job's output may inherit.
    public static func errorRules(of paths: [String]) -> Set<String> {
        var o = ValidationOptions()
        o.pixels = false
        var rules = Set<String>()
        for p in paths where p != "-" && !p.isEmpty {
            rules.formUnion(
                Validator.validate(path: p, options: o).findings.filter { $0.severity == .error }.map(\.ruleID))
        }
        return rules
    }

    /// `inputRules`: the inputs' ERROR rules when they were taken before the job (an edit in place), else nil (the
    /// inputs are read when the output has an ERROR).
    public static func run(
        written: String, output: String, inputs: [String], expect: OutputExpectation = .spatial,
        inputRules: Set<String>? = nil
    ) -> OutputCheckResult {
        var o = ValidationOptions()
        o.pixels = false
        let report = Validator.validate(path: written, options: o)
        var result = OutputCheckResult(file: output)
        func named(_ f: Finding) -> Finding {
            var f = f
            f.message = f.message.replacingAll(written, with: output)
            f.location = f.location.replacingAll(written, with: output)
            return f
        }
        if report.unreadable {
            result.introduced = [Finding("SV-READ", .error, "the written file cannot be read back")]
            return result
        }
        result.warnings = report.findings.filter { $0.severity == .warning }.map(named)
        let errors = report.findings.filter {
            $0.severity == .error && (expect == .spatial || !notSpatialRules.contains($0.ruleID))
        }.map(named)
        guard !errors.isEmpty else { return result }
        let inputRules = inputRules ?? errorRules(of: inputs)
        result.introduced = errors.filter { !inputRules.contains($0.ruleID) }
        result.inherited = errors.filter { inputRules.contains($0.ruleID) }
        return result
    }
}

extension String {
    /// Every occurrence of `a` replaced by `b` (`a` non-empty).
    func replacingAll(_ a: String, with b: String) -> String {
        guard !a.isEmpty else { return self }
        return replacing(a, with: b)
    }
}
