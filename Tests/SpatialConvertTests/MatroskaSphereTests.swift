import BinaryIO
import Foundation
import MediaDecode
import SpatialMedia
import TestSupport
import Testing

/// Issue 33: a VR180/360 sphere in Matroska (or anything else only FFmpeg reads) is recognised from the projection
/// and stereo mode FFmpeg reports — converted to MV-HEVC APMP without `--projection`/`--layout`, never flattened into
/// rectilinear spatial video; cropped, non-equirectangular and monoscopic spheres are refused with the reason.
@Suite("Matroska spheres")
struct MatroskaSphereTests {
    static func ffmpeg(_ args: [String]) throws {
        let r = try Run.program(try TestPrograms.requireFFmpeg(), ["-nostdin", "-v", "error", "-y"] + args)
        #expect(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.err)")
    }

    /// A stereo sphere as Matroska: FFmpeg renders a side-by-side (or over-under) clip, our `edit` tags it as APMP
    /// and then as Google spherical, and FFmpeg remuxes that into Matroska (Projection + StereoMode).
    static func sphereMKV(_ dir: String, projection: String, sbs: Bool, audio: Bool = false) throws -> String {
        let size = sbs ? "512x256" : "512x512"
        let sound = audio ? ["-f", "lavfi", "-i", "sine=f=440:d=0.5", "-c:a", "aac"] : []
        try ffmpeg(
            ["-f", "lavfi", "-i", "testsrc2=s=\(size):r=30:d=0.5"] + sound + [
                "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-shortest", dir + "/packed.mp4",
            ])
        #expect(
            try Run.cli([
                "edit", dir + "/packed.mp4", "-o", dir + "/apmp.mp4", "--packing", sbs ? "side" : "over",
                "--projection", projection,
            ]).status <= 1)
        #expect(try Run.cli(["edit", dir + "/apmp.mp4", "-o", dir + "/google.mp4", "--to-google"]).status <= 1)
        let mkv = dir + "/sphere.mkv"
        try ffmpeg(["-i", dir + "/google.mp4", "-c", "copy", mkv])
        return mkv
    }

    @Test(
        "a VR180 side-by-side Matroska converts to APMP hequ without --projection",
        arguments: [("hequ", true), ("equi", false)])
    func convertsWithoutStating(projection: String, sbs: Bool) throws {
        let dir = try TestPaths.tempDir("mkv-sphere-\(projection)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mkv = try Self.sphereMKV(dir, projection: projection, sbs: sbs)
        let probe = try Run.program(try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", mkv])
        #expect(
            probe.err.contains("Spherical Mapping"), "the fixture must carry its projection: \(probe.err.suffix(500))")
        // validate reads the sphere through FFmpeg and measures only its centre.
        let src = try Run.cli(["validate", mkv])
        #expect(
            src.out.contains("projection \(projection == "hequ" ? "tiled equirectangular" : "equirectangular")"),
            "\(src.out.prefix(600))")
        #expect(src.out.contains("measured its central 60°×60°"), "\(src.out.suffix(800))")
        let out = dir + "/vr.mov"
        let c = try Run.cli(["convert", mkv, "-o", out, "--preset", "ultrafast"])
        #expect(c.status == 0 || c.status == 1, "convert: \(c.err.suffix(500))")
        #expect(
            c.out.contains("MV-HEVC APMP \(projection == "hequ" ? "180°" : "360°") ('\(projection)')"),
            "\(c.out.prefix(500))")
        #expect(c.out.contains("remux it to MP4"), "the lossless alternative of a Matroska input: \(c.out.suffix(600))")
        #expect(
            c.out.contains("the file's projection as FFmpeg reads it"),
            "where the projection came from: \(c.out.prefix(1200))")
        let v = try Run.cli(["validate", out])
        #expect(v.out.contains(projection == "hequ" ? "APMP 180°" : "APMP 360°"), "\(v.out.prefix(500))")
        let side = try Run.program(try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", out])
        #expect(
            side.err.contains(projection == "hequ" ? "half equirectangular" : "Spherical Mapping: equirectangular"),
            "\(side.err.suffix(500))")
    }

    /// The eyes of a Matroska sphere split to MP4 keep its projection (Google sv3d, read by FFmpeg).
    @Test func splitEyesKeepTheProjection() throws {
        let dir = try TestPaths.tempDir("mkv-sphere-split")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mkv = try Self.sphereMKV(dir, projection: "hequ", sbs: true)
        let s = try Run.cli([
            "split", mkv, "--left", dir + "/l.mp4", "--right", dir + "/r.mp4", "--preset", "ultrafast",
        ])
        #expect(s.status == 0, "\(s.out) \(s.err)")
        #expect(s.out.contains("each output keeps the projection"), "\(s.out)")
        for eye in ["l", "r"] {
            let p = try Run.program(try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", dir + "/\(eye).mp4"])
            #expect(p.err.contains("Spherical Mapping: tiled equirectangular"), "\(eye).mp4: \(p.err.suffix(400))")
            #expect(!p.err.contains("side by side"), "\(eye).mp4 is one eye: \(p.err.suffix(400))")
        }
    }

    /// A sphere written to Matroska says it is one. FFmpeg alone carried the projection into Matroska only sometimes
    /// (not out of an MV-HEVC movie's views, not for an APMP-only `hequ`, and of a Google sphere split in two only
    /// into the first eye), so these outputs were flat pictures of a sphere; each is now encoded into MP4, tagged
    /// with Google's st3d + sv3d and remuxed, keeping the StereoMode and the audio.
    @Test func matroskaOutputsOfASphereKeepTheProjection() throws {
        let dir = try TestPaths.tempDir("mkv-sphere-out")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // also leaves apmp.mp4 (APMP only) and google.mp4
        let mkv = try Self.sphereMKV(dir, projection: "hequ", sbs: true, audio: true)
        let mv = dir + "/vr.mov"
        #expect(try Run.cli(["convert", mkv, "-o", mv, "--preset", "ultrafast"]).status <= 1)
        let cases: [(args: [String], outputs: [String], stereo: String)] = [
            ([dir + "/google.mp4", "--left", dir + "/gl.mkv", "--right", dir + "/gr.mkv"], ["gl", "gr"], "2D"),
            ([dir + "/apmp.mp4", "--left", dir + "/al.mkv"], ["al"], "2D"),
            ([mkv, "--left", dir + "/kl.mkv", "--right", dir + "/kr.mkv"], ["kl", "kr"], "2D"),
            ([mkv, "--ou", dir + "/kou.mkv"], ["kou"], "top and bottom"),
            ([mv, "--sbs", dir + "/back.mkv"], ["back"], "side by side"),
            ([mv, "--left", dir + "/vl.mkv", "--right", dir + "/vr.mkv"], ["vl", "vr"], "2D"),
        ]
        for c in cases {
            let r = try Run.cli(["split"] + c.args + ["--preset", "ultrafast"])
            #expect(r.status == 0, "\(c.args): \(r.out) \(r.err)")
            for name in c.outputs {
                let p = try Run.program(try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", dir + "/\(name).mkv"])
                #expect(
                    p.err.contains("Spherical Mapping: tiled equirectangular"),
                    "\(name).mkv lost the projection: \(p.err.suffix(500))")
                #expect(p.err.contains("Stereo 3D: \(c.stereo)"), "\(name).mkv: \(p.err.suffix(500))")
                #expect(p.err.contains("Audio:"), "\(name).mkv lost the audio: \(p.err.suffix(500))")
            }
        }
    }

    /// The lossless alternative names what `edit` needs: a projection that was only stated is stated to `edit` too
    /// (its `--to-apmp` reads the projection from the file's metadata, which has none), after a remux for Matroska.
    @Test func losslessAlternativeForAStatedProjection() throws {
        let dir = try TestPaths.tempDir("sphere-stated-alt")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=s=512x256:r=30:d=0.3", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt",
            "yuv420p", dir + "/plain.mkv",
        ])
        let c = try Run.cli([
            "convert", dir + "/plain.mkv", "-o", dir + "/vr.mov", "--projection", "hequ", "--preset", "ultrafast",
        ])
        #expect(c.status <= 1, "\(c.err)")
        #expect(
            c.out.contains(
                "remux it to MP4 (`ffmpeg -i IN -c copy IN.mp4`), then `spatial-media edit IN -o OUT --packing side --projection hequ`"
            ), "\(c.out.suffix(600))")
    }

    /// A stated projection that contradicts the file, and a field of view, are refused; asking for rectilinear output
    /// never flattens it silently.
    @Test func contradictionsRefused() throws {
        let dir = try TestPaths.tempDir("mkv-sphere-refuse")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mkv = try Self.sphereMKV(dir, projection: "hequ", sbs: true)
        let wrong = try Run.cli(["convert", mkv, "-o", dir + "/a.mov", "--projection", "equi"])
        #expect(wrong.status == 2, "\(wrong.out) \(wrong.err)")
        #expect(wrong.err.contains("contradicts"), "\(wrong.err)")
        let hfov = try Run.cli(["convert", mkv, "-o", dir + "/b.mov", "--hfov", "60"])
        #expect(hfov.status != 0 && hfov.err.contains("rectilinear camera"), "\(hfov.err)")
        #expect(!TestPaths.exists(dir + "/a.mov") && !TestPaths.exists(dir + "/b.mov"))
    }

    /// A Matroska sphere without a stereo mode is monoscopic as far as its metadata says: refused, and converted once
    /// the layout is stated.
    @Test func monoscopicRefusedUnlessLayoutGiven() throws {
        let dir = try TestPaths.tempDir("mkv-sphere-mono")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let mkv = try Self.sphereMKV(dir, projection: "hequ", sbs: true)
        let mono = dir + "/mono.mkv"
        try Self.ffmpeg(["-i", mkv, "-c", "copy", "-metadata:s:v:0", "stereo_mode=mono", mono])
        let r = try Run.cli(["convert", mono, "-o", dir + "/m.mov"])
        #expect(r.status == 2 && r.err.contains("monoscopic"), "\(r.out) \(r.err)")
        let s = try Run.cli(["convert", mono, "-o", dir + "/s.mov", "--layout", "sbs", "--preset", "ultrafast"])
        #expect(s.status <= 1, "\(s.err.suffix(400))")
        #expect(s.out.contains("APMP 180°"), "\(s.out.prefix(400))")
    }

    /// FFmpeg's spherical lines and the decisions taken from them (no files needed).
    @Test func probeDecisions() throws {
        func probe(_ mapping: String, stereo: String? = "side by side", size: String = "2160x1080") -> MediaProbe {
            var text =
                "Input #0, matroska,webm, from 'x.mkv':\n  Duration: 00:00:01.00, start: 0.000000, bitrate: 1 kb/s\n"
            text +=
                "  Stream #0:0: Video: h264 (High), yuv420p(progressive), \(size) [SAR 1:1 DAR 2:1], 30 fps, 30 tbr, 1k tbn (default)\n    Side data:\n"
            if let stereo { text += "      Stereo 3D: \(stereo), view: packed, primary eye: none\n" }
            text += "      Spherical Mapping: \(mapping) \n"
            return MediaProbe.parse(text)
        }
        func decided(_ p: MediaProbe, _ stated: FourCC? = nil) -> (FourCC?, String?) {
            switch p.sphereSplit(projection: stated, packing: nil) {
            case .success(let s): return (s?.projection, nil)
            case .failure(let e): return (nil, e.reason)
            }
        }
        let vr180 = probe("tiled equirectangular [1081, 0, 1079, 0]")
        #expect(
            vr180.spherical
                == MediaProbe.Spherical(projection: "tiled equirectangular", tileBounds: [1081, 0, 1079, 0]))
        #expect(vr180.videoSize?.width == 2160 && vr180.videoSize?.height == 1080)
        #expect(decided(vr180).0 == "hequ")
        #expect(decided(probe("equirectangular", stereo: "top and bottom", size: "2048x2048")).0 == "equi")
        #expect(decided(probe("half equirectangular")).0 == "hequ")
        let cropped = decided(probe("tiled equirectangular [200, 0, 200, 0]"))
        #expect(cropped.1?.contains("covers 304°×180°") == true, "\(cropped)")
        #expect(decided(probe("cubemap")).1?.contains("'cubemap'") == true)
        #expect(decided(probe("equirectangular", stereo: nil)).1?.contains("monoscopic") == true)
        #expect(decided(vr180, "equi").1?.contains("contradicts") == true)
        #expect(decided(probe("rectilinear")).0 == nil && decided(probe("rectilinear")).1 == nil)
        #expect(probe("equirectangular").sphereRefusal?.contains("flatten") == true)
    }
}
