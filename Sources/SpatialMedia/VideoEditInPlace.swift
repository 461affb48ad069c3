import BinaryIO
import HEVC
import ISOBMFF
import SystemSupport

/// The in-place writer of a video metadata edit: the new `moov` lands in free space and one 8-byte write switches.
extension SpatialVideoEditor {
    enum InPlaceOutcome {
        case done(SpatialEditStrategy, written: UInt64, size: UInt64)
        case notPossible(String)
    }

    /// Edits `path` in place when its layout allows it without ever leaving a torn file.
    ///
    /// The new `moov` is first written where no reader looks (appended after the last box inside a
    /// `free` box, or into the payload of the `free` box that follows `moov`) and flushed. Then one
    /// 8-byte write turns the old `moov` header into a `free` header whose size also swallows the
    /// 8-byte header in front of the new `moov`, and that is flushed. Before that write the file is
    /// the old movie (plus ignorable `free` bytes); after it, the new movie. The 8 bytes lie in one
    /// 512-byte sector (checked; otherwise we fall back to a rewrite), which storage writes atomically.
    /// The crash-safe order of an in-place write: `payload` into space readers skip (a `free` box's payload), made
    /// durable; then the 8-byte `header` that switches readers over (within one 512-byte sector, so one atomic
    /// write), made durable. Before the second write readers see the old movie, after it the new one.
    static func payloadThenHeader(
        path: String, payload: [UInt8], at payloadOffset: UInt64, header: [UInt8], at headerOffset: UInt64
    ) throws(ParseError) {
        let f = try WritableFile(path: path)
        defer { f.close() }
        try f.write(payload, at: payloadOffset)
        try f.sync()
        try f.write(header, at: headerOffset)
        try f.sync()
    }

    static func writeInPlace(file: ISOFile, path: String, moovIndex: Int, newMoov: Box) throws(ParseError)
        -> InPlaceOutcome
    {
        let old = file.boxes[moovIndex]
        guard old.header.form == .compact, old.header.userType == nil else {
            return .notPossible("moov has a 64-bit header")
        }
        if case .none = file.tail {} else { return .notPossible("bytes after the last box") }
        let newBytes = try newMoov.serialized(source: file.source)
        let fileSize = file.source.size
        // Same size, changes within one sector (a value edited again): rewrite those bytes, nothing else.
        if let done = try overwriteWithinSector(file: file, path: path, old: old, newBytes: newBytes) { return done }

        // A free box right before moov that holds the new moov: the new moov's body, then a free header covering
        // the rest of that box and the old moov, go into its payload (which readers skip); then one 8-byte write
        // turns the free header into the new moov's header. Before it the old movie, after it the new one.
        let compactHeader =
            newBytes.count >= 8 && newBytes[4..<8].elementsEqual(Array("moov".utf8))
            && newBytes.prefix(4).reduce(UInt64(0), { $0 << 8 | UInt64($1) }) == UInt64(newBytes.count)
        // A free (or skip) box with a compact header right before moov, its header within one sector.
        let freeBefore: Box? = moovIndex > 0 ? file.boxes[moovIndex - 1] : nil
        let usableFreeBefore = freeBefore.flatMap { (prev: Box) -> Box? in
            (prev.type == "free" || prev.type == "skip") && prev.header.form == .compact && prev.header.userType == nil
                && prev.header.offset + prev.header.size == old.header.offset && prev.header.offset % 512 <= 504
                ? prev : nil
        }
        if compactHeader, let prev = usableFreeBefore {
            let need = UInt64(newBytes.count) + 8
            if prev.header.size >= need,
                let tail = UInt32(exactly: prev.header.size - UInt64(newBytes.count) + old.header.size)
            {
                var body = ByteWriter(capacity: newBytes.count)
                body.write(Array(newBytes[8...]))
                body.writeU32(tail)
                body.writeFourCC("free")
                try payloadThenHeader(
                    path: path, payload: body.bytes, at: prev.header.offset + 8, header: Array(newBytes[0..<8]),
                    at: prev.header.offset)
                return .done(.inPlaceFreeBefore, written: UInt64(body.count + 8), size: fileSize)
            }
        }

        // The retired region starts at the old moov, or at a free box right before it (so repeated
        // edits grow one free box instead of leaving a chain of them).
        var pivotOffset = old.header.offset
        var retired = old.header.size
        if let prev = usableFreeBefore {
            pivotOffset = prev.header.offset
            retired += prev.header.size
        }
        guard pivotOffset % 512 <= 504 else {
            return .notPossible("the moov header straddles a 512-byte sector, so its rewrite would not be atomic")
        }
        guard let pivotSize = UInt32(exactly: retired + 8) else { return .notPossible("moov is too large") }
        var pivot = ByteWriter()
        pivot.writeU32(pivotSize)
        pivot.writeFourCC("free")

        if moovIndex == file.boxes.count - 1 {
            return try appendAtEnd(
                path: path, old: old, newBytes: newBytes, pivot: pivot.bytes, at: pivotOffset, fileSize: fileSize)
        }

        let next = file.boxes[moovIndex + 1]
        guard next.type == "free" || next.type == "skip", next.header.form == .compact, next.header.userType == nil
        else {
            return .notPossible("moov is neither the last box nor followed by a free box")
        }
        // The new moov goes in the free box's payload, right after its header; the rest of the payload becomes a free
        // box.
        let room = next.header.size - 8
        let need = UInt64(newBytes.count)
        guard room >= need, room - need == 0 || room - need >= 8 else {
            return .notPossible(
                "the free box after moov (\(next.header.size) bytes) cannot hold the new moov (\(newBytes.count) bytes) plus a free header; in place would need to overwrite the live moov"
            )
        }
        var region = ByteWriter(capacity: newBytes.count + 8)
        region.write(newBytes)
        let rest = room - need
        if rest > 0 {
            guard let r32 = UInt32(exactly: rest) else { return .notPossible("free box too large") }
            region.writeU32(r32)
            region.writeFourCC("free")
        }
        try payloadThenHeader(
            path: path, payload: region.bytes, at: next.header.offset + 8, header: pivot.bytes, at: pivotOffset)
        return .done(.inPlaceFreeSpace, written: UInt64(region.count + pivot.count), size: fileSize)
    }

    /// A moov of the same size whose changes lie within one 512-byte sector: those bytes rewritten, nothing else.
    private static func overwriteWithinSector(
        file: ISOFile, path: String, old: Box,
        newBytes: [UInt8]
    ) throws(ParseError) -> InPlaceOutcome? {
        let fileSize = file.source.size
        if UInt64(newBytes.count) == old.header.size {
            let oldBytes = try file.source.read(at: old.header.offset, count: newBytes.count)
            if oldBytes == newBytes { return .done(.inPlaceOverwrite, written: 0, size: fileSize) }
            let changed = oldBytes.indices.filter { oldBytes[$0] != newBytes[$0] }
            if let lo = changed.first, let hi = changed.last,
                (old.header.offset + UInt64(lo)) / 512 == (old.header.offset + UInt64(hi)) / 512
            {
                let f = try WritableFile(path: path)
                defer { f.close() }
                try f.write(Array(newBytes[lo...hi]), at: old.header.offset + UInt64(lo))
                try f.sync()
                return .done(.inPlaceOverwrite, written: UInt64(hi - lo + 1), size: fileSize)
            }
        }
        return nil
    }

    /// moov is the last box: the new moov is appended inside a free box, then one header write retires the old one.
    private static func appendAtEnd(
        path: String, old: Box, newBytes: [UInt8], pivot: [UInt8], at pivotOffset: UInt64,
        fileSize: UInt64
    ) throws(ParseError) -> InPlaceOutcome {
        guard old.header.offset + old.header.size == fileSize else {
            return .notPossible("moov does not end at the end of the file")
        }
        guard let wrapSize = UInt32(exactly: UInt64(newBytes.count) + 8) else {
            return .notPossible("new moov is too large")
        }
        var region = ByteWriter(capacity: newBytes.count + 8)
        region.writeU32(wrapSize)
        region.writeFourCC("free")
        region.write(newBytes)
        let f = try WritableFile(path: path)
        defer { f.close() }
        do {
            try f.write(region.bytes, at: fileSize)
            try f.sync()
        } catch {
            f.truncate(fileSize)
            throw error
        }
        try f.write(pivot, at: pivotOffset)
        try f.sync()
        return .done(
            .inPlaceMoovAtEnd, written: UInt64(region.count + pivot.count), size: fileSize + UInt64(region.count))
    }
}
