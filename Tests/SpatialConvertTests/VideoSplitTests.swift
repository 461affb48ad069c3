import BinaryIO
import Foundation
import ISOBMFF
import MediaDecode
import SpatialConvert
import SpatialMedia
import TestSupport
import Testing

/// `split` of spatial videos: Apple's and x265 multiview's (inter-layer predicted) and ours (independent layers),
/// checked against FFmpeg's own decode of each view.
@Suite struct VideoSplitTests {
    /// FFmpeg ≥ 7.1 as the product finds it (the project's tools directory after `scripts/setup.sh`).
    static let ffmpeg: FFmpegTool? = FFmpeg.locate(.mvhevcViews)
    static let apple = sharedFile("corpus/spatial-video/stereo_spatial.mp4")
    static let x265mv = sharedFile("fixtures/x265mv_320x240_30f_spatial.mov")

    /// PSNR (average, dB) of `crop` of `test` against `reference` (a stream specifier of `source`).
    static func psnr(_ ff: String, test: String, crop: String?, source: String, view: String) throws -> Double {
        let graph = "[0:v]\(crop.map { "crop=\($0)," } ?? "")setsar=1[a];[1:v:0:vpos:\(view)]setsar=1[b];[b][a]psnr"
        let text = try Run.program(
            ff, ["-hide_banner", "-i", test, "-i", source, "-filter_complex", graph, "-f", "null", "-"]
        ).err
        guard let r = text.range(of: "average:") else { return -1 }
        let num = text[r.upperBound...].prefix { "0123456789.inf".contains($0) }
        return num == "inf" ? 99 : Double(num) ?? -1
    }

    static func frameMD5s(_ ff: String, _ path: String, map: String = "0:v:0") throws -> [String] {
        let (st, out) = try run(ff, ["-v", "error", "-i", path, "-map", map, "-f", "framemd5", "-"])
        #expect(st == 0)
        return out.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
            String($0.split(separator: ",").last ?? "")
        }
    }

    @Test(.needs(.shared("corpus/spatial-video/stereo_spatial.mp4", "fixtures/x265mv_320x240_30f_spatial.mov")))
    func interLayerPredictedFilesSplitToEveryLayoutWithTheRightEyes() throws {
        let ff = try TestPrograms.requireFFmpeg()
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        for src in [Self.apple, Self.x265mv].compactMap({ $0 }) {
            let info = try VideoSplitter.inspect(src)
            #expect(info.interLayerPrediction)
            let width = try #require(SpatialVideoReport(try ISOFile.open(path: src)).primary).width
            // Side by side: left half = left view, right half = right view, and not the other way round.
            let sbs = d + "/sbs.mp4"
            let r = try VideoSplitter.split(src, options: VideoSplitOptions(target: .sideBySide(sbs)))
            #expect(r.frames == info.frames && r.interLayerPrediction)
            let h = "ih"
            let leftPSNR = try Self.psnr(ff, test: sbs, crop: "\(width):\(h):0:0", source: src, view: "left")
            let rightPSNR = try Self.psnr(ff, test: sbs, crop: "\(width):\(h):\(width):0", source: src, view: "right")
            let swapped = try Self.psnr(ff, test: sbs, crop: "\(width):\(h):0:0", source: src, view: "right")
            #expect(leftPSNR >= 40 && rightPSNR >= 40, "\(src): \(leftPSNR) / \(rightPSNR) dB")
            #expect(swapped < leftPSNR - 3, "\(src): eyes look swapped (\(swapped) vs \(leftPSNR) dB)")
            #expect(try Self.frameMD5s(ff, sbs).count == info.frames)
            // Over-under and one file per eye.
            let ou = d + "/ou.mov"
            try VideoSplitter.split(src, options: VideoSplitOptions(target: .overUnder(ou)))
            #expect(try Self.psnr(ff, test: ou, crop: "iw:ih/2:0:ih/2", source: src, view: "right") >= 40)
            let l = d + "/l.mp4", rr = d + "/r.mov"
            try VideoSplitter.split(src, options: VideoSplitOptions(target: .eyes(left: l, right: rr)))
            #expect(try Self.psnr(ff, test: l, crop: nil, source: src, view: "left") >= 40)
            #expect(try Self.psnr(ff, test: rr, crop: nil, source: src, view: "right") >= 40)
            // The base-layer eye copies losslessly; the predicted eye cannot be copied.
            let base = d + "/base.hevc"
            var copy = VideoSplitOptions(target: .eyes(left: base, right: nil))
            copy.copy = true
            try VideoSplitter.split(src, options: copy)
            #expect(try Self.frameMD5s(ff, base) == Self.frameMD5s(ff, src, map: "0:v:0:vpos:left"))
            copy.target = .eyes(left: nil, right: d + "/never.hevc")
            #expect(throws: ParseError.self) { try VideoSplitter.split(src, options: copy) }
            #expect(!FileManager.default.fileExists(atPath: d + "/never.hevc"))
        }
    }

    /// Our own independent-layer output: `copy` gives both eyes bit-exactly; the re-encode carries the audio; an
    /// FFmpeg older than 7.1 is enough because the layers are split before decoding.
    @Test func ownFilesCopyBitExactlyAndCarryAudio() throws {
        let ff = try TestPrograms.requireFFmpeg()
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = d + "/in.mp4"
        #expect(
            try run(
                ff,
                [
                    "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=320x96:rate=30:duration=0.5", "-f",
                    "lavfi", "-i",
                    "sine=frequency=440:duration=0.5", "-pix_fmt", "yuv420p", "-c:v", "libx264", "-c:a", "aac",
                    "-shortest", input,
                ]
            ).0 == 0)
        var o = VideoFixtures.fast()
        o.ffmpeg = ff
        let spatial = d + "/spatial.mov"
        o.keepStreamsPrefix = d + "/ks"
        try VideoConverter.convert(.packed(input), to: spatial, options: o)
        var copy = VideoSplitOptions(target: .eyes(left: d + "/l.hevc", right: d + "/r.mp4"))
        copy.copy = true
        // Copies are raw streams; a container output is refused before anything is written.
        #expect { try VideoSplitter.split(spatial, options: copy) } throws: {
            ($0 as? ParseError)?.code == .invalidArgument
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/l.hevc"))
        copy.target = .eyes(left: d + "/l.hevc", right: d + "/r.hevc")
        let r = try VideoSplitter.split(spatial, options: copy)
        #expect(!r.interLayerPrediction)
        #expect(try Self.frameMD5s(ff, d + "/l.hevc") == Self.frameMD5s(ff, d + "/ks-left.hevc"))
        #expect(try Self.frameMD5s(ff, d + "/r.hevc") == Self.frameMD5s(ff, d + "/ks-right.hevc"))
        let sbs = d + "/sbs.mp4"
        let s = try VideoSplitter.split(spatial, options: VideoSplitOptions(target: .sideBySide(sbs)))
        #expect(s.audioTracks == 1)
        let out = try ISOFile.open(path: sbs)
        #expect(out.tracks.contains { $0.handler == "soun" })
        #expect(try Self.psnr(ff, test: sbs, crop: "160:96:160:0", source: spatial, view: "right") >= 40)
    }

    @Test func refusesWhatCannotBeSplit() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        // A photo, a missing file, and half resolution for one file per eye.
        if let photo = sharedFile("corpus/spatial-photo/vision-pro.HEIC") {
            #expect(throws: ParseError.self) {
                try VideoSplitter.split(photo, options: VideoSplitOptions(target: .sideBySide(d + "/x.mp4")))
            }
        }
        #expect(throws: ParseError.self) {
            try VideoSplitter.split(d + "/missing.mov", options: VideoSplitOptions(target: .sideBySide(d + "/x.mp4")))
        }
        // The output type follows the extension.
        #expect {
            try VideoSplitter.split(d + "/missing.mov", options: VideoSplitOptions(target: .sideBySide(d + "/x.jpg")))
        } throws: {
            ($0 as? ParseError)?.code == .invalidArgument
        }
        var half = VideoSplitOptions(target: .eyes(left: d + "/l.mp4", right: nil))
        half.half = true
        #expect { try VideoSplitter.split(d + "/missing.mov", options: half) } throws: {
            ($0 as? ParseError)?.code == .invalidArgument
        }
        // A single-layer HEVC movie: one view, nothing to split.
        if let ff = Self.ffmpeg?.path {
            let mono = d + "/mono.mp4"
            #expect(
                try run(
                    ff,
                    [
                        "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=30:duration=0.2", "-c:v",
                        "libx265", "-tag:v", "hvc1",
                        "-x265-params", "log-level=error", mono,
                    ]
                ).0 == 0)
            #expect {
                try VideoSplitter.split(mono, options: VideoSplitOptions(target: .sideBySide(d + "/x.mp4")))
            } throws: {
                ($0 as? ParseError)?.message.contains("one view") == true
            }
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/x.mp4"))
    }
}
