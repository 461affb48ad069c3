import BinaryIO

/// Builds a HEIF file from an item model: every item's bytes, properties, references and groups.
///
/// Layout written: `ftyp`, `meta` (`hdlr`, `pitm`, `iinf`, `iloc` version 1, `iref`, `iprp`, `idat`
/// when any item uses it, `grpl` when there are groups), then one `mdat` with the file-stored items in
/// item order. Offsets are computed after the `meta` size is known (the iloc offset width is chosen to fit).
public struct HEIFBuilder: Sendable {
    public struct Item: Sendable {
        public var id: UInt32
        public var type: FourCC
        public var name: String
        public var hidden: Bool
        public var contentType: String?
        /// The item's bytes.
        public var data: [UInt8]
        /// Store in `idat` (construction method 1) instead of `mdat`: used for small derived-image
        /// descriptors such as grids.
        public var inIdat: Bool
        /// Associated properties: the property box and whether it is essential.
        public var properties: [(box: Box, essential: Bool)]
        public init(
            id: UInt32, type: FourCC, name: String = "", hidden: Bool = false, contentType: String? = nil,
            data: [UInt8],
            inIdat: Bool = false, properties: [(box: Box, essential: Bool)] = []
        ) {
            self.id = id; self.type = type; self.name = name; self.hidden = hidden; self.contentType = contentType
            self.data = data; self.inIdat = inIdat; self.properties = properties
        }
    }
    public struct Reference: Sendable {
        public var type: FourCC
        public var from: UInt32
        public var to: [UInt32]
        public init(type: FourCC, from: UInt32, to: [UInt32]) { self.type = type; self.from = from; self.to = to }
    }

    public var ftyp: Box
    public var items: [Item] = []
    public var references: [Reference] = []
    public var groups: [(type: FourCC, id: UInt32, entities: [UInt32])] = []
    public var primaryItemID: UInt32
    /// Extra top-level boxes written between `meta` and `mdat` (kept from a source file).
    public var extraTopLevel: [Box] = []

    public init(brands: [FourCC] = ["mif1", "heic"], majorBrand: FourCC = "heic", primaryItemID: UInt32) {
        ftyp = Box(FileTypeBox(majorBrand: majorBrand, minorVersion: 0, compatibleBrands: brands), type: "ftyp")
        self.primaryItemID = primaryItemID
    }

    /// Checks ids and references before writing.
    func validate() throws(ParseError) {
        var ids = Set<UInt32>()
        for it in items {
            guard it.id != 0 else { throw ParseError(.invalidValue, path: "meta/iinf", "item id 0 is reserved") }
            guard ids.insert(it.id).inserted else {
                throw ParseError(.invalidValue, path: "meta/iinf", "item id \(it.id) is used twice")
            }
        }
        for g in groups where ids.contains(g.id) {
            throw ParseError(.invalidValue, path: "meta/grpl", "group id \(g.id) collides with an item id")
        }
        guard ids.contains(primaryItemID) else {
            throw ParseError(.danglingReference, path: "meta/pitm", "primary item \(primaryItemID) does not exist")
        }
        for r in references {
            for id in [r.from] + r.to where !ids.contains(id) {
                throw ParseError(
                    .danglingReference, path: "meta/iref/\(r.type)", "reference names item \(id), which does not exist")
            }
        }
    }

    /// Serializes the file.
    public func build() throws(ParseError) -> [UInt8] {
        try validate()
        // Properties: one ipco entry per distinct serialized property (identical boxes are shared).
        var ipco: [Box] = []
        var indexOf: [[UInt8]: UInt16] = [:]
        var ipmaEntries: [ItemPropertyAssociationBox.Entry] = []
        for it in items {
            var assoc: [ItemPropertyAssociationBox.Association] = []
            for (box, essential) in it.properties {
                let bytes = try box.serialized()
                let index: UInt16
                if let i = indexOf[bytes] {
                    index = i
                } else {
                    ipco.append(box)
                    index = UInt16(truncatingIfNeeded: ipco.count)
                    indexOf[bytes] = index
                }
                assoc.append(.init(essential: essential, propertyIndex: index))
            }
            if !assoc.isEmpty { ipmaEntries.append(.init(itemID: it.id, associations: assoc)) }
        }
        let wideIDs = items.contains { $0.id > 0xFFFF }
        let largeIndex = ipco.count > 127
        let ipma = Box(
            ItemPropertyAssociationBox(version: wideIDs ? 1 : 0, largeIndices: largeIndex, entries: ipmaEntries),
            type: "ipma")
        let iprp = Box(type: "iprp", children: [Box(type: "ipco", children: ipco), ipma])

        var infes: [Box] = []
        for it in items {
            infes.append(
                Box(
                    ItemInfoEntry(
                        itemID: it.id, itemType: it.type, name: it.name, hidden: it.hidden,
                        contentType: it.contentType),
                    type: "infe"))
        }
        let iinf = Box(ItemInfoHeader(entryCount: UInt32(items.count)), type: "iinf", children: infes)
        var irefChildren: [Box] = []
        for r in references {
            irefChildren.append(Box(ItemReferenceBox(wide: wideIDs, from: r.from, to: r.to), type: r.type))
        }
        var idat: [UInt8] = []
        var idatOffsets: [UInt32: UInt64] = [:]
        for it in items where it.inIdat { idatOffsets[it.id] = UInt64(idat.count); idat += it.data }

        let hdlr = Box(HandlerBox(handlerType: "pict", name: ""), type: "hdlr")
        let pitm = Box(PrimaryItemBox(itemID: primaryItemID), type: "pitm")

        func metaBox(offsets: [UInt32: UInt64], offsetSize: UInt8) -> Box {
            var locs: [ItemLocationBox.Item] = []
            for it in items {
                if it.inIdat {
                    locs.append(
                        .init(
                            itemID: it.id, constructionMethod: 1,
                            extents: [.init(offset: idatOffsets[it.id] ?? 0, length: UInt64(it.data.count))]))
                } else {
                    locs.append(
                        .init(
                            itemID: it.id, constructionMethod: 0,
                            extents: [.init(offset: offsets[it.id] ?? 0, length: UInt64(it.data.count))]))
                }
            }
            let lengthSize: UInt8 = items.contains { $0.data.count > Int(UInt32.max) } ? 8 : 4
            let iloc = Box(
                ItemLocationBox(version: wideIDs ? 2 : 1, offsetSize: offsetSize, lengthSize: lengthSize, items: locs),
                type: "iloc")
            var children = [hdlr, pitm, iinf, iloc]
            let iref = ItemReferenceBoxHeader(FullBoxHeader(version: wideIDs ? 1 : 0))
            if !irefChildren.isEmpty { children.append(Box(iref, type: "iref", children: irefChildren)) }
            children.append(iprp)
            if !idat.isEmpty { children.append(Box(type: "idat", fields: .raw(idat))) }
            if !groups.isEmpty {
                children.append(
                    Box(
                        type: "grpl",
                        children: groups.map {
                            Box(EntityToGroupBox(groupID: $0.id, entityIDs: $0.entities), type: $0.type)
                        }))
            }
            return Box(MetaBoxHeader(isoFullBox: FullBoxHeader()), type: "meta", children: children)
        }

        let fileStored = items.filter { !$0.inIdat }
        let payload = fileStored.reduce(UInt64(0)) { $0 + UInt64($1.data.count) }
        let mdatLarge = payload + 8 > UInt64(UInt32.max)
        let ftypSize = ftyp.encodedSize()
        let extraSize = extraTopLevel.reduce(UInt64(0)) { $0 + $1.encodedSize() }
        // Two passes: sizes do not depend on offset values once the offset width is fixed.
        var offsetSize: UInt8 = 4
        var meta = metaBox(offsets: [:], offsetSize: offsetSize)
        var dataStart = ftypSize + meta.encodedSize() + extraSize + (mdatLarge ? 16 : 8)
        if dataStart + payload > UInt64(UInt32.max) {
            offsetSize = 8
            meta = metaBox(offsets: [:], offsetSize: offsetSize)
            dataStart = ftypSize + meta.encodedSize() + extraSize + (mdatLarge ? 16 : 8)
        }
        var offsets: [UInt32: UInt64] = [:]
        var cursor = dataStart
        for it in fileStored { offsets[it.id] = cursor; cursor += UInt64(it.data.count) }
        meta = metaBox(offsets: offsets, offsetSize: offsetSize)

        var out = SegmentList()
        ftyp.write(to: &out)
        meta.write(to: &out)
        for b in extraTopLevel { b.write(to: &out) }
        var mdat = Box(type: "mdat", fields: .raw([]))
        if mdatLarge { mdat.header.form = .large }
        out.append(mdat.headerBytes(payload: payload))
        for it in fileStored { out.append(it.data) }
        let bytes = try SegmentList.materialize(out.finish(), source: nil)
        guard UInt64(bytes.count) == cursor else {
            throw ParseError(.unwritable, "internal layout error: \(bytes.count) bytes written, \(cursor) planned")
        }
        return bytes
    }
}

/// Replaces a HEIF file's top-level `meta` and patches every `iloc` offset that points past it, so that
/// item bytes (in `mdat` or elsewhere) stay where they are relative to everything else and untouched.
public enum HEIFLayout {
    /// Returns `file` with `newMeta` in place of its top-level `meta`. `newMeta`'s `iloc` must describe
    /// the items with offsets valid for the *old* layout; they are shifted here. Extents before the old
    /// meta's end are not moved. The offset field is widened to 8 bytes if a shifted value needs it.
    public static func replaceMeta(in file: ISOFile, with newMeta: Box) throws(ParseError) -> ISOFile {
        guard let index = file.boxes.firstIndex(where: { $0.type == "meta" }) else {
            throw ParseError(.unsupported, path: "(top level)", "no top-level meta box")
        }
        let old = file.boxes[index]
        let oldEnd = old.header.offset + old.header.size
        var wide = false
        for _ in 0..<2 {
            var candidate = newMeta
            if wide { widenIloc(in: &candidate) }
            // Shifting changes values, not sizes, so the delta is known before patching.
            let delta = Int64(bitPattern: candidate.encodedSize()) - Int64(bitPattern: old.header.size)
            let needsWide = try shiftIloc(in: &candidate, after: oldEnd, by: delta)
            if needsWide && !wide { wide = true; continue }
            var out = file
            out.boxes[index] = candidate
            return out
        }
        throw ParseError(.unwritable, offset: old.header.offset, path: "meta", "item locations did not settle")
    }

    static func widenIloc(in meta: inout Box) {
        guard var children = meta.children, let i = children.firstIndex(where: { $0.type == "iloc" }),
            var iloc = children[i].payload(ItemLocationBox.self)
        else { return }
        iloc.offsetSize = 8
        if iloc.baseOffsetSize == 4 { iloc.baseOffsetSize = 8 }
        children[i].fields = .typed(iloc)
        meta.children = children
    }

    /// Shifts construction-method-0 offsets at or past `boundary`; returns true when a value no longer
    /// fits the current field width.
    static func shiftIloc(in meta: inout Box, after boundary: UInt64, by delta: Int64) throws(ParseError) -> Bool {
        guard var children = meta.children, let i = children.firstIndex(where: { $0.type == "iloc" }),
            var iloc = children[i].payload(ItemLocationBox.self)
        else { return false }
        var needWide = false
        func fits(_ v: UInt64, _ size: UInt8) -> Bool { size >= 8 || (size == 4 && v <= UInt64(UInt32.max)) || v == 0 }
        for k in iloc.items.indices where iloc.items[k].constructionMethod == 0 && iloc.items[k].dataReferenceIndex == 0
        {
            var item = iloc.items[k]
            if item.baseOffset > 0 && item.baseOffset >= boundary {
                item.baseOffset = try shifted(item.baseOffset, delta)
                if !fits(item.baseOffset, iloc.baseOffsetSize) { needWide = true }
            } else {
                for e in item.extents.indices {
                    let abs = try Checked.add(item.baseOffset, item.extents[e].offset)
                    if abs >= boundary {
                        item.extents[e].offset = try shifted(item.extents[e].offset, delta)
                        if !fits(item.extents[e].offset, iloc.offsetSize) { needWide = true }
                    }
                }
            }
            iloc.items[k] = item
        }
        children[i].fields = .typed(iloc)
        meta.children = children
        return needWide
    }

    static func shifted(_ v: UInt64, _ d: Int64) throws(ParseError) -> UInt64 {
        if d >= 0 { return try Checked.add(v, UInt64(d)) }
        return try Checked.sub(v, d.magnitude)
    }
}
