import BinaryIO
import Foundation
import ISOBMFF
import SpatialMedia
import TestSupport
import Testing

/// Issue 33 part 1: a frame-packed 180°/360° stereo movie → MV-HEVC APMP (`convert`), and back to frame-packed with
/// Google `st3d`/`sv3d` (`split --sbs|--ou`), checked with FFmpeg 9 (both views decoded by view position, the side
/// data it reads) and our validator. One movie is made here (FFmpeg + our own metadata writer), so the route is tested
/// without ../shared; the corpus VR file adds the real-world case.
@Suite("Sphere conversion (APMP)")
struct SphereConversionTests {
    static let room = "corpus/spherical/testRoom1_1080Stereo.mp4"

    /// `ffmpeg ARGS`, failing the test with FFmpeg's message.
    static func ffmpeg(_ args: [String]) throws {
        let r = try Run.program(try TestPrograms.requireFFmpeg(), ["-nostdin", "-v", "error", "-y"] + args)
        #expect(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.err)")
    }

    /// The side-data lines FFmpeg prints for the first video stream of `path` ("Stereo 3D: …", "Spherical Mapping: …").
    static func sideData(_ path: String) throws -> [String] {
        let r = try Run.program(try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", path])
        return r.err.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("Stereo 3D:") || $0.hasPrefix("Spherical Mapping:") }
    }

    /// PSNR (dB, all planes) of one decoded view of `output` against FFmpeg's crop of `source`, compared as raw 4:2:0
    /// samples (FFmpeg's psnr filter would convert between the untagged source's and our BT.709-tagged colour first).
    static func psnr(source: String, crop: String, output: String, view: String, dir: String) throws -> Double {
        let a = dir + "/a.yuv", b = dir + "/b.yuv"
        try ffmpeg(["-i", source, "-vf", "crop=\(crop)", "-f", "rawvideo", "-pix_fmt", "yuv420p", a])
        try ffmpeg([
            "-i", output, "-filter_complex", "[0:v:0:vpos:\(view)]null[o]", "-map", "[o]", "-f", "rawvideo", "-pix_fmt",
            "yuv420p", b,
        ])
        let x = try Data(contentsOf: URL(fileURLWithPath: a)), y = try Data(contentsOf: URL(fileURLWithPath: b))
        #expect(x.count == y.count && !x.isEmpty, "\(view) view: \(y.count) bytes against the source's \(x.count)")
        var sum = 0.0
        x.withUnsafeBytes { p in
            y.withUnsafeBytes { q in
                for i in 0..<min(p.count, q.count) { let d = Double(p[i]) - Double(q[i]); sum += d * d }
            }
        }
        let mse = sum / Double(max(1, min(x.count, y.count)))
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    static func entry(_ path: String) throws -> Box {
        let f = try ISOFile.open(path: path)
        return try #require(f.tracks.first { $0.handler == "vide" }?.sampleEntries.first)
    }

    static func failure(_ r: Result<SphereSplit?, SphericalConversionError>) -> SphericalConversionError? {
        if case .failure(let e) = r { return e }
        return nil
    }

    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Converts `input` (plus `extra` options), checks what the must-show asks of the result, and returns its path.
    static func convertAndCheck(
        _ input: String, projection: String, ffmpegName: String, crops: (left: String, right: String),
        dir: String, extra: [String] = []
    ) throws -> String {
        let out = dir + "/vr.mov"
        let r = try Run.cli(["convert", input, "-o", out, "--json"] + extra)
        #expect(r.status == 0, "convert: \(r.err)")
        let report = try json(r.out)
        #expect(report["projection"] as? String == projection)
        let check = try #require(report["output_check"] as? [String: Any], "no read-back in \(report.keys)")
        #expect(check["verdict"] as? String == "passed" && (check["introduced"] as? [Any])?.isEmpty == true)
        // The boxes: MV-HEVC with vexu{eyes{stri}, proj{prji}}, no hfov.
        let e = try entry(out)
        #expect(e.child("lhvC") != nil && e.child("hfov") == nil)
        #expect(
            e.find("vexu", "proj", "prji")?.payload(ProjectionInformationBox.self)?.projectionKind.description
                == projection)
        #expect(e.find("vexu", "eyes", "stri")?.payload(StereoViewInformationBox.self)?.flagsByte == 0x03)
        #expect(e.find("vexu", "pack") == nil)
        // FFmpeg reads the projection, and decodes both views: each its half of the source.
        let side = try sideData(out)
        #expect(side.contains("Spherical Mapping: \(ffmpegName)"), "\(side)")
        let left = try psnr(source: input, crop: crops.left, output: out, view: "left", dir: dir)
        let right = try psnr(source: input, crop: crops.right, output: out, view: "right", dir: dir)
        #expect(left >= 35 && right >= 35, "PSNR left \(left) dB, right \(right) dB")
        // Our validate: the APMP profile, no ERROR.
        let v = try Run.cli(["validate", out, "--json", "--no-pixels"])
        let vj = try json(v.out)
        let findings = vj["findings"] as? [[String: Any]] ?? []
        #expect(
            !findings.contains { $0["severity"] as? String == "error" },
            "\(findings.filter { $0["severity"] as? String == "error" })")
        #expect(v.out.contains(projection == "hequ" ? "apmp-180" : "apmp-360"))
        return out
    }

    /// `split --sbs|--ou` of the APMP movie `out`: the packed picture keeps the projection (no hfov) and carries
    /// Google's st3d/sv3d for it, and FFmpeg reads the packing and the projection. Returns the packed movie.
    static func packBack(_ out: String, sbs: Bool, projection: FourCC, ffmpegName: String, dir: String) throws -> String
    {
        let back = dir + "/back.mp4"
        let s = try Run.cli(["split", out, sbs ? "--sbs" : "--ou", back])
        #expect(s.status == 0, "split: \(s.err)")
        let b = try entry(back)
        #expect(
            b.find("vexu", "proj", "prji")?.payload(ProjectionInformationBox.self)?.projectionKind == projection
                && b.child("hfov") == nil)
        #expect(
            b.find("vexu", "pack", "pkin")?.payload(ViewPackingInformationBox.self)?.packingKind
                == (sbs ? "side" : "over"))
        #expect(b.child("st3d")?.payload(Stereoscopic3DVideoBox.self)?.stereoMode == (sbs ? 2 : 1))
        let q: UInt32 = projection == "hequ" ? 0x4000_0000 : 0
        #expect(
            b.find("sv3d", "proj", "equi")?.payload(EquirectangularProjectionBox.self)?.storedFields == [
                0, 0, UInt64(q), UInt64(q),
            ])
        let side = try sideData(back)
        #expect(
            side.contains { $0.hasPrefix(sbs ? "Stereo 3D: side by side" : "Stereo 3D: top and bottom") }
                && side.contains("Spherical Mapping: \(ffmpegName)"), "\(side)")
        return back
    }

    @Test func generatedVR180RoundTrip() throws {
        let dir = try TestPaths.tempDir("sphere180")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A 1 s side-by-side 180° stereo clip (two 192×192 eyes, the right one seeing the scene shifted; softened a
        // little, as a camera's picture is, so the default CRF of the coarser non-hero eye keeps 35 dB), H.264,
        // untagged.
        let sbs = dir + "/sbs.mp4"
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=200x192:rate=30", "-frames:v", "30",
            "-filter_complex",
            "[0:v]gblur=sigma=1,split[a][b];[a]crop=192:192:0:0[l];[b]crop=192:192:8:0[r];[l][r]hstack",
            "-c:v", "libx264", "-crf", "10", "-pix_fmt", "yuv420p", sbs,
        ])
        // Tagged by our own writer: APMP first, then Google's form of it (st3d 2, sv3d equi with the middle-half
        // bounds).
        let apmp = dir + "/apmp.mp4", google = dir + "/google.mp4"
        #expect(try Run.cli(["edit", sbs, "-o", apmp, "--packing", "side", "--projection", "hequ"]).status <= 1)
        #expect(try Run.cli(["edit", apmp, "-o", google, "--to-google"]).status <= 1)
        let g = try Self.entry(google)
        #expect(g.child("vexu") == nil && g.child("st3d") != nil && g.find("sv3d", "proj", "equi") != nil)
        let source = try Self.sideData(google)

        let out = try Self.convertAndCheck(
            google, projection: "hequ", ffmpegName: "half equirectangular",
            crops: ("192:192:0:0", "192:192:192:0"), dir: dir)
        // The way back: side by side with APMP and Google metadata; the Google boxes alone read as the source's.
        let back = try Self.packBack(out, sbs: true, projection: "hequ", ffmpegName: "half equirectangular", dir: dir)
        let googleOnly = dir + "/back_google.mp4"
        #expect(try Run.cli(["edit", back, "-o", googleOnly, "--to-google"]).status <= 1)
        let googleSide = try Self.sideData(googleOnly)
        #expect(
            googleSide == source, "FFmpeg reads the way back's Google boxes as \(googleSide), the source's as \(source)"
        )
    }

    @Test(.needs(.shared(SphereConversionTests.room)))
    func corpusVR360ToMVHEVCAndBack() throws {
        let dir = try TestPaths.tempDir("sphere360")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let original = TestPaths.sharedPath(Self.room)
        // The v1 XML is read: 360° equirectangular, over-under.
        let split = try #require(SpatialVideoReport.sphereSplit(path: original, projection: nil, packing: nil))
        #expect(
            try split.get()
                == SphereSplit(projection: "equi", packing: .topBottom, source: "Google spherical v1 (uuid XML)"))
        // 1 s of it as FFmpeg 9 writes it (st3d/sv3d, vexu{proj 'equi', eyes}).
        let room = dir + "/room.mp4"
        try Self.ffmpeg(["-i", original, "-c", "copy", "-t", "1", "-strict", "unofficial", room])
        let out = try Self.convertAndCheck(
            room, projection: "equi", ffmpegName: "equirectangular",
            crops: ("1080:540:0:0", "1080:540:0:540"), dir: dir)
        _ = try Self.packBack(out, sbs: false, projection: "equi", ffmpegName: "equirectangular", dir: dir)
    }

    @Test(.needs(.shared(SphereConversionTests.room)))
    func untaggedSphereTakesAStatedProjection() throws {
        let dir = try TestPaths.tempDir("sphere-untagged")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A plain MP4 copy drops the spherical metadata: the projection is stated, the layout read from the shape.
        let plain = dir + "/plain.mp4"
        try Self.ffmpeg(["-i", TestPaths.sharedPath(Self.room), "-c", "copy", "-t", "0.5", plain])
        let refused = try Run.cli(["convert", plain, "-o", dir + "/x.mov", "--projection", "fish"])
        #expect(refused.status == 64 && refused.err.contains("hequ"))
        _ = try Self.convertAndCheck(
            plain, projection: "equi", ffmpegName: "equirectangular",
            crops: ("1080:540:0:0", "1080:540:0:540"), dir: dir, extra: ["--projection", "equi"])
    }

    @Test func refusalsNameTheReason() throws {
        let dir = try TestPaths.tempDir("sphere-refuse")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = dir + "/mono.mp4", mono = dir + "/mono360.mp4"
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=256x128:rate=30", "-frames:v", "5", "-c:v", "libx264", "-pix_fmt",
            "yuv420p", clip,
        ])
        #expect(try Run.cli(["edit", clip, "-o", mono, "--projection", "equi"]).status <= 1)
        // A monoscopic sphere has one view.
        let m = try Run.cli(["convert", mono, "-o", dir + "/m.mov"])
        #expect(m.status == 2 && m.err.contains("monoscopic") && m.err.contains("--to-apmp"), "\(m.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/m.mov"))
        // A field of view does not describe a sphere; a stated layout the shape allows but the metadata contradicts is
        // refused.
        let sbs = dir + "/sbs.mp4", tagged = dir + "/tagged.mp4"
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=256x128:rate=30", "-frames:v", "5", "-c:v", "libx264", "-pix_fmt",
            "yuv420p", sbs,
        ])
        #expect(try Run.cli(["edit", sbs, "-o", tagged, "--packing", "side", "--projection", "hequ"]).status <= 1)
        let h = try Run.cli(["convert", tagged, "-o", dir + "/h.mov", "--hfov", "90"])
        #expect(h.status == 64 && h.err.contains("rectilinear"), "\(h.err)")
        let t = try Run.cli(["convert", tagged, "-o", dir + "/t.mov", "--layout", "tb"])
        #expect(t.status == 2 && t.err.contains("contradicts"), "\(t.err)")
        let p = try Run.cli(["convert", tagged, "-o", dir + "/p.mov", "--projection", "equi"])
        #expect(p.status == 2 && p.err.contains("contradicts"), "\(p.err)")
    }

    /// `path` rewritten with Google's spatial-audio box (`SA3D`: first-order ambisonics, ACN/SN3D, 4 channels) in
    /// every `soun` sample entry (`mdat` before `moov`, so no chunk offset moves).
    static func addSA3D(_ path: String, to out: String) throws {
        var f = try ISOFile.open(path: path)
        let sa3d = Box(
            type: "SA3D",
            fields: .raw([0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3]))
        func visit(_ b: inout Box) {
            if b.type == "mp4a" || b.type == "Opus" { b.children = (b.children ?? []) + [sa3d]; return }
            guard var kids = b.children else { return }
            for i in kids.indices { visit(&kids[i]) }
            b.children = kids
        }
        #expect(f.boxes.firstIndex { $0.type == "mdat" } ?? 0 < f.boxes.firstIndex { $0.type == "moov" } ?? 0)
        for i in f.boxes.indices { visit(&f.boxes[i]) }
        try Data(try f.serialized()).write(to: URL(fileURLWithPath: out))
    }

    /// Google spatial audio: kept (and said) when its track is copied, said dropped when FFmpeg transcodes it.
    @Test func spatialAudioIsKeptOrSaidDropped() throws {
        let dir = try TestPaths.tempDir("sphere-audio")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (codec, kept) in [("aac", true), ("libopus", false)] {
            let clip = dir + "/\(codec).mp4", tagged = dir + "/\(codec)-tagged.mp4", amb = dir + "/\(codec)-amb.mp4",
                out = dir + "/\(codec).mov"
            try Self.ffmpeg([
                "-f", "lavfi", "-i", "testsrc2=size=256x128:rate=30", "-f", "lavfi", "-i", "sine=f=440:r=48000",
                "-frames:v", "10", "-t", "0.34", "-filter_complex",
                "[1:a][1:a][1:a][1:a]join=inputs=4:channel_layout=quad[a]",
                "-map", "0:v", "-map", "[a]", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a", codec, clip,
            ])
            #expect(try Run.cli(["edit", clip, "-o", tagged, "--packing", "side", "--projection", "hequ"]).status <= 1)
            try Self.addSA3D(tagged, to: amb)
            let r = try Run.cli(["convert", amb, "-o", out, "--preset", "ultrafast", "--json"])
            #expect(r.status == 0, "\(codec): \(r.err)")
            let notes = (try Self.json(r.out)["notes"] as? [String]) ?? []
            #expect(
                notes.contains { $0.hasPrefix(kept ? "spatial audio kept" : "spatial audio dropped") },
                "\(codec): \(notes)")
            let f = try ISOFile.open(path: out)
            let entries = f.tracks.filter { $0.handler == "soun" }.flatMap(\.sampleEntries)
            #expect(entries.contains { $0.child("SA3D") != nil } == kept, "\(codec): \(entries.map(\.type))")
        }
    }

    /// The decision itself on metadata a VR180 camera writes: a cropped picture is not tagged as a full hemisphere, a
    /// mesh needs its kind stated, eye order follows `stri`.
    @Test func sphereSplitDecisions() throws {
        var crop = StereoVideoMetadata()
        crop.presentBoxes = ["st3d", "sv3d"]
        crop.googleStereoMode = 2
        crop.googleProjection = "equi"
        crop.googleEquirectBounds = [0x1D55_5555, 0x1D55_5555, 0x4CCC_CCCC, 0x4CCC_CCCC]  // ≈ 137°×96°
        let e = try #require(
            Self.failure(crop.sphereSplit(width: 3840, height: 1920, projection: nil, packing: nil)),
            "a cropped VR180 picture was accepted")
        #expect(e.reason.contains("stretched") && e.reason.contains("neither the whole sphere"))
        var mesh = crop
        mesh.googleProjection = "mshp"
        mesh.googleEquirectBounds = nil
        let me = try #require(
            Self.failure(mesh.sphereSplit(width: 3840, height: 1920, projection: nil, packing: nil)),
            "a mesh was accepted without a stated projection")
        #expect(me.remedy == .giveProjection)
        let stated = try mesh.sphereSplit(width: 3840, height: 1920, projection: "hequ", packing: nil).get()
        #expect(
            stated?.projection == "hequ" && stated?.packing == .sideBySide
                && stated?.notes.first?.contains("mesh") == true)
        var reversed = StereoVideoMetadata()
        reversed.presentBoxes = ["vexu", "vexu/eyes", "vexu/eyes/stri", "vexu/proj", "vexu/pack"]
        reversed.viewFlags = StereoViewFlags(left: true, right: true, reversed: true)
        reversed.projectionKind = "hequ"
        reversed.viewPackingKind = "over"
        #expect(
            try reversed.sphereSplit(width: 1024, height: 2048, projection: nil, packing: nil).get()?.firstIsRight
                == true)
        #expect(SphereSplit.packing(width: 3840, height: 1920, projection: "hequ") == .sideBySide)
        #expect(SphereSplit.packing(width: 2048, height: 2048, projection: "equi") == .topBottom)
        #expect(SphereSplit.packing(width: 1920, height: 1080, projection: "hequ") == nil)
        #expect(
            try StereoVideoMetadata().sphereSplit(width: 100, height: 100, projection: nil, packing: nil).get() == nil)
    }
}

extension SphereConversionTests {
    /// Issue 38 (smaller items): a Google VR180 whose projection is a mesh (`sv3d/proj/mshp`, what VR180 cameras
    /// write). Before, `split` answered with FFmpeg's internal error text ("…rminating thread with return code -22")
    /// and the sphere refusal's `--projection` advice ended in raw FFmpeg errors. Now: `split` cuts the eyes and says
    /// the mesh has no Google equirectangular form; `convert` refuses naming the projection to state; with it, it
    /// converts.
    @Test func meshVR180SplitsAndConvertsWithItsProjectionStated() throws {
        let dir = try TestPaths.tempDir("sphere-mesh")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sbs = dir + "/sbs.mp4", apmp = dir + "/apmp.mp4", google = dir + "/google.mp4", mesh = dir + "/mesh.mp4"
        try Self.ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=512x256:rate=30", "-frames:v", "15", "-c:v", "libx264", "-preset",
            "ultrafast",
            "-pix_fmt", "yuv420p", sbs,
        ])
        #expect(try Run.cli(["edit", sbs, "-o", apmp, "--packing", "side", "--projection", "hequ"]).status <= 1)
        #expect(try Run.cli(["edit", apmp, "-o", google, "--to-google"]).status <= 1)
        // The 28-byte `equi` box becomes a `mshp` of the same size: version/flags, CRC, encoding 'raw ', an empty mesh.
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: google)))
        let tag: [UInt8] = Array("equi".utf8)
        let found: Int? = (0..<(bytes.count - 28)).first { (i: Int) -> Bool in Array(bytes[i..<(i + 4)]) == tag }
        let at = try #require(found)
        let body: [UInt8] =
            Array("mshp".utf8) + [0, 0, 0, 0, 0, 0, 0, 0] + Array("raw ".utf8) + [0, 0, 0, 8] + Array("mesh".utf8)
        bytes.replaceSubrange(at..<(at + body.count), with: body)
        try Data(bytes).write(to: URL(fileURLWithPath: mesh))
        #expect(try Self.entry(mesh).find("sv3d", "proj", "mshp") != nil)

        let split = try Run.cli([
            "split", mesh, "--left", dir + "/l.mp4", "--right", dir + "/r.mp4", "--preset", "ultrafast",
        ])
        #expect(split.status == 0, "\(split.err)")
        #expect(
            split.out.contains("mesh ('mshp')") && !(split.out + split.err).contains("return code"),
            "\(split.out) \(split.err)")
        let refused = try Run.cli(["convert", mesh, "-o", dir + "/m.mov", "--preset", "ultrafast"])
        #expect(
            refused.status == 2 && refused.err.contains("mesh") && refused.err.contains("--projection hequ|equi"),
            "\(refused.err)")
        #expect(
            !refused.err.contains("return code") && !refused.err.contains("Error opening"),
            "no raw FFmpeg text: \(refused.err)")
        let stated = try Run.cli([
            "convert", mesh, "-o", dir + "/m.mov", "--preset", "ultrafast", "--projection", "hequ",
        ])
        #expect(stated.status <= 1, "\(stated.err)")
        #expect(FileManager.default.fileExists(atPath: dir + "/m.mov"))
    }
}
