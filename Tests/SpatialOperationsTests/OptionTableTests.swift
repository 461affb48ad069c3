// Issue 42, build 2: one typed row per option of every job's request. The rows hold the defaults, the allowed values
// of a choice and the range of a number; the command line's help states the rows' defaults, the C ABI exports every
// table (sm_option_table) with its choices and ranges, and the Python keywords are the tables' keys.
import BinaryIO
import Foundation
import SpatialMediaC
import SystemSupport
import TestSupport
import Testing

@testable import SpatialOperations

@Suite struct OptionTableTests {
    /// Every job that has a request, with its table.
    static let jobs: [(job: String, table: [OptionSpec])] = [
        ("convert", ConvertRequest.table), ("combine", CombineRequest.table), ("align", AlignRequest.table),
        ("fix", FixRequest.table), ("split", SplitRequest.table), ("validate", ValidateRequest.table),
        ("edit", EditRequest.table), ("concat", ConcatRequest.table), ("info", InfoRequest.table),
    ]

    static func table(_ job: String) -> [OptionSpec] { jobs.first { $0.job == job }?.table ?? [] }

    /// The help of each flag of `command --help`: its definition line and the wrapped lines under it, whitespace
    /// collapsed.
    static func helpBlocks(_ command: String) throws -> [String: String] {
        let help = try Shells.run(try #require(Shells.cli), [command, "--help"]).out
        var blocks: [String: String] = [:]
        var current: String?
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("  "), !line.hasPrefix("   ") {
                let t = line.dropFirst(2)
                let head = t.hasPrefix("-o, ") ? t.dropFirst(4) : t
                guard head.hasPrefix("--") else {
                    current = nil
                    continue
                }
                let flag = String(head.prefix { $0 != " " })
                current = flag
                blocks[flag] = String(head.dropFirst(flag.count))
            } else if let c = current, line.hasPrefix("   ") {
                blocks[c, default: ""] += " " + line
            } else {
                current = nil
            }
        }
        return blocks.mapValues { $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") }
    }

    /// The defaults a help text states: the words after "(default ", "(default: ", "; default " up to the closing
    /// parenthesis of the statement.
    static func statedDefaults(_ text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let r = rest.range(of: "default", options: .caseInsensitive) {
            let before = rest[..<r.lowerBound]
            var after = rest[r.upperBound...]
            rest = after
            guard before.hasSuffix("(") || before.hasSuffix("; ") else { continue }
            if after.hasPrefix(":") { after = after.dropFirst() }
            guard after.hasPrefix(" ") else { continue }
            after = after.dropFirst()
            var depth = 0
            var end = after.endIndex
            for i in after.indices {
                if after[i] == "(" { depth += 1 }
                if after[i] == ")" {
                    if depth == 0 {
                        end = i
                        break
                    }
                    depth -= 1
                }
            }
            found.append(String(after[..<end]))
        }
        return found
    }

    /// For every job: each default the help states for a flag of the table is the row's default (the help takes it
    /// from the row), and a flag whose row has no default states none.
    @Test(arguments: jobs.map(\.job))
    func helpStatesTheRowsDefaults(_ job: String) throws {
        let blocks = try Self.helpBlocks(job)
        for row in Self.table(job) {
            guard let flag = row.flag, let help = blocks[flag] else { continue }
            for stated in Self.statedDefaults(help) {
                #expect(
                    stated == row.defaultText,
                    "\(job) \(flag): the help states default \"\(stated)\", the row \"\(row.defaultText)\"")
            }
        }
        // The statement is found where it is written that way (the parser above is not vacuous).
        if job == "convert" {
            #expect(Self.statedDefaults(try #require(blocks["--sps-form"])) == ["multilayer"])
            #expect(Self.statedDefaults(try #require(blocks["--crf"])) == ["23"])
        }
    }

    /// Every choice's row lists its allowed values (the library type's words); every number the run checks states
    /// its range; the table JSON of the C ABI carries both.
    @Test func rowsCarryAllowedValuesAndRanges() {
        let convert = Dictionary(uniqueKeysWithValues: ConvertRequest.table.map { ($0.key, $0) })
        #expect(convert["preset"]?.allowed == X265Preset.allCases.map(\.rawValue))
        #expect(Set(convert["layer_sps"]?.allowed ?? []) == ["multilayer", "full"])
        #expect(convert["layout"]?.allowed == ["auto", "sbs", "tb", "half-sbs", "half-tb"])
        #expect(convert["hero_eye"]?.allowed == ["left", "right", "none"])
        #expect(convert["crf"]?.range == 0...51 && convert["quality"]?.range == 0...100)
        #expect(convert["hfov_millidegrees"]?.range == 1...179_999)
        #expect(SplitRequest.row("preset").allowed.contains("medium"))
        #expect(SplitRequest.row("layout").allowed == ["sbs", "tb", "auto"])
        #expect(SplitRequest.row("crf").range == 0...51)
        #expect(ValidateRequest.row("layout").allowed == ["sbs", "tb"])
        #expect(ValidateRequest.row("frames").range == 1...1000)
        #expect(FixRequest.row("hero_eye").allowed == ["left", "right"])
        #expect(EditRequest.row("projection").allowed == ["rect", "equi", "hequ", "fish", "prim"])
        #expect(EditRequest.row("packing").allowed == ["side", "over"])
        #expect(CombineRequest.row("form").allowed == ["apple", "standard", "both"])
        #expect(AlignRequest.row("quality").range == 0...100)
        for (job, table) in Self.jobs {
            for row in table where row.type == .text && row.key != "keep_streams" {
                // A text option is a choice (allowed values) unless it is a syntax of its own.
                #expect(!row.allowed.isEmpty || ["segment"].contains(row.key), "\(job) \(row.key): no allowed values")
            }
        }
    }

    /// `sm_option_table` answers for every job that has a request, with exactly its rows (keys, defaults, allowed
    /// values, ranges); an unknown job is refused.
    @Test(arguments: jobs.map(\.job))
    func cABIExportsEveryTable(_ job: String) throws {
        var out: UnsafeMutablePointer<CChar>?
        let status = job.withCString { sm_option_table($0, &out) }
        #expect(status == 0)
        let text = try #require(out.map { String(cString: $0) })
        sm_string_free(out)
        let rows = try #require(
            JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
        let table = Self.table(job)
        #expect(rows.map { $0["key"] as? String } == table.map(\.key))
        for (row, spec) in zip(rows, table) {
            #expect(row["default"] as? String == spec.defaultText)
            #expect(row["python"] as? String == spec.pythonKeyword)
            if spec.allowed.isEmpty {
                #expect(row["allowed"] is NSNull, "\(job) \(spec.key)")
            } else {
                #expect(row["allowed"] as? [String] == spec.allowed, "\(job) \(spec.key)")
            }
            if let r = spec.range {
                #expect(row["range"] as? [Double] == [r.lowerBound, r.upperBound], "\(job) \(spec.key)")
            } else {
                #expect(row["range"] is NSNull, "\(job) \(spec.key)")
            }
        }
        var none: UnsafeMutablePointer<CChar>?
        #expect("transmogrify".withCString { sm_option_table($0, &none) } != 0)
        sm_string_free(none)
    }

    /// The Python keywords of every job are the keys (`python` names) of its table; edit's keywords are its rows but
    /// for the three the C ABI's edit handle does not take.
    @Test func pythonKeywordsAreTheTables() throws {
        let functions = [
            ("convert", "convert", ["input", "output", "right_input", "progress", "cancel"]),
            ("align", "align", ["input", "output", "progress", "cancel"]),
            ("fix", "fix", ["input", "output", "progress", "cancel"]),
            ("split", "split", ["input", "progress", "cancel"]),
            ("validate", "validate", ["path", "progress", "cancel"]),
            ("combine", "combine_photo", ["left", "right", "output"]),
            ("edit", "edit", ["path", "output"]),
            ("concat", "concat", ["segments", "output", "progress", "cancel"]),
        ]
        let script =
            "import inspect, json, spatialmedia as sm\nprint(json.dumps({"
            + functions.map { "\"\($0.0)\": sorted(set(inspect.signature(sm.\($0.1)).parameters) - set(\($0.2)))" }
            .joined(separator: ", ") + "}))"
        let py = try Shells.python(script)
        try #require(py.status == 0, "\(py.err)")
        let keywords = try #require(JSONSerialization.jsonObject(with: Data(py.out.utf8)) as? [String: [String]])
        for (job, table) in Self.jobs {
            var expected = Set(table.map(\.pythonKeyword))
            // The edit handle (sm_edit_*) has no packing, to_apmp or to_google: Python's edit cannot take them yet.
            if job == "edit" { expected.subtract(["packing", "to_apmp", "to_google"]) }
            #expect(Set(keywords[job] ?? []) == expected, "\(job): Python \(keywords[job] ?? []) ≠ table")
        }
    }

    /// The typed rows read the C ABI's JSON values into the requests (choices to the library's values) and refuse
    /// what is not allowed as `invalid-option`.
    @Test func requestsAreReadByTheirRows() throws {
        let s = try SplitRequest(
            input: "in.mov",
            values: [("preset", .string("fast")), ("layout", .string("tb")), ("half", .bool(true))])
        #expect(s.preset == .fast && s.layout == .tb && s.half)
        #expect(throws: ParseError(.invalidOption, "")) {
            try SplitRequest(input: "in.mov", values: [("preset", .string("warp"))])
        }
        let v = try ValidateRequest(path: "a.png", values: [("layout", .string("sbs")), ("pixels", .bool(false))])
        #expect(v.layout == .sbs && !v.pixels)
        #expect(throws: ParseError(.invalidOption, "")) {
            try ValidateRequest(path: "a.png", values: [("layout", .string("auto"))])
        }
        let c = try ConcatRequest(segments: ["a.mov"], output: "o.mov", values: [("no_audio", .bool(true))])
        #expect(c.noAudio)
        let k = try CombineRequest(
            left: "l.heic", right: nil, output: "o.heic",
            values: [("left_item", .number(1)), ("right_item", .number(2))])
        #expect(k.leftItem == 1 && k.rightItem == 2)
        let e = try EditRequest(path: "m.mov", output: nil, values: [("remove", .array([.string("hfov")]))])
        #expect(e.remove == ["hfov"])
    }

    /// Every job's own range, choice and combination refusals of an option are `invalid-option`, naming the option
    /// in the caller's spelling; a missing input stays `invalid-argument`.
    @Test func everyJobsOptionRefusalsAreInvalidOption() {
        func code(_ run: () throws(ParseError) -> Void) -> ParseError.Code? {
            do throws(ParseError) {
                try run()
                return nil
            } catch { return error.code }
        }
        var split = SplitRequest(input: "/nonexistent/in.mov")
        split.left = "/nonexistent/l.mov"
        split.crf = 99
        #expect(code { () throws(ParseError) in _ = try Operations.split(split, spelling: .key) } == .invalidOption)
        split.crf = nil; split.copy = true; split.preset = .fast
        #expect(code { () throws(ParseError) in _ = try Operations.split(split, spelling: .key) } == .invalidOption)
        #expect(
            code { () throws(ParseError) in _ = try Operations.split(SplitRequest(input: "x.mov"), spelling: .key) }
                == .invalidArgument)
        var align = AlignRequest(photo: "/nonexistent/p.heic", output: "/nonexistent/o.heic")
        align.quality = 101
        #expect(code { () throws(ParseError) in _ = try Operations.align(align, spelling: .key) } == .invalidOption)
        #expect(
            code { () throws(ParseError) in
                _ = try FixRequest(path: "/nonexistent/m.mov", output: nil, values: [("hero_eye", .string("up"))])
            } == .invalidOption)
        var fix = FixRequest(path: "/nonexistent/m.mov", output: nil)
        fix.hfovDegrees = 200
        #expect(code { () throws(ParseError) in _ = try Operations.fix(fix, spelling: .key) } == .invalidOption)
        #expect(
            code { () throws(ParseError) in
                _ = try EditRequest(path: "/nonexistent/m.mov", output: nil, values: [("packing", .string("diagonal"))])
            } == .invalidOption)
        var edit = EditRequest(path: "/nonexistent/m.mov", output: nil)
        edit.toAPMP = true; edit.toGoogle = true
        #expect(code { () throws(ParseError) in _ = try Operations.edit(edit, spelling: .key) } == .invalidOption)
        #expect(
            code { () throws(ParseError) in
                _ = try CombineRequest(
                    left: "/nonexistent/l.heic", right: "/nonexistent/r.heic", output: "/tmp/o.heic",
                    values: [("form", .string("uuid"))])
            } == .invalidOption)
        var validate = ValidateRequest(inputs: ["/nonexistent/a.mov"])
        validate.frames = 0
        #expect(
            code { () throws(ParseError) in _ = try Operations.validate(validate, spelling: .key) } == .invalidOption)
        let concat = ConcatRequest(segments: ["/nonexistent/a.mov"], output: "/nonexistent/o.mov")
        #expect(code { () throws(ParseError) in _ = try Operations.concat(concat, spelling: .key) } == .invalidOption)
        #expect(
            code { () throws(ParseError) in
                _ = try Operations.concat(ConcatRequest(segments: [], output: "o.mov"), spelling: .key)
            } == .invalidArgument)
    }
}
