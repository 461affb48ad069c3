import BinaryIO
import ISOBMFF

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How camera properties are written.
public enum CameraPropertyForm: String, Sendable, Equatable, CaseIterable {
    /// Apple's `uuid` boxes (what Apple's readers are known to accept). The default.
    case apple
    /// The standard `cmin` / `cmex` boxes (what libheif ≥ 1.18 reads and writes).
    case standard
    /// Both forms on each eye.
    case both
}

extension StereoParameters {
    /// Checks the values a spatial photo can store: a field of view of 1…179 999 m° (it becomes a focal length), and a
    /// baseline that fits the right camera's signed 32-bit position (at most 2 147 483 647 µm). A photo has no hero eye
    /// or projection field, so those must be nil. Throws ``/BinaryIO/ParseError/Code/invalidArgument`` rather than
    /// clamp. A disparity adjustment beyond ±10 000 fits its field and is written as given (`validate` reports it).
    public func checkedForPhoto() throws(ParseError) {
        if let f = horizontalFieldOfViewMillidegrees, f == 0 || f >= 180_000 {
            throw ParseError(
                .invalidArgument, "horizontal field of view must be greater than 0° and less than 180° (got \(f) m°)")
        }
        if let b = baselineMicrometres, b > UInt32(Int32.max) {
            throw ParseError(
                .invalidArgument,
                "a photo baseline must be at most 2147483647 µm (it is stored as a signed camera position); got \(b) µm"
            )
        }
        if heroEye != nil || projectionKind != nil {
            throw ParseError(
                .invalidArgument, "hero eye and projection apply to videos only; a spatial photo has no field for them")
        }
    }
}

/// One eye, already coded as HEVC by the caller.
public struct CodedImage: Sendable {
    public enum Layout: Sendable {
        /// One `hvc1` item: `data` is the length-prefixed (4-byte) slice NAL units of the picture.
        case single(data: [UInt8])
        /// A `grid` of `columns`×`rows` tiles, each a length-prefixed picture of `tileWidth`×`tileHeight`,
        /// in raster order; the output image is cropped to `width`×`height`.
        case grid(columns: Int, rows: Int, tileWidth: Int, tileHeight: Int, tiles: [[UInt8]])
    }
    public var width: Int
    public var height: Int
    /// The HEVCDecoderConfigurationRecord of the picture (or of every tile), parameter sets included.
    public var hvcC: [UInt8]
    public var layout: Layout
    /// Further properties for the image item (for example `colr`, `pixi`), with their essential flags.
    public var properties: [(box: Box, essential: Bool)]
    public init(width: Int, height: Int, hvcC: [UInt8], layout: Layout, properties: [(box: Box, essential: Bool)] = [])
    {
        self.width = width; self.height = height; self.hvcC = hvcC; self.layout = layout; self.properties = properties
    }
}

/// Writes, combines and edits spatial photos without re-encoding.
///
/// Layout of a written photo (see `Specs/spatial-photo.md`): `ftyp heic [heic, mif1]` (Apple's order); `meta` with
/// `hdlr pict`, `pitm` = left eye, items for each eye (an `hvc1` item, or a `grid` whose descriptor sits in `idat` plus
/// hidden `hvc1` tiles), per-eye properties `hvcC`, `ispe`, camera intrinsics, extrinsics (left at the origin, right at
/// +baseline on x) and the disparity adjustment, a `grpl` with `ster` = [left, right]; item bytes in one `mdat`.
public enum SpatialPhotoWriter {
    /// Builds a new spatial photo from two coded eyes. `exif` (a HEIF Exif item payload: 4-byte offset then the TIFF
    /// header) and `xmp` are attached to **each** eye as Apple's camera does (one hidden item per eye, `cdsc` to that
    /// eye): Exif for the left, then the right, then XMP for the left and the right. `rightExif` gives the right eye
    /// its own EXIF (default: the same as the left). `auxiliary` attaches each eye's auxiliary images and thumbnails
    /// (``HEIFItemBundle``, e.g. an HDR gain map) to that eye, bytes as given.
    ///
    /// `stereo` holds the baseline, field of view and disparity adjustment written (a nil field is not written; see
    /// ``StereoParameters/checkedForPhoto()``); `form` chooses the camera property boxes.
    public static func build(
        left: CodedImage, right: CodedImage, stereo: StereoParameters, form: CameraPropertyForm = .apple,
        exif: [UInt8]? = nil, rightExif: [UInt8]? = nil, xmp: [UInt8]? = nil,
        auxiliary: (left: [HEIFItemBundle], right: [HEIFItemBundle]) = ([], [])
    ) throws(ParseError) -> [UInt8] {
        try stereo.checkedForPhoto()
        guard left.width == right.width, left.height == right.height else {
            throw ParseError(
                .invalidValue,
                "the eyes differ in size: \(left.width)x\(left.height) and \(right.width)x\(right.height)")
        }
        var nextID: UInt32 = 1
        var builder = HEIFBuilder(brands: ["heic", "mif1"], primaryItemID: 0)
        var eyeIDs: [UInt32] = []
        for (eye, image) in [(Eye.left, left), (Eye.right, right)] {
            let camera = cameraProperties(
                eye: eye, width: image.width, height: image.height, stereo: stereo, form: form)
            eyeIDs.append(try add(image, to: &builder, nextID: &nextID, properties: camera))
        }
        let metadata: [([UInt8]?, FourCC, String?, Int)] = [
            (exif, "Exif", nil, 0), (rightExif ?? exif, "Exif", nil, 1),
            (xmp, "mime", "application/rdf+xml", 0), (xmp, "mime", "application/rdf+xml", 1),
        ]
        for (payload, type, mime, eye) in metadata {
            guard let payload else { continue }
            let id = nextID; nextID += 1
            builder.items.append(.init(id: id, type: type, hidden: true, contentType: mime, data: payload))
            builder.references.append(.init(type: "cdsc", from: id, to: [eyeIDs[eye]]))
        }
        // Each eye's auxiliary images and thumbnails, attached to that eye.
        for b in auxiliary.left { try builder.attach(b, to: eyeIDs[0], nextID: &nextID) }
        for b in auxiliary.right { try builder.attach(b, to: eyeIDs[1], nextID: &nextID) }
        builder.primaryItemID = eyeIDs[0]
        builder.groups.append((type: "ster", id: nextID, entities: eyeIDs))
        return try builder.build()
    }

    /// Adds one coded picture as an image item — one `hvc1` item, or a `grid` whose descriptor sits in `idat` plus
    /// hidden `hvc1` tiles (each with `ispe`, the image's `colr` and `hvcC`, all essential, as Apple's) — with `hvcC`
    /// (single picture), `ispe`, the image's own properties and `properties`. Returns the image item's id.
    public static func add(
        _ image: CodedImage, to builder: inout HEIFBuilder, nextID: inout UInt32, hidden: Bool = false,
        properties extra: [(box: Box, essential: Bool)] = []
    ) throws(ParseError) -> UInt32 {
        let hvcC = Box(HEVCConfigurationBox(record: image.hvcC), type: "hvcC")
        switch image.layout {
        case .single(let data):
            let id = nextID; nextID += 1
            var props: [(box: Box, essential: Bool)] = [(hvcC, true), (ispe(image.width, image.height), false)]
            props += image.properties + extra
            builder.items.append(.init(id: id, type: "hvc1", hidden: hidden, data: data, properties: props))
            return id
        case .grid(let columns, let rows, let tw, let th, let tiles):
            guard columns >= 1, rows >= 1, columns <= 256, rows <= 256, tiles.count == columns * rows else {
                throw ParseError(
                    .invalidValue, "grid of \(columns)x\(rows) needs \(columns * rows) tiles, got \(tiles.count)")
            }
            guard tw * columns >= image.width, th * rows >= image.height else {
                throw ParseError(
                    .invalidValue,
                    "tiles of \(tw)x\(th) in a \(columns)x\(rows) grid do not cover \(image.width)x\(image.height)")
            }
            let tileColr = image.properties.filter { $0.box.type == "colr" }.map { (box: $0.box, essential: true) }
            let tileProperties: [(box: Box, essential: Bool)] = [(ispe(tw, th), true)] + tileColr + [(hvcC, true)]
            var tileIDs: [UInt32] = []
            for t in tiles {
                let id = nextID; nextID += 1
                builder.items.append(.init(id: id, type: "hvc1", hidden: true, data: t, properties: tileProperties))
                tileIDs.append(id)
            }
            let gid = nextID; nextID += 1
            let large = image.width > 0xFFFF || image.height > 0xFFFF
            var d = ByteWriter()
            d.writeU8(0); d.writeU8(large ? 1 : 0); d.writeU8(UInt8(rows - 1)); d.writeU8(UInt8(columns - 1))
            if large {
                d.writeU32(UInt32(image.width)); d.writeU32(UInt32(image.height))
            } else {
                d.writeU16(UInt16(image.width)); d.writeU16(UInt16(image.height))
            }
            builder.items.append(
                .init(
                    id: gid, type: "grid", hidden: hidden, data: d.take(), inIdat: true,
                    properties: [(ispe(image.width, image.height), false)] + image.properties + extra))
            builder.references.append(.init(type: "dimg", from: gid, to: tileIDs))
            return gid
        }
    }

    /// Builds and writes a new spatial photo atomically.
    public static func write(
        left: CodedImage, right: CodedImage, stereo: StereoParameters, form: CameraPropertyForm = .apple,
        exif: [UInt8]? = nil, rightExif: [UInt8]? = nil, xmp: [UInt8]? = nil,
        auxiliary: (left: [HEIFItemBundle], right: [HEIFItemBundle]) = ([], []), to path: String
    ) throws(ParseError) {
        try AtomicFile.write(
            path: path,
            bytes: try build(
                left: left, right: right, stereo: stereo, form: form, exif: exif, rightExif: rightExif, xmp: xmp,
                auxiliary: auxiliary))
    }

    /// The XMP packet Apple's camera attaches to each eye of a spatial photo (namespace
    /// `http://ns.apple.com/SpatialMedia/1.0/`, `SpatialMedia:version` 1.0), filled with our own values: the creator
    /// tool names this library; Apple's capture-only values (LuxClippingPoint) and the capture date are left out.
    public static func spatialXMP(creatorTool: String = "spatial-media") -> [UInt8] {
        let tool = creatorTool.unicodeScalars.filter { $0 != "<" && $0 != ">" && $0 != "&" }.map(String.init).joined()
        let text = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/">
               <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                  <rdf:Description rdf:about=""
                        xmlns:xmp="http://ns.adobe.com/xap/1.0/"
                        xmlns:SpatialMedia="http://ns.apple.com/SpatialMedia/1.0/">
                     <xmp:CreatorTool>\(tool)</xmp:CreatorTool>
                     <SpatialMedia:version>1.0</SpatialMedia:version>
                  </rdf:Description>
               </rdf:RDF>
            </x:xmpmeta>
            """
        return Array(text.utf8)
    }

    enum Eye { case left, right }

    static func ispe(_ w: Int, _ h: Int) -> Box {
        Box(ImageSpatialExtentsProperty(width: UInt32(clamping: w), height: UInt32(clamping: h)), type: "ispe")
    }

    /// The camera property boxes for one eye, in the requested form(s).
    /// `stereo` must have passed ``StereoParameters/checkedForPhoto()``.
    static func cameraProperties(
        eye: Eye, width: Int, height: Int, stereo p: StereoParameters, form: CameraPropertyForm
    ) -> [(box: Box, essential: Bool)] {
        var out: [(Box, Bool)] = []
        let forms: [CameraPropertyForm] = form == .both ? [.apple, .standard] : [form]
        if let hfov = p.horizontalFieldOfViewMillidegrees, hfov > 0, hfov < 180_000 {
            let half = Double(hfov) / 1000 / 2 * Double.pi / 180
            let fx = Double(width) / 2 / tan(half)
            let intr = CameraIntrinsicsProperty(
                fx: fx, cx: Double(width) / 2, cy: Double(height) / 2, width: width, height: height)
            for f in forms {
                out.append((property(intr, form: f, standard: "cmin", uuid: AppleUUID.cameraIntrinsics), false))
            }
        }
        if let baseline = p.baselineMicrometres {
            let x: Int32 = eye == .left ? 0 : Int32(clamping: baseline)  // checked: ≤ Int32.max
            let extr = CameraExtrinsicsProperty(positionMicrometres: x)
            for f in forms {
                out.append((property(extr, form: f, standard: "cmex", uuid: AppleUUID.cameraExtrinsics), false))
            }
        }
        if let d = p.disparityAdjustment {
            out.append(
                (
                    Box(
                        type: "uuid", fields: .typed(DisparityAdjustmentProperty(value: d)),
                        userType: AppleUUID.disparityAdjustment), false
                ))
        }
        return out
    }

    static func property(_ payload: any BoxPayload, form: CameraPropertyForm, standard: FourCC, uuid: [UInt8]) -> Box {
        form == .standard
            ? Box(type: standard, fields: .typed(payload)) : Box(type: "uuid", fields: .typed(payload), userType: uuid)
    }
}
