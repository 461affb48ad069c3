import BinaryIO
import Foundation
import ISOBMFF
import SpatialConvert
import SpatialMedia
import TestSupport
import Testing

@testable import SpatialValidation

/// Profile verdicts (SV-PROF rules), never flattening a sphere, and layered-HEVC stereo HEIF.
@Suite("Profile verdicts")
struct ProfileVerdictTests {
    static let v1 = "\(Corpus.root)/corpus/spherical/testRoom1_1080Stereo.mp4"

    static func metadataOnly(_ path: String) -> ValidationReport {
        var o = ValidationOptions()
        o.pixels = false
        return Validator.validate(path: path, options: o)
    }

    @Test(.needs(.sharedFiles(ProfileVerdictTests.v1)))
    func googleSphereIsNamedAndNeverFlattened() throws {
        let r = Self.metadataOnly(Self.v1)
        #expect(r.profile?.title == MediaProfile.googleSpherical.title)
        #expect(r.fired("SV-PROF-010") && r.fired("SV-PROF-001"))
        #expect(r.findings.first { $0.ruleID == "SV-PROF-010" }?.message.contains("--to-apmp") == true)
        // No advice to convert (flatten) it, no spatial-video rules that presume a rectilinear picture.
        #expect(
            !r.findings.contains { $0.message.contains("spatial-media convert") || $0.message.contains("re-encode") })
        #expect(!r.fired("SV-VIDEO-001") && !r.fired("SV-VIDEO-031") && !r.fired("SV-VIDEO-015"))
        #expect(r.exitCode == 1)
        // info names the projection of the v1 form.
        let lines = SpatialVideoReport.infoSection(try ISOFile.open(path: Self.v1))?.lines ?? []
        #expect(lines.contains { $0.contains("projection (Google spherical v1 (uuid XML)): equirectangular") })
        #expect(lines.contains { $0.contains("profile: Google spherical video") })
    }

    @Test(.needs(.sharedFiles(ProfileVerdictTests.v1)))
    func convertRefusesSpheresWithTheReason() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/flat.mov"
        do {
            _ = try VideoConverter.convert(.packed(Self.v1), to: out)
            Issue.record("a sphere was converted to spatial video")
        } catch {
            #expect(error.code == .unsupported)
            #expect(
                error.message.contains("flatten") && error.message.contains("--to-apmp")
                    && error.message.contains("equirectangular"))
        }
        #expect(!Corpus.exists(out))
    }

    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func appleSpatialVideoMeetsItsProfile() throws {
        let r = Self.metadataOnly(Corpus.appleVideo)
        #expect(r.profile?.title == MediaProfile.spatialVideo.title)
        let v = try SpatialVideoReport(ISOFile.open(path: Corpus.appleVideo)).profile
        #expect(v.profile == .spatialVideo && v.meetsProfile && v.stereo == "MV-HEVC")
    }

    @Test(.needs(.sharedFiles(Corpus.x265Spatial)))
    func apmpShortfallsAreNamed() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // MV-HEVC 180° with an hfov left over from spatial video: hfov contradicts hequ.
        var e = SpatialVideoEdit()
        e.projectionKind = .set("hequ")
        let hequ = dir + "/hequ.mov"
        _ = try SpatialVideoEditor.edit(path: Corpus.x265Spatial, output: hequ, inPlace: false, edit: e)
        let v = try SpatialVideoReport(ISOFile.open(path: hequ)).profile
        #expect(v.profile == .apmp180 && v.stereo == "MV-HEVC")
        #expect(
            v.findings.contains { $0.ruleID == "SV-PROF-005" && $0.severity == .warning && $0.message.contains("180") })
        #expect(!v.findings.contains { $0.ruleID == "SV-PROF-003" })  // MV-HEVC needs no pack
        let r = Self.metadataOnly(hequ)
        #expect(r.fired("SV-PROF-005") && !r.fired("SV-VIDEO-020"))
        // Parametric immersive without a lens collection.
        e.projectionKind = .set("prim")
        let prim = dir + "/prim.mov"
        _ = try SpatialVideoEditor.edit(path: Corpus.x265Spatial, output: prim, inPlace: false, edit: e)
        let p = try SpatialVideoReport(ISOFile.open(path: prim)).profile
        #expect(p.profile == .apmpWideFOV)
        #expect(p.findings.contains { $0.ruleID == "SV-PROF-011" && $0.severity == .error })
    }

    @Test(.needs(.sharedFiles(Corpus.x265Spatial)))
    func appleImmersiveIsIdentifiedNotJudged() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Temp.copy(Corpus.x265Spatial, to: dir, name: "clip.aivu")
        let v = try SpatialVideoReport(ISOFile.open(path: path)).profile
        #expect(v.profile == .appleImmersive && v.meetsProfile)
        #expect(v.findings.map(\.ruleID) == ["SV-PROF-012"])
        #expect(try SpatialVideoReport(ISOFile.open(path: Corpus.x265Spatial)).profile.profile == .spatialVideo)
    }

    @Test(.needs(.sharedFiles(Corpus.x265Spatial)))
    func peakBitrateCountsOneSecondWindows() throws {
        let f = try ISOFile.open(path: Corpus.x265Spatial)
        let t = try #require(f.tracks.first { $0.handler == "vide" })
        let samples = try t.samples()
        let peak = try #require(ProfileVerdict.peakBitrate(file: f, trackID: t.trackID))
        let total = samples.reduce(UInt64(0)) { $0 + UInt64($1.size) } * 8
        // 30 frames at 25 fps: 1.2 s, so one window holds most but not all of the bits.
        #expect(peak <= total && peak >= total * 25 / 30 - 1)
    }

    @Test(.needs(.shared("corpus/heif-conformance/multilayer003.heic")))
    func layeredHEVCStereoHEIFIsNamed() throws {
        let src = "\(Corpus.root)/corpus/heif-conformance/multilayer003.heic"
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = try Temp.copy(src, to: dir, name: "ster_lhv1.heic")
        // Make the right eye (second infe, item 1004) an 'lhv1' item.
        let at = try #require(try Temp.find(path, "hvc1").dropFirst().first)
        try Temp.patch(path, at: at, with: Array("lhv1".utf8))
        let r = Self.metadataOnly(path)
        #expect(r.kind == "spatial-photo")
        #expect(
            r.findings.contains { $0.ruleID == "SV-PHOTO-021" && $0.message.contains("Apple's readers don't take it") })
        #expect(!r.findings.contains { $0.message.contains("not an image") })
    }
}
