import BinaryIO
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialConvert
import SpatialMedia
import StereoVision
import SystemSupport

/// Rectification of an existing spatial photo (`spatial-media align`): the right eye warped onto the left, both
/// cropped to the common area, written as a new spatial photo with the field of view updated for the crop.
public struct AlignRequest: Sendable, Equatable, OptionTableRequest {
    public var photo: String
    public var output: String
    public var autoDisparity = false
    public var quality: Int?

    public init(photo: String, output: String) { self.photo = photo; self.output = output }

    /// The request from untyped values by the keys of ``table`` (unknown keys, a key given twice and wrong types
    /// refused; the range is the run's).
    public init(photo: String, output: String, values: [(String, RequestValue)]) throws(ParseError) {
        self.init(photo: photo, output: output)
        try RequestValues.fill(values, into: &self, options: Self.options, job: "align")
    }

    /// The name table (key ↔ flag ↔ Python keyword, default, range), from its `options` rows.
    public static var table: [OptionSpec] { options.map(\.spec) }

    /// One row per option: its names, type, default and range, the property that holds it and how an untyped value
    /// is read into it.
    static var options: [RequestOption<AlignRequest>] {
        [
            .toggle(
                OptionSpec("auto_disparity", flag: "--auto-disparity", .bool, .photo, default: "false"), \.autoDisparity
            ),
            .value(
                OptionSpec(
                    "quality", flag: "--quality", .integer, .photo, default: "\(PhotoEncoding.defaultQuality)",
                    range: 0...100), \.quality, RequestValues.integer),
        ]
    }
}

extension Operations {
    /// Plans and runs an alignment: the output different from the input (links included) and named .heic, the
    /// quality in range; a damaged or truncated input refused as such, then the input must be a spatial photo (else
    /// `unsupported`, exit 2); written to scratch, read back, then kept.
    public static func align(_ r: AlignRequest, spelling: OptionSpelling) throws(ParseError) -> OperationReport {
        var o = PhotoConversionOptions()
        if let q = r.quality { o.quality = try AlignRequest.row("quality").checkRange(q, spelling) }
        try OutputKind.check(r.output, .heic)
        try OutputPaths.check(outputs: [(role: "output", path: r.output)], inputs: [(role: "input", path: r.photo)])
        // A damaged input is refused as damaged (offset and box path), before asking whether it is a spatial photo.
        let file = try SpatialPhotoEditor.openIntact(r.photo, operation: "align")
        var problems: [SpatialDiagnostic] = []
        guard let sp = SpatialPhotoReader.read(file, problems: &problems) else {
            throw ParseError(.unsupported, path: r.photo, "not a spatial photo (no 'ster' group with two eyes)")
        }
        let eyes = try StereoImages.decodeSpatialPhoto(file: file)
        let hfov = sp.horizontalFOVDegrees ?? StereoParameters.defaults.horizontalFieldOfViewDegrees ?? 0
        let p = try PairAligner.prepare(
            left: eyes.left, right: eyes.right, hfovDegrees: hfov, align: true, autoDisparity: r.autoDisparity)
        o.stereo.baselineMicrometres = sp.stereo.baselineMicrometres ?? StereoParameters.defaults.baselineMicrometres
        o.baselineSource = sp.baselineMicrometres == nil ? "default; not in the input" : "the input"
        try o.stereo.setHorizontalFieldOfView(degrees: p.report.hfovDegrees ?? hfov)
        o.hfovSource = p.report.hfovDegrees == nil ? "the input" : "the input, cropped by align"
        if let d = p.report.disparityPercent {
            try o.stereo.setDisparity(percent: d)
        } else {
            o.stereo.disparityAdjustment = sp.disparityAdjustment ?? 0
        }
        o.disparitySource = p.report.disparityPercent == nil ? "the input" : "--auto-disparity (measured)"
        let exifInfo = eyes.exif.map { ExifInfo(tiff: $0) } ?? ExifInfo()
        var pair = StereoPair(
            left: p.left, right: p.right, exif: eyes.exif, exifInfo: exifInfo, sourceBaselineMM: nil,
            convergenceAngleDegrees: nil,
            sourceDescription: r.photo, notes: [])
        // Each eye's gain map, depth, alpha and thumbnails follow it: warped like it when it was warped.
        let attachedLeft = try HEIFItemBundle.attached(to: sp.left.itemID, file: file),
            attachedRight = try HEIFItemBundle.attached(to: sp.right.itemID, file: file)
        pair.leftAuxiliary = attachedLeft.bundles
        pair.rightAuxiliary = attachedRight.bundles
        pair.auxiliaryNotCarried =
            attachedLeft.notCarried.map { "left eye: \($0)" } + attachedRight.notCarried.map { "right eye: \($0)" }
        pair.eyeWarp = p.report.warp
        let (x, check) = try checkedWrite(to: r.output, inputs: [r.photo]) { (scratch: String) throws(ParseError) in
            try PhotoConverter.convert(pair, options: o, to: scratch)
        }
        return OperationReport(
            job: "align", route: "photo", outputs: [r.output],
            headline: "\(r.output): aligned spatial photo from \(r.photo), \(x.bytes) bytes",
            lines: p.report.lines + x.lines,
            fields: [
                ("output", .string(r.output)), ("source", .string(r.photo)), ("width", .uint(UInt64(x.width))),
                ("height", .uint(UInt64(x.height))),
                ("baseline_mm", .double(x.baselineMM)), ("hfov_degrees", .double(x.hfovDegrees)),
                ("hfov_source", .string(x.hfovSource)),
                ("disparity_percent", .double(x.disparityPercent)), ("disparity_source", .string(x.disparitySource)),
                ("quality", .uint(UInt64(x.quality))), ("bytes", .uint(UInt64(x.bytes))),
                ("alignment", .array(p.report.lines.map { .string($0) })),
            ],
            warnings: [], check: check)
    }
}
