import BinaryIO
import SystemSupport

/// `pitm` PrimaryItemBox (ISO/IEC 14496-12 §8.11.4): 16-bit id in version 0, 32-bit in version 1.
public struct PrimaryItemBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var itemID: UInt32
    public init(itemID: UInt32) { fullBox = FullBoxHeader(version: itemID > 0xFFFF ? 1 : 0); self.itemID = itemID }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        itemID = fullBox.version == 0 ? UInt32(try r.readU16()) : try r.readU32()
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        if fullBox.version == 0 { w.writeU16(UInt16(truncatingIfNeeded: itemID)) } else { w.writeU32(itemID) }
    }
    public var summary: String { "item_ID=\(itemID)" }
    public var json: [(String, JSON)] { [("item_id", .uint(UInt64(itemID)))] }
}

/// `iinf` ItemInfoBox header (§8.11.6): FullBox + entry count (16-bit in v0, 32-bit otherwise);
/// the `infe` entries follow as children.
public struct ItemInfoHeader: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var entryCount: UInt32
    public init(entryCount: UInt32) {
        fullBox = FullBoxHeader(version: entryCount > 0xFFFF ? 1 : 0); self.entryCount = entryCount
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        entryCount = fullBox.version == 0 ? UInt32(try r.readU16()) : try r.readU32()
        try Limits.check(Int(entryCount), context.limits.maxItems, "maxItems", offset: r.absoluteOffset)
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        if fullBox.version == 0 { w.writeU16(UInt16(truncatingIfNeeded: entryCount)) } else { w.writeU32(entryCount) }
    }
    public var summary: String { "entry_count=\(entryCount)" }
}

/// A string field kept with its terminator state so it writes back exactly.
public struct StoredString: Sendable, Equatable {
    public var value: String
    public var bytes: [UInt8]
    public var terminated: Bool
    public init(_ value: String) { self.value = value; bytes = Array(value.utf8); terminated = true }
    init(reading r: inout ByteReader) {
        let start = r.position
        let (v, t) = r.readCString()
        value = v
        let end = t ? r.position - 1 : r.position
        bytes = Array(r.storage[start..<end])
        terminated = t
    }
    func write(to w: inout ByteWriter) { w.write(bytes); if terminated { w.writeU8(0) } }
}

/// `infe` ItemInfoEntry (§8.11.6), versions 0–3.
public struct ItemInfoEntry: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var itemID: UInt32
    public var protectionIndex: UInt16
    /// Versions ≥ 2; versions 0/1 have no type (treated as `mime`-less legacy items).
    public var itemType: FourCC?
    public var itemName: StoredString
    public var contentType: StoredString?
    public var contentEncoding: StoredString?
    public var itemURIType: StoredString?
    /// Version 1 extension or any other bytes after the modelled fields.
    public var extra: [UInt8]

    public init(itemID: UInt32, itemType: FourCC, name: String = "", hidden: Bool = false, contentType: String? = nil) {
        fullBox = FullBoxHeader(version: itemID > 0xFFFF ? 3 : 2, flags: hidden ? 1 : 0)
        self.itemID = itemID; protectionIndex = 0; self.itemType = itemType; itemName = StoredString(name)
        self.contentType = contentType.map(StoredString.init); contentEncoding = nil; itemURIType = nil; extra = []
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        contentType = nil; contentEncoding = nil; itemURIType = nil; itemType = nil
        if fullBox.version <= 1 {
            itemID = UInt32(try r.readU16()); protectionIndex = try r.readU16()
            itemName = StoredString(reading: &r)
            contentType = StoredString(reading: &r)
            if r.remaining > 0 && fullBox.version == 0 { contentEncoding = StoredString(reading: &r) }
        } else {
            itemID = fullBox.version == 2 ? UInt32(try r.readU16()) : try r.readU32()
            protectionIndex = try r.readU16()
            itemType = try r.readFourCC()
            itemName = StoredString(reading: &r)
            if itemType == "mime" {
                contentType = StoredString(reading: &r)
                if r.remaining > 0 { contentEncoding = StoredString(reading: &r) }
            } else if itemType == "uri " {
                itemURIType = StoredString(reading: &r)
            }
        }
        extra = r.readRemaining()
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        if fullBox.version <= 1 {
            w.writeU16(UInt16(truncatingIfNeeded: itemID)); w.writeU16(protectionIndex)
            itemName.write(to: &w); contentType?.write(to: &w); contentEncoding?.write(to: &w)
        } else {
            if fullBox.version == 2 { w.writeU16(UInt16(truncatingIfNeeded: itemID)) } else { w.writeU32(itemID) }
            w.writeU16(protectionIndex); w.writeFourCC(itemType ?? FourCC(0)); itemName.write(to: &w)
            contentType?.write(to: &w); contentEncoding?.write(to: &w); itemURIType?.write(to: &w)
        }
        w.write(extra)
    }
    /// Flag 1: the item is hidden (not meant to be displayed on its own).
    public var hidden: Bool { fullBox.flags & 1 != 0 }
    public var summary: String {
        "item_ID=\(itemID) type=\(itemType?.description ?? "-")"
            + (itemName.value.isEmpty ? "" : " name=\"\(itemName.value)\"")
            + (contentType.map { " content_type=\($0.value)" } ?? "") + (hidden ? " hidden" : "")
    }
    public var json: [(String, JSON)] {
        [
            ("item_id", .uint(UInt64(itemID))), ("item_type", .string(itemType?.description ?? "")),
            ("name", .string(itemName.value)), ("hidden", .bool(hidden)),
        ]
    }
}

/// `iloc` ItemLocationBox (§8.11.3), versions 0–2, every field width, construction methods 0–2.
public struct ItemLocationBox: BoxPayload, FullBoxCarrying, Equatable {
    public struct Extent: Sendable, Equatable {
        public var index: UInt64
        public var offset: UInt64
        public var length: UInt64
        public init(index: UInt64 = 0, offset: UInt64, length: UInt64) {
            self.index = index; self.offset = offset; self.length = length
        }
    }
    public struct Item: Sendable, Equatable {
        public var itemID: UInt32
        /// reserved(12) + construction_method(4), versions 1 and 2.
        public var constructionWord: UInt16
        public var dataReferenceIndex: UInt16
        public var baseOffset: UInt64
        public var extents: [Extent]
        public var constructionMethod: UInt8 { UInt8(constructionWord & 0xF) }
        public init(itemID: UInt32, constructionMethod: UInt8 = 0, baseOffset: UInt64 = 0, extents: [Extent]) {
            self.itemID = itemID; constructionWord = UInt16(constructionMethod & 0xF); dataReferenceIndex = 0
            self.baseOffset = baseOffset; self.extents = extents
        }
    }
    public var fullBox: FullBoxHeader
    public var offsetSize, lengthSize, baseOffsetSize: UInt8
    /// index_size in versions 1/2, the reserved nibble in version 0.
    public var indexSize: UInt8
    public var items: [Item]

    public init(
        version: UInt8 = 1, offsetSize: UInt8 = 4, lengthSize: UInt8 = 4, baseOffsetSize: UInt8 = 0,
        indexSize: UInt8 = 0, items: [Item]
    ) {
        fullBox = FullBoxHeader(version: version); self.offsetSize = offsetSize; self.lengthSize = lengthSize
        self.baseOffsetSize = baseOffsetSize; self.indexSize = indexSize; self.items = items
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        guard fullBox.version <= 2 else { throw r.fail(.unsupportedVersion, "iloc version \(fullBox.version)") }
        let a = try r.readU8(), b = try r.readU8()
        offsetSize = a >> 4; lengthSize = a & 0xF; baseOffsetSize = b >> 4; indexSize = b & 0xF
        for (name, s) in [
            ("offset_size", offsetSize), ("length_size", lengthSize), ("base_offset_size", baseOffsetSize),
        ] where ![0, 4, 8].contains(s) {
            throw r.fail(.invalidValue, "iloc \(name) \(s) is not 0, 4 or 8")
        }
        if fullBox.version > 0 && ![0, 4, 8].contains(indexSize) {
            throw r.fail(.invalidValue, "iloc index_size \(indexSize) is not 0, 4 or 8")
        }
        let count = fullBox.version < 2 ? UInt64(try r.readU16()) : UInt64(try r.readU32())
        let minItem = (fullBox.version < 2 ? 2 : 4) + (fullBox.version > 0 ? 2 : 0) + 2 + Int(baseOffsetSize) + 2
        let n = try checkTable(r, count: count, entrySize: minItem, "iloc", context)
        try Limits.check(n, context.limits.maxItems, "maxItems (iloc)", offset: r.absoluteOffset)
        items = []
        items.reserveCapacity(n)
        let perExtent = Int(offsetSize) + Int(lengthSize) + (fullBox.version > 0 ? Int(indexSize) : 0)
        for _ in 0..<n {
            let id = fullBox.version < 2 ? UInt32(try r.readU16()) : try r.readU32()
            let cw: UInt16 = fullBox.version > 0 ? try r.readU16() : 0
            let dri = try r.readU16()
            let base = try r.readUInt(byteCount: Int(baseOffsetSize))
            let ec = try r.readU16()
            let m = try checkTable(r, count: UInt64(ec), entrySize: perExtent, "iloc extents", context)
            try Limits.check(m, context.limits.maxExtentsPerItem, "maxExtentsPerItem", offset: r.absoluteOffset)
            var extents: [Extent] = []
            extents.reserveCapacity(m)
            for _ in 0..<m {
                let idx = fullBox.version > 0 && indexSize > 0 ? try r.readUInt(byteCount: Int(indexSize)) : 0
                let off = try r.readUInt(byteCount: Int(offsetSize))
                let len = try r.readUInt(byteCount: Int(lengthSize))
                extents.append(Extent(index: idx, offset: off, length: len))
            }
            items.append(
                Item(itemID: id, constructionWord: cw, dataReferenceIndex: dri, baseOffset: base, extents: extents))
        }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        w.writeU8(offsetSize << 4 | lengthSize & 0xF); w.writeU8(baseOffsetSize << 4 | indexSize & 0xF)
        if fullBox.version < 2 {
            w.writeU16(UInt16(truncatingIfNeeded: items.count))
        } else {
            w.writeU32(UInt32(truncatingIfNeeded: items.count))
        }
        for it in items {
            if fullBox.version < 2 { w.writeU16(UInt16(truncatingIfNeeded: it.itemID)) } else { w.writeU32(it.itemID) }
            if fullBox.version > 0 { w.writeU16(it.constructionWord) }
            w.writeU16(it.dataReferenceIndex); w.writeUInt(it.baseOffset, byteCount: Int(baseOffsetSize))
            w.writeU16(UInt16(truncatingIfNeeded: it.extents.count))
            for e in it.extents {
                if fullBox.version > 0 && indexSize > 0 { w.writeUInt(e.index, byteCount: Int(indexSize)) }
                w.writeUInt(e.offset, byteCount: Int(offsetSize)); w.writeUInt(e.length, byteCount: Int(lengthSize))
            }
        }
    }
    public func item(_ id: UInt32) -> Item? { items.first { $0.itemID == id } }
    public var summary: String {
        "v\(fullBox.version) sizes=\(offsetSize)/\(lengthSize)/\(baseOffsetSize)/\(indexSize) items=\(items.count)"
    }
    public var json: [(String, JSON)] {
        [("version", .uint(UInt64(fullBox.version))), ("item_count", .uint(UInt64(items.count)))]
    }
}

extension ItemLocationBox.Item {
    init(
        itemID: UInt32, constructionWord: UInt16, dataReferenceIndex: UInt16, baseOffset: UInt64,
        extents: [ItemLocationBox.Extent]
    ) {
        self.itemID = itemID; self.constructionWord = constructionWord; self.dataReferenceIndex = dataReferenceIndex
        self.baseOffset = baseOffset; self.extents = extents
    }
}

/// A SingleItemTypeReferenceBox inside `iref` (§8.11.12): from one item to others, with 16-bit ids
/// under `iref` version 0 and 32-bit ids under version 1. The box type is the reference type
/// (`dimg`, `thmb`, `cdsc`, `auxl` …).
public struct ItemReferenceBox: BoxPayload, Equatable {
    public var wide: Bool
    public var fromItemID: UInt32
    public var toItemIDs: [UInt32]
    public init(wide: Bool = false, from: UInt32, to: [UInt32]) { self.wide = wide; fromItemID = from; toItemIDs = to }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        wide = context.parentVersion == 1
        fromItemID = wide ? try r.readU32() : UInt32(try r.readU16())
        let n = try checkTable(r, count: UInt64(try r.readU16()), entrySize: wide ? 4 : 2, "iref references", context)
        toItemIDs = []
        for _ in 0..<n { toItemIDs.append(wide ? try r.readU32() : UInt32(try r.readU16())) }
    }
    public func write(to w: inout ByteWriter) {
        if wide { w.writeU32(fromItemID) } else { w.writeU16(UInt16(truncatingIfNeeded: fromItemID)) }
        w.writeU16(UInt16(truncatingIfNeeded: toItemIDs.count))
        for t in toItemIDs { if wide { w.writeU32(t) } else { w.writeU16(UInt16(truncatingIfNeeded: t)) } }
    }
    public var summary: String { "from=\(fromItemID) to=\(toItemIDs)" }
    public var json: [(String, JSON)] {
        [("from", .uint(UInt64(fromItemID))), ("to", .array(toItemIDs.map { .uint(UInt64($0)) }))]
    }
}

/// `ipma` ItemPropertyAssociationBox (ISO/IEC 23008-12 §9.3.3): versions 0/1, 7- or 15-bit indices (flag 1).
public struct ItemPropertyAssociationBox: BoxPayload, FullBoxCarrying, Equatable {
    public struct Association: Sendable, Equatable {
        public var essential: Bool
        /// 1-based index into `ipco`; 0 means "no property".
        public var propertyIndex: UInt16
        public init(essential: Bool, propertyIndex: UInt16) {
            self.essential = essential; self.propertyIndex = propertyIndex
        }
    }
    public struct Entry: Sendable, Equatable {
        public var itemID: UInt32
        public var associations: [Association]
        public init(itemID: UInt32, associations: [Association]) {
            self.itemID = itemID; self.associations = associations
        }
    }
    public var fullBox: FullBoxHeader
    public var entries: [Entry]
    public init(version: UInt8 = 0, largeIndices: Bool = false, entries: [Entry]) {
        fullBox = FullBoxHeader(version: version, flags: largeIndices ? 1 : 0); self.entries = entries
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let wideIndex = fullBox.flags & 1 != 0
        let n = try checkTable(
            r, count: UInt64(try r.readU32()), entrySize: fullBox.version < 1 ? 3 : 5, "ipma", context)
        try Limits.check(n, context.limits.maxItems, "maxItems (ipma)", offset: r.absoluteOffset)
        entries = []
        entries.reserveCapacity(n)
        for _ in 0..<n {
            let id = fullBox.version < 1 ? UInt32(try r.readU16()) : try r.readU32()
            let m = try checkTable(
                r, count: UInt64(try r.readU8()), entrySize: wideIndex ? 2 : 1, "ipma associations", context)
            var assoc: [Association] = []
            for _ in 0..<m {
                if wideIndex {
                    let v = try r.readU16();
                    assoc.append(Association(essential: v & 0x8000 != 0, propertyIndex: v & 0x7FFF))
                } else {
                    let v = try r.readU8();
                    assoc.append(Association(essential: v & 0x80 != 0, propertyIndex: UInt16(v & 0x7F)))
                }
            }
            entries.append(Entry(itemID: id, associations: assoc))
        }
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        let wideIndex = fullBox.flags & 1 != 0
        w.writeU32(UInt32(truncatingIfNeeded: entries.count))
        for e in entries {
            if fullBox.version < 1 { w.writeU16(UInt16(truncatingIfNeeded: e.itemID)) } else { w.writeU32(e.itemID) }
            w.writeU8(UInt8(truncatingIfNeeded: e.associations.count))
            for a in e.associations {
                if wideIndex {
                    w.writeU16((a.essential ? 0x8000 : 0) | a.propertyIndex & 0x7FFF)
                } else {
                    w.writeU8((a.essential ? 0x80 : 0) | UInt8(truncatingIfNeeded: a.propertyIndex & 0x7F))
                }
            }
        }
    }
    public var summary: String { "\(entries.count) items" }
    public var json: [(String, JSON)] {
        [
            (
                "entries",
                .array(
                    entries.map { e in
                        .object([
                            ("item_id", .uint(UInt64(e.itemID))),
                            (
                                "properties",
                                .array(
                                    e.associations.map {
                                        .object([
                                            ("index", .uint(UInt64($0.propertyIndex))),
                                            ("essential", .bool($0.essential)),
                                        ])
                                    })
                            ),
                        ])
                    })
            )
        ]
    }
}

/// `ispe` ImageSpatialExtentsProperty (ISO/IEC 23008-12 §6.5.3).
public struct ImageSpatialExtentsProperty: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var width, height: UInt32
    public init(width: UInt32, height: UInt32) { fullBox = FullBoxHeader(); self.width = width; self.height = height }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r); width = try r.readU32(); height = try r.readU32()
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); w.writeU32(width); w.writeU32(height) }
    public var summary: String { "\(width)x\(height)" }
    public var json: [(String, JSON)] { [("width", .uint(UInt64(width))), ("height", .uint(UInt64(height)))] }
}

/// `pixi` PixelInformationProperty (ISO/IEC 23008-12 §6.5.6).
public struct PixelInformationProperty: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var bitsPerChannel: [UInt8]
    public init(bitsPerChannel: [UInt8]) { fullBox = FullBoxHeader(); self.bitsPerChannel = bitsPerChannel }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        let n = Int(try r.readU8())
        bitsPerChannel = try r.readBytes(n)
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU8(UInt8(truncatingIfNeeded: bitsPerChannel.count)); w.write(bitsPerChannel)
    }
    public var summary: String { "bits=\(bitsPerChannel)" }
    public var json: [(String, JSON)] { [("bits_per_channel", .array(bitsPerChannel.map { .uint(UInt64($0)) }))] }
}

/// `auxC` AuxiliaryTypeProperty (ISO/IEC 23008-12 §6.5.8): URN of the auxiliary type plus subtype bytes.
public struct AuxiliaryTypeProperty: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var auxType: StoredString
    public var subtype: [UInt8]
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        auxType = StoredString(reading: &r)
        subtype = r.readRemaining()
    }
    public func write(to w: inout ByteWriter) { fullBox.write(to: &w); auxType.write(to: &w); w.write(subtype) }
    public var summary: String { "aux_type=\(auxType.value)" }
    public var json: [(String, JSON)] { [("aux_type", .string(auxType.value))] }
}

/// An EntityToGroupBox inside `grpl` (ISO/IEC 14496-12 §8.18.3): `ster`, `altr`, `pymd`, or any other
/// grouping type. Bytes after the entity list (type-specific fields) are kept.
public struct EntityToGroupBox: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var groupID: UInt32
    public var entityIDs: [UInt32]
    public var extra: [UInt8]
    public init(groupID: UInt32, entityIDs: [UInt32]) {
        fullBox = FullBoxHeader(); self.groupID = groupID; self.entityIDs = entityIDs; extra = []
    }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        groupID = try r.readU32()
        let n = try checkTable(r, count: UInt64(try r.readU32()), entrySize: 4, "entity group", context)
        entityIDs = []
        for _ in 0..<n { entityIDs.append(try r.readU32()) }
        extra = r.readRemaining()
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w); w.writeU32(groupID); w.writeU32(UInt32(truncatingIfNeeded: entityIDs.count))
        for e in entityIDs { w.writeU32(e) }
        w.write(extra)
    }
    public var summary: String { "group_id=\(groupID) entities=\(entityIDs)" }
    public var json: [(String, JSON)] {
        [("group_id", .uint(UInt64(groupID))), ("entity_ids", .array(entityIDs.map { .uint(UInt64($0)) }))]
    }
}

/// `irot` ImageRotation property (ISO/IEC 23008-12 §6.5.10): 6 reserved bits, then the rotation
/// anti-clockwise in units of 90°.
public struct ImageRotation: PlainFixedFieldsPayload, Equatable {
    /// The 6 reserved bits, kept as stored.
    public var reserved: UInt8
    /// Quarter turns anti-clockwise (0–3).
    public var angle: UInt8
    public init(angle: UInt8, reserved: UInt8 = 0) { self.angle = angle & 3; self.reserved = reserved & 0x3F }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [1] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        let b = UInt8(truncatingIfNeeded: f[safe: 0] ?? 0)
        self.init(angle: b & 3, reserved: b >> 2)
    }
    public var storedFields: [UInt64] { [UInt64((reserved & 0x3F) << 2 | angle & 3)] }
    public var summary: String { bytesSummary(self) }
    public var json: [(String, JSON)] { bytesJSON(self) }
}

/// `imir` ImageMirror property (ISO/IEC 23008-12 §6.5.12): 7 reserved bits, then the mirror axis
/// (0 about a horizontal axis, 1 about a vertical axis).
public struct ImageMirror: PlainFixedFieldsPayload, Equatable {
    /// The 7 reserved bits, kept as stored.
    public var reserved: UInt8
    public var axis: UInt8
    public init(axis: UInt8, reserved: UInt8 = 0) { self.axis = axis & 1; self.reserved = reserved & 0x7F }
    public static func fieldWidths(_: FullBoxHeader) -> [Int] { [1] }
    public init(fieldsHeader: FullBoxHeader, storedFields f: [UInt64]) {
        let b = UInt8(truncatingIfNeeded: f[safe: 0] ?? 0)
        self.init(axis: b & 1, reserved: b >> 1)
    }
    public var storedFields: [UInt64] { [UInt64((reserved & 0x7F) << 1 | axis & 1)] }
    public var summary: String { bytesSummary(self) }
    public var json: [(String, JSON)] { bytesJSON(self) }
}
