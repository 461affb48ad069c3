import Foundation
import Testing
import BinaryIO
import Codecs
@testable import SpatialConvert

/// Issue 28 n: a `--qp` (or bitrate) report states the rule it applied, not the CRF rule.
@Suite struct Closure28VideoReportTests {
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
}
