import Foundation
import ISOBMFF
import TestSupport
import Testing

/// Issue 38, item 2: MPF by type. An Ultra HDR (Android) or Adobe / Lightroom HDR JPEG is one photo with a gain map,
/// not a stereo MPO; two of them given as eyes make a spatial photo whose eyes each carry their gain map, applied
/// through an ISO 21496-1 `tmap` item with its metadata kept. The JPEGs are written by the test from the published
/// layouts (Tests/TestSupport/UltraHDRFixtures.swift).
@Suite("Ultra HDR gain maps")
struct UltraHDRGainMapTests {
    static let leftValues = UltraHDRFixture.Values(
        gainMapMin: 0, gainMapMax: 2.3, gamma: 1, offsetSDR: 0.015625, offsetHDR: 0.015625,
        capacityMin: 0, capacityMax: 2.3)
    static let rightValues = UltraHDRFixture.Values(
        gainMapMin: -0.5, gainMapMax: 3.25, gamma: 0.8, offsetSDR: 0.01, offsetHDR: 0.02,
        capacityMin: 0.25, capacityMax: 3.5)

    static func write(
        _ variant: UltraHDRFixture.Variant, _ values: UltraHDRFixture.Values, seed: UInt32, to path: String
    ) throws -> UltraHDRFixture.Made {
        let made = try UltraHDRFixture.make(variant, seed: seed, values: values)
        try Data(made.bytes).write(to: URL(fileURLWithPath: path))
        return made
    }

    /// Before: the Android photo (a full-size gain map) became a "spatial photo" whose right eye was the gain map, and
    /// the Lightroom export was refused as a damaged MPO ("the two MPO images differ in size"). Now both are one 2D
    /// photo: refused as not stereo like any 2D photo (exit 2, PairRecognition), `info` lists the gain map with its
    /// metadata, `validate` says it is one photo (SV-PAIR-005).
    @Test(arguments: UltraHDRFixture.Variant.allCases)
    func anUltraHDRJPEGIsOnePhotoWithAGainMap(_ variant: UltraHDRFixture.Variant) throws {
        let dir = try CLI.tempDir("uhdr-one-\(variant)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.write(variant, Self.rightValues, seed: 3, to: dir + "/photo.jpg")
        let conv = try CLI.run(["convert", "photo.jpg", "-o", "x.heic"], cwd: dir)
        #expect(conv.status == 2, "\(conv.out)\(conv.err)")
        #expect(conv.err.contains("no stereo pair found"), "\(conv.err)")
        #expect(!conv.err.contains("differ in size"), "\(conv.err)")
        #expect(!CLI.exists(dir + "/x.heic"))
        let info = try CLI.run(["info", dir + "/photo.jpg"])
        #expect(info.status == 0, "\(info.err)")
        #expect(info.out.contains("one photo, not a stereo pair"), "\(info.out)")
        #expect(!info.out.contains("MPO (multi-picture)"), "\(info.out)")
        #expect(info.out.contains("auxiliary images: 1") && info.out.contains("HDR gain map"), "\(info.out)")
        #expect(
            info.out.contains("max 3.25") && info.out.contains("gamma 0.8") && info.out.contains("headroom 0.25 → 3.5"),
            "\(info.out)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(try CLI.run(["info", "--json", dir + "/photo.jpg"]).out.utf8))
                as? [String: Any])
        let image = json["image"] as? [String: Any] ?? json
        let gm = try #require(image["gain_map"] as? [String: Any], "\(json)")
        #expect(gm["gain_map_max"] as? Double == 3.25 && gm["alternate_headroom"] as? Double == 3.5)
        #expect(
            gm["metadata_source"] as? String
                == (variant == .adobe ? "ISO 21496-1 block" : "hdrgm XMP (Ultra HDR / Adobe)"))
        let validate = try CLI.run(["validate", dir + "/photo.jpg"])
        #expect(validate.out.contains("SV-PAIR-005"), "\(validate.out)")
        #expect(!validate.out.contains("kind: mpo") && !validate.out.contains("SV-PAIR-003"), "\(validate.out)")
    }

    /// Two Ultra HDR JPEGs as eyes: each eye of the spatial photo carries its own gain map, which libheif 1.23 lists as
    /// the gain map of a `tmap` item over that eye (in an `altr` group with it), decodes at PSNR ≥ 45 dB against the
    /// JPEG's gain map (Pillow), with the metadata kept (the payload libheif returns, read by our parser, and `info`).
    @Test(.needs(.oracles(importing: "pillow_heif")), arguments: UltraHDRFixture.Variant.allCases)
    func twoUltraHDRJPEGsMakeAnHDRSpatialPhoto(_ variant: UltraHDRFixture.Variant) throws {
        let dir = try CLI.tempDir("uhdr-pair-\(variant)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Self.write(variant, Self.leftValues, seed: 1, to: dir + "/left.jpg")
        _ = try Self.write(variant, Self.rightValues, seed: 2, to: dir + "/right.jpg")
        let conv = try CLI.run(["convert", "--left", "left.jpg", "--right", "right.jpg", "-o", "out.heic"], cwd: dir)
        try #require(conv.status == 0, "\(conv.out)\(conv.err)")
        #expect(
            conv.out.contains("left eye: HDR gain map") && conv.out.contains("right eye: HDR gain map"), "\(conv.out)")
        #expect(conv.out.contains("ISO 21496-1 tmap"), "\(conv.out)")
        let validate = try CLI.run(["validate", dir + "/out.heic"])
        #expect(validate.out.contains("result: 0 error(s)") && !validate.out.contains("ERROR"), "\(validate.out)")
        #expect(validate.out.contains("will it be spatial? yes"), "\(validate.out)")
        // Our reader: two ISO 21496-1 gain maps, one per eye, with their metadata.
        let info = try CLI.run(["info", dir + "/out.heic"])
        #expect(info.out.components(separatedBy: "ISO 21496-1 gain map (tmap input)").count == 3, "\(info.out)")
        #expect(info.out.contains("max 2.3, gamma 1,") && info.out.contains("max 3.25, gamma 0.8,"), "\(info.out)")
        // libheif.
        let o = try Oracle.object(
            "Tests/Oracles/tmap_oracle.py", [dir + "/out.heic", dir + "/left.jpg", dir + "/right.jpg"])
        #expect(o["error"] == nil, "libheif cannot read the output: \(o["error"] ?? "")")
        let maps = o["tmap"] as? [[String: Any]] ?? []
        #expect(maps.count == 2, "\(o)")
        var eyes = Set<Int>()
        for m in maps {
            let eye = try #require(m["eye"] as? Int, "\(m)")
            eyes.insert(eye)
            #expect((m["groups"] as? [String])?.contains("altr") == true, "\(m)")
            let g = try #require(m["gain_map"] as? [String: Any], "\(m)")
            #expect(g["hidden"] as? Bool == true)
            let expectedSize = variant == .android ? (256, 192) : (64, 48)
            #expect(g["width"] as? Int == expectedSize.0 && g["height"] as? Int == expectedSize.1, "\(g)")
            let psnr = m["psnr"] as? Double ?? 0
            #expect(psnr >= 45, "eye \(eye): gain map decoded by libheif at \(psnr) dB against the JPEG's")
            let hex = m["payload"] as? String ?? ""
            let bytes = stride(from: 0, to: hex.count, by: 2).compactMap { i -> UInt8? in
                let s = hex.index(hex.startIndex, offsetBy: i)
                return UInt8(hex[s..<hex.index(s, offsetBy: 2)], radix: 16)
            }
            let meta = try GainMapMetadata(tmap: bytes)
            let v = eye == 0 ? Self.leftValues : Self.rightValues
            let c = try #require(meta.channels.first)
            for (got, want, name) in [
                (c.gainMapMin.value, v.gainMapMin, "min"), (c.gainMapMax.value, v.gainMapMax, "max"),
                (c.gamma.value, v.gamma, "gamma"),
                (c.baseOffset.value, v.offsetSDR, "base offset"),
                (c.alternateOffset.value, v.offsetHDR, "alternate offset"),
                (meta.baseHeadroom.value, v.capacityMin, "base headroom"),
                (meta.alternateHeadroom.value, v.capacityMax, "alternate headroom"),
            ] {
                #expect(abs(got - want) < 1e-6, "eye \(eye) \(name): \(got), want \(want)")
            }
            #expect(meta.tmapPayload == bytes, "the payload is written byte-exactly as our model serialises it")
        }
        #expect(eyes == [0, 1])
        // Swapping the eyes swaps their gain maps.
        let swapped = try CLI.run(
            ["convert", "--left", "left.jpg", "--right", "right.jpg", "--swap-eyes", "-o", "sw.heic"], cwd: dir)
        try #require(swapped.status == 0, "\(swapped.err)")
        let so = try Oracle.object(
            "Tests/Oracles/tmap_oracle.py", [dir + "/sw.heic", dir + "/right.jpg", dir + "/left.jpg"])
        for m in so["tmap"] as? [[String: Any]] ?? [] { #expect((m["psnr"] as? Double ?? 0) >= 45, "\(m)") }
    }

    /// A real iPhone MPO (corpus: a primary and an Apple HDR gain map of MP type Undefined) is one photo with a gain
    /// map, not a stereo pair; as an eye, its gain map is carried in Apple's form (auxl with Apple's URN and its XMP).
    @Test(.needs(.shared("corpus/mpo/frame_size.mpo")))
    func iPhoneMPOIsOnePhotoWithAnAppleGainMap() throws {
        let src = CLI.fixture("corpus/mpo/frame_size.mpo")
        let info = try CLI.run(["info", src])
        #expect(
            info.out.contains("one photo, not a stereo pair") && info.out.contains("Apple HDR gain map"), "\(info.out)")
        let dir = try CLI.tempDir("uhdr-iphone")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run(["convert", "--left", src, "--right", src, "-o", "j.heic"], cwd: dir)
        try #require(r.status == 0, "\(r.err)")
        #expect(r.out.contains("left eye: Apple HDR gain map") && r.out.contains("Apple's form"), "\(r.out)")
        let out = try CLI.run(["info", dir + "/j.heic"]).out
        #expect(out.components(separatedBy: "urn:com:apple:photo:2020:aux:hdrgainmap").count == 3, "\(out)")
    }
}
