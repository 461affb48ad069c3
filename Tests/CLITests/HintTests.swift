import Foundation
import TestSupport
import Testing

/// Issue 18, item 12: every command line the tool tells a user to run names a real subcommand and options that
/// subcommand accepts. Sources: backticked `spatial-media …` (and `SUBCOMMAND …`) hints in Sources/, command lines
/// in the README, and `spatial-media …` mentions in the help of every subcommand.
@Suite struct HintTests {
    /// `spatial-media SUB --opt …` → (SUB, [--opt, …]); nil when the text names no subcommand.
    static func parse(_ line: String, subcommands: Set<String>) -> (sub: String, options: [String])? {
        var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if words.first == "$" { words.removeFirst() }
        if words.first == "spatial-media" { words.removeFirst() }
        guard let sub = words.first, subcommands.contains(sub) else { return nil }
        let options = words.dropFirst().compactMap { w -> String? in
            guard let r = w.range(of: #"^\[?\(?(--[a-z][a-z0-9-]*)"#, options: .regularExpression) else { return nil }
            return String(w[r]).trimmingCharacters(in: CharacterSet(charactersIn: "[("))
        }
        return (sub, options)
    }

    static func backticked(_ text: String) -> [String] {
        var out: [String] = []
        var rest = Substring(text)
        while let a = rest.firstIndex(of: "`") {
            let after = rest[rest.index(after: a)...]
            guard let b = after.firstIndex(of: "`") else { break }
            out.append(String(after[..<b]))
            rest = after[after.index(after: b)...]
        }
        return out
    }

    static func swiftFiles(_ dir: String) -> [String] {
        let e = FileManager.default.enumerator(atPath: dir)
        var out: [String] = []
        while let f = e?.nextObject() as? String { if f.hasSuffix(".swift") { out.append(dir + "/" + f) } }
        return out.sorted()
    }

    @Test func everyQuotedCommandLineWorks() throws {
        let top = try CLI.run(["--help"]).out
        // SUBCOMMANDS section: "  info   Say what…".
        var subcommands = Set<String>()
        var inSection = false
        for line in top.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("SUBCOMMANDS:") { inSection = true; continue }
            if inSection {
                if line.isEmpty { if !subcommands.isEmpty { break } else { continue } }
                // "  NAME   abstract…" (wrapped abstract lines are indented further).
                if let r = line.range(of: #"^  [a-z][a-z-]*( |$)"#, options: .regularExpression) {
                    subcommands.insert(line[r].trimmingCharacters(in: .whitespaces))
                }
            }
        }
        try #require(
            subcommands.contains("convert") && subcommands.contains("validate"), "no subcommands in --help: \(top)")
        subcommands.insert("help")

        var hints: [(origin: String, text: String)] = []
        for file in Self.swiftFiles(CLI.root + "/Sources") {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for b in Self.backticked(text)
            where b.hasPrefix("spatial-media ") || subcommands.contains(String(b.split(separator: " ").first ?? "")) {
                hints.append((file.replacingOccurrences(of: CLI.root + "/", with: ""), b))
            }
        }
        let sourceHints = hints.count
        let readme = try String(contentsOfFile: CLI.root + "/README.md", encoding: .utf8)
        for line in readme.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix("spatial-media ") || t.hasPrefix("$ spatial-media ") { hints.append(("README.md", t)) }
        }
        for b in Self.backticked(readme) where b.hasPrefix("spatial-media ") { hints.append(("README.md", b)) }
        var helps: [String: String] = [:]
        for sub in subcommands.sorted() {
            let r = try CLI.run([sub, "--help"])
            #expect(r.status == 0, "\(sub) --help exited \(r.status)")
            helps[sub] = r.out
            for line in r.out.split(separator: "\n") {
                if let range = line.range(of: "spatial-media ") {
                    hints.append(("\(sub) --help", String(line[range.lowerBound...])))
                }
            }
        }
        #expect(sourceHints >= 8, "only \(sourceHints) hints found in Sources")
        var checked = 0
        for h in hints {
            // "spatial-media --help", "spatial-media info" in prose: the subcommand part is what is checked.
            guard let (sub, options) = Self.parse(h.text, subcommands: subcommands) else {
                let words = h.text.split(separator: " ")
                if words.first == "spatial-media", words.count > 1, !words[1].hasPrefix("-"), !words[1].hasPrefix("["),
                    words[1].allSatisfy({ $0.isLetter || $0 == "-" })
                {
                    Issue.record("\(h.origin): `\(h.text)` names no subcommand of spatial-media")
                }
                continue
            }
            let help = helps[sub] ?? ""
            for o in options where o != "--help" {
                #expect(help.contains(o), "\(h.origin): `\(h.text)`: \(sub) has no option \(o)")
            }
            checked += 1
        }
        #expect(checked >= 20)
    }
}
