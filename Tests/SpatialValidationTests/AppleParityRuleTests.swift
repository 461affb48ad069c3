import BinaryIO
import Codecs
import Foundation
import HEVC
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialConvert
import TestSupport
import Testing

@testable import SpatialMedia
@testable import SpatialValidation

/// Rules added for Apple parity: trailing bits, hero vs base layer, colr, profile of photo tiles.
@Suite("Apple parity rules")
struct AppleParityRuleTests {
    static var metadataOnly: ValidationOptions { var o = ValidationOptions(); o.pixels = false; return o }

    /// Apple's file with its VPS rewritten to end right after vps_extension() (no vps_extension2_flag, as our
    /// assembler used to write it): SV-VIDEO-032 fires, the original does not.
    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func vpsWithoutExtension2FlagIsFlagged() throws {
        #expect(!Validator.validate(path: Corpus.appleVideo, options: Self.metadataOnly).fired("SV-VIDEO-032"))
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/noext2.mp4"
        let file = try ISOFile.open(path: Corpus.appleVideo)
        let entry = try #require(file.tracks.first?.sampleEntries.first)
        var rec = try HEVCDecoderConfigurationRecord(
            parsing: try #require(entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record))
        let ai = try #require(rec.arrays.firstIndex { $0.nalUnitType == .vps })
        var vps = try VideoParameterSet(nal: try NALUnit(bytes: rec.arrays[ai].nalUnits[0]))
        #expect(vps.extension2Flag == false)
        vps.extension2Flag = nil
        rec.arrays[ai].nalUnits[0] = try vps.nalUnit().bytes
        let mi = try #require(file.boxes.firstIndex { $0.type == "moov" })
        var moov = file.boxes[mi]
        try SpatialVideoEditor.replace(
            &moov, path: ["trak", "mdia", "minf", "stbl", "stsd", "hvc1", "hvcC"],
            with: Box(HEVCConfigurationBox(record: try rec.serialized()), type: "hvcC"))
        _ = try SpatialVideoEditor.rewrite(
            file: file, moovIndex: mi, newMoov: moov, to: path, faststart: false, progress: nil)
        let r = Validator.validate(path: path, options: Self.metadataOnly)
        #expect(r.fired("SV-VIDEO-032"), "\(r.lines)")
        #expect(r.findings.first { $0.ruleID == "SV-VIDEO-032" }?.message.contains("vps_extension2_flag") == true)
    }

    /// Hero: a hero eye other than the base layer's is a warning (and the editor says so); no hero box is only a note.
    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func heroAgainstBaseLayer() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var e = SpatialVideoEdit(); e.heroEye = .set(.right)
        let right = dir + "/right.mp4"
        let res = try SpatialVideoEditor.edit(path: Corpus.appleVideo, output: right, inPlace: false, edit: e)
        #expect(res.warnings.contains { $0.contains("base layer (layer 0) carries the left eye") }, "\(res.warnings)")
        let r = Validator.validate(path: right, options: Self.metadataOnly)
        #expect(r.fired("SV-VIDEO-033"))
        e.heroEye = .remove
        let none = dir + "/none.mp4"
        _ = try SpatialVideoEditor.edit(path: Corpus.appleVideo, output: none, inPlace: false, edit: e)
        let n = Validator.validate(path: none, options: Self.metadataOnly)
        let f = try #require(n.findings.first { $0.ruleID == "SV-VIDEO-013" })
        #expect(f.severity == .info && f.message.contains("(left)"))
        #expect(!n.findings.contains { $0.severity == .warning && $0.ruleID.hasPrefix("SV-VIDEO") })
        // Hero left on Apple's file (base = left) stays quiet.
        #expect(!Validator.validate(path: Corpus.appleVideo, options: Self.metadataOnly).fired("SV-VIDEO-033"))
    }

    /// Our conversion writes colr from the SPS VUI (no SV-VIDEO-034/035); a colr patched to other primaries is caught.
    @Test func colrAgainstTheVUI() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = dir + "/c.mov"
        var o = VideoConversionOptions()
        o.preset = "ultrafast"
        _ = try VideoConverter.convert(
            .packed(ConvertedVideoTests.root + "/Conformance/files/sample_sbs_320x96.y4m"), to: out, options: o)
        let ok = Validator.validate(path: out, options: Self.metadataOnly)
        #expect(!ok.fired("SV-VIDEO-034") && !ok.fired("SV-VIDEO-035") && !ok.fired("SV-VIDEO-032"), "\(ok.lines)")
        let at = try #require(try Temp.find(out, "colr").first)
        // size 4, type 4, 'nclc' 4, then primaries (2 bytes): 1 → 9.
        try Temp.patch(out, at: at + 8, with: [0x00, 0x09])
        #expect(Validator.validate(path: out, options: Self.metadataOnly).fired("SV-VIDEO-035"))
    }

    /// A spatial photo whose tiles are x265's "Main Intra" (profile 4) is flagged; our conversions are profile 3.
    @Test func photoTileProfile() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var pixels: [UInt8] = []
        for y in 0..<96 {
            for x in 0..<128 { pixels += [UInt8(truncatingIfNeeded: x * 2), UInt8(truncatingIfNeeded: y * 2), 90] }
        }
        let img = try Image(width: 128, height: 96, bitDepth: 8, format: .rgb, planes: .u8([pixels]))
        var settings = PhotoEncoding.settings(quality: 60, sourceDepth: 8)
        let good = try HEVCStillEncoder.encode([img, img], settings: settings)
        settings.totalFrames = nil  // x265 then signals profile 4 (Main Intra)
        let bad = try HEVCStillEncoder.encode([img, img], settings: settings)
        #expect(try HEVCDecoderConfigurationRecord(parsing: good[0].hvcC).profileIdc == 3)
        #expect(try HEVCDecoderConfigurationRecord(parsing: bad[0].hvcC).profileIdc == 4)
        let params = StereoParameters(
            baselineMicrometres: 64_000, horizontalFieldOfViewMillidegrees: 60_000, disparityAdjustment: 0)
        for (coded, name, fires) in [(good, "good.heic", false), (bad, "bad.heic", true)] {
            let path = dir + "/" + name
            try SpatialPhotoWriter.write(
                left: PhotoEncoding.codedImage(coded[0], settings: settings),
                right: PhotoEncoding.codedImage(coded[1], settings: settings),
                stereo: params, to: path)
            let r = Validator.validate(path: path, options: Self.metadataOnly)
            #expect(r.fired("SV-PHOTO-023") == fires, "\(name): \(r.lines)")
            #expect(!r.fired("SV-PHOTO-022"))
        }
    }
}
