import BinaryIO
import Foundation
import ISOBMFF
import SystemSupport
import TestSupport
import Testing

@testable import SpatialMedia

enum Photos {
    static let visionPro = Shared.root + "/corpus/spatial-photo/vision-pro.HEIC"
    static let pairPlain = Shared.root + "/fixtures/pair_plain.heic"
    static let pairSter = Shared.root + "/fixtures/pair_ster_cmin_cmex.heic"
    static let nokiaStereo = Shared.root + "/corpus/spatial-photo/stereo_1200x800.heic"
    static var oraclePython: String { TestPaths.oraclePython ?? "" }
    static let oracleScript = TestPaths.package("Tests/Oracles/heif_oracle.py")
    static var haveOracle: Bool { TestPaths.oraclePython != nil }

    /// Runs the libheif 1.23 oracle (pillow-heif) on a file and returns its JSON.
    static func oracle(_ path: String, decode: Bool = true) throws -> [String: Any] {
        try Oracle.object("Tests/Oracles/heif_oracle.py", [path] + (decode ? [] : ["--no-decode"]))
    }

    /// Every item's bytes, by id.
    static func itemData(_ path: String) throws -> [UInt32: [UInt8]] {
        let f = try ISOFile.open(path: path)
        guard let h = f.heif else { return [:] }
        var out: [UInt32: [UInt8]] = [:]
        for it in h.items { out[it.id] = try h.data(of: it.id, file: f) }
        return out
    }

    static func photo(_ path: String) throws -> SpatialPhoto? {
        var problems: [SpatialDiagnostic] = []
        return SpatialPhotoReader.read(try ISOFile.open(path: path), problems: &problems)
    }
}

@Suite("Spatial photos: read")
struct SpatialPhotoReadTests {
    @Test(.needs(.sharedFiles(Photos.visionPro)))
    func visionProPhoto() throws {
        let p = try #require(try Photos.photo(Photos.visionPro))
        #expect(p.left.itemID == 26 && p.right.itemID == 52)
        #expect(p.left.width == 2560 && p.left.height == 2560 && p.right.width == 2560)
        #expect(p.left.tiles == 25)
        #expect(abs((p.baselineMicrometres ?? 0) - 63774) < 0.5)
        #expect(abs((p.horizontalFOVDegrees ?? 0) - 80.0) < 0.01)
        #expect(p.disparityAdjustment == 293)
        let off = try #require(p.left.principalPointOffset)
        #expect(abs(off.x) < 0.01 && abs(off.y) < 0.01)
        #expect(p.left.intrinsicsForms == [.appleUUID] && p.right.extrinsicsForms == [.appleUUID])
        #expect(p.left.intrinsics?.denominatorShift == 30)
        #expect(p.left.linkedItems.contains { $0.reference == "cdsc" && $0.type == "Exif" })
        #expect(p.rotationDegrees == 0)
        // The Apple photo rewrites byte-identically.
        let f = try ISOFile.open(path: Photos.visionPro)
        #expect(try f.serialized() == (try readAll(Photos.visionPro)))
    }

    @Test(.needs(.sharedFiles(Photos.pairSter)))
    func standardFormFixture() throws {
        let p = try #require(try Photos.photo(Photos.pairSter))
        #expect(p.left.intrinsicsForms == [.standard])
        #expect(abs((p.left.focalLengthPixels ?? 0) - 51.2) < 0.01)
    }

    @Test(.needs(.sharedFiles(Photos.nokiaStereo)))
    func nonAppleStereoHEIF() throws {
        let p = try #require(try Photos.photo(Photos.nokiaStereo))
        #expect(p.left.itemID == 1002 && p.right.itemID == 1008)
        #expect(p.baselineMicrometres == nil)
    }
}

@Suite("Spatial photos: edit and combine without re-encoding")
struct SpatialPhotoEditTests {
    @Test(.needs(.sharedFiles(Photos.visionPro)))
    func editVisionProPhoto() throws {
        let dir = try makeTempDir("photo-edit")
        defer { removeTree(dir) }
        let out = dir + "/edited.heic"
        let r = try SpatialPhotoEditor.edit(
            path: Photos.visionPro, output: out,
            stereo: StereoParameters(
                baselineMicrometres: 65000, horizontalFieldOfViewMillidegrees: 75000, disparityAdjustment: -100))
        #expect(r.leftItemID == 26 && r.rightItemID == 52)
        let p = try #require(try Photos.photo(out))
        #expect(abs((p.baselineMicrometres ?? 0) - 65000) < 0.5)
        #expect(abs((p.horizontalFOVDegrees ?? 0) - 75.0) < 0.001)
        #expect(p.disparityAdjustment == -100)
        #expect(p.left.intrinsicsForms == [.appleUUID])
        // Every item's bytes are unchanged; the Exif/XMP items are carried along.
        #expect(try Photos.itemData(out) == (try Photos.itemData(Photos.visionPro)))
        // Only meta changed: the bytes after it are identical.
        let a = try readAll(Photos.visionPro), b = try readAll(out)
        let metaEnd = try #require(try ISOFile.open(path: out).box("meta")).header.size + 24
        #expect(Array(a[Int(metaEnd)...]) == Array(b[Int(metaEnd)...]) || a.count != b.count)
        if Photos.haveOracle {
            let o = try Photos.oracle(out, decode: false)
            let images = (o["images"] as? [[String: Any]]) ?? []
            let fx = (images.first?["intrinsics"] as? [String: Any])?["fx"] as? Double ?? 0
            #expect(abs(fx - 1280 / 0.7673269879789604) < 0.01)  // tan(37.5°)
        }
    }

    @Test(.needs(.sharedFiles(Photos.pairPlain)))
    func combineTwoImageHEIF() throws {
        let dir = try makeTempDir("photo-combine")
        defer { removeTree(dir) }
        let out = dir + "/combined.heic"
        let r = try SpatialPhotoEditor.combine(
            path: Photos.pairPlain,
            stereo: StereoParameters(
                baselineMicrometres: 63000, horizontalFieldOfViewMillidegrees: 70000, disparityAdjustment: 150),
            form: .standard, output: out)
        #expect(r.leftItemID == 1 && r.rightItemID == 2)
        let p = try #require(try Photos.photo(out))
        #expect(p.left.intrinsicsForms == [.standard] && p.right.extrinsicsForms == [.standard])
        #expect(abs((p.baselineMicrometres ?? 0) - 63000) < 0.5)
        #expect(abs((p.horizontalFOVDegrees ?? 0) - 70) < 0.001)
        #expect(p.disparityAdjustment == 150)
        #expect(p.primaryItemID == 1)
        #expect(try Photos.itemData(out) == (try Photos.itemData(Photos.pairPlain)))
        if Photos.haveOracle {
            let o = try Photos.oracle(out), src = try Photos.oracle(Photos.pairPlain)
            let groups = (o["entity_groups"] as? [[String: Any]]) ?? []
            #expect(groups.first?["type"] as? String == "ster")
            #expect((groups.first?["entities"] as? [Int]) == [1, 2])
            let images = (o["images"] as? [[String: Any]]) ?? [], srcImages = (src["images"] as? [[String: Any]]) ?? []
            let fx = (images.first?["intrinsics"] as? [String: Any])?["fx"] as? Double ?? 0
            #expect(abs(fx - 32 / 0.7002075382097097) < 0.01)  // tan(35°)
            // Decoded pixels identical to the inputs' (no re-encode).
            #expect(images.map { $0["pixels_md5"] as? String } == srcImages.map { $0["pixels_md5"] as? String })
        }
    }

    @Test(.needs(.sharedFiles(Photos.pairPlain)))
    func combineTwoFiles() throws {
        let dir = try makeTempDir("photo-combine2")
        defer { removeTree(dir) }
        // Split the fixture into two single-image HEIFs with our builder, then combine them again.
        let f = try ISOFile.open(path: Photos.pairPlain)
        let h = try #require(f.heif)
        for (n, id) in [(1, UInt32(1)), (2, UInt32(2))] {
            var b = HEIFBuilder(primaryItemID: 7)
            b.items.append(
                .init(id: 7, type: "hvc1", data: try h.data(of: id, file: f), properties: h.properties(of: id)))
            try AtomicFile.write(path: dir + "/eye\(n).heic", bytes: try b.build())
        }
        let out = dir + "/pair.heic"
        let r = try SpatialPhotoEditor.combine(
            leftPath: dir + "/eye1.heic", rightPath: dir + "/eye2.heic",
            stereo: StereoParameters(
                baselineMicrometres: 60000, horizontalFieldOfViewMillidegrees: 65000, disparityAdjustment: 0),
            output: out)
        let p = try #require(try Photos.photo(out))
        #expect(p.left.itemID == r.leftItemID && p.right.itemID == r.rightItemID)
        #expect(abs((p.baselineMicrometres ?? 0) - 60000) < 0.5)
        let data = try Photos.itemData(out)
        #expect(data[r.leftItemID] == (try h.data(of: 1, file: f)))
        #expect(data[r.rightItemID] == (try h.data(of: 2, file: f)))
        if Photos.haveOracle {
            let o = try Photos.oracle(out), src = try Photos.oracle(Photos.pairPlain)
            let md5 = ((o["images"] as? [[String: Any]]) ?? []).map { $0["pixels_md5"] as? String }
            #expect(md5 == ((src["images"] as? [[String: Any]]) ?? []).map { $0["pixels_md5"] as? String })
        }
    }

    @Test(.needs(.sharedFiles(Photos.pairPlain)))
    func writeGridPhotoFromCodedTiles() throws {
        let f = try ISOFile.open(path: Photos.pairPlain)
        let h = try #require(f.heif)
        let hvcC = try #require(h.properties(of: 1).compactMap { $0.box.payload(HEVCConfigurationBox.self) }.first)
            .record
        let tileL = try h.data(of: 1, file: f), tileR = try h.data(of: 2, file: f)
        let left = CodedImage(
            width: 128, height: 64, hvcC: hvcC,
            layout: .grid(columns: 2, rows: 1, tileWidth: 64, tileHeight: 64, tiles: [tileL, tileR]))
        let right = CodedImage(
            width: 128, height: 64, hvcC: hvcC,
            layout: .grid(columns: 2, rows: 1, tileWidth: 64, tileHeight: 64, tiles: [tileR, tileL]))
        let exif: [UInt8] = [0, 0, 0, 0] + Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 0]
        let bytes = try SpatialPhotoWriter.build(
            left: left, right: right,
            stereo: StereoParameters(
                baselineMicrometres: 64000, horizontalFieldOfViewMillidegrees: 60000, disparityAdjustment: 200),
            form: .both, exif: exif)
        let dir = try makeTempDir("photo-write")
        defer { removeTree(dir) }
        try AtomicFile.write(path: dir + "/grid.heic", bytes: bytes)
        let parsed = try ISOFile.open(path: dir + "/grid.heic")
        #expect(parsed.allDiagnostics.isEmpty)
        #expect(try parsed.serialized() == bytes)
        let p = try #require(try Photos.photo(dir + "/grid.heic"))
        #expect(p.left.itemType == "grid" && p.left.tiles == 2 && p.left.width == 128)
        #expect(p.left.intrinsicsForms == [.appleUUID, .standard])
        #expect(abs((p.horizontalFOVDegrees ?? 0) - 60) < 0.001)
        #expect(p.disparityAdjustment == 200)
        #expect(p.primaryItemID == p.left.itemID)
        #expect(p.left.linkedItems.contains { $0.type == "Exif" })
        if Photos.haveOracle {
            let o = try Photos.oracle(dir + "/grid.heic")
            let images = (o["images"] as? [[String: Any]]) ?? []
            #expect(images.count == 2)
            #expect(images.first?["width"] as? Int == 128)
            #expect(images.first?["pixels_md5"] as? String != nil)
        }
    }
}

@Suite("Spatial photos: bad input")
struct SpatialPhotoBadInputTests {
    func heif(
        groupEntities: [UInt32], sizes: [(UInt32, UInt32)], intrinsicsFX: Int32 = 1 << 27, extraCmex: [UInt8]? = nil
    ) throws -> ISOFile {
        var b = HEIFBuilder(primaryItemID: 1)
        for (i, s) in sizes.enumerated() {
            var props: [(box: Box, essential: Bool)] = [
                (Box(ImageSpatialExtentsProperty(width: s.0, height: s.1), type: "ispe"), false)
            ]
            var w = ByteWriter(); w.writeU32(0x1C00); w.writeI32(intrinsicsFX); w.writeI32(1 << 27); w.writeI32(1 << 27)
            props.append((Box(type: "cmin", fields: .raw(w.take())), false))
            if let c = extraCmex, i == 1 { props.append((Box(type: "cmex", fields: .raw(c)), false)) }
            b.items.append(.init(id: UInt32(i + 1), type: "hvc1", data: [0, 0, 0, 1, 0x26], properties: props))
        }
        b.groups.append((type: "ster", id: 100, entities: groupEntities))
        return try ISOFile.parse(source: MemorySource(try b.build()))
    }

    @Test func groupOfThree() throws {
        var problems: [SpatialDiagnostic] = []
        #expect(
            SpatialPhotoReader.read(
                try heif(groupEntities: [1, 2, 3], sizes: [(8, 8), (8, 8), (8, 8)]), problems: &problems) == nil)
        #expect(problems.first?.message.contains("3 entities") == true)
    }

    @Test func groupNamingMissingItem() throws {
        var problems: [SpatialDiagnostic] = []
        #expect(
            SpatialPhotoReader.read(try heif(groupEntities: [1, 9], sizes: [(8, 8), (8, 8)]), problems: &problems)
                == nil)
        #expect(problems.first?.message.contains("item 9") == true)
    }

    @Test func zeroFocalLengthAndBrokenExtrinsics() throws {
        // cmex claims x, y and z (flags 7) but holds only x: kept raw, reported with the item id.
        let f = try heif(
            groupEntities: [1, 2], sizes: [(8, 8), (8, 8)], intrinsicsFX: 0, extraCmex: [0, 0, 0, 7, 0, 0, 0, 1])
        var problems: [SpatialDiagnostic] = []
        let p = try #require(SpatialPhotoReader.read(f, problems: &problems))
        #expect(p.diagnostics.contains { $0.message.contains("focal length 0") })
        #expect(p.diagnostics.contains { $0.message.contains("item 2") && $0.message.contains("camera property") })
    }

    @Test func eyesOfDifferentSizesCannotBeCombined() throws {
        let f = try heif(groupEntities: [1, 2], sizes: [(8, 8), (16, 8)])
        let dir = try makeTempDir("photo-bad")
        defer { removeTree(dir) }
        try AtomicFile.write(path: dir + "/in.heic", bytes: try f.serialized())
        do {
            _ = try SpatialPhotoEditor.combine(
                path: dir + "/in.heic", leftItem: 1, rightItem: 2, stereo: StereoParameters(baselineMicrometres: 1),
                output: dir + "/out.heic")
            Issue.record("should refuse")
        } catch {
            #expect(error.message.contains("differ in size"))
        }
        #expect(!Shared.exists(dir + "/out.heic"))
    }
}
