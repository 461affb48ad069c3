import Foundation
import SpatialMedia
import TestSupport
import Testing

@testable import SpatialValidation

@Suite("Metadata rules")
struct MetadataRuleTests {
    static var metadataOnly: ValidationOptions { var o = ValidationOptions(); o.pixels = false; return o }

    @Test func catalogIsConsistent() {
        let ids = RuleCatalog.all.map(\.id)
        #expect(Set(ids).count == ids.count)
        for r in RuleCatalog.all { #expect(!r.source.isEmpty && !r.title.isEmpty) }
    }

    @Test func specListsEveryRule() throws {
        let spec = try String(
            contentsOfFile: #filePath.components(separatedBy: "/Tests/")[0] + "/Specs/validation.md", encoding: .utf8)
        for r in RuleCatalog.all { #expect(spec.contains(r.id), "Specs/validation.md does not list \(r.id)") }
    }

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func appleSpatialVideoPasses() throws {
        let r = Validator.validate(path: Corpus.appleVideo, options: Self.metadataOnly)
        for l in r.lines { print(l) }
        #expect(r.spatial)
        #expect(r.kind == "spatial-video")
        #expect(!r.findings.contains { $0.severity == .error })
        // Justified non-errors: MP4 brand (info), no proj box (info), inter-layer prediction (info).
        #expect(r.fired("SV-VIDEO-021"))
        for f in r.findings { #expect(RuleCatalog.rule(f.ruleID) != nil) }
    }

    @Test func fixturesPass() throws {
        for p in [Corpus.x265Spatial, Corpus.smallSpatial] where Corpus.exists(p) {
            let r = Validator.validate(path: p, options: Self.metadataOnly)
            #expect(r.spatial, "\(p): \(r.whyNotSpatial)")
            #expect(!r.findings.contains { $0.severity == .error }, "\(r.lines)")
        }
        if Corpus.exists(Corpus.lhvcOnly) {
            let r = Validator.validate(path: Corpus.lhvcOnly, options: Self.metadataOnly)
            #expect(!r.spatial)
            #expect(r.fired("SV-VIDEO-009"))
            #expect(r.exitCode == 1)
        }
    }

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func brokenVideoCopies() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // hfov removed
        var e = SpatialVideoEdit(); e.horizontalFieldOfViewMillidegrees = .remove
        let noHFOV = dir + "/nohfov.mp4"
        _ = try SpatialVideoEditor.edit(path: Corpus.appleVideo, output: noHFOV, inPlace: false, edit: e)
        var r = Validator.validate(path: noHFOV, options: Self.metadataOnly)
        #expect(r.fired("SV-VIDEO-018")); #expect(!r.spatial)
        // baseline 0
        e = SpatialVideoEdit(); e.baselineMicrometres = .set(0)
        let zero = dir + "/zero.mp4"
        _ = try SpatialVideoEditor.edit(path: Corpus.appleVideo, output: zero, inPlace: false, edit: e)
        r = Validator.validate(path: zero, options: Self.metadataOnly)
        #expect(r.fired("SV-VIDEO-016")); #expect(!r.spatial)
        // HFOV 120°, disparity +8 %, hero none
        e = SpatialVideoEdit(); e.horizontalFieldOfViewMillidegrees = .set(120_000); e.disparityAdjustment = .set(800);
        e.heroEye = .remove
        let wide = dir + "/wide.mp4"
        _ = try SpatialVideoEditor.edit(path: Corpus.appleVideo, output: wide, inPlace: false, edit: e)
        r = Validator.validate(path: wide, options: Self.metadataOnly)
        #expect(r.fired("SV-VIDEO-019")); #expect(r.fired("SV-VIDEO-023")); #expect(r.fired("SV-VIDEO-013"))
        #expect(r.exitCode == 1)
        // stri reversed (flag byte patched: size 4, type 4, version/flags 4, then the flags byte)
        let rev = try Temp.copy(Corpus.appleVideo, to: dir, name: "reversed.mp4")
        let at = try #require(try Temp.find(rev, "stri").first)
        try Temp.patch(rev, at: at + 8, with: [0x0B])
        r = Validator.validate(path: rev, options: Self.metadataOnly)
        #expect(r.fired("SV-VIDEO-012")); #expect(!r.spatial)
    }

    @Test(.needs(.sharedFiles(Corpus.visionPro)))
    func visionProPhotoMetadataPasses() throws {
        let r = Validator.validate(path: Corpus.visionPro, options: Self.metadataOnly)
        for l in r.lines { print(l) }
        #expect(r.spatial)
        #expect(r.kind == "spatial-photo")
        #expect(r.findings.allSatisfy { $0.severity == .info }, "\(r.lines)")
        #expect(r.exitCode == 0)
    }

    @Test(.needs(.sharedFiles(Corpus.visionPro)))
    func brokenPhotoCopies() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Different eye sizes: patch the right grid's ispe (the second 2560×2560 one) to 2048×2560.
        let sizes = try Temp.copy(Corpus.visionPro, to: dir, name: "sizes.heic")
        let ispes = try Temp.find(sizes, "ispe")
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: sizes)))
        let big = ispes.filter { data[$0 + 8] == 0 && data[$0 + 10] == 0x0A && data[$0 + 11] == 0x00 }
        try #require(big.count >= 2)
        try Temp.patch(sizes, at: big[1] + 8, with: [0, 0, 0x08, 0x00])
        var r = Validator.validate(path: sizes, options: Self.metadataOnly)
        #expect(r.fired("SV-PHOTO-003")); #expect(!r.spatial)
        // Baseline 0 and a disparity out of range, written with the library's photo editor.
        let zero = dir + "/zero.heic"
        _ = try SpatialPhotoEditor.edit(
            path: Corpus.visionPro, output: zero,
            stereo: StereoParameters(baselineMicrometres: 0, disparityAdjustment: 12000))
        r = Validator.validate(path: zero, options: Self.metadataOnly)
        #expect(r.fired("SV-PHOTO-011")); #expect(r.fired("SV-PHOTO-016"))
        // A plain HEIF with two images but no ster group.
        if Corpus.exists("\(Corpus.fixtures)/pair_plain.heic") {
            r = Validator.validate(path: "\(Corpus.fixtures)/pair_plain.heic", options: Self.metadataOnly)
            #expect(r.fired("SV-PHOTO-001")); #expect(r.kind == "heif-image")
        }
        if Corpus.exists(Corpus.pairCminCmex) {
            r = Validator.validate(path: Corpus.pairCminCmex, options: Self.metadataOnly)
            #expect(r.kind == "spatial-photo")
            #expect(r.fired("SV-PHOTO-018"))
            #expect(r.fired("SV-PHOTO-015"))
        }
    }

    @Test func unreadableInputs() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var r = Validator.validate(path: dir + "/missing.mov")
        #expect(r.exitCode == 2); #expect(r.fired("SV-FILE-001"))
        let junk = dir + "/junk.bin"
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }).write(to: URL(fileURLWithPath: junk))
        r = Validator.validate(path: junk)
        #expect(r.exitCode == 2)
        // The project's own generated spatial photo, cut in half.
        let truncated = dir + "/trunc.heic"
        let d = try Data(contentsOf: URL(fileURLWithPath: TestPaths.package("Conformance/files/heif_grid_ster.heic")))
        try d.prefix(d.count / 2).write(to: URL(fileURLWithPath: truncated))
        r = Validator.validate(path: truncated)
        #expect(r.exitCode >= 1)
    }

    @Test(.needs(.sharedFiles(Corpus.fixtures, Corpus.appleVideo)))
    func directoryModeIsParallelAndComplete() {
        let files = BatchValidator.plan([Corpus.fixtures, Corpus.appleVideo]).files
        #expect(files.count >= 3)
        let reports = BatchValidator.validate(files, options: Self.metadataOnly)
        #expect(reports.count == files.count)
        #expect(zip(files, reports).allSatisfy { $0.0 == $0.1.input })
    }

    /// Issue 18, item 11: directories are searched recursively, NAME_L/NAME_R images become one pair, files that
    /// are not media are skipped (listed), and a directory without media is reported.
    @Test func directoryPlanRecursesPairsAndSkips() throws {
        let fm = FileManager.default
        let dir = NSTemporaryDirectory() + "batch-plan-\(getpid())"
        try? fm.removeItem(atPath: dir)
        try fm.createDirectory(atPath: dir + "/sub/deeper", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: dir + "/nothing", withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: dir) }
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        #expect(fm.createFile(atPath: dir + "/sub/shot_L.png", contents: Data(png)))
        #expect(fm.createFile(atPath: dir + "/sub/shot_R.png", contents: Data(png)))
        #expect(
            fm.createFile(atPath: dir + "/sub/deeper/movie.mov", contents: Data([0, 0, 0, 8] + Array("free".utf8))))
        #expect(fm.createFile(atPath: dir + "/notes.txt", contents: Data("hello".utf8)))
        let plan = BatchValidator.plan([dir, dir + "/nothing"])
        #expect(plan.pairs.count == 1)
        #expect(
            plan.pairs.first?.left.hasSuffix("shot_L.png") == true
                && plan.pairs.first?.right.hasSuffix("shot_R.png") == true)
        #expect(plan.files == [dir + "/sub/deeper/movie.mov"])
        #expect(plan.skipped == [dir + "/notes.txt"])
        #expect(plan.directoriesWithoutMedia == [dir + "/nothing"])
    }

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func jsonOutputIsParseable() throws {
        let r = Validator.validate(path: Corpus.appleVideo, options: Self.metadataOnly)
        let text = r.json.serialized(pretty: true)
        let obj = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(obj?["spatial"] as? Bool == true)
        #expect((obj?["findings"] as? [Any])?.isEmpty == false)
    }
}
