import Foundation
import TestSupport

/// The CLI tests' names for the shared test support (Tests/TestSupport): the built binary, the shared media,
/// FFmpeg as the product finds it, and the one process runner.
enum CLI {
    static var root: String { TestPaths.packageRoot }
    /// The `spatial-media` built beside the test bundle.
    static var binary: String? { TestPrograms.binary }
    /// A file under the shared test media, when present.
    static func shared(_ rel: String) -> String? { TestPaths.shared(rel) }
    /// The path of a shared file, for tests that declare `.needs(.shared(rel))`.
    static func fixture(_ rel: String) -> String { TestPaths.sharedPath(rel) }
    /// FFmpeg ≥ 7.1 as the product finds it (setup's `.tools/bin/ffmpeg` counts).
    static var ffmpeg: String? { TestPrograms.ffmpeg }

    typealias Result = RunResult
    typealias Missing = TestSetupError

    /// Runs the built tool (the test fails when it was not built).
    static func run(_ args: [String], env: [String: String] = [:], cwd: String? = nil) throws -> Result {
        try Run.cli(args, env: env, cwd: cwd)
    }
    static func runProgram(_ exe: String, _ args: [String], env: [String: String] = [:], cwd: String? = nil) throws
        -> Result
    {
        try Run.program(exe, args, env: env, cwd: cwd)
    }
    static func tempDir(_ tag: String) throws -> String { try TestPaths.tempDir("cli-" + tag) }
    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }
    static func exists(_ path: String) -> Bool { TestPaths.exists(path) }
    static func write(_ path: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }
    static func makeClip(_ path: String, seconds: Int, size: String = "320x96") throws {
        try TestMedia.ffmpegClip(path, seconds: seconds, size: size)
    }
}
