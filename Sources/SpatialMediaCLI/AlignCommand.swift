import ArgumentParser
import BinaryIO
import SystemSupport
import Codecs
import ISOBMFF
import SpatialConvert
import MediaDecode
import ImageFormats
import SpatialMedia
import SpatialValidation
import StereoVision

/// `spatial-media align PHOTO -o OUT`: rectifies an existing spatial photo.
struct Align: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Rectify an existing spatial photo: warp the right eye onto the left (vertical offset, roll, focal scale, keystone), crop both eyes to the common area around the centre, and write a new spatial photo.",
        discussion: """
        The baseline and disparity adjustment of PHOTO are kept (or the disparity adjustment is measured with \
        --auto-disparity); the field of view is updated for the crop. Before/after figures are printed. A pair \
        that cannot be measured reliably, or that would not improve, is written unchanged in geometry.
        """
    )
    @Argument(help: "A spatial photo (stereo HEIC).") var photo: String
    @Option(name: .shortAndLong, help: "Output .heic file.") var output: String
    @Flag(help: "Also set the disparity adjustment from the measured disparity.") var autoDisparity = false
    @Option(help: "HEVC quality 0…100 (default 80).") var quality: Int = PhotoEncoding.defaultQuality

    func validate() throws {
        if !(0...100).contains(quality) { throw ValidationError("--quality must be between 0 and 100") }
        if photo == output { throw ValidationError("the output must not be the input") }
    }

    func run() throws {
        do throws(ParseError) {
            let file = try ISOFile.open(path: photo)
            var problems: [SpatialDiagnostic] = []
            guard let sp = SpatialPhotoReader.read(file, problems: &problems) else {
                throw ParseError(.unsupported, offset: 0, "not a spatial photo (no 'ster' group with two eyes)")
            }
            let eyes = try StereoImages.decodeSpatialPhoto(file: file)
            let hfov = sp.horizontalFOVDegrees ?? PhotoDefaults.hfovDegrees
            let p = try PairAligner.prepare(left: eyes.left, right: eyes.right, hfovDegrees: hfov, align: true, autoDisparity: autoDisparity)
            var o = PhotoConversionOptions()
            o.stereo.baselineMicrometres = sp.stereo.baselineMicrometres ?? StereoParameters.defaults.baselineMicrometres
            o.baselineSource = sp.baselineMicrometres == nil ? "default; not in the input" : "the input"
            try o.stereo.setHorizontalFieldOfView(degrees: p.report.hfovDegrees ?? hfov)
            o.hfovSource = p.report.hfovDegrees == nil ? "the input" : "the input, cropped by align"
            if let d = p.report.disparityPercent { try o.stereo.setDisparity(percent: d) } else { o.stereo.disparityAdjustment = sp.disparityAdjustment ?? 0 }
            o.disparitySource = p.report.disparityPercent == nil ? "the input" : "--auto-disparity (measured)"
            o.quality = quality
            let exifInfo = eyes.exif.map { ExifInfo(tiff: $0) } ?? ExifInfo()
            let pair = StereoPair(left: p.left, right: p.right, exif: eyes.exif, exifInfo: exifInfo, sourceBaselineMM: nil, convergenceAngleDegrees: nil,
                                  sourceDescription: photo, notes: [])
            let report = try PhotoConverter.convert(pair, options: o, to: output)
            print("\(output): aligned spatial photo from \(photo), \(report.bytes) bytes")
            for l in p.report.lines + report.lines { print("  \(l)") }
        } catch {
            printErr(errorLine("spatial-media align", file: photo, error))
            throw ExitCode(error.code == .io ? Exit.unreadable : Exit.problems)
        }
    }
}
