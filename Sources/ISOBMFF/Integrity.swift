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

extension ISOFile {
    /// Parser findings that mean the file is cut short or its box sizes do not fit: a box running past its parent or
    /// the end of the file, a box smaller than its header, a structure that ended early. Other diagnostics (trailing
    /// bytes, a payload kept raw) leave the file usable and are not listed.
    public var truncationDiagnostics: [Diagnostic] {
        allDiagnostics.filter { [.truncated, .sizePastParent, .sizeTooSmall, .sizeZeroNotTopLevel].contains($0.code) }
    }

    /// HEIF items whose data lies (partly) past the end of the file, in item order; at most one entry per item (its
    /// first such extent). Items stored in `idat` (construction method 1) are checked by ``HEIFMeta/data(of:file:limits:)``.
    public var itemExtentsOutsideFile: [ItemExtentOutsideFile] {
        guard let heif, let iloc = heif.location else { return [] }
        let size = source.size
        var out: [ItemExtentOutsideFile] = []
        for item in heif.items {
            guard let loc = iloc.item(item.id), loc.constructionMethod == 0 else { continue }
            for e in loc.extents {
                let (start, overflow) = loc.baseOffset.addingReportingOverflow(e.offset)
                if overflow || start > size || e.length > size - start {
                    out.append(ItemExtentOutsideFile(itemID: item.id, itemType: item.type, start: start, length: e.length))
                    break
                }
            }
        }
        return out
    }

    /// Throws when the file is truncated or damaged in a way that loses data: the first of
    /// ``truncationDiagnostics`` (its code, offset and box path), else the first HEIF item with data past the end of
    /// the file (``itemExtentsOutsideFile``: code `truncated`, the extent's offset, path `meta/iloc`). Every command
    /// that writes from an image file calls it before writing, so a cut-short input is refused rather than edited,
    /// rewritten or converted. Movies' sample data is checked by the movie code.
    public func requireIntact() throws(ParseError) {
        if let d = truncationDiagnostics.first {
            let path = d.path.isEmpty ? "(top level)" : d.path
            throw ParseError(d.code, offset: d.offset, path: path, "the file is truncated or damaged at \(path), offset \(d.offset): \(d.message)")
        }
        let outside = itemExtentsOutsideFile
        if let first = outside.first, let count = heif?.items.count {
            throw ParseError(.truncated, offset: first.start, path: "meta/iloc",
                             "the file is truncated: \(outside.count) of \(count) items have data past the end of the file (\(source.size) bytes); the first, item \(first.itemID) (\(first.itemType)), has an extent of \(first.length) bytes at offset \(first.start) (meta/iloc)")
        }
    }
}
