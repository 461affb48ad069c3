// Issue 42, build 2: a choice is the library's value, read from its text once by the option's row; a refused option
// is its own kind (`invalid-option`) in every shell: the library's error code, the command line's exit 64 with the
// flag named, the C ABI's SM_ERR_INVALID_OPTION (SpatialMediaCTests) and Python's InvalidOptionError.
import BinaryIO
import Foundation
import SpatialConvert
import TestSupport
import Testing

@testable import SpatialOperations

@Suite struct OptionRefusalTests {
    /// The JSON values and the command line's text are read by the same row into the same typed request.
    @Test func choicesAreReadOnceIntoTheLibrarysValues() throws {
        let json = try ConvertRequest(
            input: "in.mov", output: "out.mov",
            values: [
                ("layout", .string("half-tb")), ("preset", .string("fast")), ("hero_eye", .string("right")),
                ("eye_quality", .string("asymmetric:3")), ("segment", .array([.number(2), .number(4)])),
                ("encode_path", .string("assembled")), ("container", .string("mp4")), ("projection", .string("hequ")),
            ])
        var cli = ConvertRequest(input: "in.mov", output: "out.mov")
        cli.layout = try ConvertRequest.layout("half-tb", .flag)
        cli.preset = try ConvertRequest.choice("preset", "fast", .flag)
        cli.heroEye = try ConvertRequest.choice("hero_eye", "right", .flag)
        cli.eyeQuality = try ConvertRequest.choice("eye_quality", "asymmetric:3", .flag)
        cli.segment = try ConvertRequest.choice("segment", "2/4", .flag)
        cli.encodePath = try ConvertRequest.choice("encode_path", "assembled", .flag)
        cli.container = .mp4
        cli.projection = try ConvertRequest.choice("projection", "hequ", .flag)
        #expect(json == cli)
        #expect(json.layout == .halfTB && json.preset == .fast && json.eyeQuality == .asymmetric(crfOffset: 3))
        #expect(json.segment == VideoSegment(index: 2, count: 4))
        // `auto` is no layout: the input's stated or recognised packing.
        #expect(try ConvertRequest.layout("auto", .flag) == nil)
        // Given or not, from the rows (a stereo value too, which the reflection of old could not see).
        #expect(json.isGiven("preset") && !json.isGiven("crf"))
        var v = ConvertRequest(output: "x")
        v.values.baselineMillimetres = 60
        #expect(v.isGiven("baseline_mm") && !v.isGiven("baseline_um"))
    }

    /// A wrong value is refused by the row, naming the allowed values, as `invalid-option`, in either spelling.
    @Test(arguments: [
        ("preset", "warp", "must be one of ultrafast, superfast, veryfast"), ("audio", "mp3", "must be copy or none"),
        ("hero_eye", "up", "must be left or right (or none)"), ("decoder", "gpu", "must be auto or ffmpeg"),
        ("segment", "5/4", "must be K/N with 1 ≤ K ≤ N, e.g. 2/4"), ("layer_sps", "half", "must be multilayer or full"),
    ])
    func wrongChoicesAreRefusedNamingTheAllowedValues(_ key: String, _ text: String, _ says: String) throws {
        do {
            _ = try ConvertRequest(input: "in.mov", output: "out.mov", values: [(key, .string(text))])
            Issue.record("\(key) \(text) accepted")
        } catch {
            #expect(error.code == .invalidOption && error.message.hasPrefix("\"\(key)\" \(says)"), "\(error)")
        }
    }

    /// Unknown keys, wrong types and the plan's range refusals are `invalid-option` too; a missing input is not.
    @Test func otherOptionRefusalsAreInvalidOption() {
        #expect(throws: ParseError(.invalidOption, "")) {
            try ConvertRequest(input: "a", output: "b.mov", values: [("colour", .string("red"))])
        }
        #expect(throws: ParseError(.invalidOption, "")) {
            try ConvertRequest(input: "a", output: "b.mov", values: [("crf", .string("high"))])
        }
        var r = ConvertRequest(input: Shells.sample, output: "/tmp/never.mov")
        r.crf = 99
        #expect(throws: ParseError(.invalidOption, "")) { try ConvertPlan.make(r, spelling: .flag) }
        #expect(throws: ParseError(.invalidArgument, "")) {
            try ConvertPlan.make(ConvertRequest(output: "/tmp/never.mov"), spelling: .flag)
        }
    }

    /// The command line: exit 64 (a usage error) and the flag named with the allowed values; nothing written.
    @Test func commandLineRefusesAChoiceNamingTheFlag() throws {
        let cli = try #require(Shells.cli)
        let dir = try Shells.tempDir("option-refusal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Shells.run(cli, ["convert", Shells.sample, "-o", dir + "/v.mov", "--preset", "warp"])
        #expect(r.status == 64, "\(r.err)")
        #expect(r.err.contains("spatial-media convert: --preset must be one of ultrafast, superfast"), "\(r.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/v.mov"))
    }

    /// Python: InvalidOptionError (an InvalidArgumentError), status SM_ERR_INVALID_OPTION.
    @Test func pythonRaisesInvalidOptionError() throws {
        let py = try Shells.python(
            """
            import spatialmedia as sm
            try:
                sm.convert("\(Shells.sample)", "/nonexistent/v.mov", preset="warp")
            except sm.InvalidOptionError as e:
                assert isinstance(e, sm.InvalidArgumentError) and e.code == sm.Status.INVALID_OPTION, e
                print(e)
            """)
        #expect(py.status == 0, "\(py.err)")
        #expect(py.out.contains("\"preset\" must be one of ultrafast"), "\(py.out)")
    }
}
