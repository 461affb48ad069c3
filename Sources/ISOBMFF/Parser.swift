import BinaryIO

extension ParseError.Code {
    /// A modelled payload did not write back identically; its bytes were kept raw instead.
    public static let roundTripMismatch = ParseError.Code(rawValue: "round-trip-mismatch")
    /// Bytes after the last child box that do not form a box.
    public static let trailingBytes = ParseError.Code(rawValue: "trailing-bytes")
}

/// Reads box trees from bytes.
public struct BoxParser: Sendable {
    public var registry: BoxRegistry
    public var limits: Limits

    public init(registry: BoxRegistry = .standard, limits: Limits = .default) {
        self.registry = registry
        self.limits = limits
    }

    /// Parses a sequence of boxes filling `bytes` (used for in-memory buffers and tests).
    public func parseBoxes(_ bytes: [UInt8], baseOffset: UInt64 = 0, parents: [FourCC] = []) -> (
        boxes: [Box], trailing: [UInt8], diagnostics: [Diagnostic]
    ) {
        var r = ByteReader(bytes, baseOffset: baseOffset)
        var ctx = ParseContext(limits: limits)
        ctx.parents = parents
        ctx.path = parents.map(\.description).joined(separator: "/")
        var diags: [Diagnostic] = []
        let (boxes, trailing) = parseChildren(&r, context: &ctx, diagnostics: &diags, topLevel: parents.isEmpty)
        return (boxes, trailing, diags)
    }

    /// Reads the header at the reader's position. On return the reader is positioned after it.
    /// `available` is the number of bytes the box may occupy (the rest of its parent or file).
    static func readHeader(_ r: inout ByteReader, available: UInt64, topLevel: Bool) throws(ParseError) -> BoxHeader {
        let start = r.absoluteOffset
        let size32 = try r.readU32()
        let type = try r.readFourCC()
        var header = BoxHeader(type: type, offset: start)
        switch size32 {
        case 1:
            header.form = .large
            header.size = try r.readU64()
        case 0:
            guard topLevel else {
                throw ParseError(
                    .sizeZeroNotTopLevel, offset: start, "box '\(type)' has size 0 (to end of file) below the top level"
                )
            }
            header.form = .toEnd
            header.size = available
        default:
            header.size = UInt64(size32)
        }
        if type == "uuid" { header.userType = try r.readBytes(16) }
        if header.size < UInt64(header.length) {
            throw ParseError(
                .sizeTooSmall, offset: start,
                "box '\(type)' declares \(header.size) bytes, smaller than its \(header.length)-byte header")
        }
        if header.size > available {
            throw ParseError(
                .sizePastParent, offset: start,
                "box '\(type)' declares \(header.size) bytes but only \(available) remain in its parent")
        }
        return header
    }

    func parseChildren(
        _ r: inout ByteReader, context ctx: inout ParseContext, diagnostics: inout [Diagnostic], topLevel: Bool = false
    ) -> ([Box], [UInt8]) {
        var boxes: [Box] = []
        var seen: [FourCC: Int] = [:]
        let parentPath = ctx.path
        while r.remaining > 0 {
            if r.remaining < 8 {
                let rest = r.readRemaining()
                if rest.contains(where: { $0 != 0 }) {
                    diagnostics.append(
                        Diagnostic(
                            code: .trailingBytes, offset: r.absoluteOffset - UInt64(rest.count), path: parentPath,
                            message: "\(rest.count) bytes after the last child box do not form a box"))
                }
                return (boxes, rest)
            }
            if boxes.count >= ctx.limits.maxChildrenPerBox {
                let off = r.absoluteOffset
                diagnostics.append(
                    Diagnostic(
                        code: .limitExceeded, offset: off, path: parentPath,
                        message: "maxChildrenPerBox limit exceeded: more than \(ctx.limits.maxChildrenPerBox) children")
                )
                return (boxes, r.readRemaining())
            }
            let boxStart = r.position
            var hr = r
            let header: BoxHeader
            do {
                header = try Self.readHeader(&hr, available: UInt64(r.remaining), topLevel: topLevel)
            } catch {
                diagnostics.append(
                    Diagnostic(error.withPath(parentPath.isEmpty ? "(top level)" : parentPath), at: r.absoluteOffset))
                return (boxes, r.readRemaining())
            }
            let size = Int(header.size)  // ≤ remaining, so fits
            guard let boxReader = try? r.slice(size) else { return (boxes, r.readRemaining()) }
            let index = seen[header.type, default: 0]
            seen[header.type] = index + 1
            let name = (index > 0 || header.type == "trak") ? "\(header.type)[\(index)]" : header.type.description
            let path = parentPath.isEmpty ? name : parentPath + "/" + name
            var br = boxReader
            _ = boxStart
            boxes.append(parseBox(header: header, reader: &br, path: path, context: &ctx))
        }
        return (boxes, [])
    }

    /// Parses one box whose header has been read; `reader` covers the whole box (header included)
    /// and is positioned at the start of the box.
    func parseBox(header: BoxHeader, reader r: inout ByteReader, path: String, context ctx: inout ParseContext) -> Box {
        var box = Box(type: header.type)
        box.header = header
        box.path = path
        do { try r.skip(header.length) } catch {
            box.malformed = Diagnostic(error.withPath(path), at: header.offset); return box
        }

        if ctx.depth >= ctx.limits.maxBoxDepth {
            box.fields = .raw(r.readRemaining())
            box.malformed = Diagnostic(
                code: .limitExceeded, offset: header.offset, path: path,
                message: "maxBoxDepth limit exceeded: nesting deeper than \(ctx.limits.maxBoxDepth)")
            return box
        }
        let codec: BoxCodec?
        if let ut = header.userType {
            codec = registry.uuidCodec(for: ut)
        } else {
            codec = registry.codec(for: header.type, parent: ctx.parent, context: ctx)
        }
        guard let codec else {
            box.fields = .raw(r.readRemaining())
            return box
        }
        let savedPath = ctx.path
        let savedHandler = ctx.handler
        let savedVersion = ctx.parentVersion
        defer { ctx.path = savedPath; ctx.parents.removeLast(); ctx.parentVersion = savedVersion }
        ctx.path = path
        ctx.parents.append(header.type)
        if header.type == "trak" || header.type == "meta" { ctx.handler = nil }

        let payloadStart = r.position
        var diags: [Diagnostic] = []
        switch codec.layout {
        case .raw:
            box.fields = .raw(r.readRemaining())
        case .container:
            let (children, trailing) = parseChildren(&r, context: &ctx, diagnostics: &diags)
            box.children = children
            box.trailing = trailing
        case .fields(let parse), .fieldsThenChildren(let parse):
            var fr = r
            do {
                let payload = try parse(&fr, &ctx)
                // Contract: an unmodified payload writes back exactly the bytes it was read from.
                let written = payload.serialized()
                let original = r.storage[payloadStart..<fr.position]
                if written.count != original.count || !written.elementsEqual(original) {
                    box.fields = .raw(r.readRemaining())
                    box.malformed = Diagnostic(
                        code: .roundTripMismatch, offset: header.offset, path: path,
                        message: "the \(codec.name) codec did not reproduce the original bytes; kept raw")
                    break
                }
                box.fields = .typed(payload)
                r = fr
                if case .fieldsThenChildren = codec.layout {
                    if let v = payload.versionForChildren { ctx.parentVersion = v }
                    let (children, trailing) = parseChildren(&r, context: &ctx, diagnostics: &diags)
                    box.children = children
                    box.trailing = trailing
                } else if r.remaining > 0 {
                    box.trailing = r.readRemaining()
                    if box.trailing.contains(where: { $0 != 0 }) {
                        diags.append(
                            Diagnostic(
                                code: .trailingBytes, offset: r.absoluteOffset - UInt64(box.trailing.count), path: path,
                                message: "\(box.trailing.count) bytes after the \(codec.name) fields"))
                    }
                }
            } catch {
                r = ByteReader(Array(r.storage[payloadStart..<r.end]), baseOffset: r.baseOffset + UInt64(payloadStart))
                box.fields = .raw(r.readRemaining())
                box.children = nil
                box.malformed = Diagnostic(error.withPath(path), at: header.offset)
            }
        }
        box.diagnostics = diags
        // A track's handler is known once its hdlr has been read; keep it for sample entries.
        // QuickTime also puts a data-handler `hdlr` ('alis'/'url ') in `minf`; it does not describe the media.
        if header.type == "hdlr", ctx.parents.dropLast().last != "minf", let h = box.payload(HandlerBox.self) {
            ctx.handler = h.handlerType; return box
        }
        if header.type == "mdia" || header.type == "trak" { ctx.handler = savedHandler }
        return box
    }
}

/// Payloads that begin with a FullBox version/flags expose them through this protocol.
public protocol FullBoxCarrying {
    var fullBox: FullBoxHeader { get }
}
