import BinaryIO
import ISOBMFF
import TestSupport
import Testing

@testable import SpatialMedia

@Suite struct ReadSpatialMetadataTests {
    @Test(.needs(.sharedFiles(Shared.apple)))
    func appleFile() throws {
        let r = try report(Shared.apple)
        #expect(r.classification == .spatialVideo)
        #expect(r.whyNotSpatial.isEmpty)
        let v = try #require(r.primary)
        #expect(v.isMVHEVC)
        #expect(v.lhvCLayerIDs == [1])
        let m = v.metadata
        #expect(m.baselineMicrometres == 19240)
        #expect(m.baselineMillimetres == 19.24)
        #expect(m.horizontalFieldOfViewMillidegrees == 63400)
        #expect(m.horizontalFieldOfViewDegrees == 63.4)
        #expect(m.disparityAdjustment == 200)
        #expect(m.disparityPercent == 2.0)
        #expect(m.disparityFraction == 0.02)
        #expect(m.heroEye == .left)
        #expect(m.viewFlags == StereoViewFlags(left: true, right: true))
        #expect(m.projectionKind == nil)
        #expect(!m.hasProjectionBox)
        #expect(m.effectiveProjection(isMVHEVC: true) == "rect")
        #expect(m.diagnostics.isEmpty)
        #expect(m.presentBoxes.contains("vexu/eyes/cmfy/dadj"))
    }

    @Test(.needs(.sharedFiles(Shared.x265)))
    func x265Fixture() throws {
        let r = try report(Shared.x265)
        #expect(r.classification == .spatialVideo)
        let m = try #require(r.primary).metadata
        #expect(m.baselineMicrometres == 64000)
        #expect(m.horizontalFieldOfViewMillidegrees == 60000)
        #expect(m.heroEye == .left)
        #expect(m.disparityAdjustment == 0)
        #expect(m.projectionKind == "rect")
        #expect(m.hasProjectionBox)
    }

    @Test(.needs(.sharedFiles(Shared.small)))
    func smallFixture() throws {
        let r = try report(Shared.small)
        #expect(r.classification == .spatialVideo)
        let m = try #require(r.primary).metadata
        #expect(m.baselineMicrometres == 63000)
        #expect(m.disparityAdjustment == 200)
        #expect(m.horizontalFieldOfViewMillidegrees == 63500)
        #expect(m.heroEye == .left)
    }

    @Test(.needs(.sharedFiles(Shared.lhvcOnly)))
    func lhvCWithoutMetadata() throws {
        let r = try report(Shared.lhvcOnly)
        #expect(r.classification == .stereoMVHEVCWithoutSpatialMetadata)
        #expect(r.whyNotSpatial.contains { $0.contains("no vexu") })
        #expect(r.whyNotSpatial.contains { $0.contains("blin") })
        #expect(r.whyNotSpatial.contains { $0.contains("hfov") })
    }

    @Test func ordinaryMovies() throws {
        if Shared.exists(Shared.jpegMov) {
            let r = try report(Shared.jpegMov)
            #expect(r.classification == .monoscopic2D)
            #expect(r.whyNotSpatial.first?.contains("not HEVC") == true)
            #expect(r.otherTracks.contains { $0.role == "audio" })
        }
        if Shared.exists(Shared.audioOnly) {
            let r = try report(Shared.audioOnly)
            #expect(r.classification == .noVideo)
            #expect(r.otherTracks.count == 1)
        }
    }

    /// Wrong-size boxes are reported, their bytes kept, and the value still read when possible.
    @Test func wrongSizesAreReported() throws {
        // hvc1-like entry children: vexu{eyes{stri(14 bytes), cams{blin}}} + hfov with 8-byte payload.
        var w = ByteWriter()
        let stri: [UInt8] = [0, 0, 0, 14] + Array("stri".utf8) + [0, 0, 0, 0, 3, 0]
        let blin: [UInt8] = [0, 0, 0, 16] + Array("blin".utf8) + [0, 0, 0, 0, 0, 0, 0x4b, 0x28]
        let cams: [UInt8] = [0, 0, 0, UInt8(8 + blin.count)] + Array("cams".utf8) + blin
        let eyes: [UInt8] = [0, 0, 0, UInt8(8 + stri.count + cams.count)] + Array("eyes".utf8) + stri + cams
        let vexu: [UInt8] = [0, 0, 0, UInt8(8 + eyes.count)] + Array("vexu".utf8) + eyes
        let hfov: [UInt8] = [0, 0, 0, 16] + Array("hfov".utf8) + [0, 0, 0xf7, 0xa8, 0, 0, 0, 0]
        w.write(vexu); w.write(hfov)
        let parsed = BoxParser().parseBoxes(w.bytes, parents: ["stsd", "hvc1"])
        var entry = Box(type: "hvc1", children: parsed.boxes)
        entry.path = "hvc1"
        let m = StereoMetadataReader.read(sampleEntry: entry)
        #expect(m.viewFlags?.rawValue == 3)
        #expect(m.baselineMicrometres == 19240)
        #expect(m.horizontalFieldOfViewMillidegrees == 63400)
        #expect(m.diagnostics.contains { $0.message.contains("stri is 14 bytes") })
        #expect(m.diagnostics.contains { $0.message.contains("hfov is 16 bytes") })
        // Bytes are kept: the entry serializes back to the input.
        var out = SegmentList()
        for b in entry.children ?? [] { b.write(to: &out) }
        #expect(try SegmentList.materialize(out.finish(), source: nil) == w.bytes)
    }

    @Test func layerIDsFromLhvC() {
        // version, 2 bytes, 1 byte, 1 byte (length size), 1 array: type 33 SPS, 1 NAL, nuh_layer_id 1 (0x42 0x09).
        let rec: [UInt8] = [1, 0xF0, 0, 0xFC, 0xCB, 1, 0xA1, 0, 1, 0, 3, 0x42, 0x09, 0x01]
        #expect(SpatialVideoReport.layerIDs(lhvC: rec) == [1])
        #expect(SpatialVideoReport.layerIDs(lhvC: [1, 2, 3]) == [])
        #expect(SpatialVideoReport.layerIDs(lhvC: [1, 0, 0, 0, 0, 200, 1, 0xFF, 0xFF]) == [])
    }

    @Test func sphericalV1XML() throws {
        let xml = "<rdf:SphericalVideo><GSpherical:StereoMode> left-right </GSpherical:StereoMode></rdf:SphericalVideo>"
        var trak = Box(
            type: "trak",
            children: [Box(type: "uuid", fields: .raw(Array(xml.utf8)), userType: StereoMetadataReader.sphericalV1UUID)]
        )
        trak.path = "trak"
        let entry = Box(type: "avc1", children: [])
        let m = StereoMetadataReader.read(sampleEntry: entry, track: trak)
        #expect(m.sphericalV1StereoMode == "left-right")
        #expect(m.framePacking == .sideBySide)
    }

    @Test(.needs(.sharedFiles(Shared.apple)))
    func infoSectionJSON() throws {
        let s = try #require(SpatialVideoReport.infoSection(try ISOFile.open(path: Shared.apple)))
        #expect(s.json["classification"] == .string("spatial-video"))
        #expect(s.lines.contains { $0.contains("baseline: 19.240 mm") })
        #expect(s.lines.contains { $0.contains("horizontal field of view: 63.400°") })
        #expect(s.lines.contains { $0.contains("+2.00 %") })
    }
}
