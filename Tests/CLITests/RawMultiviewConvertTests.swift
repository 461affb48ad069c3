import Foundation
import TestSupport
import Testing

/// Issue 38, item 1: a raw two-layer MV-HEVC stream given to `convert` was refused, pointing at `split --copy` then
/// `assemble` — which cannot copy an inter-layer-predicted layer 1 (x265's multiview output, the common case), so no
/// command made a spatial video of it. It is muxed as it is: both views decode bit-identically to the stream's, one
/// sample per access unit, the file validates; a stream that is not two views (SHVC) is refused with its name.
@Suite struct RawMultiviewConvertTests {
    /// Both views of `path` decoded by FFmpeg ≥ 7.1 (raw YUV 4:2:0, one frame per picture, no rate conversion).
    static func views(_ ffmpeg: String, _ path: String, dir: String, tag: String) throws -> [Data] {
        var args = ["-nostdin", "-v", "error", "-y", "-i", path]
        for v in 0..<2 {
            args += [
                "-map", "0:v:0:view:\(v)", "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p",
                "\(dir)/\(tag)\(v).yuv",
            ]
        }
        let r = try CLI.runProgram(ffmpeg, args)
        guard r.status == 0 else { throw TestSetupError("ffmpeg could not decode \(path): \(r.err)") }
        return try (0..<2).map { v in
            guard let d = CLI.bytes("\(dir)/\(tag)\(v).yuv") else {
                throw TestSetupError("ffmpeg wrote no view \(v) of \(path)")
            }
            return d
        }
    }

    @Test(
        .needs(.shared("fixtures/x265mv_320x240_30f.hevc", "fixtures/mvhevc_96x64_6f.hevc")),
        arguments: [("x265mv_320x240_30f.hevc", 320, 240, 30), ("mvhevc_96x64_6f.hevc", 96, 64, 6)])
    func aTwoLayerStreamIsMuxedAsItIs(_ name: String, _ width: Int, _ height: Int, _ frames: Int) throws {
        let ffmpeg = try TestPrograms.requireFFmpeg()
        let d = try CLI.tempDir("rawmux")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let hevc = CLI.fixture("fixtures/" + name), out = d + "/OUT.mov"
        let r = try CLI.run(["convert", hevc, "-o", out, "--json"])
        #expect(r.status == 0, "\(r.status) \(r.err)")
        let o = try #require(
            try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any], "\(r.out) \(r.err)")
        #expect(
            o["route"] as? String == "mv-hevc-stream" && o["frames"] as? Int == frames
                && o["samples"] as? Int == frames, "\(o)")
        // The fixtures' SEI 176 names view 0 (layer 0) as the left eye; x265 states its timing in the VUI.
        #expect(o["base_eye"] as? String == "left" && (o["eye_source"] as? String)?.contains("SEI 176") == true, "\(o)")
        #expect((o["fps_source"] as? String)?.contains("timing") == true, "\(o)")
        let raw = try Self.views(ffmpeg, hevc, dir: d, tag: "raw")
        let muxed = try Self.views(ffmpeg, out, dir: d, tag: "mov")
        let frameBytes = width * height * 3 / 2
        for v in 0..<2 {
            #expect(raw[v].count == frames * frameBytes, "\(name) raw view \(v): \(raw[v].count / frameBytes) frames")
            #expect(
                muxed[v].count == raw[v].count && muxed[v] == raw[v],
                "\(name) view \(v): \(muxed[v].count / frameBytes) frames muxed, \(raw[v].count / frameBytes) in the stream, identical \(muxed[v] == raw[v])"
            )
        }
        let v = try CLI.run(["validate", out])
        // Exit 1 is warnings only: the source's own geometry (SV-GEOM-020, as on the fixture's reference movie).
        #expect(v.status <= 1 && v.out.contains("result: 0 error(s)"), "\(v.status) \(v.out) \(v.err)")
        // The eye order flips with --swap-eyes (layer 0 becomes the right eye; the hero follows the base layer).
        let s = try CLI.run(["convert", hevc, "-o", d + "/swapped.mov", "--swap-eyes", "--json"])
        let so = try #require(
            try JSONSerialization.jsonObject(with: Data(s.out.utf8)) as? [String: Any], "\(s.out) \(s.err)")
        #expect(s.status == 0 && so["base_eye"] as? String == "right" && so["hero"] as? String == "right", "\(so)")
        let sw = try Self.views(ffmpeg, d + "/swapped.mov", dir: d, tag: "swap")
        #expect(sw == raw, "the coded pictures are the same; only which view is the left eye changes")
    }

    /// A converted file's two layers written back out as a raw stream (our `split --copy` copies only the base layer
    /// of an inter-layer-predicted file, so FFmpeg's stream copy writes it) convert to the same bytes again.
    @Test(.needs(.shared("fixtures/x265mv_320x240_30f.hevc")))
    func aRawStreamFromAConvertedFileRoundTrips() throws {
        let ffmpeg = try TestPrograms.requireFFmpeg()
        let d = try CLI.tempDir("rawmux-rt")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let first = try CLI.run(["convert", CLI.fixture("fixtures/x265mv_320x240_30f.hevc"), "-o", d + "/a.mov"])
        #expect(first.status == 0, "\(first.err)")
        let copy = try CLI.runProgram(
            ffmpeg,
            [
                "-nostdin", "-v", "error", "-y", "-i", d + "/a.mov", "-map", "0:v:0", "-c:v", "copy",
                "-bsf:v", "hevc_mp4toannexb", "-f", "hevc", d + "/back.hevc",
            ])
        #expect(copy.status == 0, "\(copy.err)")
        let info = try CLI.run(["info", d + "/back.hevc"])
        #expect(info.out.contains("layers: 2 (MV-HEVC)"), "\(info.out)")
        let again = try CLI.run(["convert", d + "/back.hevc", "-o", d + "/b.mov"])
        #expect(again.status == 0, "\(again.err)")
        let a = try #require(CLI.bytes(d + "/a.mov")), b = try #require(CLI.bytes(d + "/b.mov"))
        #expect(a == b, "\(a.count) bytes, then \(b.count)")
    }

    /// Options that need a re-encode do not apply; nothing is written.
    @Test(.needs(.shared("fixtures/mvhevc_96x64_6f.hevc")))
    func encodeOptionsAreRefused() throws {
        let d = try CLI.tempDir("rawmux-opts")
        defer { try? FileManager.default.removeItem(atPath: d) }
        for extra in [["--layout", "sbs"], ["--crf", "20"], ["--preset", "ultrafast"]] {
            let r = try CLI.run(["convert", CLI.fixture("fixtures/mvhevc_96x64_6f.hevc"), "-o", d + "/x.mov"] + extra)
            #expect(r.status == 64 && r.err.contains("raw two-layer MV-HEVC stream"), "\(extra): \(r.status) \(r.err)")
            #expect(!CLI.exists(d + "/x.mov"))
        }
    }

    /// SHVC (B020: SNR scalability, B021) has two layers of one view: refused as what it is, never muxed or decoded as
    /// 2D.
    @Test(
        .needs(.shared("corpus/mvhevc-bitstreams/B020.265", "corpus/mvhevc-bitstreams/B021.265")),
        arguments: ["B020.265", "B021.265"])
    func scalableStreamsAreRefusedByName(_ name: String) throws {
        let d = try CLI.tempDir("rawmux-shvc")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let r = try CLI.run(["convert", CLI.fixture("corpus/mvhevc-bitstreams/" + name), "-o", d + "/x.mov"])
        #expect(r.status == 2 && r.err.contains("SHVC") && r.err.contains("not a second eye"), "\(r.status) \(r.err)")
        #expect(!CLI.exists(d + "/x.mov"))
    }
}
