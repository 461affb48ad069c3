import BinaryIO
import Foundation
import ISOBMFF
import SpatialConvert
import SpatialMedia
import TestSupport
import Testing

/// `convert --segment K/N` + `concat`: segments of whole GOPs joined without re-encoding decode exactly as one
/// conversion with the same GOP boundaries.
@Suite struct SegmentConversionTests {
    /// A 48-frame side-by-side Y4M clip (two different moving pictures, 64×72 per eye) made by FFmpeg 9.
    static func clip(_ ff: String, _ d: String, frames: Int = 48) throws -> String {
        let p = d + "/sbs.y4m"
        let (st, _) = try run(
            ff,
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=size=64x72:rate=24", "-f", "lavfi", "-i",
                "mandelbrot=size=64x72:rate=24",
                "-filter_complex", "hstack", "-frames:v", "\(frames)", "-pix_fmt", "yuv420p", p,
            ])
        try #require(st == 0)
        return p
    }

    static func options(_ ff: String, segment: VideoSegment? = nil, keyint: Int = 16) -> VideoConversionOptions {
        var o = VideoConversionOptions()
        o.preset = "ultrafast"
        o.keyint = keyint
        o.bframes = 3
        o.rateControl = .qp(30)
        o.ffmpeg = ff
        o.segment = segment
        // Segments are single-layer encodes joined: the one-process reference must be made the same way even where
        // SPATIAL_MEDIA_X265 names a multiview libx265.
        o.encodePath = .assembled
        return o
    }

    /// Frame md5s of one view decoded by FFmpeg 9.
    static func md5s(_ ff: String, _ path: String, view: String) throws -> [Substring] {
        let (st, out) = try run(ff, ["-v", "error", "-i", path, "-map", "0:v:0:vpos:\(view)", "-f", "framemd5", "-"])
        #expect(st == 0)
        return out.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { $0.split(separator: ",").last }
    }

    static func segments(
        _ input: String, _ d: String, _ ff: String, count: Int, keyint: Int = 16, prefix: String = "seg"
    ) throws -> [String] {
        var paths: [String] = []
        for k in 1...count {
            let p = d + "/\(prefix)\(k).mov"
            let r = try VideoConverter.convert(
                .packed(input), to: p,
                options: options(ff, segment: VideoSegment(index: k, count: count), keyint: keyint))
            #expect(r.audioTracks.isEmpty)
            paths.append(p)
        }
        return paths
    }

    @Test func segmentRangesFollowWholeGOPs() throws {
        #expect(try VideoSegmentInfo.ranges(totalFrames: 48, gop: 16, count: 3) == [0..<16, 16..<32, 32..<48])
        // 7 GOPs (the last one short) over 3 segments: 3, 2, 2 GOPs.
        #expect(try VideoSegmentInfo.ranges(totalFrames: 100, gop: 16, count: 3) == [0..<48, 48..<80, 80..<100])
        #expect(
            try VideoSegmentInfo.ranges(totalFrames: 600, gop: 48, count: 4) == [
                0..<192, 192..<336, 336..<480, 480..<600,
            ])
        #expect(throws: ParseError.self) { try VideoSegmentInfo.ranges(totalFrames: 30, gop: 16, count: 3) }
        #expect(VideoSegment.parse("2/4") == VideoSegment(index: 2, count: 4))
        for bad in ["0/4", "5/4", "2", "a/b", "2/4/1", "-1/4", ""] { #expect(VideoSegment.parse(bad) == nil) }
    }

    @Test func joinedSegmentsDecodeLikeOneConversion() throws {
        let ff = try TestPrograms.requireFFmpeg()
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try Self.clip(ff, d)
        let one = d + "/one.mov"
        let whole = try VideoConverter.convert(.packed(input), to: one, options: Self.options(ff))
        #expect(whole.frames == 48)
        let segs = try Self.segments(input, d, ff, count: 3)
        // Each segment is a spatial video of its own range, starting on an IDR, recording where it belongs.
        for (i, p) in segs.enumerated() {
            let f = try ISOFile.open(path: p)
            let info = try #require(try VideoSegmentInfo.read(from: f, path: p))
            #expect(
                info
                    == VideoSegmentInfo(
                        index: i + 1, count: 3, firstFrame: 16 * i, frameCount: 16, totalFrames: 48, gopFrames: 16,
                        input: try VideoSegmentInfo.inputIdentity(path: input), settings: info.settings))
            #expect(f.tracks.count == 1)
            #expect(try f.tracks[0].samples().first?.isSync == true)
            #expect(try Self.md5s(ff, p, view: "right").count == 16)
        }
        // Joined in any order given, with the input's audio (a silent track, as the one conversion wrote).
        let joined = d + "/joined.mov"
        let r = try VideoSegmentJoiner.join(
            [segs[2], segs[0], segs[1]], to: joined,
            options: {
                var o = VideoJoinOptions(); o.audioFrom = input; o.ffmpeg = ff; return o
            }())
        #expect(r.frames == 48 && r.segments == 3)
        #expect(r.audioTracks.count == 1 && whole.audioTracks.count == 1)
        for view in ["left", "right"] {
            let a = try Self.md5s(ff, one, view: view), b = try Self.md5s(ff, joined, view: view)
            #expect(a.count == 48)
            #expect(a == b, "view \(view) differs from the one-machine conversion")
        }
        // Byte for byte the one-process file: samples (x265's counter-derived slice flag aligned), tables, metadata,
        // audio.
        let fa = try ISOFile.open(path: one), fb = try ISOFile.open(path: joined)
        let sa = try fa.tracks[0].samples(), sb = try fb.tracks[0].samples()
        #expect(sa.map(\.size) == sb.map(\.size))
        #expect(sa.map(\.presentationTime) == sb.map(\.presentationTime))
        #expect(try VideoFixtures.audioMD5(ff, one) == VideoFixtures.audioMD5(ff, joined))
        #expect(try Data(contentsOf: URL(fileURLWithPath: one)) == Data(contentsOf: URL(fileURLWithPath: joined)))
        #expect(fb.box("moov")?.child("udta") == nil)
    }

    @Test func joinRefusesWhatDoesNotTile() throws {
        let ff = try TestPrograms.requireFFmpeg()
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try Self.clip(ff, d)
        let segs = try Self.segments(input, d, ff, count: 3)
        var o = VideoJoinOptions(); o.noAudio = true
        func refuses(
            _ paths: [String], _ out: String, _ opts: VideoJoinOptions, _ needle: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            do {
                _ = try VideoSegmentJoiner.join(paths, to: out, options: opts)
                Issue.record("expected a refusal containing '\(needle)'", sourceLocation: sourceLocation)
            } catch {
                #expect(error.message.contains(needle), "\(error.message)", sourceLocation: sourceLocation)
            }
            if !paths.contains(out) { #expect(!VideoFixtures.exists(out), sourceLocation: sourceLocation) }
        }
        refuses([segs[0], segs[2]], d + "/a.mov", o, "segment 2 of 3 missing")
        refuses([segs[0], segs[1], segs[1], segs[2]], d + "/b.mov", o, "given twice")
        let before = try Data(contentsOf: URL(fileURLWithPath: segs[1]))
        refuses(segs, segs[1], o, "is the segment")
        #expect(try Data(contentsOf: URL(fileURLWithPath: segs[1])) == before)
        refuses(segs, d + "/c.mov", VideoJoinOptions(), "name the converted input as the audio source")
        // Another conversion (other GOP length), and a movie that is not a segment.
        let other = try Self.segments(input, d, ff, count: 2, keyint: 8, prefix: "other")
        refuses([segs[0], other[1], segs[2]], d + "/e.mov", o, "not the same conversion")
        let plain = d + "/plain.mov"
        try VideoConverter.convert(.packed(input), to: plain, options: Self.options(ff))
        refuses([plain], d + "/f.mov", o, "not a conversion segment")
        // Segment mode needs enough GOPs and a known frame count.
        VideoFixtures.expectFailure(
            .packed(input), d + "/g.mov", Self.options(ff, segment: VideoSegment(index: 1, count: 4)),
            contains: "too few for 4 segments")
    }
}
