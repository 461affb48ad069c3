import BinaryIO

/// Chunk offsets (`stco`, 32-bit, and `co64`, 64-bit; ISO/IEC 14496-12 §8.7.5): the one place that builds them
/// and moves them when the data they point at moves (the muxer, the metadata editor's rewrite and the track
/// copier all use it). A value never silently loses bits: `stco` is promoted to `co64` or the call throws.
public enum ChunkOffsets {
    /// `stco` when `large` is false, `co64` otherwise. Throws when an offset needs 64 bits and `large` is false.
    public static func box(_ offsets: [UInt64], large: Bool) throws(ParseError) -> Box {
        if large { return Box(ChunkLargeOffsetBox(offsets: offsets), type: "co64") }
        var values: [UInt32] = []
        values.reserveCapacity(offsets.count)
        for o in offsets {
            guard let v = UInt32(exactly: o) else {
                throw ParseError(.unwritable, path: "stco", "chunk offset \(o) needs 64 bits (co64)")
            }
            values.append(v)
        }
        return Box(ChunkOffsetBox(chunkOffsets: values), type: "stco")
    }

    /// The offsets of a parsed or built `stco`/`co64` box; nil for any other box.
    public static func offsets(of box: Box) -> [UInt64]? {
        if box.type == "stco", let t = box.payload(ChunkOffsetBox.self) { return t.chunkOffsets.map(UInt64.init) }
        if box.type == "co64", let t = box.payload(ChunkLargeOffsetBox.self) { return t.offsets }
        return nil
    }

    /// Replaces every offset of the `stco`/`co64` box by `transform(offset)`, keeping its FullBox header. An `stco`
    /// becomes `co64` when `forceLarge` is set or a new value needs 64 bits and `promote` allows it (otherwise that
    /// throws). Returns true when the box was promoted. Other boxes are left alone (false).
    @discardableResult
    public static func map(
        _ box: inout Box, promote: Bool = true, forceLarge: Bool = false,
        _ transform: (UInt64) throws(ParseError) -> UInt64
    ) throws(ParseError) -> Bool {
        if box.type == "co64", var t = box.payload(ChunkLargeOffsetBox.self) {
            for j in t.offsets.indices { t.offsets[j] = try transform(t.offsets[j]) }
            box.fields = .typed(t)
            return false
        }
        guard box.type == "stco", var t = box.payload(ChunkOffsetBox.self) else { return false }
        var values: [UInt64] = []
        values.reserveCapacity(t.chunkOffsets.count)
        for v in t.chunkOffsets { values.append(try transform(UInt64(v))) }
        if forceLarge || values.contains(where: { $0 > UInt64(UInt32.max) }) {
            guard promote else {
                throw ParseError(
                    .unwritable, offset: box.header.offset, path: box.path.isEmpty ? "stco" : box.path,
                    "a chunk offset no longer fits 32 bits")
            }
            var large = Box(ChunkLargeOffsetBox(offsets: values), type: "co64")
            large.path = box.path
            box = large
            return true
        }
        t.chunkOffsets = values.map { UInt32(truncatingIfNeeded: $0) }  // each checked above to fit
        box.fields = .typed(t)
        return false
    }

    /// Applies ``map(_:promote:forceLarge:_:)`` to the chunk offset box of a `trak`'s sample table.
    public static func map(
        inTrack trak: inout Box, promote: Bool = true,
        _ transform: (UInt64) throws(ParseError) -> UInt64
    ) throws(ParseError) {
        try editSampleTable(&trak) { (stbl: inout Box) throws(ParseError) in
            guard var kids = stbl.children else { return }
            for i in kids.indices where kids[i].type == "stco" || kids[i].type == "co64" {
                try map(&kids[i], promote: promote, transform)
            }
            stbl.children = kids
        }
    }

    /// Replaces the chunk offset box of a `trak`'s sample table by a new `stco` (or `co64` when `large`).
    public static func set(_ offsets: [UInt64], large: Bool, inTrack trak: inout Box) throws(ParseError) {
        let new = try box(offsets, large: large)
        try editSampleTable(&trak) { (stbl: inout Box) throws(ParseError) in
            stbl.removeChildren("stco"); stbl.removeChildren("co64")
            stbl.setChild(new)
        }
    }

    static func editSampleTable(_ trak: inout Box, _ body: (inout Box) throws(ParseError) -> Void) throws(ParseError) {
        guard var mdia = trak.child("mdia"), var minf = mdia.child("minf"), var stbl = minf.child("stbl") else {
            return
        }
        try body(&stbl)
        minf.setChild(stbl); mdia.setChild(minf); trak.setChild(mdia)
    }
}
