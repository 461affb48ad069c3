import BinaryIO
import SystemSupport

/// Human and JSON renderings of a box tree (used by `spatial-media dump`).
public enum BoxDump {
    /// One line per box: indentation, type, offset, size, header form, key fields.
    public static func lines(_ file: ISOFile, maxDepth: Int = .max) -> [String] {
        var out: [String] = []
        for b in file.boxes { append(b, depth: 0, maxDepth: maxDepth, into: &out) }
        switch file.tail {
        case .raw(let bytes): out.append("(\(bytes.count) trailing bytes not forming a box)")
        case .fileRange(let o, let l): out.append("(\(l) trailing bytes at \(o) not forming a box)")
        default: break
        }
        for d in file.diagnostics { out.append("! \(d)") }
        return out
    }

    static func label(_ b: Box) -> String {
        var s = b.type.description
        if let u = b.header.userTypeString { s += "{\(u)}" }
        return s
    }

    static func append(_ b: Box, depth: Int, maxDepth: Int, into out: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        var line = "\(indent)\(label(b)) @\(b.header.offset) size=\(b.header.size)"
        if b.header.form != .compact {
            line += " (\(b.header.form == .large ? "largesize" : "size 0: to end of file"))"
        }
        switch b.fields {
        case .typed(let p): let s = p.summary; if !s.isEmpty { line += "  " + s }
        case .raw(let bytes):
            if b.malformed == nil && b.children == nil && !bytes.isEmpty { line += "  [\(bytes.count) bytes]" }
        case .fileRange(_, let l): line += "  [\(l) bytes in file]"
        case .none: break
        }
        out.append(line)
        if let m = b.malformed { out.append("\(indent)  ! \(m.code) at \(m.offset): \(m.message)") }
        for d in b.diagnostics { out.append("\(indent)  ! \(d.code) at \(d.offset): \(d.message)") }
        if depth + 1 < maxDepth {
            for c in b.children ?? [] { append(c, depth: depth + 1, maxDepth: maxDepth, into: &out) }
        }
        if !b.trailing.isEmpty { out.append("\(indent)  (\(b.trailing.count) trailing bytes)") }
    }

    /// The tree as JSON.
    public static func json(_ file: ISOFile, maxDepth: Int = .max) -> JSON {
        var fields: [(String, JSON)] = [("boxes", .array(file.boxes.map { json($0, depth: 0, maxDepth: maxDepth) }))]
        if !file.diagnostics.isEmpty { fields.append(("diagnostics", .array(file.diagnostics.map(json)))) }
        return .object(fields)
    }

    public static func json(_ d: Diagnostic) -> JSON {
        .object([
            ("code", .string(d.code.rawValue)), ("offset", .uint(d.offset)), ("path", .string(d.path)),
            ("message", .string(d.message)),
        ])
    }

    static func json(_ b: Box, depth: Int, maxDepth: Int) -> JSON {
        var f: [(String, JSON)] = [
            ("type", .string(b.type.description)), ("offset", .uint(b.header.offset)), ("size", .uint(b.header.size)),
            ("header", .string(b.header.form.rawValue)),
        ]
        if let u = b.header.userTypeString { f.append(("uuid", .string(u))) }
        switch b.fields {
        case .typed(let p): let j = p.json; if !j.isEmpty { f.append(("fields", .object(j))) }
        case .raw(let bytes): f.append(("raw_bytes", .uint(UInt64(bytes.count))))
        case .fileRange(_, let l): f.append(("data_bytes", .uint(l)))
        case .none: break
        }
        if let m = b.malformed { f.append(("malformed", json(m))) }
        if !b.diagnostics.isEmpty { f.append(("diagnostics", .array(b.diagnostics.map(json)))) }
        if let c = b.children, depth + 1 < maxDepth {
            f.append(("children", .array(c.map { json($0, depth: depth + 1, maxDepth: maxDepth) })))
        }
        if !b.trailing.isEmpty { f.append(("trailing_bytes", .uint(UInt64(b.trailing.count)))) }
        return .object(f)
    }
}

/// What a file is, at the container level: brands, tracks, items, groups.
public struct ContainerSummary: Sendable {
    public struct TrackSummary: Sendable {
        public var id: UInt32
        public var handler: String
        public var codec: String
        public var width: Int
        public var height: Int
        public var durationSeconds: Double
        public var sampleCount: Int
        public var timescale: UInt32
        public var channels: Int
        public var sampleRate: Double
        /// With an edit list: what players present (duration, samples); nil without one.
        public var presentedSeconds: Double? = nil
        public var presentedSamples: Int? = nil
    }
    public struct ItemSummary: Sendable {
        public var id: UInt32
        public var type: String
        public var bytes: UInt64
        public var primary: Bool
        public var hidden: Bool
        public var width: UInt32?
        public var height: UInt32?
    }
    public var fileSize: UInt64
    public var majorBrand: String?
    public var compatibleBrands: [String]
    public var fragmented: Bool
    public var durationSeconds: Double?
    public var tracks: [TrackSummary]
    public var items: [ItemSummary]
    public var groups: [HEIFMeta.Group]
    public var diagnostics: [Diagnostic]

    public init(_ file: ISOFile) {
        fileSize = file.source.size
        let ftyp = file.box("ftyp")?.payload(FileTypeBox.self)
        majorBrand = ftyp?.majorBrand.description
        compatibleBrands = ftyp?.compatibleBrands.map(\.description) ?? []
        fragmented = file.isFragmented
        durationSeconds = file.find("moov", "mvhd")?.payload(MovieHeaderBox.self)?.durationSeconds
        let movieTimescale = file.find("moov", "mvhd")?.payload(MovieHeaderBox.self)?.timescale ?? 0
        tracks = file.tracks.map { t in
            let entry = t.sampleEntries.first
            let se = entry?.payload(SampleEntry.self)
            let shown = t.presented(movieTimescale: movieTimescale)
            return TrackSummary(
                id: t.trackID, handler: t.handler?.description ?? "", codec: entry?.type.description ?? "",
                width: Int(se?.width ?? 0), height: Int(se?.height ?? 0), durationSeconds: t.durationSeconds,
                sampleCount: t.sampleCount, timescale: t.timescale, channels: Int(se?.channelCount ?? 0),
                sampleRate: se?.sampleRate ?? 0,
                presentedSeconds: shown?.seconds, presentedSamples: shown?.samples)
        }
        if let h = file.heif {
            let primary = h.primaryItemID
            let iloc = h.location
            items = h.items.map { it in
                let size = h.size(of: it.id)
                let bytes = iloc?.item(it.id)?.extents.reduce(UInt64(0)) { $0 &+ $1.length } ?? 0
                return ItemSummary(
                    id: it.id, type: it.type.description, bytes: bytes, primary: it.id == primary, hidden: it.hidden,
                    width: size?.width, height: size?.height)
            }
            groups = h.groups
        } else {
            items = []
            groups = []
        }
        diagnostics = file.allDiagnostics
    }

    public var json: JSON {
        var f: [(String, JSON)] = [("file_size", .uint(fileSize))]
        if let m = majorBrand { f.append(("major_brand", .string(m))) }
        f.append(("compatible_brands", .array(compatibleBrands.map { .string($0) })))
        if !tracks.isEmpty || durationSeconds != nil {
            f.append(("fragmented", .bool(fragmented)))
            if let d = durationSeconds { f.append(("duration_seconds", .double(d))) }
        }
        f.append(
            (
                "tracks",
                .array(
                    tracks.map { t in
                        var o: [(String, JSON)] = [
                            ("id", .uint(UInt64(t.id))), ("handler", .string(t.handler)), ("codec", .string(t.codec)),
                        ]
                        if t.width > 0 {
                            o += [("width", .uint(UInt64(t.width))), ("height", .uint(UInt64(t.height)))]
                        }
                        if t.channels > 0 {
                            o += [("channels", .uint(UInt64(t.channels))), ("sample_rate", .double(t.sampleRate))]
                        }
                        o += [
                            ("duration_seconds", .double(t.durationSeconds)),
                            ("sample_count", .uint(UInt64(t.sampleCount))), ("timescale", .uint(UInt64(t.timescale))),
                        ]
                        if let p = t.presentedSeconds, let n = t.presentedSamples {
                            o += [("presented_duration_seconds", .double(p)), ("presented_samples", .uint(UInt64(n)))]
                        }
                        return .object(o)
                    })
            ))
        if !items.isEmpty {
            f.append(
                (
                    "items",
                    .array(
                        items.map { i in
                            var o: [(String, JSON)] = [
                                ("id", .uint(UInt64(i.id))), ("type", .string(i.type)), ("bytes", .uint(i.bytes)),
                                ("primary", .bool(i.primary)), ("hidden", .bool(i.hidden)),
                            ]
                            if let w = i.width, let h = i.height {
                                o += [("width", .uint(UInt64(w))), ("height", .uint(UInt64(h)))]
                            }
                            return .object(o)
                        })
                ))
            f.append(
                (
                    "entity_groups",
                    .array(
                        groups.map {
                            .object([
                                ("type", .string($0.type.description)), ("id", .uint(UInt64($0.id))),
                                ("entities", .array($0.entityIDs.map { .uint(UInt64($0)) })),
                            ])
                        })
                ))
        }
        f.append(("diagnostics", .array(diagnostics.map(BoxDump.json))))
        return .object(f)
    }

    public var lines: [String] {
        var out: [String] = []
        out.append(
            "brands: \(majorBrand ?? "(no ftyp)")"
                + (compatibleBrands.isEmpty ? "" : " [\(compatibleBrands.joined(separator: ", "))]")
                + ", \(fileSize) bytes")
        if let d = durationSeconds { out.append("movie: \(fmt(d)) s" + (fragmented ? ", fragmented" : "")) }
        for t in tracks {
            var s = "track \(t.id): \(t.handler) \(t.codec)"
            if t.width > 0 { s += " \(t.width)x\(t.height)" }
            if t.channels > 0 { s += " \(t.channels) ch \(fmt(t.sampleRate, 0)) Hz" }
            s += ", \(fmt(t.durationSeconds)) s, \(t.sampleCount) samples"
            if let p = t.presentedSeconds, let n = t.presentedSamples,
                n != t.sampleCount || abs(p - t.durationSeconds) > 0.0005
            {
                s += "; presented (edit list): \(fmt(p)) s, \(n) \(t.handler == "vide" ? "frames" : "samples")"
            }
            out.append(s)
        }
        if !items.isEmpty {
            let shown = items.filter { !$0.hidden }
            out.append("items: \(items.count) (\(items.count - shown.count) hidden)")
            for i in shown {
                var s = "  item \(i.id): \(i.type)"
                if let w = i.width, let h = i.height { s += " \(w)x\(h)" }
                s += ", \(i.bytes) bytes" + (i.primary ? ", primary" : "")
                out.append(s)
            }
            for g in groups {
                out.append("group \(g.type) \(g.id): entities \(g.entityIDs.map(String.init).joined(separator: ", "))")
            }
        }
        for d in diagnostics { out.append("! \(d)") }
        return out
    }
}
