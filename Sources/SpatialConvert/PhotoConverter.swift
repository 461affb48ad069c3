import BinaryIO
import Codecs
import Dispatch
import HEVC
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialMedia
import SystemSupport

/// Options of a photo conversion. Nil values mean "derive or use the documented default".
public struct PhotoConversionOptions: Sendable {
    public var layout: StereoLayout = .auto
    /// Each eye was squeezed to half width (SBS) / half height (TB): stretch it back.
    public var halfResolution = false
    public var swapEyes = false
    /// Baseline, field of view and disparity adjustment in stored units (hero eye and projection must stay nil: a photo
    /// has no such fields). A nil field is derived — baseline from the MPO BaselineLength, field of view from the EXIF
    /// — or else taken from the one table of defaults, ``/SpatialMedia/StereoParameters/defaults`` (64 mm, 60°, 0 %).
    public var stereo = StereoParameters()
    /// Where the field of view / disparity adjustment of ``stereo`` came from when not from the command line (e.g.
    /// `--align` crop, `--auto-disparity`), for the report.
    public var hfovSource: String?
    public var disparitySource: String?
    public var baselineSource: String?
    /// HEVC quality 0…100 (default 80 → CRF 16).
    public var quality: Int = PhotoEncoding.defaultQuality
    /// Camera property form (Apple `uuid` boxes by default).
    public var form: CameraPropertyForm = .apple
    public var limits: Limits = .default
    /// Coded bit depth: 8 (Main) or 10 (Main 10); nil: 10 when an eye's source is deeper than 8 bits (a 10-bit HEIC
    /// stays 10-bit), else 8.
    public var bitDepth: Int?
    /// x265 worker threads (0 = all cores).
    public var threads = 0
    /// Convert a frame-packed picture even when the measurement finds no stereo pair in it (``PairRecognition``):
    /// the caller vouches that the layout is right. Off by default, so an ordinary photo is refused, not cut in half.
    /// It also converts a damaged or truncated JPEG as its decoder fills it (a report line says so) instead of refusing
    /// it.
    public var force = false
    public init() {}

    /// How the decode layer reads a single frame-packed image for these options.
    public var packing: ImagePacking {
        ImagePacking(layout: layout, halfResolution: halfResolution, limits: limits, acceptDamage: force)
    }

}

/// A conversion report's stereo values in human units: the one place for these views of the stored units.
public protocol StereoValuesReport {
    /// The baseline, field of view and disparity adjustment written, in stored units.
    var stereo: StereoParameters { get }
}

extension StereoValuesReport {
    /// Baseline written, in millimetres (``stereo``).
    public var baselineMM: Double { stereo.baselineMillimetres ?? 0 }
    /// Field of view written, in degrees (``stereo``).
    public var hfovDegrees: Double { stereo.horizontalFieldOfViewDegrees ?? 0 }
    /// Disparity adjustment written, in percent of the width (``stereo``).
    public var disparityPercent: Double { stereo.disparityPercent ?? 0 }
}

/// What a conversion chose, with the provenance of every value.
public struct PhotoConversionReport: Sendable, StereoValuesReport {
    public var width: Int
    public var height: Int
    /// The baseline, field of view and disparity adjustment written.
    public var stereo: StereoParameters
    public var baselineSource: String
    public var hfovSource: String
    public var disparitySource: String
    public var quality: Int
    public var notes: [String]
    public var bytes: Int

    /// Human-readable lines, one per decision (printed by the CLI).
    public var lines: [String] {
        [
            "eyes \(width)×\(height)",
            "baseline \(fmt(baselineMM)) mm (\(baselineSource))",
            "horizontal field of view \(fmt(hfovDegrees))° (\(hfovSource))",
            "disparity adjustment \(fmt(disparityPercent)) % (\(disparitySource))",
            "quality \(quality) (x265 CRF \(fmt(40 - 0.3 * Double(quality))))",
        ] + notes
    }
    func fmt(_ v: Double) -> String {
        let r = (v * 1000).rounded() / 1000
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}

/// Conversion of stereo sources (SBS/TB images, MPO files, left/right pairs) to spatial photos.
public enum PhotoConverter {
    /// The horizontal field of view a conversion uses and where it comes from: `--hfov`, the EXIF of the source,
    /// or the default.
    public static func fieldOfView(_ pair: StereoPair, options: PhotoConversionOptions) -> (
        degrees: Double, source: String
    ) {
        if let f = options.stereo.horizontalFieldOfViewDegrees { return (f, options.hfovSource ?? "--hfov") }
        let f = pair.fieldOfView
        return (f.degrees, f.assumed ? "default; not measured" : f.source)
    }

    /// Encodes a pair into spatial-photo bytes and reports every value chosen.
    public static func encode(_ pairIn: StereoPair, options: PhotoConversionOptions) throws(ParseError) -> (
        bytes: [UInt8], report: PhotoConversionReport
    ) {
        var pair = pairIn
        var notes = pair.notes
        if options.swapEyes { pair.swapEyes(); notes.append("eyes swapped (--swap-eyes)") }
        guard pair.left.width == pair.right.width, pair.left.height == pair.right.height else {
            throw ParseError(.invalidValue, "the eyes differ in size")
        }
        // Recognition may cut the picture again the other way: the eye size is read after it.
        if let note = try PairRecognition.check(&pair, options: options) { notes.append(note) }
        let w = pair.left.width, h = pair.left.height
        try Image.checkDimensions(width: w, height: h, limits: options.limits)
        // Parameters and their provenance.
        let stereo = try chosenStereo(pair, options: options)
        let origin = pair.sourceStereoOrigin ?? "the input"
        let bSrc =
            options.stereo.baselineMicrometres != nil
            ? options.baselineSource ?? "--baseline"
            : pair.sourceStereo.baselineMicrometres != nil ? origin : "default; not measured"
        let fSrc = fieldOfView(pair, options: options).source
        let dSrc =
            options.stereo.disparityAdjustment != nil
            ? options.disparitySource ?? "--disparity"
            : pair.sourceStereo.disparityAdjustment != nil ? origin : "default"
        if let c = pair.convergenceAngleDegrees {
            notes.append("MPO convergence angle \(c)° (not stored: spatial photos have no such field)")
        }

        let depth = max(pair.left.bitDepth, pair.right.bitDepth)
        let outDepth = options.bitDepth ?? (depth > 8 ? 10 : 8)
        guard outDepth == 8 || outDepth == 10 else { throw ParseError(.invalidArgument, "bit depth must be 8 or 10") }
        if depth > outDepth {
            notes.append("\(depth)-bit source converted to \(outDepth) bits for a \(outDepth)-bit HEVC encode")
        } else if depth > 8 {
            notes.append(
                "\(depth)-bit source kept at 10 bits (HEVC Main 10)"
                    + (options.bitDepth == nil ? "; --bit-depth 8 makes an 8-bit photo" : ""))
        }
        let settings = PhotoEncoding.settings(quality: options.quality, sourceDepth: outDepth, threads: options.threads)
        let coded = try HEVCStillEncoder.encode([pair.left, pair.right], settings: settings, limits: options.limits)
        guard coded.count == 2 else { throw ParseError(.invalidValue, "encoder returned \(coded.count) images") }
        let exifPayload = pair.exif.map { [0, 0, 0, 0] + $0 }
        let aux = AuxiliaryCarry.prepare(pair, quality: options.quality, limits: options.limits)
        notes += aux.notes
        let bytes = try SpatialPhotoWriter.build(
            left: PhotoEncoding.codedImage(coded[0], settings: settings),
            right: PhotoEncoding.codedImage(coded[1], settings: settings),
            stereo: stereo, form: options.form, exif: exifPayload, rightExif: pair.rightExif.map { [0, 0, 0, 0] + $0 },
            xmp: SpatialPhotoWriter.spatialXMP(), auxiliary: (aux.left, aux.right))
        if pair.exif != nil { notes.append("EXIF of the source kept as an Exif item on each eye") }
        let report = PhotoConversionReport(
            width: w, height: h, stereo: stereo, baselineSource: bSrc, hfovSource: fSrc, disparitySource: dSrc,
            quality: options.quality, notes: notes, bytes: bytes.count)
        return (bytes, report)
    }

    /// The stereo parameters a conversion writes: ``PhotoConversionOptions/stereo`` where given, else the values the
    /// source states (``/MediaDecode/StereoPair/sourceStereo``: a spatial photo's calibration, an MPO baseline) and the
    /// EXIF field of view, else ``/SpatialMedia/StereoParameters/defaults``. A value the caller gave that does not fit
    /// is a usage error (`invalidArgument`); one read from the file is a fault of the input (`invalidValue`). The
    /// baseline must be above 0 and fit the signed 32-bit camera position (at most 2147483.647 mm).
    public static func chosenStereo(_ pair: StereoPair, options: PhotoConversionOptions) throws(ParseError)
        -> StereoParameters
    {
        var s = options.stereo.filled(
            from: StereoParameters(
                baselineMicrometres: pair.sourceStereo.baselineMicrometres,
                horizontalFieldOfViewMillidegrees: pair.sourceStereo.horizontalFieldOfViewMillidegrees,
                disparityAdjustment: pair.sourceStereo.disparityAdjustment))
        if s.horizontalFieldOfViewMillidegrees == nil,
            let f = pair.exifInfo.horizontalFOV(imageWidth: pair.left.width, imageHeight: pair.left.height)
        {
            do { try s.setHorizontalFieldOfView(degrees: f.degrees) } catch {
                throw ParseError(
                    .invalidValue, "field of view \(f.degrees)° (\(f.source)) is out of range: \(error.message)")
            }
        }
        s = s.filled(
            from: StereoParameters(
                baselineMicrometres: StereoParameters.defaults.baselineMicrometres,
                horizontalFieldOfViewMillidegrees: StereoParameters.defaults.horizontalFieldOfViewMillidegrees,
                disparityAdjustment: StereoParameters.defaults.disparityAdjustment))
        if s.baselineMicrometres == 0 {
            throw ParseError(
                options.stereo.baselineMicrometres != nil ? .invalidArgument : .invalidValue,
                "baseline 0 mm is out of range (above 0, at most 2147483.647 mm)")
        }
        do { try s.validate(); try s.checkedForPhoto() } catch { throw ParseError(.invalidArgument, error.message) }
        return s
    }

    /// Converts and writes `output` atomically.
    package static func convert(_ pair: StereoPair, options: PhotoConversionOptions, to output: String)
        throws(ParseError) -> PhotoConversionReport
    {
        let (bytes, report) = try encode(pair, options: options)
        try AtomicFile.write(path: output, bytes: bytes)
        return report
    }
}

/// Splitting a spatial photo into its eyes.
public enum PhotoSplitter {
    /// Writes the eyes to separate files and/or one side-by-side file (format by extension), and with `aux` each eye's
    /// auxiliary images (``writeAuxiliary(of:eye:to:file:limits:)``). Returns one line per auxiliary image or thumbnail
    /// saying where it went, or that a PNG/JPEG output does not carry it.
    @discardableResult
    package static func split(
        _ path: String, left: String?, right: String?, sbs: String?, aux: String? = nil, quality: Int? = nil,
        limits: Limits = .default
    ) throws(ParseError) -> [String] {
        guard left != nil || right != nil || sbs != nil || aux != nil else {
            throw ParseError(
                .invalidArgument, "nothing to write: give a left and right output, or a side-by-side one",
                remedy: .giveSplitOutputs)
        }
        let file = try ISOFile.open(path: path, limits: limits)
        do throws(ParseError) { try file.requireIntact() } catch {
            var e = error; e.message = "\(path): \(e.message)"; throw e
        }
        guard let g = file.heif?.groups.first(where: { $0.type == "ster" }), g.entityIDs.count == 2 else {
            throw ParseError(
                .notRecognised, path: path, "no stereo pair: the file has no 'ster' entity group with two images")
        }
        func isHEIF(_ p: String) -> Bool {
            ["heic", "heif"].contains(p.split(separator: ".").last.map { $0.lowercased() } ?? "")
        }
        var notes: [String] = []
        for (out, id, name) in [(left, g.entityIDs[0], "left"), (right, g.entityIDs[1], "right")] {
            let attached = try HEIFItemBundle.attached(to: id, file: file)
            for b in attached.bundles {
                if let out, isHEIF(out) {
                    notes.append("\(name) eye: \(b.description) kept in \(out), bytes unchanged")
                } else if let out {
                    notes.append(
                        "\(name) eye: \(b.description) not in \(out): PNG/JPEG have no place for it (write the eye as .heic, or use --aux DIR)"
                    )
                }
            }
            notes += attached.notCarried.map { "\(name) eye: \($0)" }
        }
        if sbs != nil, file.heif.map({ !HEIFImageInventory($0).auxiliary.isEmpty }) == true {
            notes.append("the side-by-side output carries no auxiliary images (each belongs to one eye; use --aux DIR)")
        }
        if let aux {
            for (id, name) in [(g.entityIDs[0], "left"), (g.entityIDs[1], "right")] {
                notes += try writeAuxiliary(of: id, eye: name, to: aux, file: file, limits: limits)
            }
        }
        // A .heic eye is the coded eye copied as it is (tiles, colour property, EXIF/XMP): no re-encoding, so
        // `combine` of the two files gives back the original pictures.
        for (out, id) in [(left, g.entityIDs[0]), (right, g.entityIDs[1])] {
            guard let out, isHEIF(out) else { continue }
            do throws(ParseError) {
                try AtomicFile.write(path: out, bytes: try SpatialPhotoEditor.extractEye(file: file, item: id))
            } catch { var e = error; if e.path.isEmpty { e.path = out }; throw e }
        }
        let needPixels = [left, right].contains { $0.map { !isHEIF($0) } ?? false } || sbs != nil
        guard needPixels else { return notes }
        let eyes: (left: Image, right: Image, exif: [UInt8]?)
        do throws(ParseError) { eyes = try StereoImages.decodeSpatialPhoto(file: file, limits: limits) } catch {
            var e = error; if e.path.isEmpty { e.path = path }; throw e
        }
        // Each eye keeps its own EXIF (Apple writes one per eye); the side-by-side image takes the left's.
        let rightExif = ImageFiles.heifExif(file, item: g.entityIDs[1], limits: limits) ?? eyes.exif
        // Pixels go out as RGB at 8 bits, or 16 bits for deeper sources (PNG keeps them; JPEG reduces to 8).
        let depth = eyes.left.bitDepth > 8 ? 16 : 8
        let l = try ColourConversion.toRGB(eyes.left, bitDepth: depth)
        let r = try ColourConversion.toRGB(eyes.right, bitDepth: depth)
        // The eyes' ICC profile (Apple: Display P3) tags PNG/JPEG output so the colours stay right.
        let leftICC = ImageFiles.heifICC(file, item: g.entityIDs[0]),
            rightICC = ImageFiles.heifICC(file, item: g.entityIDs[1])
        var leftXMP = ImageFiles.heifXMP(file, item: g.entityIDs[0], limits: limits)
        var rightXMP = ImageFiles.heifXMP(file, item: g.entityIDs[1], limits: limits)
        // The calibration goes with each PNG/JPEG eye (our XMP namespace), for `convert` of the two eyes to read back.
        if let stereo = eyeStereo(file), [left, right].contains(where: { $0.map { !isHEIF($0) } ?? false }) {
            leftXMP = EyeStereoXMP.packet(eye: "left", stereo: stereo, mergedInto: leftXMP)
            rightXMP = EyeStereoXMP.packet(eye: "right", stereo: stereo, mergedInto: rightXMP)
            notes.append("stereo values carried in each PNG/JPEG eye's XMP: \(EyeStereoXMP.summary(stereo))")
        }
        if let left, !isHEIF(left) {
            try ImageFiles.save(
                l, to: left, jpegQuality: quality ?? 95, heicQuality: quality ?? PhotoEncoding.defaultQuality,
                exif: eyes.exif, icc: leftICC, xmp: leftXMP, limits: limits)
        }
        if let right, !isHEIF(right) {
            try ImageFiles.save(
                r, to: right, jpegQuality: quality ?? 95, heicQuality: quality ?? PhotoEncoding.defaultQuality,
                exif: rightExif, icc: rightICC, xmp: rightXMP, limits: limits)
        }
        if let sbs {
            let joined = try ImageOps.join(l, r, limits: limits)
            try ImageFiles.save(
                joined, to: sbs, jpegQuality: quality ?? 95, heicQuality: quality ?? PhotoEncoding.defaultQuality,
                exif: eyes.exif,
                icc: isHEIF(sbs) ? nil : leftICC, limits: limits)
        }
        return notes
    }

    /// The calibration of a spatial photo as each eye carries it (baseline, field of view, disparity adjustment;
    /// nil when the file states none).
    static func eyeStereo(_ file: ISOFile) -> StereoParameters? {
        var problems: [SpatialDiagnostic] = []
        guard let p = SpatialPhotoReader.read(file, problems: &problems) else { return nil }
        let s = StereoParameters(
            baselineMicrometres: p.stereo.baselineMicrometres,
            horizontalFieldOfViewMillidegrees: p.stereo.horizontalFieldOfViewMillidegrees,
            disparityAdjustment: p.stereo.disparityAdjustment)
        return s.isEmpty ? nil : s
    }

    /// Writes each auxiliary image of image item `item` (gain map, depth, disparity, alpha, matte) into directory `dir`
    /// twice: `EYE-KIND.heic`, the image with its tiles, properties (`auxC` included) and metadata items, bytes
    /// unchanged (what `convert --left-gain-map` takes back), and `EYE-KIND.png`, its pixels as shown. A second image
    /// of one kind gets `-2`, `-3` …. Returns one line per file pair.
    public static func writeAuxiliary(
        of item: UInt32, eye: String, to dir: String, file: ISOFile, limits: Limits = .default
    ) throws(ParseError) -> [String] {
        var lines: [String] = []
        var used: [String: Int] = [:]
        for b in try HEIFItemBundle.attached(to: item, file: file, thumbnails: false).bundles {
            let kind = b.kind?.rawValue ?? "auxiliary"
            used[kind, default: 0] += 1
            let base = dir + "/" + eye + "-" + kind + (used[kind, default: 1] > 1 ? "-\(used[kind, default: 1])" : "")
            let heic = try b.standalone()
            try AtomicFile.write(path: base + ".heic", bytes: heic)
            let png: String
            do throws(ParseError) {
                let one = try ISOFile.parse(source: MemorySource(heic), limits: limits)
                let img = try HEIFImageDecoder.decode(file: one, item: b.rootID, limits: limits)
                try ImageFiles.save(img, to: base + ".png", limits: limits)
                png = " and \(base).png"
            } catch {
                png = " (no PNG: \(error.message))"
            }
            lines.append("\(eye) eye: \(b.description) written to \(base).heic\(png)")
        }
        if lines.isEmpty { lines.append("\(eye) eye: no auxiliary images to write") }
        return lines
    }
}
