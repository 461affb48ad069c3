import Foundation
import TestSupport
import Testing

/// Golden outputs of the built binary: `info`, `info --json`, `validate` and `dump` of the project's own generated
/// `Conformance/files`, and the help text of every subcommand, each compared in full (standard output and exit
/// status) with `Conformance/snapshots/`. A changed output, option or message shows in review as a changed golden.
/// `bash scripts/update-snapshots.sh` rewrites them (it runs this suite with `UPDATE_SNAPSHOTS=1`).
@Suite struct SnapshotTests {
    static let goldens = TestPaths.package("Conformance/snapshots")
    static let update = ProcessInfo.processInfo.environment["UPDATE_SNAPSHOTS"] != nil

    /// The generated conformance files, by their path relative to `Conformance/` (the directory the commands run in).
    static let inputs: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: TestPaths.package("Conformance/files"))) ?? []
        return names.filter { !$0.hasSuffix(".expect") && !$0.hasPrefix(".") }.sorted().map { "files/" + $0 }
    }()

    static let commands: [(name: String, args: [String])] = [
        ("info", ["info"]), ("info-json", ["info", "--json"]), ("validate", ["validate"]), ("dump", ["dump"]),
    ]

    /// Runs the binary in `Conformance/` with a fixed terminal width and FFmpeg, and returns the golden text: the
    /// command line, the exit status and the standard output, with machine-specific paths replaced.
    static func transcript(_ args: [String]) throws -> String {
        var env = ["COLUMNS": "100", "NO_COLOR": "1"]
        if let ff = TestPrograms.ffmpeg { env["SPATIAL_MEDIA_FFMPEG"] = ff }
        let r = try Run.cli(args, env: env, cwd: TestPaths.package("Conformance"), timeout: 300)
        var replacements = [(TestPaths.packageRoot, "<package>")]
        if let ff = TestPrograms.ffmpeg { replacements.insert((ff, "<ffmpeg>"), at: 0) }
        let out = Golden.normalise(r.out, replacements)
        return "$ spatial-media \(args.joined(separator: " "))\nexit \(r.status)\n\(out)"
    }

    /// Compares (or, with `UPDATE_SNAPSHOTS`, writes) one golden.
    static func check(_ golden: String, _ actual: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let path = goldens + "/" + golden
        if update {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try actual.write(toFile: path, atomically: true, encoding: .utf8)
            return  // lint: not a skip (writes the golden it would compare)
        }
        let expected = try #require(
            try? String(contentsOfFile: path, encoding: .utf8),
            "no golden \(golden): run `bash scripts/update-snapshots.sh`", sourceLocation: sourceLocation)
        #expect(
            expected == actual,
            "\(golden) differs (\(Golden.firstDifference(expected, actual) ?? "")); if intended, run `bash scripts/update-snapshots.sh`",
            sourceLocation: sourceLocation)
    }

    @Test(arguments: inputs)
    func outputsOfTheConformanceFiles(_ input: String) throws {
        for (name, args) in Self.commands {
            let base = (input as NSString).lastPathComponent
            try Self.check("\(base).\(name).txt", try Self.transcript(args + [input]))
        }
    }

    /// The subcommands `spatial-media --help` lists.
    static func subcommands() throws -> [String] {
        let help = try Run.cli(["--help"], env: ["COLUMNS": "100"]).out
        guard let start = help.range(of: "SUBCOMMANDS:") else { return [] }
        return help[start.upperBound...].split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first,
                word.first?.isLowercase == true
            else { return nil }
            return String(word)
        }
    }

    @Test func helpTexts() throws {
        let subs = try Self.subcommands()
        #expect(subs.count >= 5, "subcommands parsed from --help: \(subs)")
        try Self.check("help/spatial-media.txt", try Self.transcript(["--help"]))
        for sub in subs where sub != "help" {
            try Self.check("help/\(sub).txt", try Self.transcript([sub, "--help"]))
        }
        if !Self.update {
            // A golden whose subcommand is gone fails too.
            let kept = Set(((try? FileManager.default.contentsOfDirectory(atPath: Self.goldens + "/help")) ?? []))
            let wanted = Set(["spatial-media.txt"] + subs.filter { $0 != "help" }.map { $0 + ".txt" })
            #expect(
                kept == wanted,
                "help goldens without a subcommand or subcommands without a golden: run `bash scripts/update-snapshots.sh`"
            )
        }
    }
}
