import BinaryIO
import ISOBMFF
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What an edit or combine did.
public struct PhotoEditResult: Sendable {
    public var output: String
    public var leftItemID: UInt32
    public var rightItemID: UInt32
    public var changes: [String]
    public var bytesWritten: UInt64
}

/// Edits spatial photos and turns image pairs into spatial photos without re-encoding: image item bytes are
/// copied unchanged and `iloc` offsets are patched.
public enum SpatialPhotoEditor {
    enum Kind: CaseIterable { case intrinsics, extrinsics, disparity }

    static func kind(of box: Box) -> (Kind, CameraPropertyForm)? {
        if box.type == "cmin" { return (.intrinsics, .standard) }
        if box.type == "cmex" { return (.extrinsics, .standard) }
        guard let u = box.header.userType else { return nil }
        if u == AppleUUID.cameraIntrinsics { return (.intrinsics, .apple) }
        if u == AppleUUID.cameraExtrinsics { return (.extrinsics, .apple) }
        if u == AppleUUID.disparityAdjustment { return (.disparity, .apple) }
        return nil
    }

    /// Changes the stereo metadata of an existing spatial photo. Writes `output` (or replaces `path`
    /// atomically when `output` is nil). A nil field of `stereo` keeps the current value; `form` is used for camera
    /// properties that do not exist yet.
    package static func edit(
        path: String, output: String?, stereo edit: StereoParameters, form: CameraPropertyForm = .apple
    ) throws(ParseError) -> PhotoEditResult {
        let file = try openIntact(path)
        var problems: [SpatialDiagnostic] = []
        guard let photo = SpatialPhotoReader.read(file, problems: &problems) else {
            throw ParseError(
                .unsupported, path: path,
                problems.first?.message ?? "not a spatial photo (no ster entity group); use `combine` to make one")
        }
        return try apply(
            edit, form: form, to: file, left: photo.left.itemID, right: photo.right.itemID, addGroup: false,
            output: output ?? path)
    }

    /// Turns a HEIF file holding two images into a spatial photo (a `ster` group, camera properties, primary
    /// = left). Without explicit ids, the two displayable images (not hidden, not thumbnails or auxiliary
    /// images) are used, first = left.
    package static func combine(
        path: String, leftItem: UInt32? = nil, rightItem: UInt32? = nil, swapEyes: Bool = false,
        stereo edit: StereoParameters, form: CameraPropertyForm = .apple, output: String
    ) throws(ParseError) -> PhotoEditResult {
        let file = try openIntact(path)
        guard let h = file.heif else { throw ParseError(.notRecognised, path: path, "not a HEIF image (no meta box)") }
        var ids: [UInt32]
        if let l = leftItem, let r = rightItem {
            ids = [l, r]
        } else {
            ids = displayableImages(h)
            guard ids.count == 2 else {
                throw ParseError(
                    .unsupported, path: path,
                    "expected 2 displayable images, found \(ids.count) (\(ids.map(String.init).joined(separator: ", "))); name the left and right items",
                    remedy: .nameEyeItems)
            }
        }
        if swapEyes { ids.reverse() }
        try refuseUnusableEyes([(h, ids[0], "left", nil), (h, ids[1], "right", nil)])
        return try apply(edit, form: form, to: file, left: ids[0], right: ids[1], addGroup: true, output: output)
    }

    /// The edit `combine` applies: each field of `edit` that is nil takes the value of `defaults` (the one table,
    /// ``StereoParameters/defaults``, unless given), except where `file` is already a spatial photo that carries that
    /// value (a baseline in its extrinsics, a field of view in its intrinsics, a disparity adjustment): then it stays
    /// nil, so `combine(path:…)` (run by `Operations.combine`) keeps the file's calibration. `kept` names what was
    /// kept. Only the baseline, field of view and disparity adjustment are filled (a photo has no hero eye or
    /// projection).
    public static func fillingDefaults(
        _ edit: StereoParameters, defaults: StereoParameters = .defaults, keepingFrom file: ISOFile?
    ) -> (edit: StereoParameters, kept: [String]) {
        var problems: [SpatialDiagnostic] = []
        return fillingDefaults(
            edit, defaults: defaults, keepingFrom: file.flatMap { SpatialPhotoReader.read($0, problems: &problems) })
    }

    /// The edit `combine` applies to one input (`right` nil: a HEIF holding both images, or a spatial photo) or two
    /// (single-image HEIFs, e.g. the eyes `split` wrote): as ``fillingDefaults(_:defaults:keepingFrom:)``, where two
    /// eyes that carry their own camera properties (a `split` of a spatial photo keeps them) keep them, so split →
    /// combine gives back the calibration. Files that cannot be read keep nothing (combine then reports why).
    public static func fillingDefaults(
        _ edit: StereoParameters, defaults: StereoParameters = .defaults, combiningLeft left: String, right: String?
    ) -> (edit: StereoParameters, kept: [String]) {
        guard let right else {
            return fillingDefaults(edit, defaults: defaults, keepingFrom: try? ISOFile.open(path: left))
        }
        let pair = (try? ISOFile.open(path: left)).flatMap { a in
            (try? ISOFile.open(path: right)).flatMap { eyeCalibration(left: a, right: $0) }
        }
        return fillingDefaults(edit, defaults: defaults, keepingFrom: pair)
    }

    /// The baseline, field of view and disparity adjustment two single-image HEIFs carry as the eyes of one spatial
    /// photo (what `split` writes as `.heic`: each eye keeps its camera properties); nil when either file is not such a
    /// HEIF or they state none of the three.
    public static func eyesStereo(left: String, right: String) -> StereoParameters? {
        guard let a = try? ISOFile.open(path: left), let b = try? ISOFile.open(path: right),
            let p = eyeCalibration(left: a, right: b)
        else { return nil }
        let s = StereoParameters(
            baselineMicrometres: p.stereo.baselineMicrometres,
            horizontalFieldOfViewMillidegrees: p.stereo.horizontalFieldOfViewMillidegrees,
            disparityAdjustment: p.stereo.disparityAdjustment)
        return s.isEmpty ? nil : s
    }

    /// The camera properties of two single-image HEIFs' primary images, read as the eyes of one spatial photo (nil when
    /// either has no primary image).
    static func eyeCalibration(left a: ISOFile, right b: ISOFile) -> SpatialPhoto? {
        guard let ha = a.heif, let hb = b.heif, let pa = ha.primaryItemID, let pb = hb.primaryItemID,
            let ia = ha.items.first(where: { $0.id == pa }), let ib = hb.items.first(where: { $0.id == pb })
        else { return nil }
        var diags: [SpatialDiagnostic] = []
        let l = SpatialPhotoReader.eye(item: ia, meta: ha, diagnostics: &diags),
            r = SpatialPhotoReader.eye(item: ib, meta: hb, diagnostics: &diags)
        return SpatialPhoto(groupID: 0, left: l, right: r, primaryItemID: pa, diagnostics: diags)
    }

    static func fillingDefaults(_ edit: StereoParameters, defaults: StereoParameters, keepingFrom photo: SpatialPhoto?)
        -> (edit: StereoParameters, kept: [String])
    {
        var e = edit
        var kept: [String] = []
        if e.baselineMicrometres == nil {
            if let b = photo?.baselineMicrometres {
                kept.append("baseline \(NumberText.fixed(b / 1000, places: 3)) mm")
            } else {
                e.baselineMicrometres = defaults.baselineMicrometres
            }
        }
        if e.horizontalFieldOfViewMillidegrees == nil {
            if let f = photo?.horizontalFOVDegrees {
                kept.append("horizontal field of view \(NumberText.fixed(f, places: 3))°")
            } else {
                e.horizontalFieldOfViewMillidegrees = defaults.horizontalFieldOfViewMillidegrees
            }
        }
        if e.disparityAdjustment == nil {
            if let d = photo?.disparityAdjustment {
                kept.append("disparity adjustment \(NumberText.fixed(Double(d) / 100, places: 2)) %")
            } else {
                e.disparityAdjustment = defaults.disparityAdjustment
            }
        }
        return (e, kept)
    }

    /// One eye of a spatial photo as a plain HEIF image, without re-encoding: the eye's image item (and, for a grid,
    /// its tiles) with their coded bytes and properties (`hvcC`, `ispe`, `colr` — e.g. Apple's Display P3 ICC profile
    /// —, `pixi`), its camera properties as stored (intrinsics, extrinsics — the right eye's position and rotation —
    /// and the disparity adjustment), the Exif/XMP items that describe that eye (`cdsc`), and its auxiliary images
    /// (`auxl`: gain map, depth, alpha) and thumbnails (`thmb`) with their own tiles and metadata. Only the `ster`
    /// group is left out, so the file is an ordinary image that still carries its camera; `combine` of two such files
    /// gives back the original coded pictures and calibration.
    public static func extractEye(file: ISOFile, item eye: UInt32) throws(ParseError) -> [UInt8] {
        guard let h = file.heif else { throw ParseError(.notRecognised, "not a HEIF image") }
        try file.requireIntact()
        guard h.items.contains(where: { $0.id == eye }) else {
            throw ParseError(.danglingReference, path: "meta/iinf", "item \(eye) does not exist")
        }
        let tiles = h.references(from: eye, type: "dimg")
        let metadata = h.allReferences.filter { $0.type == "cdsc" && $0.to.contains(eye) }.map(\.from)
        var builder = HEIFBuilder(brands: ["heic", "mif1"], primaryItemID: eye)
        var seen = Set<UInt32>()
        for id in [eye] + tiles + metadata where seen.insert(id).inserted {
            guard let it = h.items.first(where: { $0.id == id }) else {
                throw ParseError(
                    .danglingReference, path: "meta/iref", "item \(id) referenced by the eye does not exist")
            }
            let data = try h.data(of: id, file: file)
            let method = h.location?.item(id)?.constructionMethod ?? 0
            let props = h.properties(of: id)
            builder.items.append(
                .init(
                    id: id, type: it.type, name: it.name, hidden: id != eye && it.hidden, contentType: it.contentType,
                    data: data, inIdat: method == 1, properties: props))
        }
        if !tiles.isEmpty { builder.references.append(.init(type: "dimg", from: eye, to: tiles)) }
        for m in metadata { builder.references.append(.init(type: "cdsc", from: m, to: [eye])) }
        // The eye's auxiliary images (gain map, depth, alpha) and thumbnails go with it, bytes unchanged.
        let highest = h.items.map(\.id).max() ?? 0
        var nextID = highest == UInt32.max ? highest : highest + 1
        for b in try HEIFItemBundle.attached(to: eye, file: file).bundles {
            try builder.attach(b, to: eye, nextID: &nextID)
        }
        return try builder.build()
    }

    /// Images that are shown on their own: image items that are neither hidden nor thumbnails/auxiliary images.
    static func displayableImages(_ h: HEIFMeta) -> [UInt32] {
        let secondary = Set(
            h.allReferences.filter {
                ["thmb", "auxl", "base", "dimg"].contains($0.type.description) && $0.type != "dimg"
            }.map(\.from)
        )
        .union(h.allReferences.filter { $0.type == "dimg" }.flatMap(\.to))
        return h.items.filter {
            SpatialPhotoReader.imageTypes.contains($0.type.description) && !$0.hidden && !secondary.contains($0.id)
        }.map(\.id)
    }

    /// Combines two single-image HEIF files into one spatial photo (all items of both copied, ids of the second
    /// renumbered). A nil field of `edit` keeps the camera properties the eyes carry (the eyes `split` writes keep
    /// theirs; see ``fillingDefaults(_:defaults:combiningLeft:right:)``); a nil disparity adjustment on eyes that carry
    /// none writes 0. Truncated inputs and eyes that cannot stand alone (``SpatialPhotoReader/unusableEye(_:name:)``)
    /// are refused.
    package static func combine(
        leftPath: String, rightPath: String, stereo edit: StereoParameters, form: CameraPropertyForm = .apple,
        output: String
    ) throws(ParseError) -> PhotoEditResult {
        try edit.checkedForPhoto()
        let a = try openIntact(leftPath), b = try openIntact(rightPath)
        guard let ha = a.heif, let hb = b.heif else {
            throw ParseError(.notRecognised, path: a.heif == nil ? leftPath : rightPath, "not a HEIF image")
        }
        guard let pa = ha.primaryItemID, let pb = hb.primaryItemID else {
            throw ParseError(.invalidValue, path: leftPath, "both inputs need a primary image")
        }
        let sa = ha.size(of: pa), sb = hb.size(of: pb)
        guard let sa, let sb, sa.width == sb.width, sa.height == sb.height else {
            throw ParseError(
                .invalidValue,
                "the two images differ in size (\(sa.map { "\($0.width)x\($0.height)" } ?? "?") and \(sb.map { "\($0.width)x\($0.height)" } ?? "?")); both eyes must be the same size"
            )
        }
        try refuseUnusableEyes([(ha, pa, "left", leftPath), (hb, pb, "right", rightPath)])
        var builder = HEIFBuilder(brands: ["heic", "mif1"], primaryItemID: pa)
        // The right file's ids move past every id of the left (its items and entity groups share one id space).
        let shift = (ha.items.map(\.id) + ha.groups.map(\.id)).max() ?? 0
        let highestB = (hb.items.map(\.id) + hb.groups.map(\.id)).max() ?? 0
        guard highestB < UInt32.max - shift else {
            throw ParseError(
                .unsupported, path: rightPath,
                "the two files' item ids do not fit one file (\(shift) + \(highestB) is past 4294967294)")
        }
        // What each eye keeps of its own camera properties: the kinds the edit does not set.
        let carriesDisparity = [(ha, pa), (hb, pb)].contains { h, id in
            h.properties(of: id).contains { kind(of: $0.box)?.0 == .disparity }
        }
        let newValues = StereoParameters(
            baselineMicrometres: edit.baselineMicrometres,
            horizontalFieldOfViewMillidegrees: edit.horizontalFieldOfViewMillidegrees,
            disparityAdjustment: edit.disparityAdjustment ?? (carriesDisparity ? nil : 0))
        func replaced(_ k: Kind) -> Bool {
            switch k {
            case .intrinsics: return newValues.horizontalFieldOfViewMillidegrees != nil
            case .extrinsics: return newValues.baselineMicrometres != nil
            case .disparity: return newValues.disparityAdjustment != nil
            }
        }
        for (file, h, offset) in [(a, ha, UInt32(0)), (b, hb, shift)] {
            for it in h.items {
                let data = try h.data(of: it.id, file: file)
                let method = h.location?.item(it.id)?.constructionMethod ?? 0
                let isEye = it.id == (offset == 0 ? pa : pb)
                var props = h.properties(of: it.id).filter { p in
                    kind(of: p.box).map { isEye && !replaced($0.0) } ?? true
                }
                if isEye {
                    props += SpatialPhotoWriter.cameraProperties(
                        eye: offset == 0 ? .left : .right, width: Int(sa.width), height: Int(sa.height),
                        stereo: newValues, form: form)
                }
                builder.items.append(
                    .init(
                        id: it.id + offset, type: it.type, name: it.name, hidden: it.hidden,
                        contentType: it.contentType,
                        data: data, inIdat: method == 1, properties: props))
            }
            for r in h.allReferences {
                builder.references.append(.init(type: r.type, from: r.from + offset, to: r.to.map { $0 + offset }))
            }
            // Each input's own entity groups (e.g. a Samsung altr of tone-mapped and base image) come along; a ster
            // group of an input is replaced by the new pair.
            for g in h.groups where g.type != "ster" {
                builder.groups.append((type: g.type, id: g.id + offset, entities: g.entityIDs.map { $0 + offset }))
            }
        }
        let groupID = ((builder.items.map(\.id) + builder.groups.map(\.id)).max() ?? 0) + 1
        builder.groups.append((type: "ster", id: groupID, entities: [pa, pb + shift]))
        let bytes = try builder.build()
        try AtomicFile.write(path: output, bytes: bytes)
        return PhotoEditResult(
            output: output, leftItemID: pa, rightItemID: pb + shift,
            changes: [
                "combined \(leftPath) (left, item \(pa)) and \(rightPath) (right, item \(pb + shift)) into ster group \(groupID)"
            ] + describe(edit),
            bytesWritten: UInt64(bytes.count))
    }

    static func describe(_ e: StereoParameters) -> [String] {
        var out: [String] = []
        if let b = e.baselineMicrometres { out.append("baseline \(NumberText.fixed(Double(b) / 1000, places: 3)) mm") }
        if let f = e.horizontalFieldOfViewMillidegrees {
            out.append("horizontal field of view \(NumberText.fixed(Double(f) / 1000, places: 3))°")
        }
        if let d = e.disparityAdjustment {
            out.append("disparity adjustment \(NumberText.fixed(Double(d) / 100, places: 2)) %")
        }
        return out
    }

    /// The camera properties each eye should end with: its current ones, with the edited values replaced.
    static func desiredProperties(
        _ edit: StereoParameters, heif h: HEIFMeta, eyes: [(SpatialPhotoWriter.Eye, UInt32)],
        width: Int, height: Int, addGroup: Bool
    ) -> [UInt32: [Kind: any BoxPayload]] {
        var desired: [UInt32: [Kind: any BoxPayload]] = [:]
        for (eye, id) in eyes {
            let existing = h.properties(of: id)
            func current<T: BoxPayload>(_ t: T.Type) -> T? { existing.lazy.compactMap { $0.box.payload(T.self) }.first }
            var d: [Kind: any BoxPayload] = [:]
            let intr = current(CameraIntrinsicsProperty.self)
            if let hfov = edit.horizontalFieldOfViewMillidegrees {
                let w = width, hh = height
                let fx = Double(w) / 2 / tan(Double(hfov) / 1000 / 2 * Double.pi / 180)
                var p = CameraIntrinsicsProperty(
                    fx: fx, cx: Double(w) / 2, cy: Double(hh) / 2, width: w, height: hh,
                    denominatorShift: UInt8(intr?.denominatorShift ?? 28))
                if let old = intr { p.principalPointX = old.principalPointX; p.principalPointY = old.principalPointY }
                d[.intrinsics] = p
            } else if let intr {
                d[.intrinsics] = intr
            }
            let extr = current(CameraExtrinsicsProperty.self)
            if let b = edit.baselineMicrometres {
                if eye == .left {
                    d[.extrinsics] = extr ?? CameraExtrinsicsProperty(positionMicrometres: 0)
                } else {
                    var p = extr ?? CameraExtrinsicsProperty(positionMicrometres: Int32(clamping: b))
                    p.positionX = Int32(clamping: b)
                    p.fullBox.flags |= 1
                    d[.extrinsics] = p
                }
            } else if let extr {
                d[.extrinsics] = extr
            }
            if let v = edit.disparityAdjustment {
                d[.disparity] = DisparityAdjustmentProperty(value: v)
            } else if let cur = current(DisparityAdjustmentProperty.self) {
                d[.disparity] = cur
            } else if addGroup {
                d[.disparity] = DisparityAdjustmentProperty(value: 0)
            }  // Apple expects one on a spatial photo
            desired[id] = d
        }
        return desired
    }

    /// Adds the `ster` entity group (replacing any) and makes the left eye the primary item; returns the change line.
    static func addStereoGroup(to meta: inout Box, heif h: HEIFMeta, items: Set<UInt32>, left: UInt32, right: UInt32)
        throws(ParseError) -> String
    {
        let groupIDs = h.groups.map(\.id)
        let highest = (Array(items) + groupIDs).max() ?? 0
        guard highest < UInt32.max else {
            throw ParseError(
                .unsupported, path: "meta/iinf",
                "no entity id is left for the ster group (an item or group uses 4294967295)")
        }
        let newID = highest + 1
        var grpl = meta.child("grpl") ?? Box(type: "grpl", children: [])
        grpl.removeChildren("ster")
        var kids = grpl.children ?? []
        kids.append(Box(EntityToGroupBox(groupID: newID, entityIDs: [left, right]), type: "ster"))
        grpl.children = kids
        meta.setChild(grpl)
        var pitm = meta.child("pitm") ?? Box(type: "pitm")
        let wide = left > 0xFFFF
        pitm.fields = .typed(
            PrimaryItemBox(itemID: left).with(
                version: wide ? 1 : (pitm.payload(PrimaryItemBox.self)?.fullBox.version ?? 0)))
        meta.setChild(pitm)
        return "ster group \(newID): left item \(left), right item \(right); primary item \(left)"
    }

    /// The eyes' common size: both items exist, differ, have an `ispe` and the same size.
    private static func eyeSize(
        _ h: HEIFMeta, meta: Box, left: UInt32,
        right: UInt32
    ) throws(ParseError) -> (width: UInt32, height: UInt32) {
        let items = Set(h.items.map(\.id))
        for id in [left, right] where !items.contains(id) {
            throw ParseError(
                .danglingReference, offset: meta.header.offset, path: "meta/iinf", "item \(id) does not exist")
        }
        guard left != right else { throw ParseError(.invalidValue, "left and right must be different items") }
        let ls = h.size(of: left), rs = h.size(of: right)
        guard let ls, let rs else {
            throw ParseError(
                .invalidValue, offset: meta.header.offset, path: "meta/iprp", "an eye has no ispe (image size)")
        }
        guard ls.width == rs.width && ls.height == rs.height else {
            throw ParseError(
                .invalidValue, offset: meta.header.offset, path: "meta/iprp",
                "eyes differ in size: item \(left) is \(ls.width)x\(ls.height), item \(right) is \(rs.width)x\(rs.height)"
            )
        }
        return (ls.width, ls.height)
    }

    /// Applies `edit` to the eyes `left`/`right` of `file` and writes the result.
    static func apply(
        _ edit: StereoParameters, form: CameraPropertyForm, to file: ISOFile, left: UInt32, right: UInt32,
        addGroup: Bool, output: String
    ) throws(ParseError) -> PhotoEditResult {
        try edit.checkedForPhoto()
        guard let h = file.heif, var meta = file.box("meta") else {
            throw ParseError(.notRecognised, "not a HEIF image")
        }
        let items = Set(h.items.map(\.id))
        let ls = try eyeSize(h, meta: meta, left: left, right: right)
        var changes = describe(edit)
        guard var iprp = meta.child("iprp"), var ipco = iprp.child("ipco"), let ipmaBox = iprp.child("ipma"),
            var ipma = ipmaBox.payload(ItemPropertyAssociationBox.self)
        else {
            throw ParseError(
                .invalidValue, offset: meta.header.offset, path: "meta/iprp", "no item properties (iprp/ipco/ipma)")
        }
        var props = ipco.children ?? []
        let eyes: [(SpatialPhotoWriter.Eye, UInt32)] = [(.left, left), (.right, right)]
        // Desired payload per (eye, kind), from the existing values and the edit.
        let desired = desiredProperties(
            edit, heif: h, eyes: eyes, width: Int(ls.width), height: Int(ls.height), addGroup: addGroup)
        func makeBox(_ p: any BoxPayload, _ kind: Kind, _ form: CameraPropertyForm) -> Box {
            switch kind {
            case .intrinsics:
                return SpatialPhotoWriter.property(p, form: form, standard: "cmin", uuid: AppleUUID.cameraIntrinsics)
            case .extrinsics:
                return SpatialPhotoWriter.property(p, form: form, standard: "cmex", uuid: AppleUUID.cameraExtrinsics)
            case .disparity: return Box(type: "uuid", fields: .typed(p), userType: AppleUUID.disparityAdjustment)
            }
        }
        func bytes(_ b: Box) -> [UInt8] { (try? b.serialized()) ?? [] }
        // Which items use each property index.
        var users: [UInt16: Set<UInt32>] = [:]
        for e in ipma.entries { for a in e.associations { users[a.propertyIndex, default: []].insert(e.itemID) } }
        var appended: [[UInt8]: UInt16] = [:]
        func append(_ b: Box) -> UInt16 {
            let key = bytes(b)
            if let i = appended[key] { return i }
            props.append(b)
            let i = UInt16(truncatingIfNeeded: props.count)
            appended[key] = i
            return i
        }
        for (_, id) in eyes {
            guard let want = desired[id] else { continue }
            var entryIndex = ipma.entries.firstIndex { $0.itemID == id }
            if entryIndex == nil {
                ipma.entries.append(.init(itemID: id, associations: [])); entryIndex = ipma.entries.count - 1
            }
            guard let ei = entryIndex else { continue }
            var seenKinds: [Kind: Set<CameraPropertyForm>] = [:]
            for (ai, a) in ipma.entries[ei].associations.enumerated() {
                let pi = Int(a.propertyIndex)
                guard pi >= 1, pi <= props.count, let (k, form) = kind(of: props[pi - 1]), let payload = want[k] else {
                    continue
                }
                seenKinds[k, default: []].insert(form)
                let newBox = makeBox(payload, k, form)
                if bytes(newBox) == bytes(props[pi - 1]) { continue }
                // Replace in place when every user of this property is an edited eye wanting the same box.
                let sharers = users[a.propertyIndex] ?? []
                let sameForAll = sharers.allSatisfy { other in
                    guard let p = desired[other]?[k] else { return false }
                    return bytes(makeBox(p, k, form)) == bytes(newBox)
                }
                if sameForAll {
                    props[pi - 1] = newBox
                } else {
                    ipma.entries[ei].associations[ai].propertyIndex = append(newBox)
                }
            }
            for k in Kind.allCases where seenKinds[k] == nil {
                guard let payload = want[k] else { continue }
                let forms: [CameraPropertyForm] =
                    k == .disparity ? [.apple] : (form == .both ? [.apple, .standard] : [form])
                for f in forms {
                    let idx = append(makeBox(payload, k, f))
                    ipma.entries[ei].associations.append(.init(essential: false, propertyIndex: idx))
                }
                if k != .disparity || edit.disparityAdjustment == nil {
                    changes.append("added \(k) property to item \(id)")
                }
            }
        }
        if props.count > 127 { ipma.fullBox.flags |= 1 }
        ipco.children = props
        iprp.setChild(ipco)
        var iprpChildren = iprp.children ?? []
        if let i = iprpChildren.firstIndex(where: { $0.type == "ipma" }) { iprpChildren[i].fields = .typed(ipma) }
        iprp.children = iprpChildren
        meta.setChild(iprp)

        if addGroup {
            changes.insert(try addStereoGroup(to: &meta, heif: h, items: items, left: left, right: right), at: 0)
        }
        let newFile = try HEIFLayout.replaceMeta(in: file, with: meta)
        try newFile.write(to: output)
        let size = newFile.segments().reduce(UInt64(0)) { n, s in
            switch s {
            case .bytes(let b): return n + UInt64(b.count);
            case .range(_, let l): return n + l
            }
        }
        return PhotoEditResult(
            output: output, leftItemID: left, rightItemID: right, changes: changes, bytesWritten: size)
    }
}

extension PrimaryItemBox {
    func with(version: UInt8) -> PrimaryItemBox {
        var p = self
        p.fullBox = FullBoxHeader(version: itemID > 0xFFFF ? 1 : version)
        return p
    }
}

extension SpatialPhotoEditor {
    /// True when the file is a HEIF image (a top-level `meta` with a `pict` handler and no movie).
    public static func isHEIF(path: String) -> Bool {
        guard let f = try? ISOFile.open(path: path), f.box("moov") == nil, let h = f.heif else { return false }
        return h.handler == "pict"
    }
}

extension SpatialPhotoEditor {
    /// Refuses an eye that cannot stand alone (``SpatialPhotoReader/unusableEye(_:name:)``), naming its file when there
    /// are two.
    static func refuseUnusableEyes(_ eyes: [(meta: HEIFMeta, item: UInt32, name: String, file: String?)])
        throws(ParseError)
    {
        for e in eyes {
            guard let item = e.meta.items.first(where: { $0.id == e.item }),
                let why = SpatialPhotoReader.unusableEye(item, name: e.name)
            else { continue }
            throw ParseError(
                .unsupported, offset: e.meta.meta.header.offset, path: "meta/iinf",
                e.file.map { "\($0): \(why)" } ?? why)
        }
    }

    /// Opens an image file for a command that writes from it, refusing it when it is truncated or damaged
    /// (``/ISOBMFF/ISOFile/requireIntact(limits:operation:)``); errors name the file and `operation` (what the
    /// refusal says was not done).
    public static func openIntact(_ path: String, operation: String = "write") throws(ParseError) -> ISOFile {
        let file = try ISOFile.open(path: path)
        do throws(ParseError) { try file.requireIntact(operation: operation) } catch {
            var e = error
            e.message = "\(path): \(e.message)"
            throw e
        }
        return file
    }
}
