import BinaryIO

/// A parsed ISOBMFF / QuickTime / HEIF file: its top-level boxes and any bytes after them.
///
/// Only metadata boxes are read into memory; `mdat` (and any top-level box larger than the
/// limits allow, or a large `free`/unknown box) is kept as a file range and streamed when written.
public struct ISOFile: Sendable {
    public var boxes: [Box]
    /// Bytes at the end of the file that do not form a complete box (a truncated box, garbage).
    /// Kept verbatim: as bytes, or as a file range when large.
    public var tail: BoxFields
    /// File-level problems (truncated final box, trailing garbage).
    public var diagnostics: [Diagnostic]
    /// Where the bytes came from (needed to write file-range payloads).
    public let source: any ByteSource

    /// Box types that commonly start a file.
    public static let knownTopLevel: Set<FourCC> = [
        "ftyp", "styp", "moov", "mdat", "free", "skip", "wide", "meta", "moof", "sidx", "uuid", "pnot", "jP  ", "emsg",
        "prft", "mfra",
    ]

    /// Top-level boxes above this size are referenced by range unless they need parsing.
    public static let inMemoryThreshold: UInt64 = 1 << 20

    /// Opens and parses the file at `path`.
    public static func open(path: String, registry: BoxRegistry = .standard, limits: Limits = .default)
        throws(ParseError) -> ISOFile
    {
        let src = try FileSource(path: path)
        do {
            return try parse(source: src, registry: registry, limits: limits)
        } catch {
            var e = error
            if e.path.isEmpty { e.path = "(top level)" }
            throw e
        }
    }

    /// Parses the boxes of `source`. Throws only when the input cannot be an ISOBMFF file at all
    /// (empty, or its first bytes are not a box header); every other problem becomes a diagnostic.
    public static func parse(source: any ByteSource, registry: BoxRegistry = .standard, limits: Limits = .default)
        throws(ParseError) -> ISOFile
    {
        let fileSize = source.size
        if fileSize == 0 { throw ParseError(.truncated, offset: 0, path: "(top level)", "empty file") }
        let first = try source.read(at: 0, count: 8)
        guard first.count == 8, first[4..<8].allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw ParseError(
                .notRecognised, offset: 0, path: "(top level)",
                "not an ISOBMFF/QuickTime/HEIF file (no box header at offset 0)")
        }
        // A well-known first box type is accepted even when damaged; any other type must have a plausible size.
        let firstType = FourCC(
            UInt32(first[4]) << 24 | UInt32(first[5]) << 16 | UInt32(first[6]) << 8 | UInt32(first[7]))
        let firstSize = UInt64(first[0]) << 24 | UInt64(first[1]) << 16 | UInt64(first[2]) << 8 | UInt64(first[3])
        if !ISOFile.knownTopLevel.contains(firstType) && firstSize != 1 && (firstSize < 8 || firstSize > fileSize) {
            throw ParseError(
                .notRecognised, offset: 0, path: "(top level)",
                "not an ISOBMFF/QuickTime/HEIF file (no plausible box header at offset 0)")
        }
        let parser = BoxParser(registry: registry, limits: limits)
        var ctx = ParseContext(limits: limits)
        var boxes: [Box] = []
        var diags: [Diagnostic] = []
        var tail: BoxFields = .none
        var offset: UInt64 = 0
        var seen: [FourCC: Int] = [:]
        while offset < fileSize {
            let available = fileSize - offset
            if boxes.count >= limits.maxChildrenPerBox {
                diags.append(
                    Diagnostic(
                        code: .limitExceeded, offset: offset, path: "(top level)",
                        message: "maxChildrenPerBox limit exceeded at top level"))
                tail = try keep(source, offset, available)
                break
            }
            let headBytes = try source.read(at: offset, count: Int(min(available, 32)))
            var hr = ByteReader(headBytes, baseOffset: offset)
            let header: BoxHeader
            do {
                header = try BoxParser.readHeader(&hr, available: available, topLevel: true)
            } catch {
                diags.append(Diagnostic(error.withPath("(top level)"), at: offset))
                tail = try keep(source, offset, available)
                break
            }
            let index = seen[header.type, default: 0]
            seen[header.type] = index + 1
            let path = index > 0 ? "\(header.type)[\(index)]" : header.type.description
            let payloadOffset = offset + UInt64(header.length)
            let payloadLength = header.size - UInt64(header.length)
            let isOpaque =
                header.type == "mdat" || header.type == "free" || header.type == "skip" || header.type == "wide"
                || (header.userType == nil && registry.codec(for: header.type, parent: nil, context: ctx) == nil)
            if (isOpaque && header.size > inMemoryThreshold) || header.type == "mdat" && payloadLength > 0 {
                var box = Box(type: header.type)
                box.header = header
                box.path = path
                box.fields = .fileRange(offset: payloadOffset, length: payloadLength)
                boxes.append(box)
            } else if header.size > limits.maxBoxInMemory || ctx.allocated + header.size > limits.maxTotalAllocation {
                var box = Box(type: header.type)
                box.header = header
                box.path = path
                box.fields = .fileRange(offset: payloadOffset, length: payloadLength)
                let which =
                    header.size > limits.maxBoxInMemory
                    ? "maxBoxInMemory limit exceeded: box of \(header.size) bytes > \(limits.maxBoxInMemory)"
                    : "maxTotalAllocation limit exceeded: \(ctx.allocated) + \(header.size) bytes > \(limits.maxTotalAllocation)"
                box.malformed = Diagnostic(
                    code: .limitExceeded, offset: offset, path: path, message: which + "; kept unparsed")
                boxes.append(box)
            } else {
                let bytes = try source.read(at: offset, count: Int(header.size))
                ctx.allocated += header.size
                var r = ByteReader(bytes, baseOffset: offset)
                boxes.append(parser.parseBox(header: header, reader: &r, path: path, context: &ctx))
            }
            offset += header.size
        }
        return ISOFile(boxes: boxes, tail: tail, diagnostics: diags, source: source)
    }

    static func keep(_ source: any ByteSource, _ offset: UInt64, _ length: UInt64) throws(ParseError) -> BoxFields {
        if length > inMemoryThreshold { return .fileRange(offset: offset, length: length) }
        return .raw(try source.read(at: offset, count: Int(length)))
    }

    public init(boxes: [Box], tail: BoxFields = .none, diagnostics: [Diagnostic] = [], source: any ByteSource) {
        self.boxes = boxes
        self.tail = tail
        self.diagnostics = diagnostics
        self.source = source
    }

    /// The first top-level box of `type`.
    public func box(_ type: FourCC) -> Box? { boxes.first { $0.header.type == type } }
    /// Follows types from the top level: `file.find("moov", "mvhd")`.
    public func find(_ types: FourCC...) -> Box? {
        guard let first = types.first, let b = box(first) else { return nil }
        return b.find(Array(types.dropFirst()))
    }
    /// Every diagnostic in the file and its boxes.
    public var allDiagnostics: [Diagnostic] { diagnostics + boxes.flatMap { $0.allDiagnostics() } }
}
