import ArgumentParser
import BinaryIO
import ImageFormats
import MediaDecode
import SpatialConvert
import SpatialOperations
import SpatialValidation
import SystemSupport

/// `spatial-media validate`: will it be spatial, and why not; plus vertical disparity, rectification and
/// optical centring measured on the pixels.
struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Check spatial videos, spatial photos, SBS/TB images, MPO files and image pairs: metadata rules and stereo geometry measured on the pixels.",
        discussion: """
            Every finding names a rule (SV-VIDEO-…, SV-PHOTO-…, SV-PAIR-…, SV-GEOM-…) listed with its severity, \
            threshold and source in Specs/validation.md. Exit codes: 0 no errors or warnings (infos only); \
            1 warnings or errors found, or a directory holds no media; 2 an input could not be read; 64 usage error. \
            A directory argument validates every media file in it and in its subdirectories, in parallel; files that \
            are not media are skipped with a note; images named NAME_L.ext and NAME_R.ext are validated as one pair.
            """
    )
    @Argument(help: "Files or directories to validate.") var inputs: [String] = []
    @Flag(help: "Print JSON to standard output.") var json = false
    @Option(help: "Write a self-contained HTML report (thumbnails, anaglyph, matches, plots, rule table).") var report:
        String?
    @Flag(help: "Check metadata only; do not decode pixels.") var noPixels = false
    @Option(help: "The input image holds both eyes: sbs (side by side) or tb (top-bottom).") var layout: String?
    @Option(help: "Left-eye image (with --right).") var left: String?
    @Option(help: "Right-eye image (with --left).") var right: String?
    @Option(
        help: "Frames measured per video, spread over the duration (default \(ValidateRequest.defaultText("frames"))).")
    var frames: Int?
    @Option(
        help: ArgumentHelp(
            "Raw pairs (two images, SBS/TB image, MPO): judge at this horizontal field of view, "
                + "degrees (default \(ValidateRequest.defaultText("hfov_degrees")))."))
    var hfov: Double?
    @Option(
        help:
            "Raw pairs: judge the window at this disparity adjustment, % of the width (default \(ValidateRequest.defaultText("disparity_percent")))."
    )
    var disparity: Double?
    @Option(help: "Raw pairs: judge at this baseline, mm (default \(ValidateRequest.defaultText("baseline_mm"))).")
    var baseline: Double?

    func validate() throws {
        if (left == nil) != (right == nil) { throw ValidationError("give both --left and --right") }
        if left == nil && inputs.isEmpty {
            throw ValidationError("give one or more files or directories, or --left and --right")
        }
        // The layout's words and the frames' range are the request's rows (the same refusal as every shell's).
        do {
            let _: ValidateRequest.Layout? = try ValidateRequest.choiceValue("layout", layout, .flag)
            if let f = frames { try ValidateRequest.row("frames").checkRange(f, .flag) }
        } catch { throw ValidationError(error.message) }
    }

    func run() throws {
        try Exit.checkOutputs(
            "spatial-media validate", outputs: [("--report output", report)],
            inputs: inputs.map { ("input", $0) } + [("--left input", left), ("--right input", right)])
        var request = ValidateRequest(inputs: inputs, left: left, right: right)
        request.pixels = !noPixels
        request.layout = try ValidateRequest.choiceValue("layout", layout, .flag)
        request.frames = frames
        request.values = StereoValueInputs(
            baselineMillimetres: baseline, hfovDegrees: hfov,
            disparityPercent: disparity)
        request.keepPreview = report != nil
        let run: ValidationRun
        do { run = try Operations.validate(request, spelling: .flag) } catch { throw ValidationError(error.message) }
        for d in run.directoriesWithoutMedia {
            printErr("spatial-media validate: no media files in \(d) (searched recursively)")
        }
        if !run.skipped.isEmpty {
            let n = run.skipped.count
            let shown = run.skipped.prefix(5).joined(separator: ", ") + (n > 5 ? ", …" : "")
            printErr("note: skipped \(n) file\(n == 1 ? "" : "s") that are not media: \(shown)")
        }
        let reports = run.reports
        if json {
            print(run.json.serialized(pretty: true))
        } else {
            for r in reports { for l in r.lines { print(l) } }
        }
        if let path = report {
            do throws(ParseError) {
                try AtomicFile.write(path: path, bytes: Array(HTMLReport.page(reports).utf8))
                printErr("wrote \(path)")
            } catch {
                printErr("spatial-media: cannot write \(path): \(error.message)")
                throw ExitCode(Exit.code(for: error))
            }
        }
        let code = run.exitCode
        if code != 0 { throw ExitCode(code) }
    }
}
