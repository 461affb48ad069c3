import Foundation
import SpatialMediaKit
import TestSupport
import Testing

/// The five everyday tasks through the guessable API, on real inputs: the bundled SBS sample, the conformance
/// spatial photo, and `../shared` files when present.
@Suite struct EverydayAPITests {
    static let root = TestPaths.packageRoot
    static let sample = root + "/Conformance/files/sample_sbs_320x96.y4m"
    static let photo = root + "/Conformance/files/heif_grid_ster.heic"
    static func shared(_ rel: String) -> String? { TestPaths.shared(rel) }
    static func tempDir(_ name: String) throws -> String {
        // A native string (not bridged from Foundation): Swift Testing on Linux cannot describe a failed
        // expectation that compares bridged strings.
        let d = "/tmp/everyday-api-\(getpid())-\(name)"
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func stereoParametersUnitsAndChecks() throws {
        let s = try StereoParameters(
            baselineMillimetres: 64.0005, horizontalFieldOfViewDegrees: 63.5, disparityPercent: -1.5)
        #expect(
            s.baselineMicrometres == 64_001 && s.horizontalFieldOfViewMillidegrees == 63_500
                && s.disparityAdjustment == -150)
        #expect(s.baselineMillimetres == 64.001 && s.horizontalFieldOfViewDegrees == 63.5 && s.disparityPercent == -1.5)
        #expect(throws: ParseError.self) { try StereoParameters(baselineMillimetres: -1) }
        #expect(throws: ParseError.self) { try StereoParameters(baselineMillimetres: 5_000_000) }  // > UInt32 µm
        #expect(throws: ParseError.self) {
            try StereoParameters(baselineMillimetres: nil, horizontalFieldOfViewDegrees: 180)
        }
        #expect(throws: ParseError.self) { try StereoParameters(baselineMillimetres: nil, disparityPercent: 100.01) }
        #expect(throws: ParseError.self) { try StereoParameters(baselineMillimetres: .nan) }
        // The one table of defaults.
        let d = StereoParameters.defaults
        #expect(
            d.baselineMicrometres == 64_000 && d.horizontalFieldOfViewMillidegrees == 60_000
                && d.disparityAdjustment == 0)
        #expect(d.heroEye == .left && d.projectionKind == "rect")
        #expect(StereoParameters(baselineMicrometres: 1).filled().horizontalFieldOfViewMillidegrees == 60_000)
        #expect(SpatialVideoMuxOptions().stereo == d)
    }

    /// Convert → read → edit → validate → split, one video through all five.
    @Test func videoThroughTheFiveTasks() throws {
        let dir = try Self.tempDir("video")
        let out = dir + "/spatial.mov"
        // 1. Convert side-by-side.
        let given = try StereoParameters(
            baselineMillimetres: 63, horizontalFieldOfViewDegrees: 63.5, disparityPercent: 1.5)
        // The assembly (two single-layer encodes): step 5 copies the layers out without decoding, which a file coded
        // with inter-layer prediction (the multiview path, the default where set-up built its x265) does not allow.
        let report = try SpatialConversion.video(.sideBySide(Self.sample), to: out, stereo: given) {
            $0.encodePath = .assembled
        }
        #expect(report.check.passed && report.route == "video")
        #expect(Self.field(report, "baseline_mm") == .double(63) && Self.field(report, "hfov_source") != nil)
        // 2. Read the metadata.
        let v = try SpatialVideo(contentsOf: out)
        #expect(v.isSpatial && v.whyNotSpatial.isEmpty)
        #expect(v.stereo.baselineMicrometres == 63_000 && v.stereo.horizontalFieldOfViewMillidegrees == 63_500)
        #expect(v.stereo.disparityAdjustment == 150 && v.stereo.heroEye == .left && v.stereo.projectionKind == "rect")
        // 3. Edit it in place: a new baseline, the hero box removed.
        let edit = try SpatialVideo.editMetadata(of: out, inPlace: true) { s throws(ParseError) in
            try s.setBaseline(millimetres: 19.24)
            s.heroEye = nil
        }
        guard case .array(let changes)? = Self.field(edit, "changes") else { Issue.record("no changes"); return }
        #expect(changes.count >= 2)
        let after = try SpatialVideo(contentsOf: out).stereo
        #expect(
            after.baselineMicrometres == 19_240 && after.heroEye == nil
                && after.horizontalFieldOfViewMillidegrees == 63_500)
        // 4. Validate.
        let r = SpatialValidator().validate(out)
        #expect(!r.unreadable && r.kind == "spatial-video")
        #expect(r.fired("SV-VIDEO-016") == false)
        // 5. Split back to one raw HEVC stream per eye (no re-encoding: our files have independent layers).
        var split = VideoSplitOptions(target: .eyes(left: nil, right: nil))
        split.copy = true
        let l = dir + "/left.hevc", rr = dir + "/right.hevc"
        let s = try SpatialSplit.video(out, to: .eyes(left: l, right: rr), options: split)
        #expect(s.json.serialized().contains("\"frames\""), "\(s.json.serialized())")
        #expect(s.check.passed, "the Kit's split is read back like every shell's")
        #expect(try SpatialVideo(contentsOf: out).stereo == after)  // the split leaves the input alone
        #expect(FileManager.default.fileExists(atPath: l) && FileManager.default.fileExists(atPath: rr))
    }

    @Test func photoReadEditSplit() throws {
        let dir = try Self.tempDir("photo")
        let p = try SpatialPhoto(contentsOf: Self.photo)
        #expect(p.left.itemID != p.right.itemID)
        let out = dir + "/edited.heic"
        try SpatialPhoto.editMetadata(of: Self.photo, to: out) { s throws(ParseError) in
            try s.setBaseline(millimetres: 65)
            try s.setHorizontalFieldOfView(degrees: 70)
            try s.setDisparity(percent: 2.5)
        }
        let e = try SpatialPhoto(contentsOf: out)
        #expect(e.stereo.baselineMicrometres == 65_000 && e.stereo.disparityAdjustment == 250)
        #expect(e.stereo.horizontalFieldOfViewMillidegrees == 70_000)
        #expect(e.stereo.heroEye == nil && e.stereo.projectionKind == nil)
        // Hero eye and projection have no place in a photo.
        #expect(throws: ParseError.self) {
            try SpatialPhoto.editMetadata(of: Self.photo, to: dir + "/x.heic") { $0.heroEye = .right }
        }
        // Split: HEIC eyes are copied.
        try SpatialSplit.photo(out, left: dir + "/l.heic", right: dir + "/r.heic")
        #expect(
            FileManager.default.fileExists(atPath: dir + "/l.heic")
                && FileManager.default.fileExists(atPath: dir + "/r.heic"))
        #expect(SpatialValidator().validate(out).kind == "spatial-photo")
        // Convert a side-by-side image: the given disparity, the other values from the one table of defaults.
        let w = 64, h = 48
        var rgb: [UInt8] = []
        for y in 0..<h { for x in 0..<(2 * w) { rgb += [UInt8((x % w) * 3 + y), UInt8(y * 4), UInt8(200 - (x % w))] } }
        let sbs = dir + "/sbs.png"
        try AtomicFile.write(
            path: sbs,
            bytes: PNG.encode(try Image(width: 2 * w, height: h, bitDepth: 8, format: .rgb, planes: .u8([rgb]))))
        let r = try SpatialConversion.photo(
            .sideBySide(sbs), to: dir + "/again.heic", stereo: StereoParameters(disparityAdjustment: 120))
        guard case .string(let source)? = Self.field(r, "baseline_source") else {
            Issue.record("no baseline_source"); return
        }
        #expect(source.contains("default"))
        #expect(Self.field(r, "baseline_mm") == .double(StereoParameters.defaults.baselineMillimetres ?? 0))
        let again = try SpatialPhoto(contentsOf: dir + "/again.heic").stereo
        #expect(again.disparityAdjustment == 120 && again.baselineMicrometres == 64_000)
    }

    @Test func realFilesRead() throws {
        if let vp = Self.shared("corpus/spatial-photo/vision-pro.HEIC") {
            let p = try SpatialPhoto(contentsOf: vp)
            // The exact camera distance stays in the photo model; the one type holds it rounded to whole µm.
            #expect(abs((p.baselineMicrometres ?? 0) - 63_774) < 1)
            #expect(p.stereo.baselineMicrometres == 63_774 && p.stereo.disparityAdjustment == 293)
            #expect(p.stereo.horizontalFieldOfViewMillidegrees == 80_000)
        }
        if let apple = Self.shared("corpus/spatial-video/stereo_spatial.mp4") {
            let v = try SpatialVideo(contentsOf: apple)
            #expect(
                v.stereo
                    == StereoParameters(
                        baselineMicrometres: 19_240, horizontalFieldOfViewMillidegrees: 63_400,
                        disparityAdjustment: 200, heroEye: .left))
        }
    }

    /// One field of a report's JSON facts.
    static func field(_ r: OperationReport, _ key: String) -> JSON? { r.fields.first { $0.0 == key }?.1 }

    @Test func notAVideoOrPhoto() throws {
        // do/catch rather than #expect(throws:): the macro crashed destroying its Result<ParseError?> here.
        var refused = 0
        do { _ = try SpatialVideo(contentsOf: Self.photo) } catch { refused += 1 }
        do { _ = try SpatialPhoto(contentsOf: Self.root + "/Conformance/files/multitrack.mov") } catch { refused += 1 }
        do { try SpatialVideo.editMetadata(of: Self.sample, to: nil) { _ in } } catch { refused += 1 }
        #expect(refused == 3)
    }

    @Test func statedSphereTakesTheAPMPRoute() throws {
        // A stated sphere projection takes the APMP route (issue 33), as `convert --projection equi --layout sbs` does:
        // the projection is written, never replaced by a flat one, and no hfov is written.
        let dir = try Self.tempDir("sphere")
        _ = try SpatialConversion.video(
            .sideBySide(Self.sample), to: dir + "/x.mov", stereo: StereoParameters(projectionKind: "equi"))
        let written = try SpatialVideo(contentsOf: dir + "/x.mov")
        #expect(written.stereo.projectionKind == "equi")
        #expect(written.stereo.horizontalFieldOfViewMillidegrees == nil)
    }
}
