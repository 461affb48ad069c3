import BinaryIO
import ImageFormats
import SystemSupport

/// One fault a sampled frame showed while converting (the conversion-time warning; the measuring and the wording are
/// the caller's, e.g. the validator's geometry rules).
public struct VideoGeometryWarning: Sendable, Equatable {
    public var ruleID: String
    /// ``/BinaryIO/Severity/warning`` or ``/BinaryIO/Severity/error`` as the rule judges it.
    public var severity: Severity
    public var message: String
    /// Options of `convert` that fix it (`--align`, `--auto-disparity`); empty when none does.
    public var fixes: [String]
    public init(ruleID: String, severity: Severity, message: String, fixes: [String]) {
        self.ruleID = ruleID; self.severity = severity; self.message = message; self.fixes = fixes
    }

    /// How reports print the severity: "ERROR" (capitals, so it stands out among warnings) or "warning".
    public var severityLabel: String { severity == .error ? "ERROR" : severity.rawValue }

    /// The options that fix any of `warnings`, `--align` first, then `--auto-disparity`, then any other.
    public static func fixes(_ warnings: [VideoGeometryWarning]) -> [String] {
        let all = Set(warnings.flatMap(\.fixes))
        return ["--align", "--auto-disparity"].filter(all.contains)
            + all.subtracting(["--align", "--auto-disparity"]).sorted()
    }
}

/// Geometry check of a video while it is converted without `--align`: a few frames are sampled (the second frame of
/// each shot, shots found like ``VideoAligner`` finds them, then frames 1 s, 2 s, 4 s… further into it, at most
/// ``maxFrames``) as
/// they pass from the decoder to the encoders, and handed to ``inspect``. Nothing is decoded twice.
public struct VideoGeometryCheck: Sendable {
    /// Measures one frame pair (display-order index, left eye, right eye) and returns its faults.
    public var inspect: @Sendable (_ frame: Int, _ left: Image, _ right: Image) -> [VideoGeometryWarning]
    /// Called the first time a rule fires (frame, warning), before the output is written.
    public var onFirstWarning: (@Sendable (_ frame: Int, _ warning: VideoGeometryWarning) -> Void)?
    /// At most this many frames are measured.
    public var maxFrames: Int
    public init(
        maxFrames: Int = 6,
        inspect: @escaping @Sendable (_ frame: Int, _ left: Image, _ right: Image) -> [VideoGeometryWarning],
        onFirstWarning: (@Sendable (_ frame: Int, _ warning: VideoGeometryWarning) -> Void)? = nil
    ) {
        self.maxFrames = maxFrames; self.inspect = inspect; self.onFirstWarning = onFirstWarning
    }
}

/// What the conversion-time geometry check found.
public struct VideoGeometryCheckReport: Sendable {
    /// The frames measured (display order).
    public var frames: [Int] = []
    /// One entry per rule that fired: its first warning and the frames that showed it.
    public var warnings: [(warning: VideoGeometryWarning, frames: [Int])] = []
    /// CPU seconds spent sampling and measuring (on the reader thread).
    public var cpuSeconds = 0.0
    /// The options that would fix what was found, in a stable order.
    public var fixes: [String] { VideoGeometryWarning.fixes(warnings.map(\.warning)) }

    public var lines: [String] {
        let list = frames.map(String.init).joined(separator: ", ")
        guard !warnings.isEmpty else {
            return frames.isEmpty
                ? ["geometry check: no frame could be sampled"]
                : [
                    "geometry check: no fault found on the \(frames.count) frame\(frames.count == 1 ? "" : "s") measured (\(list))"
                ]
        }
        var l = [
            "geometry check: \(warnings.count) fault\(warnings.count == 1 ? "" : "s") on the frames measured (\(list))"
        ]
        for w in warnings {
            l.append(
                "\(w.warning.severityLabel) \(w.warning.ruleID) (frame\(w.frames.count == 1 ? "" : "s") \(w.frames.map(String.init).joined(separator: ", "))): \(w.warning.message)"
            )
        }
        if !fixes.isEmpty {
            l.append("the video has fixable faults: convert again with \(fixes.joined(separator: " ")) to fix them")
        }
        return l
    }
}

/// Shot cuts from a cheap luma signature of each frame (``VideoAligner/signature(_:)``,
/// ``VideoAligner/isCut(_:recent:)``).
struct ShotCutDetector {
    private var previous: [Float]? = nil
    private var recent: [Double] = []
    /// Frames of the current shot so far.
    private(set) var shotLength = 0

    /// Feeds the next frame (display order); true when it starts a shot (the first frame, or after a cut).
    mutating func startsShot(_ img: Image) -> Bool {
        let sig = VideoAligner.signature(img)
        var cut = false
        if let p = previous, p.count == sig.count, !sig.isEmpty {
            var d = 0.0
            for i in sig.indices { d += Double(abs(sig[i] - p[i])) }
            d /= Double(sig.count)
            if VideoAligner.isCut(d, recent: recent), shotLength >= 2 {
                cut = true; recent = []
            } else {
                recent.append(d); if recent.count > 8 { recent.removeFirst() }
            }
        }
        let starts = previous == nil || cut
        previous = sig
        shotLength = starts ? 1 : shotLength + 1
        return starts
    }
}

/// Runs a ``VideoGeometryCheck`` over the frames of a conversion (reader thread only).
final class VideoGeometrySampler {
    let check: VideoGeometryCheck
    let gap: Int
    private var shots = ShotCutDetector()
    private var shotFirst = 0
    private var nextSample = 1
    private var samplesInShot = 0
    private(set) var report = VideoGeometryCheckReport()

    init(_ check: VideoGeometryCheck, fpsNum: Int, fpsDen: Int) {
        self.check = check
        gap = max(1, Int((Double(fpsNum) / Double(max(1, fpsDen))).rounded()))
    }

    /// Looks at one frame on its way to the encoders; measures it when it is a sample.
    func look(_ pair: (Image, Image), frame: Int) {
        guard report.frames.count < check.maxFrames else { return }
        let t0 = threadCPUSeconds()
        defer { report.cpuSeconds += threadCPUSeconds() - t0 }
        if shots.startsShot(pair.0) { shotFirst = frame; nextSample = 1; samplesInShot = 0 }
        // The second frame of a shot (the first may be a fade or a cut's blend), then 1 s, 2 s, 4 s, 8 s… later.
        guard frame - shotFirst == nextSample else { return }
        samplesInShot += 1
        nextSample += gap << min(16, samplesInShot - 1)
        report.frames.append(frame)
        for w in check.inspect(frame, pair.0, pair.1) {
            if let i = report.warnings.firstIndex(where: { $0.warning.ruleID == w.ruleID }) {
                report.warnings[i].frames.append(frame)
            } else {
                report.warnings.append((w, [frame]))
                check.onFirstWarning?(frame, w)
            }
        }
    }
}
