import ArgumentParser
import BinaryIO
import SpatialConvert
import SystemSupport

/// `spatial-media concat`: conversion segments → one spatial video, without re-encoding.
struct Concat: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join the segments of a conversion (`convert --segment K/N`) into one spatial video, without re-encoding.",
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

    func validate() throws {
        if segments.isEmpty { throw ValidationError("give the segment files") }
        if audioFrom == nil && !noAudio { throw ValidationError("give --audio-from INPUT (the converted input, whose audio is carried once) or --no-audio") }
        if audioFrom != nil && noAudio { throw ValidationError("give --audio-from or --no-audio, not both") }
    }

    func run() throws {
        try Exit.checkOutputs("spatial-media concat", outputs: [("output", output)],
                              inputs: segments.map { ("segment", $0) } + [("--audio-from input", audioFrom)])
        var o = VideoJoinOptions()
        o.audioFrom = audioFrom
        o.noAudio = noAudio
        let line = ProgressLine("joining")
        let result: Result<VideoJoinReport, ParseError>
        do throws(ParseError) {
            result = .success(try VideoSegmentJoiner.join(segments, to: output, options: o) { done, total in
                line.update(UInt64(done), UInt64(total))
            })
        } catch { result = .failure(error) }
        line.end()
        switch result {
        case .success(let r):
            if json {
                print(JSON.object([("output", .string(r.output)), ("segments", .uint(UInt64(r.segments))), ("frames", .uint(UInt64(r.frames))),
                                   ("bytes", .uint(r.bytes)), ("audio", .array(r.audioTracks.map { .string($0) })),
                                   ("seconds", .double(r.seconds)), ("notes", .array(r.notes.map { .string($0) }))]).serialized(pretty: true))
            } else {
                print("wrote \(r.output): \(r.frames) frames from \(r.segments) segments, \(r.bytes) bytes, in \(NumberText.fixed(r.seconds, places: 2)) s")
                print("  audio: " + (r.audioTracks.isEmpty ? "none" : r.audioTracks.joined(separator: "; ")))
                for n in r.notes { print("  note: \(n)") }
            }
        case .failure(let e):
            throw failure("spatial-media concat", file: e.path.isEmpty ? (segments.first ?? "") : e.path, e, outputs: [output])
        }
    }
}
