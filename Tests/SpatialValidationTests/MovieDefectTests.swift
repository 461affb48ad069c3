import BinaryIO
import Foundation
import HEVC
import ISOBMFF
import MediaDecode
import SpatialConvert
import SpatialMedia
import SpatialValidation
import TestSupport
import Testing

/// Issue 28, movie defects: every output the tool writes passes its own validator, damaged inputs are refused, and
/// info/validate/fix agree on what a movie presents. Inputs are corpus files (skipped when ../shared is absent, with
/// the reason) or made by the test (FFmpeg as the product locates it: setup installs it, so its absence fails).
@Suite struct MovieDefectTests {
    static let ffmpegViews: FFmpegTool? = FFmpeg.locate(.mvhevcViews)
    static let ffmpeg: FFmpegTool? = FFmpeg.locate(.any)

    static func errors(_ r: ValidationReport) -> [String] {
        r.findings.filter { $0.severity == .error }.map { "\($0.ruleID): \($0.message)" }
    }

    static func metadataOnly() -> ValidationOptions {
        var o = ValidationOptions()
        o.pixels = false
        return o
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func write(_ bytes: [UInt8], _ path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }

    // MARK: a. split --sbs/--ou is tagged as frame-packed stereo

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func splitSideBySideAndOverUnderAreTaggedFramePacked() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        for (name, target, packing) in [
            ("x.mov", VideoSplitTarget.sideBySide(d + "/x.mov"), FramePacking.sideBySide),
            ("x.mp4", .sideBySide(d + "/x.mp4"), .sideBySide),
            ("y.mp4", .overUnder(d + "/y.mp4"), .topBottom),
        ] {
            try VideoSplitter.split(Corpus.appleVideo, options: VideoSplitOptions(target: target))
            let out = d + "/" + name
            let r = Validator.validate(path: out, options: Self.metadataOnly())
            #expect(Self.errors(r).isEmpty, "\(name): \(Self.errors(r))")
            let file = try ISOFile.open(path: out)
            let m = try #require(SpatialVideoReport(file).primary).metadata
            #expect(m.framePacking == packing, "\(name)")
            #expect(m.viewFlags.map { $0.hasLeftEye && $0.hasRightEye } == true, "\(name): stri must say both eyes")
            #expect(m.heroEye == .left, "\(name): the source's hero eye")
            // An MP4 also carries Google's st3d for players that read only that.
            #expect(name.hasSuffix(".mp4") == (m.googleStereoMode != nil), "\(name)")
            // FFmpeg reads the same stereo facts.
            let ff = try #require(Self.ffmpeg).path
            let text = try Self.stderr(ff, ["-hide_banner", "-i", out])
            #expect(
                text.contains(
                    packing == .sideBySide
                        ? "Stereo 3D: side by side, view: packed" : "Stereo 3D: top and bottom, view: packed"),
                "\(name): \(text)")
        }
    }

    /// Runs a program; returns its standard error (or, with `stdout`, its standard output).
    static func capture(_ exe: String, _ args: [String], stdout: Bool = false) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        let pipe = Pipe()
        if stdout {
            p.standardOutput = pipe; p.standardError = FileHandle.nullDevice
        } else {
            p.standardError = pipe; p.standardOutput = FileHandle.nullDevice
        }
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    static func stderr(_ exe: String, _ args: [String]) throws -> String { try capture(exe, args) }

    /// Makes a test input with FFmpeg (`-v error -y` + `args`).
    static func make(_ args: [String]) throws {
        _ = try capture(try #require(ffmpeg).path, ["-v", "error", "-y"] + args)
    }

    /// FFmpeg's frame md5 lines of the first video stream of `path`.
    static func frameMD5(_ path: String) throws -> String {
        try stdout(try #require(ffmpeg).path, ["-v", "error", "-i", path, "-f", "framemd5", "-"]).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }.joined(separator: "\n")
    }

    // MARK: d. damaged / truncated movies are refused by every writer

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func truncatedMoviesAreRefusedByEveryWriterWithOffsetAndPath() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        // moov at the end, cut inside it; and moov first (after a repair), cut inside mdat.
        let whole = try Self.bytes(Corpus.appleVideo)
        let cutMoov = d + "/cut-moov.mp4"
        try Self.write(Array(whole.prefix(whole.count - 400)), cutMoov)
        let fast = d + "/fast.mov"
        _ = try MovieRepair.fix(path: Corpus.appleVideo, output: fast, inPlace: false)
        let f = try Self.bytes(fast)
        let cutMdat = d + "/cut-mdat.mov"
        try Self.write(Array(f.prefix(f.count - 500)), cutMdat)
        for input in [cutMoov, cutMdat] {
            let faults = try ISOFile.open(path: input).integrityFaults()
            #expect(!faults.isEmpty, "\(input)")
            var edit = SpatialVideoEdit()
            edit.baselineMicrometres = .set(60_000)
            let writers: [(String, () throws(ParseError) -> Void)] = [
                (
                    "edit",
                    { () throws(ParseError) in
                        _ = try SpatialVideoEditor.edit(path: input, output: d + "/e.mov", inPlace: false, edit: edit)
                    }
                ),
                (
                    "fix",
                    { () throws(ParseError) in
                        _ = try MovieRepair.fix(path: input, output: d + "/f.mov", inPlace: false)
                    }
                ),
                (
                    "split",
                    { () throws(ParseError) in
                        try VideoSplitter.split(input, options: VideoSplitOptions(target: .sideBySide(d + "/s.mov")))
                    }
                ),
            ]
            for (name, run) in writers {
                do throws(ParseError) {
                    try run()
                    Issue.record("\(name) accepted the damaged \(input)")
                } catch {
                    #expect(error.message.contains("damaged or truncated"), "\(name): \(error)")
                    #expect(error.offset == faults[0].offset, "\(name): \(error)")
                }
            }
            for out in ["e.mov", "f.mov", "s.mov"] { #expect(!FileManager.default.fileExists(atPath: d + "/" + out)) }
            // validate names the same fault.
            let r = Validator.validate(path: input, options: Self.metadataOnly())
            #expect(r.fired("SV-FILE-002") || r.fired("SV-FILE-003"))
        }
    }

    // MARK: b. fix's hero follows the layer → eye mapping

    @Test
    func fixAddsTheBaseLayersEyeAsHero() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        // Two single-layer eyes (FFmpeg + x265), assembled with the right eye as the base layer and no hero box.
        let l = d + "/l.hevc", r = d + "/r.hevc"
        for (out, src) in [(l, "testsrc=size=96x64:rate=30"), (r, "testsrc2=size=96x64:rate=30")] {
            try Self.make([
                "-f", "lavfi", "-i", src, "-frames:v", "6", "-pix_fmt", "yuv420p", "-c:v", "libx265",
                "-x265-params", "log-level=error:bframes=0", "-f", "hevc", out,
            ])
        }
        var assembly = MVHEVCAssemblyOptions()
        assembly.baseIsLeft = false
        var mux = SpatialVideoMuxOptions()
        mux.stereo.heroEye = nil
        let movie = d + "/right-base.mov"
        try MVHEVCAssembler.assemble(left: l, right: r, output: movie, assembly: assembly, mux: mux)
        let entry = try #require(try ISOFile.open(path: movie).tracks.first?.sampleEntries.first)
        #expect(SpatialVideoEditor.baseLayerIsLeft(sampleEntry: entry) == false)
        #expect(SpatialVideoReport(try ISOFile.open(path: movie)).primary?.metadata.heroEye == nil)
        let fixed = d + "/fixed.mov"
        let result = try MovieRepair.fix(path: movie, output: fixed, inPlace: false)
        #expect(result.repairs.contains { $0.contains("added hero eye right") }, "\(result.repairs)")
        #expect(SpatialVideoReport(try ISOFile.open(path: fixed)).primary?.metadata.heroEye == .right)
        let v = Validator.validate(path: fixed, options: Self.metadataOnly())
        #expect(
            !v.findings.contains { $0.message.contains("hero") && $0.severity >= .warning },
            "\(v.findings.map(\.message))")
    }

    // MARK: j. fix --hero/--hfov that no track takes is refused

    @Test(.needs(.sharedFiles(Corpus.smallSpatial)))
    func fixRefusesValuesNoTrackTakes() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        // An MV-HEVC movie without vexu: the given values are written (the layers are the eyes).
        var strip = SpatialVideoEdit()
        strip.removeSpatial = true
        let bare = d + "/bare.mov"
        _ = try SpatialVideoEditor.edit(path: Corpus.smallSpatial, output: bare, inPlace: false, edit: strip)
        var o = RepairOptions()
        o.heroEye = .left
        o.horizontalFieldOfViewMillidegrees = 60_000
        let r = try MovieRepair.fix(path: bare, output: d + "/tagged.mov", inPlace: false, options: o)
        let m = try #require(SpatialVideoReport(try ISOFile.open(path: d + "/tagged.mov")).primary).metadata
        #expect(m.heroEye == .left && m.horizontalFieldOfViewMillidegrees == 60_000, "\(r.repairs)")
        // A track that already has both: the values would be unused, so the request is refused.
        #expect(throws: ParseError.self) {
            try MovieRepair.fix(path: Corpus.smallSpatial, output: d + "/x.mov", inPlace: false, options: o)
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/x.mov"))
    }

    // MARK: i. fix writes no dead copy of the samples it rewrites

    @Test
    func fixOfHev1LeavesNoDeadCopies() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let src = d + "/hev1.mp4"
        try Self.make([
            "-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-t", "1", "-c:v", "libx265",
            "-tag:v", "hev1", "-x265-params", "repeat-headers=1:keyint=10:log-level=error", "-f", "mp4", src,
        ])
        let fixed = d + "/fixed.mp4"
        let r = try MovieRepair.fix(path: src, output: fixed, inPlace: false)
        #expect(r.repairs.contains { $0.contains("'hev1' → 'hvc1'") }, "\(r.repairs)")
        let before = try Self.bytes(src).count, after = try Self.bytes(fixed).count
        // Was +73 % (every sample with parameter sets copied to a new mdat); now only the moov's tables grow.
        #expect(Double(after) <= Double(before) * 1.02, "\(before) → \(after) bytes")
        #expect(try Self.frameMD5(src) == Self.frameMD5(fixed))
        let v = Validator.validate(path: fixed, options: Self.metadataOnly())
        #expect(!v.fired("SV-FILE-002") && !v.fired("SV-FILE-003"))
    }

    // MARK: f. negative offsets in a version-0 ctts

    @Test
    func negativeOffsetsInVersion0CttsAreSigned() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let v1 = d + "/v1.mov"
        try Self.make([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=30", "-frames:v", "5", "-pix_fmt", "yuv420p",
            "-c:v", "libx265", "-x265-params", "bframes=3:b-adapt=0:log-level=error", "-movflags",
            "+negative_cts_offsets", "-f", "mov", v1,
        ])
        // The same movie with the ctts version byte set to 0 (as some writers store negative offsets).
        var b = try Self.bytes(v1)
        let at = try #require(try Temp.find(v1, "ctts").first)
        #expect(b[at + 4] == 1)
        b[at + 4] = 0
        let v0 = d + "/v0.mov"
        try Self.write(b, v0)
        let t0 = try #require(try ISOFile.open(path: v0).tracks.first),
            t1 = try #require(try ISOFile.open(path: v1).tracks.first)
        #expect(try t0.samples().map(\.presentationTime) == t1.samples().map(\.presentationTime))
        #expect(
            try t0.samples().contains { $0.presentationTime < Int64($0.decodeTime) }, "the clip needs negative offsets")
        let movie = try ISOFile.open(path: v0)
        // Was 3 of 5 (offsets read as unsigned pushed two frames past the edit).
        #expect(t0.presentedFrameCount(movieTimescale: movie.movieTimescale) == 5)
        #expect(try movie.serialized() == b, "the box keeps its version and bytes")
        #expect(Validator.validate(path: v0, options: Self.metadataOnly()).fired("SV-VIDEO-038"))
    }

    // MARK: g, h. one notion of presented frames; pixel checks sample presented frames

    static func hiddenLastFrame(_ d: String) throws -> String {
        var b = try Self.bytes(Corpus.appleVideo)
        let at = try #require(try Temp.find(Corpus.appleVideo, "elst").first)
        // elst v0: version/flags, count, segment_duration (200 of 600 = 10 frames) → 180: the last frame is hidden.
        #expect(Array(b[(at + 12)..<(at + 16)]) == [0, 0, 0, 200])
        b[at + 15] = 180
        let out = d + "/hidden.mp4"
        try Self.write(b, out)
        return out
    }

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func infoValidateAndFixCountTheSamePresentedFrames() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let movie = try Self.hiddenLastFrame(d)
        let file = try ISOFile.open(path: movie)
        let track = try #require(file.tracks.first)
        #expect(track.presentedFrameCount(movieTimescale: file.movieTimescale) == 9)
        #expect(ContainerSummary(file).tracks.first?.presentedSamples == 9)
        let r = Validator.validate(path: movie, options: Self.metadataOnly())
        #expect(r.fired("SV-VIDEO-037"))
        #expect(r.findings.contains { $0.ruleID == "SV-VIDEO-037" && $0.message.contains("9 of 10") })
        let fixed = try MovieRepair.fix(path: movie, output: d + "/f.mp4", inPlace: false)
        #expect(fixed.notes.contains { $0.contains("9 of 10") }, "\(fixed.notes)")
    }

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func pixelCheckSamplesOnlyPresentedFrames() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let movie = try Self.hiddenLastFrame(d)
        let r = Validator.validate(path: movie)
        // Was: SV-GEOM-021 "FFmpeg decoded no picture at frame 9" and no pixel check at all.
        #expect(!r.fired("SV-GEOM-021"), "\(r.findings.filter { $0.ruleID == "SV-GEOM-021" }.map(\.message))")
        #expect(r.measurements.count == 3)
        #expect(r.findings.contains { $0.ruleID == "SV-GEOM-022" && $0.message.contains("frame 8") })
    }

    // MARK: c. a cropped VR180 picture is not tagged as a full hemisphere without a word

    static let vr = Corpus.root + "/corpus/spherical/testRoom1_1080Stereo.mp4"

    /// The corpus VR180/360 movie with its v1 XML replaced by Google v2 boxes: st3d top-bottom and `projection`.
    static func withGoogleV2(_ projection: Box, _ out: String) throws {
        let file = try ISOFile.open(path: vr)
        let mi = try #require(file.boxes.firstIndex { $0.type == "moov" })
        #expect(file.boxes.lastIndex { $0.type == "mdat" } ?? 0 < mi, "moov last: chunk offsets stay valid")
        var moov = file.boxes[mi]
        var kids = try #require(moov.children)
        let ti = try #require(kids.firstIndex { $0.type == "trak" })
        var trak = kids[ti]
        _ = trak.removeChildren("uuid")
        var stbl = try #require(trak.find("mdia", "minf", "stbl"))
        var stsd = try #require(stbl.child("stsd"))
        var entry = try #require(stsd.children?.first)
        let sv3d = Box(
            type: "sv3d",
            children: [
                Box(SphericalVideoHeaderBox(source: "test"), type: "svhd"),
                Box(
                    type: "proj",
                    children: [
                        Box(ProjectionHeaderBox(poseYaw: 0, posePitch: 0, poseRoll: 0), type: "prhd"), projection,
                    ]),
            ])
        entry.children = (entry.children ?? []) + [Box(Stereoscopic3DVideoBox(stereoMode: 1), type: "st3d"), sv3d]
        stsd.children = [entry]
        stbl.setChild(stsd)
        var minf = try #require(trak.find("mdia", "minf"))
        minf.setChild(stbl)
        var mdia = try #require(trak.child("mdia"))
        mdia.setChild(minf)
        trak.setChild(mdia)
        kids[ti] = trak
        moov.children = kids
        var boxes = file.boxes
        boxes[mi] = moov
        try Self.write(
            try ISOFile(boxes: boxes, tail: file.tail, diagnostics: [], source: file.source).serialized(), out)
    }

    @Test(.needs(.sharedFiles(MovieDefectTests.vr)))
    func croppedVR180IsRefusedOrTheAssumptionIsSaid() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        // sv3d equi cropped to 137°×96°: no APMP projection says that; refused, naming the coverage.
        let scale = 4_294_967_296.0
        let lr = UInt32((1 - 137.0 / 360) * scale / 2), tb = UInt32((1 - 96.0 / 180) * scale / 2)
        let cropped = d + "/cropped.mp4"
        try Self.withGoogleV2(
            Box(
                EquirectangularProjectionBox(boundsTop: tb, boundsBottom: tb, boundsLeft: lr, boundsRight: lr),
                type: "equi"), cropped)
        for assume in [nil, FourCC("hequ")] {
            var e = SpatialVideoEdit()
            e.spherical = .toAPMP(assume: assume)
            do throws(ParseError) {
                _ = try SpatialVideoEditor.edit(path: cropped, output: d + "/x.mp4", inPlace: false, edit: e)
                Issue.record("a 137°×96° crop was tagged (assume \(String(describing: assume)))")
            } catch {
                #expect(
                    error.message.contains("137.0°×96.0°") || error.message.contains("contradicts"), "\(error.message)")
            }
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/x.mp4"))
        // A mesh: refused unless the projection is stated; when stated, the unchecked coverage is said.
        let mesh = d + "/mesh.mp4"
        try Self.withGoogleV2(Box(type: "mshp", fields: .raw([0, 0, 0, 0, 0, 0, 0, 0] + Array("raw ".utf8))), mesh)
        var e = SpatialVideoEdit()
        e.spherical = .toAPMP(assume: nil)
        #expect(throws: ParseError.self) {
            try SpatialVideoEditor.edit(path: mesh, output: d + "/m.mp4", inPlace: false, edit: e)
        }
        e.spherical = .toAPMP(assume: "hequ")
        let r = try SpatialVideoEditor.edit(path: mesh, output: d + "/m.mp4", inPlace: false, edit: e)
        #expect(
            r.warnings.contains { $0.contains("coverage was not checked") && $0.contains("180°×180°") }, "\(r.warnings)"
        )
    }

    // MARK: k. edit --faststart alone

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func faststartAloneMovesMoovOfAnyMovie() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        // Apple's spatial movie (moov last) and a 2D HEVC movie FFmpeg wrote (moov last).
        let flat = d + "/flat.mp4"
        try Self.make([
            "-f", "lavfi", "-i", "testsrc=size=160x120:rate=30", "-frames:v", "5", "-pix_fmt", "yuv420p",
            "-c:v", "libx265", "-x265-params", "log-level=error", "-f", "mp4", flat,
        ])
        for input in [Corpus.appleVideo, flat] {
            let out = d + "/fast-" + (input as NSString).lastPathComponent
            let r = try SpatialVideoEditor.edit(
                path: input, output: out, inPlace: false, edit: SpatialVideoEdit(), faststart: true)
            #expect(r.changes.contains { $0.contains("moved moov before mdat") }, "\(r.changes)")
            let types = try ISOFile.open(path: out).boxes.map(\.type.description)
            #expect((types.firstIndex(of: "moov") ?? 99) < (types.firstIndex(of: "mdat") ?? 0), "\(types)")
            #expect(try Self.frameMD5(input) == Self.frameMD5(out))
        }
    }

    // MARK: o. convert of a spatial (MV-HEVC) video is refused, naming edit/fix/split

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func convertRefusesAnMVHEVCInputInsteadOfCuttingOneViewInHalf() throws {
        let d = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        for input in [Corpus.appleVideo, Corpus.x265Spatial].filter(Corpus.exists) {
            do throws(ParseError) {
                try VideoConverter.convert(.packed(input), to: d + "/o.mov")
                Issue.record("\(input): converted (one view cut in half)")
            } catch {
                #expect(error.code == .unsupported, "\(error)")
                #expect(
                    error.message.contains("already MV-HEVC") && error.message.contains("spatial-media edit")
                        && error.message.contains("split"), "\(error.message)")
            }
            #expect(!FileManager.default.fileExists(atPath: d + "/o.mov"))
        }
    }

    static func stdout(_ exe: String, _ args: [String]) throws -> String { try capture(exe, args, stdout: true) }
}
