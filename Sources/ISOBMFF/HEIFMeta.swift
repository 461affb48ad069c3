import BinaryIO

/// A read-only view of a HEIF `meta` box: items, locations, properties, references and groups.
public struct HEIFMeta: Sendable {
    public struct Item: Sendable {
        public var id: UInt32
        public var type: FourCC
        public var name: String
        public var contentType: String?
        public var hidden: Bool
    }
    public struct Group: Sendable {
        public var type: FourCC
        public var id: UInt32
        public var entityIDs: [UInt32]
    }

    public let meta: Box
    public init?(_ meta: Box?) { guard let meta, meta.type == "meta" else { return nil }; self.meta = meta }

    public var handler: FourCC? { meta.child("hdlr")?.payload(HandlerBox.self)?.handlerType }
    public var primaryItemID: UInt32? { meta.child("pitm")?.payload(PrimaryItemBox.self)?.itemID }
    public var items: [Item] {
        (meta.child("iinf")?.children ?? []).compactMap { b in
            guard let e = b.payload(ItemInfoEntry.self) else { return nil }
            return Item(
                id: e.itemID, type: e.itemType ?? "----", name: e.itemName.value, contentType: e.contentType?.value,
                hidden: e.hidden)
        }
    }
    public var location: ItemLocationBox? { meta.child("iloc")?.payload() }
    /// The property boxes in `ipco`, in order (index 1 is the first).
    public var properties: [Box] { meta.find("iprp", "ipco")?.children ?? [] }
    /// Property boxes associated with `item`, in association order, with the essential flag.
    public func properties(of item: UInt32) -> [(box: Box, essential: Bool)] {
        let props = properties
        var out: [(Box, Bool)] = []
        for ipma in meta.child("iprp")?.children("ipma") ?? [] {
            guard let p = ipma.payload(ItemPropertyAssociationBox.self) else { continue }
            for e in p.entries where e.itemID == item {
                for a in e.associations where a.propertyIndex >= 1 && Int(a.propertyIndex) <= props.count {
                    out.append((props[Int(a.propertyIndex) - 1], a.essential))
                }
            }
        }
        return out
    }
    /// References of `type` from `item`.
    public func references(from item: UInt32, type: FourCC) -> [UInt32] {
        (meta.child("iref")?.children(type) ?? []).compactMap { $0.payload(ItemReferenceBox.self) }
            .filter { $0.fromItemID == item }.flatMap(\.toItemIDs)
    }
    /// All references as (type, from, to).
    public var allReferences: [(type: FourCC, from: UInt32, to: [UInt32])] {
        (meta.child("iref")?.children ?? []).compactMap { b in
            b.payload(ItemReferenceBox.self).map { (b.type, $0.fromItemID, $0.toItemIDs) }
        }
    }
    /// Entity groups in `grpl`.
    public var groups: [Group] {
        (meta.child("grpl")?.children ?? []).compactMap { b in
            b.payload(EntityToGroupBox.self).map { Group(type: b.type, id: $0.groupID, entityIDs: $0.entityIDs) }
        }
    }
    /// `ispe` of an item.
    public func size(of item: UInt32) -> (width: UInt32, height: UInt32)? {
        for (b, _) in properties(of: item) {
            if let s = b.payload(ImageSpatialExtentsProperty.self) { return (s.width, s.height) }
        }
        return nil
    }

    /// Checks item references: every id must name an item, and `dimg`/`auxl`/`thmb` chains must not
    /// loop. Returns the first problem as an error.
    public func checkReferences() -> ParseError? {
        let ids = Set(items.map(\.id))
        let offset = meta.child("iref")?.header.offset ?? meta.header.offset
        var edges: [UInt32: [UInt32]] = [:]
        for (type, from, to) in allReferences {
            for id in [from] + to where !ids.contains(id) {
                return ParseError(
                    .danglingReference, offset: offset, path: meta.path + "/iref/\(type)",
                    "reference \(type) names item \(id), which does not exist")
            }
            edges[from, default: []] += to
        }
        // Cycle detection (iterative DFS with colours).
        var colour: [UInt32: Int] = [:]
        for start in edges.keys.sorted() where colour[start] == nil {
            var stack: [(UInt32, Int)] = [(start, 0)]
            colour[start] = 1
            while let (node, i) = stack.last {
                let next = edges[node] ?? []
                if i < next.count {
                    stack[stack.count - 1].1 += 1
                    let n = next[i]
                    if colour[n] == 1 {
                        return ParseError(
                            .cyclicReference, offset: offset, path: meta.path + "/iref",
                            "item references form a cycle through item \(n)")
                    }
                    if colour[n] == nil { colour[n] = 1; stack.append((n, 0)) }
                } else {
                    colour[node] = 2
                    stack.removeLast()
                }
            }
        }
        return nil
    }

    /// Reads an item's bytes from its `iloc` extents: construction method 0 reads the file,
    /// 1 reads the `idat` box. Extents outside the file or `idat` are errors.
    public func data(of item: UInt32, file: ISOFile, limits: Limits = .default) throws(ParseError) -> [UInt8] {
        guard let iloc = location, let loc = iloc.item(item) else {
            throw ParseError(
                .danglingReference, offset: meta.header.offset, path: meta.path + "/iloc",
                "item \(item) has no location")
        }
        let ilocPath = meta.path + "/iloc"
        let ilocOffset = meta.child("iloc")?.header.offset ?? 0
        var total: UInt64 = 0
        for e in loc.extents { total = try Checked.add(total, e.length, offset: ilocOffset) }
        guard total <= limits.maxBoxInMemory else {
            throw ParseError(
                .limitExceeded, offset: ilocOffset, path: ilocPath,
                "item \(item) is \(total) bytes, over maxBoxInMemory")
        }
        // The extents' lengths are read from the file: never reserve more than the bytes that exist
        // (overlapping extents may legitimately add up to more, so this only bounds the reservation).
        let available: UInt64
        switch loc.constructionMethod {
        case 1:
            if case .raw(let idat)? = meta.child("idat")?.fields {
                available = UInt64(idat.count)
            } else {
                available = 0
            }
        default: available = file.source.size
        }
        if loc.extents.count == 1, let only = loc.extents.first, only.length > available {
            throw ParseError(
                .sizePastParent, offset: ilocOffset, path: ilocPath,
                "item \(item) is \(only.length) bytes but only \(available) exist")
        }
        var out: [UInt8] = []
        out.reserveCapacity(Int(min(total, available)))
        switch loc.constructionMethod {
        case 0:
            for e in loc.extents {
                let start = try Checked.add(loc.baseOffset, e.offset, offset: ilocOffset)
                var len = e.length
                if len == 0 && loc.extents.count == 1 { len = file.source.size > start ? file.source.size - start : 0 }
                do { out += try file.readBytes(at: start, count: try Checked.int(len)) } catch {
                    throw ParseError(
                        .sizePastParent, offset: ilocOffset, path: ilocPath,
                        "item \(item) extent \(start)+\(len) lies outside the file")
                }
            }
        case 1:
            guard case .raw(let idat)? = meta.child("idat")?.fields else {
                throw ParseError(
                    .danglingReference, offset: ilocOffset, path: ilocPath,
                    "item \(item) uses construction method 1 but there is no idat")
            }
            for e in loc.extents {
                let start = try Checked.add(loc.baseOffset, e.offset, offset: ilocOffset)
                let end = try Checked.add(start, e.length, offset: ilocOffset)
                guard end <= UInt64(idat.count) else {
                    throw ParseError(
                        .sizePastParent, offset: ilocOffset, path: ilocPath,
                        "item \(item) extent \(start)+\(e.length) lies outside idat (\(idat.count) bytes)")
                }
                out += idat[Int(start)..<Int(end)]
            }
        default:
            throw ParseError(
                .unsupported, offset: ilocOffset, path: ilocPath,
                "item \(item) uses construction method \(loc.constructionMethod)")
        }
        return out
    }
}

extension ISOFile {
    /// The top-level HEIF `meta` box as an item view, if present.
    public var heif: HEIFMeta? { HEIFMeta(box("meta")) }
}
