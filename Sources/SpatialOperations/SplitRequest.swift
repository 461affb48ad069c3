import BinaryIO
import MediaDecode
import SpatialConvert
import SpatialMedia
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A stereo photo or video split into its eyes (one file per eye) or one side-by-side / over-under file: a spatial
/// photo or video, an MPO, a side-by-side / top-bottom image, or a frame-packed movie (flat or a VR180/360 sphere).
public struct SplitRequest: Sendable, Equatable, OptionTableRequest {
    public var input: String
    public var left: String?
    public var right: String?
    public var sbs: String?
    public var ou: String?
    public var half = false
    public var copy = false
    public var crf: Double?
    public var preset: X265Preset?
    public var noAudio = false
    public var quality: Int?
    /// How a single picture holds the eyes: `sbs`, `tb` or `auto` (photos: by shape; movies: from their metadata).
    public var layout: StereoLayout?
    /// Photos: a directory for each eye's auxiliary images (gain map, depth …), as `.heic` (bytes unchanged) and
    /// `.png`.
    public var aux: String?

    public init(input: String) { self.input = input }

    /// The request of the C ABI and Python: the outputs and options by the keys of ``table`` (`left_output`,
    /// `right_output`, `sbs_output`, `ou_output`, `half`, `copy`, `crf`, `preset`, `no_audio`, `quality`, `layout`,
    /// `aux_dir`); unknown keys, a key given twice, wrong types and choices not allowed refused. Ranges and
    /// combinations are the run's.
    public init(input: String, values: [(String, RequestValue)]) throws(ParseError) {
        self.init(input: input)
        try RequestValues.fill(values, into: &self, options: Self.options, job: "split")
    }

    /// The name table (key ↔ flag ↔ Python keyword, default, allowed values, range), from its `options` rows.
    public static var table: [OptionSpec] { options.map(\.spec) }

    /// One row per option: its names, type, default and range, the property that holds it and how an untyped value
    /// is read into it.
    static var options: [RequestOption<SplitRequest>] {
        let video = VideoSplitOptions(target: .eyes(left: nil, right: nil))
        return [
            .value(OptionSpec("left_output", flag: "--left", .path, .both), \.left, RequestValues.path),
            .value(OptionSpec("right_output", flag: "--right", .path, .both), \.right, RequestValues.path),
            .value(OptionSpec("sbs_output", flag: "--sbs", .path, .both), \.sbs, RequestValues.path),
            .value(OptionSpec("ou_output", flag: "--ou", .path, .both), \.ou, RequestValues.path),
            .toggle(OptionSpec("half", flag: "--half", .bool, .video, default: "false"), \.half),
            .toggle(OptionSpec("copy", flag: "--copy", .bool, .video, default: "false"), \.copy),
            .value(
                OptionSpec(
                    "crf", flag: "--crf", .number, .video, default: ConvertRequest.fmtNum(VideoSplitOptions.defaultCRF),
                    range: 0...51), \.crf, RequestValues.number),
            .choice(OptionSpec("preset", flag: "--preset", .text, .video, default: video.preset), \.preset),
            .toggle(OptionSpec("no_audio", flag: "--no-audio", .bool, .video, default: "false"), \.noAudio),
            .value(
                OptionSpec(
                    "quality", flag: "--quality", .integer, .photo,
                    default: "95 (JPEG), \(PhotoEncoding.defaultQuality) (HEIC)", range: 0...100), \.quality,
                RequestValues.integer),
            .choice(
                OptionSpec(
                    "layout", flag: "--layout", .text, .both,
                    default:
                        "auto (photos: sbs when at least as wide as tall; movies: as their st3d, vexu/pack or Google XML say)"
                ), \.layout),
            .value(OptionSpec("aux_dir", flag: "--aux", .path, .photo), \.aux, RequestValues.path),
        ]
    }

    /// The outputs given, with their table keys.
    public var outputs: [(key: String, path: String)] {
        [("left_output", left), ("right_output", right), ("sbs_output", sbs), ("ou_output", ou)].compactMap { o in
            o.1.map { (o.0, $0) }
        }
    }
}

extension Operations {
    /// Plans and runs a split: the outputs given, one target, every output different from the input and from each
    /// other and named for what is written (photo eyes `.png`/`.jpg`/`.heic`; video `.mp4`/`.mov`/`.mkv`, or `.hevc`
    /// with `copy`), options of the other kind refused; each output written to a scratch file with its extension,
    /// read back, then kept.
    @discardableResult
    public static func split(
        _ r: SplitRequest, spelling: OptionSpelling, events: OperationEvents = OperationEvents(),
        cancellation: ConversionCancellation? = nil
    ) throws(ParseError) -> OperationReport {
        func name(_ k: String) -> String { SplitRequest.table.first { $0.key == k }?.name(spelling) ?? k }
        func refuse(_ m: String) -> ParseError { ParseError(.invalidArgument, m) }
        func refuseOption(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        let outs = r.outputs
        if outs.isEmpty && r.aux == nil {
            throw refuse(
                "give \(name("left_output"))/\(name("right_output")), \(name("sbs_output")) or \(name("ou_output"))")
        }
        if [r.sbs != nil, r.ou != nil, r.left != nil || r.right != nil].filter({ $0 }).count > 1 {
            throw refuse(
                "give one of \(name("sbs_output")), \(name("ou_output")), or \(name("left_output"))/\(name("right_output"))"
            )
        }
        if let c = r.crf { try SplitRequest.row("crf").checkRange(c, spelling) }
        if let q = r.quality { try SplitRequest.row("quality").checkRange(q, spelling) }
        if r.copy && (r.crf != nil || r.preset != nil) {
            throw refuseOption("\(name("copy")) does not re-encode: leave out \(name("crf")) and \(name("preset"))")
        }
        try OutputPaths.check(
            outputs: outs.map { (role: name($0.key) + " output", path: $0.path) },
            inputs: [(role: "input", path: r.input)])
        let kind = FileProbe.kind(of: r.input)
        let video =
            kind == .movie || kind == .matroska || kind == .annexB || (kind == .other && VideoInputs.isVideo(r.input))
        if !video && ![.jpeg, .png, .heif].contains(kind) {
            // Nothing this job reads: an unreadable input (exit 2), not a misused option.
            var st = stat()
            if stat(r.input, &st) != 0 {
                throw ParseError(.io, path: r.input, "cannot open: \(String(cString: strerror(errno)))")
            }
            throw ParseError(
                .unsupported, path: r.input,
                "not a stereo photo or video this job reads (a spatial photo or other HEIC, an MPO, a side-by-side / top-bottom JPEG or PNG, an MP4/MOV or Matroska movie, a raw MV-HEVC stream)"
            )
        }
        // A raw .hevc output can only hold coded pictures copied: a video split to one is a copy, asked for or not.
        let streams = outs.filter { ["hevc", "265", "h265"].contains(OutputKind.fileExtension($0.path)) }
        var r = r
        if video, !r.copy, let stream = streams.first {
            if r.crf != nil || r.preset != nil {
                throw refuseOption(
                    "\(stream.path) is a raw HEVC stream, a copy of the coded pictures without re-encoding: leave out \(name("crf")) and \(name("preset")), or name the output .mp4, .mov or .mkv"
                )
            }
            r.copy = true
        }
        let layout = r.layout
        if let dir = r.aux {
            if video || kind != .heif {
                throw refuseOption(
                    "\(r.input): \(name("aux_dir")) applies to HEIF photos (auxiliary images of a spatial photo's eyes)"
                )
            }
            guard mkdir(dir, 0o755) == 0 || errno == EEXIST, isDirectory(dir) else {
                throw ParseError(.io, path: dir, "\(name("aux_dir")): cannot create or use the directory \(dir)")
            }
        }
        if video {
            if r.quality != nil {
                throw refuseOption("\(r.input): \(name("quality")) applies to photos; for videos use \(name("crf"))")
            }
            for o in outs { try OutputKind.check(o.path, r.copy ? .hevcStream : .video) }
        } else {
            let videoOnly = [
                r.half ? "half" : nil, r.copy ? "copy" : nil, r.crf != nil ? "crf" : nil,
                r.preset != nil ? "preset" : nil, r.noAudio ? "no_audio" : nil,
            ].compactMap { $0 }.map(name)
            if !videoOnly.isEmpty {
                throw refuseOption(
                    "\(r.input): \(videoOnly.joined(separator: ", ")) apply to videos only; this is a photo")
            }
            for o in outs { try OutputKind.check(o.path, .image) }
        }
        var scratches: [String: String] = [:]
        do throws(ParseError) {
            for o in outs { scratches[o.path] = try scratchPath(keepingExtensionOf: o.path) }
            func s(_ p: String?) -> String? { p.flatMap { scratches[$0] } }
            var report: OperationReport
            if kind == .annexB {
                report = try splitRawStream(r, scratch: s)
            } else if video {
                report = try splitVideo(r, layout: layout, scratch: s, events: events, cancellation: cancellation)
            } else if kind == .heif && r.ou == nil && (layout == nil || StereoImageSplitter.isSpatialPhoto(r.input)) {
                // A spatial photo (its eyes copied as .heic, keeping their auxiliary images); a HEIF that is not one is
                // refused unless the layout of a frame-packed picture is given.
                var notes = try PhotoSplitter.split(
                    r.input, left: s(r.left), right: s(r.right), sbs: s(r.sbs), aux: r.aux, quality: r.quality)
                notes = notes.map { note in
                    outs.reduce(note) { n, o in s(o.path).map { n.replacing($0, with: o.path) } ?? n }
                }
                report = OperationReport(
                    job: "split", route: "photo", outputs: outs.map(\.path),
                    headline: "\(r.input): split into \(outs.count) file\(outs.count == 1 ? "" : "s")",
                    lines: outs.map { "wrote \($0.path)" } + notes,
                    fields: [("input", .string(r.input))] + outs.map { ($0.key, .string($0.path)) } + [
                        ("auxiliary", .array(notes.map { .string($0) }))
                    ],
                    warnings: [], check: OutputCheckResult(file: outs.first?.path ?? r.aux ?? ""))
            } else {
                report = try splitStereoImage(r, layout: layout ?? .auto, outputs: outs, scratch: s)
            }
            try stopIfCancelled(cancellation)
            try finishAll(&report, scratches: outs.map { (scratches[$0.path] ?? "", $0.path) }, inputs: [r.input])
            return report
        } catch {
            for p in scratches.values { discard(p) }
            throw error
        }
    }

    /// An MPO or a side-by-side / top-bottom picture (``/SpatialConvert/StereoImageSplitter``).
    static func splitStereoImage(
        _ r: SplitRequest, layout: StereoLayout, outputs outs: [(key: String, path: String)],
        scratch s: (String?) -> String?
    ) throws(ParseError) -> OperationReport {
        var i = try StereoImageSplitter.split(
            r.input, left: s(r.left), right: s(r.right), sbs: s(r.sbs), ou: s(r.ou), layout: layout, quality: r.quality)
        i.methods = i.methods.map { m in outs.reduce(m) { n, o in s(o.path).map { n.replacing($0, with: o.path) } ?? n }
        }
        return OperationReport(
            job: "split", route: "photo", outputs: outs.map(\.path),
            headline: "\(r.input): \(i.source) split into \(outs.count) file\(outs.count == 1 ? "" : "s")",
            lines: i.methods + i.notes + outs.map { "wrote \($0.path)" },
            fields: [("input", .string(r.input)), ("source", .string(i.source))]
                + outs.map { ($0.key, .string($0.path)) }
                + [
                    ("lossless", .bool(i.lossless)), ("methods", .array(i.methods.map { .string($0) })),
                    ("notes", .array(i.notes.map { .string($0) })),
                ],
            warnings: [], check: OutputCheckResult(file: outs[0].path))
    }

    static func splitVideo(
        _ r: SplitRequest, layout: StereoLayout?, scratch s: (String?) -> String?, events: OperationEvents,
        cancellation: ConversionCancellation?
    ) throws(ParseError) -> OperationReport {
        let target: VideoSplitTarget =
            s(r.sbs).map { .sideBySide($0) } ?? s(r.ou).map { .overUnder($0) }
            ?? .eyes(left: s(r.left), right: s(r.right))
        var o = VideoSplitOptions(target: target)
        o.half = r.half
        o.copy = r.copy
        if let c = r.crf { o.crf = c }
        if let p = r.preset { o.preset = p.rawValue }
        o.audio = !r.noAudio
        o.layout = layout
        var v = try VideoSplitter.split(r.input, options: o, cancellation: cancellation) { p in
            events.progress?(
                OperationProgress(
                    stage: "split", frames: p.frames, totalFrames: p.totalFrames, framesPerSecond: p.framesPerSecond,
                    etaSeconds: p.etaSeconds))
        }
        let named = r.outputs
        v.outputs = v.outputs.map { out in named.first { s($0.path) == out }?.path ?? out }
        v.notes = v.notes.map { note in
            named.reduce(note) { n, o in s(o.path).map { n.replacing($0, with: o.path) } ?? n }
        }
        return OperationReport(
            job: "split", route: "video", outputs: v.outputs, headline: v.lines.first ?? "",
            lines: Array(v.lines.dropFirst()),
            fields: [("input", .string(r.input))] + named.map { ($0.key, .string($0.path)) }
                + [
                    ("frames", .uint(UInt64(v.frames))), ("inter_layer_prediction", .bool(v.interLayerPrediction)),
                    ("eye_order", .string(v.eyeOrder)),
                    ("hero_eye", v.heroEye.map { .string($0) } ?? .null), ("method", .string(v.method)),
                    ("packing", v.packing.map { .string($0) } ?? .null), ("audio_tracks", .uint(UInt64(v.audioTracks))),
                    ("notes", .array(v.notes.map { .string($0) })),
                ],
            warnings: [], check: OutputCheckResult(file: named.first?.path ?? ""))
    }

    /// A raw MV-HEVC stream (Annex B): each layer copied to a single-layer `.hevc` stream without decoding
    /// (``/SpatialMedia/StreamSplitter``); a second layer predicted from the first cannot be copied.
    static func splitRawStream(_ r: SplitRequest, scratch s: (String?) -> String?) throws(ParseError) -> OperationReport
    {
        guard r.copy, r.sbs == nil, r.ou == nil, !r.half else {
            throw ParseError(
                .invalidArgument, path: r.input,
                "\(r.input) is a raw HEVC stream: its eyes are copied, one .hevc stream per eye (name the outputs .hevc)"
            )
        }
        let layers = try StreamSplitter.split(path: r.input)
        if let l = s(r.left) { try AtomicFile.write(path: l, bytes: layers.left) }
        if let p = s(r.right) { try AtomicFile.write(path: p, bytes: layers.right) }
        let named = r.outputs
        let method = "copied both layers without decoding (each eye's coded pictures untouched)"
        return OperationReport(
            job: "split", route: "video", outputs: named.map(\.path),
            headline: "\(r.input): split into \(named.count) raw HEVC stream\(named.count == 1 ? "" : "s")",
            lines: [method] + named.map { "wrote \($0.path)" },
            fields: [("input", .string(r.input))] + named.map { ($0.key, .string($0.path)) }
                + [
                    ("frames", .uint(UInt64(layers.accessUnits))),
                    ("eye_order", .string("layer 0 = \(layers.baseIsLeft ? "left" : "right") eye")),
                    ("method", .string(method)),
                ],
            warnings: [], check: OutputCheckResult(file: named.first?.path ?? ""))
    }

    /// A scratch file beside `output` with its extension (`.NAME.tmp-XXXXXX.EXT`), for jobs that pick a format by the
    /// name; removed on interruption until renamed into place.
    static func scratchPath(keepingExtensionOf output: String) throws(ParseError) -> String {
        let base = try AtomicFile.scratchPath(near: output)
        let ext = OutputKind.fileExtension(output)
        guard !ext.isEmpty else { return base }
        let path = base + "." + ext
        // Registered under its new name before the rename, so that a signal at any moment finds one of the two.
        _ = Interruption.register(temporaryFile: path)
        guard rename(base, path) == 0 else {
            Interruption.unregister(temporaryFile: path)
            discard(base)
            throw ParseError(.io, path: output, "cannot create a temporary file beside \(output)")
        }
        Interruption.unregister(temporaryFile: base)
        return path
    }

    /// `finish` for several ordinary outputs: every one is checked before any is kept; the
    /// report's check is the first refusal, else the main output's verdict.
    static func finishAll(
        _ report: inout OperationReport, scratches: [(scratch: String, output: String)], inputs: [String]
    ) throws(ParseError) {
        var checks: [OutputCheckResult] = []
        for s in scratches {
            checks.append(OutputCheck.run(written: s.scratch, output: s.output, inputs: inputs, expect: .ordinary))
        }
        report.check = checks.first { !$0.passed } ?? checks.first ?? report.check
        if let refused = checks.first(where: { !$0.passed }) { throw refused.refusal }
        for s in scratches { try AtomicFile.commit(scratch: s.scratch, to: s.output) }
    }
}

/// True when `path` names a directory (links followed).
private func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}
