import BinaryIO
import Codecs
import Foundation
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialConvert
import SpatialMedia
import TestSupport
import Testing

@Suite struct ConversionTests {
    /// SBS PNG → spatial photo → split → convert → split: second-generation PSNR ≥ 40 dB.
    @Test func sbsRoundTripPSNR() throws {
        let l = scene(width: 160, height: 120), r = scene(width: 160, height: 120, shift: 6)
        let sbs = try ImageOps.join(l, r)
        let src = tempPath("sbs.png"); try AtomicFile.write(path: src, bytes: PNG.encode(sbs))
        var o = PhotoConversionOptions(); o.threads = 2; o.layout = .sbs
        let first = tempPath("a.heic")
        let rep = try PhotoConverter.convert(StereoImages.load(src, packing: o.packing), options: o, to: first)
        #expect(
            rep.width == 160 && rep.baselineSource == "default; not measured"
                && rep.hfovSource == "default; not measured")
        let e1 = try StereoImages.decodeSpatialPhoto(first)
        let p1 = try ImageOps.psnr(l, ColourConversion.toRGB(e1.left))
        let (l1, r1) = (tempPath("l1.png"), tempPath("r1.png"))
        try PhotoSplitter.split(first, left: l1, right: r1, sbs: nil)
        let second = tempPath("b.heic")
        _ = try PhotoConverter.convert(StereoImages.load(left: l1, right: r1, limits: o.limits), options: o, to: second)
        try PhotoSplitter.split(second, left: tempPath("l2.png"), right: tempPath("r2.png"), sbs: nil)
        let a = try PNG.decode(FileBytes.read(l1)), b = try PNG.decode(FileBytes.read(tempPath("l2.png")))
        let p2 = try ImageOps.psnr(a, b)
        print("round trip: source→eye PSNR \(p1) dB; split→convert→split PSNR \(p2) dB")
        #expect(p1 >= 40 && p2 >= 40)
        // Our reader sees the stereo group and the values we chose.
        var problems: [SpatialDiagnostic] = []
        let photo = try #require(SpatialPhotoReader.read(ISOFile.open(path: first), problems: &problems))
        #expect(abs((photo.baselineMicrometres ?? 0) - 64000) < 1)
        #expect(abs((photo.horizontalFOVDegrees ?? 0) - 60) < 0.01)
        #expect(photo.disparityAdjustment == 0)
    }

    @Test func optionsAndBadInput() throws {
        let img = scene(width: 101, height: 40)  // odd width
        var o = PhotoConversionOptions()
        o.stereo = try StereoParameters(
            baselineMillimetres: 70, horizontalFieldOfViewDegrees: 75, disparityPercent: 1.5);
        o.swapEyes = true; o.threads = 2
        o.layout = .sbs
        let pair = try StereoImages.pair(
            from: LoadedImage(kind: .png, image: img, exif: nil, exifInfo: ExifInfo()), name: "x", packing: o.packing)
        #expect(pair.left.width == 50 && pair.notes.contains { $0.contains("odd") })
        let (bytes, rep) = try PhotoConverter.encode(pair, options: o)
        #expect(rep.baselineSource == "--baseline" && rep.notes.contains { $0.contains("swapped") })
        var problems: [SpatialDiagnostic] = []
        let photo = try #require(
            SpatialPhotoReader.read(ISOFile.parse(source: MemorySource(bytes)), problems: &problems))
        #expect(photo.disparityAdjustment == 150 && abs((photo.baselineMicrometres ?? 0) - 70000) < 1)
        // 1×1 image cannot hold two eyes.
        let tiny = LoadedImage(kind: .png, image: scene(width: 1, height: 1), exif: nil, exifInfo: ExifInfo())
        #expect(throws: ParseError.self) { try StereoImages.pair(from: tiny, name: "t", packing: o.packing) }
        // MPO with one image.
        let one = LoadedImage(kind: .mpo, image: scene(width: 8, height: 8), exif: nil, exifInfo: ExifInfo())
        #expect { try StereoImages.pair(from: one, name: "m", packing: o.packing) } throws: {
            ($0 as? ParseError)?.message.contains("only one") == true
        }
        // Corrupt files name the file.
        let bad = tempPath("bad.jpg"); try AtomicFile.write(path: bad, bytes: [0xFF, 0xD8, 0xFF, 0xDB, 0, 4, 1])
        #expect { try StereoImages.load(bad, packing: o.packing) } throws: { ($0 as? ParseError)?.path == bad }
        let badPNG = tempPath("bad.png");
        try AtomicFile.write(path: badPNG, bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        #expect(throws: ParseError.self) { try ImageFiles.load(badPNG) }
        // 16-bit PNG: 10 bits by default (issue 32: deep sources stay as deep as the output allows), 8 when asked; said
        // so.
        let deep = try PNG.decode(PNG.encode(ColourConversion.changeDepth(scene(width: 32, height: 16), to: 16)))
        let dp = try StereoImages.pair(
            from: LoadedImage(kind: .png, image: deep, exif: nil, exifInfo: ExifInfo()), name: "d", packing: o.packing)
        #expect(
            try PhotoConverter.encode(dp, options: o).report.notes.contains {
                $0.contains("16-bit source converted to 10 bits")
            })
        var eight = o
        eight.bitDepth = 8
        #expect(
            try PhotoConverter.encode(dp, options: eight).report.notes.contains {
                $0.contains("16-bit source converted to 8 bits")
            })
        // Huge images stop at the limit.
        #expect { try Image.blank(width: 50_000, height: 8, format: .rgb) } throws: {
            ($0 as? ParseError)?.code == .limitExceeded
        }
        #expect(throws: ParseError.self) { try StereoImages.decodeSpatialPhoto(bad) }
    }

    /// The corpus SBS JPEGs and MPO files convert to spatial photos that libheif 1.23 reads as `ster` pairs.
    @Test(
        .needs(
            .shared(
                "corpus/sbs/Panasonic-DMC-GX8.jpg", "corpus/sbs/capoda.left-right.jpg", "corpus/mpo/frozenpond.mpo",
                "corpus/mpo/sugarshack.mpo")))
    func corpusConversions() throws {
        let inputs = [
            "corpus/sbs/Panasonic-DMC-GX8.jpg", "corpus/sbs/capoda.left-right.jpg", "corpus/mpo/frozenpond.mpo",
            "corpus/mpo/sugarshack.mpo",
        ].compactMap(sharedFile)
        var o = PhotoConversionOptions(); o.threads = 2
        for input in inputs {
            let out = tempPath((input as NSString).lastPathComponent + ".heic")
            let pair: StereoPair
            do { pair = try StereoImages.load(input, packing: o.packing) } catch {
                print("\(input): \(error)"); continue
            }
            // Keep the test fast: quarter-size eyes.
            var small = pair
            small.left = try ImageOps.resize(
                pair.left, width: max(2, pair.left.width / 4), height: max(2, pair.left.height / 4))
            small.right = try ImageOps.resize(
                pair.right, width: max(2, pair.right.width / 4), height: max(2, pair.right.height / 4))
            let rep = try PhotoConverter.convert(small, options: o, to: out)
            print("\(input): " + rep.lines.joined(separator: "; "))
            var problems: [SpatialDiagnostic] = []
            let photo = try #require(SpatialPhotoReader.read(ISOFile.open(path: out), problems: &problems))
            #expect(abs((photo.baselineMicrometres ?? 0) - rep.baselineMM * 1000) < 1)
            if let py = oraclePython {
                let (_, groups) = try run(py, [packageRoot + "/Benchmarks/photo_oracle.py", "groups", out])
                #expect(groups.contains("'ster'"), "libheif 1.23 does not list a ster group for \(out)")
            }
        }
    }
}
