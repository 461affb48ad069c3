import BinaryIO
import Codecs
import Foundation
import MediaDecode
import TestSupport
import Testing

@testable import SpatialConvert

/// Issue 28 n: a `--qp` (or bitrate) report states the rule it applied, not the CRF rule. Issue 28 l: audio is carried
/// through FFmpeg ≥ 7.1 only (5.1 dropped the priming and the last packet of Matroska audio).
@Suite struct VideoReportRuleTests {
    static func summary(_ rate: HEVCEncoderSettings.RateControl) throws -> String {
        var o = VideoConversionOptions()
        o.rateControl = rate
        try VideoConverter.checkEyeOptions(o)
        let base = VideoConverter.encoderSettings(o, fpsNum: 30, fpsDen: 1)
        return try VideoConverter.eyeEncoding(base, options: o, eyeW: 1280, eyeH: 720, fpsNum: 30, fpsDen: 1).summary
    }

    @Test func qpAndBitrateReportsStateTheRuleTheyUsed() throws {
        let qp = try Self.summary(.qp(22))
        #expect(qp.contains("QP 22") && qp.contains("QP 28"), "\(qp)")
        #expect(qp.contains("asymmetric, +6 QP, at most QP 28"), "\(qp)")
        #expect(!qp.contains("CRF"), "a QP encode's report names no CRF: \(qp)")
        let crf = try Self.summary(.crf(18))
        #expect(crf.contains("asymmetric, +6 CRF, at most CRF 28"), "\(crf)")
        let rate = try Self.summary(.bitrate(kbps: 9000))
        #expect(rate.contains("33.3 % of the rate") && !rate.contains("at most CRF"), "\(rate)")
    }

    static let ffmpeg51: String? = {
        let p = "/usr/bin/ffmpeg"
        guard FileManager.default.isExecutableFile(atPath: p), let t = FFmpeg.locate(.any, override: p) else {
            return nil
        }
        return (t.major, t.minor) < (7, 1) ? p : nil
    }()

    @Test(
        .needs(
            Requirement("no FFmpeg older than 7.1 at /usr/bin/ffmpeg (the refusal is shown with one)") {
                VideoReportRuleTests.ffmpeg51 != nil
            }))
    func audioThroughFFmpegBefore71IsRefused() throws {
        let ff = try #require(VideoFixtures.ffmpeg9)
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let mkv = d + "/in.mkv"
        let (st, _) = try run(
            ff,
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=128x48:rate=30", "-f", "lavfi", "-i",
                "sine=frequency=440:sample_rate=48000",
                "-t", "1", "-c:v", "libx264", "-c:a", "aac", "-shortest", mkv,
            ])
        try #require(st == 0)
        var o = VideoConversionOptions()
        o.preset = "ultrafast"
        o.ffmpeg = Self.ffmpeg51
        do throws(ParseError) {
            try VideoConverter.convert(.packed(mkv), to: d + "/o.mov", options: o)
            Issue.record("FFmpeg 5.1 was used for the audio (it drops the priming and the last packet)")
        } catch {
            #expect(error.code == .libraryMissing && error.message.contains("7.1"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/o.mov"))
        // With FFmpeg ≥ 7.1 every packet arrives, and the priming is kept in the edit list.
        o.ffmpeg = ff
        try VideoConverter.convert(.packed(mkv), to: d + "/o.mov", options: o)
        let packets = { (p: String) throws -> Int in
            try run(ff, ["-v", "error", "-i", p, "-map", "0:a", "-c", "copy", "-f", "framemd5", "-"]).1.split(
                separator: "\n"
            ).filter { !$0.hasPrefix("#") }.count
        }
        #expect(try packets(mkv) == packets(d + "/o.mov"))
    }
}
