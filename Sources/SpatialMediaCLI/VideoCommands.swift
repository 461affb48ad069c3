import ArgumentParser
import BinaryIO
import HEVC
import SpatialConvert
import SpatialMedia
import SpatialOperations
import SystemSupport

/// `spatial-media assemble`: two single-layer HEVC streams → one MV-HEVC spatial video.
struct Assemble: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Assemble a spatial video (MV-HEVC) from two single-layer HEVC streams, one per eye.",
        discussion: """
            Both inputs must be raw 8-bit 4:2:0 HEVC (Annex B) with the same size, frame count and GOP structure \
            (e.g. x265 --keyint N --min-keyint N --no-scenecut --no-open-gop and the same --bframes). Layer 1 is \
            written without inter-layer prediction, so each eye decodes exactly as its own stream. The output is \
            written atomically; on any error nothing is left at OUT. Without --baseline, --hfov or --disparity the \
            movie says \(PhotoDefaults.baselineMM) mm, \(PhotoDefaults.hfovDegrees)° and 0 %.
            """)
    @Argument(help: "Left-eye HEVC stream (.hevc/.265).") var left: String
    @Argument(help: "Right-eye HEVC stream.") var right: String
    @Option(name: .shortAndLong, help: "Output movie (.mov, or .mp4 with --mp4).") var output: String
    @OptionGroup var values: StereoValueOptions
    @Option(help: "Hero eye: left or right.") var hero: String = "left"
    @Option(help: "Frame rate (default: the base stream's VUI timing, else 30).") var fps: String?
    @Flag(help: "Write an MP4 (ftyp mp42) instead of QuickTime.") var mp4 = false
    @Flag(help: "Put moov before mdat.") var faststart = false
    @Flag(help: "Make the right eye the base layer (layer 0).") var rightBase = false
    @Option(help: "Layer-1 SPS form: full (lossless, default) or multilayer (Apple's form).") var spsForm: String =
        "full"
    @Flag(help: "Print the report as JSON.") var json = false

    /// The same job as `convert --left A.hevc --right B.hevc` (the operations layer's raw-stream route), with this
    /// command's spelling: the base layer is named by --right-base rather than following the hero eye.
    func run() throws {
        var r = ConvertRequest(left: left, right: right, output: output)
        r.values = values.inputs
        r.frameRate = fps
        r.container = mp4 ? .mp4 : nil
        r.faststart = faststart ? true : nil
        r.baseEye = rightBase ? .right : .left
        r.route = .hevcPair
        try runAndPrint("spatial-media assemble", file: left, outputs: [output], json: json) { () throws(ParseError) in
            r.heroEye = try ConvertRequest.choice("hero_eye", hero, .flag)
            r.layerSps = try ConvertRequest.choice("layer_sps", spsForm, .flag)
            return try Operations.convert(r, spelling: .flag)
        }
    }
}

/// `spatial-media split-video`: our own spatial videos back to one HEVC stream per eye — `split` with `.hevc` outputs
/// (a copy), kept for the scripts that call it; the same operation, checks and read-back.
struct SplitVideo: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split-video",
        abstract:
            "Split a spatial video made by `assemble` into one single-layer HEVC stream per eye (no re-encoding).",
        discussion: """
            The same as `spatial-media split VIDEO --left L.hevc --right R.hevc` (a copy of the coded layers). Works when         layer 1 does not use inter-layer prediction (what `assemble` and `convert --encode-path assembled` write).         Apple's and x265's MV-HEVC files predict the right eye from the left; `split` re-encodes their eyes to         .mp4/.mov/.mkv (FFmpeg 7.1 or newer decodes both views).
            """)
    @Argument(help: "Spatial video (.mov/.mp4) or raw two-layer MV-HEVC stream.") var video: String
    @Option(help: "Where to write the left eye (Annex B HEVC).") var left: String?
    @Option(help: "Where to write the right eye (Annex B HEVC).") var right: String?
    @Flag(help: "Print the report as JSON (as `split --json`).") var json = false

    func validate() throws {
        if left == nil && right == nil { throw ValidationError("give --left and/or --right") }
    }

    func run() throws {
        var r = SplitRequest(input: video)
        r.left = left; r.right = right; r.copy = true
        let outputs = [left, right]
        try runAndPrint("spatial-media split-video", file: video, outputs: outputs, json: json) {
            () throws(ParseError) in
            try Operations.split(r, spelling: .flag, cancellation: ConversionCancellation())
        }
    }
}
