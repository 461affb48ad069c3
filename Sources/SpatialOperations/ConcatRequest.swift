import BinaryIO
import SpatialConvert
import SystemSupport

/// The segments of one conversion joined into one spatial video without re-encoding (`spatial-media concat`,
/// `sm_concat_video`, Python's `concat`).
public struct ConcatRequest: Sendable, Equatable, OptionTableRequest {
    public var segments: [String]
    public var output: String
    /// The converted input, whose audio is carried once, whole.
    public var audioFrom: String?
    public var noAudio = false

    public init(segments: [String], output: String) { self.segments = segments; self.output = output }

    /// The request from untyped values by the keys of ``table`` (unknown keys, a key given twice and wrong types
    /// refused; combinations are the run's).
    public init(segments: [String], output: String, values: [(String, RequestValue)]) throws(ParseError) {
        self.init(segments: segments, output: output)
        try RequestValues.fill(values, into: &self, options: Self.options, job: "concat")
    }

    /// The name table (key ↔ flag ↔ Python keyword, default), from its `options` rows.
    public static var table: [OptionSpec] { options.map(\.spec) }

    /// One row per option: its names, type and default, the property that holds it and how an untyped value is read
    /// into it.
    static var options: [RequestOption<ConcatRequest>] {
        [
            .value(OptionSpec("audio_from", flag: "--audio-from", .path, .video), \.audioFrom, RequestValues.path),
            .toggle(OptionSpec("no_audio", flag: "--no-audio", .bool, .video, default: "false"), \.noAudio),
        ]
    }
}

extension Operations {
    /// Plans and runs a join: segments given, one audio choice, the output named .mov/.mp4 and different from every
    /// input, the joined file written beside the output, read back, then kept.
    public static func concat(
        _ r: ConcatRequest, spelling: OptionSpelling, progress: ((Int, Int) -> Void)? = nil,
        cancellation: ConversionCancellation? = nil
    ) throws(ParseError) -> OperationReport {
        func name(_ k: String) -> String { ConcatRequest.table.first { $0.key == k }?.name(spelling) ?? k }
        func refuse(_ m: String) -> ParseError { ParseError(.invalidArgument, m) }
        func refuseOption(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        if r.segments.isEmpty { throw refuse("give the segment files") }
        if r.audioFrom == nil && !r.noAudio {
            throw refuseOption(
                "give \(name("audio_from")) INPUT (the converted input, whose audio is carried once) or \(name("no_audio"))"
            )
        }
        if r.audioFrom != nil && r.noAudio {
            throw refuseOption("give \(name("audio_from")) or \(name("no_audio")), not both")
        }
        if r.audioFrom?.isEmpty == true { throw refuseOption("\(name("audio_from")) is empty") }
        try OutputKind.check(r.output, .movieOrMP4)
        try OutputPaths.check(
            outputs: [(role: "output", path: r.output)],
            inputs: r.segments.map { (role: "segment", path: $0) }
                + (r.audioFrom.map { [(role: "audio-from input", path: $0)] } ?? []))
        var o = VideoJoinOptions()
        o.audioFrom = r.audioFrom
        o.noAudio = r.noAudio
        let scratch = try scratchPath(keepingExtensionOf: r.output)
        do throws(ParseError) {
            var x = try VideoSegmentJoiner.join(
                r.segments, to: scratch, options: o, cancellation: cancellation, progress: progress)
            x.output = r.output
            let notes = x.notes.map { $0.replacing(scratch, with: r.output) }
            var report = OperationReport(
                job: "concat", route: "video", outputs: [r.output],
                headline:
                    "wrote \(r.output): \(x.frames) frames from \(x.segments) segments, \(x.bytes) bytes, in \(NumberText.fixed(x.seconds, places: 2)) s",
                lines: ["audio: " + (x.audioTracks.isEmpty ? "none" : x.audioTracks.joined(separator: "; "))]
                    + notes.map { "note: \($0)" },
                fields: [
                    ("output", .string(r.output)), ("segments", .uint(UInt64(x.segments))),
                    ("frames", .uint(UInt64(x.frames))),
                    ("bytes", .uint(x.bytes)), ("bytes_written", .uint(x.bytes)),
                    ("audio", .array(x.audioTracks.map { .string($0) })),
                    ("seconds", .double(x.seconds)), ("notes", .array(notes.map { .string($0) })),
                ],
                warnings: [], check: OutputCheckResult(file: r.output))
            try finish(&report, scratch: scratch, output: r.output, inputs: r.segments, strict: false)
            return report
        } catch {
            discard(scratch)
            throw error
        }
    }
}
