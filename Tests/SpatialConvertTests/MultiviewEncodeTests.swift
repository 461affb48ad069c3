import BinaryIO
import Codecs
import Foundation
import HEVC
import ImageFormats
import SpatialMedia
import TestSupport
import Testing

@testable import SpatialConvert

/// Issue 23: the multiview encode path (one multiview libx265 for both eyes). The choice of path and its fallbacks are
/// tested everywhere; the encode itself where the probe finds a multiview libx265 with our binding (`scripts/setup.sh`
/// builds one into the tools directory; CI runs set-up, so there it runs).
@Suite struct MultiviewEncodeTests {
    static let found = X265MultiviewProbe(
        library: "/x/libx265.so.216", loaded: true, version: "4.1", multiview: true,
        summary: "/x/libx265.so.216 (x265 4.1) supports multiview (num-views 2)")
    static let none = X265MultiviewProbe(
        library: "libx265.so.199", loaded: true, version: "3.5", multiview: false,
        summary: "libx265.so.199 (x265 3.5) has no multiview support")

    @Test func routeAndFallback() throws {
        var o = VideoConversionOptions()
        // No multiview library: the assembly, silently for auto, an error when multiview is asked.
        #expect(try VideoConverter.encodeRoute(o, probe: Self.none) == (false, [String]()))
        o.encodePath = .multiview
        #expect(throws: ParseError.self) { try VideoConverter.encodeRoute(o, probe: Self.none) }
        // A multiview library: used by auto with the default eye quality (equal there; issue 30), no note.
        o.encodePath = .auto
        #expect(o.eyeQuality == .automatic)
        #expect(try VideoConverter.encodeRoute(o, probe: Self.found) == (true, [String]()))
        o.eyeQuality = .equal
        #expect(try VideoConverter.encodeRoute(o, probe: Self.found) == (true, [String]()))
        o.encodePath = .assembled
        #expect(try VideoConverter.encodeRoute(o, probe: Self.found) == (false, [String]()))
        // Options that need one encoder per eye: auto falls back and says why; multiview refuses.
        for edit in [
            { (o: inout VideoConversionOptions) in o.rateControl = .bitrate(kbps: 800) },
            { (o: inout VideoConversionOptions) in o.maxBitrateKbps = 900 },
            { (o: inout VideoConversionOptions) in o.publishing = .visionPro },
            { (o: inout VideoConversionOptions) in o.segment = VideoSegment.parse("1/2") },
            { (o: inout VideoConversionOptions) in o.eyeQuality = .asymmetric(crfOffset: 3) },
            { (o: inout VideoConversionOptions) in o.eyeQuality = EyeQuality(argument: "asymmetric") ?? .equal },
        ] {
            var a = VideoConversionOptions()
            edit(&a)
            let fb = try VideoConverter.encodeRoute(a, probe: Self.found)
            #expect(
                !fb.multiview && fb.notes.count == 1 && fb.notes[0].hasPrefix("multiview libx265 not used"),
                "\(fb.notes)")
            a.encodePath = .multiview
            #expect(throws: ParseError.self) { try VideoConverter.encodeRoute(a, probe: Self.found) }
        }
        // The report line names the path.
        #expect(VideoConverter.encodePathText(Self.none, multiview: false).hasPrefix("two single-layer x265 encodes"))
        #expect(
            VideoConverter.encodePathText(Self.found, multiview: false).contains(
                "supports multiview (num-views 2), not used"))
        #expect(VideoConverter.encodePathText(Self.found, multiview: true).hasPrefix("multiview x265 encode"))
    }

    /// A file that is not our binding (a missing file, x265 3.5 itself) is refused by the encoder itself (the
    /// conversion then never reaches it: the probe said no).
    @Test func encoderRefusesOtherLibraries() throws {
        let s = HEVCEncoderSettings()
        #expect(throws: ParseError.self) {
            try X265MultiviewEncoder(library: "/nonexistent/libx265.so", width: 64, height: 64, settings: s)
        }
        do {
            _ = try X265MultiviewEncoder(library: "libx265.so.199", width: 64, height: 64, settings: s)
            Issue.record("x265 3.5 accepted as the multiview binding")
        } catch {
            #expect(
                error.message.contains("not spatial-media's x265 binding")
                    || error.message.contains("cannot be loaded"), "\(error.message)")
        }
    }

    static var multiviewLibrary: Bool { X265MultiviewProbe.current.multiview }

    /// The bundled clip through the multiview library: both views decode (FFmpeg 9) close to their source eyes, layer 1
    /// uses inter-layer prediction and costs well under layer 0, the metadata is ours, the hero eye is layer 0.
    @Test(
        .needs(
            Requirement("no multiview libx265 with our binding (bash scripts/setup.sh builds one)") {
                MultiviewEncodeTests.multiviewLibrary
            }), arguments: [true, false])
    func bundledClipThroughMultiviewLibrary(heroLeft: Bool) throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        var o = VideoConversionOptions()
        o.audio = .none
        o.encodePath = .multiview
        o.stereo.heroEye = heroLeft ? .left : .right
        let out = d + "/mv.mov"
        let r = try VideoConverter.convert(.packed(VideoFixtures.sample), to: out, options: o)
        #expect(r.encodePath.hasPrefix("multiview x265 encode"), "\(r.encodePath)")
        #expect(r.frames == 30 && r.layer0Bytes > 0 && r.layer1Bytes > 0)
        #expect(r.layer1ToLayer0 < 0.95, "layer 1 / layer 0 = \(r.layer1ToLayer0)")  // two independent encodes: ≈ 0.99
        // The movie: two layers, layer 1 predicted from layer 0, our metadata.
        let text = try MediaInfo.inspect(path: out).lines.joined(separator: "\n")
        #expect(text.contains("layers: 2 (MV-HEVC)") && text.contains("inter-layer prediction used"), "\(text)")
        #expect(text.contains("hero eye: \(heroLeft ? "left" : "right")"), "\(text)")
        // Both views through FFmpeg 9 against the source eyes.
        let ff = try TestPrograms.requireFFmpeg()
        let src = try VideoFixtures.sampleFrames(30)
        for (eye, x) in [("left", 0), ("right", 160)] {
            let raw = d + "/\(eye).yuv"
            let (status, msg) = try run(
                ff,
                [
                    "-v", "error", "-y", "-i", out, "-map", "0:v:0:vpos:\(eye)", "-f", "rawvideo", "-pix_fmt",
                    "yuv420p", raw,
                ])
            #expect(status == 0, "\(msg)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
            let frame = 160 * 96 * 3 / 2
            #expect(bytes.count == 30 * frame, "\(eye): \(bytes.count) bytes")
            var sum = 0.0
            for i in 0..<min(30, bytes.count / frame) {
                let y = Array(bytes[(i * frame)..<(i * frame + 160 * 96)])
                let u = Array(bytes[(i * frame + 160 * 96)..<(i * frame + 160 * 96 * 5 / 4)])
                let v = Array(bytes[(i * frame + 160 * 96 * 5 / 4)..<((i + 1) * frame)])
                let img = try Image(width: 160, height: 96, bitDepth: 8, format: .yuv420, planes: .u8([y, u, v]))
                sum += try ImageOps.psnr(img, try ImageOps.crop(src[i], x: x, y: 0, width: 160, height: 96))
            }
            #expect(sum / 30 > 34, "\(eye) eye: mean PSNR \(sum / 30) dB")
        }
    }
}

extension MultiviewEncodeTests {
    static var frameParallelLibrary: Bool {
        X265MultiviewProbe.current.multiview && X265MultiviewProbe.current.frameParallel
    }

    /// Issue 39: where the library set-up builds is patched (smx_frame_parallel), the multiview encoder runs a fixed
    /// ``VideoConverter/multiviewFrameThreads`` frame threads, and the same request writes the same bytes every time
    /// (the unpatched x265 4.1 differed from run to run with two); an unpatched library keeps one.
    @Test(
        .needs(
            Requirement(
                "the multiview libx265 is not the patched, frame-parallel one (bash scripts/setup.sh builds it)"
            ) {
                MultiviewEncodeTests.frameParallelLibrary
            }))
    func frameParallelEncodesAreDeterministic() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        var o = VideoConversionOptions()
        o.audio = .none
        o.encodePath = .multiview
        var outputs: [[UInt8]] = []
        for k in 0..<3 {
            let out = d + "/mv\(k).mov"
            let r = try VideoConverter.convert(.packed(VideoFixtures.sample), to: out, options: o)
            #expect(r.encoder.contains("frame-threads \(VideoConverter.multiviewFrameThreads)"), "\(r.encoder)")
            outputs.append([UInt8](try Data(contentsOf: URL(fileURLWithPath: out))))
        }
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2], "sizes \(outputs.map(\.count))")
    }

    @Test func frameThreadsFollowTheLibraryNotTheMachine() throws {
        var o = VideoConversionOptions()
        #expect(!Self.found.frameParallel)
        #expect(VideoConverter.frameThreads(o, probe: Self.found) == 1)
        var patched = Self.found
        patched.frameParallel = true
        #expect(VideoConverter.frameThreads(o, probe: patched) == VideoConverter.multiviewFrameThreads)
        o.frameThreadsPerEye = 3
        #expect(
            VideoConverter.frameThreads(o, probe: patched) == 3
                && VideoConverter.frameThreads(o, probe: Self.found) == 3)
    }
}
