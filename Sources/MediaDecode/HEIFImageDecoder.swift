import BinaryIO
import Codecs
import HEVC
import ISOBMFF
import ImageFormats

/// Decodes HEIF image items to pixels: `hvc1` items, `grid` derived images (tiles decoded in
/// parallel) and `iden` items, then applies the transformative properties (`clap`, `irot`, `imir`)
/// in their association order and takes the colour description from an `nclx` `colr` property.
public enum HEIFImageDecoder {
    /// Decodes item `id` of `file`.
    public static func decode(file: ISOFile, item id: UInt32, limits: Limits = .default, workers: Int = 0)
        throws(ParseError) -> Image
    {
        guard let meta = file.heif else { throw ParseError(.notRecognised, "not a HEIF file (no meta box)") }
        return try decode(meta: meta, file: file, item: id, limits: limits, workers: workers, depth: 0)
    }

    /// Decodes the primary item (`pitm`).
    public static func decodePrimary(file: ISOFile, limits: Limits = .default) throws(ParseError) -> Image {
        guard let meta = file.heif, let p = meta.primaryItemID else {
            throw ParseError(.notRecognised, "not a HEIF image (no primary item)")
        }
        return try decode(meta: meta, file: file, item: p, limits: limits, workers: 0, depth: 0)
    }

    static func decode(meta: HEIFMeta, file: ISOFile, item id: UInt32, limits: Limits, workers: Int, depth: Int)
        throws(ParseError) -> Image
    {
        guard depth < 4 else { throw ParseError(.cyclicReference, "derived image chain too deep at item \(id)") }
        guard let item = meta.items.first(where: { $0.id == id }) else {
            throw ParseError(.danglingReference, "item \(id) does not exist")
        }
        let props = meta.properties(of: id)
        if let s = meta.size(of: id) {
            try Image.checkDimensions(width: Int(s.width), height: Int(s.height), limits: limits)
        }
        var img: Image
        switch item.type {
        case "hvc1":
            guard let hvcC = props.lazy.compactMap({ $0.box.payload(HEVCConfigurationBox.self) }).first else {
                throw ParseError(.invalidValue, "hvc1 item \(id) has no hvcC property")
            }
            img = try HEVCDecoder.decodeItem(
                hvcC: hvcC.record, data: meta.data(of: id, file: file, limits: limits), limits: limits)
        case "grid":
            let g = try gridDescriptor(meta.data(of: id, file: file, limits: limits), item: id, limits: limits)
            let tiles = meta.references(from: id, type: "dimg")
            guard tiles.count == g.rows * g.columns else {
                throw ParseError(
                    .invalidValue, "grid item \(id) is \(g.columns)×\(g.rows) but references \(tiles.count) tiles")
            }
            var data: [[UInt8]] = [], configs: [[UInt8]] = []
            for t in tiles {
                guard meta.items.first(where: { $0.id == t })?.type == "hvc1" else {
                    throw ParseError(.unsupported, "grid item \(id): tile \(t) is not an hvc1 item")
                }
                guard
                    let c = meta.properties(of: t).lazy.compactMap({ $0.box.payload(HEVCConfigurationBox.self) }).first
                else {
                    throw ParseError(.invalidValue, "tile \(t) has no hvcC property")
                }
                configs.append(c.record)
                data.append(try meta.data(of: t, file: file, limits: limits))
            }
            img = try HEVCDecoder.decodeGrid(
                .init(
                    rows: g.rows, columns: g.columns, outputWidth: g.width, outputHeight: g.height, tiles: data,
                    tileConfigs: configs), limits: limits, workers: workers)
        case "iden":
            guard let src = meta.references(from: id, type: "dimg").first else {
                throw ParseError(.danglingReference, "iden item \(id) has no dimg reference")
            }
            img = try decode(meta: meta, file: file, item: src, limits: limits, workers: workers, depth: depth + 1)
        default:
            throw ParseError(.unsupported, "item \(id) is of type \(item.type), which this decoder does not handle")
        }
        // Colour description: an nclx colr overrides the bitstream's VUI.
        for (b, _) in props {
            if let c = b.payload(ColourInformationBox.self), c.colourType == "nclx" {
                img.colour = ColourSpace(matrixCoefficients: Int(c.matrixCoefficients), fullRange: c.fullRange)
            }
        }
        // Transformative properties in association order.
        for (b, _) in props {
            switch b.type {
            case "clap":
                guard let c = b.payload(CleanApertureBox.self) else { continue }
                img = try applyClap(img, c)
            case "irot":
                guard let r = b.payload(ImageRotation.self) else { continue }
                img = try ImageOps.rotate(img, quarterTurns: Int(r.angle))
            case "imir":
                guard let m = b.payload(ImageMirror.self) else { continue }
                // axis 0: mirror about a horizontal axis (top↔bottom); 1: about a vertical axis (left↔right) —
                // libheif's reading.
                img = try ImageOps.mirror(img, horizontal: m.axis == 1)
            default: continue
            }
        }
        return img
    }

    /// Parsed `grid` descriptor.
    public struct GridDescriptor: Sendable, Equatable { public var rows, columns, width, height: Int }

    /// Parses the `grid` item payload (ISO/IEC 23008-12 §6.6.2.3.2).
    public static func gridDescriptor(_ d: [UInt8], item: UInt32 = 0, limits: Limits = .default) throws(ParseError)
        -> GridDescriptor
    {
        guard d.count >= 8, d[0] == 0 else {
            throw ParseError(.invalidValue, "grid item \(item): descriptor is truncated or of an unknown version")
        }
        let large = d[1] & 1 != 0
        guard d.count >= (large ? 12 : 8) else {
            throw ParseError(.truncated, "grid item \(item): descriptor is truncated")
        }
        let rows = Int(d[2]) + 1, cols = Int(d[3]) + 1
        let w: Int, h: Int
        if large {
            w = Int(UInt32(d[4]) << 24 | UInt32(d[5]) << 16 | UInt32(d[6]) << 8 | UInt32(d[7]))
            h = Int(UInt32(d[8]) << 24 | UInt32(d[9]) << 16 | UInt32(d[10]) << 8 | UInt32(d[11]))
        } else {
            w = Int(d[4]) << 8 | Int(d[5]); h = Int(d[6]) << 8 | Int(d[7])
        }
        try Image.checkDimensions(width: w, height: h, limits: limits)
        return GridDescriptor(rows: rows, columns: cols, width: w, height: h)
    }

    /// Applies a clean-aperture crop (centre-relative offsets, rational sizes rounded down).
    static func applyClap(_ img: Image, _ c: CleanApertureBox) throws(ParseError) -> Image {
        let wn = Int64(c.cleanApertureWidthN), wd = Int64(c.cleanApertureWidthD)
        let hn = Int64(c.cleanApertureHeightN), hd = Int64(c.cleanApertureHeightD)
        let hon = Int64(c.horizOffN), hod = Int64(c.horizOffD), von = Int64(c.vertOffN), vod = Int64(c.vertOffD)
        guard wd > 0, hd > 0, hod > 0, vod > 0 else { throw ParseError(.invalidValue, "clap has a zero denominator") }
        let cw = Int(wn / wd), ch = Int(hn / hd)
        guard cw > 0, ch > 0, cw <= img.width, ch <= img.height else {
            throw ParseError(.invalidValue, "clap \(cw)×\(ch) does not fit the \(img.width)×\(img.height) image")
        }
        // left = (W - cw)/2 + horizOff, rounded to nearest.
        let left2 = Int64(img.width - cw) * hod + 2 * hon  // ×2·hod
        let top2 = Int64(img.height - ch) * vod + 2 * von
        let x = Int((left2 + hod) / (2 * hod)), y = Int((top2 + vod) / (2 * vod))
        return try ImageOps.crop(
            img, x: min(max(0, x), img.width - cw), y: min(max(0, y), img.height - ch), width: cw, height: ch)
    }
}
