import Foundation
import TestSupport
import Testing

@testable import SpatialValidation
@testable import StereoVision

/// Issue 31: one rendered pair (a 2° toe-in with an 8 px vertical offset, 640×480, 60° HFOV) as an MPO, a
/// side-by-side JPEG, two PNGs, a spatial photo and a two-view movie (twice: the left eye in layer 0, and the right
/// one with SEI 176 saying so) — made with FFmpeg and our own `convert` in a temporary directory — gets the same
/// geometry rule IDs and severities from `validate`.
@Suite("Container equivalence")
struct ContainerEquivalenceTests {
    /// A minimal MPO: the first JPEG with an APP2 "MPF" index (two entries) after its SOI, then the second JPEG.
    static func mpo(_ first: [UInt8], _ second: [UInt8]) -> [UInt8] {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] {
            [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        // TIFF (big-endian): header, an IFD of 3 entries at 8, the two 16-byte MP entries at 50.
        let tiffLength = 8 + 2 + 3 * 12 + 4 + 32
        let segmentLength = 2 + 4 + tiffLength
        let firstSize = first.count + 2 + segmentLength
        let tiffStart = 2 + 4 + 4  // SOI, APP2 marker + length, "MPF\0"
        var tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A] + be32(8) + be16(3)
        tiff += be16(0xB000) + be16(7) + be32(4) + Array("0100".utf8)
        tiff += be16(0xB001) + be16(4) + be32(1) + be32(2)
        tiff += be16(0xB002) + be16(7) + be32(32) + be32(50)
        tiff += be32(0)
        tiff += be32(0x2002_0002) + be32(firstSize) + be32(0) + be16(0) + be16(0)
        tiff += be32(0x0002_0002) + be32(second.count) + be32(firstSize - tiffStart) + be16(0) + be16(0)
        let app2: [UInt8] = [0xFF, 0xE2] + be16(segmentLength) + Array("MPF".utf8) + [0] + tiff
        return Array(first.prefix(2)) + app2 + Array(first.dropFirst(2)) + second
    }

    /// The SV-GEOM warnings and errors of every finding in `validate --json` output, as "rule severity".
    static func geometry(_ json: String) -> Set<String> {
        var out: Set<String> = []
        func walk(_ v: Any) {
            if let d = v as? [String: Any] {
                if let r = d["rule"] as? String, let s = d["severity"] as? String, r.hasPrefix("SV-GEOM"), s != "info" {
                    out.insert("\(r) \(s)")
                }
                d.values.forEach(walk)
            } else if let a = v as? [Any] {
                a.forEach(walk)
            }
        }
        if let data = json.data(using: .utf8), let v = try? JSONSerialization.jsonObject(with: data) { walk(v) }
        return out
    }

    /// Every integer value of `key` anywhere in a JSON text.
    static func values(_ key: String, _ json: String) -> [Int] {
        var out: [Int] = []
        func walk(_ v: Any) {
            if let d = v as? [String: Any] {
                if let n = d[key] as? Int { out.append(n) }
                d.values.forEach(walk)
            } else if let a = v as? [Any] {
                a.forEach(walk)
            }
        }
        if let data = json.data(using: .utf8), let v = try? JSONSerialization.jsonObject(with: data) { walk(v) }
        return out
    }

    @Test func onePairOneVerdictInEveryContainer() throws {
        let ff = try TestPrograms.requireFFmpeg()
        _ = try TestPrograms.requireBinary()
        let dir = try TestPaths.tempDir("one-verdict")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var s = SyntheticStereo()
        s.width = 640; s.height = 480; s.farWallMetres = 100; s.seed = 5
        s.yawDegrees = -2; s.verticalOffsetPixels = 8
        let (l, r) = s.render()
        GeometrySweep.writePGM(l, dir + "/L.pgm"); GeometrySweep.writePGM(r, dir + "/R.pgm")
        func ffmpeg(_ args: [String]) throws {
            let res = try Run.program(ff, ["-nostdin", "-v", "error", "-y"] + args, timeout: 300)
            try #require(res.status == 0, "ffmpeg \(args): \(res.err)")
        }
        func cli(_ args: [String]) throws -> RunResult { try Run.cli(args, cwd: dir) }
        try ffmpeg(["-i", dir + "/L.pgm", dir + "/L.png"]); try ffmpeg(["-i", dir + "/R.pgm", dir + "/R.png"])
        try ffmpeg(["-i", dir + "/L.png", "-q:v", "2", dir + "/l.jpg"]);
        try ffmpeg(["-i", dir + "/R.png", "-q:v", "2", dir + "/r.jpg"])
        try ffmpeg([
            "-i", dir + "/L.png", "-i", dir + "/R.png", "-filter_complex", "hstack", "-q:v", "2", dir + "/sbs.jpg",
        ])
        try ffmpeg(["-i", dir + "/L.png", "-i", dir + "/R.png", "-filter_complex", "hstack", dir + "/sbs.png"])
        let first = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/l.jpg")))
        let second = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/r.jpg")))
        try Data(Self.mpo(first, second)).write(to: URL(fileURLWithPath: dir + "/pair.mpo"))
        try ffmpeg([
            "-loop", "1", "-i", dir + "/sbs.png", "-frames:v", "6", "-r", "30", "-c:v", "libx264", "-crf", "8",
            "-pix_fmt", "yuv420p", dir + "/sbs.mp4",
        ])
        let photo = try cli(["convert", "--left", "L.png", "--right", "R.png", "--hfov", "60", "-o", "photo.heic"])
        try #require(photo.status == 0, "convert photo: \(photo.err)")
        let movie = try cli(["convert", "sbs.mp4", "--layout", "sbs", "--hfov", "60", "-o", "movie.mov"])
        try #require(movie.status == 0, "convert movie: \(movie.err)")
        // The same movie with the right eye as the base layer (hero right): SEI 176 says which layer is left.
        let movieR = try cli([
            "convert", "sbs.mp4", "--layout", "sbs", "--hfov", "60", "--hero", "right", "-o", "movie-r.mov",
        ])
        try #require(movieR.status == 0, "convert movie (hero right): \(movieR.err)")
        #expect(
            Self.values("left_layer_id", try cli(["info", "--json", "movie-r.mov"]).out) == [1],
            "layer 1 carries the left eye")

        let inputs: [(String, [String])] = [
            ("two PNGs", ["--left", "L.png", "--right", "R.png"]), ("MPO", ["pair.mpo"]), ("SBS JPEG", ["sbs.jpg"]),
            ("spatial photo", ["photo.heic"]), ("two-view movie", ["movie.mov", "--frames", "2"]),
            ("two-view movie, right eye in layer 0", ["movie-r.mov", "--frames", "2"]),
        ]
        var verdicts: [(String, Set<String>)] = []
        for (name, args) in inputs {
            let v = try cli(["validate", "--json"] + args)
            let g = Self.geometry(v.out)
            print("\(name): \(g.sorted().joined(separator: ", "))")
            verdicts.append((name, g))
        }
        let reference = verdicts[0].1
        #expect(reference.contains("SV-GEOM-005 error"))
        #expect(reference.contains("SV-GEOM-001 error"))
        for (name, g) in verdicts.dropFirst() {
            #expect(g == reference, "\(name): \(g.sorted()) vs two PNGs: \(reference.sorted())")
        }
    }
}
