import BinaryIO
import Codecs
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialMedia
import StereoVision

/// Carries each eye's auxiliary images (HDR gain map, depth, alpha, mattes) and thumbnails from the sources of a photo
/// job to its output, each to its own eye: byte-exact when the pictures keep their geometry; warped, cropped and
/// re-encoded like the pictures (the warp scaled to the auxiliary image's resolution) after `align`. Anything that
/// cannot follow is named with the reason — never a silent loss. See `Specs/spatial-photo.md`, "Auxiliary images".
public enum AuxiliaryCarry {
    /// The bundles each eye's output carries and one report line per auxiliary image or thumbnail.
    public static func prepare(_ pairIn: StereoPair, quality: Int, limits: Limits = .default)
        -> (left: [HEIFItemBundle], right: [HEIFItemBundle], notes: [String])
    {
        var pair = pairIn
        var notes = pair.auxiliaryNotCarried
        // A JPEG eye's gain map is encoded first; it then travels like any other bundle (warped with its eye after
        // align).
        var encodedNotes: [UInt32: String] = [:]
        var fromJPEG = Set<String>()
        for (i, g) in [(0, pair.leftGainMap), (1, pair.rightGainMap)] {
            guard let g else { continue }
            let name = i == 0 ? "left" : "right"
            do throws(ParseError) {
                let b = try gainMapBundle(g, quality: quality, limits: limits)
                if i == 0 { pair.leftAuxiliary.append(b) } else { pair.rightAuxiliary.append(b) }
                fromJPEG.insert("\(i)-\(b.rootID)")
                encodedNotes[UInt32(i)] =
                    "\(name) eye: \(g.description) carried: "
                    + (g.isApple
                        ? "encoded as HEVC with Apple's gain-map URN and its XMP (Apple's form)"
                        : "encoded as HEVC, applied through an ISO 21496-1 tmap item (its metadata kept: \(g.metadata?.summary ?? "")); "
                            + "its XMP kept as a metadata item")
            } catch {
                notes.append("\(name) eye: \(g.description) dropped: it cannot be encoded (\(error.message))")
            }
        }
        guard let warp = pair.eyeWarp else {
            for (i, (name, list)) in [("left", pair.leftAuxiliary), ("right", pair.rightAuxiliary)].enumerated() {
                for b in list {
                    if fromJPEG.contains("\(i)-\(b.rootID)"), let n = encodedNotes[UInt32(i)] {
                        notes.append(n)
                        continue
                    }
                    notes.append("\(name) eye: \(b.description) kept, bytes unchanged")
                }
            }
            return (pair.leftAuxiliary, pair.rightAuxiliary, notes)
        }
        var out: [[HEIFItemBundle]] = [[], []]
        let eyes = [
            ("left", pair.leftAuxiliary, warp.leftHomography), ("right", pair.rightAuxiliary, warp.rightHomography),
        ]
        for (i, (name, list, h)) in eyes.enumerated() {
            for b in list {
                do throws(ParseError) {
                    var t = try transformed(b, homography: h, warp: warp, quality: quality, limits: limits)
                    t.toneMap = b.toneMap
                    out[i].append(t)
                    notes.append(
                        "\(name) eye: \(b.description) warped and cropped with the picture (at its own resolution) and re-encoded: \(t.width)x\(t.height)"
                    )
                } catch {
                    notes.append(
                        "\(name) eye: \(b.description) dropped: it cannot be warped with the picture (\(error.message))"
                    )
                }
            }
        }
        return (out[0], out[1], notes)
    }

    /// The least quality a gain map taken from a JPEG is encoded at (x265 CRF 13): a map is small, and its values
    /// scale every pixel's brightness.
    public static let gainMapMinimumQuality = 90

    /// A JPEG eye's gain map as a bundle: decoded, turned like its picture, encoded as HEVC (4:0:0 when grey) at
    /// quality max(`quality`, ``gainMapMinimumQuality``), its XMP kept as a `mime` metadata item. Ultra HDR / Adobe /
    /// ISO 21496-1 maps attach through a `tmap` item carrying their metadata; Apple's attach as an `auxl` image with
    /// Apple's URN (Apple's form: its parameters are in that XMP and the picture's maker note, kept in the Exif item).
    static func gainMapBundle(_ g: JPEGGainMap, quality: Int, limits: Limits) throws(ParseError) -> HEIFItemBundle {
        var img = try JPEG.decode(g.jpeg, applyOrientation: false, limits: limits).image
        if g.orientation > 1 { img = try JPEG.applyExifOrientation(img, g.orientation) }
        var metadata: [HEIFBuilder.Item] = []
        if let x = g.xmp {
            metadata.append(.init(id: 0, type: "mime", hidden: true, contentType: "application/rdf+xml", data: x))
        }
        let q = max(quality, gainMapMinimumQuality)
        if g.isApple {
            let urn = AuxiliaryImage.appleGainMapURN
            let auxC = Box(type: "auxC", fields: .raw([0, 0, 0, 0] + Array(urn.utf8) + [0]))
            return try encoded(
                img, properties: [(auxC, true)], metadata: metadata, reference: "auxl", urn: urn, kind: .gainMap,
                quality: q, limits: limits)
        }
        guard let m = g.metadata else { throw ParseError(.invalidValue, "the gain map has no metadata") }
        if let p = m.problems.first { throw ParseError(.invalidValue, "its metadata cannot be applied: \(p)") }
        var b = try encoded(
            img, properties: [], metadata: metadata, reference: "tmap", urn: "tmap", kind: .isoGainMap,
            quality: q, limits: limits)
        b.toneMap = m.tmapPayload
        return b
    }

    /// `b` warped through `h` (eye pixels) and cropped like the eye, scaled to its own size as shown, re-encoded as
    /// HEVC (4:0:0 for a grey map, as Apple codes them; else 4:2:0) with its `auxC` and other descriptive properties
    /// and its metadata items.
    static func transformed(_ b: HEIFItemBundle, homography h: [Double], warp: EyeWarp, quality: Int, limits: Limits)
        throws(ParseError) -> HEIFItemBundle
    {
        let file = try ISOFile.parse(source: MemorySource(try b.standalone()), limits: limits)
        // Decoded as shown (its own irot/imir/clap applied), like the eye.
        let img = try HEIFImageDecoder.decode(file: file, item: b.rootID, limits: limits)
        guard warp.width > 0, warp.height > 0 else { throw ParseError(.invalidValue, "the eyes have no size") }
        let kx = Double(img.width) / Double(warp.width), ky = Double(img.height) / Double(warp.height)
        // Eye pixel e ↔ auxiliary pixel a = (e + 0.5)·k − 0.5.
        let toAux: [Double] = [kx, 0, 0.5 * kx - 0.5, 0, ky, 0.5 * ky - 0.5, 0, 0, 1]
        let toEye: [Double] = [1 / kx, 0, (0.5 - 0.5 * kx) / kx, 0, 1 / ky, (0.5 - 0.5 * ky) / ky, 0, 0, 1]
        let ha = Mat3.mul(toAux, Mat3.mul(h, toEye))
        let cx = min(max(0, Int((Double(warp.crop.x) * kx).rounded())), img.width - 1)
        let cy = min(max(0, Int((Double(warp.crop.y) * ky).rounded())), img.height - 1)
        let cw = min(max(1, Int((Double(warp.crop.width) * kx).rounded())), img.width - cx)
        let ch = min(max(1, Int((Double(warp.crop.height) * ky).rounded())), img.height - cy)
        let warped = try PairAligner.apply(img, homography: ha, crop: (x: cx, y: cy, width: cw, height: ch))
        // Keep what describes the image (auxC, uuid boxes …); coding, size and geometry properties are new.
        let replaced: Set<String> = ["hvcC", "ispe", "irot", "imir", "clap", "pixi", "colr"]
        let root = b.items.first { $0.id == b.rootID }
        let kept = (root?.properties ?? []).filter { !replaced.contains($0.box.type.description) }
        // Metadata items that describe it (e.g. Apple's gain-map XMP) stay as they are.
        let metadata = b.references.filter { $0.type == "cdsc" && $0.to == [b.rootID] }.compactMap { r in
            b.items.first { $0.id == r.from }
        }
        return try encoded(
            warped, properties: kept, metadata: metadata, reference: b.reference, urn: b.urn, kind: b.kind,
            quality: quality, limits: limits)
    }

    /// `img` encoded as HEVC (4:0:0 when grey, else 4:2:0) as a hidden bundle root with `properties`
    /// (e.g. its `auxC`) and `metadata` items describing it.
    static func encoded(
        _ img: Image, properties: [(box: Box, essential: Bool)], metadata: [HEIFBuilder.Item], reference: FourCC,
        urn: String?,
        kind: AuxiliaryKind?, quality: Int, limits: Limits
    ) throws(ParseError) -> HEIFItemBundle {
        var settings = PhotoEncoding.settings(quality: quality, sourceDepth: img.bitDepth)
        // A grey map (Apple's gain maps, depth) stays 4:0:0, as Apple codes it.
        if img.format == .gray { settings.chroma = .gray }
        let coded = try HEVCStillEncoder.encode([img], settings: settings, limits: limits)
        guard let first = coded.first else { throw ParseError(.invalidValue, "the encoder returned no picture") }
        var builder = HEIFBuilder(primaryItemID: 0)
        var next: UInt32 = 1
        let rootID = try SpatialPhotoWriter.add(
            PhotoEncoding.codedImage(first, settings: settings), to: &builder, nextID: &next, hidden: true,
            properties: properties)
        for var m in metadata {
            m.id = next; next += 1
            builder.items.append(m)
            builder.references.append(.init(type: "cdsc", from: m.id, to: [rootID]))
        }
        return HEIFItemBundle(
            items: builder.items.sorted { ($0.id == rootID ? 0 : 1, $0.id) < ($1.id == rootID ? 0 : 1, $1.id) },
            references: builder.references, rootID: rootID, reference: reference, urn: urn, kind: kind,
            width: first.width, height: first.height)
    }

    /// The URN written for a gain map or depth map given as a file: Apple's gain-map URN; MPEG's HEVC depth URN.
    public static func defaultURN(_ kind: AuxiliaryKind) -> String {
        kind == .depth ? "urn:mpeg:hevc:2015:auxid:2" : AuxiliaryImage.appleGainMapURN
    }

    /// Attaches the image in `path` to eye `eye` (0 left, 1 right) of `pair` as an auxiliary image of `kind`, replacing
    /// one of that kind the eye already carries: a HEIF file's primary image with its bytes, tiles and metadata items
    /// kept (its `auxC` kept when it names that kind, else replaced by ``defaultURN(_:)``), or a PNG/JPEG encoded. The
    /// map must have the eye's shape (as shown), else it is refused.
    public static func attach(
        file path: String, kind: AuxiliaryKind, toEye eye: Int, of pair: inout StereoPair, quality: Int,
        limits: Limits = .default
    ) throws(ParseError) {
        let bundle: HEIFItemBundle
        var shown: (width: Int, height: Int)
        do throws(ParseError) {
            if FileProbe.kind(of: path) == .heif {
                let file = try ISOFile.open(path: path, limits: limits)
                let existing = file.heif.flatMap { h in
                    h.primaryItemID.flatMap { p in
                        h.properties(of: p).lazy.compactMap {
                            $0.box.payload(AuxiliaryTypeProperty.self)?.auxType.value
                        }.first
                    }
                }
                bundle = try HEIFItemBundle.primary(
                    of: file, reference: "auxl",
                    urn: existing.map { AuxiliaryKind(urn: $0) == kind } == true ? nil : defaultURN(kind))
                let one = try ISOFile.parse(source: MemorySource(try bundle.standalone()), limits: limits)
                let img = try HEIFImageDecoder.decode(file: one, item: bundle.rootID, limits: limits)
                shown = (img.width, img.height)
            } else {
                let img = try ImageFiles.load(path, limits: limits).image
                let urn = defaultURN(kind)
                var w = ByteWriter()
                w.write([0, 0, 0, 0] + Array(urn.utf8) + [0])
                bundle = try encoded(
                    img, properties: [(Box(type: "auxC", fields: .raw(w.take())), true)], metadata: [],
                    reference: "auxl", urn: urn, kind: kind,
                    quality: quality, limits: limits)
                shown = (img.width, img.height)
            }
        } catch {
            var e = error; if e.path.isEmpty { e.path = path }; throw e
        }
        let picture = eye == 0 ? pair.left : pair.right
        let ratio = Double(shown.width) / Double(max(1, shown.height)),
            eyeRatio = Double(picture.width) / Double(max(1, picture.height))
        guard abs(ratio - eyeRatio) / eyeRatio <= 0.02 else {
            throw ParseError(
                .invalidValue, path: path,
                "the \(kind.label(urn: defaultURN(kind))) is \(shown.width)x\(shown.height), not the shape of the \(picture.width)x\(picture.height) \(eye == 0 ? "left" : "right") eye"
            )
        }
        var list = eye == 0 ? pair.leftAuxiliary : pair.rightAuxiliary
        let replaced = list.filter { $0.kind == kind || (kind == .gainMap && $0.kind == .isoGainMap) }
        list.removeAll { $0.kind == kind || (kind == .gainMap && $0.kind == .isoGainMap) }
        list.append(bundle)
        if eye == 0 { pair.leftAuxiliary = list } else { pair.rightAuxiliary = list }
        let how = FileProbe.kind(of: path) == .heif ? "bytes kept" : "encoded"
        pair.notes.append(
            "\(eye == 0 ? "left" : "right") eye: \(bundle.kind?.label(urn: bundle.urn ?? "") ?? "auxiliary image") \(bundle.width)x\(bundle.height) taken from \(path) (\(how))"
                + (replaced.isEmpty
                    ? "" : ", in place of the source's \(replaced.map(\.description).joined(separator: ", "))"))
    }
}
