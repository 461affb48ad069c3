import BinaryIO
import SpatialConvert
import SystemSupport

/// The one report of every job, whatever shell ran it: the command line prints ``textLines`` (or ``json`` with
/// `--json`), the C ABI returns ``json``, Python and `SpatialMediaKit` return the value. Text and JSON are made
/// from the same fields, so they cannot disagree.
public struct OperationReport: Sendable {
    /// "convert", …
    public var job: String
    /// What the planning step routed the input to ("photo", "video", "hevc-pair", "mv-hevc-stream").
    public var route: String
    /// Every file written, the main output first.
    public var outputs: [String]
    /// The first line of the text report.
    public var headline: String
    /// The further lines of the text report (one per decision, with its provenance).
    public var lines: [String]
    /// The job's facts, in a stable order (the JSON keys the command line has always printed).
    public var fields: [(String, JSON)]
    /// Geometry faults of the source found while the job ran (rule, severity, message, frames, fixes).
    public var warnings: [GeometryFault]
    /// The read-back check of the main output.
    public var check: OutputCheckResult

    /// Keys whose values depend on the machine and the moment (wall/CPU time, memory), left out of ``comparableJSON``.
    public static let timingKeys: Set<String> = [
        "seconds", "own_cpu_seconds", "process_cpu_seconds", "peak_rss_bytes", "cpu_seconds",
    ]

    public var json: JSON {
        .object(
            [("job", .string(job)), ("route", .string(route))] + fields
                + [("warnings", .array(warnings.map(\.json))), ("output_check", check.json)])
    }

    /// ``json`` without the timing values: what two runs of one request must give alike, whichever shell ran them.
    public var comparableJSON: JSON { Self.withoutTiming(json) }

    static func withoutTiming(_ j: JSON) -> JSON {
        switch j {
        case .object(let fields):
            return .object(fields.filter { !timingKeys.contains($0.0) }.map { ($0.0, withoutTiming($0.1)) })
        case .array(let items): return .array(items.map(withoutTiming))
        default: return j
        }
    }

    public var textLines: [String] {
        // A video's lines already hold its geometry check; a photo's faults are added here.
        let untold = warnings.filter { w in !lines.contains { $0.contains(w.warning.ruleID) } }
        return [headline] + lines.map { "  \($0)" } + untold.map { "  \($0.line)" } + ["  \(check.line)"]
    }
}

/// One geometry fault of the source (conversion-time check): not the job's fault, so a warning naming the option
/// that fixes it, or a refusal with `strict`.
public struct GeometryFault: Sendable, Equatable {
    public var warning: VideoGeometryWarning
    /// Video frames (display order) that showed it; empty for a photo.
    public var frames: [Int]

    public init(_ warning: VideoGeometryWarning, frames: [Int] = []) { self.warning = warning; self.frames = frames }

    public var line: String { "\(warning.severityLabel) \(warning.ruleID): \(warning.message)" }

    public var json: JSON {
        .object([
            ("rule", .string(warning.ruleID)), ("severity", .string(warning.severityLabel)),
            ("message", .string(warning.message)),
            ("frames", .array(frames.map { .uint(UInt64($0)) })), ("fixes", .array(warning.fixes.map { .string($0) })),
        ])
    }
}

/// What a job tells its caller while it runs. The command line prints messages on standard error and draws a
/// progress line; the C ABI turns progress into its callback's fraction.
public struct OperationEvents {
    /// A line worth showing now (a geometry fault as the first frame shows it, the alignment figures).
    public var message: (@Sendable (String) -> Void)?
    /// Progress of the long step.
    public var progress: ((OperationProgress) -> Void)?

    public init(message: (@Sendable (String) -> Void)? = nil, progress: ((OperationProgress) -> Void)? = nil) {
        self.message = message; self.progress = progress
    }
}

/// Progress of a job: a stage name and, when known, frames done and expected.
public struct OperationProgress: Sendable {
    public var stage: String
    public var frames: Int?
    public var totalFrames: Int?
    public var framesPerSecond: Double?
    public var etaSeconds: Double?

    /// The fraction done (0…1), when the total is known.
    public var fraction: Double? {
        guard let f = frames, let t = totalFrames, t > 0 else { return nil }
        return min(1, Double(f) / Double(t))
    }

    public init(
        stage: String, frames: Int? = nil, totalFrames: Int? = nil, framesPerSecond: Double? = nil,
        etaSeconds: Double? = nil
    ) {
        self.stage = stage; self.frames = frames; self.totalFrames = totalFrames;
        self.framesPerSecond = framesPerSecond; self.etaSeconds = etaSeconds
    }
}
