import BinaryIO
import Dispatch
import ISOBMFF
import HEVC
import Codecs
import SpatialMedia

/// How the two eyes sit in a single input image.
public enum StereoLayout: String, Sendable, CaseIterable {
    /// Left eye in the left half, right eye in the right half.
    case sbs
    /// Left eye in the top half, right eye in the bottom half.
    case tb
    /// `sbs` when the image is at least as wide as it is tall, otherwise `tb`.
    case auto
}

/// Options of a photo conversion. Nil values mean "derive or use the documented default".
public struct PhotoConversionOptions: Sendable {
    public var layout: StereoLayout = .auto
    /// Each eye was squeezed to half width (SBS) / half height (TB): stretch it back.
    public var halfResolution = false
    public var swapEyes = false
    /// Baseline in millimetres (default: MPO BaselineLength, else 64 mm).
    public var baselineMM: Double?
    /// Horizontal field of view in degrees (default: from EXIF, else 60°).
    public var hfovDegrees: Double?
    /// Horizontal disparity adjustment in percent of the image width (default 0).
    public var disparityPercent: Double?
    /// Where `hfovDegrees` / `disparityPercent` came from when not from the command line (e.g. `--align` crop,
    /// `--auto-disparity`), for the report.
    public var hfovSource: String?
    public var disparitySource: String?
    public var baselineSource: String?
    /// HEVC quality 0…100 (default 80 → CRF 16).
    public var quality: Int = PhotoEncoding.defaultQuality
    /// Camera property form (Apple `uuid` boxes by default).
    public var form: CameraPropertyForm = .apple
    public var limits: Limits = .default
    /// Coded bit depth: 8 (default, Main profile like Apple's photos) or 10 (Main 10).
    public var bitDepth = 8
    /// x265 worker threads (0 = all cores).
    public var threads = 0
    public init() {}

    public static let defaultBaselineMM = 64.0
    public static let defaultHFOVDegrees = 60.0
}

/// Two eyes ready to encode, with what we know about them.
public struct StereoPair: Sendable {
    public var left: Image
    public var right: Image
    /// TIFF-form EXIF to keep (from the left / first source).
    public var exif: [UInt8]?
    public var exifInfo: ExifInfo
    /// Baseline measured by the source (MPO BaselineLength), mm.
    public var sourceBaselineMM: Double?
    public var convergenceAngleDegrees: Double?
    public var sourceDescription: String
    public var notes: [String]

    public init(left: Image, right: Image, exif: [UInt8]?, exifInfo: ExifInfo, sourceBaselineMM: Double?, convergenceAngleDegrees: Double?, sourceDescription: String, notes: [String]) {
        self.left = left; self.right = right; self.exif = exif; self.exifInfo = exifInfo; self.sourceBaselineMM = sourceBaselineMM
        self.convergenceAngleDegrees = convergenceAngleDegrees; self.sourceDescription = sourceDescription; self.notes = notes
    }
}

/// What a conversion chose, with the provenance of every value.
public struct PhotoConversionReport: Sendable {
    public var width: Int
    public var height: Int
    public var baselineMM: Double
    public var baselineSource: String
    public var hfovDegrees: Double
    public var hfovSource: String
    public var disparityPercent: Double
    public var disparitySource: String
    public var quality: Int
    public var notes: [String]
    public var bytes: Int

    /// Human-readable lines, one per decision (printed by the CLI).
    public var lines: [String] {
        ["eyes \(width)×\(height)",
         "baseline \(fmt(baselineMM)) mm (\(baselineSource))",
         "horizontal field of view \(fmt(hfovDegrees))° (\(hfovSource))",
         "disparity adjustment \(fmt(disparityPercent)) % (\(disparitySource))",
         "quality \(quality) (x265 CRF \(fmt(40 - 0.3 * Double(quality))))"] + notes
    }
    func fmt(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}

/// Conversion of stereo sources (SBS/TB images, MPO files, left/right pairs) to spatial photos.
public enum PhotoConverter {
    /// Reads one image holding both eyes (SBS/TB JPEG, PNG, HEIC) or an MPO file.
    public static func loadPair(input path: String, options: PhotoConversionOptions) throws(ParseError) -> StereoPair {
        let src = try ImageFiles.load(path, limits: options.limits)
        do throws(ParseError) {
            return try pair(from: src, name: path, options: options)
        } catch {
            var e = error; if e.path.isEmpty { e.path = path }; throw e
        }
    }

    /// Splits a loaded image (or takes the two MPO pictures).
    public static func pair(from src: LoadedImage, name: String, options: PhotoConversionOptions) throws(ParseError) -> StereoPair {
        var notes = src.notes
        var left: Image, right: Image
        var baseline: Double?
        var convergence: Double?
        let desc: String
        if src.kind == .mpo {
            guard let second = src.mpoSecond else {
                throw ParseError(.invalidValue, offset: 0, "MPO file holds only one image; a stereo pair needs two")
            }
            left = src.image; right = second
            let a = src.mpoAttributes
            // Viewpoints are numbered left to right.
            if a.count == 2, let n0 = a[0].individualNumber, let n1 = a[1].individualNumber, n1 < n0 {
                swap(&left, &right)
                notes.append("MPO viewpoint numbers put the second image on the left")
            }
            baseline = a.lazy.compactMap(\.baselineMM).first
            convergence = a.lazy.compactMap(\.convergenceAngleDegrees).first
            desc = "MPO"
            if left.width != right.width || left.height != right.height {
                throw ParseError(.invalidValue, offset: 0, "the two MPO images differ in size (\(left.width)×\(left.height) and \(right.width)×\(right.height))")
            }
        } else {
            let img = src.image
            let layout: StereoLayout = options.layout == .auto ? (img.width >= img.height ? .sbs : .tb) : options.layout
            if layout == .sbs {
                guard img.width >= 2 else { throw ParseError(.invalidValue, offset: 0, "image is \(img.width) px wide: too narrow to hold two eyes side by side") }
                let half = img.width / 2
                if img.width % 2 == 1 { notes.append("input width \(img.width) is odd: the middle column is dropped, so each eye is \(half) px wide") }
                left = try ImageOps.crop(img, x: 0, y: 0, width: half, height: img.height)
                right = try ImageOps.crop(img, x: img.width - half, y: 0, width: half, height: img.height)
                if options.halfResolution {
                    left = try ImageOps.resize(left, width: half * 2, height: img.height, limits: options.limits)
                    right = try ImageOps.resize(right, width: half * 2, height: img.height, limits: options.limits)
                    notes.append("half-width side-by-side: each eye stretched to \(half * 2) px wide")
                }
            } else {
                guard img.height >= 2 else { throw ParseError(.invalidValue, offset: 0, "image is \(img.height) px tall: too short to hold two eyes one above the other") }
                let half = img.height / 2
                if img.height % 2 == 1 { notes.append("input height \(img.height) is odd: the middle row is dropped, so each eye is \(half) px tall") }
                left = try ImageOps.crop(img, x: 0, y: 0, width: img.width, height: half)
                right = try ImageOps.crop(img, x: 0, y: img.height - half, width: img.width, height: half)
                if options.halfResolution {
                    left = try ImageOps.resize(left, width: img.width, height: half * 2, limits: options.limits)
                    right = try ImageOps.resize(right, width: img.width, height: half * 2, limits: options.limits)
                    notes.append("half-height top-bottom: each eye stretched to \(half * 2) px tall")
                }
            }
            desc = "\(src.kind.rawValue) \(layout == .sbs ? "side-by-side" : "top-bottom")"
        }
        return StereoPair(left: left, right: right, exif: src.exif, exifInfo: src.exifInfo, sourceBaselineMM: baseline,
                          convergenceAngleDegrees: convergence, sourceDescription: desc, notes: notes)
    }

    /// Reads two files as the left and right eyes (each JPEG, PNG or HEIC).
    public static func loadPair(left l: String, right r: String, options: PhotoConversionOptions) throws(ParseError) -> StereoPair {
        let a = try ImageFiles.load(l, limits: options.limits)
        let b = try ImageFiles.load(r, limits: options.limits)
        guard a.image.width == b.image.width, a.image.height == b.image.height else {
            throw ParseError(.invalidValue, offset: 0, path: r, "the eyes differ in size: \(l) is \(a.image.width)×\(a.image.height), \(r) is \(b.image.width)×\(b.image.height)")
        }
        return StereoPair(left: a.image, right: b.image, exif: a.exif, exifInfo: a.exifInfo, sourceBaselineMM: nil, convergenceAngleDegrees: nil,
                          sourceDescription: "left/right pair", notes: a.notes + b.notes)
    }

    /// The horizontal field of view a conversion uses and where it comes from: `--hfov`, the EXIF of the source,
    /// or the default.
    public static func fieldOfView(_ pair: StereoPair, options: PhotoConversionOptions) -> (degrees: Double, source: String) {
        if let f = options.hfovDegrees { return (f, options.hfovSource ?? "--hfov") }
        if let f = pair.exifInfo.horizontalFOV(imageWidth: pair.left.width, imageHeight: pair.left.height) { return (f.degrees, f.source) }
        return (PhotoConversionOptions.defaultHFOVDegrees, "default; not measured")
    }

    /// Encodes a pair into spatial-photo bytes and reports every value chosen.
    public static func encode(_ pairIn: StereoPair, options: PhotoConversionOptions) throws(ParseError) -> (bytes: [UInt8], report: PhotoConversionReport) {
        var pair = pairIn
        var notes = pair.notes
        if options.swapEyes { swap(&pair.left, &pair.right); notes.append("eyes swapped (--swap-eyes)") }
        let w = pair.left.width, h = pair.left.height
        guard w == pair.right.width, h == pair.right.height else {
            throw ParseError(.invalidValue, offset: 0, "the eyes differ in size")
        }
        try Image.checkDimensions(width: w, height: h, limits: options.limits)
        // Parameters and their provenance.
        let baseline: Double, bSrc: String
        if let b = options.baselineMM { baseline = b; bSrc = options.baselineSource ?? "--baseline" }
        else if let b = pair.sourceBaselineMM { baseline = b; bSrc = "MPO BaselineLength" }
        else { baseline = PhotoConversionOptions.defaultBaselineMM; bSrc = "default; not measured" }
        let (hfov, fSrc) = fieldOfView(pair, options: options)
        let disparity = options.disparityPercent ?? 0
        let dSrc = options.disparityPercent == nil ? "default" : options.disparitySource ?? "--disparity"
        guard baseline > 0, baseline < 10_000_000 else { throw ParseError(.invalidValue, offset: 0, "baseline \(baseline) mm is out of range") }
        guard hfov > 0, hfov < 180 else { throw ParseError(.invalidValue, offset: 0, "field of view \(hfov)° must be between 0 and 180") }
        guard abs(disparity) <= 100 else { throw ParseError(.invalidValue, offset: 0, "disparity \(disparity) % must be between -100 and 100") }
        if let c = pair.convergenceAngleDegrees { notes.append("MPO convergence angle \(c)° (not stored: spatial photos have no such field)") }

        let depth = max(pair.left.bitDepth, pair.right.bitDepth)
        guard options.bitDepth == 8 || options.bitDepth == 10 else { throw ParseError(.invalidValue, offset: 0, "bit depth must be 8 or 10") }
        if depth > options.bitDepth { notes.append("\(depth)-bit source converted to \(options.bitDepth) bits for a \(options.bitDepth)-bit HEVC encode") }
        let settings = PhotoEncoding.settings(quality: options.quality, sourceDepth: options.bitDepth, threads: options.threads)
        let coded = try HEVCStillEncoder.encode([pair.left, pair.right], settings: settings, limits: options.limits)
        guard coded.count == 2 else { throw ParseError(.invalidValue, offset: 0, "encoder returned \(coded.count) images") }
        let params = StereoPhotoParameters(baselineMicrometres: UInt32((baseline * 1000).rounded()),
                                           hfovMillidegrees: UInt32((hfov * 1000).rounded()),
                                           disparity: Int32((disparity * 100).rounded()), form: options.form)
        let exifPayload = pair.exif.map { [0, 0, 0, 0] + $0 }
        let bytes = try SpatialPhotoWriter.build(left: PhotoEncoding.codedImage(coded[0], settings: settings),
                                                 right: PhotoEncoding.codedImage(coded[1], settings: settings),
                                                 parameters: params, exif: exifPayload)
        if pair.exif != nil { notes.append("EXIF of the source kept as an Exif item") }
        let report = PhotoConversionReport(width: w, height: h, baselineMM: baseline, baselineSource: bSrc, hfovDegrees: hfov, hfovSource: fSrc,
                                           disparityPercent: disparity, disparitySource: dSrc, quality: options.quality, notes: notes, bytes: bytes.count)
        return (bytes, report)
    }

    /// Converts and writes `output` atomically.
    public static func convert(_ pair: StereoPair, options: PhotoConversionOptions, to output: String) throws(ParseError) -> PhotoConversionReport {
        let (bytes, report) = try encode(pair, options: options)
        try AtomicFile.write(path: output, bytes: bytes)
        return report
    }
}

/// Splitting a spatial photo into its eyes.
public enum PhotoSplitter {
    /// Decodes both eyes of a stereo HEIC (the `ster` group; entity 0 = left). Both eyes are decoded
    /// concurrently through the grid decoder's tile parallelism.
    public static func decodeEyes(_ path: String, limits: Limits = .default) throws(ParseError) -> (left: Image, right: Image, exif: [UInt8]?) {
        let file = try ISOFile.open(path: path, limits: limits)
        do throws(ParseError) {
            return try decodeEyes(file: file, limits: limits)
        } catch {
            var e = error; if e.path.isEmpty { e.path = path }; throw e
        }
    }

    public static func decodeEyes(file: ISOFile, limits: Limits = .default) throws(ParseError) -> (left: Image, right: Image, exif: [UInt8]?) {
        guard let meta = file.heif else { throw ParseError(.notRecognised, offset: 0, "not a HEIF file") }
        guard let g = meta.groups.first(where: { $0.type == "ster" }), g.entityIDs.count == 2 else {
            throw ParseError(.notRecognised, offset: 0, "no stereo pair: the file has no 'ster' entity group with two images")
        }
        // The eyes are decoded at the same time, each splitting its grid tiles over half the cores: one
        // eye's serial steps (canvas assembly, the last tiles) overlap the other eye's decoding.
        let ids = [g.entityIDs[0], g.entityIDs[1]]
        let perEye = max(1, ProcessorInfo.activeCount / 2)
        let slots = Slots<Result<Image, ParseError>>(count: 2)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            do throws(ParseError) {
                slots.set(i, .success(try HEIFImageDecoder.decode(file: file, item: ids[i], limits: limits, workers: perEye)))
            } catch {
                slots.set(i, .failure(error))
            }
        }
        func eye(_ i: Int) throws(ParseError) -> Image {
            switch slots.get(i) {
            case .success(let img)?: return img
            case .failure(let e)?: throw e
            case nil: throw ParseError(.invalidValue, offset: 0, "eye \(i) was not decoded")
            }
        }
        let l = try eye(0), r = try eye(1)
        return (l, r, ImageFiles.heifExif(file, item: g.entityIDs[0], limits: limits))
    }

    /// Writes the eyes to separate files and/or one side-by-side file (format by extension).
    public static func split(_ path: String, left: String?, right: String?, sbs: String?, quality: Int? = nil, limits: Limits = .default) throws(ParseError) {
        guard left != nil || right != nil || sbs != nil else {
            throw ParseError(.invalidValue, offset: 0, "nothing to write: give --left/--right or --sbs")
        }
        let eyes = try decodeEyes(path, limits: limits)
        // Pixels go out as RGB at 8 bits, or 16 bits for deeper sources (PNG keeps them; JPEG reduces to 8).
        let depth = eyes.left.bitDepth > 8 ? 16 : 8
        let l = try ColourConversion.toRGB(eyes.left, bitDepth: depth)
        let r = try ColourConversion.toRGB(eyes.right, bitDepth: depth)
        if let left { try ImageFiles.save(l, to: left, jpegQuality: quality ?? 95, heicQuality: quality ?? PhotoEncoding.defaultQuality, exif: eyes.exif, limits: limits) }
        if let right { try ImageFiles.save(r, to: right, jpegQuality: quality ?? 95, heicQuality: quality ?? PhotoEncoding.defaultQuality, exif: eyes.exif, limits: limits) }
        if let sbs {
            let joined = try ImageOps.join(l, r, limits: limits)
            try ImageFiles.save(joined, to: sbs, jpegQuality: quality ?? 95, heicQuality: quality ?? PhotoEncoding.defaultQuality, exif: eyes.exif, limits: limits)
        }
    }
}
