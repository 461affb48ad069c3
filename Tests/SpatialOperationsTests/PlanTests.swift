import BinaryIO
// Issue 28: the planning step — the route from what the input is (never the output's name), every default the
// library's, refusals with one code whatever the shell.
import Foundation
import SpatialConvert
import SpatialOperations
import Testing

@Suite struct PlanTests {
    @Test func routeFollowsTheInputNotTheOutputName() throws {
        let y4m = Shells.sample
        #expect(ConvertRoute.of(ConvertRequest(input: y4m, output: "x.heic")) == .video)
        #expect(ConvertRoute.of(ConvertRequest(input: "-", output: "x.mov")) == .video)
        // A file that is not there routes by the name FFmpeg would read it by.
        #expect(ConvertRoute.of(ConvertRequest(input: "/nonexistent/clip.mkv", output: "x.mov")) == .video)
        #expect(ConvertRoute.of(ConvertRequest(input: "/nonexistent/pair.jpg", output: "x.heic")) == .photo)
        // A Y4M named .png is still a video: refused for its output name as a video, not decoded as an image.
        let dir = try Shells.tempDir("route")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.copyItem(atPath: y4m, toPath: dir + "/clip.png")
        #expect(ConvertRoute.of(ConvertRequest(input: dir + "/clip.png", output: "x.heic")) == .video)
        #expect(throws: ParseError.self) {
            try ConvertPlan.make(ConvertRequest(input: dir + "/clip.png", output: dir + "/x.heic"), spelling: .key)
        }
    }

    /// The defaults are filled from the library's own option values, the same for every shell's spelling.
    @Test func defaultsAreFilledOnceFromTheLibrary() throws {
        var r = ConvertRequest(input: Shells.sample, output: "/tmp/never.mov")
        r.heroEye = .right
        r.frameRate = "24"
        for spelling in [OptionSpelling.flag, .key] {
            let plan = try ConvertPlan.make(r, spelling: spelling)
            if case .video(let o, _) = plan.job {
                let d = VideoConversionOptions()
                #expect(o.stereo.heroEye == .right && o.fps?.num == 24 && o.fps?.den == 1)
                #expect(
                    o.layerSPSForm == d.layerSPSForm && o.preset == d.preset && o.bframes == d.bframes
                        && o.encodePath == d.encodePath)
                #expect(o.eyeQuality == d.eyeQuality)
            } else {
                Issue.record("not a video plan")
            }
        }
    }

    /// Refusals: `invalid-option` (exit 64) with the option spelt as the shell spells it.
    @Test func refusalsSpellTheOptionAsTheShellDoes() {
        var r = ConvertRequest(input: Shells.sample, output: "/tmp/never.mov")
        r.crf = 99
        for (spelling, name) in [(OptionSpelling.flag, "--crf"), (.key, "\"crf\"")] {
            do {
                _ = try ConvertPlan.make(r, spelling: spelling)
                Issue.record("crf 99 accepted")
            } catch {
                #expect(
                    error.code == .invalidOption && error.message == "\(name) must be between 0 and 51",
                    "\(error.message)")
            }
        }
        // A frame rate whose terms do not fit the mux's 32-bit fields (used to trap).
        var big = ConvertRequest(left: "/tmp/a.hevc", right: "/tmp/b.hevc", output: "/tmp/never.mov")
        big.route = .hevcPair
        big.frameRate = "99999999999/99999999999"
        #expect(throws: ParseError.self) { try ConvertPlan.make(big, spelling: .flag) }
        // Reserved hero values are not a hero eye.
        var hero = ConvertRequest(input: Shells.sample, output: "/tmp/never.mov")
        hero.heroEye = .reserved(7)
        #expect(throws: ParseError.self) { try ConvertPlan.make(hero, spelling: .key) }
    }
}
