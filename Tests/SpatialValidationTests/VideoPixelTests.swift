import Foundation
import MediaDecode
import SpatialValidation
import TestSupport
import Testing

/// `validate` measures the pixels of real spatial videos (Apple's inter-layer-predicted MV-HEVC and x265 multiview's),
/// decoding only the sampled frames with the FFmpeg that `scripts/setup.sh` provides. In CI that FFmpeg must be
/// there: the test fails instead of skipping.
@Suite struct VideoPixelTests {
    @Test(.needs(.sharedFiles(Corpus.appleVideo, Corpus.x265Spatial)))
    func realSpatialVideosAreMeasuredOnTheirPixels() throws {
        _ = try TestPrograms.requireFFmpeg()
        for path in [Corpus.appleVideo, Corpus.x265Spatial] where Corpus.exists(path) {
            var o = ValidationOptions()
            o.frames = 3
            let r = Validator.validate(path: path, options: o)
            #expect(r.kind == "spatial-video")
            #expect(
                !r.findings.contains { $0.message.contains("pixels unavailable") },
                "\(path): \(r.findings.map(\.message))")
            // Three frames spread over the clip (first, middle, last), each decoded for both eyes and analysed.
            #expect(r.measurements.map(\.label).first == "frame 0", "\(path): \(r.measurements.map(\.label))")
            #expect(r.measurements.count == 3, "\(path): \(r.measurements.map(\.label))")
        }
        // x265 multiview fixture: a textured render, so the geometry is measured and the eyes are aligned.
        if Corpus.exists(Corpus.x265Spatial) {
            var o = ValidationOptions()
            o.frames = 2
            let r = Validator.validate(path: Corpus.x265Spatial, options: o)
            let measured = r.measurements.compactMap { $0.result.measurement }
            #expect(measured.count == 2)
            for m in measured { #expect(m.medianAbsDy < 0.5) }
        }
    }

    /// The HTML report of a video plots the geometry of every measured frame and carries the eye-sync finding.
    @Test(.needs(.sharedFiles(Corpus.x265Spatial)))
    func reportPlotsEveryMeasuredFrame() throws {
        _ = try TestPrograms.requireFFmpeg()
        var o = ValidationOptions()
        o.frames = 3
        let r = Validator.validate(path: Corpus.x265Spatial, options: o)
        try #require(r.measurements.count == 3)
        let html = HTMLReport.page([r])
        #expect(html.contains("<h3>Per frame</h3>"))
        // One point per measured frame for each of the five series (offset, roll, scale, far, near).
        let plot = try #require(
            html.components(separatedBy: "<h3>Per frame</h3>").last?.components(separatedBy: "</figure>").first)
        #expect(plot.components(separatedBy: "<circle").count - 1 == 5 * 3)
        #expect(plot.contains("frame 0"))
        #expect(html.contains("SV-GEOM-019"))
    }
}
