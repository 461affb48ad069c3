import Foundation
import TestSupport
import Testing

/// Issue 32: the round trip of Benchmarks/RESULTS.md "Auxiliary images through every photo job" — each corpus HEIF with
/// auxiliary images made into a spatial photo (`combine FILE FILE`), then `edit`, `align` and `split` → `combine`: each
/// eye ends with as many auxiliary images and thumbnails as the source's primary image had.
struct AuxiliaryRoundTripTests {
    /// (file, auxiliary images, thumbnails of its primary image, whether `align` runs in this test: the large photos'
    /// alignment is the benchmark's and AuxiliaryImageTests'). stereo_1200x800 is already a spatial photo.
    static let cases: [(rel: String, aux: Int, thumbnails: Int, align: Bool)] = [
        ("corpus/heif-real-world/iphone_13_pro_max.HEIC", 1, 1, false),
        ("corpus/heif-real-world/aux_YCbCr.heic", 1, 1, false),
        ("corpus/heif-real-world/RGBA_10__29x100.heif", 1, 0, true),
        ("corpus/heif-conformance/C006.heic", 1, 0, true),
        ("corpus/heif-examples/libheif/with-alpha-512x512.heic", 1, 0, true),
        ("corpus/heif-examples/libheif/colors-with-alpha-thumbnail.heic", 1, 1, true),
        ("corpus/spatial-photo/stereo_1200x800.heic", 0, 1, true),
    ]

    /// (auxiliary images, thumbnails) of each eye of a spatial photo, from `info --json`.
    static func counts(_ path: String) throws -> [(aux: Int, thumbnails: Int)] {
        let r = try CLI.run(["info", "--json", path])
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
        let h = o["heif_images"] as? [String: Any] ?? [:]
        let sp = try #require(o["spatial_photo"] as? [String: Any], "\(path) is not a spatial photo")
        let eyes = [
            (sp["left"] as? [String: Any])?["item_id"] as? Int, (sp["right"] as? [String: Any])?["item_id"] as? Int,
        ].compactMap { $0 }
        func n(_ key: String, _ field: String, _ eye: Int) -> Int {
            (h[key] as? [[String: Any]] ?? []).filter { ($0[field] as? [Int] ?? []).contains(eye) }.count
        }
        return eyes.map { (n("auxiliary", "master_item_ids", $0), n("thumbnails", "target_item_ids", $0)) }
    }

    @Test(
        .needs(
            .shared(
                "corpus/heif-real-world/iphone_13_pro_max.HEIC", "corpus/heif-real-world/aux_YCbCr.heic",
                "corpus/heif-real-world/RGBA_10__29x100.heif", "corpus/heif-conformance/C006.heic",
                "corpus/heif-examples/libheif/with-alpha-512x512.heic",
                "corpus/heif-examples/libheif/colors-with-alpha-thumbnail.heic",
                "corpus/spatial-photo/stereo_1200x800.heic")),
        arguments: cases.map(\.rel))
    func everyJobKeepsEachEyesAuxiliaryImages(_ rel: String) throws {
        let c = try #require(Self.cases.first { $0.rel == rel })
        let src = CLI.fixture(rel)
        let dir = try CLI.tempDir("aux-roundtrip")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let expected = [(c.aux, c.thumbnails), (c.aux, c.thumbnails)]
        func check(_ file: String, _ job: String) throws {
            let got = try Self.counts(dir + "/" + file)
            #expect(
                got.map(\.aux) == expected.map(\.0) && got.map(\.thumbnails) == expected.map(\.1),
                "\(rel) after \(job): (aux, thumbnails) per eye \(got), expected \(expected)")
        }
        if rel.hasSuffix("stereo_1200x800.heic") {
            try #require(try CLI.run(["edit", src, "-o", dir + "/p.heic", "--disparity", "0"]).status == 0)
        } else {
            let combine = try CLI.run(["combine", src, src, "-o", "p.heic"], cwd: dir)
            try #require(combine.status == 0, "\(combine.err)")
        }
        try check("p.heic", "combine")
        let edit = try CLI.run(["edit", "p.heic", "-o", "e.heic", "--disparity", "1"], cwd: dir)
        try #require(edit.status == 0, "\(edit.err)")
        try check("e.heic", "edit")
        let split = try CLI.run(["split", "p.heic", "--left", "l.heic", "--right", "r.heic"], cwd: dir)
        try #require(split.status == 0, "\(split.err)")
        let back = try CLI.run(["combine", "l.heic", "r.heic", "-o", "s.heic"], cwd: dir)
        try #require(back.status == 0, "\(back.err)")
        try check("s.heic", "split → combine")
        if c.align {
            let align = try CLI.run(["align", "p.heic", "-o", "a.heic", "--quality", "30"], cwd: dir)
            try #require(align.status == 0, "\(align.err)")
            try check("a.heic", "align")
        }
    }
}
