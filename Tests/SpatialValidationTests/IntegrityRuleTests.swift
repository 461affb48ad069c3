import BinaryIO
import Foundation
import ISOBMFF
import SpatialMedia
import TestSupport
import Testing

@testable import SpatialValidation

/// Issue 18, items 5, 7, 8: a truncated file never passes; B-frames without `ctts` are flagged; the frames
/// measured are named; `info` honours the edit list.
@Suite("Integrity rules")
struct IntegrityRuleTests {
    static var metadataOnly: ValidationOptions { var o = ValidationOptions(); o.pixels = false; return o }

    static func temp(_ name: String) -> String {
        let dir = NSTemporaryDirectory() + "integrity-\(getpid())"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir + "/" + name
    }

    @Test(.needs(.sharedFiles(Corpus.visionPro)))
    func truncatedSpatialPhotoFails() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Corpus.visionPro))
        let cut = Self.temp("cut.heic")
        try data.prefix(data.count / 2).write(to: URL(fileURLWithPath: cut))
        let whole = Validator.validate(path: Corpus.visionPro, options: Self.metadataOnly)
        #expect(!whole.fired("SV-FILE-002") && !whole.fired("SV-FILE-003"))
        let r = Validator.validate(path: cut, options: Self.metadataOnly)
        #expect(r.fired("SV-FILE-002"))
        #expect(r.fired("SV-FILE-003"))
        #expect(!r.spatial)
        // A damaged or truncated file: exit 2, as the README's exit-code table says (issue 38).
        #expect(r.exitCode == 2)
        // Offset and box path are named.
        let f = try #require(r.findings.first { $0.ruleID == "SV-FILE-003" })
        #expect(f.location.contains("meta/iloc @ offset"))
    }

    /// moov first, mdat cut in half: the chunks past the end are an error (it used to pass with 0 warnings).
    @Test(.needs(.sharedFiles(Corpus.x265Spatial)))
    func movieWithHalfItsMdatMissingFails() throws {
        let fast = Self.temp("fast.mov")
        var e = SpatialVideoEdit()
        e.baselineMicrometres = .set(64_000)
        _ = try SpatialVideoEditor.edit(
            path: Corpus.x265Spatial, output: fast, inPlace: false, edit: e, faststart: true)
        let file = try ISOFile.open(path: fast)
        let mdat = try #require(file.box("mdat"))
        let data = try Data(contentsOf: URL(fileURLWithPath: fast))
        let cut = Self.temp("halfmdat.mov")
        try data.prefix(Int(mdat.header.offset + mdat.header.size / 2)).write(to: URL(fileURLWithPath: cut))
        #expect(!Validator.validate(path: fast, options: Self.metadataOnly).fired("SV-FILE-003"))
        let r = Validator.validate(path: cut, options: Self.metadataOnly)
        #expect(r.fired("SV-FILE-003"))
        #expect(r.fired("SV-FILE-002"))
        #expect(r.exitCode == 2)
        #expect(!r.spatial)
        #expect(
            r.findings.first { $0.ruleID == "SV-FILE-003" }?.location.hasPrefix("moov/trak[0]/mdia/minf/stbl @ offset")
                == true)
    }

    static func strip(_ type: FourCC, from box: inout Box) {
        guard var kids = box.children else { return }
        kids.removeAll { $0.type == type }
        for i in kids.indices { strip(type, from: &kids[i]) }
        box.children = kids
    }

    /// Apple's file has B-frames and ctts; without ctts its frames are shown in decoding order.
    @Test(.needs(.sharedFiles(Corpus.appleVideo)))
    func reorderingWithoutCttsIsAnError() throws {
        let good = Validator.validate(path: Corpus.appleVideo, options: Self.metadataOnly)
        #expect(!good.fired("SV-VIDEO-036"))
        var file = try ISOFile.open(path: Corpus.appleVideo)
        let mi = try #require(file.boxes.firstIndex { $0.type == "moov" })
        Self.strip("ctts", from: &file.boxes[mi])
        let out = Self.temp("noctts.mp4")
        try file.write(to: out)
        let r = Validator.validate(path: out, options: Self.metadataOnly)
        #expect(r.fired("SV-VIDEO-036"))
        #expect(r.exitCode == 1)
    }

    /// `--frames 10` on a 6-frame video says which frames were measured and why fewer.
    @Test(.needs(.sharedFiles(Corpus.smallSpatial)))
    func framesMeasuredAreNamed() throws {
        var o = ValidationOptions()
        o.frames = 10
        let r = Validator.validate(path: Corpus.smallSpatial, options: o)
        let f = try #require(r.findings.first { $0.ruleID == "SV-GEOM-022" }, "no frames-measured finding: \(r.lines)")
        #expect(f.message.contains("measured 6 frames"))
        #expect(f.message.contains("frame 0") && f.message.contains("frame 5"))
        #expect(f.message.contains("the video has only 6 frames"))
    }

    /// An edit list that starts 3 frames in: `info` reports the presented duration and frame count.
    @Test(.needs(.sharedFiles(Corpus.x265Spatial)))
    func infoHonoursTheEditList() throws {
        let file = try ISOFile.open(path: Corpus.x265Spatial)
        let track = try #require(file.tracks.first { $0.handler == "vide" })
        let samples = try track.samples()
        let movieTimescale = try #require(file.find("moov", "mvhd")?.payload(MovieHeaderBox.self)?.timescale)
        let before = try #require(track.presented(movieTimescale: movieTimescale))
        #expect(before.samples == samples.count)
        let elst = try #require(track.box.find("edts", "elst"))
        let entry = try #require(elst.payload(EditListBox.self)?.entries.first)
        try #require(elst.header.size == 28, "a one-entry version-0 elst is patched in place")
        // The entry (version 0): segment_duration u32, media_time i32, right after the 8+4+4 bytes in front.
        let d = UInt64(samples[0].duration)
        let segment = entry.segmentDuration - 3 * d * UInt64(movieTimescale) / UInt64(track.timescale)
        let mediaTime = UInt64(entry.mediaTime) + 3 * d
        var data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Corpus.x265Spatial)))
        let at = Int(elst.header.offset) + 16
        for (k, v) in [(at, segment), (at + 4, mediaTime)] {
            for b in 0..<4 { data[k + b] = UInt8(truncatingIfNeeded: v >> (24 - 8 * UInt64(b))) }
        }
        let out = Self.temp("elst.mov")
        try Data(data).write(to: URL(fileURLWithPath: out))
        let info = try MediaInfo.inspect(path: out)
        let line = try #require(info.lines.first { $0.contains("presented (edit list)") }, "\(info.lines)")
        #expect(line.contains("\(samples.count - 3) frames"), "\(line)")
        // The unedited file says nothing extra.
        #expect(!(try MediaInfo.inspect(path: Corpus.x265Spatial)).lines.contains { $0.contains("presented") })
    }
}
