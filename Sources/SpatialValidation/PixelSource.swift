import BinaryIO
import Codecs
import HEVC
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialMedia
import StereoVision

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decoded eyes as grey images plus simple colour statistics. Every decode call of the validator lives here.
public struct EyePixels: Sendable {
    public var left: GrayImage
    public var right: GrayImage
    /// Mean (Cb, Cr) of each eye on a 0…255 scale (128 = neutral), when colour is known.
    public var leftChroma: (cb: Double, cr: Double)?
    public var rightChroma: (cb: Double, cr: Double)?
    /// Input pixels per analysed pixel (> 1 when a huge input was reduced on decode).
    public var scale: Int = 1
    /// Both eyes were cut from one packed picture (side by side, top-bottom, a frame-packed movie): a wrong layout is
    /// then the likeliest reason nothing matches, and the finding says so. Views decoded apart (MV-HEVC layers, a
    /// HEIC pair, two files, an MPO's two pictures) cannot have a wrong layout.
    public var fromOnePicture = false
    /// The field of view the source states (its stereo metadata or EXIF), with where it comes from.
    public var statedFieldOfView: (degrees: Double, source: String)?
    public var notes: [String] = []
    /// Where the frame came from (video frame index), for findings.
    public var label: String = ""
    /// Small colour (RGB, 8-bit) thumbnails of the eyes for the report.
    public var leftThumbnail: Image?
    public var rightThumbnail: Image?
}

enum PixelSource {
    /// Largest side kept when converting to grey (larger inputs are box-reduced by an integer factor on the fly).
    static let maxSide = 4096

    /// Luma of an image on a 0…255 scale, reduced by an integer factor when a side exceeds ``maxSide``.
    static func gray(_ img: Image) -> (GrayImage, Int, (cb: Double, cr: Double)?)? {
        let w = img.width, h = img.height
        guard w > 0, h > 0 else { return nil }
        let k = max(1, (max(w, h) + maxSide - 1) / maxSide)
        let ow = max(1, w / k), oh = max(1, h / k)
        let norm = 255.0 / Double(img.maxValue)
        var out = [Float](repeating: 0, count: ow * oh)
        var cbSum = 0.0, crSum = 0.0, count = 0.0
        let ch = img.format.interleavedChannels
        func sampleLuma(_ x: Int, _ y: Int) -> Double {
            switch img.format {
            case .yuv420, .yuv422, .yuv444, .gray: return Double(img.sample(0, x, y))
            case .rgb, .rgba:
                let r = Double(img.sample(0, x, y, channel: 0)), g = Double(img.sample(0, x, y, channel: 1)),
                    b = Double(img.sample(0, x, y, channel: 2))
                return 0.299 * r + 0.587 * g + 0.114 * b
            }
        }
        _ = ch
        for oy in 0..<oh {
            for ox in 0..<ow {
                var s = 0.0
                for yy in (oy * k)..<(oy * k + k) { for xx in (ox * k)..<(ox * k + k) { s += sampleLuma(xx, yy) } }
                out[oy * ow + ox] = Float(s / Double(k * k) * norm)
            }
        }
        // Colour: sample a sparse grid (every 8th pixel) for mean chroma.
        let step = max(1, min(w, h) / 128)
        var y = 0
        while y < h {
            var x = 0
            while x < w {
                switch img.format {
                case .yuv420, .yuv422, .yuv444:
                    let sx = img.format.chromaShift.x, sy = img.format.chromaShift.y
                    cbSum += Double(img.sample(1, x >> sx, y >> sy)) * norm;
                    crSum += Double(img.sample(2, x >> sx, y >> sy)) * norm; count += 1
                case .rgb, .rgba:
                    let r = Double(img.sample(0, x, y, channel: 0)) * norm,
                        g = Double(img.sample(0, x, y, channel: 1)) * norm,
                        b = Double(img.sample(0, x, y, channel: 2)) * norm
                    let yv = 0.299 * r + 0.587 * g + 0.114 * b
                    cbSum += 128 + (b - yv) * 0.564; crSum += 128 + (r - yv) * 0.713; count += 1
                case .gray: break
                }
                x += step
            }
            y += step
        }
        guard let g = GrayImage(width: ow, height: oh, pixels: out) else { return nil }
        return (g, k, count > 0 ? (cbSum / count, crSum / count) : nil)
    }

    static func eyes(_ l: Image, _ r: Image, notes: [String] = []) throws(ParseError) -> EyePixels {
        guard let a = gray(l), let b = gray(r) else { throw ParseError(.invalidValue, "the decoded eyes are empty") }
        var n = notes
        if a.1 > 1 {
            n.append(
                "the \(l.width)×\(l.height) eyes were reduced \(a.1)× on decode (to \(a.0.width)×\(a.0.height)); pixel values are in reduced pixels"
            )
        }
        var e = EyePixels(left: a.0, right: b.0, leftChroma: a.2, rightChroma: b.2, scale: a.1, notes: n)
        e.leftThumbnail = thumbnail(l); e.rightThumbnail = thumbnail(r)
        return e
    }

    /// An RGB thumbnail whose longer side is at most 320 px (nil when the conversion fails).
    static func thumbnail(_ img: Image) -> Image? {
        let side = max(img.width, img.height)
        let k = max(1, (side + 319) / 320)
        let small =
            k > 1 ? (try? ImageOps.resize(img, width: max(1, img.width / k), height: max(1, img.height / k))) : img
        return small.flatMap { try? ColourConversion.toRGB($0) }
    }

    /// Both eyes of a stereo HEIC.
    static func photo(_ file: ISOFile, limits: Limits) throws(ParseError) -> EyePixels {
        let e = try StereoImages.decodeSpatialPhoto(file: file, limits: limits)
        return try eyes(e.left, e.right)
    }

    /// A side-by-side / top-bottom image, or an MPO (two pictures).
    static func packed(_ path: String, layout: StereoLayout, limits: Limits) throws(ParseError) -> EyePixels {
        let p = try StereoImages.load(path, packing: ImagePacking(layout: layout, limits: limits))
        var e = try eyes(p.left, p.right, notes: p.notes + ["eyes from \(p.sourceDescription)"])
        e.fromOnePicture = p.packedLayout != nil
        e.statedFieldOfView = p.statedFieldOfView
        return e
    }

    /// Two files; sizes are not required to match (the analyser reports it).
    static func pair(left: String, right: String, limits: Limits) throws(ParseError) -> EyePixels {
        let a = try ImageFiles.load(left, limits: limits)
        let b = try ImageFiles.load(right, limits: limits)
        var e = try eyes(a.image, b.image, notes: a.notes + b.notes)
        // As `convert` reads two eyes: the values `split` wrote into them, else the left eye's EXIF.
        var p = StereoPair(
            left: a.image, right: b.image, exif: a.exif, exifInfo: a.exifInfo, sourceBaselineMM: nil,
            convergenceAngleDegrees: nil, sourceDescription: "left/right pair", notes: [])
        StereoImages.readBack(&p, left: left, right: right, limits: limits)
        e.statedFieldOfView = p.statedFieldOfView
        return e
    }

    /// `count` frames spread over a spatial video whose layers can be split without decoding (no inter-layer
    /// prediction: our own MV-HEVC output), decoded per eye with libde265.
    /// Also returns the runs of consecutive frames the eye-sync measurement (``EyeSync``) reads.
    static func videoFrames(_ path: String, count: Int, limits: Limits) throws(ParseError) -> (
        frames: [EyePixels], runs: [EyeSync.Run]
    ) {
        let layers = try StreamSplitter.split(path: path, limits: limits)
        let l = try HEVCDecoder.decode(annexB: layers.left, limits: limits)
        let r = try HEVCDecoder.decode(annexB: layers.right, limits: limits)
        let n = min(l.count, r.count)
        guard n > 0 else { throw ParseError(.invalidValue, "no decodable frames") }
        var out: [EyePixels] = []
        for i in pickFrames(total: n, count: count) {
            var e = try eyes(l[i], r[i])
            e.label = "frame \(i)"
            out.append(e)
        }
        var runs: [EyeSync.Run] = []
        for start in EyeSync.runStarts(total: n) {
            let range = start..<min(n, start + EyeSync.runLength)
            runs.append((range.compactMap { gray(l[$0])?.0 }, range.compactMap { gray(r[$0])?.0 }))
        }
        return (out, runs)
    }

    static func pickFrames(total n: Int, count: Int) -> [Int] {
        let c = max(1, min(count, n))
        if c == 1 { return [n / 2] }
        return (0..<c).map { k in min(n - 1, (k * (n - 1)) / (c - 1)) }
    }
}

extension PixelSource {
    /// The integer reduction applied on decode to an image of this grey content (for tests of huge inputs).
    static func reduction(of g: GrayImage) -> (factor: Int, width: Int, height: Int)? {
        guard
            let img = try? Image(width: g.width, height: g.height, bitDepth: 8, format: .gray, planes: .u8([g.bytes])),
            let r = gray(img)
        else { return nil }
        return (r.1, r.0.width, r.0.height)
    }
}
