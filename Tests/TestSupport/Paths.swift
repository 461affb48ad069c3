import Foundation

/// Where the tests find the package, the shared test media and the oracle environment. One place for each:
/// every test target reads them from here.
public enum TestPaths {
    /// The package root, derived from this file's path (Tests/TestSupport/Paths.swift).
    public static let packageRoot: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()

    /// The shared test media: `SPATIAL_MEDIA_SHARED` when set, else `../shared` beside the package root. It holds
    /// `corpus/` and `fixtures/`, which are never copied into the repository.
    public static let sharedRoot: String = {
        if let e = ProcessInfo.processInfo.environment["SPATIAL_MEDIA_SHARED"], !e.isEmpty { return e }
        return packageRoot + "/../shared"
    }()

    /// The shared media directory, or nil when absent (a fresh clone without `../shared`).
    public static let sharedDir: String? = isDirectory(sharedRoot) ? sharedRoot : nil

    /// The path of `rel` under the shared media, whether or not it exists.
    public static func sharedPath(_ rel: String) -> String { sharedRoot + "/" + rel }

    /// A file under the shared media, or nil when absent.
    public static func shared(_ rel: String) -> String? {
        let p = sharedPath(rel)
        return FileManager.default.fileExists(atPath: p) ? p : nil
    }

    /// A file of the package (`Conformance/files/…`, `Benchmarks/…`, `Tests/Oracles/…`).
    public static func package(_ rel: String) -> String { packageRoot + "/" + rel }

    /// The oracle environment's Python (`.venv-oracles`, made by Benchmarks/oracles.sh: PyAV, pillow-heif,
    /// pymediainfo, OpenCV), or nil when absent. `SPATIAL_MEDIA_ORACLES` names another venv.
    public static let oraclePython: String? = {
        let venv =
            ProcessInfo.processInfo.environment["SPATIAL_MEDIA_ORACLES"].flatMap { $0.isEmpty ? nil : $0 }
            ?? packageRoot + "/.venv-oracles"
        let p = venv + "/bin/python"
        return FileManager.default.isExecutableFile(atPath: p) ? p : nil
    }()

    /// A program on `PATH` (or in the usual system directories), or nil.
    public static func which(_ tool: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs =
            path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin", "/bin", "/opt/homebrew/bin"]
        return dirs.lazy.map { $0 + "/" + tool }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    public static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    public static func isDirectory(_ path: String) -> Bool {
        var dir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &dir) && dir.boolValue
    }

    /// A fresh directory under the temporary directory (the caller removes it).
    public static func tempDir(_ tag: String) throws -> String {
        let p = NSTemporaryDirectory() + "spatial-media-\(tag)-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }
}
