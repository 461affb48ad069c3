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

@Suite struct InPlaceEditTests {
    /// Issue 18: five in-place edits of a moov-at-end camera file reuse the old moov's space (same size: the
    /// changed bytes of one sector; a different size: the free box in front of moov) instead of appending a
    /// moov each time. At most one moov is ever appended; sample data is untouched.
    @Test(.needs(.sharedFiles(Shared.apple)))
    func fiveEditsDoNotGrowTheFile() throws {
        let dir = try makeTempDir("fiveedits")
        defer { removeTree(dir) }
        let path = dir + "/apple.mp4"
        try copyFile(Shared.apple, to: path)
        let original = fileSize(path)
        let moovSize = try #require(try ISOFile.open(path: path).box("moov")).header.size
        var edits: [SpatialVideoEdit] = []
        var e = SpatialVideoEdit(); e.baselineMicrometres = .set(20_000); edits.append(e)
        e = SpatialVideoEdit(); e.heroEye = .remove; edits.append(e)  // moov shrinks
        e = SpatialVideoEdit(); e.heroEye = .set(.left); edits.append(e)  // and grows back
        e = SpatialVideoEdit(); e.baselineMicrometres = .set(30_000); edits.append(e)
        e = SpatialVideoEdit(); e.horizontalFieldOfViewMillidegrees = .set(50_000); edits.append(e)
        var sizes: [UInt64] = []
        var strategies: [SpatialEditStrategy] = []
        for edit in edits {
            let r = try SpatialVideoEditor.edit(path: path, output: nil, inPlace: true, edit: edit)
            sizes.append(fileSize(path))
            strategies.append(r.strategy)
            try expectSameSamples(Shared.apple, path)
            #expect(try ISOFile.open(path: path).allDiagnostics.isEmpty)
        }
        #expect(strategies[0] == .inPlaceOverwrite)
        #expect(strategies[2] == .inPlaceFreeBefore)
        #expect(sizes[0] == original)
        // Only the edit that shrank moov while no free box was in front of it appended one.
        #expect(sizes.max() ?? .max <= original + moovSize + 8)
        #expect(sizes[4] == sizes[1] && sizes[3] == sizes[1] && sizes[2] == sizes[1])
        let m = try #require(try report(path).primary).metadata
        #expect(m.baselineMicrometres == 30_000)
        #expect(m.horizontalFieldOfViewMillidegrees == 50_000)
        #expect(m.heroEye == .left)
        let f = try ISOFile.open(path: path)
        #expect(f.boxes.filter { $0.type == "moov" }.count == 1)
    }

    @Test(.needs(.sharedFiles(Shared.apple)))
    func appleMoovAtEndWritesOnlyMoov() throws {
        let dir = try makeTempDir("inplace")
        defer { removeTree(dir) }
        let path = dir + "/apple.mp4"
        try copyFile(Shared.apple, to: path)
        let oldSize = fileSize(path)
        // A moov of another size (the hero box removed): appended after the old one, which becomes free.
        var e = SpatialVideoEdit()
        e.baselineMicrometres = .set(20_000)
        e.horizontalFieldOfViewMillidegrees = .set(65_000)
        e.disparityAdjustment = .set(300)
        e.heroEye = .remove
        let result = try SpatialVideoEditor.edit(path: path, output: nil, inPlace: true, edit: e)
        #expect(result.strategy == .inPlaceMoovAtEnd)
        let f = try ISOFile.open(path: path)
        let moov = try #require(f.box("moov"))
        // O(moov): the new moov, an 8-byte free header in front of it, and the 8-byte pivot header.
        #expect(result.bytesWritten == moov.header.size + 16)
        #expect(result.bytesWritten < 1_300)
        #expect(fileSize(path) == oldSize + moov.header.size + 8)
        #expect(f.allDiagnostics.isEmpty)
        let m = try #require(SpatialVideoReport(f).primary).metadata
        #expect(m.baselineMicrometres == 20_000)
        #expect(m.horizontalFieldOfViewMillidegrees == 65_000)
        #expect(m.disparityAdjustment == 300)
        #expect(m.heroEye == nil)
        try expectSameSamples(Shared.apple, path)

        // A second edit that grows moov back goes into the free box in front of it: the file does not grow.
        var e2 = SpatialVideoEdit()
        e2.heroEye = .set(.right)
        let sizeBefore = fileSize(path)
        let r2 = try SpatialVideoEditor.edit(path: path, output: nil, inPlace: true, edit: e2)
        #expect(r2.strategy == .inPlaceFreeBefore)
        #expect(fileSize(path) == sizeBefore)
        let f2 = try ISOFile.open(path: path)
        #expect(f2.boxes.map(\.type) == ["ftyp", "mdat", "moov", "free"])
        #expect(f2.allDiagnostics.isEmpty)
        #expect(try report(path).primary?.metadata.heroEye == .right)
        // A third, same-size edit rewrites only the changed bytes.
        var e3 = SpatialVideoEdit()
        e3.baselineMicrometres = .set(19_240)
        let r3 = try SpatialVideoEditor.edit(path: path, output: nil, inPlace: true, edit: e3)
        #expect(r3.strategy == .inPlaceOverwrite)
        #expect(r3.bytesWritten <= 4)
        #expect(fileSize(path) == sizeBefore)
        #expect(try report(path).primary?.metadata.baselineMicrometres == 19_240)
        try expectSameSamples(Shared.apple, path)
    }

    /// moov first, followed by a free box large enough for the new moov: in place, mdat untouched.
    @Test(.needs(.sharedFiles(Shared.small)))
    func freeSpaceAfterMoov() throws {
        let dir = try makeTempDir("freespace")
        defer { removeTree(dir) }
        // Build a moov-first copy with 4 KiB of free space after moov.
        var file = try ISOFile.open(path: Shared.small)
        let mi = try #require(file.boxes.firstIndex { $0.type == "moov" })
        let mdi = try #require(file.boxes.firstIndex { $0.type == "mdat" })
        let moov = file.boxes.remove(at: mi)
        file.boxes.insert(moov, at: mdi)
        file.boxes.insert(Box(type: "free", fields: .raw([UInt8](repeating: 0, count: 4096))), at: mdi + 1)
        let path = dir + "/first.mov"
        _ = try SpatialVideoEditor.rewrite(file: file, moovIndex: mdi, newMoov: moov, to: path, faststart: false)
        chmod(path, 0o644)
        try expectSameSamples(Shared.small, path)
        let sizeBefore = fileSize(path)
        let mdatBefore = try #require(try ISOFile.open(path: path).box("mdat")).header.offset

        var e = SpatialVideoEdit()
        e.horizontalFieldOfViewMillidegrees = .set(55_555)
        e.projectionKind = .set("rect")
        let result = try SpatialVideoEditor.edit(path: path, output: nil, inPlace: true, edit: e)
        #expect(result.strategy == .inPlaceFreeSpace)
        #expect(fileSize(path) == sizeBefore)
        let f = try ISOFile.open(path: path)
        #expect(f.box("mdat")?.header.offset == mdatBefore)
        #expect(f.boxes.map(\.type) == ["ftyp", "wide", "free", "moov", "free", "mdat"])
        #expect(result.bytesWritten < 1_200)
        #expect(SpatialVideoReport(f).primary?.metadata.horizontalFieldOfViewMillidegrees == 55_555)
        try expectSameSamples(Shared.small, path)
    }

    /// moov first without room: falls back to an atomic rewrite and says why.
    @Test(.needs(.sharedFiles(Shared.small)))
    func fallbackToRewrite() throws {
        let dir = try makeTempDir("fallback")
        defer { removeTree(dir) }
        let path = dir + "/fast.mov"
        var e = SpatialVideoEdit()
        e.heroEye = .set(.right)
        _ = try SpatialVideoEditor.edit(path: Shared.small, output: path, inPlace: false, edit: e, faststart: true)
        // A moov of another size (the hero box removed) with no free box around it.
        e.heroEye = .remove
        e.baselineMicrometres = .set(70_000)
        let r = try SpatialVideoEditor.edit(path: path, output: nil, inPlace: true, edit: e)
        #expect(r.strategy == .rewrite)
        #expect(r.fallbackReason != nil)
        #expect(r.warnings.contains { $0.contains("rewrote") })
        #expect(try report(path).primary?.metadata.baselineMicrometres == 70_000)
        try expectSameSamples(Shared.small, path)
    }
}
