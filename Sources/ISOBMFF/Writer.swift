import BinaryIO

/// Output of serialization: bytes interleaved with ranges still to be copied from the source.
public struct SegmentList: Sendable {
    public enum Segment: Sendable {
        case bytes([UInt8])
        case range(offset: UInt64, length: UInt64)
    }
    public private(set) var segments: [Segment] = []
    var pending = ByteWriter()
    public private(set) var totalSize: UInt64 = 0

    public init() {}

    mutating func flush() {
        if pending.count > 0 { segments.append(.bytes(pending.take())) }
    }
    public mutating func append(_ bytes: [UInt8]) {
        pending.write(bytes)
        totalSize += UInt64(bytes.count)
        if pending.count > 1 << 20 { flush() }
    }
    public mutating func appendRange(offset: UInt64, length: UInt64) {
        guard length > 0 else { return }
        flush()
        segments.append(.range(offset: offset, length: length))
        totalSize += length
    }
    /// Finishes and returns the segments.
    public mutating func finish() -> [Segment] { flush(); return segments }
}

extension Box {
    /// Size in bytes of the fields, children and trailing bytes (everything after the header).
    public func payloadSize() -> UInt64 {
        var n: UInt64 = 0
        switch fields {
        case .none: break
        case .raw(let b): n += UInt64(b.count)
        case .fileRange(_, let length): n += length
        case .typed(let p): n += UInt64(p.serialized().count)
        }
        for c in children ?? [] { n += c.encodedSize() }
        return n + UInt64(trailing.count)
    }

    /// Total size when written, header included. A compact header that can no longer hold the
    /// size is promoted to a 64-bit one.
    public func encodedSize() -> UInt64 {
        let payload = payloadSize()
        var h = header
        h.form = effectiveForm(payload: payload)
        return payload + UInt64(h.length)
    }

    func effectiveForm(payload: UInt64) -> HeaderForm {
        if header.form == .compact && payload + UInt64(header.length) > UInt64(UInt32.max) { return .large }
        return header.form
    }

    /// Header bytes for a payload of `payload` bytes.
    public func headerBytes(payload: UInt64) -> [UInt8] {
        var h = header
        h.form = effectiveForm(payload: payload)
        let total = payload + UInt64(h.length)
        var w = ByteWriter(capacity: 32)
        switch h.form {
        case .compact: w.writeU32(UInt32(truncatingIfNeeded: total)); w.writeFourCC(h.type)
        case .large: w.writeU32(1); w.writeFourCC(h.type); w.writeU64(total)
        case .toEnd: w.writeU32(0); w.writeFourCC(h.type)
        }
        if let ut = h.userType { w.write(ut) }
        return w.take()
    }

    /// Appends this box to `out`.
    public func write(to out: inout SegmentList) {
        // Serialize the fields once; children are written recursively.
        var fieldBytes: [UInt8] = []
        var range: (UInt64, UInt64)? = nil
        switch fields {
        case .none: break
        case .raw(let b): fieldBytes = b
        case .fileRange(let o, let l): range = (o, l)
        case .typed(let p): fieldBytes = p.serialized()
        }
        var childSize: UInt64 = 0
        for c in children ?? [] { childSize += c.encodedSize() }
        let payload = UInt64(fieldBytes.count) + (range?.1 ?? 0) + childSize + UInt64(trailing.count)
        out.append(headerBytes(payload: payload))
        out.append(fieldBytes)
        if let (o, l) = range { out.appendRange(offset: o, length: l) }
        for c in children ?? [] { c.write(to: &out) }
        out.append(trailing)
    }

    /// The whole box as bytes. File-range payloads are read from `source` (required when present).
    public func serialized(source: (any ByteSource)? = nil) throws(ParseError) -> [UInt8] {
        try checkWritable()
        var out = SegmentList()
        write(to: &out)
        return try SegmentList.materialize(out.finish(), source: source)
    }
}

extension SegmentList {
    /// Concatenates segments into memory, reading ranges from `source`.
    public static func materialize(_ segments: [Segment], source: (any ByteSource)?) throws(ParseError) -> [UInt8] {
        var result: [UInt8] = []
        for s in segments {
            switch s {
            case .bytes(let b): result.append(contentsOf: b)
            case .range(let o, let l):
                guard let source else {
                    throw ParseError(.unwritable, offset: o, "a file-range payload needs its source to be written")
                }
                let chunk = try source.read(at: o, count: try Checked.int(l))
                guard UInt64(chunk.count) == l else {
                    throw ParseError(.truncated, offset: o, "source ended while copying \(l) bytes")
                }
                result.append(contentsOf: chunk)
            }
        }
        return result
    }
}

extension ISOFile {
    /// Serializes the file: top-level boxes, then the tail.
    public func segments() -> [SegmentList.Segment] {
        var out = SegmentList()
        for b in boxes { b.write(to: &out) }
        switch tail {
        case .none: break
        case .raw(let b): out.append(b)
        case .fileRange(let o, let l): out.appendRange(offset: o, length: l)
        case .typed(let p): out.append(p.serialized())
        }
        return out.finish()
    }

    /// The whole file in memory (for small files and tests).
    public func serialized() throws(ParseError) -> [UInt8] {
        try checkWritable()
        return try SegmentList.materialize(segments(), source: source)
    }

    /// Writes the file to `path` atomically (temporary file in the same directory, then rename),
    /// streaming file-range payloads from the source in bounded chunks.
    public func write(to path: String, progress: ((UInt64, UInt64) -> Void)? = nil) throws(ParseError) {
        try checkWritable()
        let segs = segments()
        try AtomicFile.write(path: path) { (out: AtomicFile) throws(ParseError) in
            try AtomicFile.writeSegments(segs, to: out, source: source, progress: progress)
        }
    }
}

extension AtomicFile {
    /// Writes segments, copying ranges from `source` in 8 MiB chunks.
    public static func writeSegments(
        _ segments: [SegmentList.Segment], to out: AtomicFile, source: any ByteSource,
        progress: ((UInt64, UInt64) -> Void)? = nil
    ) throws(ParseError) {
        var total: UInt64 = 0
        for s in segments {
            switch s {
            case .bytes(let b): total += UInt64(b.count)
            case .range(_, let l): total += l
            }
        }
        var done: UInt64 = 0
        for s in segments {
            switch s {
            case .bytes(let b):
                try out.write(b)
                done += UInt64(b.count)
            case .range(let o, let l):
                var copied: UInt64 = 0
                while copied < l {
                    let n = Int(min(l - copied, 8 << 20))
                    let chunk = try source.read(at: o + copied, count: n)
                    guard chunk.count == n else {
                        throw ParseError(.truncated, offset: o + copied, "source ended while copying")
                    }
                    try out.write(chunk)
                    copied += UInt64(n)
                    done += UInt64(n)
                    progress?(done, total)
                }
            }
        }
        progress?(done, total)
    }
}
