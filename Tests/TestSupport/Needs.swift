import Foundation
import Testing

/// Something a test needs that a fresh clone may not have: the shared test media or an oracle (an independent
/// program the results are compared with). Everything the product itself needs at run time (FFmpeg ≥ 7.1, the
/// codec libraries, the x265 CLI) is installed by `scripts/setup.sh` and is never a reason to skip.
public struct Requirement: Sendable {
    /// Why a test that lacks it is skipped; also the key the closing line counts by.
    public let reason: String
    let met: @Sendable () -> Bool

    /// Whether the requirement is met on this machine now.
    public var isMet: Bool { met() }

    public init(_ reason: String, _ met: @escaping @Sendable () -> Bool) {
        self.reason = reason
        self.met = met
    }

    /// Files of the shared test media (`../shared`, or `SPATIAL_MEDIA_SHARED`), by path under it.
    public static func shared(_ rels: String...) -> Requirement {
        if TestPaths.sharedDir == nil { return Requirement(sharedAbsent) { false } }
        let missing = rels.filter { TestPaths.shared($0) == nil }
        return Requirement("not in ../shared: " + missing.joined(separator: ", ")) { missing.isEmpty }
    }

    /// Absolute paths of shared files (as the older per-target helpers name them).
    public static func sharedFiles(_ paths: String...) -> Requirement {
        if TestPaths.sharedDir == nil { return Requirement(sharedAbsent) { false } }
        let missing = paths.filter { !TestPaths.exists($0) }
        return Requirement("not in ../shared: " + missing.joined(separator: ", ")) { missing.isEmpty }
    }

    /// The shared test media directory itself (a test walks all of it).
    public static var sharedMedia: Requirement { Requirement(sharedAbsent) { TestPaths.sharedDir != nil } }

    /// The oracle environment (`.venv-oracles`: PyAV, pillow-heif, pymediainfo, OpenCV, FFmpeg 9).
    public static var oracles: Requirement {
        Requirement(
            "oracle environment absent (.venv-oracles: PyAV, pillow-heif, pymediainfo, OpenCV; made by Benchmarks/oracles.sh)"
        ) {
            TestPaths.oraclePython != nil
        }
    }

    /// The oracle environment with a Python module (`cv2` for OpenCV). The import is tried once per module.
    public static func oracles(importing module: String) -> Requirement {
        Requirement(oracles.reason) { OracleModules.shared.has(module) }
    }

    /// An oracle program on PATH (`heif-convert` of libheif, `mediainfo`).
    public static func oracleProgram(_ name: String) -> Requirement {
        Requirement("oracle program \(name) not on PATH") { TestPaths.which(name) != nil }
    }

    static let sharedAbsent = "../shared absent (corpus and fixtures; set SPATIAL_MEDIA_SHARED to use another place)"
}

/// Which Python modules the oracle environment imports (each tried once).
final class OracleModules: @unchecked Sendable {
    static let shared = OracleModules()
    private let lock = NSLock()
    private var known: [String: Bool] = [:]

    func has(_ module: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let k = known[module] { return k }
        let ok =
            TestPaths.oraclePython.map { (try? Run.program($0, ["-c", "import " + module], timeout: 120).status) == 0 }
            ?? false
        known[module] = ok
        return ok
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when every requirement is met; otherwise it is skipped with the first missing one's reason,
    /// and counted in the line the run ends with.
    public static func needs(_ requirements: Requirement..., sourceLocation: SourceLocation = #_sourceLocation) -> Self
    {
        let missing = requirements.first { !$0.met() }
        return .enabled(
            Comment(rawValue: missing?.reason ?? "needs " + requirements.map(\.reason).joined(separator: "; ")),
            sourceLocation: sourceLocation
        ) {
            SkipLedger.shared.count(skippedFor: missing?.reason)
            return missing == nil
        }
    }
}

/// Skips for absences known only while a test runs (an oracle that could not make one of its inputs).
public enum Skip {
    /// Ends the running test as skipped (Swift Testing's cancellation) with `reason`, counted in the closing line.
    public static func because(_ reason: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Never {
        SkipLedger.shared.count(skippedFor: reason, checked: false)
        try Test.cancel(Comment(rawValue: reason), sourceLocation: sourceLocation)
    }
}

/// Counts the tests skipped by ``Trait/needs(_:sourceLocation:)``, by reason, and prints one line when the test
/// process ends: `skipped: N of M tests that need fixtures or oracles — K: reason; …`.
public final class SkipLedger: @unchecked Sendable {
    public static let shared = SkipLedger()
    private let lock = NSLock()
    private var checked = 0
    private var skips: [String: Int] = [:]
    private var registered = false

    func count(skippedFor reason: String?, checked counts: Bool = true) {
        lock.lock()
        defer { lock.unlock() }
        if counts { checked += 1 }
        if let reason { skips[reason, default: 0] += 1 }
        if !registered {
            registered = true
            atexit { SkipLedger.shared.printSummary() }
        }
    }

    /// The closing line.
    public var summary: String {
        lock.lock()
        defer { lock.unlock() }
        let total = skips.values.reduce(0, +)
        guard total > 0 else {
            return "skipped: none — all \(checked) tests that need the shared media or an oracle ran"
        }
        let parts = skips.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.value): \($0.key)" }
        return "skipped: \(total) of \(checked) tests that need the shared media or an oracle — "
            + parts.joined(separator: "; ")
    }

    /// Printed at exit, after a short pause so that the test library's own last lines (written as its events
    /// arrive) come first and this stays the closing line.
    func printSummary() {
        fflush(nil)
        usleep(300_000)
        print(summary)
        fflush(nil)
    }
}
