// Issue 42 item 1: SpatialOperations is the only public door to every job. Converters, splitters, editors, muxers,
// the repairer, the joiner, the validator and the info readers are `package` (every target of this package reaches
// them, a library user does not); the Kit's public job functions are request builders that call `Operations`.
import Foundation
import TestSupport
import Testing

@Suite struct OneDoorTests {
    /// The verbs a job entry's name begins with.
    static let verbs = [
        "convert", "split", "combine", "align", "edit", "validate", "fix", "concat", "join", "assemble", "mux",
        "inspect",
    ]
    /// The shells and the door itself: their public functions are the entries.
    static let doors: Set<String> = ["SpatialOperations", "SpatialMediaCLI", "SpatialMediaC"]
    /// Named like a job, but not one: `FramePackedSplitter.inspect(_:ffmpeg:)` probes a movie (the input path and the
    /// FFmpeg to read it with) and returns what it is, writing nothing.
    static let notJobs: Set<String> = ["SpatialConvert/FramePackedSplitter.swift: inspect"]

    /// One public function named like a job: where, its name, its parameter list and what it returns.
    struct Entry {
        var place: String
        var name: String
        var parameters: String
        var returns: String
        var body: String
    }

    /// A job entry: a path in and a path out (two or more `String` parameters), or a report returned (a type
    /// named `…Report`, `…Reports`, `…Result` or `MediaInfo`). Parsers that take bytes and return data
    /// (`AnnexB.split`, `MVHEVCSplitter.split`, `StereoParameters.validate()`) are not jobs.
    static func isJob(_ e: Entry) -> Bool {
        let strings = e.parameters.components(separatedBy: ": String").count - 1
        let report = ["Report", "Reports", "Result", "MediaInfo"].contains {
            e.returns.hasSuffix($0) || e.returns.hasSuffix($0 + "]")
        }
        return strings >= 2 || report
    }

    /// The text from `open` (an index of "(" or "{") to its matching close, or nil.
    static func balanced(_ s: [Character], from open: Int) -> Range<Int>? {
        let pairs: [Character: Character] = ["(": ")", "{": "}"]
        guard let close = pairs[s[open]] else { return nil }
        var depth = 0
        for i in open..<s.count {
            if s[i] == s[open] { depth += 1 } else if s[i] == close { depth -= 1 }
            if depth == 0 { return open..<(i + 1) }
        }
        return nil
    }

    /// Every public or open function named like a job in one source file.
    static func entries(in text: String, place: String) -> [Entry] {
        let s = Array(text)
        let pattern =
            #"\b(public|open)\s+((static|class|mutating|nonisolated)\s+)*func\s+("#
            + verbs.joined(separator: "|") + #")\w*"#
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let length = (text as NSString).length
        var found: [Entry] = []
        for m in regex.matches(in: text, range: NSRange(location: 0, length: length)) {
            // Character offsets (the sources are not all ASCII).
            guard let r = Range(m.range, in: text) else { continue }
            let start = text.distance(from: text.startIndex, to: r.lowerBound)
            let end = text.distance(from: text.startIndex, to: r.upperBound)
            let name = String(s[start..<end]).split(separator: " ").last.map(String.init) ?? ""
            guard let open = s[end...].firstIndex(where: { $0 == "(" }), let params = balanced(s, from: open),
                let brace = s[params.upperBound...].firstIndex(of: "{"), let body = balanced(s, from: brace)
            else { continue }
            let line = s[..<start].filter { $0 == "\n" }.count + 1
            found.append(
                Entry(
                    place: "\(place):\(line)", name: name, parameters: String(s[params]),
                    returns: String(s[params.upperBound..<brace]).components(separatedBy: "->").last?
                        .trimmingCharacters(in: .whitespacesAndNewlines) ?? "",
                    body: String(s[body])))
        }
        return found
    }

    /// The job entries of `Sources/` outside the doors: none may be public, except the Kit's request builders (a
    /// body that runs the job through `Operations`). Returns "file:line name" of each one that breaks the rule.
    static func strayEntries(root: String) throws -> [String] {
        var stray: [String] = []
        let sources = root + "/Sources"
        for module in try FileManager.default.contentsOfDirectory(atPath: sources).sorted()
        where !doors.contains(module) {
            guard let walk = FileManager.default.enumerator(atPath: sources + "/" + module) else { continue }
            for case let rel as String in walk where rel.hasSuffix(".swift") {
                let text = try String(contentsOfFile: sources + "/" + module + "/" + rel, encoding: .utf8)
                for e in entries(in: text, place: "Sources/\(module)/\(rel)") where isJob(e) {
                    let short = e.name.prefix { $0 != "(" }
                    if notJobs.contains("\(module)/\(rel): \(short)") { continue }
                    if module == "SpatialMediaKit" && e.body.contains("Operations.") { continue }
                    stray.append("\(e.place) \(e.name)")
                }
            }
        }
        return stray
    }

    @Test func noPublicJobEntryOutsideTheDoor() throws {
        let stray = try Self.strayEntries(root: TestPaths.packageRoot)
        let list = stray.joined(separator: "\n")
        #expect(
            stray.isEmpty,
            "public job entries outside SpatialOperations (make them `package`, route through Operations):\n\(list)")
    }

    /// The rule finds what it is for, and leaves parsers alone.
    @Test func theRuleCanFail() {
        let text = """
            public enum Converter {
                public static func convert(_ input: String, to output: String) throws -> Int { 1 }
                public static func validate(path: String) -> ValidationReport { r }
                package static func split(_ input: String, left: String) -> Int { 1 }
                public static func split(_ bytes: [UInt8], baseOffset: UInt64 = 0) -> [NALUnit] { [] }
                public func validate() throws(ParseError) { }
                public static func edit(path: String, progress: ((Int, Int) -> Void)? = nil) -> EditResult { e }
            }
            """
        let jobs = Self.entries(in: text, place: "x.swift").filter(Self.isJob).map(\.name)
        #expect(jobs == ["convert", "validate", "edit"], "\(jobs)")
    }
}
