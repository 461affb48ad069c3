import BinaryIO
import HEVC
import ISOBMFF
import SystemSupport

/// What an auxiliary image is for, from its `auxC` URN (see `Specs/spatial-photo.md`, "Auxiliary images").
public enum AuxiliaryKind: String, Sendable, Equatable, CaseIterable {
    /// An HDR gain map (Apple's `urn:com:apple:photo:2020:aux:hdrgainmap`, or another maker's `…:aux:hdrgainmap`).
    case gainMap = "gain-map"
    /// The gain-map input of an ISO 21496-1 `tmap` derived image (no `auxl` of its own).
    case isoGainMap = "iso-gain-map"
    case depth
    case disparity
    case alpha
    /// A segmentation matte (Apple's portrait-effects and semantic mattes).
    case matte
    case other

    /// The kind an `auxC` URN names.
    public init(urn: String) {
        let u = urn.lowercased()
        if u.hasSuffix(":aux:hdrgainmap") || u.contains("gainmap") {
            self = .gainMap
        } else if u == "urn:mpeg:hevc:2015:auxid:1" || u == "urn:mpeg:mpegb:cicp:systems:auxiliary:alpha"
            || u.hasSuffix(":alpha")
        {
            self = .alpha
        } else if u == "urn:mpeg:hevc:2015:auxid:2" || u == "urn:mpeg:mpegb:cicp:systems:auxiliary:depth"
            || u.hasSuffix(":depth") || u.contains(":aux:depth")
        {
            self = .depth
        } else if u.contains("disparity") {
            self = .disparity
        } else if u.contains("matte") {
            self = .matte
        } else {
            self = .other
        }
    }

    /// A short name for people.
    public func label(urn: String) -> String {
        switch self {
        case .gainMap: return urn == AuxiliaryImage.appleGainMapURN ? "Apple HDR gain map" : "HDR gain map"
        case .isoGainMap: return "ISO 21496-1 gain map (tmap input)"
        case .depth: return "depth map"
        case .disparity: return "disparity map"
        case .alpha: return "alpha plane"
        case .matte: return "matte"
        case .other: return "auxiliary image"
        }
    }
}

/// The range a depth or disparity map's metadata states (HEVC depth representation information SEI, payload type 177,
/// in the auxiliary image's `hvcC`). Values are as the SEI gives them; nil where its flag is off.
public struct DepthRange: Sendable, Equatable {
    /// 0: uniform inverse depth (disparity-like), 1: uniform disparity, 2: uniform depth, 3: non-uniform disparity.
    public var representationType: UInt32
    public var zNear: Double?
    public var zFar: Double?
    public var dMin: Double?
    public var dMax: Double?

    /// What the representation type means.
    public var meaning: String {
        switch representationType {
        case 0: return "uniform inverse depth (1/Z)"
        case 1: return "uniform disparity"
        case 2: return "uniform depth (Z)"
        case 3: return "non-uniform disparity"
        default: return "representation type \(representationType)"
        }
    }
    /// One line: the type and the values present.
    public var text: String {
        var parts = [meaning]
        if let z = zNear { parts.append("z_near \(NumberText.fixed(z, places: 4))") }
        if let z = zFar { parts.append("z_far \(NumberText.fixed(z, places: 4))") }
        if let d = dMin { parts.append("d_min \(NumberText.fixed(d, places: 4))") }
        if let d = dMax { parts.append("d_max \(NumberText.fixed(d, places: 4))") }
        return parts.joined(separator: ", ")
    }

    /// Parses a depth representation information SEI payload (ITU-T H.265 Annex F): four presence flags, the type
    /// (ue), a reference view id (ue) when d_min or d_max is present, then each present value as sign (1 bit),
    /// exponent (7 bits), mantissa length − 1 (5 bits) and mantissa. Nil when the payload is cut short.
    public init?(seiPayload p: [UInt8]) {
        var r = BitReader(p)
        do {
            let zn = try r.readFlag(), zf = try r.readFlag(), dn = try r.readFlag(), dx = try r.readFlag()
            representationType = try r.readUE()
            if dn || dx { _ = try r.readUE() }
            func element() throws(ParseError) -> Double {
                let sign = try r.readFlag()
                let e = Int(try r.readBits(7))
                let len = Int(try r.readBits(5)) + 1
                let m = Double(try r.readBits(len))
                let v: Double
                if e == 0 { v = m * pow2(-(30 + len)) } else { v = pow2(e - 31) * (1 + m * pow2(-len)) }
                return sign ? -v : v
            }
            zNear = zn ? try element() : nil
            zFar = zf ? try element() : nil
            dMin = dn ? try element() : nil
            dMax = dx ? try element() : nil
        } catch { return nil }
    }
}

private func pow2(_ n: Int) -> Double {
    var v = 1.0
    if n >= 0 { for _ in 0..<min(n, 1100) { v *= 2 } } else { for _ in 0..<min(-n, 1100) { v /= 2 } }
    return v
}

/// One auxiliary image of a HEIF file: an image item that another image uses (HDR gain map, depth, disparity,
/// alpha, matte), described from its `auxC`, `ispe`, `irot` and references.
public struct AuxiliaryImage: Sendable {
    /// Apple's HDR gain-map URN (iPhone photos since iOS 14.1).
    public static let appleGainMapURN = "urn:com:apple:photo:2020:aux:hdrgainmap"

    public var itemID: UInt32
    public var itemType: String
    /// The `auxC` URN; for an ISO 21496-1 gain map without `auxC`, "tmap".
    public var urn: String
    public var kind: AuxiliaryKind
    /// Stored size (`ispe`).
    public var width: Int
    public var height: Int
    /// Quarter turns anticlockwise of its own `irot` (the size shown is the stored size turned).
    public var quarterTurns: Int
    /// The image items it belongs to (`auxl` targets; for a `tmap` gain map, the tmap's base image).
    public var masterItemIDs: [UInt32]
    /// Tiles when the image is a `grid`, else 1.
    public var tiles: Int
    /// Metadata items describing it (`cdsc`), e.g. Apple's gain-map XMP.
    public var metadataItemIDs: [UInt32]
    /// The `tmap` derived image that uses it as its gain map (ISO 21496-1), if any.
    public var toneMapItemID: UInt32?
    /// For depth and disparity maps: the range the depth representation information SEI states.
    public var depthRange: DepthRange?
    /// For depth and disparity maps: what was (not) found about units and range.
    public var depthNote: String?
    /// For an ISO 21496-1 gain map: the metadata of its `tmap` item, or why it cannot be read
    /// (``HEIFImageInventory/readToneMaps(_:file:limits:)``).
    public var toneMap: Result<GainMapMetadata, ParseError>?

    /// The size shown (stored size turned by `irot`).
    public var displayedWidth: Int { quarterTurns % 2 == 1 ? height : width }
    public var displayedHeight: Int { quarterTurns % 2 == 1 ? width : height }
    public var label: String { kind.label(urn: urn) }
}

/// A thumbnail (`thmb`) or a metadata item (`cdsc`: Exif, XMP, other MIME) of a HEIF file.
public struct LinkedItem: Sendable {
    public var itemID: UInt32
    public var itemType: String
    public var contentType: String?
    public var width: Int?
    public var height: Int?
    public var bytes: UInt64
    /// The items it belongs to / describes.
    public var targets: [UInt32]
    /// "Exif", "XMP", the MIME type, or the item type.
    public var label: String {
        if itemType == "Exif" { return "Exif" }
        if contentType == "application/rdf+xml" { return "XMP" }
        return contentType ?? itemType
    }
}

/// The secondary images and metadata of a HEIF file: auxiliary images, thumbnails and metadata items, each with the
/// item it belongs to. `info` prints it; every writing job on a photo keeps what it lists (see
/// `Specs/spatial-photo.md`).
public struct HEIFImageInventory: Sendable {
    public var auxiliary: [AuxiliaryImage] = []
    public var thumbnails: [LinkedItem] = []
    public var metadata: [LinkedItem] = []

    /// Reads the inventory of `h` (no pixel is decoded; the `hvcC` of depth maps is read for its SEI).
    public init(_ h: HEIFMeta) {
        let items = Dictionary(h.items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let refs = h.allReferences
        let lengths = Dictionary(
            (h.location?.items ?? []).map { loc in (loc.itemID, loc.extents.reduce(UInt64(0)) { $0 &+ $1.length }) },
            uniquingKeysWith: { a, _ in a })
        func cdsc(to id: UInt32) -> [UInt32] { refs.filter { $0.type == "cdsc" && $0.to.contains(id) }.map(\.from) }
        var seenAux = Set<UInt32>()
        for r in refs where r.type == "auxl" {
            guard seenAux.insert(r.from).inserted, let item = items[r.from] else { continue }
            let masters = refs.filter { $0.type == "auxl" && $0.from == r.from }.flatMap(\.to)
            auxiliary.append(Self.auxiliary(item, masters: masters, meta: h, metadata: cdsc(to: r.from)))
        }
        // ISO 21496-1: a tmap derived image names [base image, gain map] with dimg.
        for r in refs where r.type == "dimg" && items[r.from]?.type == "tmap" && r.to.count >= 2 {
            let gain = r.to[1]
            if let i = auxiliary.firstIndex(where: { $0.itemID == gain }) {
                auxiliary[i].toneMapItemID = r.from; continue
            }
            guard let item = items[gain], seenAux.insert(gain).inserted else { continue }
            var a = Self.auxiliary(item, masters: [r.to[0]], meta: h, metadata: cdsc(to: gain))
            a.urn = "tmap"; a.kind = .isoGainMap; a.toneMapItemID = r.from
            auxiliary.append(a)
        }
        for r in refs where r.type == "thmb" {
            guard let item = items[r.from] else { continue }
            let s = h.size(of: r.from)
            thumbnails.append(
                LinkedItem(
                    itemID: r.from, itemType: item.type.description, contentType: item.contentType,
                    width: s.map { Int($0.width) },
                    height: s.map { Int($0.height) }, bytes: lengths[r.from] ?? 0, targets: r.to))
        }
        for item in h.items where item.type == "Exif" || item.type == "mime" {
            let targets = refs.filter { $0.type == "cdsc" && $0.from == item.id }.flatMap(\.to)
            metadata.append(
                LinkedItem(
                    itemID: item.id, itemType: item.type.description, contentType: item.contentType, width: nil,
                    height: nil,
                    bytes: lengths[item.id] ?? 0, targets: targets))
        }
    }

    static func auxiliary(_ item: HEIFMeta.Item, masters: [UInt32], meta h: HEIFMeta, metadata: [UInt32])
        -> AuxiliaryImage
    {
        let props = h.properties(of: item.id)
        let urn = props.lazy.compactMap { $0.box.payload(AuxiliaryTypeProperty.self)?.auxType.value }.first ?? ""
        let turns =
            props.lazy.compactMap { p -> Int? in
                p.box.type == "irot" ? p.box.payload(ImageRotation.self).map { Int($0.angle) } : nil
            }.first ?? 0
        let s = h.size(of: item.id)
        var a = AuxiliaryImage(
            itemID: item.id, itemType: item.type.description, urn: urn, kind: AuxiliaryKind(urn: urn),
            width: Int(s?.width ?? 0),
            height: Int(s?.height ?? 0), quarterTurns: turns, masterItemIDs: masters,
            tiles: item.type == "grid" ? h.references(from: item.id, type: "dimg").count : 1, metadataItemIDs: metadata)
        if a.kind == .depth || a.kind == .disparity {
            let configs = ([item.id] + h.references(from: item.id, type: "dimg").prefix(1)).compactMap { id in
                h.properties(of: id).lazy.compactMap { $0.box.payload(HEVCConfigurationBox.self)?.record }.first
            }
            a.depthRange = configs.lazy.compactMap(Self.depthRange(hvcC:)).first
            if a.depthRange == nil {
                a.depthNote =
                    "range and units not stated in a form we read: no depth representation information SEI in its hvcC"
                    + (metadata.isEmpty
                        ? ""
                        : "; its metadata item(s) \(metadata.map(String.init).joined(separator: ", ")) (e.g. Apple's depth XMP) are not parsed")
            }
        }
        return a
    }

    /// The depth representation information SEI (payload type 177) among the SEI NAL units of an `hvcC`.
    static func depthRange(hvcC: [UInt8]) -> DepthRange? {
        guard let record = try? HEVCDecoderConfigurationRecord(parsing: hvcC) else { return nil }
        for nal in record.nalUnits() where nal.type == .prefixSEI || nal.type == .suffixSEI {
            guard let list = try? SEIMessageList(nal: nal) else { continue }
            for m in list.messages where m.payloadType == 177 {
                if let r = DepthRange(seiPayload: m.payload) { return r }
            }
        }
        return nil
    }

    public var isEmpty: Bool { auxiliary.isEmpty && thumbnails.isEmpty && metadata.isEmpty }

    /// Reads the ISO 21496-1 metadata of each gain map's `tmap` item (its payload in `file`).
    public mutating func readToneMaps(_ h: HEIFMeta, file: ISOFile, limits: Limits = .default) {
        for i in auxiliary.indices {
            guard let t = auxiliary[i].toneMapItemID else { continue }
            do throws(ParseError) {
                let payload = try h.data(of: t, file: file, limits: limits)
                auxiliary[i].toneMap = .success(try GainMapMetadata(tmap: payload))
            } catch { auxiliary[i].toneMap = .failure(error) }
        }
    }

    /// The auxiliary images of one image item.
    public func auxiliary(of item: UInt32) -> [AuxiliaryImage] { auxiliary.filter { $0.masterItemIDs.contains(item) } }

    /// Lines for `info`.
    public var lines: [String] {
        var out: [String] = []
        func ids(_ v: [UInt32]) -> String { v.map(String.init).joined(separator: ", ") }
        if !auxiliary.isEmpty {
            out.append("auxiliary images: \(auxiliary.count)")
            for a in auxiliary {
                var s =
                    "  item \(a.itemID): \(a.label) (\(a.urn.isEmpty ? "no auxC" : a.urn)), \(a.itemType) \(a.width)x\(a.height)"
                if a.tiles > 1 { s += " (\(a.tiles) tiles)" }
                if a.quarterTurns != 0 {
                    s += ", shown \(a.displayedWidth)x\(a.displayedHeight) (irot \(a.quarterTurns * 90)°)"
                }
                s += ", for item \(ids(a.masterItemIDs))"
                if let t = a.toneMapItemID { s += ", gain map of tmap item \(t)" }
                if !a.metadataItemIDs.isEmpty { s += ", metadata item \(ids(a.metadataItemIDs))" }
                out.append(s)
                if let d = a.depthRange { out.append("    range: \(d.text)") }
                if let n = a.depthNote { out.append("    \(n)") }
                switch a.toneMap {
                case .success(let m)?: out.append("    tmap metadata: \(m.summary)")
                case .failure(let e)?: out.append("    tmap metadata cannot be read: \(e.message)")
                case nil: break
                }
            }
        }
        if !thumbnails.isEmpty {
            out.append("thumbnails: \(thumbnails.count)")
            for t in thumbnails {
                out.append(
                    "  item \(t.itemID): \(t.itemType)" + (t.width.map { w in " \(w)x\(t.height ?? 0)" } ?? "")
                        + ", \(t.bytes) bytes, for item \(ids(t.targets))")
            }
        }
        if !metadata.isEmpty {
            out.append("metadata items: \(metadata.count)")
            for m in metadata {
                out.append(
                    "  item \(m.itemID): \(m.label), \(m.bytes) bytes"
                        + (m.targets.isEmpty ? ", describes the file" : ", describes item \(ids(m.targets))"))
            }
        }
        return out
    }

    /// JSON for `info --json` (`heif_images`, see `Specs/schemas/info.v1.schema.json`).
    public var json: JSON {
        func ids(_ v: [UInt32]) -> JSON { .array(v.map { .uint(UInt64($0)) }) }
        let aux: [JSON] = auxiliary.map { a in
            var o: [(String, JSON)] = [
                ("item_id", .uint(UInt64(a.itemID))), ("item_type", .string(a.itemType)),
                ("kind", .string(a.kind.rawValue)),
                ("urn", .string(a.urn)), ("width", .uint(UInt64(a.width))), ("height", .uint(UInt64(a.height))),
                ("displayed_width", .uint(UInt64(a.displayedWidth))),
                ("displayed_height", .uint(UInt64(a.displayedHeight))),
                ("master_item_ids", ids(a.masterItemIDs)), ("tiles", .uint(UInt64(a.tiles))),
                ("metadata_item_ids", ids(a.metadataItemIDs)),
            ]
            if let t = a.toneMapItemID { o.append(("tmap_item_id", .uint(UInt64(t)))) }
            if let d = a.depthRange {
                var r: [(String, JSON)] = [
                    ("representation_type", .uint(UInt64(d.representationType))), ("meaning", .string(d.meaning)),
                ]
                if let v = d.zNear { r.append(("z_near", .double(v))) }
                if let v = d.zFar { r.append(("z_far", .double(v))) }
                if let v = d.dMin { r.append(("d_min", .double(v))) }
                if let v = d.dMax { r.append(("d_max", .double(v))) }
                o.append(("depth_range", .object(r)))
            }
            if let n = a.depthNote { o.append(("depth_note", .string(n))) }
            if case .success(let m)? = a.toneMap, let c = m.channels.first {
                let t: [(String, JSON)] = [
                    ("gain_map_min", .double(c.gainMapMin.value)), ("gain_map_max", .double(c.gainMapMax.value)),
                    ("gamma", .double(c.gamma.value)), ("base_offset", .double(c.baseOffset.value)),
                    ("alternate_offset", .double(c.alternateOffset.value)),
                    ("base_headroom", .double(m.baseHeadroom.value)),
                    ("alternate_headroom", .double(m.alternateHeadroom.value)),
                    ("channels", .uint(UInt64(m.channels.count))),
                ]
                o.append(("tone_map", .object(t)))
            }
            return .object(o)
        }
        func linked(_ l: LinkedItem) -> JSON {
            var o: [(String, JSON)] = [
                ("item_id", .uint(UInt64(l.itemID))), ("item_type", .string(l.itemType)), ("label", .string(l.label)),
            ]
            if let w = l.width, let h = l.height { o += [("width", .uint(UInt64(w))), ("height", .uint(UInt64(h)))] }
            o += [("bytes", .uint(l.bytes)), ("target_item_ids", ids(l.targets))]
            return .object(o)
        }
        return .object([
            ("auxiliary", .array(aux)), ("thumbnails", .array(thumbnails.map(linked))),
            ("metadata", .array(metadata.map(linked))),
        ])
    }
}
