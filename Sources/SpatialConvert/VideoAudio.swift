import BinaryIO
import ISOBMFF
import MediaDecode
import SpatialMedia
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The audio of a spatial video: every audio track of the input (with its language), copied when Apple's players
/// play it as it is and otherwise transcoded to AAC by FFmpeg; a silent AAC track when the input has none
/// (visionOS Safari does not enter spatial playback for a video without audio). One path for every container:
/// tracks of an MP4/MOV whose formats are all playable are copied straight from it; otherwise FFmpeg writes the
/// audio (copied or transcoded, cut to the video's duration) into a scratch QuickTime file next to the output,
/// and ``TrackCopier`` copies its tracks from there.
enum VideoAudio {
    /// Sample entries copied unchanged: AAC (`mp4a`), Apple Lossless, AC-3, E-AC-3 and linear PCM, which QuickTime
    /// on Apple devices plays.
    static let playableEntries: Set<String> = [
        "mp4a", "alac", "ac-3", "ec-3", "lpcm", "sowt", "twos", "in24", "in32", "fl32", "fl64",
    ]

    /// The same formats by FFmpeg's codec names.
    static func playable(codec: String) -> Bool {
        let copied: Set<String> = ["aac", "alac", "ac3", "eac3"]
        if copied.contains(codec) { return true }
        let pcm: [String] = ["pcm_s16", "pcm_s24", "pcm_s32", "pcm_f32", "pcm_f64"]
        return pcm.contains { (p: String) -> Bool in codec.hasPrefix(p) }
    }

    /// Decided before encoding (so a bad audio track fails before minutes of work), carried out after it (when
    /// the video's duration is known).
    enum Plan {
        /// `--no-audio` / `--audio none`.
        case none
        /// Tracks read from an MP4/MOV, copied as they are.
        case copy([CopiedTrack])
        /// FFmpeg copies or transcodes these streams of `path`.
        case ffmpeg(path: String, tool: FFmpegTool, streams: [MediaProbe.Stream])
        /// No audio in the input: a silent AAC track (nil tool: FFmpeg missing, no track, said in a note).
        case silent(FFmpegTool?)
    }

    /// Where the audio comes from: `--audio-from`, else the input (the left one of a pair). Notes say what is left
    /// out (subtitles, chapters, attachments, other tracks).
    static func plan(for input: VideoInput, options o: VideoConversionOptions, notes: inout [String]) throws(ParseError)
        -> Plan
    {
        guard o.audio == .copy else { return .none }
        guard let src = source(for: input, options: o), !VideoConverter.isY4M(src) else {
            return .silent(FFmpeg.locate(.any, override: o.ffmpeg))
        }
        if VideoConverter.isISOBMFF(src) {
            let file = try ISOFile.open(path: src, limits: o.limits)
            let other = file.tracks.compactMap(\.handler).filter { !["vide", "soun"].contains($0) }
            if !other.isEmpty {
                notes.append(
                    "\(src): \(other.count) other track(s) not carried over (\(other.map(\.description).joined(separator: ", ")): subtitles, timecode or metadata)"
                )
            }
            let (tracks, n) = try TrackCopier.extract(from: file, path: src, limits: o.limits)
            notes += n
            if tracks.isEmpty && n.isEmpty { return .silent(FFmpeg.locate(.any, override: o.ffmpeg)) }
            if tracks.allSatisfy({ playableEntries.contains($0.format) }), n.isEmpty { return .copy(tracks) }
        }
        let tool: FFmpegTool
        do throws(ParseError) {
            tool = try FFmpeg.require(.audio, for: "carrying the audio of \(src)", override: o.ffmpeg)
        } catch {
            throw ParseError(error.code, path: src, error.message + "; or convert without audio", remedy: .dropAudio)
        }
        let probe = try MediaProbe.run(src, tool: tool)
        let audio = probe.audio
        if audio.isEmpty { return .silent(tool) }
        for (i, s) in audio.enumerated() where s.codec == "none" || s.codec.isEmpty {
            throw ParseError(
                .unsupported, path: src,
                "audio track \(i + 1) (stream \(s.index)) can be neither copied (Apple players do not play it) nor transcoded (FFmpeg has no decoder for it); convert without audio",
                remedy: .dropAudio)
        }
        var dropped: [String] = []
        for (kind, name) in [
            (MediaProbe.Stream.Kind.subtitle, "subtitle"), (.attachment, "attachment"), (.data, "data"),
        ] {
            let n = probe.streams.filter { $0.kind == kind }.count
            if n > 0 { dropped.append("\(n) \(name) stream\(n == 1 ? "" : "s")") }
        }
        if probe.chapters > 0 { dropped.append("\(probe.chapters) chapter mark\(probe.chapters == 1 ? "" : "s")") }
        if !dropped.isEmpty { notes.append("\(src): not carried over: \(dropped.joined(separator: ", "))") }
        return .ffmpeg(path: src, tool: tool, streams: audio)
    }

    /// The file the audio comes from: `--audio-from`, else the input (the left one of a pair); nil for standard input.
    static func source(for input: VideoInput, options o: VideoConversionOptions) -> String? {
        if let a = o.audioFrom { return a }
        switch input {
        case .packed(let p): return p == "-" ? nil : p
        case .pair(let l, _): return l
        }
    }

    /// Google's spatial audio (an `SA3D` box in the audio sample entry: ambisonics, what VR180/360 uploads carry):
    /// whether the source's survived into `written`, as a note for the report; nil when the source has none.
    static func spatialAudioNote(source: String?, written: [CopiedTrack], limits: Limits) -> String? {
        guard let source, VideoConverter.isISOBMFF(source), let file = try? ISOFile.open(path: source, limits: limits)
        else { return nil }
        let had = file.tracks.filter { $0.handler == "soun" && $0.sampleEntries.contains { $0.child("SA3D") != nil } }
            .count
        guard had > 0 else { return nil }
        let kept = written.filter { t in
            t.trak.find("mdia", "minf", "stbl", "stsd")?.children?.contains { $0.child("SA3D") != nil } == true
        }.count
        if kept >= had {
            return
                "spatial audio kept: \(had) ambisonic track\(had == 1 ? "" : "s") (Google SA3D) copied as \(had == 1 ? "it is" : "they are"); Apple's players play the channels as ordinary audio"
        }
        return
            "spatial audio dropped: \(had - kept) ambisonic track\(had - kept == 1 ? "" : "s") (Google SA3D) went through FFmpeg, which writes no SA3D into the movie — the channels play as ordinary audio (--no-audio leaves them out)"
    }

    /// Carries out `plan` for a video of `seconds`: the tracks to add and one line per track for the report.
    static func tracks(_ plan: Plan, seconds: Double, output: String, limits: Limits, notes: inout [String])
        throws(ParseError) -> (tracks: [CopiedTrack], lines: [String])
    {
        func describe(_ t: CopiedTrack, _ how: String) -> String {
            let lang =
                t.trak.find("mdia", "mdhd")?.payload(MediaHeaderBox.self).map { languageCode($0.language) } ?? "und"
            return "\(t.format), \(t.sampleCount) samples, \(t.totalBytes) bytes, language \(lang), \(how)"
        }
        let duration = NumberText.fixed(seconds, places: 6)
        switch plan {
        case .none:
            return ([], [])
        case .copy(let tracks):
            return (tracks, tracks.map { describe($0, "copied") })
        case .silent(nil):
            notes.append(
                "the input has no audio and FFmpeg was not found: no silent track added (visionOS Safari may not enter spatial playback without audio); run `bash scripts/setup.sh`"
            )
            return ([], [])
        case .silent(let tool?):
            let t = try runFFmpeg(
                tool,
                ["-f", "lavfi", "-i", "anullsrc=r=48000:cl=stereo", "-t", duration, "-c:a", "aac", "-b:a", "64k"],
                source: "a silent track", output: output, limits: limits)
            return (t, t.map { describe($0, "silent (the input has no audio)") })
        case .ffmpeg(let path, let tool, let streams):
            var args = ["-i", path, "-t", duration]
            var how: [String] = []
            for (i, s) in streams.enumerated() {
                args += ["-map", "0:\(s.index)"]
                if playable(codec: s.codec) {
                    args += ["-c:a:\(i)", "copy"]
                    how.append("copied (\(s.codec))")
                } else {
                    let kbps = min(512, max(96, 64 * (s.channels ?? 2)))
                    args += ["-c:a:\(i)", "aac", "-b:a:\(i)", "\(kbps)k"]
                    how.append(
                        "transcoded from \(s.codec) to AAC at \(kbps) kbit/s (Apple players do not play \(s.codec))")
                }
            }
            let t = try runFFmpeg(tool, args, source: path, output: output, limits: limits)
            guard t.count == streams.count else {
                throw ParseError(.unsupported, path: path, "FFmpeg wrote \(t.count) of \(streams.count) audio tracks")
            }
            return (t, zip(t, how).map { describe($0, $1) })
        }
    }

    /// Macintosh language codes 0…23 (QuickTime files, FFmpeg's `mov` muxer) as ISO 639-2/T.
    static let macLanguages = [
        "eng", "fra", "deu", "ita", "nld", "swe", "spa", "dan", "por", "nor", "heb", "jpn",
        "ara", "fin", "ell", "isl", "mlt", "tur", "hrv", "zho", "urd", "hin", "tha", "kor",
    ]

    /// ISO 639-2/T code from `mdhd`'s language: three packed 5-bit letters (+ 0x60), or a Macintosh language code
    /// below 0x400 (0x7FFF = unspecified).
    static func languageCode(_ packed: UInt16) -> String {
        if packed < 0x400 { return Int(packed) < macLanguages.count ? macLanguages[Int(packed)] : "mac:\(packed)" }
        let letters = [(packed >> 10) & 0x1F, (packed >> 5) & 0x1F, packed & 0x1F]
        guard letters.allSatisfy({ $0 > 0 && $0 <= 26 }) else { return "und" }
        return String(decoding: letters.map { UInt8($0) + 0x60 }, as: UTF8.self)
    }

    /// FFmpeg writes the audio into a scratch QuickTime file beside `output`; its tracks are read back and the
    /// file removed.
    static func runFFmpeg(_ tool: FFmpegTool, _ args: [String], source: String, output: String, limits: Limits)
        throws(ParseError) -> [CopiedTrack]
    {
        // Beside the output, registered for removal on interruption from the moment it exists.
        let scratch = try AtomicFile.scratchPath(near: output)
        defer { unlink(scratch); Interruption.unregister(temporaryFile: scratch) }
        let child = try ChildProcess(
            executable: tool.path,
            arguments: ["-nostdin", "-hide_banner", "-v", "error", "-y"] + args
                + ["-vn", "-sn", "-dn", "-map_chapters", "-1", "-f", "mov", scratch])
        _ = child.readToEnd(limit: 1 << 16)
        let status = child.wait()
        guard status == 0 else {
            throw ParseError(
                .unsupported, path: source,
                "FFmpeg could not copy or transcode the audio (exit status \(status)): \(child.errorText()); convert without audio",
                remedy: .dropAudio)
        }
        let file = try ISOFile.open(path: scratch, limits: limits)
        let (tracks, _) = try TrackCopier.extract(from: file, path: scratch, limits: limits)
        return tracks
    }
}
