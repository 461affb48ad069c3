import BinaryIO
import ISOBMFF

/// A self-contained set of items taken from one HEIF file to attach to an image of another: a root image item (an
/// auxiliary image or a thumbnail) with its tiles (`dimg`) and the metadata items that describe it (`cdsc`, e.g.
/// Apple's gain-map XMP), every item with its bytes and properties exactly as stored. Attached with
/// `HEIFBuilder.attach(_:to:nextID:)` (this module).
public struct HEIFItemBundle: Sendable {
    /// The items, root first, with their ids in the source file.
    public var items: [HEIFBuilder.Item]
    /// References among the bundle's items (`dimg` root → tiles, `cdsc` metadata → root).
    public var references: [HEIFBuilder.Reference]
    public var rootID: UInt32
    /// How the root is attached to its image: `auxl` (auxiliary image) or `thmb` (thumbnail).
    public var reference: FourCC
    /// For an auxiliary image, its URN and kind; nil for a thumbnail.
    public var urn: String?
    public var kind: AuxiliaryKind?
    /// Stored size of the root (`ispe`).
    public var width: Int
    public var height: Int
    /// For an ISO 21496-1 gain map: the payload of the `tmap` derived image that applies it to its master (version
    /// byte, then the ISO 21496-1 metadata). Attached as a `tmap` item whose `dimg` names [master, root], grouped with
    /// the master in an `altr` entity group (instead of an `auxl` reference); nil for other bundles.
    public var toneMap: [UInt8]?

    public init(
        items: [HEIFBuilder.Item], references: [HEIFBuilder.Reference], rootID: UInt32, reference: FourCC, urn: String?,
        kind: AuxiliaryKind?,
        width: Int, height: Int, toneMap: [UInt8]? = nil
    ) {
        self.items = items; self.references = references; self.rootID = rootID; self.reference = reference;
        self.urn = urn; self.kind = kind
        self.width = width; self.height = height; self.toneMap = toneMap
    }

    /// "Apple HDR gain map 2016x1512 (item 51)", "thumbnail 320x240 (item 50)".
    public var description: String {
        let what = kind.map { $0.label(urn: urn ?? "") } ?? "thumbnail"
        return "\(what) \(width)x\(height) (item \(rootID))"
    }

    /// Reads the bundle rooted at `root` of `file`. `reference` says how it attaches (`auxl` or `thmb`).
    public static func read(root: UInt32, reference: FourCC, file: ISOFile) throws(ParseError) -> HEIFItemBundle {
        guard let h = file.heif, let rootItem = h.items.first(where: { $0.id == root }) else {
            throw ParseError(.danglingReference, path: "meta/iinf", "item \(root) does not exist")
        }
        let tiles = h.references(from: root, type: "dimg")
        let metadata = h.allReferences.filter { $0.type == "cdsc" && $0.to.contains(root) }.map(\.from)
        var items: [HEIFBuilder.Item] = []
        var seen = Set<UInt32>()
        for id in [root] + tiles + metadata where seen.insert(id).inserted {
            guard let it = h.items.first(where: { $0.id == id }) else {
                throw ParseError(
                    .danglingReference, path: "meta/iref", "item \(id), used by item \(root), does not exist")
            }
            let method = h.location?.item(id)?.constructionMethod ?? 0
            items.append(
                .init(
                    id: id, type: it.type, name: it.name, hidden: it.hidden, contentType: it.contentType,
                    data: try h.data(of: id, file: file), inIdat: method == 1, properties: h.properties(of: id)))
        }
        var refs: [HEIFBuilder.Reference] = []
        if !tiles.isEmpty { refs.append(.init(type: "dimg", from: root, to: tiles)) }
        for m in metadata { refs.append(.init(type: "cdsc", from: m, to: [root])) }
        let urn = h.properties(of: root).lazy.compactMap { $0.box.payload(AuxiliaryTypeProperty.self)?.auxType.value }
            .first
        let size = h.size(of: root)
        return HEIFItemBundle(
            items: items, references: refs, rootID: rootItem.id, reference: reference,
            urn: reference == "auxl" ? (urn ?? "") : nil,
            kind: reference == "auxl" ? AuxiliaryKind(urn: urn ?? "") : nil,
            width: Int(size?.width ?? 0), height: Int(size?.height ?? 0))
    }

    /// The auxiliary images (`auxl`) and thumbnails (`thmb`) of image item `master` of `file`, and a line for each
    /// thing attached to it that a bundle cannot carry (an ISO 21496-1 `tmap` derived image, which is an image of its
    /// own that names the master as its base: its gain-map input is carried when it is also an `auxl` auxiliary image).
    public static func attached(to master: UInt32, file: ISOFile, thumbnails: Bool = true) throws(ParseError) -> (
        bundles: [HEIFItemBundle], notCarried: [String]
    ) {
        guard let h = file.heif else { return ([], []) }
        var out: [HEIFItemBundle] = []
        var notes: [String] = []
        let refs = h.allReferences
        var seen = Set<UInt32>()
        for r in refs
        where (r.type == "auxl" || (thumbnails && r.type == "thmb")) && r.to.contains(master) && r.from != master
            && seen.insert(r.from).inserted
        {
            out.append(try read(root: r.from, reference: r.type, file: file))
        }
        for r in refs
        where r.type == "dimg" && r.to.first == master && h.items.first(where: { $0.id == r.from })?.type == "tmap" {
            let gain = r.to.count > 1 ? r.to[1] : 0
            if seen.contains(gain) {
                notes.append(
                    "tmap item \(r.from) (ISO 21496-1 tone-map image over item \(master)) not carried: "
                        + "its gain map (item \(gain)) is also an auxiliary image and is kept as that")
                continue
            }
            // A gain map used only through the tmap: carried with the tmap payload, re-attached the same way.
            do throws(ParseError) {
                guard r.to.count == 2 else {
                    throw ParseError(.invalidValue, "its dimg names \(r.to.count) images, not [base, gain map]")
                }
                let payload = try h.data(of: r.from, file: file)
                _ = try GainMapMetadata(tmap: payload)
                var b = try read(root: gain, reference: "tmap", file: file)
                b.toneMap = payload
                b.urn = "tmap"
                b.kind = .isoGainMap
                seen.insert(gain)
                out.append(b)
            } catch {
                notes.append(
                    "tmap item \(r.from) (ISO 21496-1 tone-map image over item \(master)) not carried: " + error.message
                )
            }
        }
        return (out, notes)
    }
}

extension HEIFItemBundle {
    /// The bundle as a HEIF file of its own, its root the primary image (kept hidden or not as stored): what `split
    /// --aux` writes and what a job decodes to transform it. Bytes and properties are unchanged.
    public func standalone() throws(ParseError) -> [UInt8] {
        var builder = HEIFBuilder(brands: ["heic", "mif1"], primaryItemID: rootID)
        builder.items = items
        if let i = builder.items.firstIndex(where: { $0.id == rootID }) { builder.items[i].hidden = false }
        builder.references = references
        return try builder.build()
    }

    /// Reads a HEIF file's primary image as a bundle to attach with `reference` (`convert --left-gain-map`): a file
    /// `split --aux` wrote, or any single-image HEIC. `urn` replaces the root's `auxC` (or adds one) when given.
    public static func primary(of file: ISOFile, reference: FourCC, urn: String?) throws(ParseError) -> HEIFItemBundle {
        guard let h = file.heif, let p = h.primaryItemID else {
            throw ParseError(.notRecognised, "not a HEIF image with a primary item")
        }
        var b = try read(root: p, reference: reference, file: file)
        if let i = b.items.firstIndex(where: { $0.id == p }) { b.items[i].hidden = true }
        if let urn, let i = b.items.firstIndex(where: { $0.id == p }) {
            var props = b.items[i].properties.filter { $0.box.type != "auxC" }
            var w = ByteWriter()
            w.write(Array(urn.utf8) + [0])
            let auxC = Box(type: "auxC", fields: .raw([0, 0, 0, 0] + w.take()))
            props.append((auxC, true))
            b.items[i].properties = props
            b.urn = urn
            b.kind = AuxiliaryKind(urn: urn)
        }
        return b
    }
}

extension HEIFBuilder {
    /// Adds `bundle` with new item ids (from `nextID` up) and attaches its root to item `master` with the bundle's
    /// reference type (`auxl` or `thmb`). Returns the root's new id. Throws when the ids would pass 4294967295.
    @discardableResult
    public mutating func attach(_ bundle: HEIFItemBundle, to master: UInt32, nextID: inout UInt32) throws(ParseError)
        -> UInt32
    {
        var map: [UInt32: UInt32] = [:]
        for it in bundle.items {
            guard nextID < UInt32.max else {
                throw ParseError(.unsupported, path: "meta/iinf", "no item id is left for \(bundle.description)")
            }
            var copy = it
            copy.id = nextID
            map[it.id] = nextID
            nextID += 1
            items.append(copy)
        }
        for r in bundle.references {
            references.append(.init(type: r.type, from: map[r.from] ?? r.from, to: r.to.map { map[$0] ?? $0 }))
        }
        let root = map[bundle.rootID] ?? bundle.rootID
        guard let toneMap = bundle.toneMap else {
            references.append(.init(type: bundle.reference, from: root, to: [master]))
            return root
        }
        // ISO 21496-1 in HEIF: a `tmap` derived image of the master's size over [master, gain map], the preferred
        // alternative to the master in an `altr` group; the brand `tmap` says the file uses it.
        guard nextID < UInt32.max - 1 else {
            throw ParseError(
                .unsupported, path: "meta/iinf", "no item id is left for the tmap of \(bundle.description)")
        }
        let tmapID = nextID, groupID = nextID + 1
        nextID += 2
        let masterItem = items.first { $0.id == master }
        let size = masterItem?.properties.first { $0.box.type == "ispe" }
        let colour = masterItem?.properties.filter { $0.box.type == "colr" || $0.box.type == "pixi" } ?? []
        let tmapProperties = (size.map { [($0.box, false)] } ?? []) + colour.map { ($0.box, false) }
        items.append(.init(id: tmapID, type: "tmap", data: toneMap, properties: tmapProperties))
        references.append(.init(type: "dimg", from: tmapID, to: [master, root]))
        groups.append((type: "altr", id: groupID, entities: [tmapID, master]))
        if let ftypBox = ftyp.payload(FileTypeBox.self), !ftypBox.compatibleBrands.contains("tmap") {
            var f = ftypBox
            f.compatibleBrands.append("tmap")
            ftyp = Box(f, type: "ftyp")
        }
        return root
    }
}
