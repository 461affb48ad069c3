import Foundation

/// Comparisons of program output against goldens kept in the repository.
public enum Golden {
    /// `text` with every occurrence of each key replaced by its value (absolute paths → stable names).
    public static func normalise(_ text: String, _ replacements: [(String, String)]) -> String {
        replacements.reduce(text) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    /// The first line where two texts differ, for a readable failure.
    public static func firstDifference(_ a: String, _ b: String) -> String? {
        let la = a.split(separator: "\n", omittingEmptySubsequences: false),
            lb = b.split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(la.count, lb.count) {
            let x = i < la.count ? String(la[i]) : "<end>", y = i < lb.count ? String(lb[i]) : "<end>"
            if x != y { return "line \(i + 1):\n  expected: \(x)\n  actual:   \(y)" }
        }
        return nil
    }
}
