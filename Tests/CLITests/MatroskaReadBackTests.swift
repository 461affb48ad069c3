// A Matroska file is read through FFmpeg by validate (SV-MKV-*), so the read-back check every write ends with can
// check a `.mkv` that split writes, instead of refusing it as unreadable.
import Foundation
import TestSupport
import Testing

@Suite struct MatroskaReadBackTests {
    static func ffmpeg(_ args: [String]) throws {
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(), ["-nostdin", "-hide_banner", "-v", "error", "-y"] + args, timeout: 600)
        #expect(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.err.suffix(400))")
    }

    /// A side-by-side Matroska movie with StereoMode: validate names it Matroska (never spatial) and measures its eyes;
    /// split writes each eye as `.mkv` and as `.mp4` and passes its own read-back.
    @Test func matroskaValidatesAndSplitsToMatroska() throws {
        let dir = try TestPaths.tempDir("mkv-readback")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/sbs.mkv"
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=640x240:r=30:d=1", "-c:v", "libx264", "-preset", "ultrafast",
            "-metadata:s:v:0", "stereo_mode=left_right", src,
        ])
        let v = try Run.cli(["validate", src, "--json"])
        #expect(v.status == 0 || v.status == 1, "validate: \(v.err.suffix(300))")
        #expect(v.out.contains("\"kind\": \"matroska\""), "\(v.out.prefix(400))")
        #expect(v.out.contains("SV-MKV-001"))
        #expect(!v.out.contains("SV-FILE-001"))
        let s = try Run.cli(["split", src, "--left", dir + "/l.mkv", "--right", dir + "/r.mkv"])
        #expect(s.status == 0, "split to .mkv: \(s.err.suffix(400))")
        #expect(s.out.contains("output check: passed"), "\(s.out.suffix(400))")
        for eye in ["l", "r"] { #expect(TestPaths.exists(dir + "/\(eye).mkv")) }
        let t = try Run.cli(["validate", dir + "/l.mkv"])
        #expect(t.status != 2, "an eye split to .mkv must read back: \(t.out.suffix(300))")
        // Each eye is one picture: FFmpeg used to copy the source's StereoMode "side by side" into it, so a reader
        // (validate included) cut the eye in half again and measured it as a pair.
        for eye in ["l", "r"] {
            let e = try Run.cli(["validate", dir + "/\(eye).mkv", "--json"])
            #expect(e.out.contains("no StereoMode"), "\(eye).mkv must not say it is frame-packed: \(e.out.prefix(600))")
            // Measured as `convert` would (no layout stated): one eye is a 2D video, no stereo pair either way.
            #expect(
                e.out.contains("\"kind\": \"2d-video\"") && !e.out.contains("StereoMode side by side")
                    && !e.out.contains("side by side measured"),
                "\(eye).mkv: \(e.out.prefix(600))")
        }
        let probe = try Run.program(
            try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", dir + "/l.mkv"], timeout: 60)
        #expect(!probe.err.contains("side by side"), "FFmpeg reads the eye as packed: \(probe.err.suffix(400))")
    }

    /// A top-bottom movie that says so (Matroska StereoMode, or `vexu/pack` in MP4) is cut top and bottom when no
    /// layout is given: `convert tb.mkv` used to cut it side by side (the default) into two 960×2160 halves that were
    /// each half of both eyes, while `validate` read the same StereoMode and measured it top-bottom. A given layout
    /// wins.
    @Test func statedTopBottomIsCutTopAndBottom() throws {
        let dir = try TestPaths.tempDir("mkv-tb-layout")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mkv = dir + "/tb.mkv", mp4 = dir + "/tb.mp4"
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=330x240:r=30:d=0.5",
            "-filter_complex", "[0:v]split[a][b];[a]crop=320:240:0:0[l];[b]crop=320:240:10:0[r];[l][r]vstack",
            "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-metadata:s:v:0",
            "stereo_mode=top_bottom", mkv,
        ])
        let c = try Run.cli(["convert", mkv, "-o", dir + "/a.mov", "--no-audio"])
        #expect(c.status == 0, "convert: \(c.err.suffix(400))")
        #expect(c.out.contains("320×240 per eye"), "\(c.out.prefix(400))")
        #expect(c.out.contains("layout: top-bottom, from the input's stereo mode"), "\(c.out.suffix(600))")
        let given = try Run.cli(["convert", mkv, "-o", dir + "/b.mov", "--no-audio", "--layout", "sbs"])
        #expect(given.status == 0 || given.status == 1, "convert --layout sbs: \(given.err.suffix(400))")
        #expect(
            given.out.contains("160×480 per eye") && !given.out.contains("layout: top-bottom"),
            "\(given.out.prefix(400))")
        // The same picture in MP4, tagged top-bottom by our own edit (vexu/pack 'over').
        try Self.ffmpeg(["-i", mkv, "-c", "copy", dir + "/plain.mp4"])
        let e = try Run.cli(["edit", dir + "/plain.mp4", "-o", mp4, "--packing", "over"])
        try #require(e.status == 0 || e.status == 1, "edit: \(e.err.suffix(400))")
        let m = try Run.cli(["convert", mp4, "-o", dir + "/c.mov", "--no-audio"])
        #expect(m.status == 0, "convert mp4: \(m.err.suffix(400))")
        #expect(
            m.out.contains("320×240 per eye") && m.out.contains("frame-packing metadata (vexu/pack)"),
            "\(m.out.suffix(600))")
        // Untagged and taller than wide (the corpus's sbs/new.mp4 is 1080×3840): cut top and bottom because its halves
        // measure as a stereo pair that way (issue 38: the shape alone no longer decides); side by side each eye would
        // be 160×480.
        let tall = dir + "/tall.mp4"
        try Self.ffmpeg([
            "-i", mkv, "-c:v", "libx264", "-preset", "ultrafast", "-metadata:s:v:0", "stereo_mode=mono", "-sn", tall,
        ])
        let t = try Run.cli(["convert", tall, "-o", dir + "/d.mov", "--no-audio"])
        #expect(t.status == 0, "convert tall: \(t.err.suffix(400))")
        #expect(
            t.out.contains("320×240 per eye") && t.out.contains("layout: top-bottom, from measuring its frames"),
            "\(t.out.suffix(600))")
    }

    /// The eyes of an MV-HEVC movie split to Matroska are single pictures too (FFmpeg's view side data is not
    /// carried as a packing), and a re-pack to Matroska says its packing.
    @Test func mvhevcEyesSplitToMatroskaAreMono() throws {
        let dir = try TestPaths.tempDir("mkv-mvhevc")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let src = dir + "/sbs.mp4"
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=640x240:r=30:d=1", "-c:v", "libx264", "-preset", "ultrafast", src,
        ])
        let c = try Run.cli([
            "convert", src, "-o", dir + "/spatial.mov", "--layout", "sbs", "--hfov", "60", "--baseline", "64",
        ])
        try #require(c.status == 0 || c.status == 1, "convert: \(c.err.suffix(400))")
        let s = try Run.cli(["split", dir + "/spatial.mov", "--left", dir + "/l.mkv", "--right", dir + "/r.mkv"])
        #expect(s.status == 0, "split to .mkv: \(s.err.suffix(400))")
        for eye in ["l", "r"] {
            let e = try Run.cli(["validate", dir + "/\(eye).mkv", "--json"])
            #expect(e.out.contains("no StereoMode"), "\(eye).mkv: \(e.out.prefix(600))")
        }
        let p = try Run.cli(["split", dir + "/spatial.mov", "--ou", dir + "/ou.mkv"])
        #expect(p.status == 0, "split --ou to .mkv: \(p.err.suffix(400))")
        let v = try Run.cli(["validate", dir + "/ou.mkv", "--json"])
        #expect(v.out.contains("StereoMode top-bottom"), "\(v.out.prefix(600))")
    }

    /// Something that only starts like Matroska is unreadable (exit 2), not a crash or a pass.
    @Test func brokenMatroskaIsUnreadable() throws {
        let dir = try TestPaths.tempDir("mkv-broken")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/broken.mkv"
        try Data([0x1A, 0x45, 0xDF, 0xA3, 0x01, 0x02, 0x03]).write(to: URL(fileURLWithPath: path))
        let v = try Run.cli(["validate", path])
        #expect(v.status == 2, "\(v.out) \(v.err)")
    }
}
