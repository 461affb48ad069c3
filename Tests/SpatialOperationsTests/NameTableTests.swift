// Issue 28: one name table per request, from which the command line's help, the C header's option list and the
// Python keywords are checked.
import Foundation
import TestSupport
import Testing

@testable import SpatialOperations

@Suite struct NameTableTests {
    @Test func keysFlagsAndKeywordsAreUnique() {
        for t in [
            ConvertRequest.table, CombineRequest.table, AlignRequest.table, FixRequest.table, SplitRequest.table,
            ValidateRequest.table, EditRequest.table, ConcatRequest.table,
        ] {
            #expect(Set(t.map(\.key)).count == t.count)
            let flags = t.compactMap(\.flag)
            #expect(Set(flags).count == flags.count)
            #expect(Set(t.map(\.pythonKeyword)).count == t.count)
        }
    }

    /// Every flag of the table is in `convert --help`, and every option of `convert --help` is in the table.
    @Test
    func cliHelpMatchesTheTable() throws {
        for (command, table, outside) in [
            ("convert", ConvertRequest.table, Set(["--output", "--left", "--right", "--json", "--help", "--version"])),
            ("combine", CombineRequest.table, Set(["--output", "--json", "--help", "--version"])),
            ("align", AlignRequest.table, Set(["--output", "--json", "--help", "--version"])),
            ("fix", FixRequest.table, Set(["--output", "--in-place", "--json", "--help", "--version"])),
            ("split", SplitRequest.table, Set(["--json", "--help", "--version"])),
            (
                "validate", ValidateRequest.table,
                Set(["--json", "--report", "--left", "--help", "--version"])
            ),
            ("edit", EditRequest.table, Set(["--output", "--in-place", "--json", "--help", "--version"])),
            ("concat", ConcatRequest.table, Set(["--output", "--json", "--help", "--version"])),
        ] {
            let help = try Shells.run(try #require(Shells.cli), [command, "--help"])
            // The option definitions: lines of the OPTIONS section that start with a flag ("-o, --output <output>").
            let words = Set(
                help.out.split(separator: "\n").compactMap { line -> String? in
                    // Definitions are indented by two spaces; wrapped help text by many more.
                    guard line.hasPrefix("  "), !line.hasPrefix("   ") else { return nil }
                    let t = line.dropFirst(2)
                    let head = t.hasPrefix("-o, ") ? t.dropFirst(4) : t
                    guard head.hasPrefix("--") else { return nil }
                    return String(head.prefix { $0 != " " })
                })
            let flags = Set(table.compactMap(\.flag))
            #expect(
                flags.subtracting(words).isEmpty,
                "\(command): in the table, not in --help: \(flags.subtracting(words).sorted())")
            let unknown = words.subtracting(flags).subtracting(outside)
            #expect(unknown.isEmpty, "\(command): in --help, not in the table: \(unknown.sorted())")
        }
    }

    /// The header documents every key of convert's, align's, fix's and split's tables with its flag, in the comment of
    /// the job's entry point.
    @Test(arguments: [
        ("sm_convert", "/* Converts a stereo source", ConvertRequest.table),
        ("sm_align_photo", "/* Rectifies a spatial photo", AlignRequest.table),
        ("sm_fix_video", "/* Repairs a movie", FixRequest.table),
        ("sm_split", "/* Splits a stereo photo or video", SplitRequest.table),
        (
            "sm_validate_path", "/* Checks the file against the spatial-media rules",
            ValidateRequest.table
        ),
    ])
    func headerListsEveryKey(_ function: String, _ opening: String, _ table: [OptionSpec]) throws {
        let header = try String(contentsOfFile: Shells.root + "/include/spatialmedia.h", encoding: .utf8)
        let start = try #require(header.range(of: "sm_status \(function)(")).lowerBound
        let doc = try #require(header[..<start].range(of: opening, options: .backwards))
        let text = String(header[doc.lowerBound..<start])
        for row in table {
            #expect(text.contains("\"\(row.key)\""), "the header's \(function) comment does not name \"\(row.key)\"")
            if let flag = row.flag {
                #expect(
                    text.contains("\"\(row.key)\" (\(flag)") || text.contains("(\(flag)"),
                    "\(row.key): flag \(flag) not given")
            }
        }
    }

    /// Every row of convert's table is a stored property of the request under its camel-case name (what
    /// `isGiven` reads), or one of the stereo values.
    @Test func everyKeyIsARequestProperty() {
        let r = ConvertRequest(output: "x")
        let properties = Set(Mirror(reflecting: r).children.compactMap { $0.label.map(ConvertRequest.snakeCase) })
            .subtracting(["input", "left", "right", "output", "values", "route"])
        let keys = Set(ConvertRequest.table.map(\.key)).subtracting(StereoValueInputs.keys)
        #expect(properties == keys)
        var given = r
        given.layerSps = .full; given.noAudio = false; given.halfResolution = true
        #expect(
            given.isGiven("layer_sps") && !given.isGiven("no_audio") && given.isGiven("half_resolution")
                && !given.isGiven("crf"))
    }

    /// The defaults come from the library's option values (so a changed default there shows here).
    @Test func defaultsAreTheLibrarysValues() {
        let t = Dictionary(uniqueKeysWithValues: ConvertRequest.table.map { ($0.key, $0.defaultText) })
        #expect(t["layer_sps"] == "multilayer")
        #expect(t["hero_eye"] == "left")
        #expect(t["crf"] == "23")
        #expect(t["quality"] == "80")
    }
}
