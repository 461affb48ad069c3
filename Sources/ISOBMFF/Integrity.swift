import BinaryIO

/// A HEIF item whose data (an `iloc` extent, construction method 0) lies past the end of the file.
public struct ItemExtentOutsideFile: Sendable, Equatable {
    /// The item.
    public var itemID: UInt32
    /// Its type (`hvc1`, `grid`, `Exif`, …).
    public var itemType: FourCC
    /// Absolute file offset where the extent starts.
    public var start: UInt64
    /// Length of the extent in bytes.
    public var length: UInt64
}

/// Whether a parsed file is whole: the one check every writer runs on its input before writing (movies and
/// images alike), and the source of `validate`'s SV-FILE-003 findings.
extension ISOFile {
    /// Parser findings that mean the file is cut short or its box sizes do not fit: a box running past its parent or
    /// the end of the file, a box smaller than its header, a structure that ended early. Other diagnostics (trailing
    /// bytes, a payload kept raw) leave the file usable and are not listed.
    public var truncationDiagnostics: [Diagnostic] {
        allDiagnostics.filter { [.truncated, .sizePastParent, .sizeTooSmall, .sizeZeroNotTopLevel].contains($0.code) }
    }

    /// HEIF items whose data lies (partly) past the end of the file, in item order; at most one entry per item (its
    /// first such extent). Items stored in `idat` (construction method 1) are checked by
    /// ``HEIFMeta/data(of:file:limits:)``.
    public var itemExtentsOutsideFile: [ItemExtentOutsideFile] {
        guard let heif, let iloc = heif.location else { return [] }
        let size = source.size
        var out: [ItemExtentOutsideFile] = []
        for item in heif.items {
            guard let loc = iloc.item(item.id), loc.constructionMethod == 0 else { continue }
            for e in loc.extents {
                let (start, overflow) = loc.baseOffset.addingReportingOverflow(e.offset)
                if overflow || start > size || e.length > size - start {
                    out.append(
                        ItemExtentOutsideFile(itemID: item.id, itemType: item.type, start: start, length: e.length))
                    break
                }
            }
        }
        return out
    }

    /// Data the file points at but does not hold, each as a diagnostic with the offset and box path `info` reports:
    /// per track, the samples whose data lies past the end of the file (one fault per track, naming the first); the
    /// HEIF items whose extents lie past the end of the file (one fault, naming the first). Sample tables that cannot
    /// be resolved at all are not reported here (the operation that needs them throws its own error).
    public func dataOutsideFile(limits: Limits = .default) -> [Diagnostic] {
        var faults: [Diagnostic] = []
        let size = source.size
        for (i, track) in tracks.enumerated() {
            guard let samples = try? track.samples(limits: limits) else { continue }
            let outside = samples.filter { $0.offset > size || UInt64($0.size) > size - $0.offset }
            guard let first = outside.first else { continue }
            faults.append(
                Diagnostic(
                    code: .truncated, offset: first.offset, path: "moov/trak[\(i)]/mdia/minf/stbl",
                    message:
                        "track \(track.trackID): \(outside.count) of \(samples.count) samples lie past the end of the file (\(size) bytes); the first, sample \(first.index + 1), is \(first.size) bytes at offset \(first.offset): the file is truncated"
                ))
        }
        let outside = itemExtentsOutsideFile
        if let first = outside.first, let count = heif?.items.count {
            faults.append(
                Diagnostic(
                    code: .truncated, offset: first.start, path: "meta/iloc",
                    message:
                        "\(outside.count) of \(count) items have data past the end of the file (\(size) bytes); the first, item \(first.itemID) (\(first.itemType)), has an extent of \(first.length) bytes at offset \(first.start): the file is truncated"
                ))
        }
        return faults
    }

    /// HEVC-coded HEIF items (`hvc1`) whose data is not a whole sequence of NAL units: each unit's length prefix (of
    /// the size the item's `hvcC` states) must fit in the bytes that follow it, and the units must end exactly at the
    /// end of the item's data (ISO/IEC 14496-15 §8.3.3 and ISO/IEC 23008-12 §B.2.1: an item's data is length-prefixed
    /// NAL units, as a sample's). One fault, naming the first such item. Items whose data cannot be read at all (past
    /// the end of the file) are reported by ``dataOutsideFile(limits:)`` instead.
    public func codedItemFaults(limits: Limits = .default) -> [Diagnostic] {
        guard let heif else { return [] }
        var damaged: [(item: UInt32, why: String)] = []
        for item in heif.items where item.type == "hvc1" {
            let config = heif.properties(of: item.id).lazy.compactMap { $0.box.payload(HEVCConfigurationBox.self) }
                .first
            guard let record = config?.record, record.count >= 23,
                let data = try? heif.data(of: item.id, file: self, limits: limits)
            else { continue }
            let size = Int(record[21] & 3) + 1
            if let why = Self.nalFramingFault(data, lengthSize: size) { damaged.append((item.id, why)) }
        }
        guard let first = damaged.first else { return [] }
        let offset = heif.meta.child("iloc")?.header.offset ?? 0
        return [
            Diagnostic(
                code: .truncated, offset: offset, path: "meta/iloc",
                message:
                    "\(damaged.count) of \(heif.items.count) items hold coded data that is cut short or damaged; the first, item \(first.item) (hvc1), \(first.why): the file is damaged"
            )
        ]
    }

    /// Why `data` is not a whole sequence of NAL units with `lengthSize`-byte big-endian length prefixes, or nil.
    static func nalFramingFault(_ data: [UInt8], lengthSize: Int) -> String? {
        if data.isEmpty { return "holds no data" }
        var at = 0
        while at < data.count {
            guard data.count - at >= lengthSize else {
                return "ends \(data.count - at) byte(s) into a \(lengthSize)-byte NAL length at item byte \(at)"
            }
            var length = 0
            for k in 0..<lengthSize { length = length << 8 | Int(data[at + k]) }
            at += lengthSize
            guard length > 0 else { return "has a NAL unit of length 0 at item byte \(at - lengthSize)" }
            guard length <= data.count - at else {
                return
                    "has a NAL unit of \(length) bytes at item byte \(at - lengthSize) with \(data.count - at) bytes left"
            }
            at += length
        }
        return nil
    }

    /// Structural damage that makes the file unsafe to rewrite: ``truncationDiagnostics``, ``dataOutsideFile(limits:)``
    /// and ``codedItemFaults(limits:)``. Empty for an intact file.
    public func integrityFaults(limits: Limits = .default) -> [Diagnostic] {
        truncationDiagnostics + dataOutsideFile(limits: limits) + codedItemFaults(limits: limits)
    }

    /// Throws the first of ``integrityFaults(limits:)`` as a ``/BinaryIO/ParseError`` (its code, offset and box
    /// path), saying that nothing was written: every writer calls this on its input before writing anything, so a
    /// cut-short input is refused rather than edited, rewritten or converted.
    public func requireIntact(limits: Limits = .default, operation: String = "write") throws(ParseError) {
        let faults = integrityFaults(limits: limits)
        guard let first = faults.first else { return }
        let path = first.path.isEmpty ? "(top level)" : first.path
        let more = faults.count > 1 ? " (and \(faults.count - 1) more fault\(faults.count > 2 ? "s" : ""))" : ""
        throw ParseError(
            first.code, offset: first.offset, path: path,
            "the input is damaged or truncated at \(path), offset \(first.offset): \(first.message)\(more); refusing to \(operation) it (nothing written)"
        )
    }
}
