import BinaryIO
import Codecs
import Foundation
import HEVC
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialConvert
import SpatialMedia
import TestSupport
import Testing

/// Field-by-field comparison of a converted spatial photo with Apple Vision Pro's
/// (`corpus/spatial-photo/vision-pro.HEIC`), the split → combine round trip (coded tiles copied, pixels unchanged) and
/// libheif 1.23 reading the photo.
enum PhotoFields {
    typealias Row = (field: String, value: String)

    static func extract(_ path: String) throws -> [Row] {
        var rows: [Row] = []
        func add(_ k: String, _ v: Any) { rows.append((k, "\(v)")) }
        let f = try ISOFile.open(path: path)
        let h = try #require(f.heif)
        let ftyp = try #require(f.boxes.first { $0.type == "ftyp" }?.payload(FileTypeBox.self))
        add("ftyp major / compatible", "\(ftyp.majorBrand) \(ftyp.compatibleBrands.map(\.description))")
        add("hdlr", h.handler?.description ?? "absent")
        let g = try #require(h.groups.first { $0.type == "ster" })
        add("ster entities", g.entityIDs.count)
        add("primary = first ster entity (left)", h.primaryItemID == g.entityIDs[0])
        for (eye, id) in [("left", g.entityIDs[0]), ("right", g.entityIDs[1])] {
            let item = try #require(h.items.first { $0.id == id })
            add("\(eye) item type", item.type)
            let tiles = h.references(from: id, type: "dimg")
            add("\(eye) tile count > 1", tiles.count > 1)
            let tileProps = tiles.first.map { h.properties(of: $0) } ?? []
            add(
                "\(eye) tile properties (essential)",
                tileProps.map { "\($0.box.type)\($0.essential ? "!" : "")" }.joined(separator: ","))
            add(
                "\(eye) tile size",
                tileProps.compactMap { $0.box.payload(ImageSpatialExtentsProperty.self) }.map {
                    "\($0.width)x\($0.height)"
                })
            if let rec = tileProps.compactMap({ $0.box.payload(HEVCConfigurationBox.self)?.record }).first {
                let c = try HEVCDecoderConfigurationRecord(parsing: rec)
                add("\(eye) tile hvcC profile / compat", "\(c.profileIdc) \(String(c.compatibilityFlags, radix: 16))")
                add("\(eye) tile hvcC constraint flags", String(c.constraintIndicatorFlags, radix: 16))
                add("\(eye) tile hvcC chroma / bit depth", "\(c.chromaFormatIdc) \(c.bitDepthLumaMinus8 + 8)")
                add("\(eye) tile hvcC arrays", c.arrays.map { "\($0.nalUnitType.rawValue)" })
                add(
                    "\(eye) tile parameter sets end right",
                    c.nalUnits().allSatisfy { [.ok, .notApplicable].contains(RBSPEndCheck.check($0)) })
            }
            let props = h.properties(of: id)
            func name(_ b: Box) -> String {
                if let u = b.header.userType {
                    if u == AppleUUID.cameraIntrinsics { return "cmin(uuid)" }
                    if u == AppleUUID.cameraExtrinsics { return "cmex(uuid)" }
                    if u == AppleUUID.disparityAdjustment { return "disparity(uuid)" }
                }
                return b.type.description
            }
            add(
                "\(eye) image properties (essential)",
                props.map { name($0.box) + ($0.essential ? "!" : "") }.sorted().joined(separator: ","))
            add(
                "\(eye) colr type",
                props.compactMap { $0.box.payload(ColourInformationBox.self)?.colourType.description }.first ?? "absent"
            )
            add("\(eye) pixi", props.first { $0.box.type == "pixi" } != nil ? "present" : "absent")
            let linked = h.allReferences.filter { $0.type == "cdsc" && $0.to == [id] }.map(\.from)
            add(
                "\(eye) described by (cdsc)",
                linked.compactMap { l in h.items.first { $0.id == l } }.map {
                    $0.type == "mime" ? "XMP" : $0.type.description
                }.sorted())
            if let xmpID = linked.first(where: { l in h.items.first { $0.id == l }?.type == "mime" }) {
                let text = String(decoding: try h.data(of: xmpID, file: f), as: UTF8.self)
                add(
                    "\(eye) XMP SpatialMedia version",
                    text.contains("<SpatialMedia:version>1.0</SpatialMedia:version>")
                        && text.contains("http://ns.apple.com/SpatialMedia/1.0/"))
            }
        }
        var problems: [SpatialDiagnostic] = []
        let p = try #require(SpatialPhotoReader.read(f, problems: &problems))
        add(
            "left cmex flags / right cmex flags",
            "\(p.left.extrinsics.map { String($0.fullBox.flags) } ?? "-") / \(p.right.extrinsics.map { String($0.fullBox.flags) } ?? "-")"
        )
        add("cmin denominator shift", p.left.intrinsics.map { "\($0.denominatorShift)" } ?? "-")
        add("intrinsics form", p.left.intrinsicsForms.map { "\($0)" })
        add("disparity on both eyes", p.left.disparityAdjustment != nil && p.right.disparityAdjustment != nil)
        add("meta has dinf", f.box("meta")?.child("dinf") != nil)
        return rows
    }
}

@Suite struct AppleParityPhotoTests {
    static let explained: [String: String] = [
        "left colr type":
            "content: the Vision Pro capture is Display P3 (an ICC 'prof'); our conversion codes sRGB-like BT.601 full range and says so with nclx",
        "right colr type": "content: as the left",
        "cmin denominator shift":
            "content: Apple's capture uses 2^30; visionOS conversions write 2^28 (Specs/formats.md §4.3), as we do",
        "meta has dinf": "optional in a HEIF meta box (items are in this file); libheif and our reader accept both",
        "left image properties (essential)":
            "colour property: see colr type; Apple lists its shared disparity property on both eyes, we do the same",
        "right image properties (essential)": "as the left",
    ]

    static var visionPro: String? { sharedFile("corpus/spatial-photo/vision-pro.HEIC") }

    @Test(.needs(.shared("corpus/spatial-photo/vision-pro.HEIC")))
    func convertedPhotoMatchesVisionProFieldByField() throws {
        let vp = TestPaths.sharedPath("corpus/spatial-photo/vision-pro.HEIC")
        // A side-by-side JPEG of 2 × 600 × 600 (a 2 × 2 grid of 512 tiles per eye) carrying Apple's EXIF.
        let exif = try #require(ImageFiles.heifExif(try ISOFile.open(path: vp), item: 26))
        let sbs = try ImageOps.join(scene(width: 600, height: 600), scene(width: 600, height: 600, shift: 8))
        let src = tempPath("sbs.jpg")
        try AtomicFile.write(path: src, bytes: try JPEG.encode(sbs, quality: 90, exif: exif))
        var o = PhotoConversionOptions(); o.threads = 2; o.layout = .sbs
        let out = tempPath("parity.heic")
        _ = try PhotoConverter.convert(StereoImages.load(src, packing: o.packing), options: o, to: out)
        let apple = try PhotoFields.extract(vp), ours = try PhotoFields.extract(out)
        #expect(apple.map(\.field) == ours.map(\.field))
        var table = ["| field | Apple (vision-pro.HEIC) | ours (converted) | |", "|---|---|---|---|"]
        for (a, b) in zip(apple, ours) {
            let why = Self.explained[a.field]
            table.append(
                "| \(a.field) | \(a.value) | \(b.value) | \(a.value == b.value ? "equal" : (why ?? "UNEXPLAINED")) |")
            if a.value != b.value && (why == nil || why == "") {
                Issue.record("\(a.field): Apple \(a.value), ours \(b.value) — difference not explained")
            }
        }
        print(table.joined(separator: "\n"))
    }

    /// `split` to .heic copies each eye's coded tiles, colour and metadata; `combine` of the two gives back the
    /// original coded pictures, so the pixels are identical. Each eye keeps its own EXIF.
    @Test(.needs(.shared("corpus/spatial-photo/vision-pro.HEIC")))
    func splitToHEICCopiesTilesAndCombineRestoresPixels() throws {
        let vp = try #require(Self.visionPro)
        let (l, r) = (tempPath("l.heic"), tempPath("r.heic"))
        try PhotoSplitter.split(vp, left: l, right: r, sbs: nil)
        let orig = try ISOFile.open(path: vp), lf = try ISOFile.open(path: l)
        let oh = try #require(orig.heif), lh = try #require(lf.heif)
        // Tiles copied byte for byte; the Display P3 ICC colr goes along.
        for (a, b) in zip(oh.references(from: 26, type: "dimg"), lh.references(from: 26, type: "dimg")) {
            #expect(try oh.data(of: a, file: orig) == lh.data(of: b, file: lf))
        }
        #expect(lh.properties(of: 26).contains { $0.box.payload(ColourInformationBox.self)?.colourType == "prof" })
        #expect(ImageFiles.heifExif(lf, item: 26) == ImageFiles.heifExif(orig, item: 26))
        let rf = try ISOFile.open(path: r)
        #expect(ImageFiles.heifExif(rf, item: 52) == ImageFiles.heifExif(orig, item: 52))
        let back = tempPath("back.heic")
        _ = try SpatialPhotoEditor.combine(
            leftPath: l, rightPath: r,
            stereo: StereoParameters(
                baselineMicrometres: 63_774, horizontalFieldOfViewMillidegrees: 80_000, disparityAdjustment: 293),
            output: back)
        let e0 = try StereoImages.decodeSpatialPhoto(vp), e1 = try StereoImages.decodeSpatialPhoto(back)
        #expect(
            compare(e0.left, e1.left) == (0, 0) && compare(e0.right, e1.right) == (0, 0),
            "split → combine changed the pixels")
    }

    /// `split` to PNG/JPEG tags each eye with the photo's ICC profile (Vision Pro: Display P3) and gives each JPEG
    /// eye its own EXIF; the files stay valid (chunk CRCs, decodable).
    @Test(.needs(.shared("corpus/spatial-photo/vision-pro.HEIC")))
    func splitToPNGAndJPEGKeepsTheColourProfile() throws {
        let vp = try #require(Self.visionPro)
        let orig = try ISOFile.open(path: vp)
        let icc = try #require(ImageFiles.heifICC(orig, item: 26))
        let (png, jpg) = (tempPath("l.png"), tempPath("r.jpg"))
        try PhotoSplitter.split(vp, left: png, right: jpg, sbs: nil)
        let p = try FileBytes.read(png)
        let s = try PNGStructure(p)
        let iccp = try #require(s.chunks.first { $0.type == "iCCP" })
        #expect(iccp.crcValid)
        #expect(s.chunks.firstIndex { $0.type == "iCCP" } == 1, "iCCP right after IHDR")
        #expect(!s.chunks.contains { $0.type == "sRGB" })
        #expect(try PNG.decode(p).width == 2560)
        let j = try FileBytes.read(jpg)
        let marker = Array("ICC_PROFILE".utf8) + [0, 1, 1]
        let at = try #require((0..<(j.count - marker.count)).first { Array(j[$0..<($0 + marker.count)]) == marker })
        #expect(Array(j[(at + marker.count)..<(at + marker.count + icc.count)]) == icc)
        let xmpMarker = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
        #expect(
            (0..<(j.count - xmpMarker.count)).contains { Array(j[$0..<($0 + xmpMarker.count)]) == xmpMarker },
            "XMP APP1 kept")
        let decoded = try JPEG.decode(j)
        #expect(decoded.exif == ImageFiles.heifExif(orig, item: 52), "the right eye's own EXIF")
    }

    @Test(.needs(.oracles))
    func libheifReadsTheProfile3Photo() throws {
        let src = tempPath("sbs2.png")
        try AtomicFile.write(
            path: src,
            bytes: try PNG.encode(
                try ImageOps.join(scene(width: 600, height: 400), scene(width: 600, height: 400, shift: 6))))
        var o = PhotoConversionOptions(); o.threads = 2; o.layout = .sbs
        let out = tempPath("p3.heic")
        _ = try PhotoConverter.convert(StereoImages.load(src, packing: o.packing), options: o, to: out)
        let rows = Dictionary(
            try PhotoFields.extract(out).map { ($0.field, $0.value) }, uniquingKeysWith: { a, _ in a })
        #expect(rows["left tile hvcC profile / compat"] == "3 70000000")
        let (status, json) = try run(try #require(oraclePython), [packageRoot + "/Tests/Oracles/heif_oracle.py", out])
        #expect(status == 0, "\(json)")
        #expect(json.contains("600") && json.contains("400"), "\(json)")
    }
}
