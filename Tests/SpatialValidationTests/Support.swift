import Foundation
import StereoVision
import TestSupport

enum Corpus {
    /// The shared test media (Tests/TestSupport: `../shared`, or `SPATIAL_MEDIA_SHARED`).
    static let root = TestPaths.sharedRoot
    static let appleVideo = "\(root)/corpus/spatial-video/stereo_spatial.mp4"
    static let visionPro = "\(root)/corpus/spatial-photo/vision-pro.HEIC"
    static let stereoPhoto = "\(root)/corpus/spatial-photo/stereo_1200x800.heic"
    static let fixtures = "\(root)/fixtures"
    static let x265Spatial = "\(fixtures)/x265mv_320x240_30f_spatial.mov"
    static let smallSpatial = "\(fixtures)/mvhevc_96x64_6f_spatial.mov"
    static let lhvcOnly = "\(fixtures)/mvhevc_96x64_6f_lhvC.mov"
    static let pairCminCmex = "\(fixtures)/pair_ster_cmin_cmex.heic"
    static let mpo = "\(root)/corpus/mpo/sugarshack.mpo"
    static let sbs = "\(root)/corpus/sbs/capoda.left-right.jpg"
    static func exists(_ p: String) -> Bool { FileManager.default.fileExists(atPath: p) }
}

enum Temp {
    static func dir() -> String {
        let d = NSTemporaryDirectory() + "sv-tests-\(UInt32.random(in: 0...UInt32.max))"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }
    static func copy(_ src: String, to dir: String, name: String) throws -> String {
        let dst = dir + "/" + name
        try? FileManager.default.removeItem(atPath: dst)
        try FileManager.default.copyItem(atPath: src, toPath: dst)
        return dst
    }
    /// Replaces the bytes at `offset` in the file.
    static func patch(_ path: String, at offset: Int, with bytes: [UInt8]) throws {
        var d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for (i, b) in bytes.enumerated() { d[offset + i] = b }
        try Data(d).write(to: URL(fileURLWithPath: path))
    }
    /// Offsets of a FourCC in the file.
    static func find(_ path: String, _ fourcc: String) throws -> [Int] {
        let d = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let f = Array(fourcc.utf8)
        var out: [Int] = []
        var i = 0
        while i + 4 <= d.count {
            if d[i] == f[0] && d[i + 1] == f[1] && d[i + 2] == f[2] && d[i + 3] == f[3] { out.append(i) }
            i += 1
        }
        return out
    }
    /// Writes a binary PGM (for the OpenCV oracle).
    static func writePGM(_ g: GrayImage, _ path: String) throws {
        var d = Array("P5\n\(g.width) \(g.height)\n255\n".utf8)
        d += g.bytes
        try Data(d).write(to: URL(fileURLWithPath: path))
    }
}
