import BinaryIO
import HEVC
import ISOBMFF
import SpatialMedia
import SystemSupport

/// Facts from metadata that the pixel checks use.
public struct StereoFacts: Sendable {
    /// Baseline, field of view, disparity adjustment, hero eye and projection as the metadata states them, in the
    /// stored units of ``/SpatialMedia/StereoParameters`` (µm, 1/1000°, 1/10000 of the eye width); `nil` where
    /// the input has none. Rules and reports read the human units through its computed views.
    public var stereo = StereoParameters()
    /// The input carries spatial metadata (a spatial video or photo). The geometry verdict does not depend on it:
    /// one pair of pictures gets the same rule IDs and severities in every container (issue 31).
    public var spatial = false
    /// The input is a spatial photo (a HEIF with a `ster` pair): findings name the commands that fix it in place
    /// (`align`, `edit`) rather than `convert`, which makes spatial files from sources.
    public var spatialPhoto = false
    /// Why the projection is rectilinear when no box names it (a movie without `proj`, a photo), for the report.
    public var impliedProjection: String?
    public init() {}
    public init(_ stereo: StereoParameters, spatial: Bool = false) {
        self.stereo = stereo
        self.spatial = spatial
    }

    /// The projection as the report shows it: the stored kind, or `rect` with why it is implied.
    public var projection: String? { stereo.projectionKind.map { "\($0)" } ?? impliedProjection.map { "rect (\($0))" } }
}

/// Comfort bounds of the disparity adjustment, 1/10000 of the width (see Specs/validation.md).
enum Comfort {
    static let minDisparity: Int32 = -200
    static let maxDisparity: Int32 = 500
}

enum Fmt {
    static func num(_ d: Double, _ places: Int = 2) -> String { NumberText.fixed(d, places: places) }
}

/// Metadata rules for movies.
enum VideoRules {
    /// What the metadata rules conclude about a movie.
    struct Verdict {
        var spatial: Bool
        var whyNot: [String]
        var interLayer = false
        /// Frames a player presents (the edit list applied): pixel checks sample among these only.
        var frameCount = 0
        var profile: ProfileVerdict
        /// Both layers are configured (hvcC and lhvC) and the stream's parameter sets parse: the eyes can be decoded.
        var hasTwoLayerStream = false
    }

    static func check(
        _ file: ISOFile, findings f: inout [Finding], facts: inout StereoFacts, summary: inout [(String, JSON)]
    ) -> Verdict {
        let report = SpatialVideoReport(file)
        let verdict = report.profile
        summary.append(("classification", .string(report.classification.name)))
        summary.append(("profile", verdict.json))
        brandRules(file, f: &f, summary: &summary)
        guard let v = report.primary else {
            f.append(Finding("SV-VIDEO-030", .error, "the movie has no video track"))
            return Verdict(spatial: false, whyNot: report.whyNotSpatial, profile: verdict)
        }
        let trakPath = "moov/trak[\(v.trackIndex)]"
        let entryPath = "\(trakPath)/mdia/minf/stbl/stsd/\(v.sampleEntryType?.description ?? "?")"
        f.append(
            Finding(
                "SV-PROF-001", .info,
                "profile: \(verdict.profile.title); stereo: \(verdict.stereo)"
                    + (verdict.meetsProfile ? "" : " — falls short of it (see the SV-PROF findings)"), at: entryPath))
        let ownProfile: Set<MediaProfile> = [
            .framePacked3D, .apmp180, .apmp360, .apmpWideFOV, .appleImmersive, .googleSpherical,
        ]
        for x in verdict.findings where !x.restatesSpatialVideoRules || ownProfile.contains(verdict.profile) {
            f.append(
                Finding(
                    x.ruleID, x.severity == .error ? .error : x.severity == .warning ? .warning : .info, x.message,
                    at: entryPath))
        }
        if ownProfile.contains(verdict.profile) {
            // Not aiming at spatial video: its rules (MV-HEVC, baseline, rectilinear) do not apply, and converting
            // a sphere to spatial video would flatten it.
            if verdict.profile == .framePacked3D, let p = v.metadata.framePacking {
                f.append(
                    Finding(
                        "SV-VIDEO-031", .info,
                        "frame-packed stereo (\(p.rawValue)): 3D video, not spatial video; convert it to MV-HEVC spatial video with `spatial-media convert IN -o OUT.mov --layout sbs` (or tb, half-sbs, half-tb)",
                        at: entryPath))
            }
            return Verdict(
                spatial: false,
                whyNot: [
                    "it is \(verdict.profile.title), a different profile from spatial video (rectilinear MV-HEVC with baseline and field of view)"
                ], profile: verdict)
        }
        guard v.isHEVC else {
            f.append(
                Finding(
                    "SV-VIDEO-001", .error,
                    "the video codec is '\(v.sampleEntryType?.description ?? "none")', not HEVC; spatial video is MV-HEVC in an 'hvc1' sample entry — re-encode",
                    at: entryPath))
            return Verdict(spatial: false, whyNot: report.whyNotSpatial, profile: verdict)
        }
        if v.sampleEntryType == "hev1" {
            f.append(
                Finding(
                    "SV-VIDEO-002", .warning,
                    "sample entry is 'hev1' (parameter sets in band); Apple writes and expects 'hvc1' — remux with the parameter sets in hvcC/lhvC",
                    at: entryPath))
        }
        if !v.hasHvcC {
            f.append(
                Finding(
                    "SV-VIDEO-003", .error, "the sample entry has no hvcC; the stream cannot be configured",
                    at: entryPath))
        }
        if !v.hasLhvC {
            f.append(
                Finding(
                    "SV-VIDEO-004", .error,
                    "the sample entry has no lhvC: a single layer, so there is no second eye (mux the second layer's SPS/PPS into lhvC)",
                    at: entryPath))
        }

        // HEVC stream facts from the configuration records and the first samples.
        let stream = streamChecks(file, v, at: entryPath, f: &f, summary: &summary)
        summary.append(("frames", .int(Int64(stream.frames))))
        let presentedFrames = presentationRules(
            file, v, trakPath: trakPath, frames: stream.frames, f: &f, summary: &summary)

        let m = v.metadata
        eyeRules(m, baseLayerIsLeft: stream.baseLayerIsLeft, at: entryPath, f: &f)
        cameraRules(m, v, at: entryPath, f: &f, facts: &facts)
        for d in m.diagnostics {
            let sev: Severity = d.severity == .error ? .error : d.severity == .warning ? .warning : .info
            f.append(Finding("SV-VIDEO-029", sev, d.message, at: "\(d.path) at offset \(d.offset)"))
        }
        let spatial = report.classification == .spatialVideo && !f.contains { $0.severity == .error }
        var why = report.whyNotSpatial
        if !spatial && why.isEmpty { why = f.filter { $0.severity == .error }.map(\.message) }
        return Verdict(
            spatial: spatial, whyNot: why, interLayer: stream.interLayer, frameCount: presentedFrames, profile: verdict,
            hasTwoLayerStream: stream.parsed && v.hasLhvC)
    }

    /// The container brand (SV-VIDEO-026, info).
    private static func brandRules(_ file: ISOFile, f: inout [Finding], summary: inout [(String, JSON)]) {
        if let ftyp = file.box("ftyp")?.payload(FileTypeBox.self) {
            let brand = ftyp.majorBrand.description
            summary.append(("major_brand", .string(brand)))
            if brand == "qt  " {
                f.append(
                    Finding(
                        "SV-VIDEO-026", .info, "QuickTime container (major brand 'qt  '), as Apple's own tools write"))
            } else {
                f.append(
                    Finding(
                        "SV-VIDEO-026", .info,
                        "ISO/MP4 container (major brand '\(brand)'); Apple's tools write QuickTime (.mov) — visionOS plays both, but name the file .mov for Photos/Files to treat it like Apple's captures",
                        at: "ftyp"))
            }
        }
    }

    /// Presented frames, the same notion as `info` and `fix` (Track.presentedSamples): SV-VIDEO-037 (an edit list
    /// hides frames) and SV-VIDEO-038 (negative composition offsets in a version-0 ctts). Returns the frames shown.
    private static func presentationRules(
        _ file: ISOFile, _ v: SpatialVideoTrack, trakPath: String, frames: Int,
        f: inout [Finding], summary: inout [(String, JSON)]
    ) -> Int {
        var presentedFrames = frames
        if let track = file.tracks.first(where: { $0.trackID == v.trackID }),
            let p = track.presentedSamples(movieTimescale: file.movieTimescale)
        {
            let shown = p.shown.filter { $0 }.count
            presentedFrames = shown
            summary.append(("presented_frames", .int(Int64(shown))))
            if shown < p.shown.count {
                let hidden = p.shown.indices.filter { !p.shown[$0] }.map { "\($0 + 1)" }
                f.append(
                    Finding(
                        "SV-VIDEO-037", .info,
                        "the edit list presents \(shown) of \(p.shown.count) frames; hidden (decode order): sample\(hidden.count == 1 ? "" : "s") \(hidden.prefix(8).joined(separator: ", "))\(hidden.count > 8 ? ", …" : ""); pixel checks sample presented frames only",
                        at: "\(trakPath)/edts/elst"))
            }
        }
        if let ctts = file.tracks.first(where: { $0.trackID == v.trackID })?.sampleTable?.child("ctts"),
            ctts.payload(CompositionOffsetBox.self)?.hasNegativeOffsetsInVersion0 == true
        {
            f.append(
                Finding(
                    "SV-VIDEO-038", .info,
                    "ctts version 0 holds negative composition offsets (top bit set); read as signed, as Apple's and FFmpeg's players do (version 1 is the form that says so)",
                    at: ctts.path))
        }
        return presentedFrames
    }

    /// Stream rules on the configuration records and the first three samples; the frame count from the sample table.
    static func streamChecks(
        _ file: ISOFile, _ v: SpatialVideoTrack, at entryPath: String, f: inout [Finding],
        summary: inout [(String, JSON)]
    ) -> (interLayer: Bool, frames: Int, baseLayerIsLeft: Bool?, parsed: Bool) {
        var interLayer = false, parsed = false
        var frames = 0
        var baseLayerIsLeft: Bool? = nil
        let tracks = file.tracks
        if v.trackIndex < (file.box("moov")?.children("trak").count ?? 0),
            let track = tracks.first(where: { $0.trackID == v.trackID }),
            let entry = track.sampleEntries.first,
            let hvcC = entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record
        {
            let lhvC = entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record
            var samples: [[UInt8]] = []
            var budget = 4 << 20
            // The count comes from stsz; only the three samples read are resolved (a hostile constant-size
            // stsz may state millions of samples that no bytes back).
            frames = track.sampleCount
            if let list = try? track.samples(first: 3) {
                for s in list where Int(s.size) <= budget {
                    guard let b = try? file.readBytes(at: s.offset, count: Int(s.size)) else { break }
                    budget -= b.count
                    samples.append(b)
                }
            }
            if let info = try? HEVCStreamInfo(hvcC: hvcC, lhvC: lhvC, samples: samples) {
                interLayer = streamRules(info, f: &f, at: entryPath, hasLhvC: v.hasLhvC)
                summary.append(("hevc", MediaInfo.streamJSON(info)))
                baseLayerIsLeft = info.baseLayerIsLeft
                parsed = true
                parameterSetRules(hvcC: hvcC, lhvC: lhvC, id: "SV-VIDEO-032", at: entryPath, f: &f)
                colourRules(entry, hvcC: hvcC, at: entryPath, f: &f)
                hdrRules(entry, hvcC: hvcC, lhvC: lhvC, info: info, at: entryPath, f: &f)
            } else {
                f.append(
                    Finding(
                        "SV-VIDEO-005", .error,
                        "the HEVC configuration records cannot be parsed, so the layers cannot be checked",
                        at: "\(entryPath)/hvcC"))
            }
        }
        return (interLayer, frames, baseLayerIsLeft, parsed)
    }

    /// vexu, its eye flags and the hero eye.
    static func eyeRules(_ m: StereoVideoMetadata, baseLayerIsLeft: Bool?, at entryPath: String, f: inout [Finding]) {
        let vexuPath = "\(entryPath)/vexu"
        if !m.hasVexu {
            f.append(
                Finding(
                    "SV-VIDEO-009", .error,
                    "no vexu box: the stereo view information is missing (add it with `spatial-media edit`)",
                    at: entryPath))
        } else if let flags = m.viewFlags {
            if !flags.hasLeftEye || !flags.hasRightEye {
                f.append(
                    Finding(
                        "SV-VIDEO-011", .error,
                        "stri flags 0x\(String(flags.rawValue, radix: 16)) do not signal both eyes; set has_left_eye_view and has_right_eye_view (0x03)",
                        at: "\(vexuPath)/eyes/stri"))
            }
            if flags.eyeViewsReversed {
                f.append(
                    Finding(
                        "SV-VIDEO-012", .error,
                        "stri has eye_views_reversed set: players expecting MV-HEVC reject or swap the eyes; clear the bit and put the left view in the base layer",
                        at: "\(vexuPath)/eyes/stri"))
            }
        } else {
            f.append(Finding("SV-VIDEO-010", .error, "vexu has no eyes/stri box (mandatory)", at: vexuPath))
        }
        if m.hasVexu {
            let base = baseLayerIsLeft.map { $0 ? "left" : "right" }
            if let h = m.heroEye {
                if h.rawValue == 0 || h.rawValue > 2 {
                    f.append(
                        Finding(
                            "SV-VIDEO-014", .warning,
                            "hero eye is \(h) (value \(h.rawValue)); use 1 (left) or 2 (right)",
                            at: "\(vexuPath)/eyes/hero"))
                } else if let b = baseLayerIsLeft, (h == .left) != b {
                    f.append(
                        Finding(
                            "SV-VIDEO-033", .warning,
                            "the hero eye is \(h) but the base layer carries the \(base ?? "") eye: players that decode only the base layer show the \(base ?? "") eye in 2D; make them agree (`spatial-media edit --hero \(base ?? "")`, or convert with the hero eye in the base layer)",
                            at: "\(vexuPath)/eyes/hero"))
                }
            } else {
                // Apple's media framework leaves the box out too: not a fault, only a note.
                f.append(
                    Finding(
                        "SV-VIDEO-013", .info,
                        "no hero eye box (vexu/eyes/hero): 2D presentation shows the base layer's eye\(base.map { " (\($0))" } ?? ""); Apple's media framework also writes files without it",
                        at: "\(vexuPath)/eyes"))
            }
        }
    }

    /// Baseline, field of view, projection and disparity adjustment; the facts the pixel checks use.
    static func cameraRules(
        _ m: StereoVideoMetadata, _ v: SpatialVideoTrack, at entryPath: String, f: inout [Finding],
        facts: inout StereoFacts
    ) {
        let vexuPath = "\(entryPath)/vexu"
        facts.stereo = m.stereo
        if let b = m.baselineMicrometres {
            if b == 0 {
                f.append(
                    Finding(
                        "SV-VIDEO-016", .error,
                        "the camera baseline is 0 µm; set the real distance between the lenses (e.g. 64 mm = 64000)",
                        at: "\(vexuPath)/eyes/cams/blin"))
            } else if !SpatialUnits.plausibleBaselineMicrometres.contains(b) {
                f.append(
                    Finding(
                        "SV-VIDEO-017", .warning,
                        "baseline \(Fmt.num(Double(b) / 1000, 3)) mm is outside 10–100 mm (typical 19–65 mm); check the unit (µm)",
                        at: "\(vexuPath)/eyes/cams/blin"))
            }
        } else if m.hasVexu || v.hasLhvC {
            f.append(
                Finding(
                    "SV-VIDEO-015", .error,
                    "no camera baseline (vexu/eyes/cams/blin); visionOS needs it to treat the movie as spatial",
                    at: "\(vexuPath)/eyes"))
        }
        if let fov = m.horizontalFieldOfViewMillidegrees, let deg = m.stereo.horizontalFieldOfViewDegrees {
            if fov == 0 || fov >= 180_000 {
                f.append(
                    Finding(
                        "SV-VIDEO-019", .error,
                        "horizontal field of view \(Fmt.num(deg, 3))° is impossible for a rectilinear camera",
                        at: "\(entryPath)/hfov"))
            } else if fov > 90_000 {
                f.append(
                    Finding(
                        "SV-VIDEO-019", .warning,
                        "horizontal field of view \(Fmt.num(deg, 3))° is above Apple's recommended 90° for spatial video",
                        at: "\(entryPath)/hfov"))
            }
        } else if m.hasVexu || v.hasLhvC {
            f.append(
                Finding(
                    "SV-VIDEO-018", .error,
                    "no horizontal field of view (hfov box, sibling of vexu); add it (millidegrees)", at: entryPath))
        }
        if m.hasVexu {
            if let p = m.projectionKind {
                if p != "rect" {
                    f.append(
                        Finding(
                            "SV-VIDEO-020", .error,
                            "projection is '\(p)', not rectilinear ('rect'): spatial video is rectilinear",
                            at: "\(vexuPath)/proj/prji"))
                }
            } else {
                f.append(
                    Finding(
                        "SV-VIDEO-021", .info, "no proj box: rectilinear is implied (Apple's own writer omits it)",
                        at: vexuPath))
            }
        }
        disparityRules(
            m.disparityAdjustment, present: m.presentBoxes.contains("vexu/eyes/cmfy/dadj"), idRange: "SV-VIDEO-022",
            idComfort: "SV-VIDEO-023", at: "\(vexuPath)/eyes/cmfy/dadj", f: &f,
            ifAbsent: m.hasVexu
                ? Finding(
                    "SV-VIDEO-024", nil,
                    "no disparity adjustment (dadj): 0 is implied, so the nearest content sits at the window plane",
                    at: "\(vexuPath)/eyes/cmfy/dadj") : nil)
        if m.hasVexu {
            facts.spatial = true
            facts.impliedProjection = "implied: no proj box"
        }
    }

    /// Layer / view / SEI rules. Returns whether the second layer uses inter-layer prediction.
    static func streamRules(_ i: HEVCStreamInfo, f: inout [Finding], at path: String, hasLhvC: Bool) -> Bool {
        if hasLhvC || i.layerCount > 1 {
            if i.layerCount != 2 || !i.isMultiview {
                f.append(
                    Finding(
                        "SV-VIDEO-005", .error,
                        "the stream has \(i.layerCount) layer(s)\(i.isMultiview ? "" : ", not multiview (scalability mask)"); spatial video has exactly two views",
                        at: "\(path)/hvcC (VPS)"))
            }
            let views = i.layers.compactMap(\.viewId)
            if i.layerCount == 2 && (views.count != 2 || Set(views).count != 2) {
                f.append(
                    Finding(
                        "SV-VIDEO-006", .error,
                        "the two layers do not carry two distinct view ids (\(views)); players cannot tell the eyes apart",
                        at: "\(path)/hvcC (VPS)"))
            }
            if i.leftViewId == nil || i.rightViewId == nil {
                f.append(
                    Finding(
                        "SV-VIDEO-007", .warning,
                        "no SEI 176 (three-dimensional reference displays) naming the left and right views in hvcC or the first samples; Apple's encoder writes it",
                        at: path))
            } else if i.leftViewId == i.rightViewId || i.leftLayerId == nil || i.rightLayerId == nil {
                f.append(
                    Finding(
                        "SV-VIDEO-008", .error,
                        "SEI 176 left view id \(i.leftViewId ?? -1) / right view id \(i.rightViewId ?? -1) do not name the two layers",
                        at: path))
            }
            if i.layers.count == 2 {
                let a = i.layers[0], b = i.layers[1]
                if let aw = a.width, let ah = a.height, let bw = b.width, let bh = b.height, aw != bw || ah != bh {
                    f.append(
                        Finding(
                            "SV-VIDEO-025", .error,
                            "the eyes differ in size: layer 0 is \(aw)×\(ah), layer 1 is \(bw)×\(bh); encode both at the same size",
                            at: path))
                }
                if let p = b.profileIdc, p != 6 {
                    f.append(
                        Finding(
                            "SV-VIDEO-028", .warning,
                            "the second layer's profile is \(b.profileName ?? "\(p)"), not Multiview Main (6)",
                            at: "\(path)/lhvC"))
                }
                if b.usesInterLayerPrediction == true {
                    f.append(
                        Finding(
                            "SV-VIDEO-027", .info,
                            "the second layer uses inter-layer prediction (Apple/x265 style): decoding the right eye needs a multi-layer decoder",
                            at: path))
                    return true
                }
            }
        }
        return false
    }

    /// Every VPS/SPS/PPS/SEI of the configuration records must end as its syntax says (``RBSPEndCheck``).
    static func parameterSetRules(hvcC: [UInt8], lhvC: [UInt8]?, id: String, at path: String, f: inout [Finding]) {
        guard let h = try? HEVCDecoderConfigurationRecord(parsing: hvcC) else { return }
        var nals = h.nalUnits()
        if let l = lhvC, let r = try? LHEVCDecoderConfigurationRecord(parsing: l) { nals += r.nalUnits() }
        let vps = nals.first { $0.type == .vps }.flatMap { try? VideoParameterSet(nal: $0) }
        for n in nals {
            if case .wrong(let m) = RBSPEndCheck.check(n, vps: vps) {
                f.append(
                    Finding(
                        id, .warning, "\(m) (layer \(n.layerId)); strict decoders may reject it",
                        at: "\(path)/\(n.layerId == 0 ? "hvcC" : "lhvC")"))
            }
        }
    }

    /// `colr` in the sample entry against the base SPS VUI colour description.
    static func colourRules(_ entry: Box, hvcC: [UInt8], at path: String, f: inout [Finding]) {
        guard let h = try? HEVCDecoderConfigurationRecord(parsing: hvcC),
            let spsNAL = h.nalUnits().first(where: { $0.type == .sps && $0.layerId == 0 }),
            let sps = try? SequenceParameterSet(nal: spsNAL)
        else { return }
        let vui = sps.vui
        let described = sps.vuiPresent && vui.videoSignalTypePresent && vui.colourDescriptionPresent
        let colr = entry.children("colr").compactMap { $0.payload(ColourInformationBox.self) }.first {
            $0.colourType == "nclx" || $0.colourType == "nclc"
        }
        if let c = colr {
            if described
                && (c.colourPrimaries != UInt16(vui.colourPrimaries)
                    || c.transferCharacteristics != UInt16(vui.transferCharacteristics)
                    || c.matrixCoefficients != UInt16(vui.matrixCoeffs))
            {
                f.append(
                    Finding(
                        "SV-VIDEO-035", .warning,
                        "colr says primaries/transfer/matrix \(c.colourPrimaries)/\(c.transferCharacteristics)/\(c.matrixCoefficients) but the SPS VUI says \(vui.colourPrimaries)/\(vui.transferCharacteristics)/\(vui.matrixCoeffs); players disagree on the colours",
                        at: "\(path)/colr"))
            }
        } else if described {
            f.append(
                Finding(
                    "SV-VIDEO-034", .info,
                    "no colr in the sample entry although the SPS VUI describes the colour (\(vui.colourPrimaries)/\(vui.transferCharacteristics)/\(vui.matrixCoeffs)); players that read only the container guess",
                    at: path))
        }
    }

    /// HDR and layer-format consistency (issue 40, Specs/validation.md SV-HDR-*): the range in `colr nclx` against the
    /// VUI, `mdcv`/`clli` against SEI 137/144, PQ without a mastering display, the eyes' colour, and each layer's bit
    /// depth, chroma and profile against what the VPS and `hvcC` state.
    static func hdrRules(
        _ entry: Box, hvcC: [UInt8], lhvC: [UInt8]?, info: HEVCStreamInfo, at path: String,
        f: inout [Finding]
    ) {
        guard let h = try? HEVCDecoderConfigurationRecord(parsing: hvcC) else { return }
        var nals = h.nalUnits()
        if let l = lhvC, let r = try? LHEVCDecoderConfigurationRecord(parsing: l) { nals += r.nalUnits() }
        let vps = nals.first { $0.type == .vps }.flatMap { try? VideoParameterSet(nal: $0) }
        guard let spsNAL = nals.first(where: { $0.type == .sps && $0.layerId == 0 }),
            let sps = try? SequenceParameterSet(nal: spsNAL)
        else { return }
        let vui = VideoColour(vui: sps.vui, present: sps.vuiPresent)
        let colr = entry.children("colr").compactMap { $0.payload(ColourInformationBox.self) }
            .first { $0.colourType == "nclx" }
        if let c = colr, let v = vui, (c.rangeByte & 0x80 != 0) != v.fullRange {
            let said = c.rangeByte & 0x80 != 0 ? "full" : "limited"
            f.append(
                Finding(
                    "SV-HDR-001", .warning,
                    "colr nclx says \(said) range but the SPS VUI says "
                        + "\(v.fullRange ? "full" : "limited"); players reading the container and the bitstream "
                        + "show different contrast", at: "\(path)/colr"))
        }
        var stated = VideoColour(primaries: 2, transfer: 2, matrix: 2, fullRange: false)
        stated.adoptHDRMessages(from: nals)
        let pairs = [
            ("mdcv", stated.masteringDisplay, "mastering display (SEI 137)"),
            ("clli", stated.contentLightLevel, "content light level (SEI 144)"),
        ]
        for (box, sei, name) in pairs {
            var raw: [UInt8]? = nil
            if case .raw(let b)? = entry.child(FourCC(box))?.fields { raw = b }
            guard raw != sei else { continue }
            let what =
                raw == nil
                ? "no \(box) box although the hvcC SEI states a \(name)"
                : sei == nil
                    ? "a \(box) box but no \(name) in the hvcC SEI" : "\(box) differs from the \(name) of the hvcC SEI"
            f.append(
                Finding(
                    "SV-HDR-002", .warning,
                    "\(what); players reading the container and the bitstream see different HDR metadata",
                    at: "\(path)/\(box)"))
        }
        if vui?.transfer == 16, stated.masteringDisplay == nil, entry.child("mdcv") == nil {
            f.append(
                Finding(
                    "SV-HDR-003", .warning,
                    "PQ (SMPTE ST 2084) video without mastering display metadata "
                        + "(no SEI 137, no mdcv): displays tone-map it with guessed values", at: path))
        }
        if let v = vui, let l1 = vps?.videoSignalInfo(layerId: 1) {
            let c1 = VideoColour(
                primaries: Int(l1.colourPrimaries), transfer: Int(l1.transferCharacteristics),
                matrix: Int(l1.matrixCoeffs), fullRange: l1.videoFullRange)
            if c1.primaries != v.primaries || c1.transfer != v.transfer || c1.matrix != v.matrix
                || c1.fullRange != v.fullRange
            {
                f.append(
                    Finding(
                        "SV-HDR-004", .warning,
                        "the eyes are stated in different colour: layer 0 \(v.text), "
                            + "layer 1 \(c1.text) (VPS VUI)", at: path))
            }
        }
        layerFormatRules(h, sps: sps, info: info, at: path, f: &f)
    }

    /// SV-HDR-005: `hvcC`'s bit depth and chroma are the base SPS's; each layer's profile allows its bit depth and
    /// chroma (an 8-bit profile — Main, Multiview Main — for an 8-bit 4:2:0 layer; Main 10 up to 10 bits).
    static func layerFormatRules(
        _ h: HEVCDecoderConfigurationRecord, sps: SequenceParameterSet, info: HEVCStreamInfo,
        at path: String, f: inout [Finding]
    ) {
        let spsDepth = UInt8(truncatingIfNeeded: sps.bitDepthLumaMinus8),
            spsChroma = UInt8(truncatingIfNeeded: sps.chromaFormatIdc)
        if h.bitDepthLumaMinus8 != spsDepth || h.chromaFormatIdc != spsChroma {
            f.append(
                Finding(
                    "SV-HDR-005", .error,
                    "hvcC states \(Int(h.bitDepthLumaMinus8) + 8)-bit "
                        + "\(HEVCStreamInfo.chromaName(Int(h.chromaFormatIdc))) but the base SPS is "
                        + "\(Int(spsDepth) + 8)-bit \(HEVCStreamInfo.chromaName(Int(spsChroma)))", at: "\(path)/hvcC"))
        }
        for l in info.layers {
            guard let p = l.profileIdc, let d = l.bitDepthLuma else { continue }
            let maxDepth = p == 1 || p == 3 || p == 6 ? 8 : p == 2 ? 10 : 16
            if d > maxDepth || (l.chromaFormat != nil && l.chromaFormat != "4:2:0" && p <= 3) {
                f.append(
                    Finding(
                        "SV-HDR-005", .error,
                        "layer \(l.layerId) is \(d)-bit \(l.chromaFormat ?? "?") but its "
                            + "profile \(l.profileName ?? "\(p)") allows at most \(maxDepth)-bit 4:2:0; decoders of "
                            + "that profile refuse it", at: path))
            }
        }
    }

    /// Range and comfort of a disparity adjustment; `ifAbsent` is what to report when there is none.
    static func disparityRules(
        _ value: Int32?, present: Bool, idRange: String, idComfort: String, at: String, f: inout [Finding],
        ifAbsent: Finding?
    ) {
        guard let d = value else {
            if let ifAbsent { f.append(ifAbsent) }
            return
        }
        if d < -10000 || d > 10000 {
            f.append(
                Finding(
                    idRange, .error, "disparity adjustment \(d) is outside −10000…+10000 (±100 % of the width)", at: at)
            )
        } else if d < Comfort.minDisparity || d > Comfort.maxDisparity {
            f.append(
                Finding(
                    idComfort, .warning,
                    "disparity adjustment \(Fmt.num(SpatialUnits.percent(fromDisparityUnits: d)))% of the width is outside the comfort range −2 %…+5 % (Apple uses +2 %…+2.93 %); check the sign and unit (1/10000 of the width)",
                    at: at))
        }
    }
}

/// Metadata rules for spatial photos.
enum PhotoRules {
    static func check(
        _ file: ISOFile, findings f: inout [Finding], facts: inout StereoFacts, summary: inout [(String, JSON)]
    ) -> (spatial: Bool, whyNot: [String], photo: SpatialPhoto?) {
        let start = f.count  // the findings of these rules; errors among them decide the verdict
        guard file.heif != nil else {
            f.append(Finding("SV-PHOTO-001", .error, "not a HEIF image file (no meta box)"))
            return (false, ["not a HEIF image"], nil)
        }
        var problems: [SpatialDiagnostic] = []
        guard let p = SpatialPhotoReader.read(file, problems: &problems) else {
            if problems.isEmpty {
                f.append(
                    Finding(
                        "SV-PHOTO-001", .error,
                        "no 'ster' entity group: this is an ordinary HEIF image; make a spatial photo with `spatial-media combine` (two-image HEIF) or `spatial-media convert` (stereo images)",
                        at: "meta/grpl"))
                return (false, ["the HEIF file has no 'ster' stereo group"], nil)
            }
            for d in problems { f.append(Finding("SV-PHOTO-002", .error, d.message, at: d.path)) }
            return (false, problems.map(\.message), nil)
        }
        summary.append(("left_item", .uint(UInt64(p.left.itemID))))
        summary.append(("right_item", .uint(UInt64(p.right.itemID))))
        summary.append(("size", .string("\(p.left.width)x\(p.left.height)")))
        let lp = "item \(p.left.itemID) (left)", rp = "item \(p.right.itemID) (right)"
        if p.left.width != p.right.width || p.left.height != p.right.height {
            f.append(
                Finding(
                    "SV-PHOTO-003", .error,
                    "the eyes differ in size: left \(p.left.width)×\(p.left.height), right \(p.right.width)×\(p.right.height); Apple requires identical sizes",
                    at: "ispe of \(lp), \(rp)"))
        }
        if let prim = p.primaryItemID {
            if prim == p.right.itemID {
                f.append(
                    Finding(
                        "SV-PHOTO-005", .info,
                        "the primary item is the right eye; Apple's sample makes the left eye primary (2D viewers show the primary)",
                        at: "meta/pitm"))
            } else if prim != p.left.itemID {
                f.append(
                    Finding(
                        "SV-PHOTO-004", .warning,
                        "the primary item \(prim) is neither eye; apps that ignore the group show something else — make the left eye primary",
                        at: "meta/pitm"))
            }
        } else {
            f.append(Finding("SV-PHOTO-004", .warning, "no primary item (pitm)", at: "meta"))
        }
        intrinsicsRules(p, lp: lp, rp: rp, f: &f, facts: &facts, summary: &summary)
        extrinsicsRules(p, rp: rp, f: &f, summary: &summary)
        // Disparity
        let ld = p.left.disparityAdjustment, rd = p.right.disparityAdjustment
        if let a = ld, let b = rd, a != b {
            f.append(
                Finding(
                    "SV-PHOTO-020", .warning, "the eyes carry different disparity adjustments (\(a) and \(b))",
                    at: "\(lp), \(rp)"))
        }
        VideoRules.disparityRules(
            p.disparityAdjustment, present: p.disparityAdjustment != nil, idRange: "SV-PHOTO-016",
            idComfort: "SV-PHOTO-017", at: lp, f: &f,
            ifAbsent: Finding(
                "SV-PHOTO-015", nil,
                "no disparity adjustment property; Apple requires one on a stereo group (0 is allowed)", at: lp))
        facts.spatial = true
        facts.impliedProjection = "photos are rectilinear"
        if let d = p.disparityAdjustment { summary.append(("disparity_adjustment", .int(Int64(d)))) }
        let forms = p.left.intrinsicsForms + p.right.intrinsicsForms
        if !forms.isEmpty && !forms.contains(.appleUUID) {
            f.append(
                Finding(
                    "SV-PHOTO-018", .info,
                    "camera properties are only in the standard cmin/cmex form; Apple writes its uuid forms and whether visionOS reads the FourCCs is unconfirmed (`spatial-media combine PHOTO.heic -o OUT.heic --camera-form both --baseline MM --hfov DEG` writes both, without re-encoding)",
                    at: "meta/iprp"))
        }
        for d in p.diagnostics {
            let sev: Severity = d.severity == .error ? .error : d.severity == .warning ? .warning : .info
            f.append(
                Finding(d.message.contains("('lhv1')") ? "SV-PHOTO-021" : "SV-PHOTO-019", sev, d.message, at: d.path))
        }
        codingRules(file, p, f: &f)
        auxiliaryRules(file, p, f: &f)
        let errors = f[start...].filter { $0.severity == .error }
        return (errors.isEmpty, errors.map(\.message), p)
    }

    /// Camera models: SV-PHOTO-006 (missing), 007 (the eyes differ), 008 (principal point off centre), 009 (wide
    /// field of view); records the stereo values and the field of view in the facts and summary.
    private static func intrinsicsRules(
        _ p: SpatialPhoto, lp: String, rp: String, f: inout [Finding],
        facts: inout StereoFacts, summary: inout [(String, JSON)]
    ) {
        let li = p.left.intrinsics, ri = p.right.intrinsics
        if li == nil || ri == nil {
            let which = [li == nil ? "left" : nil, ri == nil ? "right" : nil].compactMap { $0 }.joined(
                separator: " and ")
            f.append(
                Finding(
                    "SV-PHOTO-006", .error,
                    "no camera intrinsics for the \(which) eye; Apple requires a camera model (fx, principal point) for each eye",
                    at: li == nil ? lp : rp))
        }
        if let l = li, let r = ri, let lf = p.left.focalLengthPixels, let rf = p.right.focalLengthPixels {
            let rel = abs(lf - rf) / max(lf, rf, 1e-9)
            let lpp = p.left.principalPoint, rpp = p.right.principalPoint
            if rel > 0.005 || l.skew != r.skew {
                f.append(
                    Finding(
                        "SV-PHOTO-007", .warning,
                        "the eyes' intrinsics differ: fx \(Fmt.num(lf)) px vs \(Fmt.num(rf)) px; rectified pairs share one camera model",
                        at: "\(lp), \(rp)"))
            } else if let a = lpp, let b = rpp, abs(a.x - b.x) > 0.5 || abs(a.y - b.y) > 0.5 {
                f.append(
                    Finding(
                        "SV-PHOTO-007", .warning,
                        "the eyes' principal points differ: (\(Fmt.num(a.x)), \(Fmt.num(a.y))) vs (\(Fmt.num(b.x)), \(Fmt.num(b.y))) px",
                        at: "\(lp), \(rp)"))
            }
        }
        for (e, loc) in [(p.left, lp), (p.right, rp)] {
            if let off = e.principalPointOffset, e.width > 0, e.height > 0 {
                let ox = abs(off.x) / Double(e.width), oy = abs(off.y) / Double(e.height)
                if ox > 0.01 || oy > 0.01 {
                    f.append(
                        Finding(
                            "SV-PHOTO-008", .warning,
                            "principal point is off centre by (\(Fmt.num(off.x)), \(Fmt.num(off.y))) px (\(Fmt.num(ox * 100))%, \(Fmt.num(oy * 100))% of the size); Apple expects optically centred eyes — crop to centre the optical axis",
                            at: loc))
                }
            }
        }
        facts.stereo = p.stereo
        if let fov = p.horizontalFOVDegrees {
            summary.append(("hfov_degrees", .double(fov)))
            if fov > 90 {
                f.append(
                    Finding(
                        "SV-PHOTO-009", .warning,
                        "horizontal field of view \(Fmt.num(fov))° is above the recommended 90°", at: lp))
            }
        }
    }

    /// Camera positions: SV-PHOTO-010 (none on the right eye), 011 (no baseline), 012 (implausible baseline), 013
    /// (not at +x), 014 (rotated cameras).
    private static func extrinsicsRules(
        _ p: SpatialPhoto, rp: String, f: inout [Finding], summary: inout [(String, JSON)]
    ) {
        if p.right.extrinsics == nil {
            f.append(
                Finding(
                    "SV-PHOTO-010", .error,
                    "no camera extrinsics on the right eye: the baseline is unknown; write the right camera position [baseline, 0, 0]",
                    at: rp))
        } else if let b = p.baselineMicrometres {
            summary.append(("baseline_mm", .double(b / 1000)))
            let pos = p.right.extrinsics?.position ?? (x: 0, y: 0, z: 0)
            let l = p.left.extrinsics?.position ?? (x: 0, y: 0, z: 0)
            let dx = Double(pos.x - l.x), dy = Double(pos.y - l.y), dz = Double(pos.z - l.z)
            if b == 0 {
                f.append(Finding("SV-PHOTO-011", .error, "both cameras are at the same position (baseline 0)", at: rp))
            } else {
                if b < Double(SpatialUnits.plausibleBaselineMicrometres.lowerBound)
                    || b > Double(SpatialUnits.plausibleBaselineMicrometres.upperBound)
                {
                    f.append(
                        Finding(
                            "SV-PHOTO-012", .warning,
                            "baseline \(Fmt.num(b / 1000, 3)) mm is outside 10–100 mm (typical 19–65 mm); positions are in µm",
                            at: rp))
                }
                if dx <= 0 || abs(dy) > 0.05 * b || abs(dz) > 0.05 * b {
                    f.append(
                        Finding(
                            "SV-PHOTO-013", .error,
                            "the right camera is at (\(Int(dx)), \(Int(dy)), \(Int(dz))) µm from the left; Apple requires it at +x by the baseline (eyes swapped or wrong axis?)",
                            at: rp))
                }
            }
        }
        let rot = p.rotationDegrees
        if abs(rot) > 0.01 {
            f.append(
                Finding(
                    "SV-PHOTO-014", .warning,
                    "the extrinsics rotate the right camera by \(Fmt.num(rot, 3))° relative to the left; spatial photos expect parallel, unrotated cameras (rectify first)",
                    at: rp))
        }
    }

    /// What each eye carries besides its picture, against what Apple's spatial photos carry (an HDR gain map per eye on
    /// iPhone captures): SV-PHOTO-024 (no gain map, info), SV-PHOTO-025 (the eyes carry different kinds of auxiliary
    /// images), SV-PHOTO-026 (an auxiliary image's shape differs from its eye's, so it cannot cover the same picture).
    static func auxiliaryRules(_ file: ISOFile, _ p: SpatialPhoto, f: inout [Finding]) {
        guard let h = file.heif else { return }
        let inventory = HEIFImageInventory(h)
        var kinds: [String: [String]] = [:]
        for (eye, name) in [(p.left, "left"), (p.right, "right")] {
            let aux = inventory.auxiliary(of: eye.itemID)
            kinds[name] = aux.map(\.kind.rawValue).sorted()
            for a in aux where a.displayedWidth > 0 && a.displayedHeight > 0 && eye.width > 0 && eye.height > 0 {
                let ratio = Double(a.displayedWidth) / Double(a.displayedHeight),
                    eyeRatio = Double(eye.width) / Double(eye.height)
                if abs(ratio - eyeRatio) / eyeRatio > 0.02 {
                    f.append(
                        Finding(
                            "SV-PHOTO-026", .warning,
                            "the \(name) eye's \(a.label) (item \(a.itemID)) is \(a.displayedWidth)x\(a.displayedHeight) as shown, not the shape of its \(eye.width)x\(eye.height) picture: it cannot cover the same picture (was the picture cropped or rotated without it?)",
                            at: "item \(a.itemID)"))
                }
            }
        }
        let leftKinds = kinds["left"] ?? [], rightKinds = kinds["right"] ?? []
        if leftKinds != rightKinds {
            f.append(
                Finding(
                    "SV-PHOTO-025", .warning,
                    "the eyes carry different auxiliary images (left: \(leftKinds.isEmpty ? "none" : leftKinds.joined(separator: ", ")); right: \(rightKinds.isEmpty ? "none" : rightKinds.joined(separator: ", "))); a viewer shows the eyes differently (e.g. one in HDR)",
                    at: "meta/iref"))
        }
        let gain: Set<AuxiliaryKind> = [.gainMap, .isoGainMap]
        let missing = [("left", p.left), ("right", p.right)].filter { _, eye in
            !inventory.auxiliary(of: eye.itemID).contains { gain.contains($0.kind) }
        }.map(\.0)
        if !missing.isEmpty {
            f.append(
                Finding(
                    "SV-PHOTO-024", .info,
                    (missing.count == 2 ? "no HDR gain map on either eye" : "no HDR gain map on the \(missing[0]) eye")
                        + ": Apple's iPhone spatial photos carry one per eye (urn:com:apple:photo:2020:aux:hdrgainmap), without it the photo shows in SDR (`convert --left-gain-map/--right-gain-map` attaches one)",
                    at: "meta/iref"))
        }
    }

    /// How each eye's image (or its grid tiles) is coded: profile of 8-bit 4:2:0 colour images, trailing bits.
    static func codingRules(_ file: ISOFile, _ p: SpatialPhoto, f: inout [Finding]) {
        guard let h = file.heif else { return }
        for (eye, name) in [(p.left, "left"), (p.right, "right")] {
            var ids = [eye.itemID]
            ids += h.allReferences.filter { $0.type == "dimg" && $0.from == eye.itemID }.flatMap(\.to)
            var seen = Set<[UInt8]>()
            for id in ids {
                for prop in h.properties(of: id) {
                    guard let rec = prop.box.payload(HEVCConfigurationBox.self)?.record, seen.insert(rec).inserted,
                        let c = try? HEVCDecoderConfigurationRecord(parsing: rec)
                    else { continue }
                    let at = "item \(id) (\(name) eye\(id == eye.itemID ? "" : " tile"))/hvcC"
                    if c.profileIdc == 4 && c.chromaFormatIdc == 1 && c.bitDepthLumaMinus8 == 0
                        && c.bitDepthChromaMinus8 == 0
                    {
                        f.append(
                            Finding(
                                "SV-PHOTO-023", .warning,
                                "the \(name) eye is coded in profile 4 (range extensions, e.g. x265's \"Main Intra\") although it is 8-bit 4:2:0; Apple codes colour images as Main Still Picture (3) and keeps profile 4 for depth and gain maps — decoders limited to Main may refuse it",
                                at: at))
                    }
                    VideoRules.parameterSetRules(hvcC: rec, lhvC: nil, id: "SV-PHOTO-022", at: at, f: &f)
                }
            }
        }
    }
}
