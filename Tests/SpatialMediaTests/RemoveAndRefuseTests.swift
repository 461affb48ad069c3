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

@Suite struct RemoveAndRefuseTests {
    @Test(.needs(.sharedFiles(Shared.x265)))
    func removeSpatial() throws {
        let dir = try makeTempDir("remove")
        defer { removeTree(dir) }
        let out = dir + "/plain.mov"
        var e = SpatialVideoEdit()
        e.removeSpatial = true
        let r = try SpatialVideoEditor.edit(path: Shared.x265, output: out, inPlace: false, edit: e)
        #expect(r.changes == ["track 1: removed vexu and hfov"])
        let rep = try report(out)
        #expect(rep.classification == .stereoMVHEVCWithoutSpatialMetadata)
        let entry = try #require(try ISOFile.open(path: out).tracks.first?.sampleEntries.first)
        #expect(entry.child("vexu") == nil && entry.child("hfov") == nil && entry.child("lhvC") != nil)
        try expectSameSamples(Shared.x265, out)
    }

    @Test func refusals() throws {
        let dir = try makeTempDir("refuse")
        defer { removeTree(dir) }
        var e = SpatialVideoEdit()
        e.baselineMicrometres = .set(64_000)
        if Shared.exists(Shared.jpegMov) {
            let err = try #require(throws: ParseError.self) {
                try SpatialVideoEditor.edit(path: Shared.jpegMov, output: dir + "/o.mov", inPlace: false, edit: e)
            }
            #expect(err.code == .unsupported && err.message.contains("not an HEVC movie"))
        }
        if Shared.exists(Shared.audioOnly) {
            let err = try #require(throws: ParseError.self) {
                try SpatialVideoEditor.edit(path: Shared.audioOnly, output: dir + "/o.mp4", inPlace: false, edit: e)
            }
            #expect(err.message.contains("no video track"))
        }
        if Shared.exists(Shared.avc) {
            let err = try #require(throws: ParseError.self) {
                try SpatialVideoEditor.edit(path: Shared.avc, output: dir + "/o.mp4", inPlace: false, edit: e)
            }
            #expect(err.code == .unsupported)
        }
        // Not a movie at all.
        let text = dir + "/notes.txt"
        try AtomicFile.write(path: text, bytes: Array("hello, not a movie".utf8))
        #expect(throws: ParseError.self) {
            try SpatialVideoEditor.edit(path: text, output: dir + "/o.mov", inPlace: false, edit: e)
        }
        #expect(fileSize(dir + "/o.mov") == 0)
    }

    @Test(.needs(.sharedFiles(Shared.apple)))
    func badValuesLeaveOriginalUntouched() throws {
        let dir = try makeTempDir("bad")
        defer { removeTree(dir) }
        let path = dir + "/a.mp4"
        try copyFile(Shared.apple, to: path)
        let before = try readAll(path)
        var bad: [SpatialVideoEdit] = []
        for f: UInt32 in [0, 180_000] {
            var e = SpatialVideoEdit(); e.horizontalFieldOfViewMillidegrees = .set(f); bad.append(e)
        }
        do { var e = SpatialVideoEdit(); e.disparityAdjustment = .set(15_000); bad.append(e) }
        for e in bad {
            #expect(throws: ParseError(.invalidValue, offset: 0, "")) {
                try SpatialVideoEditor.edit(path: path, output: nil, inPlace: true, edit: e)
            }
        }
        #expect(throws: ParseError(.invalidArgument, offset: 0, "")) { try SpatialUnits.millidegrees(fromDegrees: -5) }
        #expect(throws: ParseError(.invalidArgument, offset: 0, "")) {
            try SpatialUnits.micrometres(fromMillimetres: -1)
        }
        #expect(throws: ParseError(.invalidArgument, offset: 0, "")) {
            try SpatialUnits.disparityUnits(fromPercent: 150)
        }
        #expect(try readAll(path) == before)
    }

    @Test(.needs(.sharedFiles(Shared.apple)))
    func unwritableDestinations() throws {
        let dir = try makeTempDir("unwritable")
        defer { chmod(dir + "/ro", 0o755); removeTree(dir + "/ro"); removeTree(dir) }
        var e = SpatialVideoEdit()
        e.baselineMicrometres = .set(10_000)
        let missing = try #require(throws: ParseError.self) {
            try SpatialVideoEditor.edit(path: Shared.apple, output: dir + "/no/such/dir/o.mp4", inPlace: false, edit: e)
        }
        #expect(missing.code == .io && missing.message.contains("does not exist"))
        mkdir(dir + "/ro", 0o555)
        if geteuid() != 0 {  // root ignores directory permissions
            let ro = try #require(throws: ParseError.self) {
                try SpatialVideoEditor.edit(path: Shared.apple, output: dir + "/ro/o.mp4", inPlace: false, edit: e)
            }
            #expect(ro.code == .io)
        }
        // A read-only input edited in place: clear error, file untouched.
        let path = dir + "/a.mp4"
        try copyFile(Shared.apple, to: path)
        chmod(path, 0o444)
        let before = try readAll(path)
        if geteuid() != 0 {
            let err = try #require(throws: ParseError.self) {
                try SpatialVideoEditor.edit(path: path, output: nil, inPlace: true, edit: e)
            }
            #expect(err.code == .io && err.message.contains("cannot open for writing"))
        }
        #expect(try readAll(path) == before)
    }
}
