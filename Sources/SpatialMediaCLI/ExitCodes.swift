import ArgumentParser
import BinaryIO
import SystemSupport

/// The one map from what happened to the exit status, shown in `--help` and in the README.
enum Exit {
    static let ok: Int32 = 0
    static let problems: Int32 = 1
    static let unreadable: Int32 = 2
    static let usage: Int32 = 64

    /// Every row: status and what it means. `spatial-media --help` prints it; the CLI tests run the binary through it.
    static let table: [(code: Int32, meaning: String)] = [
        (ok, "success (validate/info/dump: no errors or warnings)"),
        (problems, "the input was read and problems were found (validate errors or warnings, info/dump diagnostics, a directory with no media to validate)"),
        (unreadable, "an input could not be read, is damaged or truncated, or is not a supported kind; an output could not be written; or a library or program the work needs (x265, libde265, FFmpeg …) is missing"),
        (usage, "usage error: unknown or conflicting options, a value out of range, an option that does not apply, an output that is an input or another output, an output extension that does not match what is written"),
        (130, "interrupted by SIGINT (143: by SIGTERM); nothing was written"),
    ]

    /// The table as help text.
    static var helpText: String {
        "Exit codes:\n" + table.map { "  \($0.code)  \($0.meaning)" }.joined(separator: "\n")
    }

    /// The status for an error a library call threw: usage errors 64; an interruption 130/143; anything else
    /// about an input or output, or a missing library, 2. Every command maps library errors through here.
    static func code(for e: ParseError) -> Int32 {
        if Interruption.isRequested || e.code == .cancelled { return Interruption.exitStatus }
        return e.code == .invalidArgument ? usage : unreadable
    }

    /// The command line's spelling of each remedy a library error can carry (library messages name no flag).
    static let remedyFlags: [ParseError.Remedy: String] = [
        .decodeWithFFmpeg: "--decoder ffmpeg",
        .dropAudio: "--no-audio",
        .giveFrameRate: "--fps",
        .nameEyeItems: "--left-item/--right-item",
        .giveSplitOutputs: "--left/--right or --sbs",
        .giveProjection: "--projection hequ|equi",
        .giveFramePacking: "--packing side|over",
        .giveAudioSource: "--audio-from INPUT or --no-audio",
        .giveLayout: "--layout sbs|tb",
        .force: "--force",
    ]

    /// Refuses outputs that are inputs or each other (``OutputPaths``): prints the reason, exit 64.
    static func checkOutputs(_ command: String, outputs: [(String, String?)], inputs: [(String, String?)]) throws {
        do throws(ParseError) {
            try OutputPaths.check(outputs: outputs.compactMap { o in o.1.map { (role: o.0, path: $0) } },
                                  inputs: inputs.compactMap { i in i.1.map { (role: i.0, path: $0) } })
        } catch {
            printErr("\(command): \(error.message)")
            throw ExitCode(usage)
        }
    }

    /// Prints a usage problem found after parsing and exits 64.
    static func usageError(_ command: String, _ message: String) -> ExitCode {
        printErr("\(command): \(message)")
        return ExitCode(usage)
    }
}

extension ParseError {
    /// The message with the remedy spelled as this tool's flag, e.g. "… convert without audio (--no-audio)".
    var cliMessage: String {
        guard let r = remedy, let flag = Exit.remedyFlags[r] else { return message }
        return "\(message) (\(flag))"
    }
}

/// What a command writes, checked against the output's extension before any work (a mismatch is a usage error).
enum OutputKind {
    case heic, movie, mp4

    static func check(_ path: String, expected: OutputKind, flag: String?) throws {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let ext = name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
        switch expected {
        case .heic:
            guard ["heic", "heif"].contains(ext) else {
                throw ValidationError("the output \(path) must be named .heic: a spatial photo is HEIC" + (["mov", "mp4"].contains(ext) ? " (the input is an image, so this is a photo conversion)" : ""))
            }
        case .movie:
            if ext == "mp4" { throw ValidationError("the output \(path) is .mp4 but without --mp4 a QuickTime movie is written; add --mp4 or name it .mov") }
            guard ext == "mov" else { throw ValidationError("the output \(path) must be named .mov (or .mp4 with --mp4): a spatial video is a movie") }
        case .mp4:
            guard ext == "mp4" else { throw ValidationError("the output \(path) must be named .mp4 with \(flag ?? "--mp4")") }
        }
    }
}
