/// How bad a finding is — the one severity of every report: validation findings, stereo-metadata diagnostics,
/// profile shortfalls and the conversion's geometry warnings. `error`: breaks a must (the file will not be treated
/// as spatial, or the pair is unusable); `warning`: breaks a should (it will work but look wrong or uncomfortable);
/// `info`: worth knowing.
public enum Severity: String, Sendable, Comparable, CaseIterable {
    case info, warning, error
    var rank: Int {
        switch self {
        case .info: 0
        case .warning: 1
        case .error: 2
        }
    }
    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}
