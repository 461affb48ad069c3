import BinaryIO
import Dispatch
import SystemSupport

/// Validates many inputs (files, or every regular file of a directory) in parallel on all cores.
public enum BatchValidator {
    /// Expands directories into their (non-hidden, regular) files, sorted; files are kept as given.
    public static func expand(_ paths: [String]) -> [String] {
        var out: [String] = []
        for p in paths {
            guard FileSystem.kind(p) == .directory else { out.append(p); continue }
            for n in FileSystem.names(inDirectory: p).filter({ !$0.hasPrefix(".") }).sorted() {
                let full = p.hasSuffix("/") ? p + n : p + "/" + n
                if FileSystem.kind(full) == .regular { out.append(full) }
            }
        }
        return out
    }

    /// Validates `paths` concurrently; results in input order.
    public static func validate(_ paths: [String], options: ValidationOptions) -> [ValidationReport] {
        let n = paths.count
        guard n > 1 else { return paths.map { Validator.validate(path: $0, options: options) } }
        let slots = Slots<ValidationReport>(count: n)
        DispatchQueue.concurrentPerform(iterations: n) { i in
            slots.set(i, Validator.validate(path: paths[i], options: options))
        }
        return slots.all.enumerated().map { i, r in
            r ?? ValidationReport(input: paths[i], kind: "unreadable", spatial: false, whyNotSpatial: [], findings: [Finding("SV-FILE-001", .error, "not validated")], summary: [], measurements: [], preview: nil, unreadable: true)
        }
    }
}
