import BinaryIO
import Foundation
import HEVC
import ISOBMFF
import TestSupport
import Testing

@testable import SpatialMedia

/// `fix`: hev1 → hvc1 with the parameter sets moved out of the samples, moov moved before mdat, hero and hfov
/// added — checked with FFmpeg 9 decoding both views bit-exactly before and after.
@Suite("Movie repairs")
struct RepairTests {
    static func views(_ files: [String]) throws -> [String: [String: [String]]] {
        try #require(try FramePackedTaggingTests.oracle(["views"] + files) as? [String: [String: [String]]])
    }

    static func firstVideoEntry(_ path: String) throws -> Box {
        let f = try ISOFile.open(path: path)
        return try #require(f.tracks.first { $0.handler == "vide" }?.sampleEntries.first)
    }

    @Test(.needs(.oracles))
    func hev1MVHEVCFromFFmpegBecomesHvc1AndDecodesTheSame() throws {
        let dir = try makeTempDir("fix")
        defer { removeTree(dir) }
        if try !FramePackedTaggingTests.makeInputs(dir).contains("mv_hev1.mp4") {
            try Skip.because("the oracle\'s FFmpeg could not make mv_hev1.mp4")
        }
        let input = dir + "/mv_hev1.mp4", out = dir + "/fixed.mp4"
        let before = try Self.firstVideoEntry(input)
        #expect(before.type == "hev1" && before.child("lhvC") != nil)
        #expect(try report(input).profile.findings.contains { $0.ruleID == "SV-PROF-002" })
        let r = try MovieRepair.fix(path: input, output: out, inPlace: false)
        #expect(r.notRepaired.isEmpty, "\(r.notRepaired)")
        #expect(r.repairs.contains { $0.contains("'hev1' → 'hvc1'") && $0.contains("SPS (layer 1)") })
        #expect(r.repairs.contains { $0.contains("moved moov before mdat") })
        let f = try ISOFile.open(path: out)
        #expect(f.boxes.firstIndex { $0.type == "moov" } ?? 99 < f.boxes.firstIndex { $0.type == "mdat" } ?? 0)
        let entry = try Self.firstVideoEntry(out)
        #expect(entry.type == "hvc1")
        let hvcC = try HEVCDecoderConfigurationRecord(
            parsing: try #require(entry.child("hvcC")?.payload(HEVCConfigurationBox.self)).record)
        let lhvC = try LHEVCDecoderConfigurationRecord(
            parsing: try #require(entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)).record)
        let psArrays = hvcC.arrays.filter { [32, 33, 34].contains($0.nalUnitType.rawValue) }
        #expect(psArrays.count == 3 && !psArrays.contains { !$0.arrayCompleteness })
        #expect(lhvC.arrays.contains { $0.nalUnitType == .sps } && lhvC.arrays.contains { $0.nalUnitType == .pps })
        // No parameter set is left in any sample.
        let track = try #require(f.tracks.first { $0.handler == "vide" })
        let samples = try track.samples()
        #expect(samples.count == 30)
        for s in samples {
            let nals = try LengthPrefixed.split(
                try f.readBytes(at: s.offset, count: Int(s.size)), lengthSize: hvcC.lengthSize)
            #expect(
                !nals.contains { $0.type == .vps || $0.type == .sps || $0.type == .pps },
                "sample \(s.index) still has parameter sets")
        }
        #expect(try f.serialized() == readAll(out))
        // FFmpeg 9 decodes both views to the same frames.
        let v = try Self.views([input, out])
        let a = try #require(v[input]), b = try #require(v[out])
        for eye in ["left", "right"] {
            #expect(
                a[eye]?.count == 30 && !(a[eye]?.first ?? "error").hasPrefix("error"),
                "\(eye): \(a[eye]?.prefix(1) ?? [])")
            #expect(a[eye] == b[eye], "\(eye) view changed")
        }
        #expect(a["left"] != a["right"])
        // Nothing is left to repair.
        let again = try MovieRepair.fix(path: out, output: dir + "/again.mp4", inPlace: false)
        #expect(again.repairs.isEmpty && again.notRepaired.isEmpty && !Shared.exists(dir + "/again.mp4"))
    }

    @Test(.needs(.oracles))
    func hev1IsKeptWhenTheParameterSetsHaveNowhereToGo() throws {
        // The same stream without lhvC: the layer-1 SPS/PPS in the samples cannot move, so hev1 stays, with the reason.
        let dir = try makeTempDir("fix-refuse")
        defer { removeTree(dir) }
        if try !FramePackedTaggingTests.makeInputs(dir).contains("mv_hev1.mp4") {
            try Skip.because("the oracle\'s FFmpeg could not make mv_hev1.mp4")
        }
        let f = try ISOFile.open(path: dir + "/mv_hev1.mp4")
        var moov = try #require(f.box("moov"))
        var traks = try #require(moov.children)
        let ti = try #require(traks.firstIndex { $0.type == "trak" })
        var stbl = try #require(traks[ti].find("mdia", "minf", "stbl"))
        var stsd = try #require(stbl.child("stsd"))
        var entries = try #require(stsd.children)
        entries[0].removeChildren("lhvC")
        stsd.children = entries
        stbl.setChild(stsd)
        try SpatialVideoEditor.replace(&traks[ti], path: ["mdia", "minf", "stbl"], with: stbl)
        moov.children = traks
        let input = dir + "/no_lhvc.mp4"
        _ = try SpatialVideoEditor.rewrite(
            file: f, moovIndex: try #require(f.boxes.firstIndex { $0.type == "moov" }), newMoov: moov, to: input,
            faststart: false)
        let r = try MovieRepair.fix(path: input, output: dir + "/out.mp4", inPlace: false)
        #expect(r.notRepaired.contains { $0.contains("'hev1' kept") && $0.contains("no lhvC") }, "\(r.notRepaired)")
        #expect(try Self.firstVideoEntry(dir + "/out.mp4").type == "hev1")
        try expectSameSamples(input, dir + "/out.mp4")
    }

    @Test(.needs(.oracles))
    func heroAndHfovAreAddedToFramePackedFilesFromOtherTools() throws {
        let dir = try makeTempDir("fix-fp")
        defer { removeTree(dir) }
        if try !FramePackedTaggingTests.makeInputs(dir).contains("sbs_ffmpeg.mov") {
            try Skip.because("the oracle\'s FFmpeg could not make sbs_ffmpeg.mov")
        }
        let input = dir + "/sbs_ffmpeg.mov"
        let r1 = try MovieRepair.fix(path: input, output: dir + "/a.mov", inPlace: false)
        #expect(r1.repairs.contains { $0.contains("added hero eye left") })
        #expect(r1.notRepaired.contains { $0.contains("give --hfov") })
        var o = RepairOptions()
        o.horizontalFieldOfViewMillidegrees = 60_000
        o.heroEye = .right
        let copy = dir + "/inplace.mov"
        try copyFile(input, to: copy)
        let r2 = try MovieRepair.fix(path: copy, output: nil, inPlace: true, options: o)
        #expect(r2.notRepaired.isEmpty, "\(r2.notRepaired)")
        #expect(
            r2.repairs.contains { $0.contains("added hero eye right") }
                && r2.repairs.contains { $0.contains("added hfov 60.000°") })
        let m = try #require(try report(copy).primary?.metadata)
        #expect(m.heroEye == .right && m.horizontalFieldOfViewMillidegrees == 60_000)
        let kids = try FramePackedTaggingTests.childTypes(copy)
        // hfov right after vexu
        #expect(kids.firstIndex(of: "hfov") == kids.firstIndex(of: "vexu").map { $0 + 1 }, "\(kids)")
        try expectSameSamples(input, copy)
        let p = try FramePackedTaggingTests.probe([input, copy])
        #expect(p[input]?.packets == p[copy]?.packets)
    }
}
