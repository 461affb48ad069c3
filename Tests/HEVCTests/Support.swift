import BinaryIO
import Foundation
import TestSupport

@testable import HEVC

/// The shared test media (Tests/TestSupport: `../shared`, or `SPATIAL_MEDIA_SHARED`). Nothing is copied.
enum Shared {
    static let root = URL(fileURLWithPath: TestPaths.sharedRoot)

    static var available: Bool { TestPaths.sharedDir != nil }

    static func files(_ dir: String, ext: [String]) -> [URL] {
        let d = root.appendingPathComponent(dir)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: d.path)) ?? []
        return names.sorted().filter { n in ext.contains { n.hasSuffix("." + $0) } }.map {
            d.appendingPathComponent($0)
        }
    }
    static func bytes(_ url: URL) -> [UInt8]? { (try? Data(contentsOf: url)).map { [UInt8]($0) } }

    /// Raw Annex B streams: the x265 fixtures and the corpus `.265` files.
    static var annexBFiles: [URL] { files("fixtures", ext: ["hevc"]) + files("corpus/mvhevc-bitstreams", ext: ["265"]) }
    /// MP4/QuickTime files with hvcC/lhvC.
    static var movieFiles: [URL] { files("fixtures", ext: ["mov"]) + files("corpus/spatial-video", ext: ["mp4"]) }
    /// HEIF images (every HEIC/HEIF of the corpus and the fixtures).
    static var heifFiles: [URL] {
        [
            "fixtures", "corpus/spatial-photo", "corpus/heif-conformance", "corpus/heif-real-world",
            "corpus/heif-examples",
        ].flatMap {
            files($0, ext: ["heic", "HEIC", "heif", "hif"])
        }
    }
    static var stereoSpatial: URL { root.appendingPathComponent("corpus/spatial-video/stereo_spatial.mp4") }
}

/// A deliberately tiny, test-only reader for single-track MP4/QuickTime files: finds the hvcC/lhvC
/// payloads by their four-character codes and cuts the samples out of the file using stsz + the first
/// stco offset (the test files keep their samples contiguous).
struct MiniMovie {
    var hvcC: [UInt8]
    var lhvC: [UInt8]?
    var samples: [[UInt8]]

    init?(_ b: [UInt8]) {
        func find(_ s: String, from: Int = 0) -> Int? {
            let t = Array(s.utf8)
            guard b.count >= 4 else { return nil }
            var i = max(from, 4)
            while i + 4 <= b.count {
                if b[i] == t[0] && b[i + 1] == t[1] && b[i + 2] == t[2] && b[i + 3] == t[3] { return i }; i += 1
            }
            return nil
        }
        func u32(_ i: Int) -> Int {
            i + 4 <= b.count ? Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) : 0
        }
        func payload(_ fourcc: String) -> [UInt8]? {
            guard let at = find(fourcc) else { return nil }
            let size = u32(at - 4)
            guard size >= 8, at - 4 + size <= b.count else { return nil }
            return Array(b[(at + 4)..<(at - 4 + size)])
        }
        guard let h = payload("hvcC"), let stsz = find("stsz"), let stco = find("stco") else { return nil }
        hvcC = h
        lhvC = payload("lhvC")
        let fixed = u32(stsz + 8), count = u32(stsz + 12)
        var pos = u32(stco + 12)
        var out: [[UInt8]] = []
        for k in 0..<count {
            let size = fixed != 0 ? fixed : u32(stsz + 16 + 4 * k)
            guard pos + size <= b.count else { return nil }
            out.append(Array(b[pos..<(pos + size)]))
            pos += size
        }
        samples = out
    }
}

/// Every NAL unit of every shared stream, labelled by file: Annex B streams, and for movies the NAL
/// units in hvcC/lhvC followed by those of the samples.
func allSharedNALUnits() throws -> [(file: String, nals: [NALUnit])] {
    var out: [(String, [NALUnit])] = []
    for url in Shared.annexBFiles {
        guard let b = Shared.bytes(url) else { continue }
        out.append((url.lastPathComponent, try AnnexB.split(b)))
    }
    for url in Shared.movieFiles {
        guard let b = Shared.bytes(url), let m = MiniMovie(b) else { continue }
        let h = try HEVCDecoderConfigurationRecord(parsing: m.hvcC)
        var nals = h.nalUnits()
        if let l = m.lhvC { nals += try LHEVCDecoderConfigurationRecord(parsing: l).nalUnits() }
        for s in m.samples { nals += try LengthPrefixed.split(s, lengthSize: h.lengthSize) }
        out.append((url.lastPathComponent, nals))
    }
    return out
}
