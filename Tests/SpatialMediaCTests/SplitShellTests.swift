// Issue 33: sm_split is a shell over the operations layer's split, like `spatial-media split`: every stereo input
// (frame-packed movies, MV-HEVC movies, photos), one request from the arguments and the name table's keys, the same
// outputs as the command line; `.hevc` outputs mean a copy.
import Foundation
import TestSupport
import Testing

@testable import SpatialMediaC

@Suite(.serialized) struct SplitShellTests {
    /// Runs FFmpeg (`-v error`), failing the test on a non-zero exit.
    static func ffmpeg(_ args: [String]) throws {
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(), ["-nostdin", "-hide_banner", "-v", "error", "-y"] + args, timeout: 600)
        try #require(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.err.suffix(400))")
    }

    /// What FFmpeg decodes from `path`: the frame count and the picture size ("WxH") of its first video stream.
    static func decoded(_ path: String) throws -> (frames: Int, size: String) {
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(),
            ["-nostdin", "-hide_banner", "-i", path, "-map", "0:v:0", "-f", "null", "-"], timeout: 600)
        #expect(r.status == 0, "FFmpeg cannot decode \(path): \(r.err.suffix(400))")
        let size =
            r.err.split(separator: "\n").first { $0.contains("Video:") }.flatMap { line in
                line.split(whereSeparator: { $0 == " " || $0 == "," }).first { part in
                    let dims = part.split(separator: "x")
                    return dims.count == 2 && dims.allSatisfy { Int($0) != nil }
                }
            }.map(String.init) ?? ""
        let counts = r.err.components(separatedBy: "frame=").dropFirst().compactMap {
            Int($0.drop { $0 == " " }.prefix { $0.isNumber })
        }
        return (counts.last ?? 0, size)
    }

    /// sm_split's status and report.
    static func split(
        _ input: String, _ left: String?, _ right: String?, _ options: String?,
        progress: SMProgressFn? = nil, userData: UnsafeMutableRawPointer? = nil
    ) -> (status: Int32, report: String) {
        var report: UnsafeMutablePointer<CChar>? = nil
        let status = sm_split(input, left, right, options, progress, userData, nil, &report)
        defer { sm_string_free(report) }
        return (status, report.map { String(cString: $0) } ?? lastError())
    }

    /// A 1 s side-by-side H.264 MP4 (640×240: two 320×240 eyes), with no stereo metadata.
    static func sbsMovie(_ dir: String) throws -> String {
        let src = dir + "/sbs.mp4"
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=640x240:r=30:d=1", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt",
            "yuv420p", src,
        ])
        return src
    }

    /// An MV-HEVC movie made by our own convert, with independent layers (the assembled encode path).
    static func spatialMovie(_ dir: String) throws -> String {
        let out = dir + "/spatial.mov"
        let c = try Run.cli([
            "convert", try sbsMovie(dir), "-o", out, "--layout", "sbs", "--hfov", "60", "--baseline", "64",
            "--encode-path", "assembled", "--preset", "ultrafast",
        ])
        try #require(c.status == 0 || c.status == 1, "convert: \(c.err.suffix(400))")
        return out
    }

    /// (a) A frame-packed movie with "layout": "sbs" → two .mp4 eyes, read back by our validate and decoded by FFmpeg
    /// at half width; the progress callback sees the split and "done".
    @Test func framePackedMovieToMP4Eyes() throws {
        let dir = try TestPaths.tempDir("cabi-split-packed")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = try Self.sbsMovie(dir)
        let calls = UnsafeMutablePointer<Double>.allocate(capacity: 2)
        defer { calls.deallocate() }
        calls[0] = 0; calls[1] = -1
        let fn: SMProgressFn = { user, fraction, _ in
            guard let c = user?.assumingMemoryBound(to: Double.self) else { return 0 }
            c[0] += 1; c[1] = fraction
            return 0
        }
        let r = Self.split(
            src, dir + "/l.mp4", dir + "/r.mp4", #"{"layout": "sbs", "preset": "ultrafast"}"#, progress: fn,
            userData: UnsafeMutableRawPointer(calls))
        #expect(r.status == SMStatus.ok, "\(r.report)")
        #expect(
            r.report.contains(#""job":"split""#) && r.report.contains(#""route":"video""#), "\(r.report.prefix(400))")
        #expect(r.report.contains(#""verdict":"passed""#), "the read-back: \(r.report.suffix(400))")
        #expect(calls[0] >= 2 && calls[1] == 1, "progress calls \(calls[0]), last fraction \(calls[1])")
        for eye in ["l", "r"] {
            let v = try Run.cli(["validate", dir + "/\(eye).mp4"])
            #expect(v.status != 2, "validate \(eye).mp4: \(v.out.suffix(300))")
            let d = try Self.decoded(dir + "/\(eye).mp4")
            #expect(d.size == "320x240" && d.frames == 30, "\(eye).mp4: \(d)")
        }
    }

    /// (b) An MV-HEVC movie: to .hevc eyes without options (a copy), to .mp4 eyes (re-encoded); "crf" with .hevc
    /// outputs refused.
    @Test func mvhevcMovieToHEVCAndMP4Eyes() throws {
        let dir = try TestPaths.tempDir("cabi-split-mvhevc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let movie = try Self.spatialMovie(dir)
        let copy = Self.split(movie, dir + "/l.hevc", dir + "/r.hevc", nil)
        #expect(copy.status == SMStatus.ok, "\(copy.report)")
        #expect(copy.report.contains("copied both eyes"), "\(copy.report.prefix(600))")
        for eye in ["l", "r"] {
            let d = try Self.decoded(dir + "/\(eye).hevc")
            #expect(d.size == "320x240" && d.frames == 30, "\(eye).hevc: \(d)")
        }
        let encoded = Self.split(movie, dir + "/l.mp4", dir + "/r.mp4", #"{"preset": "ultrafast"}"#)
        #expect(encoded.status == SMStatus.ok, "\(encoded.report)")
        #expect(encoded.report.contains(#""frames":30"#), "\(encoded.report.prefix(600))")
        for eye in ["l", "r"] {
            let d = try Self.decoded(dir + "/\(eye).mp4")
            #expect(d.size == "320x240" && d.frames == 30, "\(eye).mp4: \(d)")
        }
        let refused = Self.split(movie, dir + "/l2.hevc", dir + "/r2.hevc", #"{"crf": 20}"#)
        #expect(refused.status == SMStatus.invalidOption && refused.report.contains("\"crf\""), "\(refused.report)")
        #expect(!TestPaths.exists(dir + "/l2.hevc"))
        // The first release's side-by-side beside the eyes: eyes first, then the packed file, named in the report.
        let both = Self.split(
            movie, dir + "/l3.mp4", dir + "/r3.mp4", #"{"preset": "ultrafast", "sbs_output": "\#(dir)/sbs3.mp4"}"#)
        #expect(both.status == SMStatus.ok, "\(both.report)")
        #expect(both.report.contains(#""sbs_output":"\#(dir)/sbs3.mp4""#), "\(both.report.prefix(600))")
        #expect(try Self.decoded(dir + "/sbs3.mp4").size == "640x240")
    }

    /// (c) One request through the command line and through sm_split: the same eye bytes for a photo, the same
    /// frame count and size for a movie.
    @Test func commandLineAndCABIAgree() throws {
        let dir = try TestPaths.tempDir("cabi-split-same")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A spatial photo made by our convert from a side-by-side picture, and that picture as a JPEG.
        try Self.ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=640x240", "-frames:v", "1", dir + "/sbs.png"])
        try Self.ffmpeg(["-i", dir + "/sbs.png", "-q:v", "3", dir + "/sbs.jpg"])
        let c = try Run.cli([
            "convert", dir + "/sbs.png", "-o", dir + "/photo.heic", "--layout", "sbs", "--force", "--hfov", "60",
            "--baseline", "64",
        ])
        try #require(c.status == 0 || c.status == 1, "convert: \(c.err.suffix(400))")
        for (photo, ext) in [(dir + "/photo.heic", "png"), (dir + "/sbs.jpg", "jpg")] {
            // FFmpeg's test picture is 2D: given no layout, split measures it and refuses it, so the layout is stated.
            let cli = try Run.cli([
                "split", photo, "--left", dir + "/cl.\(ext)", "--right", dir + "/cr.\(ext)", "--layout", "sbs",
            ])
            #expect(cli.status == 0, "\(cli.err)")
            let abi = Self.split(photo, dir + "/al.\(ext)", dir + "/ar.\(ext)", #"{"layout": "sbs"}"#)
            #expect(abi.status == SMStatus.ok, "\(abi.report)")
            for (a, b) in [("cl", "al"), ("cr", "ar")] {
                let x = FileManager.default.contents(atPath: dir + "/\(a).\(ext)"),
                    y = FileManager.default.contents(atPath: dir + "/\(b).\(ext)")
                #expect(x != nil && x == y, "\(photo): \(a).\(ext) and \(b).\(ext) differ")
            }
        }
        let movie = try Self.spatialMovie(dir)
        let mcli = try Run.cli([
            "split", movie, "--left", dir + "/cl.mp4", "--right", dir + "/cr.mp4", "--preset", "ultrafast",
        ])
        #expect(mcli.status == 0, "\(mcli.err.suffix(400))")
        let mabi = Self.split(movie, dir + "/al.mp4", dir + "/ar.mp4", #"{"preset": "ultrafast"}"#)
        #expect(mabi.status == SMStatus.ok, "\(mabi.report)")
        for (a, b) in [("cl", "al"), ("cr", "ar")] {
            let x = try Self.decoded(dir + "/\(a).mp4"), y = try Self.decoded(dir + "/\(b).mp4")
            #expect(x.frames == 30 && x.frames == y.frames && x.size == y.size, "\(a): \(x), \(b): \(y)")
        }
    }

    /// The cancel flag, and a progress callback asking to stop while the frames are encoded: SM_ERR_CANCELLED, no
    /// output left.
    @Test func cancelledSplitsLeaveNothing() throws {
        let dir = try TestPaths.tempDir("cabi-split-cancel")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = try Self.sbsMovie(dir)
        var flag: Int32 = 1
        let flagged = sm_split(
            src, dir + "/l.mp4", dir + "/r.mp4", #"{"layout": "sbs", "preset": "ultrafast"}"#, nil, nil, &flag, nil)
        #expect(flagged == SMStatus.cancelled, "\(lastError())")
        let stop: SMProgressFn = { _, fraction, _ in fraction > 0 && fraction < 1 ? 1 : 0 }
        let r = Self.split(
            src, dir + "/l.mp4", dir + "/r.mp4", #"{"layout": "sbs", "preset": "ultrafast"}"#, progress: stop)
        #expect(r.status == SMStatus.cancelled, "\(r.report)")
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0 != "sbs.mp4" }
        #expect(left.isEmpty, "left behind: \(left)")
    }

    /// (d) An unknown key, a wrong type, an output given both as an argument and as an option, or an option of
    /// the other kind of file: SM_ERR_INVALID_OPTION, nothing written.
    @Test func unknownOrMistypedOptionsAreRefused() throws {
        let dir = try TestPaths.tempDir("cabi-split-refused")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = TestPaths.package("Conformance/files/heif_grid_ster.heic")
        let unknown = Self.split(photo, dir + "/l.png", dir + "/r.png", #"{"colour": "red"}"#)
        #expect(
            unknown.status == SMStatus.invalidOption
                && unknown.report.contains("unknown option \"colour\" for split"), "\(unknown.report)")
        let mistyped = Self.split(photo, dir + "/l.png", dir + "/r.png", #"{"quality": "high"}"#)
        #expect(
            mistyped.status == SMStatus.invalidOption && mistyped.report.contains("\"quality\" must be an integer"),
            "\(mistyped.report)")
        let twice = Self.split(photo, dir + "/l.png", dir + "/r.png", #"{"left_output": "\#(dir)/x.png"}"#)
        #expect(twice.status == SMStatus.invalidOption && twice.report.contains("given twice"), "\(twice.report)")
        let videoOption = Self.split(photo, dir + "/l.png", dir + "/r.png", #"{"crf": 20}"#)
        #expect(
            videoOption.status == SMStatus.invalidOption && videoOption.report.contains("apply to videos only"),
            "\(videoOption.report)")
        for name in ["l.png", "r.png", "x.png"] { #expect(!TestPaths.exists(dir + "/" + name)) }
    }
}
