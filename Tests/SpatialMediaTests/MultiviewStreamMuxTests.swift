import BinaryIO
import Foundation
import HEVC
import SpatialMedia
import TestSupport
import Testing

/// Issue 38: muxing a raw two-view MV-HEVC stream as it is (`SpatialVideoMuxer.muxMultiview`).
@Suite struct MultiviewStreamMuxTests {
    /// The fixture with its timing taken out of the base SPS VUI and the VPS: no frame rate is invented (refused,
    /// asking for --fps); with one given, every access unit is muxed at that rate.
    @Test(.needs(.shared("fixtures/mvhevc_96x64_6f.hevc")))
    func aStreamWithoutTimingNeedsAFrameRate() throws {
        let src = try #require(TestPaths.shared("fixtures/mvhevc_96x64_6f.hevc"))
        let bytes = [UInt8](try #require(FileManager.default.contents(atPath: src)))
        var sawTiming = false
        var out: [NALUnit] = []
        for n in try AnnexB.split(bytes) {
            if n.type == .vps {
                var v = try VideoParameterSet(nal: n)
                sawTiming = sawTiming || v.timingInfoPresent
                v.timingInfoPresent = false
                v.timingAndHRD = .empty
                out.append(try v.nalUnit())
            } else if n.type == .sps && n.layerId == 0 {
                var s = try SequenceParameterSet(nal: n)
                sawTiming = sawTiming || (s.vuiPresent && s.vui.timingInfoPresent)
                s.vui.timingInfoPresent = false
                out.append(try s.nalUnit())
            } else {
                out.append(n)
            }
        }
        #expect(sawTiming, "the fixture states its timing; the case below takes it out")
        let d = try TestPaths.tempDir("mvmux-timing")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let stream = d + "/untimed.hevc"
        try TestMedia.write(AccessUnits.group(out).flatMap { AccessUnitWriter.annexB($0) }, to: stream)
        let refused = Result { () throws(ParseError) -> MultiviewStreamMuxResult in
            try SpatialVideoMuxer.muxMultiview(
                stream: stream, output: d + "/a.mov", swapEyes: false, hero: nil,
                mux: SpatialVideoMuxOptions())
        }
        switch refused {
        case .success(let r): Issue.record("muxed without a frame rate: \(r.fpsNum)/\(r.fpsDen) (\(r.fpsSource))")
        case .failure(let e): #expect(e.message.contains("--fps") && e.message.contains("no frame rate"), "\(e)")
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/a.mov"))
        var m = SpatialVideoMuxOptions()
        m.frameRateNum = 24
        let r = try SpatialVideoMuxer.muxMultiview(
            stream: stream, output: d + "/b.mov", swapEyes: false, hero: nil, mux: m)
        #expect(
            r.accessUnits == 6 && r.mux.samples == 6 && r.fpsNum == 24 && r.fpsDen == 1 && r.fpsSource == "given",
            "\(r)")
        #expect(r.baseIsLeft && r.eyeSource.contains("SEI 176") && r.hero == .left, "\(r)")
    }
}
