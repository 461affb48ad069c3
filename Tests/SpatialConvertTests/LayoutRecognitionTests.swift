import BinaryIO
import Foundation
import ImageFormats
import MediaDecode
import SpatialConvert
import StereoVision
import TestSupport
import Testing

/// Inputs of issue 38, item 1, each made by the test itself: 2D clips from FFmpeg's test source, and frame-packed
/// clips of a rendered stereo scene (``/StereoVision/SyntheticStereo``: real disparity, planes at 1.6–12 m) packed
/// side by side or top-bottom, in either eye order, opening on black frames, as Y4M or re-encoded by FFmpeg into any
/// container. Reusable by the input matrix.
enum RecognitionInputs {
    /// A 2D clip: FFmpeg's `testsrc2` at `size`, H.264 (MPEG-4 Part 2 for `.ts`/`.avi`), in the container `path` names.
    static func mono(_ path: String, size: String = "1280x720", seconds: Int = 1) throws {
        let codec =
            path.hasSuffix(".ts") || path.hasSuffix(".avi")
            ? ["-c:v", "mpeg2video", "-q:v", "3"] : ["-c:v", "libx264", "-preset", "ultrafast"]
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(),
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=\(size):rate=30", "-t",
                "\(seconds)",
                "-pix_fmt", "yuv420p",
            ] + codec + [path], timeout: 300)
        guard r.status == 0 else { throw TestSetupError("FFmpeg could not make \(path): \(r.err)") }
    }

    /// Frames of a rendered stereo scene, each `eyeWidth`×`eyeHeight` per eye, packed as `layout` (`sbs` or `tb`),
    /// the right eye first when `rightFirst`; the first `black` frames are black (a film that opens on black).
    static func packedFrames(
        eyeWidth: Int, eyeHeight: Int, layout: StereoLayout, rightFirst: Bool = false,
        frames: Int = 8, black: Int = 2, seed: UInt64 = 5
    ) throws -> [Image] {
        var s = SyntheticStereo()
        s.width = eyeWidth; s.height = eyeHeight; s.seed = seed; s.noise = 0
        let (l, r) = s.render()
        var out: [Image] = []
        let w = layout == .sbs ? 2 * eyeWidth : eyeWidth, h = layout == .sbs ? eyeHeight : 2 * eyeHeight
        for i in 0..<frames {
            if i < black {
                let y = [UInt8](repeating: 16, count: w * h), c = [UInt8](repeating: 128, count: (w / 2) * (h / 2))
                out.append(try Image(width: w, height: h, bitDepth: 8, format: .yuv420, planes: .u8([y, c, c])))
                continue
            }
            let first = rightFirst ? r : l, second = rightFirst ? l : r
            var px: [Float] = []
            if layout == .tb {
                px = first.pixels + second.pixels
            } else {
                for y in 0..<eyeHeight {
                    let row: Range<Int> = (y * eyeWidth)..<((y + 1) * eyeWidth)
                    px.append(contentsOf: first.pixels[row])
                    px.append(contentsOf: second.pixels[row])
                }
            }
            let packed = try #require(GrayImage(width: w, height: h, pixels: px))
            out.append(try VideoAlignTests.frame(packed, noiseSeed: UInt64(i)))
        }
        return out
    }

    /// ``packedFrames(eyeWidth:eyeHeight:layout:rightFirst:frames:black:seed:)`` written as a Y4M file at `path` (30
    /// fps).
    static func packedY4M(
        _ path: String, eyeWidth: Int, eyeHeight: Int, layout: StereoLayout, rightFirst: Bool = false,
        frames: Int = 8, black: Int = 2
    ) throws {
        try Y4M.write(
            try packedFrames(
                eyeWidth: eyeWidth, eyeHeight: eyeHeight, layout: layout, rightFirst: rightFirst,
                frames: frames, black: black), fpsNum: 30, to: path)
    }

    /// The same, re-encoded by FFmpeg into the container `path` names (MPEG-2 video in `.ts`, H.264 otherwise), with
    /// no stereo or spherical metadata: an untagged input.
    static func packedViaFFmpeg(
        _ path: String, eyeWidth: Int, eyeHeight: Int, layout: StereoLayout, rightFirst: Bool = false,
        frames: Int = 8, black: Int = 2
    ) throws {
        let y4m = path + ".y4m"
        defer { try? FileManager.default.removeItem(atPath: y4m) }
        try packedY4M(
            y4m, eyeWidth: eyeWidth, eyeHeight: eyeHeight, layout: layout, rightFirst: rightFirst, frames: frames,
            black: black)
        let codec =
            path.hasSuffix(".ts")
            ? ["-c:v", "mpeg2video", "-q:v", "2"] : ["-c:v", "libx264", "-preset", "ultrafast", "-qp", "10"]
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(), ["-nostdin", "-v", "error", "-y", "-i", y4m] + codec + [path],
            timeout: 300)
        guard r.status == 0 else { throw TestSetupError("FFmpeg could not make \(path): \(r.err)") }
    }
}

@Suite("Layout recognition of frame-packed inputs (issue 38)")
struct LayoutRecognitionTests {
    static func dir() -> String {
        let d = NSTemporaryDirectory() + "recog-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    /// The issue's case: `testsrc2` 1280×720 was converted with exit 0 into "640×720 per eye". Its halves, cut either
    /// way, are no stereo pair: refused, naming what was measured and the remedy (a layout, or force); forced, it is
    /// cut side by side.
    @Test func aTwoDimensionalVideoIsRefused() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let mono = d + "/mono.mp4"
        try RecognitionInputs.mono(mono)
        var o = VideoConversionOptions()
        o.recogniseLayout = true
        do {
            _ = try PairRecognition.recogniseVideoLayout(mono, options: o)
            Issue.record("a 2D video was given a layout")
        } catch {
            #expect(error.code == .notRecognised && error.remedy == .giveLayoutOrForce, "\(error)")
            #expect(
                error.message.contains("2D video")
                    && error.message.contains("side by side: a stereo pair on 0 of 4 frames")
                    && error.message.contains("top-bottom: a stereo pair on 0 of 4 frames"), "\(error.message)")
        }
        o.force = true
        let forced = try PairRecognition.recogniseVideoLayout(mono, options: o)
        #expect(forced.layout == .sbs && forced.note.contains("forced"), "\(forced.note)")
    }

    /// Untagged rendered stereo clips, packed side by side or top-bottom, in both eye orders, wide, tall and square,
    /// opening on black: the layout is the one the clip was packed with, whatever its shape (the earlier shape rule
    /// cut the square top-bottom and the wide top-bottom clips side by side).
    @Test(arguments: [
        (StereoLayout.sbs, 320, 240, false), (.sbs, 320, 240, true),  // 640×240, wide
        (.tb, 320, 240, false), (.tb, 320, 240, true),  // 320×480, taller than wide
        (.sbs, 192, 384, false),  // 384×384, square side by side
        (.tb, 384, 192, false), (.tb, 384, 192, true),  // 384×384, square top-bottom
        (.tb, 480, 128, false),  // 480×256, wider than tall but top-bottom
    ])
    func packedClipsAreRecognised(layout: StereoLayout, eyeWidth: Int, eyeHeight: Int, rightFirst: Bool) throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let path = d + "/packed.y4m"
        try RecognitionInputs.packedY4M(
            path, eyeWidth: eyeWidth, eyeHeight: eyeHeight, layout: layout, rightFirst: rightFirst)
        var o = VideoConversionOptions()
        o.recogniseLayout = true
        if rightFirst {
            // The rendered scene has depth: the half-occlusion test shows the right eye first, and nothing states the
            // order, so it is refused rather than written swapped; with the eyes exchanged it is recognised.
            do {
                _ = try PairRecognition.recogniseVideoLayout(path, options: o)
                Issue.record("a right-eye-first clip was taken in the usual order")
            } catch {
                #expect(
                    error.code == .notRecognised && error.remedy == .swapEyesOrForce
                        && error.message.contains("right eye first"), "\(error)")
            }
            o.swapEyes = true
        }
        let r = try PairRecognition.recogniseVideoLayout(path, options: o)
        #expect(r.layout == (layout == .sbs ? .sbs : .tb), "\(r.note)")
        // The black opening frames (0, 1) are not what decides: frames spread across the clip are.
        #expect(r.note.contains("frames 1, 3, 5, 7"), "\(r.note)")
        if !rightFirst { #expect(r.note.contains("taken as the left eye"), "\(r.note)") }
    }

    /// The issue's MPEG-TS: an untagged square top-bottom clip (a 360° camera's, 2:1 eyes) was cut side by side.
    /// Measured, it is top-bottom; the CLI converts it into 384×192 eyes, and refuses the 2D MPEG-TS.
    @Test func squareTopBottomTransportStreamIsTopBottom() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let ts = d + "/tb360.ts"
        try RecognitionInputs.packedViaFFmpeg(ts, eyeWidth: 384, eyeHeight: 192, layout: .tb, frames: 12)
        var o = VideoConversionOptions()
        o.recogniseLayout = true
        let r = try PairRecognition.recogniseVideoLayout(ts, options: o)
        #expect(r.layout == .tb, "\(r.note)")
        let run = try Run.cli(["convert", ts, "-o", d + "/tb.mov", "--preset", "ultrafast", "--no-audio"])
        #expect(run.status == 0, "\(run.err)")
        #expect(
            run.out.contains("384×192 per eye") && run.out.contains("layout: top-bottom, from measuring its frames"),
            "\(run.out)")
        let mono = d + "/mono.ts"
        try RecognitionInputs.mono(mono, size: "640x640")
        let refused = try Run.cli(["convert", mono, "-o", d + "/mono.mov", "--preset", "ultrafast", "--no-audio"])
        #expect(
            refused.status == 2 && refused.err.contains("no stereo pair found")
                && refused.err.contains("--layout sbs|tb, or --force"),
            "\(refused.status) \(refused.err)")
        #expect(!FileManager.default.fileExists(atPath: d + "/mono.mov"))
    }

    /// The issue's first case through the command line: exit 2, nothing written; `--layout sbs` and `--force` convert.
    @Test func theCommandLineRefusesTwoDimensionalVideo() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let mono = d + "/mono.mp4"
        try RecognitionInputs.mono(mono, size: "320x180")
        let r = try Run.cli(["convert", mono, "-o", d + "/x.mov", "--preset", "ultrafast", "--no-audio"])
        #expect(
            r.status == 2 && r.err.contains("it looks like a 2D video")
                && r.err.contains("--layout sbs|tb, or --force"), "\(r.status) \(r.err)")
        #expect(!FileManager.default.fileExists(atPath: d + "/x.mov"))
        let forced = try Run.cli([
            "convert", mono, "-o", d + "/f.mov", "--preset", "ultrafast", "--no-audio", "--force",
        ])
        #expect(
            forced.status == 0 && forced.out.contains("160×180 per eye") && forced.out.contains("converted as forced"),
            "\(forced.err)")
        let told = try Run.cli([
            "convert", mono, "-o", d + "/t.mov", "--preset", "ultrafast", "--no-audio", "--layout", "tb",
        ])
        #expect(told.status == 0 && told.out.contains("320×90 per eye"), "\(told.err)")
    }

    /// A tall untagged top-bottom Y4M (320×480) through the command line: cut top and bottom because it measures so.
    @Test func tallTopBottomY4MIsTopBottom() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let y4m = d + "/tall.y4m"
        try RecognitionInputs.packedY4M(y4m, eyeWidth: 320, eyeHeight: 240, layout: .tb)
        let r = try Run.cli(["convert", y4m, "-o", d + "/tall.mov", "--preset", "ultrafast", "--no-audio"])
        #expect(r.status == 0 && r.out.contains("320×240 per eye"), "\(r.out) \(r.err)")
    }

    /// A photo without a layout is measured both ways too: a top-bottom picture wider than tall (the old shape rule
    /// cut it side by side) is cut top and bottom; a 2D picture is refused.
    @Test func photosAreMeasuredBothWays() throws {
        let frames = try RecognitionInputs.packedFrames(eyeWidth: 480, eyeHeight: 128, layout: .tb, frames: 3, black: 0)
        let whole = frames[2]
        let r = PairRecognition.recogniseLayout([whole])
        #expect(r.layout == .tb, "\(r.summary)")
        let mono = try VideoAlignTests.frame(SyntheticStereo().render().left, noiseSeed: 1)
        let m = PairRecognition.recogniseLayout([mono])
        #expect(m.layout == nil, "\(m.summary)")
    }

    /// A raw two-layer MV-HEVC stream was decoded by FFmpeg as 2D: layer 0 only, cut in halves, 42 of 48 pictures.
    /// The frame-packed decoder refuses it before anything is decoded, naming the conversion that muxes it as it is
    /// (issue 38: `convert X.hevc` alone; RawMultiviewConvertTests); a single-layer stream is not refused.
    @Test(.needs(.shared("fixtures/x265mv_320x240_30f.hevc", "fixtures/mvhevc_96x64_6f.hevc")))
    func aTwoLayerStreamIsNeverDecodedAsTwoDimensional() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        for name in ["x265mv_320x240_30f.hevc", "mvhevc_96x64_6f.hevc"] {
            let hevc = try #require(TestPaths.shared("fixtures/" + name))
            let why = try VideoInputs.multiLayerRefusal(hevc)
            #expect(
                why?.contains("spatial-media convert \(hevc) -o OUT.mov") == true
                    && why?.contains("muxed as it is") == true, "\(String(describing: why))")
            let r = try Run.cli(["convert", hevc, "-o", d + "/x.mov", "--layout", "sbs"])
            #expect(r.status == 64 && r.err.contains("raw two-layer MV-HEVC stream"), "\(name): \(r.status) \(r.err)")
            #expect(!FileManager.default.fileExists(atPath: d + "/x.mov"))
        }
        let single = try TestMedia.x265Encode(
            TestMedia.y4m(width: 64, height: 64, frames: 2), dir: d, name: "one", extra: [])
        #expect(try VideoInputs.multiLayerRefusal(single) == nil)
    }

    /// `info` and `validate` refused the MPEG-TS `convert` reads ("not an ISOBMFF …", exit 2). They read it through
    /// FFmpeg, say so, and agree with `convert` about what it is; `validate --layout tb` measures its pixels.
    @Test func infoAndValidateReadWhatConvertReads() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let ts = d + "/tb360.ts"
        try RecognitionInputs.packedViaFFmpeg(ts, eyeWidth: 384, eyeHeight: 192, layout: .tb, frames: 12)
        let info = try Run.cli(["info", ts])
        #expect(
            info.status == 0 && info.out.contains("read through FFmpeg") && info.out.contains("mpegts container")
                && info.out.contains("384×384") && info.out.contains("stereo packing: none stated"),
            "\(info.status) \(info.out) \(info.err)")
        let json = try Run.cli(["info", "--json", ts])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let video = try #require(o["video"] as? [String: Any])
        #expect(
            o["read_through"] as? String == "ffmpeg" && o["format"] as? String == "mpegts"
                && o["spatial"] as? Bool == false
                && video["width"] as? Int == 384 && video["height"] as? Int == 384 && video["stereo_packing"] is NSNull,
            "\(o)")
        let v = try Run.cli(["validate", ts])
        // validate reads the layout as convert does (SV-PAIR-008), then checks the pixels in it (warnings allowed).
        #expect(
            [0, 1].contains(v.status) && v.out.contains("SV-FFMPEG-001")
                && v.out.contains("read through FFmpeg (mpegts container)")
                && v.out.contains("SV-PAIR-008") && v.out.contains("top-bottom measured"),
            "\(v.status) \(v.out) \(v.err)")
        let vj = try Run.cli(["validate", "--json", "--layout", "tb", ts])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(vj.out.utf8)) as? [String: Any])
        let findings = (report["findings"] as? [[String: Any]] ?? []).compactMap {
            $0["rule"] as? String ?? $0["id"] as? String
        }
        #expect(
            report["kind"] as? String == "ffmpeg-video" && findings.contains("SV-FFMPEG-001")
                && findings.contains { $0.hasPrefix("SV-GEOM") }
                && !findings.contains("SV-GEOM-021"),
            "\(findings) \(vj.err)")
    }
}
