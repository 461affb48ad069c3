import BinaryIO
import Codecs
import ISOBMFF
import ImageFormats
import MediaDecode
import SystemSupport

/// What `StereoImageSplitter.split(_:left:right:sbs:ou:layout:quality:limits:)` read and how it wrote each output.
public struct StereoImageSplitReport: Sendable {
    /// What the input is ("MPO", "JPEG side-by-side", "PNG top-bottom", …).
    public var source: String
    /// How each output was made, one line per output ("left.jpg: … copied byte for byte …").
    public var methods: [String] = []
    /// Every output was made without loss (a copy, a lossless JPEG crop, PNG).
    public var lossless = true
    public var notes: [String] = []
}

/// Splits a stereo still image that is not a spatial photo — an MPO (two JPEG pictures), or one side-by-side or
/// top-bottom JPEG, PNG or HEIF picture — into one file per eye, or re-packs it side by side / top-bottom.
///
/// Without loss where the formats allow it: an MPO eye written as `.jpg` is its JPEG copied byte for byte (the
/// MP Format segment, which indexes the other picture, left out); a packed JPEG whose split line falls on the MCU
/// grid (and whose EXIF orientation is 1) is cut without decoding (``/Codecs/JPEG/losslessCrops(_:_:)``);
/// PNG output is lossless. Anything else is decoded (``/MediaDecode/StereoImages``) and encoded at `quality`
/// (JPEG 95, HEIC ``/MediaDecode/PhotoEncoding/defaultQuality`` by default), with the source's EXIF (orientation
/// reset when applied) and ICC profile.
public enum StereoImageSplitter {
    /// Writes the outputs given (each atomically). `layout`: how a single picture holds the eyes (`auto`: by its
    /// shape).
    package static func split(
        _ path: String, left: String?, right: String?, sbs: String?, ou: String?, layout: StereoLayout = .auto,
        quality: Int? = nil, limits: Limits = .default
    ) throws(ParseError) -> StereoImageSplitReport {
        let data = try FileBytes.read(path, limits: limits)
        var layout = layout
        var measured: String?
        if layout == .auto { (layout, measured) = try recognise(path, data: data, limits: limits) }
        let coded: CodedEyes?
        do throws(ParseError) { coded = try codedEyes(data, layout: layout) } catch {
            var e = error; if e.path.isEmpty { e.path = path }; throw e
        }
        var pair: StereoPair?
        func decoded() throws(ParseError) -> StereoPair {
            if let pair { return pair }
            let p = try StereoImages.load(path, packing: ImagePacking(layout: layout, limits: limits))
            pair = p
            return p
        }
        var report = StereoImageSplitReport(source: coded?.source ?? "")
        if coded == nil { report.source = try decoded().sourceDescription }
        let packed: StereoLayout?
        if let coded { packed = coded.packed } else { packed = try decoded().packedLayout }
        if let packed, (packed == .sbs && sbs != nil) || (packed == .tb && ou != nil) {
            throw ParseError(
                .invalidArgument, path: path,
                "the input is already \(packed == .sbs ? "side by side" : "top-bottom"): write the eyes or the other packing"
            )
        }
        let jpegQuality = quality ?? 95, heicQuality = quality ?? PhotoEncoding.defaultQuality
        let icc = (try? JPEGSegments(data))?.iccProfile
        for (eye, out) in [(0, left), (1, right)] {
            guard let out else { continue }
            let name = eye == 0 ? "left" : "right"
            if let coded, isJPEG(out), let bytes = coded.eyes[eye] {
                try AtomicFile.write(path: out, bytes: bytes)
                report.methods.append("\(out): \(coded.how(name))")
                continue
            }
            let p = try decoded()
            try ImageFiles.save(
                eye == 0 ? p.left : p.right, to: out, jpegQuality: jpegQuality, heicQuality: heicQuality, exif: p.exif,
                icc: icc, limits: limits)
            report.methods.append(
                "\(out): \(name) eye decoded and " + encodedHow(out, jpegQuality: jpegQuality, heicQuality: heicQuality)
            )
            if !isPNG(out) { report.lossless = false }
        }
        for (out, vertical) in [(sbs, false), (ou, true)] {
            guard let out else { continue }
            let p = try decoded()
            let joined = try ImageOps.join(p.left, p.right, vertical: vertical, limits: limits)
            try ImageFiles.save(
                joined, to: out, jpegQuality: jpegQuality, heicQuality: heicQuality, exif: p.exif, icc: icc,
                limits: limits)
            report.methods.append(
                "\(out): eyes \(vertical ? "stacked left over right" : "side by side, left eye on the left") and "
                    + encodedHow(out, jpegQuality: jpegQuality, heicQuality: heicQuality))
            if !isPNG(out) { report.lossless = false }
        }
        if let measured { report.notes.append(measured) }
        if let coded {
            report.notes += coded.notes
        } else if let p = pair, p.layoutGuessed, let l = p.packedLayout {
            report.notes.append(guessNote(l))
        }
        if let pair { report.notes += pair.notes.filter { !report.notes.contains($0) } }
        return report
    }

    /// True when `path` is a spatial photo (a HEIF with a `ster` entity group): ``PhotoSplitter`` splits those.
    public static func isSpatialPhoto(_ path: String, limits: Limits = .default) -> Bool {
        guard FileProbe.kind(of: path) == .heif, let file = try? ISOFile.open(path: path, limits: limits) else {
            return false
        }
        return file.heif?.groups.contains { $0.type == "ster" } ?? false
    }

    /// The eyes as JPEG files made without decoding, when the input allows it.
    struct CodedEyes {
        var source: String
        var packed: StereoLayout?
        /// Left and right JPEG bytes; nil where the eye cannot be cut without decoding.
        var eyes: [[UInt8]?]
        var lossless: String
        var notes: [String] = []
        func how(_ eye: String) -> String { "\(eye) eye \(lossless)" }
    }

    /// An MPO's two pictures (viewpoint order), or the halves of a packed JPEG cut on its MCU grid; nil for other
    /// inputs (PNG, HEIF), whose eyes are decoded.
    static func codedEyes(_ data: [UInt8], layout: StereoLayout) throws(ParseError) -> CodedEyes? {
        guard FileProbe.kind(head: Array(data.prefix(32))) == .jpeg else { return nil }
        let mpo = try MPO(data)
        if let (first, second) = mpo.stereoPair {
            var order = [first, second]
            var notes: [String] = []
            if StereoImages.mpoSecondIsLeft([mpo.pictures[first].attributes, mpo.pictures[second].attributes]) {
                order = [second, first]
                notes.append("MPO viewpoint numbers put the second picture on the left")
            }
            let eyes = order.map { withoutMPF(mpo.jpeg($0, in: data)) }
            let a = try JPEG.geometry(eyes[0]), b = try JPEG.geometry(eyes[1])
            guard a.width == b.width, a.height == b.height else {
                throw ParseError(
                    .invalidValue,
                    "the two MPO images differ in size (\(a.width)×\(a.height) and \(b.width)×\(b.height))")
            }
            if mpo.pictures.count > 2 {
                notes.append(
                    "MPO holds \(mpo.pictures.count) images; pictures \(first + 1) and \(second + 1) (the stereo views) are used"
                )
            }
            if let bl = mpo.pictures.lazy.compactMap(\.attributes.baselineMM).first,
                StereoImages.isPlausible(baselineMM: bl)
            {
                notes.append(
                    "MPO baseline \(NumberText.fixed(bl, places: 1)) mm: a JPEG eye has no field for it (convert the MPO to a spatial photo to keep it)"
                )
            }
            return CodedEyes(
                source: "MPO", packed: nil, eyes: eyes.map { Optional($0) },
                lossless:
                    "copied byte for byte from the MPO's JPEG (lossless; its MP Format segment, which indexes the other picture, left out)",
                notes: notes)
        }
        let g = try JPEG.geometry(data)
        let packed = layout.resolved(width: g.width, height: g.height)
        var c = CodedEyes(
            source: "JPEG \(packed == .sbs ? "side-by-side" : "top-bottom")", packed: packed, eyes: [nil, nil],
            lossless: "")
        if layout == .auto { c.notes.append(guessNote(packed)) }
        let orientation = (try? JPEGSegments(data))?.exifTIFF.flatMap { ExifInfo(tiff: $0).orientation } ?? 1
        let side = packed == .sbs ? g.width : g.height, mcu = packed == .sbs ? g.mcuWidth : g.mcuHeight
        let half = side / 2
        guard orientation == 1 || orientation == 0, side % 2 == 0, half > 0, half % mcu == 0 else {
            c.notes.append(
                orientation > 1
                    ? "EXIF orientation \(orientation): the stored picture is turned, so the eyes are decoded and re-encoded"
                    : "the split line (\(side % 2 == 0 ? "at \(half) px" : "of an odd \(packed == .sbs ? "width" : "height")")) is not on the JPEG's \(mcu)-pixel MCU grid, so the eyes are decoded and re-encoded"
            )
            return c
        }
        let rects =
            packed == .sbs
            ? [
                JPEG.Rect(x: 0, y: 0, width: half, height: g.height),
                JPEG.Rect(x: half, y: 0, width: half, height: g.height),
            ]
            : [
                JPEG.Rect(x: 0, y: 0, width: g.width, height: half),
                JPEG.Rect(x: 0, y: half, width: g.width, height: half),
            ]
        c.eyes = try JPEG.losslessCrops(data, rects).map { Optional($0) }
        c.lossless =
            "cut from the JPEG without decoding (lossless crop on the \(g.mcuWidth)×\(g.mcuHeight) MCU grid; markers kept)"
        return c
    }

    /// The layout of a JPEG or PNG that packs both eyes and was given none, measured as `convert` measures it
    /// (``PairRecognition/recogniseLayout(_:frames:)``): the one way its halves are a stereo pair; side by side, the
    /// default, when neither way has anything to measure (as `convert`); refused (give the layout) when it is no
    /// stereo pair either way. An MPO (two pictures) and other inputs keep `.auto`.
    static func recognise(_ path: String, data: [UInt8], limits: Limits) throws(ParseError) -> (StereoLayout, String?) {
        let kind = FileProbe.kind(head: Array(data.prefix(32)))
        guard kind == .jpeg || kind == .png else { return (.auto, nil) }
        if kind == .jpeg, let mpo = try? MPO(data), mpo.stereoPair != nil { return (.auto, nil) }
        let whole = try ImageFiles.load(path, limits: limits).image
        let r = PairRecognition.recogniseLayout([whole])
        if let l = r.layout {
            return (l, "layout \(l == .sbs ? "side by side" : "top-bottom") measured (\(r.summary))")
        }
        if r.nothingMeasured {
            return (.sbs, "the stereo pair could not be checked (\(r.summary)); cut side by side, the default")
        }
        throw ParseError(
            .notRecognised, path: path,
            "no stereo pair found in the picture (no layout given, and none stated): its halves, cut either way, \(r.nothingMeasured ? "have nothing to measure (too flat or too small)" : "do not show one scene from two viewpoints") — \(r.summary). Name the layout if it really holds two eyes",
            remedy: .giveLayout)
    }

    static func guessNote(_ l: StereoLayout) -> String {
        "layout guessed from the picture's shape: \(l == .sbs ? "side by side (at least as wide as tall)" : "top-bottom (taller than wide)"); state it to be sure"
    }

    /// A JPEG without its APP2 `MPF` segments (an MPO picture's index of the others, wrong in a file of its own).
    static func withoutMPF(_ jpeg: [UInt8]) -> [UInt8] {
        guard let s = try? JPEGSegments(jpeg) else { return jpeg }
        var out = jpeg
        for a in s.app.reversed() where a.marker == 0xE2 && a.payload.starts(with: Array("MPF".utf8) + [0]) {
            out.removeSubrange(a.offset..<(a.offset + 4 + a.payload.count))
        }
        return out
    }

    static func ext(_ p: String) -> String {
        p.split(separator: "/").last?.split(separator: ".").dropFirst().last.map { $0.lowercased() } ?? ""
    }
    static func isJPEG(_ p: String) -> Bool { ["jpg", "jpeg"].contains(ext(p)) }
    static func isPNG(_ p: String) -> Bool { ext(p) == "png" }

    static func encodedHow(_ out: String, jpegQuality: Int, heicQuality: Int) -> String {
        if isPNG(out) { return "written as PNG (lossless)" }
        if isJPEG(out) { return "encoded as JPEG at quality \(jpegQuality)" }
        return "encoded as HEIC at quality \(heicQuality)"
    }
}
