import Foundation

/// The built command-line tool and the files the CLI tests use. Every test skips (with `#require`) when the
/// binary has not been built (`swift build` builds it), or when a shared file or FFmpeg is absent.
enum CLI {
    /// Package root, derived from this file's path (Tests/CLITests/Support.swift).
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// `.build/debug/spatial-media`, when built.
    static let binary: String? = {
        let p = root + "/.build/debug/spatial-media"
        return FileManager.default.isExecutableFile(atPath: p) ? p : nil
    }()

    /// A file under `../shared`, when present.
    static func shared(_ rel: String) -> String? {
        let p = root + "/../shared/" + rel
        return FileManager.default.fileExists(atPath: p) ? p : nil
    }

    /// FFmpeg 9 of the oracle environment (imageio-ffmpeg), when present.
    static let ffmpeg: String? = {
        let dir = root + "/.venv-oracles/lib/python3.11/site-packages/imageio_ffmpeg/binaries"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir) else { return nil }
        return names.filter { $0.hasPrefix("ffmpeg-") }.sorted().last.map { dir + "/" + $0 }
    }()

    struct Result {
        var status: Int32
        var out: String
        var err: String
        /// Terminated by a signal rather than exiting.
        var signalled: Bool
    }

    /// Runs the tool with `args`; standard output and error are captured (through files, so neither can fill a pipe).
    static func run(_ args: [String], env: [String: String] = [:], cwd: String? = nil) throws -> Result {
        guard let binary else { throw Missing() }
        return try runProgram(binary, args, env: env, cwd: cwd)
    }

    static func runProgram(_ exe: String, _ args: [String], env: [String: String] = [:], cwd: String? = nil) throws -> Result {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        if !env.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 } }
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let dir = try tempDir("run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        _ = FileManager.default.createFile(atPath: dir + "/out", contents: nil)
        _ = FileManager.default.createFile(atPath: dir + "/err", contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/out"))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: dir + "/err"))
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        try out.close(); try err.close()
        return Result(status: p.terminationStatus,
                      out: (try? String(contentsOfFile: dir + "/out", encoding: .utf8)) ?? "",
                      err: (try? String(contentsOfFile: dir + "/err", encoding: .utf8)) ?? "",
                      signalled: p.terminationReason == .uncaughtSignal)
    }

    struct Missing: Error {}

    /// A fresh directory under the temporary directory.
    static func tempDir(_ tag: String) throws -> String {
        let p = NSTemporaryDirectory() + "spatial-media-cli-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
    static func write(_ path: String, _ text: String) { _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) }

    /// A short test-pattern clip made by FFmpeg (`codec` mpeg4 in MKV by default): an input only FFmpeg decodes.
    static func makeClip(_ path: String, seconds: Int, size: String = "320x96") throws {
        guard let ff = ffmpeg else { throw Missing() }
        let r = try runProgram(ff, ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(size):rate=30", "-t", "\(seconds)",
                                    "-c:v", "mpeg4", "-q:v", "5", path])
        guard r.status == 0 else { throw Missing() }
    }
}
