import BinaryIO
import TestSupport
import Testing

@testable import ISOBMFF

@Suite("Box model")
struct BoxModelTests {
    @Test func registryDistinguishesParents() throws {
        // proj under vexu is Apple's container; under sv3d Google's; stri under eyes is typed, under strk raw.
        let prji = box("prji", [0, 0, 0, 0] + Array("rect".utf8))
        let vexu = box("vexu", box("proj", prji) + box("eyes", box("stri", [0, 0, 0, 0, 3])))
        let strk = box("strk", box("stri", [0, 0, 0, 0, 1, 2, 3, 4]))
        let p = BoxParser()
        let (boxes, _, diags) = p.parseBoxes(vexu + strk)
        #expect(diags.isEmpty)
        let proj = try #require(boxes[0].child("proj"))
        #expect(proj.child("prji")?.payload(ProjectionInformationBox.self)?.projectionKind == "rect")
        #expect(boxes[0].find("eyes", "stri")?.payload(StereoViewInformationBox.self)?.hasRightEye == true)
        let sub = try #require(boxes[1].child("stri"))
        guard case .raw = sub.fields else { Issue.record("stri under strk should stay raw"); return }
    }

    @Test func editingOneBoxChangesOnlyItAndAncestorSizes() throws {
        let hfov = box("hfov", [0, 0, 0xF7, 0xA8])
        let entry = box("stsd", [0, 0, 0, 0, 0, 0, 0, 1] + box("xxxx", [9, 9]))
        let original = box("moov", entry + box("udta", hfov))
        let (boxes, _, _) = BoxParser().parseBoxes(original)
        var moov = boxes[0]
        var udta = try #require(moov.child("udta"))
        var h = try #require(udta.child("hfov"))
        h.fields = .typed(HorizontalFieldOfViewBox(fieldOfView: 80000))
        udta.setChild(h)
        moov.setChild(udta)
        let out = try moov.serialized()
        #expect(out.count == original.count)
        #expect(Array(out.prefix(out.count - 4)) == Array(original.prefix(original.count - 4)))
        #expect(Array(out.suffix(4)) == [0, 1, 0x38, 0x80])
        // Growing a child updates every ancestor size.
        h.fields = .raw([1, 2, 3, 4, 5, 6])
        udta.setChild(h)
        moov.setChild(udta)
        let grown = try moov.serialized()
        var r = ByteReader(grown)
        #expect(try r.readU32() == UInt32(original.count + 2))
    }

    @Test func compactHeaderIsPromotedWhenTooLarge() {
        var b = Box(type: "mdat", fields: .fileRange(offset: 0, length: UInt64(UInt32.max)))
        b.header.form = .compact
        #expect(b.encodedSize() == UInt64(UInt32.max) + 16)
        #expect(b.headerBytes(payload: UInt64(UInt32.max)).count == 16)
    }

    @Test func sampleTablesResolveOffsetsAndTimes() throws {
        let path = Paths.root + "/Conformance/files/multitrack.mov"
        let f = try ISOFile.open(path: path)
        let samples = try #require(f.tracks.first).samples()
        #expect(samples.count == 2)
        #expect(samples[1].offset == samples[0].offset + UInt64(samples[0].size))
        #expect(samples[1].decodeTime == 100)
        #expect(samples[0].isSync)
    }

    @Test(.needs(.shared("corpus/spatial-video/stereo_spatial.mp4")))
    func appleSpatialVideoTree() throws {
        let f = try ISOFile.open(path: TestPaths.sharedPath("corpus/spatial-video/stereo_spatial.mp4"))
        let entry = try #require(f.find("moov", "trak", "mdia", "minf", "stbl", "stsd", "hvc1"))
        #expect(entry.children?.map(\.type.description) == ["hvcC", "lhvC", "fiel", "chrm", "vexu", "hfov"])
        let eyes = try #require(entry.find("vexu", "eyes"))
        #expect(eyes.children?.map(\.type.description) == ["stri", "hero", "cams", "cmfy"])
        #expect(eyes.find("cams", "blin")?.payload(StereoCameraSystemBaselineBox.self)?.baseline == 19240)
        #expect(
            eyes.find("cmfy", "dadj")?.payload(StereoComfortDisparityAdjustmentBox.self)?.disparityAdjustment == 200)
        #expect(entry.child("hfov")?.payload(HorizontalFieldOfViewBox.self)?.fieldOfView == 63400)
        #expect(f.box("mdat")?.header.form == .large)
        let lines = BoxDump.lines(f)
        #expect(lines.contains { $0.contains("blin") && $0.contains("19.24 mm") })
    }
}

enum Paths {
    static let root = TestPaths.packageRoot
}
