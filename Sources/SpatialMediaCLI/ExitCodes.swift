import ArgumentParser
import BinaryIO
import SpatialOperations
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
        (
            problems,
            "the input was read and problems were found (validate errors or warnings, info/dump diagnostics, fix with something it could not repair, a directory with no media to validate)"
        ),
        (
            unreadable,
            "an input could not be read, is damaged or truncated, or is not a supported kind; an output could not be written, or the written file failed the tool's own validator (nothing is left at the output); or a library or program the work needs (x265, libde265, FFmpeg …) is missing"
        ),
        (
            usage,
            "usage error: unknown or conflicting options, a value out of range, an option that does not apply, an output that is an input or another output, an output extension that does not match what is written"
        ),
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
        return e.code.isRequestError ? usage : unreadable
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
        .giveLayoutOrForce: "--layout sbs|tb, or --force",
        .swapEyesOrForce: "--swap-eyes, or --force",
    ]

    /// Refuses outputs that are inputs or each other (``OutputPaths``): prints the reason, exit 64.
    static func checkOutputs(_ command: String, outputs: [(String, String?)], inputs: [(String, String?)]) throws {
        do throws(ParseError) {
            try OutputPaths.check(
                outputs: outputs.compactMap { o in o.1.map { (role: o.0, path: $0) } },
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

/// Checks an output's name against what a command writes (``/SpatialOperations/OutputKind``, the one wording for
/// every command and shell); a mismatch is a usage error (exit 64).
func checkOutputName(_ path: String, _ kind: OutputKind) throws {
    do throws(ParseError) { try OutputKind.check(path, kind) } catch { throw ValidationError(error.message) }
}

/// Runs one job of the operations layer: a usage refusal of its planning step is printed as "COMMAND: message"
/// (exit 64), any other failure through ``failure(_:file:_:outputs:)`` (exit 2, 130/143 when interrupted).
func runOperation<T>(_ command: String, file: String, outputs: [String?], _ body: () throws(ParseError) -> T) throws
    -> T
{
    do throws(ParseError) {
        return try body()
    } catch {
        if error.code.isRequestError && !Interruption.isRequested {
            printErr("\(command): \(error.cliMessage)")
            throw ExitCode(Exit.usage)
        }
        throw failure(command, file: file, error, outputs: outputs)
    }
}

/// ``runOperation(_:file:outputs:_:)`` then ``printReport(_:json:)``: the whole of a command that runs one job.
func runAndPrint(
    _ command: String, file: String, outputs: [String?], json: Bool, _ body: () throws(ParseError) -> OperationReport
) throws {
    printReport(try runOperation(command, file: file, outputs: outputs, body), json: json)
}

/// Prints an operation's report: its JSON, or its text lines.
func printReport(_ report: OperationReport, json: Bool) {
    if json { print(report.json.serialized(pretty: true)) } else { for l in report.textLines { print(l) } }
}
