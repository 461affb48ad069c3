import BinaryIO
import HEVC
import ISOBMFF
import SystemSupport

/// The layout pass of a video metadata edit: the whole movie written again around the new `moov`, every chunk
/// offset moved with the box that holds its data.
extension SpatialVideoEditor {
    /// Writes the whole movie to `path` (temporary file + rename) with `newMoov`, streaming every
    /// other box from the source and patching every chunk offset by how far its box moved.
    /// Returns the bytes written.
    /// `patches` replace source bytes (old-file offset → bytes) inside boxes copied from the source, such as a sample
    /// rewritten shorter in its own place in `mdat`.
    static func rewrite(
        file: ISOFile, moovIndex: Int, newMoov: Box, to path: String, faststart: Bool,
        patches: [UInt64: [UInt8]] = [:],
        progress: ((UInt64, UInt64) -> Void)? = nil
    ) throws(ParseError) -> UInt64 {
        var order = Array(file.boxes.indices)
        if faststart, let firstMdat = file.boxes.firstIndex(where: { $0.type == "mdat" }), firstMdat < moovIndex {
            order.remove(at: moovIndex)
            order.insert(moovIndex, at: firstMdat)
        }
        if let s = firstSaio(newMoov) {
            throw ParseError(
                .unsupported, offset: s.header.offset, path: s.path,
                "saio (sample auxiliary information offsets) present: rewriting would need its absolute offsets patched, which is not supported"
            )
        }
        let original = newMoov
        var moov = newMoov
        var forceCo64 = Set<String>()
        for _ in 0..<4 {
            // New offset of every original top-level box.
            var newOffsets = [UInt64](repeating: 0, count: file.boxes.count)
            var pos: UInt64 = 0
            for i in order {
                newOffsets[i] = pos
                pos = try Checked.add(pos, i == moovIndex ? moov.encodedSize() : file.boxes[i].encodedSize())
            }
            let mapper = OffsetMapper(boxes: file.boxes, newOffsets: newOffsets)
            var promoted = Set<String>()
            moov = original
            try patchOffsets(&moov, mapper: mapper, forceCo64: forceCo64, promoted: &promoted)
            if promoted.isSubset(of: forceCo64) {
                var boxes: [Box] = []
                for i in order {
                    if i == moovIndex { boxes.append(moov); continue }
                    var b = file.boxes[i]
                    if b.type == "meta" { try patchOffsets(&b, mapper: mapper, forceCo64: [], promoted: &promoted) }
                    boxes.append(b)
                }
                let out = ISOFile(boxes: boxes, tail: file.tail, diagnostics: [], source: file.source)
                let segments = try patched(out.segments(), patches)
                try out.checkWritable()
                try AtomicFile.write(path: path) { (f: AtomicFile) throws(ParseError) in
                    try AtomicFile.writeSegments(segments, to: f, source: file.source, progress: progress)
                }
                var total: UInt64 = 0
                for s in segments {
                    switch s {
                    case .bytes(let b): total += UInt64(b.count)
                    case .range(_, let l): total += l
                    }
                }
                return total
            }
            forceCo64.formUnion(promoted)
        }
        throw ParseError(.unwritable, path: path, "chunk offset layout did not converge")
    }

    /// `segments` with the source ranges under each patch replaced by the patch's bytes. A patch must lie inside
    /// one copied range (a sample inside `mdat`); one that does not is an error, never a silent skip.
    static func patched(_ segments: [SegmentList.Segment], _ patches: [UInt64: [UInt8]]) throws(ParseError)
        -> [SegmentList.Segment]
    {
        guard !patches.isEmpty else { return segments }
        let sorted = patches.sorted { $0.key < $1.key }
        var out: [SegmentList.Segment] = []
        var used = 0
        var next = 0
        for s in segments {
            guard case .range(let o, let l) = s else { out.append(s); continue }
            let end = o + l
            var pos = o
            while next < sorted.count, sorted[next].key >= pos, sorted[next].key < end {
                let (at, bytes) = sorted[next]
                let stop = try Checked.add(at, UInt64(bytes.count), offset: at)
                guard stop <= end else { break }
                if at > pos { out.append(.range(offset: pos, length: at - pos)) }
                if !bytes.isEmpty { out.append(.bytes(bytes)) }
                pos = stop
                next += 1
                used += 1
            }
            if pos < end { out.append(.range(offset: pos, length: end - pos)) }
        }
        guard used == sorted.count else {
            throw ParseError(
                .unwritable, offset: sorted[min(used, sorted.count - 1)].key,
                "a rewritten sample does not lie inside one copied box")
        }
        return out
    }

    static func firstSaio(_ b: Box) -> Box? {
        if b.type == "saio" { return b }
        for c in b.children ?? [] { if let s = firstSaio(c) { return s } }
        return nil
    }

    /// Maps an old absolute file offset to its new one by the move of the top-level box containing it.
    struct OffsetMapper {
        var ranges: [(start: UInt64, end: UInt64, newStart: UInt64)]
        init(boxes: [Box], newOffsets: [UInt64]) {
            ranges = boxes.indices.map {
                (boxes[$0].header.offset, boxes[$0].header.offset &+ boxes[$0].header.size, newOffsets[$0])
            }
        }
        func map(_ o: UInt64) throws(ParseError) -> UInt64 {
            for r in ranges where o >= r.start && o < r.end {
                return try Checked.add(r.newStart, o - r.start, offset: o)
            }
            // An offset outside every box (e.g. exactly at the end of the file for an empty chunk) is left as it is.
            return o
        }
    }

    /// Patches `stco`/`co64` in every track below `box` and `iloc` extents (construction method 0);
    /// promotes an `stco` to `co64` when an offset no longer fits 32 bits (or when its path is in `forceCo64`).
    static func patchOffsets(
        _ box: inout Box, mapper: OffsetMapper, forceCo64: Set<String>, promoted: inout Set<String>
    ) throws(ParseError) {
        guard var kids = box.children else { return }
        for i in kids.indices {
            let k = kids[i]
            if k.type == "stco" || k.type == "co64" {
                if try ChunkOffsets.map(
                    &kids[i], forceLarge: forceCo64.contains(k.path),
                    { (o: UInt64) throws(ParseError) in try mapper.map(o) })
                {
                    promoted.insert(k.path)
                }
            } else if k.type == "iloc", var t = k.payload(ItemLocationBox.self) {
                for j in t.items.indices where t.items[j].constructionMethod == 0 && t.items[j].dataReferenceIndex == 0
                {
                    var item = t.items[j]
                    guard let first = item.extents.first else { continue }
                    let old = try Checked.add(item.baseOffset, first.offset)
                    let new = try mapper.map(old)
                    if item.baseOffset != 0 || t.baseOffsetSize > 0 {
                        item.baseOffset = try Checked.add(try Checked.sub(new, old), item.baseOffset)
                        if t.baseOffsetSize == 4 && item.baseOffset > UInt64(UInt32.max) {
                            throw ParseError(
                                .unwritable, offset: k.header.offset, path: k.path,
                                "iloc base offset no longer fits 32 bits")
                        }
                    } else {
                        for e in item.extents.indices {
                            item.extents[e].offset = try mapper.map(item.extents[e].offset)
                            if t.offsetSize == 4 && item.extents[e].offset > UInt64(UInt32.max) {
                                throw ParseError(
                                    .unwritable, offset: k.header.offset, path: k.path,
                                    "iloc extent offset no longer fits 32 bits")
                            }
                        }
                    }
                    t.items[j] = item
                }
                kids[i].fields = .typed(t)
            } else if k.children != nil {
                try patchOffsets(&kids[i], mapper: mapper, forceCo64: forceCo64, promoted: &promoted)
            }
        }
        box.children = kids
    }
}
