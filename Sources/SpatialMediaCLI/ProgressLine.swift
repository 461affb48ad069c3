import BinaryIO
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A one-line progress display on standard error for long copies (`rewrite`, `edit` when it rewrites): shown
/// only on a terminal, only for copies of at least 256 MB, at most four times a second, erased at the end.
final class ProgressLine {
    let label: String
    private let enabled = isatty(2) != 0
    private var last = 0.0
    private var shown = false

    init(_ label: String) { self.label = label }

    /// The callback to hand to a writer: (bytes done, bytes in all).
    func update(_ done: UInt64, _ total: UInt64) {
        guard enabled, total >= 256 << 20 else { return }
        guard due(final: done == total) else { return }
        let gb = { (b: UInt64) in NumberText.fixed(Double(b) / 1e9, places: 2) }
        StandardError.write("\r\u{1B}[K\(label) \(gb(done)) of \(gb(total)) GB (\(done * 100 / max(total, 1)) %)")
    }

    /// A frame counter with rate and ETA (video conversion): shown on a terminal at most four times a second.
    func frames(_ done: Int, of total: Int?, fps: Double, eta: Double?, label: String? = nil) {
        guard enabled else { return }
        guard due(final: done == total) else { return }
        var text = "\r\u{1B}[K\(label ?? self.label) frame \(done)"
        if let total {
            let percent = done * 100 / max(total, 1)
            text += "/\(total) (\(percent) %)"
        }
        text += ", \(NumberText.fixed(fps, places: 1)) fps"
        if let eta {
            let s = Int(eta.rounded())
            let h = s / 3600, m = s / 60 % 60, sec = s % 60
            if h > 0 {
                text += ", ETA \(h) h \(m) min"
            } else if m > 0 {
                text += ", ETA \(m) min \(sec) s"
            } else {
                text += ", ETA \(sec) s"
            }
        }
        StandardError.write(text)
    }

    /// True at most four times a second (and always for the final update); marks the line as shown.
    private func due(final: Bool) -> Bool {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        let now = Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        guard now - last >= 0.25 || final else { return false }
        last = now
        shown = true
        return true
    }

    /// Erases the line, if one was shown.
    func end() { if shown { StandardError.write("\r\u{1B}[K") } }
}
