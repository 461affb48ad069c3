import BinaryIO
import HEVC
import ISOBMFF
import SystemSupport

/// Everything `spatial-media info` says about one file, built in the library so the CLI and the C ABI
/// print the same thing: the container summary, the HEVC / MV-HEVC stream of each HEVC video track (from its
/// configuration records and its first few samples), spatial-video metadata and spatial-photo metadata.
/// Raw Annex-B HEVC streams (`.hevc`, `.265`) are described too.
public struct MediaInfo: Sendable {
    public var lines: [String]
    public var json: JSON
    /// True when diagnostics were found (the CLI exits with 1).
    public var hasProblems: Bool
    /// True when the file is damaged or truncated (``/ISOBMFF/ISOFile/integrityFaults(limits:)``: what every writer
    /// refuses): the CLI exits with 2, as its exit-code table says for a damaged or truncated input.
    public var isDamaged = false

    public init(lines: [String], json: JSON, hasProblems: Bool, isDamaged: Bool = false) {
        self.lines = lines; self.json = json; self.hasProblems = hasProblems; self.isDamaged = isDamaged
    }

    /// At most this many samples (and bytes) of a track are read to analyse its slices.
    public static let samplesToAnalyse = 3
    public static let bytesToAnalyse = 4 << 20

    /// Inspects the file at `path`.
    package static func inspect(path: String, limits: Limits = .default) throws(ParseError) -> MediaInfo {
        let source = try FileSource(path: path)
        if source.size == 0 { throw ParseError(.truncated, path: path, "empty file") }
        let head = try source.read(at: 0, count: 4)
        if head.starts(with: [0, 0, 1]) || head.starts(with: [0, 0, 0, 1]) {
            return try annexB(source: source, limits: limits)
        }
        let file = try ISOFile.parse(source: source, limits: limits)
        return describe(file)
    }

    /// Describes a parsed ISOBMFF file.
    public static func describe(_ file: ISOFile) -> MediaInfo {
        let summary = ContainerSummary(file)
        var lines = summary.lines
        var fields: [(String, JSON)] = []
        if case .object(let f) = summary.json { fields = f }
        var problems = !summary.diagnostics.isEmpty
        var streams: [JSON] = []
        for track in file.tracks {
            guard let entry = track.sampleEntries.first, entry.type == "hvc1" || entry.type == "hev1",
                let hvcC = entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record
            else { continue }
            let lhvC = entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record
            var samples: [[UInt8]] = []
            var budget = bytesToAnalyse
            if let list = try? track.samples(first: samplesToAnalyse) {
                for s in list.prefix(samplesToAnalyse) where Int(s.size) <= budget {
                    guard let b = try? file.readBytes(at: s.offset, count: Int(s.size)) else { break }
                    budget -= b.count
                    samples.append(b)
                }
            }
            do {
                var sampleNote: String? = nil
                let info: HEVCStreamInfo
                do { info = try HEVCStreamInfo(hvcC: hvcC, lhvC: lhvC, samples: samples) } catch {
                    // Damaged or absent sample data: describe the configuration records alone and say why.
                    info = try HEVCStreamInfo(hvcC: hvcC, lhvC: lhvC, samples: [])
                    sampleNote = "samples not analysed: \(error.message)"
                    samples = []
                    problems = true
                }
                lines.append(
                    "track \(track.trackID) HEVC stream (from hvcC\(lhvC == nil ? "" : "+lhvC") and the first \(samples.count) samples):"
                )
                if let sampleNote { lines.append("  " + sampleNote) }
                lines += info.descriptionLines().map { "  " + $0 }
                var o: [(String, JSON)] = [("track_id", .uint(UInt64(track.trackID)))]
                if case .object(let s) = streamJSON(info) { o += s }
                streams.append(.object(o))
            } catch {
                problems = true
                lines.append("track \(track.trackID): HEVC configuration cannot be read: \(error)")
                streams.append(
                    .object([("track_id", .uint(UInt64(track.trackID))), ("error", .string(error.description))]))
            }
        }
        if !streams.isEmpty { fields.append(("hevc", .array(streams))) }
        if let video = SpatialVideoReport.infoSection(file) {
            lines += video.lines
            fields.append(("spatial_video", video.json))
        }
        if let h = file.heif, !h.items.isEmpty {
            var inventory = HEIFImageInventory(h)
            inventory.readToneMaps(h, file: file)
            lines += inventory.lines
            fields.append(("heif_images", inventory.json))
        }
        if let photo = SpatialPhotoReader.infoSection(file) {
            lines += photo.lines
            fields.append(("spatial_photo", photo.json))
        }
        let faults = file.integrityFaults()
        let damaged = !faults.isEmpty
        if let first = faults.first {
            let where_ = first.path.isEmpty ? "(top level)" : first.path
            let more = faults.count > 1 ? " (and \(faults.count - 1) more)" : ""
            lines.append("damaged or truncated at \(where_), offset \(first.offset): \(first.message)\(more)")
            fields.append(("damaged", .string(first.message)))
        }
        return MediaInfo(lines: lines, json: .object(fields), hasProblems: problems || damaged, isDamaged: damaged)
    }

    /// Describes a raw Annex-B HEVC stream, read piece by piece.
    public static func annexB(source: any ByteSource, limits: Limits = .default) throws(ParseError) -> MediaInfo {
        let info = try HEVCStreamInfo(scanning: source, limits: limits)
        var lines = ["raw HEVC Annex-B stream, \(source.size) bytes"]
        lines += info.descriptionLines()
        var fields: [(String, JSON)] = [("file_size", .uint(source.size)), ("format", .string("hevc-annexb"))]
        if case .object(let s) = streamJSON(info) { fields += s }
        return MediaInfo(lines: lines, json: .object(fields), hasProblems: !info.errors.isEmpty)
    }

    /// A layer's colour description as H.273 code points, with names, range and where it is stated; null when the
    /// layer states none.
    static func colourJSON(_ l: HEVCStreamInfo.Layer) -> JSON {
        guard let c = l.colourDescription else { return .null }
        func opt(_ v: String?) -> JSON { v.map { .string($0) } ?? .null }
        return .object([
            ("colour_primaries", .int(Int64(c.primaries))),
            ("transfer_characteristics", .int(Int64(c.transfer))),
            ("matrix_coefficients", .int(Int64(c.matrix))), ("full_range", .bool(c.fullRange)),
            ("description", .string(c.text)), ("stated_in", opt(l.colourSource)),
        ])
    }

    /// HEVC stream facts as JSON.
    public static func streamJSON(_ i: HEVCStreamInfo) -> JSON {
        func opt(_ v: Int?) -> JSON { v.map { .int(Int64($0)) } ?? .null }
        func opt(_ v: String?) -> JSON { v.map { .string($0) } ?? .null }
        var o: [(String, JSON)] = [
            ("profile", opt(i.profileName)), ("profile_idc", opt(i.profileIdc)), ("tier", opt(i.tier)),
            ("level", i.level.map { .double($0) } ?? .null), ("width", opt(i.width)), ("height", opt(i.height)),
            ("bit_depth_luma", opt(i.bitDepthLuma)), ("bit_depth_chroma", opt(i.bitDepthChroma)),
            ("chroma_format", opt(i.chromaFormat)),
            ("layer_count", .int(Int64(i.layerCount))), ("multiview", .bool(i.isMultiview)),
            ("left_view_id", opt(i.leftViewId)), ("right_view_id", opt(i.rightViewId)),
            ("left_layer_id", opt(i.leftLayerId)), ("right_layer_id", opt(i.rightLayerId)),
            ("access_units_analysed", .int(Int64(i.accessUnitCount))),
        ]
        o.append(
            (
                "layers",
                .array(
                    i.layers.map { l in
                        .object([
                            ("layer_id", .int(Int64(l.layerId))), ("view_id", opt(l.viewId)),
                            ("profile", opt(l.profileName)), ("profile_idc", opt(l.profileIdc)),
                            ("width", opt(l.width)), ("height", opt(l.height)),
                            ("direct_reference_layers", .array(l.directReferenceLayers.map { .int(Int64($0)) })),
                            ("uses_inter_layer_prediction", l.usesInterLayerPrediction.map { .bool($0) } ?? .null),
                            ("inter_layer_signalling", opt(l.interLayerSignalling)),
                            ("pictures", .int(Int64(l.pictureCount))),
                            ("bit_depth_luma", opt(l.bitDepthLuma)), ("bit_depth_chroma", opt(l.bitDepthChroma)),
                            ("chroma_format", opt(l.chromaFormat)), ("colour", colourJSON(l)),
                        ])
                    })
            ))
        if !i.errors.isEmpty { o.append(("errors", .array(i.errors.map { .string($0) }))) }
        return .object(o)
    }
}

/// `dump --nal`: access units and NAL units of a raw stream or of every HEVC track of a movie.
public enum NALListing {
    public static func lines(path: String, limits: Limits = .default) throws(ParseError) -> [String] {
        let source = try FileSource(path: path)
        let head = try source.read(at: 0, count: 4)
        if head.starts(with: [0, 0, 1]) || head.starts(with: [0, 0, 0, 1]) {
            return try HEVCDump.nalLines(scanning: source, limits: limits)
        }
        let file = try ISOFile.parse(source: source, limits: limits)
        var out: [String] = []
        for track in file.tracks {
            guard let entry = track.sampleEntries.first, entry.type == "hvc1" || entry.type == "hev1",
                let hvcC = entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record
            else { continue }
            let h = try HEVCDecoderConfigurationRecord(parsing: hvcC)
            var header = h.nalUnits()
            if let l = entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record {
                header += try LHEVCDecoderConfigurationRecord(parsing: l).nalUnits()
            }
            var aus: [[NALUnit]] = [header]
            for s in try track.samples(limits: limits) {
                let b = try file.readBytes(at: s.offset, count: Int(s.size))
                aus.append(try LengthPrefixed.split(b, lengthSize: h.lengthSize))
            }
            out.append(
                "track \(track.trackID) (\(entry.type)); access unit 0 holds the configuration records' parameter sets")
            out += HEVCDump.nalLines(StreamAnalysis(accessUnits: aus))
        }
        if out.isEmpty { throw ParseError(.unsupported, path: path, "no HEVC track and not a raw HEVC stream") }
        return out
    }
}
