import BinaryIO
import Foundation
import ISOBMFF
import SpatialConvert
import SpatialMedia
import TestSupport
import Testing

/// Issue 28 e and j: `concat` refuses a segment of another input or made with other encoder settings (each segment
/// records the input's identity and the settings), and a segment conversion refuses an audio source it would not use.
@Suite struct SegmentProvenanceTests {
    @Test
    func concatRefusesSegmentsOfAnotherInputOrQP() throws {
        let ff = try #require(VideoFixtures.ffmpeg9)
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try SegmentConversionTests.clip(ff, d, frames: 32)
        // The same clip with one byte of its last frame changed: same size and header, another input.
        var b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: input)))
        b[b.count - 10] ^= 0x40
        let other = d + "/other.y4m"
        try Data(b).write(to: URL(fileURLWithPath: other))
        func segment(_ src: String, _ k: Int, qp: Int = 30, name: String) throws -> String {
            var o = SegmentConversionTests.options(ff, segment: VideoSegment(index: k, count: 2))
            o.rateControl = .qp(qp)
            let p = d + "/" + name
            try VideoConverter.convert(.packed(src), to: p, options: o)
            return p
        }
        let s1 = try segment(input, 1, name: "s1.mov"), s2 = try segment(input, 2, name: "s2.mov")
        let info = try #require(try VideoSegmentInfo.read(from: try ISOFile.open(path: s1), path: s1))
        #expect(
            info.input?.count == 24 && info.settings?.contains("rate qp 30") == true,
            "\(String(describing: info.settings))")
        // The right pair joins.
        let set = try SpatialVideoSegmentSet(paths: [s2, s1])
        #expect(set.frames == 32)
        // Segment 2 of another input, and segment 2 at another QP: refused, naming why.
        let foreign = try segment(other, 2, name: "foreign.mov")
        let coarser = try segment(input, 2, qp: 34, name: "qp34.mov")
        for (bad, why) in [(foreign, "another input"), (coarser, "other settings")] {
            do throws(ParseError) {
                _ = try SpatialVideoSegmentSet(paths: [s1, bad])
                Issue.record("\(bad) was accepted")
            } catch {
                #expect(error.message.contains(why), "\(error.message)")
            }
        }
    }

    @Test
    func segmentConversionRefusesAnAudioSourceItWouldNotUse() throws {
        let ff = try #require(VideoFixtures.ffmpeg9)
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try SegmentConversionTests.clip(ff, d, frames: 32)
        var o = SegmentConversionTests.options(ff, segment: VideoSegment(index: 1, count: 2))
        o.audioFrom = input
        do throws(ParseError) {
            try VideoConverter.convert(.packed(input), to: d + "/s.mov", options: o)
            Issue.record("--audio-from with --segment was accepted and unused")
        } catch {
            #expect(error.code == .invalidArgument && error.message.contains("concat"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/s.mov"))
    }
}
