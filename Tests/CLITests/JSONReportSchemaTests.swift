import Foundation
import TestSupport
import Testing

/// Issue 42 item 3: every command's `--json` (split and split-video included) is one JSON value with each key once
/// per object, and matches its versioned schema in Specs/schemas/ (`report.v1` for every job that writes, `info.v1`,
/// `validate.v1`, `dump.v1`). The inputs are made here from Conformance/files, one job feeding the next.
@Suite("--json of every command against its schema")
struct JSONReportSchemaTests {
    static let jsonschema = Requirement("python3 with the jsonschema module not found") {
        TestPaths.which("python3").map { (try? Run.program($0, ["-c", "import jsonschema"]).status) == 0 } ?? false
    }

    /// One command run with `--json`: its name, arguments, schema and the exit statuses that mean it ran.
    struct Case {
        var name: String
        var args: [String]
        var schema: String
        var statuses: Set<Int32> = [0]
    }

    /// The commands in the order their inputs are made (`d`: a scratch directory).
    static func cases(_ d: String) -> [Case] {
        let movie = CLI.root + "/Conformance/files/movie_moov_first.mp4"
        let y4m = CLI.root + "/Conformance/files/sample_sbs_320x96.y4m"
        let seg = { (k: Int) in
            Case(
                name: "convert segment \(k)",
                args: [
                    "convert", y4m, "-o", d + "/seg\(k).mov", "--segment", "\(k)/2",
                    "--keyint", "15",
                ], schema: "report")
        }
        return [
            Case(name: "info", args: ["info", movie], schema: "info", statuses: [0, 1]),
            Case(name: "validate", args: ["validate", "--no-pixels", movie], schema: "validate", statuses: [0, 1]),
            Case(name: "dump", args: ["dump", movie], schema: "dump", statuses: [0, 1]),
            Case(
                name: "convert video", args: ["convert", y4m, "-o", d + "/s.mov", "--encode-path", "assembled"],
                schema: "report"),
            Case(
                name: "convert photo", args: ["convert", d + "/sbs.png", "-o", d + "/p.heic", "--layout", "sbs"],
                schema: "report"),
            Case(
                name: "split video", args: ["split", d + "/s.mov", "--left", d + "/l.hevc", "--right", d + "/r.hevc"],
                schema: "report"),
            Case(
                name: "split-video",
                args: ["split-video", d + "/s.mov", "--left", d + "/l2.hevc", "--right", d + "/r2.hevc"],
                schema: "report"),
            Case(
                name: "split photo", args: ["split", d + "/p.heic", "--left", d + "/l.heic", "--right", d + "/r.heic"],
                schema: "report"),
            Case(
                name: "assemble", args: ["assemble", d + "/l.hevc", d + "/r.hevc", "-o", d + "/a.mov"], schema: "report"
            ),
            Case(
                name: "combine", args: ["combine", d + "/l.heic", d + "/r.heic", "-o", d + "/c.heic"],
                schema: "report"),
            Case(name: "align", args: ["align", d + "/p.heic", "-o", d + "/aligned.heic"], schema: "report"),
            Case(
                name: "edit video", args: ["edit", d + "/s.mov", "-o", d + "/e.mov", "--baseline", "65"],
                schema: "report"),
            Case(
                name: "edit photo", args: ["edit", d + "/p.heic", "-o", d + "/e.heic", "--baseline", "60"],
                schema: "report"),
            Case(name: "fix", args: ["fix", d + "/s.mov", "-o", d + "/f.mov"], schema: "report"),
            seg(1), seg(2),
            Case(
                name: "concat", args: ["concat", d + "/seg1.mov", d + "/seg2.mov", "-o", d + "/cat.mov", "--no-audio"],
                schema: "report"),
        ]
    }

    /// Keys given more than once in one object of `text` (a JSON parser keeps one of them silently).
    static func duplicateKeys(_ text: String) -> [String] {
        // One frame per open object or array: the keys seen, and whether the next string is a key.
        var stack: [(keys: Set<String>, object: Bool, key: Bool)] = []
        var duplicates: [String] = []
        let s = Array(text.unicodeScalars)
        var i = 0
        while i < s.count {
            switch s[i] {
            case "{": stack.append(([], true, true))
            case "[": stack.append(([], false, false))
            case "}", "]": _ = stack.popLast()
            case ",": if stack.last?.object == true { stack[stack.count - 1].key = true }
            case "\"":
                var string = String.UnicodeScalarView()
                i += 1
                while i < s.count, s[i] != "\"" {
                    if s[i] == "\\", i + 1 < s.count { string.append(s[i]); i += 1 }
                    string.append(s[i])
                    i += 1
                }
                if let top = stack.last, top.object, top.key {
                    let key = String(string)
                    if !stack[stack.count - 1].keys.insert(key).inserted { duplicates.append(key) }
                    stack[stack.count - 1].key = false
                }
            default: break
            }
            i += 1
        }
        return duplicates
    }

    @Test func theDuplicateScannerFindsDuplicates() {
        #expect(Self.duplicateKeys(#"{"a": 1, "b": {"a": 2, "c": "a"}, "w": [], "w": []}"#) == ["w"])
        #expect(Self.duplicateKeys(#"{"a": "x\"y", "b": [{"a": 1}, {"a": 2}]}"#).isEmpty)
        #expect(Self.duplicateKeys(#"[{"k": 1, "k": 2}]"#) == ["k"])
    }

    @Test(.needs(jsonschema))
    func everyCommandsJSONMatchesItsSchema() throws {
        let d = try CLI.tempDir("json-schema")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let ffmpeg = try TestPrograms.requireFFmpeg()
        let y4m = CLI.root + "/Conformance/files/sample_sbs_320x96.y4m"
        let png = try CLI.runProgram(ffmpeg, ["-v", "error", "-y", "-i", y4m, "-frames:v", "1", d + "/sbs.png"])
        #expect(png.status == 0, "\(png.err)")
        var pairs: [String] = []
        var commands = Set<String>()
        for (n, c) in Self.cases(d).enumerated() {
            let r = try CLI.run(c.args + ["--json"])
            #expect(c.statuses.contains(r.status), "\(c.name): exit \(r.status): \(r.err.suffix(600))")
            guard c.statuses.contains(r.status) else { continue }
            #expect(
                (try? JSONSerialization.jsonObject(with: Data(r.out.utf8))) != nil,
                "\(c.name): not JSON: \(r.out.prefix(300))")
            #expect(Self.duplicateKeys(r.out).isEmpty, "\(c.name): keys printed twice: \(Self.duplicateKeys(r.out))")
            let file = d + "/\(n).json"
            try r.out.write(toFile: file, atomically: true, encoding: .utf8)
            pairs += [CLI.root + "/Specs/schemas/\(c.schema).v1.schema.json", file, c.name]
            commands.insert(c.args[0])
        }
        // Every command with --json in the tool is covered here.
        #expect(
            commands == [
                "info", "validate", "dump", "convert", "split", "split-video", "assemble", "combine", "align", "edit",
                "fix", "concat",
            ])
        let check = """
            import json, jsonschema, sys
            bad = []
            a = sys.argv[1:]
            for schema, data, name in zip(a[0::3], a[1::3], a[2::3]):
                s = json.load(open(schema))
                jsonschema.Draft202012Validator.check_schema(s)
                for e in jsonschema.Draft202012Validator(s).iter_errors(json.load(open(data))):
                    bad.append(f"{name}: {e.message} at {list(e.absolute_path)}")
            print("\\n".join(bad[:20])); sys.exit(1 if bad else 0)
            """
        let r = try CLI.runProgram(try #require(TestPaths.which("python3")), ["-c", check] + pairs)
        #expect(r.status == 0, "\(r.out) \(r.err)")
    }

    /// The commands that take `--json`, read from the sources of the command line: a new one must be added above.
    @Test func everyJSONFlagIsCovered() throws {
        let dir = CLI.root + "/Sources/SpatialMediaCLI"
        var flagged = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) where name.hasSuffix(".swift") {
            let text = try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
            flagged += text.components(separatedBy: "var json = false").count - 1
        }
        // info, validate, dump, convert, split, split-video, assemble, combine, align, edit, fix, concat.
        #expect(flagged == 12, "a command gained or lost --json: cover it in cases(_:)")
    }
}
