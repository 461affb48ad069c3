import BinaryIO
import Codecs
import Foundation
import HEVC
import ISOBMFF
import ImageFormats
import SpatialConvert
import SpatialMedia
import TestSupport
import Testing

/// Helpers for the video conversion tests.
enum VideoFixtures {
    static let sample = packageRoot + "/Conformance/files/sample_sbs_320x96.y4m"
    static let oracleScript = packageRoot + "/Benchmarks/mvhevc_oracle.py"
    /// Apple's VideoToolbox spatial video in the shared corpus.
    static let appleVideo = TestPaths.sharedPath("corpus/spatial-video/stereo_spatial.mp4")
    /// FFmpeg ≥ 7.1 as the product finds it (setup's `.tools/bin/ffmpeg`: the same FFmpeg 9 as the oracle venv's).
    static var ffmpeg9: String? { TestPrograms.ffmpeg }

    static func dir() -> String {
        let d = NSTemporaryDirectory() + "videoconv-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    static func fast() -> VideoConversionOptions {
        var o = VideoConversionOptions()
        o.preset = "ultrafast"
        o.keyint = 10
        o.bframes = 2
        o.encodePath = .assembled  // these tests check the two-encode assembly (MultiviewEncodeTests: the other path)
        return o
    }

    /// Frames of the bundled clip.
    static func sampleFrames(_ n: Int = 30) throws -> [Image] {
        let r = try Y4M.Reader(path: sample)
        var out: [Image] = []
        while out.count < n, let f = try r.next() { out.append(f) }
        return out
    }

    /// Writes raw Y4M bytes (header line + frames) for hand-made bad inputs.
    static func writeY4M(_ path: String, header: String, frames: Int, frameBytes: Int) throws {
        var d = Array((header + "\n").utf8)
        for i in 0..<frames {
            d += Array("FRAME\n".utf8) + [UInt8](repeating: UInt8(truncatingIfNeeded: 16 + i * 7), count: frameBytes)
        }
        try Data(d).write(to: URL(fileURLWithPath: path))
    }

    /// The SBS frame's two halves stacked (top-bottom), plane by plane.
    static func stack(_ f: Image) throws -> Image {
        guard case .u8(let p) = f.planes else { throw ParseError(.unsupported, offset: 0, "8-bit expected") }
        var out: [[UInt8]] = []
        for (i, plane) in p.enumerated() {
            let w = f.planeWidth(i), h = f.planeHeight(i), hw = w / 2
            var top: [UInt8] = [], bottom: [UInt8] = []
            for y in 0..<h { top += plane[(y * w)..<(y * w + hw)]; bottom += plane[(y * w + hw)..<(y * w + w)] }
            out.append(top + bottom)
        }
        return try Image(
            width: f.width / 2, height: f.height * 2, bitDepth: 8, format: .yuv420, planes: .u8(out), colour: f.colour)
    }

    static func exists(_ p: String) -> Bool { FileManager.default.fileExists(atPath: p) }

    /// `ffmpeg -map 0:a -c copy -f md5 -` of a file's audio.
    static func audioMD5(_ ffmpeg: String, _ path: String) throws -> String {
        let (status, out) = try run(ffmpeg, ["-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "md5", "-"])
        #expect(status == 0)
        return out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func expectFailure(
        _ input: VideoInput, _ output: String, _ o: VideoConversionOptions = fast(),
        cancellation: ConversionCancellation? = nil,
        contains needle: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            try VideoConverter.convert(input, to: output, options: o, cancellation: cancellation)
            Issue.record("expected an error containing '\(needle)'", sourceLocation: sourceLocation)
        } catch {
            #expect(error.message.contains(needle), "message: \(error.message)", sourceLocation: sourceLocation)
        }
        #expect(!exists(output), "a file was left at \(output)", sourceLocation: sourceLocation)
        let leftovers =
            (try? FileManager.default.contentsOfDirectory(atPath: (output as NSString).deletingLastPathComponent))?
            .filter { $0.contains(".tmp-") } ?? []
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)", sourceLocation: sourceLocation)
    }
}

@Suite(.serialized) struct VideoConversionTests {
    @Test func convertsBundledClipToSpatialVideo() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let out = d + "/out.mov"
        var o = VideoFixtures.fast()
        o.keepStreamsPrefix = d + "/eye"
        o.layerSPSForm = .full  // byte-exact split below
        o.stereo = try StereoParameters(
            baselineMillimetres: 65, horizontalFieldOfViewDegrees: 70, disparityPercent: 1.5)
        let r = try VideoConverter.convert(.packed(VideoFixtures.sample), to: out, options: o)
        #expect(r.frames == 30 && r.eyeWidth == 160 && r.eyeHeight == 96 && r.fpsNum == 30 && r.fpsDen == 1)
        #expect(r.notes.isEmpty, "\(r.notes)")
        #expect(r.baselineSource == "--baseline")
        #expect(r.layer0Bytes > 0 && r.layer1Bytes > 0)
        print("bundled clip: \(r.lines.joined(separator: " | "))")
        let file = try ISOFile.open(path: out)
        #expect(file.allDiagnostics.isEmpty, "\(file.allDiagnostics)")
        let report = SpatialVideoReport(file)
        #expect(report.classification == .spatialVideo, "\(report.whyNotSpatial)")
        let m = report.videoTracks[0].metadata
        #expect(
            m.baselineMicrometres == 65_000 && m.horizontalFieldOfViewMillidegrees == 70_000
                && m.disparityAdjustment == 150 && m.heroEye == .left)
        // Our `info` says spatial video.
        let info = try MediaInfo.inspect(path: out)
        #expect(info.lines.contains { $0.contains("spatial video (MV-HEVC stereo") }, "\(info.lines)")
        // Splitting our output gives back each eye's single-layer x265 stream byte for byte.
        let layers = try StreamSplitter.split(path: out)
        #expect(layers.accessUnits == 30)
        #expect(layers.left == [UInt8](try Data(contentsOf: URL(fileURLWithPath: d + "/eye-left.hevc"))))
        #expect(layers.right == [UInt8](try Data(contentsOf: URL(fileURLWithPath: d + "/eye-right.hevc"))))
        #expect(layers.left != layers.right)
        // Each eye decodes (libde265) to the clip's halves closely (the encode is lossy).
        let leftFrames = try HEVCDecoder.decode(annexB: layers.left)
        let src = try VideoFixtures.sampleFrames(1)[0]
        #expect(leftFrames.count == 30)
        let psnr = try ImageOps.psnr(leftFrames[0], try ImageOps.crop(src, x: 0, y: 0, width: 160, height: 96))
        #expect(psnr > 30, "left eye PSNR \(psnr)")
    }

    @Test func heroRightMakesRightTheBaseLayerAndOtherLayouts() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        var o = VideoFixtures.fast()
        o.layerSPSForm = .full
        o.stereo.heroEye = .right
        o.keepStreamsPrefix = d + "/eye"
        let out = d + "/hero.mov"
        try VideoConverter.convert(.packed(VideoFixtures.sample), to: out, options: o)
        let layers = try StreamSplitter.split(path: out)
        // Layer 0 is the right eye. (StreamSplitter reads SEI 176 only from samples, not from hvcC, so its
        // baseIsLeft flag is not checked here; FFmpeg 9 maps the views correctly, see Specs/conversion.md.)
        let base = layers.base == [UInt8](try Data(contentsOf: URL(fileURLWithPath: d + "/eye-right.hevc")))
        let second = layers.second == [UInt8](try Data(contentsOf: URL(fileURLWithPath: d + "/eye-left.hevc")))
        #expect(base && second)
        #expect(SpatialVideoReport(try ISOFile.open(path: out)).videoTracks[0].metadata.heroEye == .right)
        // Top-bottom: the same eyes stacked.
        let frames = try VideoFixtures.sampleFrames(6)
        let tb = d + "/tb.y4m"
        try Y4M.write(try frames.map { f in try VideoFixtures.stack(f) }, to: tb)
        var t = VideoFixtures.fast()
        t.layout = .tb
        let r = try VideoConverter.convert(.packed(tb), to: d + "/tb.mov", options: t)
        #expect(r.frames == 6 && r.eyeWidth == 160 && r.eyeHeight == 96)
        // Half-width SBS: eyes stretched back to 320 wide.
        t.layout = .halfSBS
        let h = try VideoConverter.convert(.packed(VideoFixtures.sample), to: d + "/half.mov", options: t)
        #expect(h.eyeWidth == 320 && h.eyeHeight == 96 && h.notes.contains { $0.contains("stretched") })
        // Two files, and odd total width (last column dropped, said so).
        let l = d + "/l.y4m", rr = d + "/r.y4m"
        try Y4M.write(try frames.map { try ImageOps.crop($0, x: 0, y: 0, width: 160, height: 96) }, to: l)
        try Y4M.write(try frames.map { try ImageOps.crop($0, x: 160, y: 0, width: 160, height: 96) }, to: rr)
        let p = try VideoConverter.convert(
            .pair(left: l, right: rr), to: d + "/pair.mov", options: VideoFixtures.fast())
        #expect(p.frames == 6 && p.eyeWidth == 160)
        let odd = d + "/odd.y4m"
        try VideoFixtures.writeY4M(
            odd, header: "YUV4MPEG2 W321 H96 F30:1 Ip C420jpeg", frames: 3, frameBytes: 321 * 96 + 2 * 161 * 48)
        let oddReport = try VideoConverter.convert(.packed(odd), to: d + "/odd.mov", options: VideoFixtures.fast())
        #expect(
            oddReport.eyeWidth == 160 && oddReport.notes.contains { $0.contains("odd width 321") }, "\(oddReport.notes)"
        )
    }

    /// Issue 40: a 10-bit input gives a 10-bit spatial video (two Main 10 layers) by default; `bitDepth` 8 rounds it to
    /// 8-bit Multiview Main, as every 10-bit input was before, with a note.
    @Test func tenBitInputKeepsTenBitsUnlessEightAreAsked() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let frames = try VideoFixtures.sampleFrames(4).map { try ColourConversion.changeDepth($0, to: 10) }
        let ten = d + "/ten.y4m"
        try Y4M.write(frames, to: ten)
        let r = try VideoConverter.convert(.packed(ten), to: d + "/ten.mov", options: VideoFixtures.fast())
        #expect(r.frames == 4)
        #expect(r.notes.contains { $0.contains("10-bit input kept: both layers Main 10") }, "\(r.notes)")
        let entry = try #require(try ISOFile.open(path: d + "/ten.mov").tracks.first?.sampleEntries.first)
        let hvcC = try HEVCDecoderConfigurationRecord(
            parsing: try #require(entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record))
        #expect(hvcC.bitDepthLumaMinus8 == 2 && hvcC.profileIdc == 2)
        var eight = VideoFixtures.fast()
        eight.bitDepth = 8
        let r8 = try VideoConverter.convert(.packed(ten), to: d + "/ten8.mov", options: eight)
        #expect(r8.notes.contains { $0.contains("10-bit input rounded to 8 bits (--bit-depth 8)") }, "\(r8.notes)")
        #expect(SpatialVideoReport(try ISOFile.open(path: d + "/ten8.mov")).classification == .spatialVideo)
    }

    @Test func badInputsGiveClearMessagesAndNoFile() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let out = d + "/bad.mov"
        let fb = 320 * 96 * 3 / 2
        // Odd eye width: 322 → two 161-pixel eyes.
        try VideoFixtures.writeY4M(
            d + "/w322.y4m", header: "YUV4MPEG2 W322 H96 F30:1 Ip C420jpeg", frames: 2,
            frameBytes: 322 * 96 + 2 * 161 * 48)
        VideoFixtures.expectFailure(.packed(d + "/w322.y4m"), out, contains: "odd column")
        // 4:2:2.
        try VideoFixtures.writeY4M(
            d + "/422.y4m", header: "YUV4MPEG2 W320 H96 F30:1 Ip C422", frames: 2, frameBytes: 320 * 96 * 2)
        VideoFixtures.expectFailure(.packed(d + "/422.y4m"), out, contains: "4:2:2")
        // Truncated: the bundled clip cut in the middle of frame 3.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: VideoFixtures.sample))
        try bytes.prefix(50 + 3 * (fb + 6) + 1000).write(to: URL(fileURLWithPath: d + "/cut.y4m"))
        VideoFixtures.expectFailure(.packed(d + "/cut.y4m"), out, contains: "cut short")
        // Zero frames.
        try VideoFixtures.writeY4M(
            d + "/empty.y4m", header: "YUV4MPEG2 W320 H96 F30:1 Ip C420jpeg", frames: 0, frameBytes: 0)
        VideoFixtures.expectFailure(.packed(d + "/empty.y4m"), out, contains: "zero frames")
        // Two files: sizes, rates, frame counts.
        let eye = 160 * 96 * 3 / 2
        try VideoFixtures.writeY4M(
            d + "/a.y4m", header: "YUV4MPEG2 W160 H96 F30:1 Ip C420jpeg", frames: 3, frameBytes: eye)
        try VideoFixtures.writeY4M(
            d + "/b.y4m", header: "YUV4MPEG2 W192 H96 F30:1 Ip C420jpeg", frames: 3, frameBytes: 192 * 96 * 3 / 2)
        try VideoFixtures.writeY4M(
            d + "/c.y4m", header: "YUV4MPEG2 W160 H96 F25:1 Ip C420jpeg", frames: 3, frameBytes: eye)
        try VideoFixtures.writeY4M(
            d + "/e.y4m", header: "YUV4MPEG2 W160 H96 F30:1 Ip C420jpeg", frames: 5, frameBytes: eye)
        VideoFixtures.expectFailure(.pair(left: d + "/a.y4m", right: d + "/b.y4m"), out, contains: "different sizes")
        VideoFixtures.expectFailure(
            .pair(left: d + "/a.y4m", right: d + "/c.y4m"), out, contains: "different frame rates")
        VideoFixtures.expectFailure(
            .pair(left: d + "/a.y4m", right: d + "/e.y4m"), out, contains: "different frame counts")
        // Unwritable output (missing directory) fails before any encoding.
        VideoFixtures.expectFailure(.packed(VideoFixtures.sample), "/nonexistent-dir/x.mov", contains: "does not exist")
        // A non-Y4M, non-MP4 input needs ffmpeg: with none available, a message that says so.
        try Data("not a video".utf8).write(to: URL(fileURLWithPath: d + "/clip.mkv"))
        var noFF = VideoFixtures.fast()
        noFF.ffmpeg = "/nonexistent/ffmpeg"
        VideoFixtures.expectFailure(.packed(d + "/clip.mkv"), out, noFF, contains: "needs FFmpeg")
        // Missing input.
        VideoFixtures.expectFailure(.packed(d + "/missing.y4m"), out, contains: "cannot open")
        // Cancellation (Ctrl-C): nothing written.
        let c = ConversionCancellation()
        c.cancel()
        VideoFixtures.expectFailure(.packed(VideoFixtures.sample), out, cancellation: c, contains: "cancelled")
        do {
            try VideoConverter.convert(
                .packed(VideoFixtures.sample), to: out, options: VideoFixtures.fast(), cancellation: c)
            Issue.record("expected cancellation")
        } catch {
            #expect(error.code == .cancelled && error.offset == nil, "cancellation is its own error, not I/O: \(error)")
        }
        // An existing file at OUT survives a failed conversion unchanged.
        try Data("keep".utf8).write(to: URL(fileURLWithPath: out))
        do {
            try VideoConverter.convert(.packed(d + "/422.y4m"), to: out, options: VideoFixtures.fast());
            Issue.record("expected failure")
        } catch {}
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data("keep".utf8))
    }

    /// FFmpeg 9 and PyAV decode both views bit-identically to each eye's own stream; metadata; libmediainfo.
    @Test(.needs(.oracles)) func oraclesDecodeBothViewsBitExactly() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let out = d + "/spatial.mov"
        var o = VideoFixtures.fast()
        o.keepStreamsPrefix = d + "/eye"
        o.stereo = try StereoParameters(
            baselineMillimetres: 64, horizontalFieldOfViewDegrees: 63.5, disparityPercent: 2)
        try VideoConverter.convert(.packed(VideoFixtures.sample), to: out, options: o)
        let (status, text) = try run(
            try #require(oraclePython), [VideoFixtures.oracleScript, out, d + "/eye-left.hevc", d + "/eye-right.hevc"])
        #expect(status == 0)
        let j = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let single = try #require(j["single"] as? [String: Any])
        let l = try #require(single["left"] as? [String]), r = try #require(single["right"] as? [String])
        #expect(l.count == 30 && r.count == 30 && l != r)
        let ff = try #require(j["ffmpeg9"] as? [String: Any])
        #expect(ff["left"] as? [String] == l, "FFmpeg 9 left view differs")
        #expect(ff["right"] as? [String] == r, "FFmpeg 9 right view differs")
        let pyav = try #require(j["pyav"] as? [String: Any])
        #expect(pyav["base"] as? [String] == l, "PyAV base view differs: \(pyav["error"] ?? "")")
        #expect(pyav["second"] as? [String] == r, "PyAV second view differs")
        let info = (j["ffmpeg_info"] as? [String] ?? []).joined(separator: "\n")
        for s in [
            "primary eye: left", "baseline: 64000", "horizontal_disparity_adjustment: 0.0200",
            "horizontal_field_of_view: 63.500", "Spherical Mapping: rectilinear",
        ] {
            #expect(info.contains(s), "FFmpeg 9 does not print '\(s)': \(info)")
        }
        let mi = try #require(j["mediainfo"] as? [String: Any])
        #expect((mi["format_profile"] as? String)?.hasPrefix("Multiview Main") == true, "\(mi)")
        #expect("\(mi["count_of_views"] ?? "")" == "2", "\(mi)")
        #expect(mi["codec_configuration_box"] as? String == "hvcC+lhvC", "\(mi)")
        print(
            "video oracles: 30 frames per view bit-identical (FFmpeg 9, PyAV); \(info.replacingOccurrences(of: "\n", with: " | ")); \(mi)"
        )
    }

    /// An MP4 with HEVC video and AAC audio (made by FFmpeg 9): decoded by libde265, audio copied bit for bit;
    /// the same clip as H.264 goes through the ffmpeg input path; --audio-from adds it to a Y4M conversion.
    @Test func audioIsCarriedOverBitIdentically() throws {
        let ff = try TestPrograms.requireFFmpeg()
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let common = [
            "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x96:rate=30:duration=1", "-f", "lavfi", "-i",
            "sine=frequency=440:duration=1",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "96k", "-shortest",
        ]
        let hevcIn = d + "/in_hevc.mp4", avcIn = d + "/in_avc.mov"
        #expect(try run(ff, common + ["-c:v", "libx265", "-x265-params", "log-level=error:keyint=10", hevcIn]).0 == 0)
        #expect(try run(ff, common + ["-c:v", "libx264", avcIn]).0 == 0)
        let inputMD5 = try VideoFixtures.audioMD5(ff, hevcIn)
        #expect(!inputMD5.isEmpty)

        var o = VideoFixtures.fast()
        o.ffmpeg = ff
        let out1 = d + "/hevc.mov"
        let r1 = try VideoConverter.convert(.packed(hevcIn), to: out1, options: o)
        #expect(r1.source.contains("libde265"), "\(r1.source)")
        #expect(r1.frames == 30 && r1.audioTracks.count == 1, "\(r1.audioTracks)")
        #expect(try VideoFixtures.audioMD5(ff, out1) == inputMD5)
        let f1 = try ISOFile.open(path: out1)
        #expect(f1.allDiagnostics.isEmpty)
        #expect(SpatialVideoReport(f1).classification == .spatialVideo)
        #expect(f1.tracks.map { $0.trackID } == [1, 2])

        // H.264 → ffmpeg input path; faststart layout (moov first) shifts every chunk offset.
        o.faststart = true
        let out2 = d + "/avc.mov"
        let r2 = try VideoConverter.convert(.packed(avcIn), to: out2, options: o)
        #expect(r2.notes.contains { $0.contains("decoded by ffmpeg") }, "\(r2.notes)")
        #expect(r2.frames == 30)
        #expect(try VideoFixtures.audioMD5(ff, out2) == (try VideoFixtures.audioMD5(ff, avcIn)))
        #expect(SpatialVideoReport(try ISOFile.open(path: out2)).classification == .spatialVideo)

        // Y4M + --audio-from.
        var y = VideoFixtures.fast()
        y.audioFrom = hevcIn
        let out3 = d + "/y4m_audio.mov"
        try VideoConverter.convert(.packed(VideoFixtures.sample), to: out3, options: y)
        #expect(try VideoFixtures.audioMD5(ff, out3) == inputMD5)
        // The views still decode as video with FFmpeg 9 (both layers) after tracks were added.
        let (st, md5s) = try run(ff, ["-v", "error", "-i", out3, "-map", "0:v:0:vpos:right", "-f", "framemd5", "-"])
        #expect(st == 0 && md5s.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 30)
        // --audio none drops it.
        y.audio = .none
        let r4 = try VideoConverter.convert(.packed(hevcIn), to: d + "/noaudio.mov", options: y)
        #expect(r4.audioTracks.isEmpty)
    }
}
