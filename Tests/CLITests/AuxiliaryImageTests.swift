import Foundation
import TestSupport
import Testing

/// Issue 32: auxiliary images (HDR gain maps, depth, alpha) and thumbnails are seen by `info`, kept by every photo job
/// (byte-exact, or warped with the picture after `--align`), and read back by libheif 1.23 (pillow-heif) as we list
/// them.
struct AuxiliaryImageTests {
    static let iphone = "corpus/heif-real-world/iphone_13_pro_max.HEIC"
    static let gainURN = "urn:com:apple:photo:2020:aux:hdrgainmap"

    static func json(_ out: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(out.utf8)) as? [String: Any])
    }

    /// libheif's images, each with its auxiliary images (Tests/Oracles/aux_oracle.py).
    static func libheif(_ path: String, pixels: Bool = false) throws -> [[String: Any]] {
        let o = try Oracle.object("Tests/Oracles/aux_oracle.py", [path] + (pixels ? ["--pixels"] : []))
        #expect(o["error"] == nil, "libheif cannot read \(path): \(o["error"] ?? "")")
        return o["images"] as? [[String: Any]] ?? []
    }

    /// Our `info --json` auxiliary images as (item, URN, width, height as shown, masters).
    static func ours(_ path: String) throws -> [(id: Int, urn: String, width: Int, height: Int, masters: [Int])] {
        let r = try CLI.run(["info", "--json", path])
        let aux = (try json(r.out)["heif_images"] as? [String: Any])?["auxiliary"] as? [[String: Any]] ?? []
        return aux.map { a in
            (
                a["item_id"] as? Int ?? 0, a["urn"] as? String ?? "", a["displayed_width"] as? Int ?? 0,
                a["displayed_height"] as? Int ?? 0,
                a["master_item_ids"] as? [Int] ?? []
            )
        }
    }

    /// Every auxiliary image libheif lists (alpha and depth included) is in `info --json`, with the same URN, the same
    /// size as shown and the same master image; and we list none that libheif does not.
    @Test(
        .needs(
            .shared(
                iphone, "corpus/heif-real-world/aux_YCbCr.heic", "corpus/spatial-photo/vision-pro.HEIC",
                "corpus/heif-examples/libheif/colors-with-alpha-thumbnail.heic", "corpus/heif-conformance/C006.heic"),
            .oracles(importing: "pillow_heif")),
        arguments: [
            iphone, "corpus/heif-real-world/aux_YCbCr.heic", "corpus/spatial-photo/vision-pro.HEIC",
            "corpus/heif-examples/libheif/colors-with-alpha-thumbnail.heic", "corpus/heif-conformance/C006.heic",
        ])
    func infoListsWhatLibheifLists(_ rel: String) throws {
        let path = CLI.fixture(rel)
        let ours = try Self.ours(path)
        var theirs: [(id: Int, urn: String, width: Int, height: Int, master: Int)] = []
        for image in try Self.libheif(path) {
            for a in image["auxiliary"] as? [[String: Any]] ?? [] {
                theirs.append(
                    (
                        a["id"] as? Int ?? -1, a["type"] as? String ?? "", a["width"] as? Int ?? -1,
                        a["height"] as? Int ?? -1, image["id"] as? Int ?? -1
                    ))
            }
        }
        for t in theirs {
            let match = ours.first { $0.id == t.id }
            #expect(match != nil, "\(rel): libheif lists auxiliary item \(t.id) (\(t.urn)); info does not")
            #expect(
                match?.urn == t.urn && match?.width == t.width && match?.height == t.height
                    && match?.masters.contains(t.master) == true,
                "\(rel): item \(t.id): libheif \(t.urn) \(t.width)x\(t.height) of \(t.master); ours \(String(describing: match))"
            )
        }
        // Auxiliary images of images libheif does not list at the top level (e.g. a thumbnail's alpha) are ours alone.
        let masters = Set(theirs.map(\.master))
        let extra = ours.filter { o in o.masters.contains { masters.contains($0) } && !theirs.contains { $0.id == o.id }
        }
        #expect(extra.isEmpty, "\(rel): info lists auxiliary images libheif does not: \(extra)")
        if rel.hasSuffix("iphone_13_pro_max.HEIC") { #expect(theirs.count == 1 && ours.count == 1) }
    }

    /// Two gain-mapped iPhone HEICs → a spatial photo: libheif finds a gain map on each eye, pixel-identical to the
    /// source's (carried byte-exact); validate does not miss a gain map (SV-PHOTO-024); split --aux gives it back and
    /// convert --left-gain-map takes it again, byte-exact.
    @Test(.needs(.shared(iphone), .oracles(importing: "pillow_heif")))
    func gainMapsOfTwoHEICsGoToTheirEyes() throws {
        let src = CLI.fixture(Self.iphone)
        let dir = try CLI.tempDir("aux-gain")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let conv = try CLI.run(
            ["convert", "--left", src, "--right", src, "-o", "pair.heic", "--quality", "20"], cwd: dir)
        try #require(conv.status == 0, "\(conv.err.suffix(600))")
        #expect(
            conv.out.contains("left eye: Apple HDR gain map 2016x1512 (item 51) kept, bytes unchanged"), "\(conv.out)")
        #expect(
            conv.out.contains("right eye: Apple HDR gain map 2016x1512 (item 51) kept, bytes unchanged"), "\(conv.out)")
        let source = try Self.libheif(src, pixels: true)
        let sourceMD5 = try #require((source.first?["auxiliary"] as? [[String: Any]])?.first?["md5"] as? String)
        let eyes = try Self.libheif(dir + "/pair.heic", pixels: true)
        #expect(eyes.count == 2)
        for eye in eyes {
            let aux = eye["auxiliary"] as? [[String: Any]] ?? []
            #expect(aux.count == 1 && aux.first?["type"] as? String == Self.gainURN, "\(eye)")
            #expect(
                aux.first?["md5"] as? String == sourceMD5,
                "eye \(eye["id"] ?? "?"): gain map pixels differ from the source's")
        }
        let v = try CLI.run(["validate", "--no-pixels", dir + "/pair.heic"])
        #expect(
            !v.out.contains("SV-PHOTO-024") && !v.out.contains("SV-PHOTO-025") && !v.out.contains("SV-PHOTO-026"),
            "\(v.out)")
        // split --aux, then the gain maps back through convert --left-gain-map / --right-gain-map.
        let split = try CLI.run(
            ["split", "pair.heic", "--left", "l.png", "--right", "r.png", "--aux", "aux"], cwd: dir)
        try #require(split.status == 0, "\(split.err)")
        #expect(split.out.contains("not in l.png: PNG/JPEG have no place for it"), "\(split.out)")
        for f in ["left-gain-map.heic", "left-gain-map.png", "right-gain-map.heic", "right-gain-map.png"] {
            #expect(CLI.exists(dir + "/aux/" + f), "\(f)")
        }
        let again = try CLI.run(
            [
                "convert", "--left", "l.png", "--right", "r.png", "--left-gain-map", "aux/left-gain-map.heic",
                "--right-gain-map", "aux/right-gain-map.heic", "-o", "again.heic", "--quality", "20",
            ], cwd: dir)
        try #require(again.status == 0, "\(again.err.suffix(600))")
        for eye in try Self.libheif(dir + "/again.heic", pixels: true) {
            let aux = eye["auxiliary"] as? [[String: Any]] ?? []
            #expect(aux.count == 1 && aux.first?["md5"] as? String == sourceMD5, "\(eye)")
        }
    }

    /// A 10-bit HEIF pair stays 10-bit (HEVC Main 10) unless --bit-depth 8 is asked for; its alpha planes go along.
    @Test(.needs(.shared("corpus/heif-real-world/RGBA_10__29x100.heif")))
    func tenBitSourcesStayTenBit() throws {
        let src = CLI.fixture("corpus/heif-real-world/RGBA_10__29x100.heif")
        let dir = try CLI.tempDir("aux-10bit")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for (extra, depth) in [([String](), 10), (["--bit-depth", "8"], 8)] {
            let r = try CLI.run(["convert", "--left", src, "--right", src, "-o", "p\(depth).heic"] + extra, cwd: dir)
            try #require(r.status == 0, "\(r.err)")
            #expect(
                r.out.contains(depth == 10 ? "10-bit source kept at 10 bits" : "10-bit source converted to 8 bits"),
                "\(r.out)")
            #expect(r.out.contains("left eye: alpha plane 29x100 (item 4) kept, bytes unchanged"), "\(r.out)")
            let dump = try CLI.run(["dump", dir + "/p\(depth).heic"]).out
            #expect(dump.contains("bits=[\(depth), \(depth), \(depth)]"), "\(dump)")
        }
    }

    /// A JPEG eye with a second MPF picture (an iPhone HDR gain map) is converted, and its gain map is carried in
    /// Apple's form (issue 38: it used to be named and dropped).
    @Test(.needs(.shared("corpus/mpo/frame_size.mpo")))
    func jpegGainMapsAreNamedNotDropped() throws {
        let src = CLI.fixture("corpus/mpo/frame_size.mpo")
        let dir = try CLI.tempDir("aux-jpeg")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run(["convert", "--left", src, "--right", src, "-o", "j.heic"], cwd: dir)
        try #require(r.status == 0, "\(r.err)")
        #expect(r.out.contains("left eye: Apple HDR gain map 349x434") && r.out.contains("carried"), "\(r.out)")
    }

    /// A misaligned pair (the right eye turned 1° and moved down 1.5 %, its gain map the same way at its own
    /// resolution): after `convert --align` libheif finds a gain map on each eye, of the eye's shape, and each
    /// correlates with its warped picture as the source's does with its own (Pearson r of the map with the picture's
    /// luma).
    @Test(.needs(.shared(iphone), .oracles(importing: "pillow_heif")))
    func alignWarpsEachEyesGainMapWithIt() throws {
        let src = CLI.fixture(Self.iphone)
        let dir = try CLI.tempDir("aux-align")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = try Oracle.object(
            "Tests/Oracles/aux_shifted_eye.py", [src, dir + "/right.png", dir + "/right-gain.png", "1.0", "1.5"])
        let conv = try CLI.run(
            [
                "convert", "--left", src, "--right", "right.png", "--right-gain-map", "right-gain.png", "--align",
                "-o", "aligned.heic", "--quality", "30",
            ], cwd: dir)
        try #require(conv.status == 0, "\(conv.err.suffix(600))")
        #expect(
            conv.out.contains("left eye: Apple HDR gain map 2016x1512 (item 51) warped and cropped with the picture"),
            "\(conv.out)")
        #expect(conv.out.contains("right eye: Apple HDR gain map") && conv.out.contains("re-encoded"), "\(conv.out)")
        // Grey maps stay grey (4:0:0, one-channel pixi), as Apple codes them.
        #expect(try CLI.run(["dump", dir + "/aligned.heic"]).out.contains("bits=[8]"))
        let sourceR = try #require(
            (try Self.libheif(src, pixels: true).first?["auxiliary"] as? [[String: Any]])?.first?["correlation"]
                as? Double)
        let eyes = try Self.libheif(dir + "/aligned.heic", pixels: true)
        #expect(eyes.count == 2)
        for eye in eyes {
            let aux = try #require(
                (eye["auxiliary"] as? [[String: Any]])?.first, "eye \(eye["id"] ?? "?") has no gain map")
            #expect(aux["type"] as? String == Self.gainURN)
            let w = eye["width"] as? Int ?? 0, h = eye["height"] as? Int ?? 0, aw = aux["width"] as? Int ?? 0,
                ah = aux["height"] as? Int ?? 0
            #expect(
                abs(Double(aw) / Double(max(ah, 1)) - Double(w) / Double(max(h, 1))) < 0.01,
                "gain map \(aw)x\(ah) for an eye of \(w)x\(h)")
            let r = aux["correlation"] as? Double ?? 0
            #expect(
                r > sourceR - 0.05,
                "eye \(eye["id"] ?? "?"): gain map correlates \(r) with the warped picture; the source's \(sourceR)")
        }
    }
}
