import BinaryIO

/// Whether a parsed file is whole: the one check every writer runs on its input before writing, and the
/// source of `validate`'s SV-FILE-002/003 findings.
extension ISOFile {
    /// Structural damage that makes the file unsafe to rewrite, each with the offset and box path `info` reports:
    ///
    /// * every parser diagnostic (a box cut short, a box past its parent or past the end of the file, trailing
    ///   bytes that do not form a box);
    /// * per track, the samples whose data lies past the end of the file (one fault per track, naming the first);
    /// * HEIF items whose extents (construction method 0) lie past the end of the file (one fault, naming the first).
    ///
    /// Empty for an intact file. Sample tables that cannot be resolved at all are not reported here (the
    /// operation that needs them throws its own error).
    public func integrityFaults(limits: Limits = .default) -> [Diagnostic] {
        var faults = allDiagnostics
        let size = source.size
        for (i, track) in tracks.enumerated() {
            guard let samples = try? track.samples(limits: limits) else { continue }
            let outside = samples.filter { $0.offset > size || UInt64($0.size) > size - $0.offset }
            guard let first = outside.first else { continue }
            faults.append(Diagnostic(code: .truncated, offset: first.offset, path: "moov/trak[\(i)]/mdia/minf/stbl",
                message: "track \(track.trackID): \(outside.count) of \(samples.count) samples lie past the end of the file (\(size) bytes); the first, sample \(first.index + 1), is \(first.size) bytes at offset \(first.offset): the file is truncated"))
        }
        if let heif, let iloc = heif.location {
            var outside: [(item: HEIFMeta.Item, start: UInt64, length: UInt64)] = []
            for item in heif.items {
                guard let loc = iloc.item(item.id), loc.constructionMethod == 0 else { continue }
                for e in loc.extents {
                    let start = loc.baseOffset &+ e.offset
                    if start > size || e.length > size - start { outside.append((item, start, e.length)); break }
                }
            }
            if let first = outside.first {
                faults.append(Diagnostic(code: .truncated, offset: first.start, path: "meta/iloc",
                    message: "\(outside.count) of \(heif.items.count) items have data past the end of the file (\(size) bytes); the first, item \(first.item.id) (\(first.item.type)), has an extent of \(first.length) bytes at offset \(first.start): the file is truncated"))
            }
        }
        return faults
    }

    /// Throws the first of ``integrityFaults(limits:)`` as a ``/BinaryIO/ParseError`` (its code, offset and box
    /// path), saying that nothing was written: every writer calls this on its input before writing anything.
    public func requireIntact(limits: Limits = .default, operation: String = "write") throws(ParseError) {
        let faults = integrityFaults(limits: limits)
        guard let first = faults.first else { return }
        let more = faults.count > 1 ? " (and \(faults.count - 1) more fault\(faults.count > 2 ? "s" : ""))" : ""
        throw ParseError(first.code, offset: first.offset, path: first.path,
                         "the input is damaged or truncated: \(first.message)\(more); refusing to \(operation) it (nothing written)")
    }
}
