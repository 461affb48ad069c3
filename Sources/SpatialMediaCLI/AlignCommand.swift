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

/// Conversion-time geometry: warn before writing a bad file, and carry out `--align` / `--auto-disparity`.
enum GeometryCheck {
    /// The faults of one pair worth a warning before a spatial file is written (``GeometryDiagnosis/conversionFaults``).
    static func warnings(left: GrayImage, right: GrayImage, stereo: StereoParameters, align: Bool, autoDisparity: Bool) -> [VideoGeometryWarning] {
        GeometryDiagnosis.conversionFaults(left: left, right: right, stereo: stereo, align: align, autoDisparity: autoDisparity).map {
            VideoGeometryWarning(ruleID: $0.ruleID, severity: $0.severity == .error ? "ERROR" : "warning", message: $0.message, fixes: $0.fixes)
        }
    }

    static func line(_ w: VideoGeometryWarning) -> String { "\(w.severity) \(w.ruleID): \(w.message)" }

    /// The check run on sampled frames of a video converted without `--align` / `--auto-disparity`: each fault is
    /// printed on standard error the first time a frame shows it, while the file is still being encoded.
    static func video(_ o: VideoConversionOptions) -> VideoGeometryCheck {
        // What the written file will say (the given values, else the defaults); no disparity adjustment when none was given.
        var known = o.stereo.filled()
        known.disparityAdjustment = o.stereo.disparityAdjustment
        return VideoGeometryCheck(inspect: { [known] _, l, r in
            guard let a = PairAligner.luma(l, maxSide: 1024), let b = PairAligner.luma(r, maxSide: 1024) else { return [] }
            return warnings(left: a.gray, right: b.gray, stereo: known, align: false, autoDisparity: false)
        }, onFirstWarning: { frame, w in
            printErr("spatial-media convert: frame \(frame): \(line(w))")
        })
    }

    /// Measures the pair, applies the requested fixes to `pair` and `options`, and prints on standard error the faults
    /// of what will be written (measured as `validate` measures, naming the option that fixes them) and the input's
    /// faults the fixes removed ("fixed by --align").
    static func prepare(_ pair: inout StereoPair, options o: inout PhotoConversionOptions, align: Bool, autoDisparity: Bool, json: Bool) throws(ParseError) {
        let hfov = PhotoConverter.fieldOfView(pair, options: o)
        // What the written file will say: the given values, else the source's, else the defaults; no disparity
        // adjustment when neither gives one (so `--auto-disparity` is offered).
        var known = try PhotoConverter.chosenStereo(pair, options: o)
        if o.stereo.disparityAdjustment == nil && pair.sourceStereo.disparityAdjustment == nil { known.disparityAdjustment = nil }
        let before = GeometryDiagnosis.conversionFaults(left: pair.left, right: pair.right, stereo: known, align: align, autoDisparity: autoDisparity)
        var found = before
        var fixed: [(fault: ConversionFault, by: String)] = []
        if align || autoDisparity {
            let p = try PairAligner.prepare(left: pair.left, right: pair.right, hfovDegrees: hfov.degrees, align: align, autoDisparity: autoDisparity)
            pair.left = p.left; pair.right = p.right
            if let h = p.report.hfovDegrees { try o.stereo.setHorizontalFieldOfView(degrees: h); o.hfovSource = "\(hfov.source), cropped by --align"; try known.setHorizontalFieldOfView(degrees: h) }
            if let d = p.report.disparityPercent { try o.stereo.setDisparity(percent: d); o.disparitySource = "--auto-disparity (measured)"; try known.setDisparity(percent: d) }
            pair.notes += p.report.lines
            if !json { for l in p.report.lines { printErr(l) } }
            if p.report.aligned || p.report.disparityPercent != nil {
                let after = GeometryDiagnosis.conversionFaults(left: pair.left, right: pair.right, stereo: known, align: align, autoDisparity: autoDisparity)
                (found, fixed) = GeometryDiagnosis.faultsAfterFixes(before: before, after: after)
            }
        }
        for w in found { printErr(w.line) }
        for f in fixed {
            printErr("fixed by \(f.by): \(f.fault.line)")
            pair.notes.append("fixed by \(f.by): \(f.fault.ruleID)")
        }
        let hints = ["--align", "--auto-disparity"].filter(Set(found.flatMap(\.fixes)).contains)
        if !hints.isEmpty { printErr("spatial-media convert: the pair has fixable faults; add \(hints.joined(separator: " ")) to fix them while converting") }
    }
}

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
    }

    func run() throws {
        // The one check every writing command makes (``OutputPaths``: symbolic and hard links followed), exit 64.
        try Exit.checkOutputs("spatial-media align", outputs: [("output", output)], inputs: [("input", photo)])
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
