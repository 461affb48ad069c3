import ArgumentParser
import BinaryIO
import ISOBMFF
import SpatialMedia
import SpatialOperations
import SystemSupport

/// The one table of defaults (``StereoParameters/defaults``) in the units the command line speaks. Printed whenever
/// used.
enum PhotoDefaults {
    static let baselineMM = StereoParameters.defaults.baselineMillimetres ?? 0
    static let hfovDegrees = StereoParameters.defaults.horizontalFieldOfViewDegrees ?? 0
}

/// `--baseline` (mm), `--hfov` (°) and `--disparity` (%): the stereo values of every command that writes them
/// (`convert`, `assemble`, `combine`, `edit`), declared once. Where a value is not given, each command says what
/// it writes (a default of ``PhotoDefaults``, the input's value, or nothing changed).
struct StereoValueOptions: ParsableArguments {
    @Option(parsing: .unconditional, help: "Camera baseline in millimetres (e.g. 64).") var baseline: Double?
    @Option(parsing: .unconditional, help: "Horizontal field of view in degrees (e.g. 63.4).") var hfov: Double?
    @Option(
        parsing: .unconditional, help: "Horizontal disparity adjustment in percent of the image width (e.g. 2 or -1.5)."
    ) var disparity: Double?

    /// The three values as a request takes them (the library converts and checks them).
    var inputs: StereoValueInputs {
        StereoValueInputs(baselineMillimetres: baseline, hfovDegrees: hfov, disparityPercent: disparity)
    }

    /// At least one of the three is given.
    var isGiven: Bool { baseline != nil || hfov != nil || disparity != nil }

    /// The values and the hero eye converted at once to the one stereo type; a value that does not fit its stored
    /// field is a usage error (exit 64), named on standard error.
    func parameters(_ command: String, hero: HeroEye? = nil) throws -> StereoParameters {
        do {
            return try StereoParameters(
                baselineMillimetres: baseline, horizontalFieldOfViewDegrees: hfov, disparityPercent: disparity,
                heroEye: hero)
        } catch {
            printErr("spatial-media \(command): \(error.message)")
            throw ExitCode(Exit.usage)
        }
    }
}

struct Combine: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Make a spatial photo from a HEIF with two images, or from two single-image HEIFs, without re-encoding.",
        discussion: """
            With one input, its two displayable images become the eyes (first = left unless --swap-eyes or \
            --left-item/--right-item). With two inputs, the first file's primary image is the left eye. Image bytes \
            are copied unchanged. Baseline and field of view default to \(PhotoDefaults.baselineMM) mm and \
            \(PhotoDefaults.hfovDegrees)° when not given; the defaults are printed, since they are not measurements.
            """)
    @Argument(help: "A HEIF with two images, or the left-eye HEIF.") var left: String
    @Argument(help: "The right-eye HEIF (optional).") var right: String?
    @Option(name: .shortAndLong, help: "Output spatial photo (.heic), written atomically.") var output: String
    @OptionGroup var values: StereoValueOptions
    @Option(
        help:
            "Camera property form: apple (uuid boxes), standard (cmin/cmex) or both (default \(CombineRequest.defaultText("form")))."
    ) var cameraForm: String?
    @Option(help: "Item id of the left eye (single input).") var leftItem: UInt32?
    @Option(help: "Item id of the right eye (single input).") var rightItem: UInt32?
    @Flag(help: "Swap the eyes.") var swapEyes = false
    @Flag(help: "Print JSON to standard output.") var json = false

    func run() throws {
        try runAndPrint("spatial-media combine", file: left, outputs: [output], json: json) { () throws(ParseError) in
            var r = CombineRequest(left: left, right: right, output: output)
            r.leftItem = leftItem; r.rightItem = rightItem; r.swapEyes = swapEyes
            r.values = values.inputs
            r.form = try CombineRequest.choiceValue("form", cameraForm, .flag)
            return try Operations.combine(r, spelling: .flag)
        }
    }
}
