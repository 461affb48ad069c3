import BinaryIO
import SpatialMedia
import SystemSupport

/// Options of `VideoSegmentJoiner.join(_:to:options:cancellation:progress:)`.
public struct VideoJoinOptions: Sendable {
    /// The converted input (or any movie) whose audio the joined video carries, once and whole, as a one-machine
    /// conversion of it would (`VideoAudio`: copied or transcoded, a silent track when it has none).
    public var audioFrom: String? = nil
    /// No audio track at all.
    public var noAudio = false
    /// Path or name of ffmpeg; nil = `SPATIAL_MEDIA_FFMPEG`, then `ffmpeg` on PATH.
    public var ffmpeg: String? = nil
    public var limits: Limits = .default
    public init() {}
}

/// What a join wrote.
public struct VideoJoinReport: Sendable {
    public var output: String
    public var segments: Int
    public var frames: Int
    public var bytes: UInt64
    public var audioTracks: [String]
    public var notes: [String]
    public var seconds: Double
}

/// `spatial-media concat`: joins conversion segments (``/SpatialMedia/SpatialVideoSegmentSet``) into one spatial video
/// without re-encoding, and adds the audio of the original input once.
public enum VideoSegmentJoiner {
    package static func join(
        _ segments: [String], to output: String, options o: VideoJoinOptions = VideoJoinOptions(),
        cancellation: ConversionCancellation? = nil, progress: ((Int, Int) -> Void)? = nil
    ) throws(ParseError) -> VideoJoinReport {
        Interruption.beginCooperative()
        defer { Interruption.endCooperative() }
        let t0 = monotonicSeconds()
        guard o.audioFrom != nil || o.noAudio else {
            throw ParseError(
                .invalidArgument,
                "segments carry no audio: name the converted input as the audio source (its audio is carried once, whole), or join without audio",
                remedy: .giveAudioSource)
        }
        guard !(o.audioFrom != nil && o.noAudio) else {
            throw ParseError(.invalidArgument, "an audio source and no audio were both asked for; choose one")
        }
        try OutputPaths.check(
            outputs: [("output", output)],
            inputs: segments.map { ("segment", $0) } + (o.audioFrom.map { [("audio source", $0)] } ?? []))
        try VideoConverter.checkOutputDirectory(output)
        let set = try SpatialVideoSegmentSet(paths: segments, limits: o.limits)
        var notes: [String] = []
        var audioPlan = VideoAudio.Plan.none
        if let src = o.audioFrom {
            var vo = VideoConversionOptions()
            vo.ffmpeg = o.ffmpeg; vo.limits = o.limits
            audioPlan = try VideoAudio.plan(for: .packed(src), options: vo, notes: &notes)
        }
        let audio = try VideoAudio.tracks(
            audioPlan, seconds: set.seconds, output: output, limits: o.limits, notes: &notes)
        let result = try set.write(
            to: output, audio: audio.tracks, progress: { progress?($0, set.frames) },
            isCancelled: { cancellation?.isCancelled == true || Interruption.isRequested })
        return VideoJoinReport(
            output: output, segments: set.segments.count, frames: set.frames, bytes: result.bytesWritten,
            audioTracks: audio.lines, notes: notes, seconds: monotonicSeconds() - t0)
    }
}
