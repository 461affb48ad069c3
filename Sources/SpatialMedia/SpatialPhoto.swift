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

/// Which encoding a camera property was found in.
public enum PropertyForm: String, Sendable, Equatable {
    /// The standard FourCC box (`cmin`, `cmex`).
    case standard
    /// Apple's `uuid` box with the same payload.
    case appleUUID = "apple-uuid"
}

/// One eye of a stereo HEIC.
public struct PhotoEye: Sendable {
    public var itemID: UInt32
    public var itemType: String
    public var width: Int
    public var height: Int
    /// Number of tiles when the eye is a `grid`, else 1.
    public var tiles: Int
    public var intrinsics: CameraIntrinsicsProperty?
    public var intrinsicsForms: [PropertyForm]
    public var extrinsics: CameraExtrinsicsProperty?
    public var extrinsicsForms: [PropertyForm]
    /// Apple's disparity adjustment (1/10000 of the width) associated with this eye.
    public var disparityAdjustment: Int32?
    /// Other properties associated with the eye (`colr`, `pixi`, `irot`, `imir`, `clap`, …) by type.
    public var otherProperties: [String]
    /// Items linked to this eye: (reference type, item id, item type) — Exif/XMP (`cdsc`), depth/alpha/gain
    /// maps (`auxl`), thumbnails (`thmb`).
    public var linkedItems: [(reference: String, id: UInt32, type: String)]

    /// fx in pixels.
    public var focalLengthPixels: Double? { intrinsics.map { $0.fxRelative * Double(width) } }
    /// Horizontal field of view in degrees, from fx and the width: 2·atan(W / 2fx).
    public var horizontalFOVDegrees: Double? {
        guard let fx = focalLengthPixels, fx > 0 else { return nil }
        return 2 * atan(Double(width) / (2 * fx)) * 180 / Double.pi
    }
    /// Principal point in pixels.
    public var principalPoint: (x: Double, y: Double)? {
        intrinsics.map { ($0.cxRelative * Double(width), $0.cyRelative * Double(height)) }
    }
    /// Principal point offset from the image centre, in pixels.
    public var principalPointOffset: (x: Double, y: Double)? {
        principalPoint.map { ($0.x - Double(width) / 2, $0.y - Double(height) / 2) }
    }
}

/// A stereo HEIC read from a file: the `ster` group and both eyes with their camera properties.
public struct SpatialPhoto: Sendable {
    public var groupID: UInt32
    public var left: PhotoEye
    public var right: PhotoEye
    public var primaryItemID: UInt32?
    public var diagnostics: [SpatialDiagnostic]

    /// Baseline in micrometres from the two camera positions (distance between them), when both are known.
    public var baselineMicrometres: Double? {
        guard let r = right.extrinsics?.position else { return nil }
        // A missing left extrinsics box means the left camera is the origin (Apple writes an empty one).
        let l = left.extrinsics?.position ?? (x: 0, y: 0, z: 0)
        let dx = Double(r.x - l.x), dy = Double(r.y - l.y), dz = Double(r.z - l.z)
        let sum: Double = dx * dx + dy * dy + dz * dz
        return sum.squareRoot()
    }
    /// Disparity adjustment (1/10000 of width): the left eye's, or the right's when only it has one.
    public var disparityAdjustment: Int32? { left.disparityAdjustment ?? right.disparityAdjustment }
    /// Horizontal field of view in degrees (left eye's intrinsics).
    public var horizontalFOVDegrees: Double? { left.horizontalFOVDegrees ?? right.horizontalFOVDegrees }
    /// Rotation between the eyes in degrees (right relative to left).
    public var rotationDegrees: Double {
        (right.extrinsics?.rotationDegrees ?? 0) - (left.extrinsics?.rotationDegrees ?? 0)
    }

    /// The stereo parameters in the stored units every part of the library uses. A photo stores no baseline as
    /// such: it is the distance between the two camera positions (``baselineMicrometres``, exact, kept in this
    /// model with the raw extrinsics), here rounded to whole micrometres (nil when it exceeds `UInt32`). The field of
    /// view is derived from the left eye's focal length (``horizontalFOVDegrees``), rounded to 1/1000°. The
    /// disparity adjustment is as stored. Photos have no hero eye or projection (both nil).
    /// See `Specs/stereo-parameters.md`.
    public var stereo: StereoParameters {
        StereoParameters(
            baselineMicrometres: baselineMicrometres.flatMap { UInt32(exactly: $0.rounded(.toNearestOrAwayFromZero)) },
            horizontalFieldOfViewMillidegrees: horizontalFOVDegrees.flatMap {
                UInt32(exactly: ($0 * 1000).rounded(.toNearestOrAwayFromZero))
            },
            disparityAdjustment: disparityAdjustment)
    }
}

extension SpatialPhoto {
    /// Reads the spatial photo at `path` (metadata only; no pixel is decoded). Throws
    /// ``/BinaryIO/ParseError/Code/unsupported`` when the file is a HEIF image without a stereo pair (`ster` group),
    /// naming why.
    public init(contentsOf path: String, limits: Limits = .default) throws(ParseError) {
        let file = try ISOFile.open(path: path, limits: limits)
        guard file.heif != nil else { throw ParseError(.notRecognised, path: path, "not a HEIF image (no meta box)") }
        var problems: [SpatialDiagnostic] = []
        guard let photo = SpatialPhotoReader.read(file, problems: &problems) else {
            throw ParseError(
                .unsupported, path: path, problems.first?.message ?? "not a spatial photo (no ster entity group)")
        }
        self = photo
    }
}

/// Reads spatial photos from HEIF files.
public enum SpatialPhotoReader {
    static let imageTypes: Set<String> = [
        "hvc1", "grid", "iden", "iovl", "av01", "jpeg", "unci", "avc1", "vvc1", "j2k1", "tmap", "lhv1",
    ]

    /// The stereo pair of a HEIF file, or nil when it has no `ster` group. Problems (a group of the wrong
    /// size, entities that are not images, eyes of different sizes) are reported as diagnostics; a group
    /// that cannot describe two eyes at all yields nil plus the reason in `problems`.
    public static func read(_ file: ISOFile, problems: inout [SpatialDiagnostic]) -> SpatialPhoto? {
        guard let h = file.heif else { return nil }
        let groups = h.groups.filter { $0.type == "ster" }
        guard let g = groups.first else { return nil }
        var diags: [SpatialDiagnostic] = []
        if groups.count > 1 {
            diags.append(
                SpatialDiagnostic(
                    .info, offset: h.meta.header.offset, path: "meta/grpl",
                    "\(groups.count) ster groups; using group \(g.id) (others may pair thumbnails)"))
        }
        guard g.entityIDs.count == 2 else {
            problems.append(
                SpatialDiagnostic(
                    .error, offset: h.meta.header.offset, path: "meta/grpl",
                    "ster group \(g.id) has \(g.entityIDs.count) entities; a stereo pair needs exactly 2"))
            return nil
        }
        let items = Dictionary(h.items.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        var eyes: [PhotoEye] = []
        for (i, id) in g.entityIDs.enumerated() {
            let name = i == 0 ? "left" : "right"
            guard let item = items[id] else {
                problems.append(
                    SpatialDiagnostic(
                        .error, offset: h.meta.header.offset, path: "meta/grpl",
                        "ster group \(g.id) names item \(id) (\(name) eye), which does not exist"))
                return nil
            }
            if !imageTypes.contains(item.type.description) {
                problems.append(
                    SpatialDiagnostic(
                        .error, offset: h.meta.header.offset, path: "meta/grpl",
                        "ster group \(g.id): item \(id) (\(name) eye) is '\(item.type)', not an image"))
                return nil
            }
            if let why = unusableEye(item, name: name) {
                diags.append(SpatialDiagnostic(.error, offset: h.meta.header.offset, path: "meta/iinf", why))
            }
            eyes.append(eye(item: item, meta: h, diagnostics: &diags))
        }
        let photo = SpatialPhoto(
            groupID: g.id, left: eyes[0], right: eyes[1], primaryItemID: h.primaryItemID, diagnostics: diags)
        return photo
    }

    /// Why an image item cannot be an eye of a spatial photo, or nil: a layered-HEVC (`lhv1`) item is one layer of a
    /// multi-layer stream and needs the other layer to decode. The one statement of this rule: `validate` reports it
    /// (SV-PHOTO-021) and `combine` refuses such an eye with it.
    public static func unusableEye(_ item: HEIFMeta.Item, name: String) -> String? {
        guard item.type == "lhv1" else { return nil }
        return
            "item \(item.id) (\(name) eye) is a layered-HEVC ('lhv1') image: a layer of a multi-layer (L-HEVC/MV-HEVC) stream, which needs the other layer to decode; Apple's readers don't take it — they expect each eye as its own 'hvc1' (or grid) item"
    }

    static func eye(item: HEIFMeta.Item, meta h: HEIFMeta, diagnostics: inout [SpatialDiagnostic]) -> PhotoEye {
        let size = h.size(of: item.id)
        var e = PhotoEye(
            itemID: item.id, itemType: item.type.description, width: Int(size?.width ?? 0),
            height: Int(size?.height ?? 0),
            tiles: item.type == "grid" ? h.references(from: item.id, type: "dimg").count : 1,
            intrinsics: nil, intrinsicsForms: [], extrinsics: nil, extrinsicsForms: [], disparityAdjustment: nil,
            otherProperties: [], linkedItems: [])
        for (box, _) in h.properties(of: item.id) {
            if let p = box.payload(CameraIntrinsicsProperty.self) {
                if e.intrinsics == nil {
                    e.intrinsics = p
                } else if e.intrinsics != p {
                    diagnostics.append(
                        SpatialDiagnostic(
                            .warning, offset: h.meta.header.offset, path: "meta/iprp",
                            "item \(item.id) has two different intrinsics properties; using the first"))
                }
                e.intrinsicsForms.append(box.header.userType == nil ? .standard : .appleUUID)
            } else if let p = box.payload(CameraExtrinsicsProperty.self) {
                if e.extrinsics == nil { e.extrinsics = p }
                e.extrinsicsForms.append(box.header.userType == nil ? .standard : .appleUUID)
            } else if let p = box.payload(DisparityAdjustmentProperty.self) {
                e.disparityAdjustment = p.value
            } else if box.malformed != nil,
                box.header.userType == AppleUUID.cameraExtrinsics || box.type == "cmex" || box.type == "cmin"
                    || box.header.userType == AppleUUID.cameraIntrinsics
            {
                diagnostics.append(
                    SpatialDiagnostic(
                        .error, offset: h.meta.header.offset, path: "meta/iprp",
                        "item \(item.id): camera property at offset \(box.header.offset) cannot be read: \(box.malformed?.message ?? "")"
                    ))
            } else if box.type != "ispe" {
                e.otherProperties.append(
                    box.header.userType.map { "uuid:" + UUIDText.format($0) } ?? box.type.description)
            }
        }
        if let i = e.intrinsics {
            if i.focalLengthX <= 0 {
                diagnostics.append(
                    SpatialDiagnostic(
                        .error, offset: h.meta.header.offset, path: "meta/iprp",
                        "item \(item.id): focal length \(i.focalLengthX) is not positive"))
            }
            if i.denominatorShift > 30 {
                diagnostics.append(
                    SpatialDiagnostic(
                        .warning, offset: h.meta.header.offset, path: "meta/iprp",
                        "item \(item.id): denominator shift \(i.denominatorShift) is larger than 30"))
            }
        }
        // Items that point at this eye: metadata (cdsc), auxiliary images (auxl), thumbnails (thmb).
        for (type, from, to) in h.allReferences
        where to.contains(item.id) && ["cdsc", "auxl", "thmb", "prem"].contains(type.description) {
            let t = h.items.first { $0.id == from }?.type.description ?? "?"
            e.linkedItems.append((type.description, from, t))
        }
        return e
    }

    /// Text lines and JSON for `info` on a photo; nil when the file is not HEIF.
    public static func infoSection(_ file: ISOFile) -> (lines: [String], json: JSON)? {
        guard file.heif != nil else { return nil }
        var problems: [SpatialDiagnostic] = []
        guard let p = read(file, problems: &problems) else {
            let reason = problems.first?.message ?? "no ster entity group"
            return (
                ["spatial photo: no (\(reason))"],
                .object([("is_spatial_photo", .bool(false)), ("reason", .string(reason))])
            )
        }
        var lines: [String] = []
        lines.append(
            "spatial photo: ster group \(p.groupID): left item \(p.left.itemID), right item \(p.right.itemID)"
                + (p.primaryItemID.map { ", primary \($0)" } ?? ""))
        for (name, e) in [("left", p.left), ("right", p.right)] {
            var s = "  \(name): \(e.itemType) \(e.width)x\(e.height)" + (e.tiles > 1 ? " (\(e.tiles) tiles)" : "")
            if let fov = e.horizontalFOVDegrees { s += ", HFOV \(NumberText.fixed(fov, places: 2))°" }
            if let fx = e.focalLengthPixels { s += ", fx \(NumberText.fixed(fx, places: 2)) px" }
            if let pp = e.principalPointOffset {
                s +=
                    ", principal point offset (\(NumberText.fixed(pp.x, places: 2)), \(NumberText.fixed(pp.y, places: 2))) px"
            }
            if let x = e.extrinsics { let q = x.position; s += ", position (\(q.x), \(q.y), \(q.z)) µm" }
            let forms =
                (e.intrinsicsForms.map { "intrinsics:\($0.rawValue)" }
                    + e.extrinsicsForms.map { "extrinsics:\($0.rawValue)" })
            if !forms.isEmpty { s += " [\(forms.joined(separator: ", "))]" }
            lines.append(s)
        }
        if let b = p.baselineMicrometres {
            lines.append("  baseline: \(NumberText.fixed(b / 1000, places: 3)) mm")
        } else {
            lines.append("  baseline: unknown (no extrinsics)")
        }
        if let f = p.horizontalFOVDegrees {
            lines.append("  horizontal field of view: \(NumberText.fixed(f, places: 2))°")
        } else {
            lines.append("  horizontal field of view: unknown (no intrinsics)")
        }
        if let d = p.disparityAdjustment {
            lines.append(
                "  disparity adjustment: \(d >= 0 ? "+" : "")\(NumberText.fixed(Double(d) / 100, places: 2)) %")
        } else {
            lines.append("  disparity adjustment: absent")
        }
        lines.append("  rotation between eyes: \(NumberText.fixed(p.rotationDegrees, places: 3))°")
        for d in p.diagnostics { lines.append("  \(d)") }
        func eyeJSON(_ e: PhotoEye) -> JSON {
            var o: [(String, JSON)] = [
                ("item_id", .uint(UInt64(e.itemID))), ("item_type", .string(e.itemType)),
                ("width", .uint(UInt64(e.width))), ("height", .uint(UInt64(e.height))),
                ("tiles", .uint(UInt64(e.tiles))),
            ]
            if let f = e.focalLengthPixels { o.append(("focal_length_px", .double(f))) }
            if let f = e.horizontalFOVDegrees { o.append(("hfov_degrees", .double(f))) }
            if let pp = e.principalPoint { o.append(("principal_point_px", .array([.double(pp.x), .double(pp.y)]))) }
            if let x = e.extrinsics {
                let q = x.position; o.append(("position_um", .array([.int(q.x), .int(q.y), .int(q.z)])))
            }
            if let d = e.disparityAdjustment { o.append(("disparity_adjustment", .int(Int64(d)))) }
            o.append(("intrinsics_forms", .array(e.intrinsicsForms.map { .string($0.rawValue) })))
            o.append(("extrinsics_forms", .array(e.extrinsicsForms.map { .string($0.rawValue) })))
            o.append(
                (
                    "linked_items",
                    .array(
                        e.linkedItems.map {
                            .object([
                                ("reference", .string($0.reference)), ("id", .uint(UInt64($0.id))),
                                ("type", .string($0.type)),
                            ])
                        })
                ))
            return .object(o)
        }
        var j: [(String, JSON)] = [
            ("is_spatial_photo", .bool(true)), ("group_id", .uint(UInt64(p.groupID))), ("left", eyeJSON(p.left)),
            ("right", eyeJSON(p.right)),
        ]
        if let b = p.baselineMicrometres { j.append(("baseline_mm", .double(b / 1000))) }
        if let f = p.horizontalFOVDegrees { j.append(("hfov_degrees", .double(f))) }
        if let d = p.disparityAdjustment { j.append(("disparity_percent", .double(Double(d) / 100))) }
        j.append(("rotation_degrees", .double(p.rotationDegrees)))
        j.append(("diagnostics", .array(p.diagnostics.map { .string($0.description) })))
        return (lines, .object(j))
    }
}
