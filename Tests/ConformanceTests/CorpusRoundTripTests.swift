import BinaryIO
import ISOBMFF
import TestSupport
import Testing

/// Paths relative to the package root.
enum Paths {
    static let packageRoot = TestPaths.packageRoot
    static let shared = TestPaths.sharedRoot
    static let conformance = packageRoot + "/Conformance"
}

/// Lists regular files under `dir` recursively (sorted), or [] when absent.
func listFiles(_ dir: String) -> [String] {
    var out: [String] = []
    var stack = [dir]
    while let d = stack.popLast() {
        guard let entries = try? directoryEntries(d) else { continue }
        for e in entries where !e.hasPrefix(".") {
            let p = d + "/" + e
            if isDirectory(p) { stack.append(p) } else { out.append(p) }
        }
    }
    return out.sorted()
}

/// Outcome of reading and rewriting one file.
struct Outcome: Equatable, CustomStringConvertible {
    var relative: String
    /// `identical`, `not-isobmff`, `differs`, or `error:<code>`.
    var status: String
    /// Diagnostic codes found while parsing (sorted, unique).
    var codes: [String]
    var description: String {
        codes.isEmpty ? "\(relative) \(status)" : "\(relative) \(status) \(codes.joined(separator: ","))"
    }
}

func runOne(_ path: String, relative: String) -> Outcome {
    do {
        let file = try ISOFile.open(path: path)
        let original = try FileSource(path: path).read(at: 0, count: Int(file.source.size))
        let written = try file.serialized()
        let codes = Array(Set(file.allDiagnostics.map(\.code.rawValue))).sorted()
        return Outcome(relative: relative, status: written == original ? "identical" : "differs", codes: codes)
    } catch {
        if error.code == .notRecognised { return Outcome(relative: relative, status: "not-isobmff", codes: []) }
        return Outcome(relative: relative, status: "error:\(error.code)", codes: [])
    }
}

/// Loads `Conformance/expected-results.txt`: lines `relative-path status [codes]` for every file that is
/// not simply byte-identical with no diagnostics. Lines starting with `#` are comments.
func loadExpected() -> [String: String] {
    guard let text = try? readText(Paths.conformance + "/expected-results.txt") else { return [:] }
    var map: [String: String] = [:]
    for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.trimmingSpaces().isEmpty {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        if parts.count == 2 { map[parts[0]] = parts[1].trimmingSpaces() }
    }
    return map
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.first?.isWhitespace == true { s.removeFirst() }
        while s.last?.isWhitespace == true { s.removeLast() }
        return String(s)
    }
}

@Suite("Conformance corpus")
struct CorpusRoundTripTests {
    @Test(
        "Every corpus and fixture file parses without crashing and rewrites byte-identically or as expected",
        .needs(.sharedMedia))
    func corpus() throws {
        try Self.roundTrip([("corpus", Paths.shared + "/corpus"), ("fixtures", Paths.shared + "/fixtures")])
    }

    @Test("Every generated conformance file parses and rewrites byte-identically or as expected")
    func conformanceFiles() throws {
        try Self.roundTrip([("conformance", Paths.conformance)])
    }

    static func roundTrip(_ roots: [(String, String)]) throws {
        var outcomes: [Outcome] = []
        for (name, dir) in roots {
            for p in listFiles(dir)
            where !p.hasSuffix(".md") && !p.hasSuffix(".json") && !p.hasSuffix(".txt") && !p.hasSuffix(".expect") {
                let rel = name + p.dropFirst(dir.count)
                outcomes.append(runOne(p, relative: rel))
            }
        }
        let expected = loadExpected()
        var unexpected: [String] = []
        for o in outcomes {
            let actual = o.codes.isEmpty ? o.status : "\(o.status) \(o.codes.joined(separator: ","))"
            let want = expected[o.relative] ?? "identical"
            if actual != want && !(want == "not-isobmff" && actual == "not-isobmff") {
                unexpected.append("\(o.relative): expected '\(want)', got '\(actual)'")
            }
        }
        let iso = outcomes.filter { $0.status != "not-isobmff" }
        let isoClean = iso.filter { !$0.relative.contains("/malformed/") }
        let identical = isoClean.filter { $0.status == "identical" }.count
        let allIdentical = iso.filter { $0.status == "identical" }.count
        let pct = isoClean.isEmpty ? 100 : Double(identical) * 100 / Double(isoClean.count)
        print(
            "conformance: \(roots.map(\.0).joined(separator: "+")): \(outcomes.count) files, \(iso.count) ISOBMFF, \(allIdentical) rewritten byte-identical; outside malformed/: \(identical)/\(isoClean.count) (\(Int(pct * 10) / 10)%); \(outcomes.count - iso.count) not ISOBMFF; 0 crashes; \(unexpected.count) unexpected"
        )
        if ProcessEnv.get("CONFORMANCE_PRINT") != nil {
            for o in outcomes where !(o.status == "identical" && o.codes.isEmpty) { print("EXPECT \(o)") }
        }
        for u in unexpected.prefix(50) { print("UNEXPECTED \(u)") }
        #expect(unexpected.isEmpty, "\(unexpected.count) files differ from Conformance/expected-results.txt")
    }
}
