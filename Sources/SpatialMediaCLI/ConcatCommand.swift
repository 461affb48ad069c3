import ArgumentParser
import BinaryIO
import SpatialConvert
import SpatialOperations
import SystemSupport

/// `spatial-media concat`: conversion segments → one spatial video, without re-encoding.
struct Concat: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Join the segments of a conversion (`convert --segment K/N`) into one spatial video, without re-encoding.",
        discussion: """
            Give every segment of one conversion, in any order (they are joined by the segment number each one records). \
            They must come from the same input and settings: identical parameter sets (hvcC/lhvC) and spatial metadata, \
            the same timescale, frame ranges that tile the whole clip; anything else is refused. The spatial metadata is \
            written once, and the audio of --audio-from INPUT (the converted input) is carried once, whole, as a \
            one-machine conversion of INPUT would carry it (copied, transcoded to AAC, or a silent track when it has none); \
            segments carry no audio. The output is written atomically and may not be one of the inputs.
            """)
    @Argument(help: "Segment files (.mov/.mp4) made by `convert --segment K/N`.") var segments: [String]
    @Option(name: .shortAndLong, help: "Output movie.") var output: String
    @Option(help: "The converted input: its audio tracks are carried into the output.") var audioFrom: String?
    @Flag(help: "No audio track at all.") var noAudio = false
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        var r = ConcatRequest(segments: segments, output: output)
        r.audioFrom = audioFrom
        r.noAudio = noAudio
        let line = ProgressLine("joining")
        try runAndPrint("spatial-media concat", file: segments.first ?? "", outputs: [output], json: json) {
            () throws(ParseError) in
            defer { line.end() }
            return try Operations.concat(
                r, spelling: .flag, progress: { done, total in line.update(UInt64(done), UInt64(total)) },
                cancellation: ConversionCancellation())
        }
    }
}
