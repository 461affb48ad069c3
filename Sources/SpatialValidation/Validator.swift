import BinaryIO
import Codecs
import HEVC
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialMedia
import StereoVision
import SystemSupport

/// What to validate and how.
public struct ValidationOptions: Sendable {
    /// Decode pixels and measure the stereo geometry (off: metadata only).
    public var pixels = true
    /// The input image (or video) holds both eyes packed this way.
    public var layout: StereoLayout?
    /// The right eye of an image pair (the input is the left eye).
    public var rightEye: String?
    /// Frames measured in a video, spread over its duration.
    public var frames = 3
    /// Values to judge a raw pair (two images, a side-by-side / top-bottom image, an MPO) at — the field of view,
    /// disparity adjustment and baseline it will be written with (`validate --hfov --disparity --baseline`). Each
    /// given value replaces what the input states; a field of view not given comes from the input (its stereo
    /// metadata or EXIF, as `convert` reads it), else 60° is assumed and said. Spatial files state their own.
    public var stated = StereoParameters()
    /// Keep reduced previews of the eyes (for the HTML report).
    public var keepPreview = false
    public var limits: Limits = .default
    public var analysis = StereoAnalysisOptions()
    public init() {}
}

/// Everything the validator found about one input.
public struct ValidationReport: Sendable {
    public var input: String
    /// `spatial-video`, `movie`, `spatial-photo`, `heif-image`, `side-by-side-image`, `top-bottom-image`, `image-pair`,
    /// `mpo`, `2d-image`, `2d-video` (no stereo pair in an input that states no layout), `unreadable`.
    public var kind: String
    /// Will visionOS / Photos treat it as spatial?
    public var spatial: Bool
    public var whyNotSpatial: [String]
    public var findings: [Finding]
    /// Metadata facts (JSON fields).
    public var summary: [(String, JSON)]
    /// Geometry per analysed pair (one per video frame).
    public var measurements: [(label: String, result: StereoAnalysisResult)]
    /// The first analysed pair, reduced, for the visual report.
    public var preview: EyePixels?
    /// True when the file could not be read at all (exit code 2).
    public var unreadable: Bool
    /// The metadata facts the pixel rules used (baseline, field of view, disparity adjustment, hero, projection).
    public var facts = StereoFacts()
    /// Wall-clock seconds of the stages (`decode`, `measure`).
    public var timings: [(stage: String, seconds: Double)] = []
    /// The playback profile of a movie (or the stereo form of an image) and where it falls short; nil for other inputs.
    public var profile: (title: String, json: JSON)?

    public var worst: Severity? { findings.map(\.severity).max() }
    /// True when the file is damaged or truncated: boxes or data cut short (the faults every writer refuses,
    /// ``/ISOBMFF/ISOFile/integrityFaults(limits:)``), or a reader that ended early or decoded with errors. It was
    /// read, but it is not whole: exit code 2, as the README's exit-code table says for a damaged or truncated input.
    public var damaged = false
    /// 0 = no errors or warnings, 1 = warnings or errors, 2 = unreadable, damaged or truncated.
    public var exitCode: Int32 { unreadable || damaged ? 2 : (worst ?? .info) >= .warning ? 1 : 0 }
    public func fired(_ id: String) -> Bool { findings.contains { $0.ruleID == id } }
}

/// Runs the metadata rules and, unless disabled, the pixel measurements on one input.
public enum Validator {
    package static func validate(path: String, options: ValidationOptions = ValidationOptions()) -> ValidationReport {
        var r = ValidationReport(
            input: path, kind: "unreadable", spatial: false, whyNotSpatial: [], findings: [], summary: [],
            measurements: [], preview: nil, unreadable: false)
        var facts = StereoFacts()
        if let right = options.rightEye {
            r.kind = "image-pair"
            r.whyNotSpatial = ["an image pair carries no spatial metadata"]
            r.findings.append(
                Finding(
                    "SV-PAIR-001", .info,
                    "left/right image files carry no spatial metadata; combine them with `spatial-media convert --left L --right R -o OUT.heic`"
                ))
            if options.pixels {
                do throws(ParseError) {
                    let px = try PixelSource.pair(left: path, right: right, limits: options.limits)
                    if px.left.width != px.right.width || px.left.height != px.right.height {
                        r.findings.append(
                            Finding(
                                "SV-PAIR-002", .error,
                                "the eyes differ in size: \(px.left.width)×\(px.left.height) and \(px.right.width)×\(px.right.height); crop or scale them to the same size"
                            ))
                    }
                    facts = rawPairFacts(facts, px, options, &r)
                    measure(px, facts: facts, label: "", options: options, into: &r)
                } catch { unreadable(error, &r) }
            }
            r.facts = facts
            return r
        }
        let head: [UInt8]
        do throws(ParseError) {
            let src = try FileSource(path: path)
            head = try src.read(at: 0, count: Int(min(src.size, 16)))
        } catch { unreadable(error, &r); return r }
        let probed = FileProbe.kind(head: head)
        if probed == .movie || probed == .heif {
            let file: ISOFile
            do throws(ParseError) { file = try ISOFile.open(path: path, limits: options.limits) } catch {
                unreadable(error, &r); return r
            }
            structure(file, limits: options.limits, into: &r)
            let damaged = r.whyNotSpatial
            if file.box("moov") != nil {
                validateMovie(file, path: path, options: options, facts: &facts, into: &r)
                r.facts = facts
            } else if file.heif != nil {
                validateHEIF(file, path: path, options: options, facts: &facts, into: &r)
                r.facts = facts
            } else {
                r.kind = "isobmff"
                r.findings.append(
                    Finding("SV-FILE-001", .error, "an ISOBMFF file with neither a movie (moov) nor images (meta)"))
            }
            // A damaged or truncated file is never "spatial: yes", whatever its metadata says.
            if !damaged.isEmpty {
                r.spatial = false
                r.whyNotSpatial = damaged + r.whyNotSpatial.filter { !damaged.contains($0) }
            }
            return r
        }
        if probed == .matroska {
            validateMatroska(path: path, options: options, into: &r)
            return r
        }
        // Raw Annex-B HEVC: no container, so no spatial metadata can be carried.
        if head.starts(with: [0, 0, 1]) || head.starts(with: [0, 0, 0, 1]) {
            r.kind = "hevc-stream"
            r.whyNotSpatial = ["a raw HEVC stream has no container to carry vexu/hfov"]
            r.findings.append(
                Finding(
                    "SV-PAIR-001", .warning,
                    "raw HEVC (Annex B) stream: it cannot be spatial without a container; a two-layer MV-HEVC stream splits with `spatial-media split-video IN.hevc --left L.hevc --right R.hevc`, and two single-layer streams mux with `spatial-media assemble L.hevc R.hevc -o OUT.mov` (pixels not checked)"
                ))
            return r
        }
        // MPEG-TS, AVI, …: what convert reads through FFmpeg, validate reads the same way.
        if FFmpegInfo.reads(path) {
            validateThroughFFmpeg(path: path, matroska: false, options: options, into: &r)
            return r
        }
        return validateImage(path: path, probed: probed, options: options, facts: facts, into: r)
    }

    /// A JPEG (MPO, Ultra HDR) or PNG: an MPO's two pictures, or one picture packing both eyes (its layout given, else
    /// measured as `convert` measures it), or a 2D picture.
    static func validateImage(
        path: String, probed: FileProbe.Kind, options: ValidationOptions, facts: StereoFacts,
        into report: ValidationReport
    ) -> ValidationReport {
        var r = report, facts = facts
        let isJPEG = probed == .jpeg, isPNG = probed == .png
        guard isJPEG || isPNG else {
            r.findings.append(Finding("SV-FILE-001", .error, "not a movie, Matroska, HEIF, JPEG/MPO or PNG file"))
            r.unreadable = true
            return r
        }
        r.whyNotSpatial = ["an image file with both eyes packed carries no spatial metadata"]
        var isMPO = false, oneEyeOnly = false
        let jpegData = isJPEG ? try? FileBytes.read(path, limits: options.limits) : nil
        let jpegMPO = jpegData.flatMap { try? MPO($0) }
        if let mpo = jpegMPO, mpo.stereoPair == nil, mpo.pictures.count >= 2, let data = jpegData {
            gainMapJPEG(mpo, data: data, into: &r)
        }
        if let mpo = jpegMPO, mpo.stereoPair != nil || (mpo.fromIndex && mpo.pictures.count < 2) {
            isMPO = true
            r.kind = "mpo"
            if mpo.pictures.count < 2 {
                oneEyeOnly = true
                r.findings.append(
                    Finding("SV-PAIR-004", .error, "the MPO index lists only one picture: there is no second eye"))
            } else {
                let (ia, ib) = mpo.stereoPair ?? (0, 1)
                let a = mpo.pictures[ia].attributes, b = mpo.pictures[ib].attributes
                var s = "MPO with \(mpo.pictures.count) pictures"
                if let bl = a.baselineMM ?? b.baselineMM {
                    s += ", baseline \(Fmt.num(bl, 1)) mm"
                    // A placeholder (e.g. 1000 mm) is not a camera baseline: the pixel rules do not use it (as
                    // convert).
                    if let um = try? SpatialUnits.micrometres(fromMillimetres: bl),
                        SpatialUnits.plausibleBaselineMicrometres.contains(um)
                    {
                        try? facts.stereo.setBaseline(millimetres: bl)
                    } else {
                        s += " (not a plausible camera baseline: not used)"
                    }
                }
                if let c = a.convergenceAngleDegrees ?? b.convergenceAngleDegrees {
                    s += ", convergence \(Fmt.num(c, 2))°"
                }
                r.findings.append(Finding("SV-PAIR-003", .info, s))
            }
            r.findings.append(
                Finding(
                    "SV-PAIR-001", .info,
                    "an MPO carries no spatial metadata; convert it with `spatial-media convert IN.mpo -o OUT.heic`"))
        }
        var layout = options.layout ?? .auto
        if !isMPO {
            // Nothing states how a JPEG/PNG is packed: measured as `convert` measures it (SV-PAIR-008/009); a picture
            // that is no stereo pair either way gets no geometry verdict.
            if layout == .auto, options.pixels, let whole = try? ImageFiles.load(path, limits: options.limits).image {
                guard let found = recogniseLayout([whole], frames: [], video: false, into: &r) else {
                    r.facts = facts; return r
                }
                layout = found
            }
            r.kind = layout == .tb ? "top-bottom-image" : "side-by-side-image"
            r.findings.append(
                Finding(
                    "SV-PAIR-001", .info,
                    "a \(layout == .tb ? "top-bottom" : layout == .sbs ? "side-by-side" : "packed (layout not measured; give --layout)") image carries no spatial metadata; convert it with `spatial-media convert IN\(options.layout == nil ? "" : " --layout \(layout == .tb ? "tb" : "sbs")") -o OUT.heic`"
                ))
        }
        if options.pixels && !oneEyeOnly {
            do throws(ParseError) {
                let px = try timed("decode", &r) { () throws(ParseError) in
                    try PixelSource.packed(path, layout: isMPO ? .auto : layout, limits: options.limits)
                }
                facts = rawPairFacts(facts, px, options, &r)
                measure(px, facts: facts, label: "", options: options, into: &r)
            } catch { unreadable(error, &r) }
        } else if let damage = ImageFiles.damage(path, limits: options.limits) {
            // Without pixel checks the pictures are still read once: a cut or damaged image is an error (SV-FILE-002).
            unreadable(damage, &r)
        }
        r.facts = facts
        return r
    }

    /// What a raw pair is judged at: the values given (``ValidationOptions/stated``), else what the input states
    /// (field of view from its metadata or EXIF, as `convert` reads it; an MPO's plausible baseline). An INFO
    /// SV-PAIR-007 names each value and where it comes from.
    static func rawPairFacts(
        _ known: StereoFacts, _ px: EyePixels, _ o: ValidationOptions,
        _ r: inout ValidationReport
    ) -> StereoFacts {
        var f = known
        var said: [String] = []
        if let h = o.stated.horizontalFieldOfViewMillidegrees {
            f.stereo.horizontalFieldOfViewMillidegrees = h
            said.append("field of view \(Fmt.num(Double(h) / 1000, 2))° (--hfov)")
        } else if let s = px.statedFieldOfView, (try? f.stereo.setHorizontalFieldOfView(degrees: s.degrees)) != nil {
            said.append("field of view \(Fmt.num(s.degrees, 2))° (\(s.source))")
        } else {
            let assumed = Fmt.num(GeometryThresholds.assumedHFOV, 0)
            said.append("field of view \(assumed)° (assumed: the input states none; give --hfov)")
        }
        if let d = o.stated.disparityAdjustment {
            f.stereo.disparityAdjustment = d
            let percent = Fmt.num(SpatialUnits.percent(fromDisparityUnits: d), 2)
            said.append("disparity adjustment \(percent)% (--disparity)")
        }
        if let b = o.stated.baselineMicrometres {
            f.stereo.baselineMicrometres = b
            said.append("baseline \(Fmt.num(Double(b) / 1000, 1)) mm (--baseline)")
        }
        r.findings.append(Finding("SV-PAIR-007", .info, "judged at \(said.joined(separator: ", "))"))
        return f
    }

    /// A JPEG whose MP index holds further pictures that are not stereo views (SV-PAIR-005): one photo, with its HDR
    /// gain map named and its metadata read (SV-PAIR-006 when the map cannot be read).
    static func gainMapJPEG(_ mpo: MPO, data: [UInt8], into r: inout ValidationReport) {
        let types = mpo.pictures.indices.map { MPO.TypeCode.name(mpo.type($0)) }.joined(separator: ", ")
        var s =
            "MPF index of \(mpo.pictures.count) pictures (\(types)) without stereo views: one photo, not a stereo MPO "
            + "(only MP type Disparity, or two Multi-angle pictures, make one)"
        do throws(ParseError) {
            if let g = try JPEGGainMap.read(data, mpo: mpo) { s += "; \(g.description)" }
            r.findings.append(Finding("SV-PAIR-005", .info, s))
        } catch {
            r.findings.append(Finding("SV-PAIR-005", .info, s))
            let at = mpo.gainMapIndex.map { $0 + 1 } ?? 2
            r.findings.append(
                Finding(
                    "SV-PAIR-006", .warning,
                    "MPF picture \(at) is marked as an HDR gain map but "
                        + "cannot be read: \(error.message); a conversion leaves it out"))
        }
    }

    static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// Runs `body` and records its wall time under `stage`.
    static func timed<T>(_ stage: String, _ r: inout ValidationReport, _ body: () throws(ParseError) -> T)
        throws(ParseError) -> T
    {
        let start = ContinuousClock.now
        defer { r.timings.append((stage, seconds(ContinuousClock.now - start))) }
        return try body()
    }

    /// Structural faults `info` also reports: boxes cut short or past the end of the file (the parser's
    /// diagnostics), and sample chunks or item extents that lie outside the file. Each is an error naming the
    /// offset and box path: a truncated file is never a pass.
    static func structure(_ file: ISOFile, limits: Limits, into r: inout ValidationReport) {
        let start = r.findings.count
        for d in file.allDiagnostics {
            r.findings.append(
                Finding(
                    "SV-FILE-002", .error, "\(d.message) [\(d.code)]: the file is damaged or truncated",
                    at: "\(d.path.isEmpty ? "(file)" : d.path) @ offset \(d.offset)"))
        }
        // Samples and item extents past the end of the file: the same check every writer runs
        // (ISOFile.integrityFaults).
        for fault in file.dataOutsideFile(limits: limits) {
            r.findings.append(
                Finding("SV-FILE-003", .error, fault.message, at: "\(fault.path) @ offset \(fault.offset)"))
        }
        // Image items whose coded data is not whole NAL units (stripped or cut data): what a decoder would stop on.
        for fault in file.codedItemFaults(limits: limits) {
            r.findings.append(
                Finding("SV-FILE-002", .error, fault.message, at: "\(fault.path) @ offset \(fault.offset)"))
        }
        if r.findings.count > start {
            r.whyNotSpatial.append(damagedReason)
        }
        if !file.integrityFaults(limits: limits).isEmpty { r.damaged = true }
    }

    /// A file that could not be read (SV-FILE-001), or whose reader found it cut short or damaged (SV-FILE-002: a
    /// decoder's premature end, FFmpeg's errors): an error either way, exit code 2.
    static func unreadable(_ e: ParseError, _ r: inout ValidationReport) {
        let at = e.offset.flatMap { $0 > 0 ? "offset \($0)" : nil } ?? ""
        if e.code == .truncated {
            r.findings.append(Finding("SV-FILE-002", .error, "\(e.message) [\(e.code)]", at: at))
            r.damaged = true
            if !r.whyNotSpatial.contains(damagedReason) { r.whyNotSpatial.append(damagedReason) }
            return
        }
        r.findings.append(Finding("SV-FILE-001", .error, "\(e.message) [\(e.code)]", at: at))
        r.unreadable = true
    }

    static let damagedReason = "the file is damaged or truncated (SV-FILE-002/003)"

    /// Pictures decoded out of display order (B-frames, leading pictures) need composition offsets (`ctts`):
    /// without them every player shows the frames in decoding order. The base layer's picture order counts of
    /// the first samples (at most ``reorderSamples``) are compared in decoding order.
    static let reorderSamples = 64

    static func reordering(_ file: ISOFile, limits: Limits, into r: inout ValidationReport) {
        for (i, track) in file.tracks.enumerated() where track.handler == "vide" {
            guard let stbl = track.sampleTable, stbl.child("ctts") == nil,
                let entry = track.sampleEntries.first, entry.type == "hvc1" || entry.type == "hev1",
                let hvcC = entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record,
                let record = try? HEVCDecoderConfigurationRecord(parsing: hvcC),
                let samples = try? track.samples(limits: limits, first: reorderSamples)
            else { continue }
            var aus: [[NALUnit]] = []
            for (k, s) in samples.enumerated() {
                guard let bytes = try? file.readBytes(at: s.offset, count: Int(s.size)),
                    let nals = try? LengthPrefixed.split(bytes, lengthSize: record.lengthSize, limits: limits)
                else { break }
                aus.append(k == 0 ? record.nalUnits() + nals : nals)
            }
            let analysis = StreamAnalysis(accessUnits: aus)
            var previous: Int? = nil
            for rec in analysis.records where rec.layerId == 0 && rec.firstSliceInPicture == true {
                guard let poc = rec.poc else { continue }
                let resets = (16...20).contains(Int(rec.type))  // BLA / IDR start a new POC sequence
                if let p = previous, !resets, poc < p {
                    r.findings.append(
                        Finding(
                            "SV-VIDEO-036", .error,
                            "track \(track.trackID): pictures are decoded out of display order (sample \(rec.accessUnit + 1) has POC \(poc) after POC \(p): B-frames or leading pictures) but the track has no composition offsets (ctts); every player shows these frames in the wrong order — remux with ctts",
                            at: "moov/trak[\(i)]/mdia/minf/stbl"))
                    break
                }
                previous = poc
            }
        }
    }

    /// SV-VIDEO-039: a video track whose edit list hides its first frame (the first sample in decoding order, where
    /// decoding starts). Players that follow the edit list never show it; readers that ignore edit lists do, so two
    /// tools disagree about the clip's first picture and its frame count (`info` shows both counts).
    static func hiddenFirstFrame(_ file: ISOFile, limits: Limits, into r: inout ValidationReport) {
        for (i, track) in file.tracks.enumerated() where track.handler == "vide" {
            guard let p = track.presentedSamples(movieTimescale: file.movieTimescale, limits: limits),
                p.shown.first == false
            else { continue }
            let shown = p.shown.filter { $0 }.count
            let leading = p.shown.prefix { !$0 }.count
            let what = leading == 1 ? "frame" : "\(leading) frames", it = leading == 1 ? "it" : "them"
            r.findings.append(
                Finding(
                    "SV-VIDEO-039", .warning,
                    "track \(track.trackID): the edit list hides the first \(what) (\(shown) of \(p.shown.count) samples presented): "
                        + "players that follow the edit list start after \(it), tools that ignore edit lists show \(it), so the clip's "
                        + "first picture and frame count differ between tools; trim the samples, or drop the edit list, to make them agree",
                    at: "moov/trak[\(i)]/edts/elst"))
        }
    }

    static func validateMovie(
        _ file: ISOFile, path: String, options: ValidationOptions, facts: inout StereoFacts,
        into r: inout ValidationReport
    ) {
        var summary: [(String, JSON)] = []
        reordering(file, limits: options.limits, into: &r)
        hiddenFirstFrame(file, limits: options.limits, into: &r)
        let v = VideoRules.check(file, findings: &r.findings, facts: &facts, summary: &summary)
        r.summary = summary
        r.spatial = v.spatial
        r.whyNotSpatial = v.whyNot
        r.kind = v.spatial ? "spatial-video" : "movie"
        r.profile = (v.profile.profile.title, v.profile.json)
        guard options.pixels else { return }
        // Frame-packed movies and spheres (their centre): FramePackedPixels.swift.
        if framePackedOrSpherePixels(file, path: path, verdict: v, options: options, facts: facts, into: &r) { return }
        if v.profile.profile != .spatialVideo && v.profile.profile != .multiview3D && v.profile.profile != .video2D {
            r.findings.append(
                Finding(
                    "SV-GEOM-015", .info,
                    "pixels not checked for \(v.profile.profile.title): the stereo geometry rules measure rectilinear pairs"
                ))
            return
        }
        guard v.hasTwoLayerStream else { return }
        var frames: [EyePixels] = []
        // FFmpeg ≥ 7.1 decodes only the sampled frames (a seek to each); without it, our own decoder reads layers that
        // are independent (our files) — the whole clip.
        let source = try? SpatialVideoSource.inspect(path, limits: options.limits)
        let picks = PixelSource.pickFrames(total: max(1, v.frameCount), count: options.frames)
        if let source, FFmpeg.locate(.mvhevcViews) != nil {
            // Frames are sampled among the presented ones (v.frameCount applies the edit list), in presentation order;
            // one frame FFmpeg cannot give does not stop the others.
            var failures: [String] = []
            for i in picks {
                do throws(ParseError) {
                    for f in try source.sampledFrames([i]) {
                        var e = try PixelSource.eyes(
                            f.left, f.right,
                            notes: ["decoded with FFmpeg (frame \(f.index) of \(v.frameCount) presented)"])
                        e.label = "frame \(f.index)"
                        frames.append(e)
                    }
                } catch { failures.append("frame \(i): \(error.message)") }
            }
            if frames.isEmpty {
                r.findings.append(
                    Finding.pixelsNotChecked(
                        "FFmpeg could not decode the sampled frames: \(failures.joined(separator: "; "))"))
                return
            }
            if !failures.isEmpty {
                r.findings.append(
                    Finding(
                        "SV-GEOM-022", .info,
                        "\(failures.count) sampled frame\(failures.count == 1 ? "" : "s") could not be decoded and \(failures.count == 1 ? "was" : "were") skipped: \(failures.joined(separator: "; "))"
                    ))
            }
            r.findings.append(
                EyeSync.finding(EyeSync.measure(runs: EyeSync.runs(source, total: v.frameCount)), frames: v.frameCount))
        } else {
            do throws(ParseError) {
                let decoded = try PixelSource.videoFrames(path, count: options.frames, limits: options.limits)
                frames = decoded.frames
                r.findings.append(EyeSync.finding(EyeSync.measure(runs: decoded.runs), frames: v.frameCount))
            } catch {
                let why =
                    v.interLayer
                    ? "the second layer is inter-layer predicted, which needs an MV-HEVC decoder: install FFmpeg ≥ 7.1 (`bash scripts/setup.sh` provides it) and put it on PATH or in SPATIAL_MEDIA_FFMPEG"
                    : "\(error.message); FFmpeg ≥ 7.1 (`bash scripts/setup.sh` provides it; PATH or SPATIAL_MEDIA_FFMPEG) could decode it"
                r.findings.append(
                    Finding.pixelsNotChecked(why))
                return
            }
        }
        // Say which frames were measured, and why fewer than asked.
        let total = v.frameCount
        var said =
            "measured \(frames.count) frame\(frames.count == 1 ? "" : "s") (\(frames.map(\.label).joined(separator: ", ")))"
        if frames.count < options.frames {
            said +=
                " of the \(options.frames) asked: "
                + (total > 0 && total < options.frames
                    ? "the video has only \(total) frames"
                    : "only \(frames.count) could be decoded")
        }
        r.findings.append(Finding("SV-GEOM-022", .info, said))
        for e in frames { measure(e, facts: facts, label: e.label, options: options, into: &r) }
    }

    static func validateHEIF(
        _ file: ISOFile, path: String, options: ValidationOptions, facts: inout StereoFacts,
        into r: inout ValidationReport
    ) {
        var summary: [(String, JSON)] = []
        let p = PhotoRules.check(file, findings: &r.findings, facts: &facts, summary: &summary)
        r.summary = summary
        r.spatial = p.spatial
        r.whyNotSpatial = p.whyNot
        r.kind = p.photo == nil ? "heif-image" : "spatial-photo"
        facts.spatialPhoto = p.photo != nil
        guard options.pixels else { return }
        if p.photo == nil {
            if options.layout != nil {
                do throws(ParseError) {
                    let px = try PixelSource.packed(path, layout: options.layout ?? .auto, limits: options.limits)
                    measure(px, facts: facts, label: "", options: options, into: &r)
                } catch { unreadable(error, &r) }
            }
            return
        }
        do throws(ParseError) {
            let px = try timed("decode", &r) { () throws(ParseError) in
                try PixelSource.photo(file, limits: options.limits)
            }
            measure(px, facts: facts, label: "", options: options, into: &r)
        } catch {
            r.findings.append(
                Finding("SV-GEOM-011", .warning, "cannot measure: the eyes cannot be decoded (\(error.message))"))
        }
    }

    static func measure(
        _ px: EyePixels, facts: StereoFacts, label: String, options: ValidationOptions, into r: inout ValidationReport
    ) {
        let start = ContinuousClock.now
        let (_, findings, result) = GeometryDiagnosis.run(px, facts: facts, label: label, options: options.analysis)
        r.timings.append(("measure", Self.seconds(ContinuousClock.now - start)))
        r.findings += findings
        r.facts = facts
        r.measurements.append((label, result))
        if options.keepPreview && r.preview == nil {
            var p = px
            let side = max(p.left.width, p.left.height)
            if side > 640 {
                let w = max(1, p.left.width * 640 / side), h = max(1, p.left.height * 640 / side)
                p.left = p.left.resized(width: w, height: h)
                p.right = p.right.resized(width: w, height: h)
            }
            r.preview = p
        }
    }
}

extension Validator {
    /// Validates an in-memory pair of grey eyes (pixel rules only), e.g. frames from another decoder. `stereo`:
    /// what is known of the pair (the field of view sets the angles; the disparity adjustment, the window).
    package static func validatePair(
        left: GrayImage, right: GrayImage, name: String = "pair", stereo: StereoParameters = StereoParameters(),
        options: ValidationOptions = ValidationOptions()
    ) -> ValidationReport {
        var r = ValidationReport(
            input: name, kind: "image-pair", spatial: false,
            whyNotSpatial: ["an image pair carries no spatial metadata"],
            findings: [], summary: [], measurements: [], preview: nil, unreadable: false)
        let facts = StereoFacts(stereo)
        if left.width != right.width || left.height != right.height {
            r.findings.append(
                Finding(
                    "SV-PAIR-002", .error,
                    "the eyes differ in size: \(left.width)×\(left.height) and \(right.width)×\(right.height); crop or scale them to the same size"
                ))
        }
        measure(EyePixels(left: left, right: right), facts: facts, label: "", options: options, into: &r)
        return r
    }
}
