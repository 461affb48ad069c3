import BinaryIO
import ISOBMFF
import TestSupport
import Testing

@testable import SpatialMedia

@Suite struct EditRewriteTests {
    static func newValues() -> SpatialVideoEdit {
        var e = SpatialVideoEdit()
        e.baselineMicrometres = .set(42_500)
        e.horizontalFieldOfViewMillidegrees = .set(71_250)
        e.disparityAdjustment = .set(-125)
        e.heroEye = .set(.right)
        e.projectionKind = .set("rect")
        return e
    }

    @Test(
        .needs(.sharedFiles(Shared.apple, Shared.x265, Shared.small)),
        arguments: [Shared.apple, Shared.x265, Shared.small])
    func rewriteToNewFile(input: String) throws {
        let dir = try makeTempDir("rewrite")
        defer { removeTree(dir) }
        let out = dir + "/out.mov"
        let before = try readAll(input)
        let result = try SpatialVideoEditor.edit(path: input, output: out, inPlace: false, edit: Self.newValues())
        #expect(result.strategy == .rewrite)
        #expect(result.bytesWritten == fileSize(out))
        #expect(!result.changes.isEmpty)
        #expect(try readAll(input) == before, "input untouched")
        let r = try report(out)
        #expect(r.classification == .spatialVideo)
        let m = try #require(r.primary).metadata
        #expect(m.baselineMicrometres == 42_500)
        #expect(m.horizontalFieldOfViewMillidegrees == 71_250)
        #expect(m.disparityAdjustment == -125)
        #expect(m.heroEye == .right)
        #expect(m.projectionKind == "rect")
        #expect(m.diagnostics.isEmpty)
        try expectSameSamples(input, out)
        // hvcC still precedes lhvC.
        let entry = try #require(try ISOFile.open(path: out).tracks.first?.sampleEntries.first)
        let types = (entry.children ?? []).map(\.type)
        let h = try #require(types.firstIndex(of: "hvcC")), l = try #require(types.firstIndex(of: "lhvC"))
        #expect(h < l)
        #expect(types.firstIndex(of: "hfov") == types.firstIndex(of: "vexu").map { $0 + 1 })
    }

    @Test(.needs(.sharedFiles(Shared.x265)))
    func faststartPatchesChunkOffsets() throws {
        let dir = try makeTempDir("faststart")
        defer { removeTree(dir) }
        let out = dir + "/fast.mov"
        var e = SpatialVideoEdit()
        e.baselineMicrometres = .set(65_000)
        _ = try SpatialVideoEditor.edit(path: Shared.x265, output: out, inPlace: false, edit: e, faststart: true)
        let f = try ISOFile.open(path: out)
        let types = f.boxes.map(\.type)
        #expect(try #require(types.firstIndex(of: "moov")) < (try #require(types.firstIndex(of: "mdat"))))
        try expectSameSamples(Shared.x265, out)
        #expect(try report(out).primary?.metadata.baselineMicrometres == 65_000)
    }

    /// Offsets pushed past 4 GiB promote stco to co64 (layout pass only; no huge file is written).
    @Test func promotesToCo64() throws {
        let stco = Box(ChunkOffsetBox(chunkOffsets: [100, 4_294_967_000]), type: "stco")
        var stbl = Box(type: "stbl", children: [stco])
        var mdat = Box(type: "mdat")
        mdat.header = BoxHeader(type: "mdat", offset: 50, size: 4_294_968_000)
        let mapper = SpatialVideoEditor.OffsetMapper(boxes: [mdat], newOffsets: [2_000])
        var promoted = Set<String>()
        try SpatialVideoEditor.patchOffsets(&stbl, mapper: mapper, forceCo64: [], promoted: &promoted)
        let co = try #require(stbl.child("co64")?.payload(ChunkLargeOffsetBox.self))
        #expect(co.offsets == [2_050, 4_294_967_000 + 1_950])
        #expect(stbl.child("stco") == nil)
        #expect(!promoted.isEmpty)
    }

    @Test(.needs(.sharedFiles(Shared.lhvcOnly)))
    func addMetadataToLhvCOnlyMovie() throws {
        let dir = try makeTempDir("add")
        defer { removeTree(dir) }
        let out = dir + "/added.mov"
        _ = try SpatialVideoEditor.edit(path: Shared.lhvcOnly, output: out, inPlace: false, edit: Self.newValues())
        let r = try report(out)
        #expect(r.classification == .spatialVideo)
        let entry = try #require(try ISOFile.open(path: out).tracks.first?.sampleEntries.first)
        let vexu = try #require(entry.child("vexu"))
        // Writer order: eyes{stri, hero, cams{blin}, cmfy{dadj}} then proj{prji}.
        #expect((vexu.children ?? []).map(\.type) == ["eyes", "proj"])
        #expect((vexu.child("eyes")?.children ?? []).map(\.type) == ["stri", "hero", "cams", "cmfy"])
        #expect(vexu.find("eyes", "stri")?.payload(StereoViewInformationBox.self)?.flagsByte == 3)
        try expectSameSamples(Shared.lhvcOnly, out)
    }

    /// Unknown children of vexu and eyes survive an edit byte-exact.
    @Test func unknownChildrenPreserved() throws {
        let unknownE = Box(type: "zzzz", fields: .raw([1, 2, 3]))
        let unknownV = Box(type: "yyyy", fields: .raw([9]))
        let eyes = Box(
            type: "eyes", children: [Box(StereoViewInformationBox(left: true, right: true), type: "stri"), unknownE])
        var entry = Box(type: "hvc1", children: [Box(type: "vexu", children: [unknownV, eyes])])
        var e = SpatialVideoEdit()
        e.baselineMicrometres = .set(1)
        SpatialVideoEditor.editEntry(&entry, e)
        let vexu = try #require(entry.child("vexu"))
        #expect((vexu.children ?? []).map(\.type) == ["yyyy", "eyes"])
        #expect((vexu.child("eyes")?.children ?? []).map(\.type) == ["stri", "cams", "zzzz"])
        if case .raw(let b) = vexu.child("eyes")?.child("zzzz")?.fields {
            #expect(b == [1, 2, 3])
        } else {
            Issue.record("unknown box lost")
        }
    }
}
