import BinaryIO
import Foundation
import ISOBMFF
import TestSupport
import Testing

@testable import SpatialMedia

/// Tagging frame-packed movies without re-encoding, and Google spherical ↔ APMP conversion, checked against
/// FFmpeg 9 (stereo and spherical side data, packet md5s) and libmediainfo. Inputs are made by FFmpeg 9 from the
/// oracle environment (Tests/Oracles/stereo_tag_oracle.py); those tests are skipped where it is absent.
@Suite("Frame-packed and APMP tagging")
struct FramePackedTaggingTests {
    static let v1 = Shared.root + "/corpus/spherical/testRoom1_1080Stereo.mp4"

    static func oracle(_ args: [String]) throws -> Any { try Oracle.json("Tests/Oracles/stereo_tag_oracle.py", args) }

    /// FFmpeg's reading of each file: (side-data lines, packet md5s, mediainfo fields).
    static func probe(_ files: [String]) throws -> [String: (
        side: [String], packets: [String], mediainfo: [String: String]
    )] {
        let j = try #require(try oracle(["probe"] + files) as? [String: [String: Any]])
        var out: [String: (side: [String], packets: [String], mediainfo: [String: String])] = [:]
        for (k, v) in j {
            let mi = (v["mediainfo"] as? [String: Any] ?? [:]).mapValues { "\($0)" }
            out[k] = ((v["side_data"] as? [String]) ?? [], (v["packets"] as? [String]) ?? [], mi)
        }
        return out
    }

    static func makeInputs(_ dir: String) throws -> Set<String> {
        Set(try #require(try oracle(["make", dir]) as? [String]))
    }

    static func childTypes(_ path: String, _ types: FourCC...) throws -> [String] {
        let f = try ISOFile.open(path: path)
        let entry = try #require(f.tracks.first { $0.handler == "vide" }?.sampleEntries.first)
        return try #require(entry.find(types)).children?.map(\.type.description) ?? []
    }

    /// Our `rewrite` (parse + serialize) of the file gives back the same bytes.
    static func expectRewriteIdentical(_ path: String) throws {
        let f = try ISOFile.open(path: path)
        #expect(try f.serialized() == readAll(path), "rewrite of \(path) differs")
    }

    @Test(.needs(.oracles))
    func tagsFramePackedMoviesOfEveryCodec() throws {
        let dir = try makeTempDir("tag")
        defer { removeTree(dir) }
        let made = try Self.makeInputs(dir)
        #expect(made.isSuperset(of: ["sbs_hevc.mov", "sbs_h264.mp4", "ou_av1.mp4"]), "FFmpeg 9 made \(made)")
        let cases: [(String, FourCC, FourCC, String, String)] = [
            ("sbs_hevc.mov", "side", "rect", "side by side", "rectilinear"),
            ("sbs_h264.mp4", "side", "rect", "side by side", "rectilinear"),
            ("ou_av1.mp4", "over", "hequ", "top and bottom", "half equirectangular"),
        ]
        for (name, packing, projection, stereo, sphere) in cases where made.contains(name) {
            let input = dir + "/" + name, out = dir + "/tagged_" + name
            var e = SpatialVideoEdit()
            e.viewPacking = .set(packing)
            if projection != "rect" { e.projectionKind = .set(projection) }
            e.heroEye = .set(.left)
            if projection == "rect" { e.horizontalFieldOfViewMillidegrees = .set(65_000) }
            let r = try SpatialVideoEditor.edit(path: input, output: out, inPlace: false, edit: e)
            #expect(r.changes.contains { $0.contains("view packing absent → '\(packing)'") })
            // Apple's writer order: vexu{eyes{stri, hero}, proj{prji}, pack{pkin}}, then hfov.
            #expect(try Self.childTypes(out, "vexu") == ["eyes", "proj", "pack"])
            #expect(try Self.childTypes(out, "vexu", "eyes") == ["stri", "hero"])
            let entryKids = try Self.childTypes(out)
            if projection == "rect" { #expect(entryKids.suffix(2) == ["vexu", "hfov"], "\(entryKids)") }
            try expectSameSamples(input, out)
            try Self.expectRewriteIdentical(out)
            let rep = try report(out)
            #expect(rep.profile.profile == (projection == "hequ" ? .apmp180 : .framePacked3D))
            #expect(!rep.profile.findings.contains { $0.ruleID == "SV-PROF-003" })
            let p = try Self.probe([input, out])
            let a = try #require(p[input]), b = try #require(p[out])
            #expect(
                b.side.contains { $0.contains("Stereo 3D: \(stereo)") && $0.contains("primary eye: left") },
                "\(name): \(b.side)")
            #expect(b.side.contains { $0.contains("Spherical Mapping: \(sphere)") }, "\(name): \(b.side)")
            if projection == "rect" { #expect(b.side.contains { $0.contains("horizontal_field_of_view: 65.000") }) }
            #expect(!a.packets.isEmpty && a.packets == b.packets, "\(name): sample data changed")
            #expect(a.mediainfo == b.mediainfo, "\(name): libmediainfo reads \(a.mediainfo) then \(b.mediainfo)")
            #expect(b.mediainfo["format"] != nil)
        }
    }

    @Test(.needs(.oracles))
    func ffmpegRemuxGainsThePackBox() throws {
        // FFmpeg 9 turns an MKV's stereo_mode=left_right into vexu{eyes{stri}} only: Apple sees two eyes and no layout.
        let dir = try makeTempDir("tag-ff")
        defer { removeTree(dir) }
        if try !Self.makeInputs(dir).contains("sbs_ffmpeg.mov") {
            try Skip.because("the oracle\'s FFmpeg could not make sbs_ffmpeg.mov")
        }
        let input = dir + "/sbs_ffmpeg.mov", out = dir + "/fixed.mov"
        let before = try report(input)
        #expect(before.profile.profile == .framePacked3D)
        #expect(before.profile.findings.contains { $0.ruleID == "SV-PROF-003" && $0.severity == .error })
        var e = SpatialVideoEdit()
        e.viewPacking = .set("side")
        _ = try SpatialVideoEditor.edit(path: input, output: out, inPlace: false, edit: e)
        let after = try report(out)
        #expect(!after.profile.findings.contains { $0.ruleID == "SV-PROF-003" })
        #expect(after.videoTracks.first?.metadata.projectionKind == "rect")
        let p = try Self.probe([input, out])
        #expect(p[input]?.side.contains { $0.contains("Stereo 3D: unspecified") } == true)
        #expect(p[out]?.side.contains { $0.contains("Stereo 3D: side by side") } == true, "\(p[out]?.side ?? [])")
        #expect(p[input]?.packets == p[out]?.packets)
        try expectSameSamples(input, out)
    }

    @Test(.needs(.oracles, .sharedFiles(FramePackedTaggingTests.v1)))
    func sphericalV1ToAPMPAndBack() throws {
        let dir = try makeTempDir("v1")
        defer { removeTree(dir) }
        let apmp = dir + "/apmp.mp4", back = dir + "/back.mp4"
        #expect(try report(Self.v1).profile.profile == .googleSpherical)
        var e = SpatialVideoEdit()
        e.spherical = .toAPMP(assume: nil)
        _ = try SpatialVideoEditor.edit(path: Self.v1, output: apmp, inPlace: false, edit: e)
        let m = try #require(try report(apmp).primary?.metadata)
        #expect(m.projectionKind == "equi" && m.viewPackingKind == "over" && m.sphericalV1StereoMode == "top-bottom")
        #expect(try report(apmp).profile.profile == .apmp360)
        var g = SpatialVideoEdit()
        g.spherical = .toGoogle
        _ = try SpatialVideoEditor.edit(path: apmp, output: back, inPlace: false, edit: g)
        #expect(try readAll(back) == readAll(Self.v1), "Google → APMP → Google is not the original file")
        let p = try Self.probe([Self.v1, apmp])
        let a = try #require(p[Self.v1]), b = try #require(p[apmp])
        #expect(
            a.side == b.side && a.side.contains { $0.contains("top and bottom") }
                && a.side.contains { $0.contains("equirectangular") }, "\(a.side) vs \(b.side)")
        #expect(a.packets == b.packets && a.mediainfo == b.mediainfo)
        try expectSameSamples(Self.v1, apmp)
        try Self.expectRewriteIdentical(apmp)
    }

    /// Replaces `sv3d/proj/equi` of the first video sample entry by an `mshp` box (a Google mesh projection).
    static func makeMesh(from input: String, to output: String) throws {
        let f = try ISOFile.open(path: input)
        var moov = try #require(f.box("moov"))
        var traks = try #require(moov.children)
        let ti = try #require(traks.firstIndex { $0.type == "trak" && Track($0).handler == "vide" })
        var stbl = try #require(traks[ti].find("mdia", "minf", "stbl"))
        var stsd = try #require(stbl.child("stsd"))
        var entries = try #require(stsd.children)
        var sv3d = try #require(entries[0].child("sv3d"))
        var proj = try #require(sv3d.child("proj"))
        proj.removeChildren("equi")
        proj.setChild(
            Box(
                type: "mshp",
                fields: .raw(
                    [0, 0, 0, 0] + [0xDE, 0xAD, 0xBE, 0xEF] + Array("raw ".utf8) + [0, 0, 0, 8] + Array("mesh".utf8))))
        sv3d.setChild(proj)
        entries[0].setChild(sv3d)
        stsd.children = entries
        stbl.setChild(stsd)
        try SpatialVideoEditor.replace(&traks[ti], path: ["mdia", "minf", "stbl"], with: stbl)
        moov.children = traks
        let mi = try #require(f.boxes.firstIndex { $0.type == "moov" })
        _ = try SpatialVideoEditor.rewrite(file: f, moovIndex: mi, newMoov: moov, to: output, faststart: false)
    }

    @Test(.needs(.oracles))
    func sphericalV2EquirectangularAndMeshToAPMPAndBack() throws {
        let dir = try makeTempDir("v2")
        defer { removeTree(dir) }
        if try !Self.makeInputs(dir).contains("v2_equi_tb.mp4") {
            try Skip.because("the oracle\'s FFmpeg could not make v2_equi_tb.mp4")
        }
        // FFmpeg 9 writes st3d + sv3d and also vexu{proj, eyes} (no pack); keep only the Google boxes.
        let google = dir + "/google.mp4"
        var strip = SpatialVideoEdit()
        strip.removeSpatial = true
        _ = try SpatialVideoEditor.edit(path: dir + "/v2_equi_tb.mp4", output: google, inPlace: false, edit: strip)
        let mesh = dir + "/mesh.mp4"
        try Self.makeMesh(from: google, to: mesh)
        #expect(try report(mesh).primary?.metadata.googleProjection == "mshp")
        for (input, assume) in [(google, nil), (mesh, FourCC("hequ"))] as [(String, FourCC?)] {
            let apmp = input + ".apmp.mp4", back = input + ".back.mp4"
            var e = SpatialVideoEdit()
            if assume != nil {
                // A mesh cannot be checked to be half-equirectangular: refused unless stated.
                e.spherical = .toAPMP(assume: nil)
                #expect(throws: ParseError.self) {
                    try SpatialVideoEditor.edit(path: input, output: apmp, inPlace: false, edit: e)
                }
            }
            e.spherical = .toAPMP(assume: assume)
            _ = try SpatialVideoEditor.edit(path: input, output: apmp, inPlace: false, edit: e)
            let m = try #require(try report(apmp).primary?.metadata)
            #expect(m.projectionKind == (assume ?? "equi") && m.viewPackingKind == "over")
            var g = SpatialVideoEdit()
            g.spherical = .toGoogle
            _ = try SpatialVideoEditor.edit(path: apmp, output: back, inPlace: false, edit: g)
            #expect(try readAll(back) == readAll(input), "round trip of \(input) changed the file")
            try expectSameSamples(input, apmp)
            let p = try Self.probe([input, apmp])
            let a = try #require(p[input]), b = try #require(p[apmp])
            #expect(a.packets == b.packets && !a.packets.isEmpty)
            #expect(b.side.contains { $0.contains("top and bottom") }, "\(b.side)")
            if assume == nil {
                #expect(a.side == b.side, "\(a.side) vs \(b.side)")
            } else {
                #expect(b.side.contains { $0.contains("half equirectangular") }, "\(b.side)")
            }
        }
    }

    @Test(.needs(.oracles))
    func apmpOnlyToGoogleAndBack() throws {
        let dir = try makeTempDir("apmp-g")
        defer { removeTree(dir) }
        if try !Self.makeInputs(dir).contains("ou_av1.mp4") {
            try Skip.because("the oracle\'s FFmpeg could not make ou_av1.mp4")
        }
        let tagged = dir + "/hequ.mp4", google = dir + "/google.mp4", again = dir + "/again.mp4",
            google2 = dir + "/google2.mp4"
        var e = SpatialVideoEdit()
        e.viewPacking = .set("over")
        e.projectionKind = .set("hequ")
        _ = try SpatialVideoEditor.edit(path: dir + "/ou_av1.mp4", output: tagged, inPlace: false, edit: e)
        var g = SpatialVideoEdit()
        g.spherical = .toGoogle
        _ = try SpatialVideoEditor.edit(path: tagged, output: google, inPlace: false, edit: g)
        let m = try #require(try report(google).primary?.metadata)
        #expect(m.googleStereoMode == 1 && m.googleProjection == "equi" && !m.hasVexu)
        #expect(m.googleEquirectBounds == [0, 0, 0x4000_0000, 0x4000_0000])
        var a = SpatialVideoEdit()
        a.spherical = .toAPMP(assume: nil)
        _ = try SpatialVideoEditor.edit(path: google, output: again, inPlace: false, edit: a)
        let m2 = try #require(try report(again).primary?.metadata)
        #expect(m2.projectionKind == "hequ" && m2.viewPackingKind == "over")
        _ = try SpatialVideoEditor.edit(path: again, output: google2, inPlace: false, edit: g)
        #expect(try readAll(google2) == readAll(google))
        let p = try Self.probe([tagged, google])
        #expect(p[google]?.side.contains { $0.contains("Stereo 3D: top and bottom") } == true)
        #expect(p[google]?.side.contains { $0.contains("equirectangular") } == true, "\(p[google]?.side ?? [])")
        #expect(p[tagged]?.packets == p[google]?.packets)
    }

    @Test func conversionsRefuseWhatTheOtherFormCannotSay() {
        var m = StereoVideoMetadata()
        m.presentBoxes = ["st3d", "sv3d"]
        m.googleStereoMode = 2
        m.googleProjection = "equi"
        m.googleEquirectBounds = [0, 0, 0, 0]
        m.googlePose = [0, 0, 0]
        #expect(m.googleToAPMP() == .success(APMPSignal(projection: "equi", packing: "side")))
        m.googleEquirectBounds = [0, 0, 0x4000_0000, 0x4000_0000]
        #expect(m.googleToAPMP() == .success(APMPSignal(projection: "hequ", packing: "side")))
        #expect(m.googleToAPMP(assumeProjection: "equi").isFailure)
        m.googleEquirectBounds = [0, 0, 0x2000_0000, 0x2000_0000]
        #expect(m.googleToAPMP().reason?.contains("270.0°×180.0°") == true)
        m.googleEquirectBounds = [0, 0, 0, 0]
        m.googlePose = [90 << 16, 0, 0]
        #expect(m.googleToAPMP().reason?.contains("yaw 90.000°") == true)
        m.googlePose = [0, 0, 0]
        m.googleProjection = "cbmp"
        #expect(m.googleToAPMP().reason?.contains("cubemap") == true)
        m.googleProjection = "equi"
        m.googleStereoMode = 3
        #expect(m.googleToAPMP().isFailure)
        // APMP → Google: rect/prim have no Google form; MV-HEVC stereo has no st3d.
        var a = StereoVideoMetadata()
        a.projectionKind = "prim"
        #expect(a.apmpToGoogle(isMVHEVC: false).isFailure)
        a.projectionKind = "hequ"
        a.viewFlags = .spatialDefault
        #expect(a.apmpToGoogle(isMVHEVC: true).isFailure)
        a.viewPackingKind = "side"
        #expect(
            a.apmpToGoogle(isMVHEVC: false)
                == .success(GoogleSphericalSignal(stereoMode: 2, bounds: [0, 0, 0x4000_0000, 0x4000_0000])))
    }

    @Test(.needs(.sharedFiles(Shared.x265)))
    func packingIsRefusedOnMVHEVCAndNonVideo() throws {
        let dir = try makeTempDir("tag-refuse")
        defer { removeTree(dir) }
        var e = SpatialVideoEdit()
        e.viewPacking = .set("side")
        do {
            _ = try SpatialVideoEditor.edit(path: Shared.x265, output: dir + "/o.mov", inPlace: false, edit: e)
            Issue.record("packing an MV-HEVC movie should be refused")
        } catch { #expect(error.code == .unsupported && error.message.contains("MV-HEVC")) }
        #expect(!Shared.exists(dir + "/o.mov"))
        var bad = SpatialVideoEdit()
        bad.viewPacking = .set("diag")
        #expect(throws: ParseError.self) { try bad.validate() }
    }
}

extension Result {
    var isFailure: Bool { if case .failure = self { return true }; return false }
}
extension Result where Failure == SphericalConversionError {
    var reason: String? { if case .failure(let e) = self { return e.reason }; return nil }
}
