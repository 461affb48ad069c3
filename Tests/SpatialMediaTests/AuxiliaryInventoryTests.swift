import BinaryIO
import Foundation
import ISOBMFF
import SystemSupport
import TestSupport
import Testing

@testable import SpatialMedia

/// Issue 32, without shared media: the auxiliary-image model (kinds from URNs, the depth SEI's range, the inventory of
/// a built HEIF) and the jobs that copy items — `split`'s eye extraction and `combine` of two files — keeping each
/// eye's auxiliary images, thumbnails and their metadata with bytes unchanged.
struct AuxiliaryInventoryTests {
    @Test func kindsFromURNs() {
        #expect(AuxiliaryKind(urn: "urn:com:apple:photo:2020:aux:hdrgainmap") == .gainMap)
        #expect(AuxiliaryKind(urn: "urn:com:samsung:photo:2024:aux:hdrgainmap") == .gainMap)
        #expect(AuxiliaryKind(urn: "urn:mpeg:hevc:2015:auxid:1") == .alpha)
        #expect(AuxiliaryKind(urn: "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha") == .alpha)
        #expect(AuxiliaryKind(urn: "urn:mpeg:hevc:2015:auxid:2") == .depth)
        #expect(AuxiliaryKind(urn: "urn:mpeg:mpegB:cicp:systems:auxiliary:depth") == .depth)
        #expect(AuxiliaryKind(urn: "urn:com:apple:photo:2018:aux:portraiteffectsmatte") == .matte)
        #expect(AuxiliaryKind(urn: "urn:example:something") == .other)
    }

    /// A depth representation information SEI with z_near = 0.5 and z_far = 4.0 (type 2, uniform depth).
    @Test func depthRangeFromTheSEI() throws {
        var w = BitWriterForTest()
        w.put(1, 1); w.put(1, 1); w.put(0, 1); w.put(0, 1)  // z_near, z_far present
        w.ue(2)
        // 0.5 = 2^(30-31) · (1 + 0): sign 0, exponent 30, mantissa length 1, mantissa 0.
        w.put(0, 1); w.put(30, 7); w.put(0, 5); w.put(0, 1)
        // 4.0 = 2^(33-31) · 1
        w.put(0, 1); w.put(33, 7); w.put(0, 5); w.put(0, 1)
        let r = try #require(DepthRange(seiPayload: w.bytes))
        #expect(r.representationType == 2 && r.zNear == 0.5 && r.zFar == 4.0 && r.dMin == nil)
        #expect(r.text.contains("uniform depth"))
        #expect(DepthRange(seiPayload: [0xF0]) == nil)
    }

    /// A one-image HEIF: main 640x480 with an Apple gain map (320x240, irot 90°, XMP metadata), an alpha plane and a
    /// thumbnail.
    static func sample() throws -> [UInt8] {
        func ispe(_ w: UInt32, _ h: UInt32) -> Box {
            Box(ImageSpatialExtentsProperty(width: w, height: h), type: "ispe")
        }
        func auxC(_ urn: String) -> Box { Box(type: "auxC", fields: .raw([0, 0, 0, 0] + Array(urn.utf8) + [0])) }
        var b = HEIFBuilder(primaryItemID: 1)
        b.items = [
            .init(id: 1, type: "hvc1", data: [1, 2, 3], properties: [(ispe(640, 480), false)]),
            .init(
                id: 2, type: "hvc1", hidden: true, data: [4, 5],
                properties: [
                    (ispe(320, 240), false), (auxC(AuxiliaryImage.appleGainMapURN), true),
                    (Box(type: "irot", fields: .raw([1])), true),
                ]),
            .init(id: 3, type: "mime", hidden: true, contentType: "application/rdf+xml", data: Array("<x/>".utf8)),
            .init(
                id: 4, type: "hvc1", hidden: true, data: [6],
                properties: [(ispe(640, 480), false), (auxC("urn:mpeg:hevc:2015:auxid:1"), true)]),
            .init(id: 5, type: "hvc1", data: [7, 8], properties: [(ispe(160, 120), false)]),
        ]
        b.references = [
            .init(type: "auxl", from: 2, to: [1]), .init(type: "cdsc", from: 3, to: [2]),
            .init(type: "auxl", from: 4, to: [1]),
            .init(type: "thmb", from: 5, to: [1]),
        ]
        return try b.build()
    }

    @Test func inventoryOfABuiltFile() throws {
        let file = try ISOFile.parse(source: MemorySource(try Self.sample()))
        let inv = HEIFImageInventory(try #require(file.heif))
        #expect(inv.auxiliary.map(\.kind) == [.gainMap, .alpha])
        let gain = try #require(inv.auxiliary.first)
        #expect(
            gain.width == 320 && gain.height == 240 && gain.quarterTurns == 1 && gain.displayedWidth == 240
                && gain.masterItemIDs == [1])
        #expect(gain.metadataItemIDs == [3])
        #expect(inv.thumbnails.map(\.itemID) == [5] && inv.metadata.map(\.label) == ["XMP"])
        #expect(
            inv.lines.contains {
                $0.contains(
                    "item 2: Apple HDR gain map (urn:com:apple:photo:2020:aux:hdrgainmap), hvc1 320x240, shown 240x320 (irot 90°), for item 1, metadata item 3"
                )
            })
    }

    /// `split`'s eye (extractEye) and `combine` of two files keep the gain map, its XMP, the alpha and the thumbnail of
    /// each eye, attached to that eye, bytes unchanged.
    @Test func splitAndCombineKeepThem() throws {
        let dir = try TestPaths.tempDir("aux-inventory")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let one = dir + "/one.heic"
        try TestMedia.write(try Self.sample(), to: one)
        let combined = dir + "/pair.heic"
        _ = try SpatialPhotoEditor.combine(
            leftPath: one, rightPath: one,
            stereo: StereoParameters(baselineMicrometres: 64000, horizontalFieldOfViewMillidegrees: 60000),
            output: combined)
        let pair = try ISOFile.open(path: combined)
        let h = try #require(pair.heif)
        var problems: [SpatialDiagnostic] = []
        let photo = try #require(SpatialPhotoReader.read(pair, problems: &problems))
        let inv = HEIFImageInventory(h)
        for eye in [photo.left.itemID, photo.right.itemID] {
            #expect(inv.auxiliary(of: eye).map(\.kind) == [.gainMap, .alpha], "eye \(eye)")
            #expect(inv.thumbnails.filter { $0.targets == [eye] }.count == 1)
        }
        let right = try SpatialPhotoEditor.extractEye(file: pair, item: photo.right.itemID)
        let eyeFile = try ISOFile.parse(source: MemorySource(right))
        let eh = try #require(eyeFile.heif)
        let eyeInv = HEIFImageInventory(eh)
        let primary = try #require(eh.primaryItemID)
        #expect(eyeInv.auxiliary(of: primary).map(\.kind) == [.gainMap, .alpha])
        #expect(eyeInv.thumbnails.count == 1 && eyeInv.metadata.filter { $0.label == "XMP" }.count == 1)
        let gain = try #require(eyeInv.auxiliary(of: primary).first)
        #expect(try eh.data(of: gain.itemID, file: eyeFile) == [4, 5])
        #expect(gain.metadataItemIDs.count == 1)
    }
}

/// A minimal MSB-first bit writer for building SEI payloads in tests.
struct BitWriterForTest {
    var bytes: [UInt8] = []
    var bit = 0
    mutating func put(_ v: UInt64, _ n: Int) {
        for i in stride(from: n - 1, through: 0, by: -1) {
            if bit % 8 == 0 { bytes.append(0) }
            if (v >> UInt64(i)) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> (bit % 8)) }
            bit += 1
        }
    }
    mutating func ue(_ v: UInt64) {
        let x = v + 1
        let len = 64 - x.leadingZeroBitCount
        put(0, len - 1); put(x, len)
    }
}
