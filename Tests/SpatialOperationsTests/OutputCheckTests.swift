import BinaryIO
// Issue 28: every write ends with a check of its own output; an ERROR the job introduced is refused (nothing
// left at the output, exit 2), an ERROR inherited from the input is reported; output names and refusals are one
// wording and one code in every command and shell.
import Foundation
import SpatialValidation
import TestSupport
import Testing

@testable import SpatialOperations

@Suite struct OutputCheckTests {
    static let fixtures = TestPaths.sharedPath("fixtures")
    static let bad = fixtures + "/mvhevc_96x64_6f_lhvC.mov"
    static let good = fixtures + "/mvhevc_96x64_6f_spatial.mov"

    /// A file with validator ERRORs, "written" by a job whose input has none of them: refused, nothing kept.
    @Test(.needs(.shared("fixtures/mvhevc_96x64_6f_lhvC.mov", "fixtures/mvhevc_96x64_6f_spatial.mov")))
    func introducedErrorIsRefusedAndNothingIsLeft() throws {
        var o = ValidationOptions()
        o.pixels = false
        let errors = Validator.validate(path: Self.bad, options: o).findings.filter { $0.severity == .error }
        try #require(!errors.isEmpty, "the fixture has no ERROR to introduce")
        let dir = try Shells.tempDir("check")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let output = dir + "/out.mov"
        let scratch = try AtomicFile.scratchPath(near: output)
        _ = try? FileManager.default.removeItem(atPath: scratch)
        try FileManager.default.copyItem(atPath: Self.bad, toPath: scratch)
        var report = OperationReport(
            job: "test", route: "video", outputs: [output], headline: "", lines: [], fields: [], warnings: [],
            check: OutputCheckResult(file: output))
        #expect(throws: ParseError.self) {
            try Operations.finish(&report, scratch: scratch, output: output, inputs: [Self.sampleY4M], strict: false)
        }
        do {
            try Operations.finish(&report, scratch: scratch, output: output, inputs: [Self.sampleY4M], strict: false)
        } catch {
            #expect(error.code == .outputCheckFailed)
            #expect(error.message.contains(errors[0].ruleID), "\(error.message)")
        }
        #expect(!report.check.passed)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    static let sampleY4M = Shells.root + "/Conformance/files/sample_sbs_320x96.y4m"

    /// The same ERRORs in the input: inherited, reported, kept.
    @Test(.needs(.shared("fixtures/mvhevc_96x64_6f_lhvC.mov", "fixtures/mvhevc_96x64_6f_spatial.mov")))
    func inheritedErrorIsReportedNotRefused() throws {
        let r = OutputCheck.run(written: Self.bad, output: "x.mov", inputs: [Self.bad])
        #expect(r.passed)
        #expect(!r.inherited.isEmpty)
        #expect(r.line.contains("inherited from the input"))
    }

    /// `strict`: a source geometry fault refuses the photo conversion, exit 2, nothing written; without it, a warning.
    @Test
    func strictRefusesSourceFaults() throws {
        let dir = try Shells.tempDir("strict")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Shells.sbsPNG(dir + "/in.png")
        var r = ConvertRequest(input: dir + "/in.png", output: dir + "/lax.heic")
        let lax = try Operations.convert(r, spelling: .key)
        try #require(!lax.warnings.isEmpty, "the made pair has no geometry fault to refuse")
        #expect(lax.check.passed)
        r.output = dir + "/strict.heic"
        r.strict = true
        #expect(throws: ParseError.self) { try Operations.convert(r, spelling: .key) }
        #expect(!FileManager.default.fileExists(atPath: dir + "/strict.heic"))
    }

    /// A HEIC named `.png`, a movie named `.jpg`: one refusal, exit 64, the same sentence from the CLI and Python.
    @Test(.needs(.shared("fixtures/pair_plain.heic", "fixtures/pair_ster_cmin_cmex.heic")))
    func outputNameRefusalsAreAlikeEverywhere() throws {
        let dir = try Shells.tempDir("names")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Shells.sbsPNG(dir + "/in.png")
        for (input, output, says) in [
            (dir + "/in.png", dir + "/p.png", "must be named .heic"),
            (Self.sampleY4M, dir + "/v.jpg", "must be named .mov"),
        ] {
            let cli = try Shells.run(try #require(Shells.cli), ["convert", input, "-o", output])
            #expect(cli.status == 64, "\(cli.err)")
            #expect(cli.err.contains(says), "\(cli.err)")
            let py = try Shells.python(
                """
                import spatialmedia as sm
                try:
                    sm.convert(\"\(input)\", \"\(output)\")
                except sm.InvalidArgumentError as e:
                    print(e.message)
                """)
            #expect(py.out.contains(says), "\(py.out) \(py.err)")
            #expect(!FileManager.default.fileExists(atPath: output))
        }
        let combine = try Shells.run(
            try #require(Shells.cli), ["combine", Self.fixtures + "/pair_plain.heic", "-o", dir + "/c.png"])
        #expect(combine.status == 64 && combine.err.contains("must be named .heic"), "\(combine.err)")
        // split: an eye of a photo named like a movie, through the CLI and Python (sm_split): one sentence, 64.
        let photo = Self.fixtures + "/pair_ster_cmin_cmex.heic"
        let split = try Shells.run(
            try #require(Shells.cli), ["split", photo, "--left", dir + "/l.mov", "--right", dir + "/r.png"])
        #expect(split.status == 64 && split.err.contains("must be named .png, .jpg or .heic"), "\(split.err)")
        let pySplit = try Shells.python(
            """
            import spatialmedia as sm
            try:
                sm.split(\"\(photo)\", \"\(dir)/l.mov\", \"\(dir)/r.png\")
            except sm.InvalidArgumentError as e:
                print(e.message)
            """)
        #expect(pySplit.out.contains("must be named .png, .jpg or .heic"), "\(pySplit.out) \(pySplit.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/r.png"))
    }
}
