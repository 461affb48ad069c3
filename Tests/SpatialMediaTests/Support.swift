import BinaryIO
import ISOBMFF
import TestSupport
import Testing

@testable import SpatialMedia

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The shared test media (Tests/TestSupport: `../shared`, or `SPATIAL_MEDIA_SHARED`).
enum Shared {
    static let root = TestPaths.sharedRoot
    static let apple = root + "/corpus/spatial-video/stereo_spatial.mp4"
    static let x265 = root + "/fixtures/x265mv_320x240_30f_spatial.mov"
    static let small = root + "/fixtures/mvhevc_96x64_6f_spatial.mov"
    static let lhvcOnly = root + "/fixtures/mvhevc_96x64_6f_lhvC.mov"
    static let jpegMov = root + "/corpus/isobmff/exiftool/QuickTime.mov"
    static let audioOnly = root + "/corpus/isobmff/mp4parse-rust/afconvert-aac-0.5s.mp4"
    static let avc = root + "/corpus/isobmff/mp4ff/h264.mp4"
    static let fragmented = root + "/corpus/isobmff/mp4ff/1.m4s"

    static func exists(_ p: String) -> Bool { access(p, R_OK) == 0 }
}

struct TestFailure: Error { var message: String }

/// A fresh directory under /tmp, removed by the caller with `removeTree`.
func makeTempDir(_ tag: String) throws -> String {
    var template = Array("/tmp/spatial-video-\(tag)-XXXXXX".utf8CString)
    let ok = template.withUnsafeMutableBufferPointer { p -> Bool in
        guard let base = p.baseAddress else { return false }
        return mkdtemp(base) != nil
    }
    guard ok else { throw TestFailure(message: "mkdtemp failed") }
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

func removeTree(_ dir: String) {
    guard let d = opendir(dir) else { return }
    while let e = readdir(d) {
        let name = withUnsafePointer(to: e.pointee.d_name) { p in
            p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        if name != "." && name != ".." { unlink(dir + "/" + name) }
    }
    closedir(d)
    rmdir(dir)
}

func readAll(_ path: String) throws -> [UInt8] {
    let s = try FileSource(path: path)
    return try s.read(at: 0, count: Int(s.size))
}

/// Copies a file (to a temp dir) and makes the copy writable.
func copyFile(_ from: String, to: String) throws {
    try AtomicFile.write(path: to, bytes: try readAll(from))
    chmod(to, 0o644)
}

func fileSize(_ path: String) -> UInt64 {
    var st = stat()
    return stat(path, &st) == 0 ? UInt64(st.st_size) : 0
}

/// Every sample of every track in `a` has the same bytes in `b` (tracks matched by position).
func expectSameSamples(_ a: String, _ b: String) throws {
    let fa = try ISOFile.open(path: a), fb = try ISOFile.open(path: b)
    #expect(fa.tracks.count == fb.tracks.count)
    var compared = 0
    for (ta, tb) in zip(fa.tracks, fb.tracks) {
        let sa = try ta.samples(), sb = try tb.samples()
        #expect(sa.count == sb.count)
        #expect(sa.count > 0)
        for (x, y) in zip(sa, sb) {
            #expect(x.size == y.size)
            let bx = try fa.readBytes(at: x.offset, count: Int(x.size))
            let by = try fb.readBytes(at: y.offset, count: Int(y.size))
            #expect(bx == by, "sample \(x.index) of track \(ta.trackID) differs")
            compared += 1
        }
    }
    #expect(compared > 0)
}

func report(_ path: String) throws -> SpatialVideoReport { SpatialVideoReport(try ISOFile.open(path: path)) }
