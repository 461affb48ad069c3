// Issue 33 part 2: `split` takes every stereo input — MPO, side-by-side / top-bottom JPEG and PNG, frame-packed
// movies (flat or a sphere) — and each eye equals FFmpeg's crop of the source (byte for byte in decoded pixels where
// the path is lossless; PSNR ≥ 35 dB where it re-encodes). Generated inputs (FFmpeg's test source) keep every path
// tested on a clone without ../shared.
import Foundation
import TestSupport
import Testing

@Suite struct SplitEveryStereoInputTests {
    /// Runs FFmpeg; fails the test with its message when it fails.
    @discardableResult
    static func ffmpeg(_ args: [String]) throws -> RunResult {
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(), ["-nostdin", "-hide_banner", "-v", "error", "-y"] + args, timeout: 600)
        #expect(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.err.suffix(400))")
        return r
    }

    /// The decoded pixels of `path` (every frame) in FFmpeg's `pixFmt`, after the filter `vf` when given.
    static func raw(_ path: String, _ pixFmt: String, vf: String? = nil, demuxer: [String] = [], in dir: String) throws
        -> Data
    {
        let out = dir + "/raw-\(UUID().uuidString.prefix(8)).\(pixFmt)"
        try ffmpeg(
            demuxer + ["-i", path] + (vf.map { ["-vf", $0] } ?? []) + ["-f", "rawvideo", "-pix_fmt", pixFmt, out])
        return try #require(FileManager.default.contents(atPath: out))
    }

    /// FFmpeg's average PSNR (dB) of `path` against `reference` cropped by `crop`.
    static func psnr(_ path: String, reference: String, crop: String) throws -> Double {
        let r = try ffmpeg([
            "-v", "info", "-i", path, "-i", reference, "-filter_complex", "[1:v]\(crop)[ref];[0:v][ref]psnr", "-f",
            "null", "-",
        ])
        let line = try #require(r.err.split(separator: "\n").last { $0.contains("PSNR") && $0.contains("average:") })
        let value = line.split(separator: " ").first { $0.hasPrefix("average:") }?.dropFirst("average:".count)
        return try #require(value.flatMap { $0 == "inf" ? Double.infinity : Double($0) })
    }

    static func split(_ args: [String]) throws -> RunResult {
        let r = try Run.cli(["split"] + args)
        #expect(r.status == 0, "split \(args.joined(separator: " ")): \(r.err.suffix(400))")
        return r
    }

    // MARK: MPO

    /// Each eye of an MPO is its JPEG copied: the decoded eyes are FFmpeg's decode of the two pictures, and each eye's
    /// coded scan is a byte range of the MPO.
    @Test(.needs(.shared("corpus/mpo/frozenpond.mpo")))
    func mpoEyesAreItsJPEGsCopied() throws {
        let mpo = TestPaths.sharedPath("corpus/mpo/frozenpond.mpo")
        let dir = try TestPaths.tempDir("split33-mpo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.split([mpo, "--left", dir + "/l.jpg", "--right", dir + "/r.jpg"])
        #expect(r.out.contains("copied byte for byte"))
        let source = try #require(FileManager.default.contents(atPath: mpo))
        for eye in ["l", "r"] {
            let bytes = try #require(FileManager.default.contents(atPath: dir + "/\(eye).jpg"))
            // From the start of the (last: the EXIF thumbnail has its own) scan to the end: the MPO's own bytes.
            let sos = try #require(bytes.range(of: Data([0xFF, 0xDA]), options: .backwards))
            #expect(
                source.range(of: bytes[sos.lowerBound...]) != nil,
                "\(eye).jpg: its coded picture is not a byte range of the MPO")
        }
        // FFmpeg's JPEG demuxer reads both pictures of the MPO in order (left, right for this file).
        let both = try Self.raw(mpo, "yuvj420p", demuxer: ["-f", "jpeg_pipe"], in: dir)
        let eyes =
            try Self.raw(dir + "/l.jpg", "yuvj420p", in: dir) + (try Self.raw(dir + "/r.jpg", "yuvj420p", in: dir))
        #expect(both == eyes, "the eyes decode to other pixels than the MPO's pictures")
    }

    // MARK: JPEG

    /// A side-by-side JPEG whose middle falls on its MCU grid is cut without decoding: each eye decodes to exactly
    /// FFmpeg's crop of the decoded source (4:2:0 planes compared as stored, no chroma upsampling in between).
    @Test(.needs(.shared("corpus/sbs/Panasonic-DMC-GX8.jpg")))
    func sbsJPEGEyesAreLosslessCrops() throws {
        // 3648×1368, 4:2:0: the middle (1824) is on the 16-pixel grid
        let src = TestPaths.sharedPath("corpus/sbs/Panasonic-DMC-GX8.jpg")
        let dir = try TestPaths.tempDir("split33-sbs")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Self.split([src, "--left", dir + "/l.jpg", "--right", dir + "/r.jpg"])
        #expect(r.out.contains("without decoding"))
        #expect(
            try Self.raw(dir + "/l.jpg", "yuvj420p", in: dir)
                == (try Self.raw(src, "yuvj420p", vf: "crop=1824:1368:0:0", in: dir)))
        #expect(
            try Self.raw(dir + "/r.jpg", "yuvj420p", in: dir)
                == (try Self.raw(src, "yuvj420p", vf: "crop=1824:1368:1824:0", in: dir)))
    }

    /// (FFmpeg's test picture is one 2D picture, not a stereo pair: `split` given no layout measures it and refuses it,
    /// so these cases state the layout, as a user splitting a picture the tool cannot recognise would.)
    /// Generated JPEGs: a top-bottom one on the MCU grid is cut losslessly; a side-by-side one whose middle is off
    /// the grid is decoded and re-encoded (said so), each eye within 35 dB of FFmpeg's crop; re-packing SBS → TB
    /// stacks the eyes.
    @Test func generatedJPEGsLosslessOnTheGridReencodedOff() throws {
        let dir = try TestPaths.tempDir("split33-jpeg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=320x480", "-frames:v", "1", "-pix_fmt", "yuvj420p", "-q:v", "2",
            dir + "/tb.jpg",
        ])
        let tb = try Self.split([
            dir + "/tb.jpg", "--layout", "tb", "--left", dir + "/tl.jpg", "--right", dir + "/tr.jpg",
        ])
        #expect(tb.out.contains("without decoding"))
        #expect(
            try Self.raw(dir + "/tl.jpg", "yuvj420p", in: dir)
                == (try Self.raw(dir + "/tb.jpg", "yuvj420p", vf: "crop=320:240:0:0", in: dir)))
        #expect(
            try Self.raw(dir + "/tr.jpg", "yuvj420p", in: dir)
                == (try Self.raw(dir + "/tb.jpg", "yuvj420p", vf: "crop=320:240:0:240", in: dir)))

        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=648x240", "-frames:v", "1", "-pix_fmt", "yuvj420p", "-q:v", "2",
            dir + "/off.jpg",
        ])
        let off = try Self.split([
            dir + "/off.jpg", "--layout", "sbs", "--left", dir + "/ol.jpg", "--right", dir + "/or.jpg",
        ])
        #expect(
            off.out.contains("not on the JPEG's 16-pixel MCU grid") && off.out.contains("encoded as JPEG at quality 95")
        )
        #expect(try Self.psnr(dir + "/ol.jpg", reference: dir + "/off.jpg", crop: "crop=324:240:0:0") >= 35)
        #expect(try Self.psnr(dir + "/or.jpg", reference: dir + "/off.jpg", crop: "crop=324:240:324:0") >= 35)

        try Self.split([dir + "/off.jpg", "--layout", "sbs", "--ou", dir + "/ou.png"])
        let probe = try Run.program(try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", dir + "/ou.png"])
        #expect(
            probe.err.contains("324x480"),
            "the over-under picture is one eye wide and two tall: \(probe.err.suffix(300))")
        let again = try Run.cli(["split", dir + "/off.jpg", "--layout", "sbs", "--sbs", dir + "/s.jpg"])
        #expect(again.status == 64 && again.err.contains("already side by side"))
    }

    // MARK: PNG

    /// A side-by-side PNG: each eye is exactly FFmpeg's crop of the source.
    @Test func sbsPNGEyesAreExactCrops() throws {
        let dir = try TestPaths.tempDir("split33-png")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=642x200", "-frames:v", "1", "-pix_fmt", "rgb24", dir + "/sbs.png",
        ])
        let r = try Self.split([
            dir + "/sbs.png", "--layout", "sbs", "--left", dir + "/l.png", "--right", dir + "/r.png",
        ])
        #expect(r.out.contains("written as PNG (lossless)"))
        #expect(
            try Self.raw(dir + "/l.png", "rgb24", in: dir)
                == (try Self.raw(dir + "/sbs.png", "rgb24", vf: "crop=321:200:0:0", in: dir)))
        #expect(
            try Self.raw(dir + "/r.png", "rgb24", in: dir)
                == (try Self.raw(dir + "/sbs.png", "rgb24", vf: "crop=321:200:321:0", in: dir)))
    }

    // MARK: frame-packed movies

    /// A generated side-by-side H.264 movie with audio: without packing metadata the layout must be stated (exit 64,
    /// naming --layout); with it each eye is x265 HEVC within 35 dB of FFmpeg's crop, the audio kept; re-packed
    /// top-bottom, the movie is tagged over-under.
    @Test func generatedSBSMovieSplitsPerEyeAndRepacks() throws {
        let dir = try TestPaths.tempDir("split33-movie")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/sbs.mp4"
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=640x240:r=30:d=1", "-f", "lavfi", "-i", "sine=d=1", "-c:v", "libx264",
            "-preset", "ultrafast",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest", src,
        ])
        let refused = try Run.cli(["split", src, "--left", dir + "/l.mp4", "--right", dir + "/r.mp4"])
        #expect(refused.status == 64 && refused.err.contains("--layout"), "\(refused.err)")
        #expect(!refused.err.contains("no box header"))
        let r = try Self.split([src, "--layout", "sbs", "--left", dir + "/l.mp4", "--right", dir + "/r.mp4"])
        #expect(r.out.contains("audio: 1 track copied"))
        #expect(try Self.psnr(dir + "/l.mp4", reference: src, crop: "crop=320:240:0:0") >= 35)
        #expect(try Self.psnr(dir + "/r.mp4", reference: src, crop: "crop=320:240:320:0") >= 35)
        let probe = try Run.program(try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", dir + "/l.mp4"])
        #expect(
            probe.err.contains("hevc") && probe.err.contains("320x240") && probe.err.contains("Audio:"),
            "\(probe.err.suffix(400))")

        try Self.split([src, "--layout", "sbs", "--ou", dir + "/ou.mov", "--preset", "ultrafast"])
        let info = try Run.cli(["info", dir + "/ou.mov"])
        #expect(info.out.contains("frame-packed stereo (top-bottom)"), "\(info.out)")
    }

    /// The corpus VR360 movie, trimmed to 1 s by FFmpeg (which writes its Google v1 metadata as st3d 1 + sv3d):
    /// each eye is within 35 dB of FFmpeg's crop of the source and carries st3d 0 (one eye) with the sv3d projection.
    @Test(.needs(.shared("corpus/spherical/testRoom1_1080Stereo.mp4")))
    func sphereEyesKeepTheProjection() throws {
        let dir = try TestPaths.tempDir("split33-vr")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/room.mp4"
        try Self.ffmpeg([
            "-i", TestPaths.sharedPath("corpus/spherical/testRoom1_1080Stereo.mp4"), "-t", "1", "-c", "copy", "-strict",
            "unofficial", src,
        ])
        let r = try Self.split([src, "--left", dir + "/l.mp4", "--right", dir + "/r.mp4"])
        #expect(r.out.contains("top-bottom: left eye = top half (st3d 1)") && r.out.contains("keeps the projection"))
        #expect(try Self.psnr(dir + "/l.mp4", reference: src, crop: "crop=1080:540:0:0") >= 35)
        #expect(try Self.psnr(dir + "/r.mp4", reference: src, crop: "crop=1080:540:0:540") >= 35)
        for eye in ["l", "r"] {
            let info = try Run.cli(["info", dir + "/\(eye).mp4"])
            #expect(
                info.out.contains("st3d stereo mode: 0") && info.out.contains("sv3d projection: 'equi'"), "\(info.out)")
        }
    }

    /// An MV-HEVC sphere (our MV-HEVC re-tagged APMP `equi`): its side-by-side split says sphere in Google's form
    /// (st3d 2 + sv3d), never a flat picture (`proj rect`); its eyes carry st3d 0 + sv3d; validate measures its centre.
    @Test func mvhevcSphereSplitKeepsTheProjection() throws {
        let dir = try TestPaths.tempDir("split33-mvsphere")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=646x320:r=30", "-frames:v", "6", "-filter_complex",
            "split[a][b];[a]crop=320:320:6:0[l];[b]crop=320:320:0:0[r];[l][r]hstack", "-pix_fmt", "yuv420p", "-f",
            "yuv4mpegpipe", dir + "/sbs.y4m",
        ])
        #expect(try Run.cli(["convert", dir + "/sbs.y4m", "-o", dir + "/mv.mov", "--preset", "ultrafast"]).status == 0)
        #expect(try Run.cli(["edit", dir + "/mv.mov", "-o", dir + "/sphere.mov", "--projection", "equi"]).status == 0)
        let r = try Self.split([dir + "/sphere.mov", "--sbs", dir + "/sbs.mp4", "--preset", "ultrafast"])
        #expect(r.out.contains("keeps the projection"), "\(r.out)")
        let info = try Run.cli(["info", dir + "/sbs.mp4"]).out
        // Both forms: APMP's (prji 'equi' with pack, never a flat 'rect') and Google's st3d 2 + sv3d.
        #expect(
            info.contains("st3d stereo mode: 2") && info.contains("sv3d projection: 'equi'")
                && info.contains("projection (APMP vexu/proj): equirectangular"), "\(info)")
        #expect(!info.contains("projection (APMP vexu/proj): rectilinear"), "\(info)")
        try Self.split([dir + "/sphere.mov", "--left", dir + "/l.mov", "--preset", "ultrafast"])
        let eye = try Run.cli(["info", dir + "/l.mov"]).out
        #expect(eye.contains("st3d stereo mode: 0") && eye.contains("sv3d projection: 'equi'"), "\(eye)")
        let v = try Run.cli(["validate", dir + "/sphere.mov"]).out
        #expect(v.contains("central 60°×60°") && !v.contains("one view only"), "\(v)")
    }

    // MARK: validate

    /// validate measures a frame-packed movie's pixels (no longer "not implemented yet").
    @Test func validateMeasuresAFramePackedMovie() throws {
        let dir = try TestPaths.tempDir("split33-validate")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/sbs.mp4"
        // A textured scene shifted 6 px between the eyes: left half, right half.
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "mandelbrot=s=332x240:r=30", "-t", "0.5", "-filter_complex",
            "split[a][b];[a]crop=320:240:12:0[l];[b]crop=320:240:6:0[r];[l][r]hstack", "-c:v", "libx264", "-preset",
            "ultrafast", "-pix_fmt", "yuv420p", src,
        ])
        let r = try Run.cli(["validate", src, "--layout", "sbs"])
        #expect(!r.out.contains("not implemented yet"), "\(r.out)")
        #expect(
            r.out.contains("frame-packed side by side picture decoded by FFmpeg") && r.out.contains("SV-GEOM-022"),
            "\(r.out)")
    }

    /// The sphere's centre only: vertical disparity and eye order, none of the flat-picture rules.
    @Test(.needs(.shared("corpus/spherical/testRoom1_1080Stereo.mp4")))
    func validateMeasuresASpheresCentre() throws {
        let r = try Run.cli(["validate", TestPaths.sharedPath("corpus/spherical/testRoom1_1080Stereo.mp4")])
        #expect(r.out.contains("central 60°×60°"), "\(r.out)")
        for rule in [
            "SV-GEOM-006", "SV-GEOM-008", "SV-GEOM-014", "SV-GEOM-016", "SV-GEOM-017", "SV-GEOM-020", "SV-GEOM-021",
        ] {
            #expect(!r.out.contains(rule), "\(rule) does not apply to a sphere's centre: \(r.out)")
        }
        #expect(!r.out.contains("ERROR SV-GEOM"), "\(r.out)")
    }
}
