import Foundation
import TestSupport
import Testing

/// Issue 38: a raw MV-HEVC stream is muxed with PicOrderCntVal derived across POC LSB wraps (LSB plus the MSB carried
/// from the previous picture): a 300-picture GOP of the multiview x265 (POC LSB wraps at 256, B-frames reordered),
/// written back out as a raw stream by FFmpeg's stream copy, converts to the same bytes as the movie it came from
/// (a wrong MSB reorders the pictures: other composition offsets).
@Suite struct RawMultiviewPOCTests {
    @Test(
        .needs(
            Requirement("no multiview libx265 with our binding (bash scripts/setup.sh builds one)") {
                MultiviewEncodeTests.multiviewLibrary
            }))
    func pictureOrderAcrossLSBWrapsIsKept() throws {
        let ffmpeg = try TestPrograms.requireFFmpeg()
        let d = try TestPaths.tempDir("rawmux-poc")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let make = try Run.program(
            ffmpeg,
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=128x64:rate=30",
                "-frames:v", "300", "-pix_fmt", "yuv420p", d + "/sbs.y4m",
            ])
        #expect(make.status == 0, "\(make.err)")
        let a = try Run.cli([
            "convert", d + "/sbs.y4m", "-o", d + "/a.mov", "--layout", "sbs", "--encode-path", "multiview",
            "--keyint", "600", "--preset", "ultrafast", "--no-audio",
        ])
        #expect(a.status == 0, "\(a.err)")
        let copy = try Run.program(
            ffmpeg,
            [
                "-nostdin", "-v", "error", "-y", "-i", d + "/a.mov", "-map", "0:v:0", "-c:v", "copy",
                "-bsf:v", "hevc_mp4toannexb", "-f", "hevc", d + "/a.hevc",
            ])
        #expect(copy.status == 0, "\(copy.err)")
        let nal = try Run.cli(["dump", "--nal", d + "/a.hevc"])
        #expect(nal.out.contains("poc_lsb=0 poc=256"), "the stream's POC LSB wraps inside one GOP")
        let b = try Run.cli(["convert", d + "/a.hevc", "-o", d + "/b.mov", "--json"])
        let o = try JSONSerialization.jsonObject(with: Data(b.out.utf8)) as? [String: Any]
        #expect(b.status == 0 && o?["frames"] as? Int == 300 && o?["samples"] as? Int == 300, "\(b.out) \(b.err)")
        let x = try #require(FileManager.default.contents(atPath: d + "/a.mov"))
        let y = try #require(FileManager.default.contents(atPath: d + "/b.mov"))
        #expect(x == y, "\(x.count) bytes, then \(y.count)")
    }
}
