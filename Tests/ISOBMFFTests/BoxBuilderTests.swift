import BinaryIO
import Testing

@testable import ISOBMFF

/// The builders writers use (spec defaults, version chosen by the values), the write-time range check and the one
/// chunk-offset patcher.
@Suite("Box builders and chunk offsets")
struct BoxBuilderTests {
    /// Serialises `b`, parses it back and returns the parsed box.
    func roundTrip(_ b: Box) throws -> Box {
        let bytes = try b.serialized()
        let (boxes, _, diags) = BoxParser().parseBoxes(bytes)
        #expect(diags.isEmpty)
        return try #require(boxes.first)
    }

    @Test func movieHeaderHasSpecDefaultsAndPicksItsVersion() throws {
        let small = try roundTrip(Box(MovieHeaderBox(timescale: 30000, duration: 90000, nextTrackID: 2), type: "mvhd"))
        let m = try #require(small.payload(MovieHeaderBox.self))
        #expect(m.fullBox.version == 0 && m.rate == 0x0001_0000 && m.volume == 0x0100)
        #expect(m.matrix == identityMatrix && m.timescale == 30000 && m.duration == 90000 && m.nextTrackID == 2)
        #expect(try small.serialized().count == 108)  // 8 header + 100 payload (version 0)
        let long = try roundTrip(Box(MovieHeaderBox(timescale: 1000, duration: 1 << 33, nextTrackID: 3), type: "mvhd"))
        #expect(long.payload(MovieHeaderBox.self)?.fullBox.version == 1)
        #expect(long.payload(MovieHeaderBox.self)?.duration == 1 << 33)
    }

    @Test func trackMediaAndEditBoxesRoundTrip() throws {
        let tkhd = try roundTrip(
            Box(TrackHeaderBox(trackID: 1, duration: 500, width: 1920, height: 1080), type: "tkhd"))
        let t = try #require(tkhd.payload(TrackHeaderBox.self))
        #expect(
            t.fullBox.flags == 3 && t.trackID == 1 && t.width == 1920 << 16 && t.height == 1080 << 16 && t.volume == 0)
        let mdhd = try roundTrip(Box(MediaHeaderBox(timescale: 600, duration: 1200), type: "mdhd"))
        #expect(mdhd.payload(MediaHeaderBox.self)?.languageCode == "und")
        let elst = try roundTrip(Box(EditListBox(entries: [.init(segmentDuration: 10, mediaTime: -1)]), type: "elst"))
        #expect(elst.payload(EditListBox.self)?.entries.first?.mediaTime == -1)
        #expect(EditListBox(entries: [.init(segmentDuration: 1 << 32, mediaTime: 0)]).fullBox.version == 1)
        let vmhd = try roundTrip(Box(VideoMediaHeaderBox(), type: "vmhd"))
        #expect(vmhd.payload(VideoMediaHeaderBox.self)?.fullBox.flags == 1)
        let dinf = try roundTrip(Box.selfContainedDataInformation())
        #expect(dinf.find("dref", "url ")?.payload(DataEntryUrlBox.self)?.selfContained == true)
        #expect(dinf.child("dref")?.payload(DataReferenceBoxHeader.self)?.entryCount == 1)
    }

    @Test func valuesThatDoNotFitTheirVersionAreRefusedNotCut() throws {
        var m = MovieHeaderBox(timescale: 1000, duration: 10, nextTrackID: 2)
        m.duration = 1 << 32  // version stays 0
        let file = ISOFile(boxes: [Box(type: "moov", children: [Box(m, type: "mvhd")])], source: MemorySource([]))
        #expect(throws: ParseError(.unwritable, offset: 0, "")) { try file.serialized() }
        var e = EditListBox(entries: [.init(segmentDuration: 5, mediaTime: 0)])
        e.entries[0].mediaTime = Int64(Int32.max) + 1
        #expect(throws: ParseError(.unwritable, offset: 0, "")) { try Box(e, type: "elst").serialized() }
        var tk = TrackHeaderBox(trackID: 1, duration: 1, width: 2, height: 2)
        tk.duration = UInt64(UInt32.max) + 1
        #expect(throws: ParseError(.unwritable, offset: 0, "")) { try Box(tk, type: "tkhd").serialized() }
        m.fullBox.version = 1
        #expect(try Box(m, type: "mvhd").serialized().count == 120)
    }

    @Test func chunkOffsetsAreBuiltAndMovedInOnePlace() throws {
        #expect(try ChunkOffsets.box([8, 100], large: false).type == "stco")
        #expect(throws: ParseError(.unwritable, offset: 0, "")) { try ChunkOffsets.box([1 << 32], large: false) }
        var stco = try roundTrip(try ChunkOffsets.box([8, 100], large: false))
        #expect(ChunkOffsets.offsets(of: stco) == [8, 100])
        // A move that stays below 4 GiB keeps stco; one past it promotes to co64, or throws when promotion is off.
        #expect(try ChunkOffsets.map(&stco) { $0 + 16 } == false)
        #expect(stco.type == "stco" && ChunkOffsets.offsets(of: stco) == [24, 116])
        var refused = stco
        #expect(throws: ParseError(.unwritable, offset: 0, "")) {
            try ChunkOffsets.map(&refused, promote: false) { $0 + (1 << 32) }
        }
        #expect(try ChunkOffsets.map(&stco) { $0 + (1 << 32) } == true)
        #expect(stco.type == "co64" && ChunkOffsets.offsets(of: stco) == [(1 << 32) + 24, (1 << 32) + 116])
        #expect(try roundTrip(stco).payload(ChunkLargeOffsetBox.self)?.offsets == [(1 << 32) + 24, (1 << 32) + 116])
        // In a track: set replaces whichever box is there.
        let stbl = Box(
            type: "stbl",
            children: [Box(SampleSizeBox(sizes: [1, 2]), type: "stsz"), try ChunkOffsets.box([40], large: false)])
        var trak = Box(type: "trak", children: [Box(type: "mdia", children: [Box(type: "minf", children: [stbl])])])
        try ChunkOffsets.set([1 << 33], large: true, inTrack: &trak)
        let kids = try #require(trak.find("mdia", "minf", "stbl")?.children)
        #expect(kids.map(\.type) == ["stsz", "co64"])
        try ChunkOffsets.map(inTrack: &trak) { $0 - 8 }
        #expect(trak.find("mdia", "minf", "stbl", "co64").flatMap(ChunkOffsets.offsets(of:)) == [(1 << 33) - 8])
    }
}
