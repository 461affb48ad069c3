import ArgumentParser
import BinaryIO
import Codecs
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialMedia
import SpatialOperations
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func printErr(_ s: String) { StandardError.write(s + "\n") }

/// One error line that always names the right file. `ParseError.path` is a box path (`moov/trak[0]/…`,
/// `(top level)`) or, when a library call took several files, the file that failed: an output named in
/// `outputs` is reported as "cannot write OUTPUT"; a box path goes after the reason with its offset; the
/// top level is given by its offset alone.
/// The one way a command fails on a library error: ``errorLine`` on standard error, and the exit code
/// ``Exit/code(for:)`` gives, to throw (`throw failure(…)`).
func failure(_ prefix: String, file: String, _ e: ParseError, outputs: [String?] = []) -> ExitCode {
    printErr(errorLine(prefix, file: file, e, outputs: outputs))
    return ExitCode(Exit.code(for: e))
}

func errorLine(_ prefix: String, file: String, _ e: ParseError, outputs: [String?] = []) -> String {
    var message = e.cliMessage
    if !e.path.isEmpty, outputs.contains(where: { $0 == e.path }) {
        if message.hasPrefix("cannot write \(e.path): ") { message.removeFirst("cannot write \(e.path): ".count) }
        return "\(prefix): cannot write \(e.path): \(message) [\(e.code)]"
    }
    if message.hasPrefix(file + ": ") { message.removeFirst(file.count + 2) }
    if e.path.isEmpty || e.path == file { return "\(prefix): \(file): \(message) [\(e.code)]" }
    if FileSystem.kind(e.path) != nil { return "\(prefix): \(e.path): \(message) [\(e.code)]" }
    guard let offset = e.offset else {
        if e.path == "(top level)" { return "\(prefix): \(file): \(message) [\(e.code)]" }
        return "\(prefix): \(file): \(message) [\(e.code)] (at \(e.path))"
    }
    if e.path == "(top level)" { return "\(prefix): \(file): \(message) [\(e.code)] (at offset \(offset))" }
    return "\(prefix): \(file): \(message) [\(e.code)] (at \(e.path), offset \(offset))"
}

/// Ends the process with `code`; stdio buffers are flushed.
func terminate(_ code: Int32) -> Never {
    #if canImport(Glibc)
        Glibc.exit(code)
    #else
        Darwin.exit(code)
    #endif
}

@main
struct SpatialMediaCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spatial-media",
        abstract: "Inspect, validate, convert and edit spatial (stereo) photos and videos.",
        discussion: Exit.helpText + "\n\nJSON goes to standard output, messages to standard error.",
        version: SpatialMediaVersion.string,
        subcommands: [
            Info.self, Dump.self, Rewrite.self, Edit.self, Fix.self, Combine.self, ConvertPhoto.self, SplitPhoto.self,
            Assemble.self, SplitVideo.self, Concat.self, BenchScan.self, BenchDecode.self, Validate.self, Align.self,
            BenchAlign.self,
        ]
    )

    /// Parses only the chosen subcommand rather than reflecting over the whole command tree: the Swift
    /// runtime's first protocol-conformance lookups are costly, and `info`/`dump` are called per file by
    /// scripts. Help, version and unknown commands go through the full parser as usual.
    static func main() {
        let args = Array(CommandLine.arguments.dropFirst())
        if args == ["--version"] {
            // The version, then what this machine gives us: codec libraries and the FFmpeg each job would use.
            print(SpatialMediaVersion.string)
            print(
                "libde265: \(CodecVersions.libde265); libx265: \(CodecVersions.x265); libturbojpeg: \(CodecVersions.turbojpeg); libpng: \(CodecVersions.libpng)"
            )
            print(FFmpeg.summary)
            print(X265MultiviewProbe.encodersLine)
            terminate(Exit.ok)
        }
        if let name = args.first, !args.contains(where: { $0 == "-h" || $0 == "--help" || $0 == "help" }) {
            // `info [--json] FILE...` is read by hand: scripts call it once per file, and even parsing one
            // subcommand with ArgumentParser costs more than reading a small file (runtime reflection).
            let rest = args.dropFirst()
            if name == "info", rest.contains(where: { !$0.hasPrefix("-") }),
                rest.allSatisfy({ $0 == "--json" || !$0.hasPrefix("-") })
            {
                terminate(Info.report(files: rest.filter { $0 != "--json" }, json: rest.contains("--json")))
            }
            switch name {
            case "info": runSubcommand(Info.self, Array(args.dropFirst()))
            case "dump": runSubcommand(Dump.self, Array(args.dropFirst()))
            default: break
            }
        }
        // SIGINT/SIGTERM: helper processes stopped, temporary files removed, exit 130/143 (see Interruption).
        Interruption.install()
        do {
            var command = try parseAsRoot(args)
            try command.run()
        } catch {
            exit(withError: error)
        }
    }

    /// Runs `C` when `args` parse for it; returns (to let the full parser report the problem) when they don't.
    static func runSubcommand<C: ParsableCommand>(_ type: C.Type, _ args: [String]) {
        guard var command = try? C.parse(args) else { return }
        do {
            try command.run()
            exit(withError: nil)
        } catch {
            exit(withError: error)
        }
    }
}

/// Opens a file for the CLI, printing a clear message and returning nil when it cannot be read.
func openFile(_ path: String) -> ISOFile? {
    do {
        return try ISOFile.open(path: path)
    } catch {
        printErr("spatial-media: \(path): \(error.cliMessage) [\(error.code)]")
        return nil
    }
}

struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the box tree: offset, size, header form, type and key fields of every box.")
    @Argument(help: "The file to dump.") var file: String
    @Flag(help: "Print JSON to standard output.") var json = false
    @Option(help: "Show boxes down to this depth (1 = top level only).") var depth: Int?
    @Flag(
        help:
            "List access units and NAL units (type, layer, temporal id, size, slice type, POC) of a raw HEVC stream or of each HEVC track."
    ) var nal = false

    func validate() throws {
        if let d = depth, d < 1 { throw ValidationError("--depth must be 1 or more") }
    }

    func run() throws {
        if nal {
            do {
                let lines = try NALListing.lines(path: file)
                for l in lines { print(l) }
            } catch {
                printErr("spatial-media: \(file): \(error.cliMessage) [\(error.code)]")
                throw ExitCode(Exit.code(for: error))
            }
            return
        }
        guard let f = openFile(file) else { throw ExitCode(Exit.unreadable) }
        let maxDepth = depth ?? .max
        if json {
            print(BoxDump.json(f, maxDepth: maxDepth).serialized(pretty: true))
        } else {
            for l in BoxDump.lines(f, maxDepth: maxDepth) { print(l) }
        }
        if !f.allDiagnostics.isEmpty { throw ExitCode(Exit.problems) }
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Say what each file is: brands, tracks, items, entity groups, HEVC layers, spatial metadata.")
    @Argument(help: "One or more files (movies, HEIF images, raw .hevc streams).") var files: [String]
    @Flag(help: "Print JSON to standard output.") var json = false

    func run() throws {
        let worst = Self.report(files: files, json: json)
        if worst != Exit.ok { throw ExitCode(worst) }
    }

    /// Prints the report of every file and returns the exit code.
    static func report(files: [String], json: Bool) -> Int32 {
        var worst = Exit.ok
        var results: [JSON] = []
        for path in files {
            // The one routing every shell uses (Operations.info): images, FFmpeg-only files, ISOBMFF, raw HEVC.
            let (object, read, failure) = Operations.infoJSON(InfoRequest(path: path))
            guard let info = read else {
                if let error = failure { printErr("spatial-media: \(path): \(error.cliMessage) [\(error.code)]") }
                worst = max(worst, Exit.unreadable)
                results.append(object)
                continue
            }
            if info.hasProblems { worst = max(worst, Exit.problems) }
            if info.isDamaged { worst = max(worst, Exit.unreadable) }
            if json {
                results.append(object)
            } else {
                if files.count > 1 { print("== \(path)") }
                for l in info.lines { print(l) }
            }
        }
        if json { print((files.count == 1 ? results.first ?? .null : .array(results)).serialized(pretty: true)) }
        return worst
    }
}

struct Rewrite: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Parse a whole file and write it back through the writer (identical bytes when nothing changed).")
    @Argument(help: "Input file.") var input: String
    @Option(name: .shortAndLong, help: "Output file (written atomically).") var output: String

    func run() throws {
        try Exit.checkOutputs("spatial-media rewrite", outputs: [("output", output)], inputs: [("input", input)])
        guard let f = openFile(input) else { throw ExitCode(Exit.unreadable) }
        let line = ProgressLine("writing")
        do {
            // A damaged or truncated input is refused, as every writer does: a copy would keep the damage as if whole.
            try f.requireIntact(operation: "rewrite")
            try f.write(to: output, progress: line.update)
            line.end()
        } catch {
            line.end()
            throw failure("spatial-media rewrite", file: input, error, outputs: [output])
        }
        printErr("wrote \(output)")
    }
}
