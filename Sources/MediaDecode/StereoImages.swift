import BinaryIO
import ISOBMFF
import ImageFormats
import SpatialMedia
import SystemSupport

#if canImport(Dispatch)
    import Dispatch
#endif

/// How the two eyes sit in a single input image.
public enum StereoLayout: String, Sendable, CaseIterable {
    /// Left eye in the left half, right eye in the right half.
    case sbs
    /// Left eye in the top half, right eye in the bottom half.
    case tb
    /// `sbs` when the image is at least as wide as it is tall, otherwise `tb`.
    case auto
}

extension StereoLayout {
    /// The layout of a `width` × `height` frame: `auto` is `sbs` when the frame is at least as wide as it is tall,
    /// otherwise `tb`.
    public func resolved(width: Int, height: Int) -> StereoLayout {
        self == .auto ? (width >= height ? .sbs : .tb) : self
    }
}

/// How a single image holds both eyes, for ``StereoImages/load(_:packing:)``.
public struct ImagePacking: Sendable {
    public var layout: StereoLayout = .auto
    /// Each eye was squeezed to half width (SBS) / half height (TB): stretch it back.
    public var halfResolution = false
    public var limits: Limits = .default
    /// Decode a damaged or truncated JPEG as the decoder fills it (with a note) instead of refusing it (`--force`).
    public var acceptDamage = false
    public init(
        layout: StereoLayout = .auto, halfResolution: Bool = false, limits: Limits = .default,
        acceptDamage: Bool = false
    ) {
        self.layout = layout; self.halfResolution = halfResolution; self.limits = limits
        self.acceptDamage = acceptDamage
    }
}

/// Two eyes ready to encode, with what we know about them.
public struct StereoPair: Sendable {
    public var left: Image
    public var right: Image
    /// TIFF-form EXIF to keep (from the left / first source).
    public var exif: [UInt8]?
    /// TIFF-form EXIF of the right eye when the source has its own (a spatial photo); nil: the same as ``exif``.
    public var rightExif: [UInt8]?
    public var exifInfo: ExifInfo
    /// Camera values the source states, in stored units (µm, 1/1000°, 1/10000 of the width): a spatial photo's
    /// calibration, an MPO's BaselineLength. A value the source states but that is implausible is left out here,
    /// with a note in ``notes`` (see ``/SpatialMedia/SpatialUnits/plausibleBaselineMicrometres``).
    public var sourceStereo = StereoParameters()
    /// Where ``sourceStereo`` comes from, for the report ("the input spatial photo", "MPO BaselineLength").
    public var sourceStereoOrigin: String?
    /// The field of view the pair states, degrees, with where it comes from: the source's own stereo metadata,
    /// else its EXIF (FocalLengthIn35mmFilm, or FocalLength with FocalPlaneXResolution) for the eyes' size; nil when
    /// neither says. The one reading of a pair's field of view every command uses (`info`, `validate`, `convert`).
    public var statedFieldOfView: (degrees: Double, source: String)? {
        if let f = sourceStereo.horizontalFieldOfViewDegrees { return (f, sourceStereoOrigin ?? "the input") }
        return exifInfo.horizontalFOV(imageWidth: left.width, imageHeight: left.height)
    }
    /// The field of view the pair is read at when none is given: ``statedFieldOfView``, else the one table of defaults
    /// (60°), assumed. The one reading `info`, `validate` and `convert` make of a pair's field of view.
    public var fieldOfView: PairFieldOfView {
        if let s = statedFieldOfView { return PairFieldOfView(degrees: s.degrees, source: s.source, assumed: false) }
        return PairFieldOfView(
            degrees: StereoParameters.defaults.horizontalFieldOfViewDegrees ?? 60,
            source: "assumed: the input states none", assumed: true)
    }
    /// How the eyes were cut from one frame-packed picture (`sbs` or `tb`), or nil when the source holds two pictures
    /// (an MPO, two files, a spatial photo).
    public var packedLayout: StereoLayout?
    /// The layout of a frame-packed source was guessed from its shape (`--layout auto`), not given.
    public var layoutGuessed = false
    /// The halves were already checked as a stereo pair (and the layout, when guessed, measured): a second check
    /// (`PairRecognition.check`) does nothing.
    public var layoutChecked = false
    /// Baseline stated by the source, mm (a view of ``sourceStereo``).
    public var sourceBaselineMM: Double? {
        get { sourceStereo.baselineMillimetres }
        set {
            sourceStereo.baselineMicrometres = newValue.flatMap { try? SpatialUnits.micrometres(fromMillimetres: $0) }
        }
    }
    public var convergenceAngleDegrees: Double?
    public var sourceDescription: String
    public var notes: [String]
    /// Each eye's auxiliary images (HDR gain map, depth, alpha) and thumbnails from a HEIF source, carried to the
    /// output (byte-exact while ``eyeWarp`` is nil).
    public var leftAuxiliary: [HEIFItemBundle] = []
    public var rightAuxiliary: [HEIFItemBundle] = []
    /// What the sources attach to their pictures that cannot be carried, and why.
    public var auxiliaryNotCarried: [String] = []
    /// Each eye's HDR gain map from a JPEG source (Ultra HDR, Adobe / ISO 21496-1, Apple), still as JPEG: the job
    /// encodes it as that eye's gain map (`AuxiliaryCarry`).
    public var leftGainMap: JPEGGainMap?
    public var rightGainMap: JPEGGainMap?
    /// The geometry applied to both eyes since they were read (`align`), or nil.
    public var eyeWarp: EyeWarp?

    /// Swaps the eyes with everything attached to them (pictures, auxiliary images, warp).
    public mutating func swapEyes() {
        swap(&left, &right)
        swap(&leftAuxiliary, &rightAuxiliary)
        swap(&leftGainMap, &rightGainMap)
        if let w = eyeWarp {
            eyeWarp = EyeWarp(
                leftHomography: w.rightHomography, rightHomography: w.leftHomography, crop: w.crop, width: w.width,
                height: w.height)
        }
    }

    public init(
        left: Image, right: Image, exif: [UInt8]?, exifInfo: ExifInfo, sourceBaselineMM: Double?,
        convergenceAngleDegrees: Double?, sourceDescription: String, notes: [String]
    ) {
        self.left = left; self.right = right; self.exif = exif; self.exifInfo = exifInfo
        self.convergenceAngleDegrees = convergenceAngleDegrees; self.sourceDescription = sourceDescription;
        self.notes = notes
        self.sourceBaselineMM = sourceBaselineMM
    }
}

/// A pair's horizontal field of view with where it comes from (``StereoPair/fieldOfView``).
public struct PairFieldOfView: Sendable, Equatable {
    public var degrees: Double
    /// "EXIF FocalLengthIn35mmFilm 28 mm", "the input spatial photo", "the eyes' XMP (written by split)", or that it is
    /// assumed.
    public var source: String
    /// Nothing states it: the default is used.
    public var assumed: Bool
    public init(degrees: Double, source: String, assumed: Bool) {
        self.degrees = degrees; self.source = source; self.assumed = assumed
    }
}

/// The geometry a job applied to both eyes after reading them (`align`): each eye's homography (output pixel → source
/// pixel, as ``/ImageFormats/Image`` warps take it) and the common crop, in pixels of the eyes as read
/// (`width`×`height`).
public struct EyeWarp: Sendable {
    public var leftHomography: [Double]
    public var rightHomography: [Double]
    public var crop: (x: Int, y: Int, width: Int, height: Int)
    public var width: Int
    public var height: Int
    public init(
        leftHomography: [Double], rightHomography: [Double], crop: (x: Int, y: Int, width: Int, height: Int),
        width: Int, height: Int
    ) {
        self.leftHomography = leftHomography; self.rightHomography = rightHomography; self.crop = crop;
        self.width = width; self.height = height
    }
}

/// Stereo still images in every form we read: one frame-packed image (SBS/TB JPEG, PNG, HEIC), an MPO,
/// two files, or a spatial photo (stereo HEIC). The one place conversion and validation get eye pixels of photos.
public enum StereoImages {
    /// Reads one image holding both eyes (SBS/TB JPEG, PNG, HEIC), an MPO file, or a spatial photo. A spatial photo (a
    /// HEIF with a `ster` group) is taken for what it is: its two eyes and its calibration
    /// (``loadSpatialPhoto(_:file:limits:)``), never cut in half; `packing` does not apply to it.
    public static func load(_ path: String, packing options: ImagePacking) throws(ParseError) -> StereoPair {
        do throws(ParseError) {
            if FileProbe.kind(of: path) == .heif {
                let file = try ISOFile.open(path: path, limits: options.limits)
                var problems: [SpatialDiagnostic] = []
                if let photo = SpatialPhotoReader.read(file, problems: &problems) {
                    var pair = try loadSpatialPhoto(photo, file: file, limits: options.limits)
                    if options.layout != .auto || options.halfResolution {
                        pair.notes.append(
                            "the input is a spatial photo: its two eyes are used as they are (the layout and half-resolution options do not apply)"
                        )
                    }
                    return pair
                }
            }
        } catch {
            var e = error; if e.path.isEmpty { e.path = path }; throw e
        }
        let src = try ImageFiles.load(path, limits: options.limits, acceptDamage: options.acceptDamage)
        do throws(ParseError) {
            var p = try pair(from: src, name: path, packing: options)
            if let g = src.gainMap {
                p.auxiliaryNotCarried.append(
                    g.description + " not carried: it covers the whole frame-packed picture, not one eye")
            }
            // A frame-packed HEIC's gain map or depth covers both halves at once: it belongs to neither eye alone.
            if FileProbe.kind(of: path) == .heif, let f = try? ISOFile.open(path: path, limits: options.limits),
                let h = f.heif, let primary = h.primaryItemID
            {
                for a in HEIFImageInventory(h).auxiliary(of: primary) {
                    p.auxiliaryNotCarried.append(
                        "\(a.label) \(a.width)x\(a.height) (item \(a.itemID)) not carried: it covers the whole frame-packed picture, not one eye"
                    )
                }
            }
            return p
        } catch {
            var e = error; if e.path.isEmpty { e.path = path }; throw e
        }
    }

    /// Both eyes of a spatial photo with its calibration: the baseline (distance between the two camera positions),
    /// the field of view (left eye's intrinsics) and the disparity adjustment, each as stored; the EXIF of each eye.
    public static func loadSpatialPhoto(_ photo: SpatialPhoto, file: ISOFile, limits: Limits = .default)
        throws(ParseError) -> StereoPair
    {
        let eyes = try decodeSpatialPhoto(file: file, limits: limits)
        let exifInfo = eyes.exif.map { ExifInfo(tiff: $0) } ?? ExifInfo()
        var pair = StereoPair(
            left: eyes.left, right: eyes.right, exif: eyes.exif, exifInfo: exifInfo, sourceBaselineMM: nil,
            convergenceAngleDegrees: nil,
            sourceDescription: "spatial photo (both eyes)",
            notes: ["the input is already a spatial photo: both of its eyes and its calibration are used"])
        pair.rightExif = ImageFiles.heifExif(file, item: photo.right.itemID, limits: limits)
        var stereo = photo.stereo
        stereo.heroEye = nil; stereo.projectionKind = nil
        if let b = stereo.baselineMicrometres, !SpatialUnits.plausibleBaselineMicrometres.contains(b) {
            pair.notes.append(
                "the input's baseline \(NumberText.fixed(Double(b) / 1000, places: 3)) mm is not a plausible stereo camera baseline (\(plausibleBaselineText)), so it is not used"
            )
            stereo.baselineMicrometres = nil
        }
        pair.sourceStereo = stereo
        pair.sourceStereoOrigin = "the input spatial photo"
        try attachAuxiliary(&pair, left: (file, photo.left.itemID), right: (file, photo.right.itemID))
        return pair
    }

    /// Splits a loaded image (or takes the two MPO pictures).
    public static func pair(from src: LoadedImage, name: String, packing options: ImagePacking) throws(ParseError)
        -> StereoPair
    {
        var notes = src.notes
        var left: Image, right: Image
        var baseline: Double?
        var convergence: Double?
        var packed: StereoLayout?
        let desc: String
        if src.kind == .mpo {
            guard let second = src.mpoSecond else {
                throw ParseError(.invalidValue, "MPO file holds only one image; a stereo pair needs two")
            }
            left = src.image; right = second
            let a = src.mpoAttributes
            if mpoSecondIsLeft(a) {
                swap(&left, &right)
                notes.append("MPO viewpoint numbers put the second image on the left")
            }
            baseline = a.lazy.compactMap(\.baselineMM).first
            if let b = baseline, !isPlausible(baselineMM: b) {
                notes.append(
                    "MPO BaselineLength \(NumberText.fixed(b, places: 3)) mm is not a plausible stereo camera baseline (\(plausibleBaselineText)); it is a placeholder some cameras write, so it is not used"
                )
                baseline = nil
            }
            convergence = a.lazy.compactMap(\.convergenceAngleDegrees).first
            desc = "MPO"
            if left.width != right.width || left.height != right.height {
                throw ParseError(
                    .invalidValue,
                    "the two MPO images differ in size (\(left.width)×\(left.height) and \(right.width)×\(right.height))"
                )
            }
        } else {
            let img = src.image
            let layout = options.layout.resolved(width: img.width, height: img.height)
            packed = layout
            (left, right) = try halves(img, layout: layout)
            // Side by side halves the width, top-bottom the height; the words name that side.
            let sbs = layout == .sbs
            let side = sbs ? img.width : img.height, half = side / 2
            let (line, size, form) =
                sbs ? ("column", "wide", "half-width side-by-side") : ("row", "tall", "half-height top-bottom")
            if side % 2 == 1 {
                notes.append(
                    "input \(sbs ? "width" : "height") \(side) is odd: the middle \(line) is dropped, so each eye is \(half) px \(size)"
                )
            }
            if options.halfResolution {
                let w = sbs ? half * 2 : img.width, h = sbs ? img.height : half * 2
                left = try ImageOps.resize(left, width: w, height: h, limits: options.limits)
                right = try ImageOps.resize(right, width: w, height: h, limits: options.limits)
                notes.append("\(form): each eye stretched to \(half * 2) px \(size)")
            }
            desc = "\(src.kind.rawValue) \(layout == .sbs ? "side-by-side" : "top-bottom")"
        }
        var pair = StereoPair(
            left: left, right: right, exif: src.exif, exifInfo: src.exifInfo, sourceBaselineMM: baseline,
            convergenceAngleDegrees: convergence, sourceDescription: desc, notes: notes)
        if baseline != nil { pair.sourceStereoOrigin = "MPO BaselineLength" }
        pair.packedLayout = packed
        pair.layoutGuessed = packed != nil && options.layout == .auto
        return pair
    }

    /// The two eyes of one frame-packed picture: `sbs` left and right halves, `tb` top and bottom (`auto` by shape);
    /// an odd middle column or row is dropped.
    public static func halves(_ img: Image, layout: StereoLayout) throws(ParseError) -> (left: Image, right: Image) {
        if layout.resolved(width: img.width, height: img.height) == .sbs {
            guard img.width >= 2 else {
                throw ParseError(
                    .invalidValue, "image is \(img.width) px wide: too narrow to hold two eyes side by side")
            }
            let half = img.width / 2
            return (
                try ImageOps.crop(img, x: 0, y: 0, width: half, height: img.height),
                try ImageOps.crop(img, x: img.width - half, y: 0, width: half, height: img.height)
            )
        }
        guard img.height >= 2 else {
            throw ParseError(
                .invalidValue, "image is \(img.height) px tall: too short to hold two eyes one above the other")
        }
        let half = img.height / 2
        return (
            try ImageOps.crop(img, x: 0, y: 0, width: img.width, height: half),
            try ImageOps.crop(img, x: 0, y: img.height - half, width: img.width, height: half)
        )
    }

    /// True when an MPO's viewpoint numbers (MP attributes of its first two pictures) put the second picture on
    /// the left: viewpoints are numbered left to right.
    public static func mpoSecondIsLeft(_ a: [MPO.Attributes]) -> Bool {
        guard a.count >= 2, let n0 = a[0].individualNumber, let n1 = a[1].individualNumber else { return false }
        return n1 < n0
    }

    /// A baseline (mm) within ``/SpatialMedia/SpatialUnits/plausibleBaselineMicrometres``.
    public static func isPlausible(baselineMM: Double) -> Bool {
        guard let um = try? SpatialUnits.micrometres(fromMillimetres: baselineMM) else { return false }
        return SpatialUnits.plausibleBaselineMicrometres.contains(um)
    }
    static var plausibleBaselineText: String {
        let r = SpatialUnits.plausibleBaselineMicrometres
        return "\(r.lowerBound / 1000)–\(r.upperBound / 1000) mm"
    }

    /// Reads two files as the left and right eyes (each JPEG, PNG or HEIC). `acceptDamage`: as in ``ImagePacking``.
    public static func load(
        left l: String, right r: String, limits: Limits = .default,
        acceptDamage: Bool = false
    ) throws(ParseError) -> StereoPair {
        let a = try ImageFiles.load(l, limits: limits, acceptDamage: acceptDamage)
        let b = try ImageFiles.load(r, limits: limits, acceptDamage: acceptDamage)
        guard a.image.width == b.image.width, a.image.height == b.image.height else {
            throw ParseError(
                .invalidValue, path: r,
                "the eyes differ in size: \(l) is \(a.image.width)×\(a.image.height), \(r) is \(b.image.width)×\(b.image.height)"
            )
        }
        var pair = StereoPair(
            left: a.image, right: b.image, exif: a.exif, exifInfo: a.exifInfo, sourceBaselineMM: nil,
            convergenceAngleDegrees: nil,
            sourceDescription: "left/right pair", notes: a.notes + b.notes)
        func primary(_ path: String) -> (ISOFile, UInt32)? {
            guard FileProbe.kind(of: path) == .heif, let f = try? ISOFile.open(path: path, limits: limits),
                let p = f.heif?.primaryItemID
            else { return nil }
            return (f, p)
        }
        try attachAuxiliary(&pair, left: primary(l), right: primary(r))
        readBack(&pair, left: l, right: r, limits: limits)
        // A JPEG eye's HDR gain map (Ultra HDR, Adobe / ISO 21496-1, Apple) goes with that eye; a stereo MPO given
        // as one eye has its second view left out, and the report says so.
        pair.leftGainMap = a.gainMap
        pair.rightGainMap = b.gainMap
        for (name, path, loaded) in [("left", l, a), ("right", r, b)] {
            if let second = loaded.mpoSecond {
                pair.auxiliaryNotCarried.append(
                    "\(name) eye: \(path)'s second stereo view (\(second.width)x\(second.height)) not used: "
                        + "one file gives one eye")
            }
        }
        return pair
    }

    /// The stereo values `split` wrote into the eyes' XMP (``EyeStereoXMP``) become the pair's source values: the left
    /// eye's, else the right's; two HEIC eyes give the camera properties they carry, read as `combine` reads them.
    /// A file that says it is the other eye, eyes that disagree, and values out of range or implausible (a baseline
    /// outside the plausible range) are told in the notes.
    public static func readBack(_ pair: inout StereoPair, left l: String, right r: String, limits: Limits = .default) {
        let a = EyeStereoXMP.read(path: l, limits: limits), b = EyeStereoXMP.read(path: r, limits: limits)
        for (v, path, eye) in [(a, l, "left"), (b, r, "right")] {
            guard let v else { continue }
            if let e = v.eye, e != eye {
                pair.notes.append("\(path) says it is the \(e) eye but is given as the \(eye) (swap the inputs)")
            }
            if !v.refused.isEmpty {
                pair.notes.append("\(path): stereo values out of range not used: \(v.refused.joined(separator: ", "))")
            }
        }
        var origin = "the eyes' XMP (written by split)"
        var read = (a ?? b)?.stereo
        if read?.isEmpty ?? true, FileProbe.kind(of: l) == .heif, FileProbe.kind(of: r) == .heif {
            // HEIC eyes (`split` to .heic) keep each eye's camera properties: read them as `combine` does.
            read = SpatialPhotoEditor.eyesStereo(left: l, right: r)
            origin = "the eyes' camera properties"
        }
        guard var s = read, !s.isEmpty else { return }
        if let a, let b, a.stereo != b.stereo {
            pair.notes.append(
                "the eyes' XMP values differ (left: \(EyeStereoXMP.summary(a.stereo)); "
                    + "right: \(EyeStereoXMP.summary(b.stereo))): the left eye's are used")
        }
        s.heroEye = nil; s.projectionKind = nil
        if let um = s.baselineMicrometres, !SpatialUnits.plausibleBaselineMicrometres.contains(um) {
            let mm = NumberText.fixed(Double(um) / 1000, places: 3)
            pair.notes.append(
                "the eyes' baseline \(mm) mm is not a plausible "
                    + "stereo camera baseline (\(plausibleBaselineText)), so it is not used")
            s.baselineMicrometres = nil
        }
        pair.sourceStereo = s
        pair.sourceStereoOrigin = origin
    }

    /// Takes each eye's auxiliary images and thumbnails (``/SpatialMedia/HEIFItemBundle``) from its HEIF source, naming
    /// in ``StereoPair/auxiliaryNotCarried`` what cannot go with it.
    static func attachAuxiliary(_ pair: inout StereoPair, left: (ISOFile, UInt32)?, right: (ISOFile, UInt32)?)
        throws(ParseError)
    {
        if let (file, item) = left {
            let a = try HEIFItemBundle.attached(to: item, file: file)
            pair.leftAuxiliary = a.bundles
            pair.auxiliaryNotCarried += a.notCarried.map { "left eye: \($0)" }
        }
        if let (file, item) = right {
            let a = try HEIFItemBundle.attached(to: item, file: file)
            pair.rightAuxiliary = a.bundles
            pair.auxiliaryNotCarried += a.notCarried.map { "right eye: \($0)" }
        }
    }

    /// Decodes both eyes of a stereo HEIC (the `ster` group; entity 0 = left). Both eyes are decoded
    /// concurrently through the grid decoder's tile parallelism.
    public static func decodeSpatialPhoto(_ path: String, limits: Limits = .default) throws(ParseError) -> (
        left: Image, right: Image, exif: [UInt8]?
    ) {
        let file = try ISOFile.open(path: path, limits: limits)
        do throws(ParseError) {
            return try decodeSpatialPhoto(file: file, limits: limits)
        } catch {
            var e = error; if e.path.isEmpty { e.path = path }; throw e
        }
    }

    /// Decodes both eyes of a parsed stereo HEIC; a truncated or damaged file is refused first
    /// (``/ISOBMFF/ISOFile/requireIntact(limits:operation:)``), naming the offset and box path.
    public static func decodeSpatialPhoto(file: ISOFile, limits: Limits = .default) throws(ParseError) -> (
        left: Image, right: Image, exif: [UInt8]?
    ) {
        guard let meta = file.heif else { throw ParseError(.notRecognised, "not a HEIF file") }
        try file.requireIntact()
        guard let g = meta.groups.first(where: { $0.type == "ster" }), g.entityIDs.count == 2 else {
            throw ParseError(.notRecognised, "no stereo pair: the file has no 'ster' entity group with two images")
        }
        // The eyes are decoded at the same time, each splitting its grid tiles over half the cores: one
        // eye's serial steps (canvas assembly, the last tiles) overlap the other eye's decoding.
        let ids = [g.entityIDs[0], g.entityIDs[1]]
        let perEye = max(1, ProcessorInfo.activeCount / 2)
        let slots = Slots<Result<Image, ParseError>>(count: 2)
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            do throws(ParseError) {
                slots.set(
                    i, .success(try HEIFImageDecoder.decode(file: file, item: ids[i], limits: limits, workers: perEye)))
            } catch {
                slots.set(i, .failure(error))
            }
        }
        func eye(_ i: Int) throws(ParseError) -> Image {
            switch slots.get(i) {
            case .success(let img)?: return img
            case .failure(let e)?: throw e
            case nil: throw ParseError(.invalidValue, "eye \(i) was not decoded")
            }
        }
        let l = try eye(0), r = try eye(1)
        return (l, r, ImageFiles.heifExif(file, item: g.entityIDs[0], limits: limits))
    }

}
