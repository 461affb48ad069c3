import BinaryIO
import Dispatch
import MediaDecode
import SystemSupport

/// Validates many inputs (files, or every regular file of a directory) in parallel on all cores.
public enum BatchValidator {
    /// What a set of arguments expands to: files validated one by one, `NAME_L`/`NAME_R` image pairs found in
    /// directories, files skipped (not media) and directories that held no media at all.
    public struct Plan: Sendable {
        public var files: [String] = []
        public var pairs: [(left: String, right: String)] = []
        public var skipped: [String] = []
        public var directoriesWithoutMedia: [String] = []
        /// Number of inputs to validate (files plus pairs).
        public var count: Int { files.count + pairs.count }
        public init() {}
    }

    /// Expands directories recursively (hidden names skipped) into their media files, sorted by name, each
    /// directory's files before its subdirectories'; files named on the
    /// command line are kept as given. In a directory, files that are not media (by their first bytes) are
    /// skipped, and images named `NAME_L.ext` / `NAME_R.ext` (any case) are validated as one left/right pair.
    public static func plan(_ paths: [String]) -> Plan {
        var plan = Plan()
        for p in paths {
            guard FileSystem.kind(p) == .directory else { plan.files.append(p); continue }
            let before = plan.count
            walk(p, into: &plan, depth: 0)
            if plan.count == before { plan.directoriesWithoutMedia.append(p) }
        }
        return plan
    }

    static func walk(_ dir: String, into plan: inout Plan, depth: Int) {
        guard depth < 32 else { return }
        var media: [String] = []
        var subdirectories: [String] = []
        for n in FileSystem.names(inDirectory: dir).filter({ !$0.hasPrefix(".") }).sorted() {
            let full = dir.hasSuffix("/") ? dir + n : dir + "/" + n
            switch FileSystem.kind(full) {
            case .directory?: subdirectories.append(full)
            case .regular?: if FileProbe.isMedia(full) { media.append(full) } else { plan.skipped.append(full) }
            default: plan.skipped.append(full)
            }
        }
        // NAME_L / NAME_R images of this directory become pairs.
        var rest: [String] = []
        var used = Set<String>()
        for f in media where !used.contains(f) {
            guard let key = eyeKey(f, eye: "l"), FileProbe.isStillImage(f),
                let partner = media.first(where: {
                    !used.contains($0) && $0 != f && FileProbe.isStillImage($0) && eyeKey($0, eye: "r") == key
                })
            else { continue }
            plan.pairs.append((f, partner))
            used.insert(f); used.insert(partner)
        }
        for f in media where !used.contains(f) { rest.append(f) }
        plan.files += rest
        // A directory's own files come before those of its subdirectories.
        for d in subdirectories { walk(d, into: &plan, depth: depth + 1) }
    }

    /// `dir/NAME` (lower-cased) when the file's name (without extension) ends in `_L`/`_R` for `eye`.
    static func eyeKey(_ path: String, eye: Character) -> String? {
        let slash = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[slash...]
        let stem = name.lastIndex(of: ".").map { name[..<$0] } ?? name
        guard stem.count > 2, stem.lowercased().hasSuffix("_\(eye)") else { return nil }
        return (String(path[..<slash]) + stem.dropLast(2)).lowercased()
    }

    /// Validates `paths` concurrently; results in input order.
    package static func validate(_ paths: [String], options: ValidationOptions) -> [ValidationReport] {
        let n = paths.count
        guard n > 1 else { return paths.map { Validator.validate(path: $0, options: options) } }
        let slots = Slots<ValidationReport>(count: n)
        DispatchQueue.concurrentPerform(iterations: n) { i in
            slots.set(i, Validator.validate(path: paths[i], options: options))
        }
        return slots.all.enumerated().map { i, r in
            r
                ?? ValidationReport(
                    input: paths[i], kind: "unreadable", spatial: false, whyNotSpatial: [],
                    findings: [Finding("SV-FILE-001", .error, "not validated")], summary: [], measurements: [],
                    preview: nil, unreadable: true)
        }
    }
}
