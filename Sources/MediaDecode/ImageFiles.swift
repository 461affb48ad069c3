import BinaryIO
import Codecs
import HEVC
import ISOBMFF
import ImageFormats
import SpatialMedia

/// Kinds of image files the converter reads.
public enum ImageFileKind: String, Sendable {
    case jpeg = "JPEG"
    case mpo = "MPO"
    case png = "PNG"
    case heif = "HEIF"
}

/// An image file read for conversion: pixels plus what we learned about it.
public struct LoadedImage: Sendable {
    public var kind: ImageFileKind
    public var image: Image
    /// TIFF-form EXIF of the source (orientation already reset to 1 when we applied it).
    public var exif: [UInt8]?
    public var exifInfo: ExifInfo
    /// For MPO files: the second picture and the MP attributes of both.
    public var mpoSecond: Image?
    public var mpoAttributes: [MPO.Attributes] = []
    /// For a JPEG that is one photo with an HDR gain map (Ultra HDR, Adobe, Apple): the gain map and its metadata.
    public var gainMap: JPEGGainMap?
    /// Things done to the data that the user should know about.
    public var notes: [String] = []
    public init(
        kind: ImageFileKind, image: Image, exif: [UInt8]?, exifInfo: ExifInfo, mpoSecond: Image? = nil,
        mpoAttributes: [MPO.Attributes] = [], notes: [String] = []
    ) {
        self.kind = kind; self.image = image; self.exif = exif; self.exifInfo = exifInfo
        self.mpoSecond = mpoSecond; self.mpoAttributes = mpoAttributes; self.notes = notes
    }
}

/// Reading and writing image files by content (reading) or by extension (writing).
public enum ImageFiles {
    /// Reads a JPEG, MPO, PNG or HEIF (primary item) file. Errors name the file. A JPEG the decoder finds damaged or
    /// truncated is refused unless `acceptDamage` (``/Codecs/JPEG/decode(_:applyOrientation:limits:acceptDamage:)``).
    public static func load(
        _ path: String, limits: Limits = .default,
        acceptDamage: Bool = false
    ) throws(ParseError) -> LoadedImage {
        do throws(ParseError) {
            let data = try FileBytes.read(path, limits: limits)
            return try load(data: data, limits: limits, acceptDamage: acceptDamage)
        } catch {
            var e = error
            e.path = path
            throw e
        }
    }

    public static func load(
        data: [UInt8], limits: Limits = .default,
        acceptDamage: Bool = false
    ) throws(ParseError) -> LoadedImage {
        let kind = FileProbe.kind(head: Array(data.prefix(32)))
        if kind == .jpeg {
            let mpo = try MPO(data)
            if let cut = mpo.picturesPastEnd.first, !acceptDamage {
                let picture = "picture \(cut.number) (\(cut.range.count) bytes at offset \(cut.range.lowerBound))"
                throw ParseError(
                    .truncated, offset: UInt64(data.count),
                    "the MPO is damaged or truncated: its index lists \(mpo.indexEntries) pictures, and \(picture) "
                        + "runs past the end of the file (\(data.count) bytes)", remedy: .force)
            }
            let first = try JPEG.decode(mpo.jpeg(0, in: data), limits: limits, acceptDamage: acceptDamage)
            var out = LoadedImage(
                kind: .jpeg, image: first.image,
                exif: first.exif.map { resetOrientation($0, applied: first.appliedOrientation) },
                exifInfo: first.exifInfo, notes: first.notes)
            if let (a, b) = mpo.stereoPair {
                // Only MP type Disparity (or two Multi-angle pictures) makes a stereo MPO.
                if a != 0 {
                    let chosen = try JPEG.decode(mpo.jpeg(a, in: data), limits: limits, acceptDamage: acceptDamage)
                    out.image = chosen.image
                    out.notes += chosen.notes.map { "picture \(a + 1): \($0)" }
                }
                let second = try JPEG.decode(mpo.jpeg(b, in: data), limits: limits, acceptDamage: acceptDamage)
                out.kind = .mpo
                out.mpoSecond = second.image
                out.notes += second.notes.map { "second picture: \($0)" }
                out.mpoAttributes = [mpo.pictures[a].attributes, mpo.pictures[b].attributes]
                if mpo.pictures.count > 2 {
                    out.notes.append(
                        "MPO holds \(mpo.pictures.count) images; pictures \(a + 1) and \(b + 1) (the stereo views) "
                            + "are used")
                }
            } else if mpo.fromIndex && mpo.pictures.count < 2 {
                out.kind = .mpo
                out.notes.append("MPO index lists only one image")
            } else if mpo.pictures.count >= 2 {
                do throws(ParseError) {
                    out.gainMap = try JPEGGainMap.read(data, mpo: mpo)
                    out.gainMap?.orientation = first.appliedOrientation
                } catch {
                    let at = mpo.gainMapIndex.map { $0 + 1 } ?? 2
                    out.notes.append("MPF picture \(at) is marked as a gain map but cannot be read: \(error.message)")
                }
                let types = mpo.pictures.indices.dropFirst().map { MPO.TypeCode.name(mpo.type($0)) }
                let gain =
                    out.gainMap.map { "; picture \($0.index + 1) is its \($0.isApple ? "Apple " : "")HDR gain map" }
                    ?? ""
                out.notes.append(
                    "one photo, not a stereo pair: its MP index lists \(mpo.pictures.count) pictures (further: "
                        + types.joined(separator: ", ") + ")" + gain
                        + " — only MP type Disparity, or two Multi-angle pictures, make a stereo MPO")
            }
            return out
        }
        if kind == .png {
            let structure: PNGStructure
            do throws(ParseError) { structure = try PNGStructure(data, limits: limits) } catch {
                // The one wording of a cut file, as for every other reader.
                guard error.code == .truncated else { throw error }
                throw ParseError(
                    .truncated, offset: error.offset, path: error.path,
                    "the PNG is damaged or truncated: \(error.message)")
            }
            // Pixels are used as stored; an orientation tag copied along would turn them a second time.
            let exif = structure.exif.map { resetOrientation($0, applied: -1) }
            return LoadedImage(
                kind: .png, image: try PNG.decode(data, limits: limits), exif: exif,
                exifInfo: exif.map { ExifInfo(tiff: $0) } ?? ExifInfo())
        }
        if kind == .heif || kind == .movie {  // any ISOBMFF file: the HEIF reader names what is missing
            let file = try ISOFile.parse(source: MemorySource(data), limits: limits)
            try file.requireIntact()
            let img = try HEIFImageDecoder.decodePrimary(file: file, limits: limits)
            let exif = heifExif(file, limits: limits)
            return LoadedImage(
                kind: .heif, image: img, exif: exif, exifInfo: exif.map { ExifInfo(tiff: $0) } ?? ExifInfo())
        }
        throw ParseError(.notRecognised, "not a JPEG, MPO, PNG or HEIF file")
    }

    /// Why the image file at `path` is damaged or truncated (a cut MPO, PNG or HEIF, a JPEG its decoder warns about),
    /// or nil when it reads whole (or cannot be read at all: that is another error, for the caller's own reading to
    /// report). What `info` and `validate` say about an image file, with the words every reader uses.
    public static func damage(_ path: String, limits: Limits = .default) -> ParseError? {
        do throws(ParseError) { _ = try load(path, limits: limits) } catch {
            return error.code == .truncated ? error : nil
        }
        return nil
    }

    /// The TIFF block of the first Exif item of a HEIF file (the one describing the primary item when present).
    /// The XMP packet describing a HEIF image item (a `mime` item of type `application/rdf+xml` linked by `cdsc`).
    public static func heifXMP(_ file: ISOFile, item: UInt32, limits: Limits = .default) -> [UInt8]? {
        guard let h = file.heif else { return nil }
        for r in h.allReferences where r.type == "cdsc" && r.to.contains(item) {
            guard let it = h.items.first(where: { $0.id == r.from }), it.type == "mime",
                it.contentType == "application/rdf+xml"
            else { continue }
            if let d = try? h.data(of: it.id, file: file, limits: limits), d.count <= 65_000 { return d }
        }
        return nil
    }

    /// The ICC profile of a HEIF image item (`colr` of type `prof` or `rICC`), if it has one.
    public static func heifICC(_ file: ISOFile, item: UInt32) -> [UInt8]? {
        file.heif?.properties(of: item).lazy.compactMap { $0.box.payload(ColourInformationBox.self) }
            .first { $0.colourType == "prof" || $0.colourType == "rICC" }?.data
    }

    public static func heifExif(_ file: ISOFile, item: UInt32? = nil, limits: Limits = .default) -> [UInt8]? {
        guard let meta = file.heif else { return nil }
        let target = item ?? meta.primaryItemID
        let exifItems = meta.items.filter { $0.type == "Exif" }
        let preferred =
            exifItems.first { e in target.map { meta.references(from: e.id, type: "cdsc").contains($0) } ?? false }
            ?? exifItems.first
        guard let e = preferred, let d = try? meta.data(of: e.id, file: file, limits: limits), d.count > 4 else {
            return nil
        }
        let off = Int(UInt32(d[0]) << 24 | UInt32(d[1]) << 16 | UInt32(d[2]) << 8 | UInt32(d[3]))
        guard off >= 0, off <= d.count - 8 else { return nil }
        return Array(d[(4 + off)...])
    }

    /// Writes `image` by the extension of `path`: `.png` (16-bit when deeper than 8 bits), `.jpg`/`.jpeg`
    /// (quality `jpegQuality`), `.heic`/`.heif` (one HEVC item or grid at `heicQuality`). Atomic.
    /// `icc` (an ICC profile, e.g. a Vision Pro eye's Display P3 `colr prof`) tags PNG (`iCCP`) and JPEG (APP2) output,
    /// so the RGB values are read in the right colour space.
    /// `xmp` goes into JPEG output (APP1) and PNG output (`iTXt` `XML:com.adobe.xmp`).
    public static func save(
        _ image: Image, to path: String, jpegQuality: Int = 92, heicQuality: Int = 80, exif: [UInt8]? = nil,
        icc: [UInt8]? = nil,
        xmp: [UInt8]? = nil, limits: Limits = .default
    ) throws(ParseError) {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        let bytes: [UInt8]
        do throws(ParseError) {
            switch ext {
            case "png":
                let png = try PNG.encode(image)
                let tagged = icc.map { PNGColourProfile.embedding($0, in: png) } ?? png
                bytes = xmp.map { PNGXMP.embedding($0, in: tagged) } ?? tagged
            case "jpg", "jpeg": bytes = try JPEG.encode(image, quality: jpegQuality, exif: exif, icc: icc, xmp: xmp)
            case "heic", "heif": bytes = try encodeHEIC(image, quality: heicQuality, exif: exif, limits: limits)
            default: throw ParseError(.unsupported, "unknown output extension '.\(ext)' (use .png, .jpg or .heic)")
            }
        } catch {
            var e = error; e.path = path; throw e
        }
        try AtomicFile.write(path: path, bytes: bytes)
    }

    /// A plain (non-stereo) HEIC of one image.
    public static func encodeHEIC(_ image: Image, quality: Int, exif: [UInt8]?, limits: Limits = .default)
        throws(ParseError) -> [UInt8]
    {
        let settings = PhotoEncoding.settings(quality: quality, sourceDepth: image.bitDepth)
        guard let coded = try HEVCStillEncoder.encode([image], settings: settings, limits: limits).first else {
            throw ParseError(.invalidValue, "nothing encoded")
        }
        let ci = PhotoEncoding.codedImage(coded, settings: settings)
        var b = HEIFBuilder(primaryItemID: 1)
        var next: UInt32 = 1
        switch ci.layout {
        case .single(let data):
            b.items.append(
                .init(
                    id: 1, type: "hvc1", data: data,
                    properties: [
                        (PhotoEncoding.hvcCBox(ci.hvcC), true), (PhotoEncoding.ispe(ci.width, ci.height), false),
                    ] + ci.properties))
            next = 2
        case .grid(let cols, let rows, let tw, let th, let tiles):
            var ids: [UInt32] = []
            next = 2
            for t in tiles {
                b.items.append(
                    .init(
                        id: next, type: "hvc1", hidden: true, data: t,
                        properties: [(PhotoEncoding.hvcCBox(ci.hvcC), true), (PhotoEncoding.ispe(tw, th), false)]))
                ids.append(next); next += 1
            }
            b.items.append(
                .init(
                    id: 1, type: "grid",
                    data: PhotoEncoding.gridDescriptor(rows: rows, columns: cols, width: ci.width, height: ci.height),
                    inIdat: true,
                    properties: [(PhotoEncoding.ispe(ci.width, ci.height), false)] + ci.properties))
            b.references.append(.init(type: "dimg", from: 1, to: ids))
        }
        if let exif {
            b.items.append(.init(id: next, type: "Exif", hidden: true, data: [0, 0, 0, 0] + exif, properties: []))
            b.references.append(.init(type: "cdsc", from: next, to: [1]))
        }
        return try b.build()
    }

    /// Sets EXIF orientation (tag 0x0112 in IFD0) to 1 when we rotated the pixels ourselves.
    public static func resetOrientation(_ tiff: [UInt8], applied: Int) -> [UInt8] {
        guard applied != 1, let t = try? TIFFReader(tiff), let n = t.u16(t.firstIFD) else { return tiff }
        var out = tiff
        for i in 0..<Int(n) {
            let e = t.firstIFD + 2 + i * 12
            guard let tag = t.u16(e), tag == 0x0112, let type = t.u16(e + 2), type == 3, e + 10 <= out.count else {
                continue
            }
            if t.littleEndian { out[e + 8] = 1; out[e + 9] = 0 } else { out[e + 8] = 0; out[e + 9] = 1 }
        }
        return out
    }
}

/// Encoder settings and HEIF boxes shared by conversion and HEIC output.
public enum PhotoEncoding {
    /// Default quality (0…100) for HEVC stills: 80 → x265 CRF 16.
    public static let defaultQuality = 80

    /// 8-bit 4:2:0 BT.601 full-range sRGB stills (10-bit when the source is deeper than 8 bits).
    public static func settings(quality: Int, sourceDepth: Int, threads: Int = 0) -> HEVCEncoderSettings {
        var s = HEVCEncoderSettings.stillImage(quality: quality, bitDepth: sourceDepth > 8 ? 10 : 8, preset: "medium")
        s.colour = .jpeg
        s.colourPrimaries = 1
        s.transferCharacteristics = 13
        s.threads = threads
        return s
    }

    static func hvcCBox(_ record: [UInt8]) -> Box {
        Box(HEVCConfigurationBox(record: record), type: "hvcC")
    }
    static func ispe(_ w: Int, _ h: Int) -> Box {
        Box(ImageSpatialExtentsProperty(width: UInt32(clamping: w), height: UInt32(clamping: h)), type: "ispe")
    }

    /// `colr` nclx for the settings' colour description.
    public static func colr(_ s: HEVCEncoderSettings) -> Box {
        var w = ByteWriter()
        w.writeFourCC("nclx")
        w.writeU16(UInt16(s.colourPrimaries)); w.writeU16(UInt16(s.transferCharacteristics));
        w.writeU16(UInt16(s.colour.matrixCoefficients))
        w.writeU8(s.colour.fullRange ? 0x80 : 0)
        return Box(type: "colr", fields: .raw(w.bytes))
    }

    /// `pixi` with the coded bit depth on three channels.
    public static func pixi(_ depth: Int) -> Box {
        Box(type: "pixi", fields: .raw([0, 0, 0, 0, 3, UInt8(depth), UInt8(depth), UInt8(depth)]))
    }

    /// `grid` item payload.
    public static func gridDescriptor(rows: Int, columns: Int, width: Int, height: Int) -> [UInt8] {
        let large = width > 65535 || height > 65535
        var w = ByteWriter()
        w.writeU8(0); w.writeU8(large ? 1 : 0); w.writeU8(UInt8(clamping: rows - 1));
        w.writeU8(UInt8(clamping: columns - 1))
        if large {
            w.writeU32(UInt32(clamping: width)); w.writeU32(UInt32(clamping: height))
        } else {
            w.writeU16(UInt16(clamping: width)); w.writeU16(UInt16(clamping: height))
        }
        return w.bytes
    }

    /// Wraps coded tiles in the writer's ``/SpatialMedia/CodedImage`` (with `colr` and `pixi`).
    public static func codedImage(_ c: HEVCStillEncoder.Coded, settings: HEVCEncoderSettings) -> CodedImage {
        // colr essential, as Apple marks it on its spatial photos' images and tiles.
        let pixiBox =
            settings.chroma == .gray
            ? Box(type: "pixi", fields: .raw([0, 0, 0, 0, 1, UInt8(settings.bitDepth)])) : pixi(settings.bitDepth)
        let props: [(box: Box, essential: Bool)] = [(colr(settings), true), (pixiBox, false)]
        if c.isGrid {
            return CodedImage(
                width: c.width, height: c.height, hvcC: c.hvcC,
                layout: .grid(
                    columns: c.columns, rows: c.rows, tileWidth: c.tileWidth, tileHeight: c.tileHeight, tiles: c.tiles),
                properties: props)
        }
        return CodedImage(
            width: c.width, height: c.height, hvcC: c.hvcC, layout: .single(data: c.tiles[0]), properties: props)
    }
}
