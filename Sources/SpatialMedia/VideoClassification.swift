import BinaryIO
import ISOBMFF
import SystemSupport

/// What kind of stereo (if any) a movie carries.
public enum VideoStereoClass: Sendable, Equatable, CustomStringConvertible {
    /// Apple spatial video: MV-HEVC (`hvcC` + `lhvC`), `stri` with both eyes and not reversed,
    /// a baseline (`blin`) and a horizontal field of view (`hfov`).
    case spatialVideo
    /// Two-layer MV-HEVC whose spatial metadata is missing or incomplete (see the reasons).
    case stereoMVHEVCWithoutSpatialMetadata
    /// Both views packed in one picture, signalled by `st3d`, `vexu/pack` or spherical v1 XML.
    case framePacked(FramePacking)
    /// Ordinary 2D video.
    case monoscopic2D
    /// The movie has no video track.
    case noVideo

    /// A stable machine name (`spatial-video`, `stereo-mv-hevc-without-spatial-metadata`,
    /// `frame-packed-side-by-side`, `frame-packed-top-bottom`, `2d`, `no-video`).
    public var name: String {
        switch self {
        case .spatialVideo: return "spatial-video"
        case .stereoMVHEVCWithoutSpatialMetadata: return "stereo-mv-hevc-without-spatial-metadata"
        case .framePacked(let p): return "frame-packed-\(p.rawValue)"
        case .monoscopic2D: return "2d"
        case .noVideo: return "no-video"
        }
    }

    public var description: String {
        switch self {
        case .spatialVideo: return "spatial video (MV-HEVC stereo with spatial metadata)"
        case .stereoMVHEVCWithoutSpatialMetadata: return "stereo MV-HEVC without (complete) spatial metadata"
        case .framePacked(let p): return "frame-packed stereo (\(p.rawValue))"
        case .monoscopic2D: return "2D (monoscopic) video"
        case .noVideo: return "no video track"
        }
    }
}

/// One video track as seen by the spatial-video analysis.
public struct SpatialVideoTrack: Sendable {
    /// Index of the `trak` box in `moov` (0-based).
    public var trackIndex: Int
    public var trackID: UInt32
    /// Sample entry type (`hvc1`, `hev1`, `avc1` …) of the first sample entry.
    public var sampleEntryType: FourCC?
    public var width: Int
    public var height: Int
    /// The track is enabled (`tkhd` flag bit 0).
    public var enabled: Bool
    public var hasHvcC: Bool
    public var hasLhvC: Bool
    /// `nuh_layer_id` values of the NAL units stored in `lhvC` (typically `[1]`).
    public var lhvCLayerIDs: [UInt8]
    /// Stereo metadata of the first sample entry.
    public var metadata: StereoVideoMetadata

    /// `hvc1`/`hev1` sample entry.
    public var isHEVC: Bool { sampleEntryType == "hvc1" || sampleEntryType == "hev1" }
    /// HEVC with both `hvcC` and `lhvC`: a multi-layer (MV-HEVC) stream in one track.
    public var isMVHEVC: Bool { isHEVC && hasHvcC && hasLhvC }
}

/// A track that is not the main video: audio, timed metadata, auxiliary video.
public struct SpatialOtherTrack: Sendable {
    public var trackIndex: Int
    public var trackID: UInt32
    public var handler: String
    public var sampleEntryType: String
    /// What the structure says the track is (e.g. `timed metadata (mebx)`).
    public var role: String
    /// For `mebx` tracks: the metadata keys declared in the sample entry (`mdta:com.apple…`).
    public var metadataKeys: [String]
}

/// The spatial-video view of a movie: per-track stereo metadata, the classification, and the
/// reasons it is not spatial video.
public struct SpatialVideoReport: Sendable {
    public var classification: VideoStereoClass
    /// Each missing or wrong piece that keeps the movie from being spatial video; empty when it is.
    public var whyNotSpatial: [String]
    public var videoTracks: [SpatialVideoTrack]
    /// Index in ``videoTracks`` of the track the classification is about.
    public var primaryVideoTrack: Int?
    public var otherTracks: [SpatialOtherTrack]
    /// Stereo metadata problems of every video track.
    public var diagnostics: [SpatialDiagnostic]
    /// True when the file holds movie fragments.
    public var fragmented: Bool
    /// The playback profile the movie is made for and where it falls short of it.
    public var profile = ProfileVerdict(profile: .noVideo, stereo: "none", findings: [])

    /// Analyses a parsed file. Never throws; problems become diagnostics.
    public init(_ file: ISOFile) {
        var videos: [SpatialVideoTrack] = []
        var others: [SpatialOtherTrack] = []
        let traks = file.box("moov")?.children("trak") ?? []
        for (i, trak) in traks.enumerated() {
            let track = Track(trak)
            let handler = track.handler
            let entry = track.sampleEntries.first
            let entryPayload = entry?.payload(SampleEntry.self)
            let enabled = (track.header?.fullBox.flags ?? 1) & 1 != 0
            if handler == "vide", let entry, entryPayload?.kind == .visual {
                var v = SpatialVideoTrack(
                    trackIndex: i, trackID: track.trackID, sampleEntryType: entry.type,
                    width: Int(entryPayload?.width ?? 0), height: Int(entryPayload?.height ?? 0), enabled: enabled,
                    hasHvcC: entry.child("hvcC") != nil, hasLhvC: entry.child("lhvC") != nil,
                    lhvCLayerIDs: [], metadata: StereoMetadataReader.read(sampleEntry: entry, track: trak))
                if let l = entry.child("lhvC")?.payload(LHEVCConfigurationBox.self) {
                    v.lhvCLayerIDs = Self.layerIDs(lhvC: l.record)
                }
                videos.append(v)
            } else {
                others.append(Self.describeOther(index: i, track: track, entry: entry, enabled: enabled))
            }
        }
        videoTracks = videos
        fragmented = file.isFragmented
        diagnostics = videos.flatMap { $0.metadata.diagnostics }
        // The track the movie is about: the first enabled MV-HEVC track, else the first enabled video, else the first
        // video.
        let primary =
            videos.firstIndex { $0.enabled && $0.isMVHEVC } ?? videos.firstIndex { $0.isMVHEVC }
            ?? videos.firstIndex { $0.enabled } ?? (videos.isEmpty ? nil : 0)
        primaryVideoTrack = primary
        // Extra video tracks are reported as other tracks too (auxiliary / Cinematic-style), without removing them from
        // videoTracks.
        for (k, v) in videos.enumerated() where k != primary {
            let trak = traks[v.trackIndex]
            let t = Track(trak)
            var role = "additional video track"
            if t.handler == "auxv" || !t.references("auxl").isEmpty {
                role = "auxiliary video (e.g. Cinematic-mode disparity)"
            } else if !v.enabled {
                role = "additional video track (disabled; e.g. Cinematic-mode disparity or a second rendition)"
            }
            others.append(
                SpatialOtherTrack(
                    trackIndex: v.trackIndex, trackID: v.trackID, handler: t.handler?.description ?? "",
                    sampleEntryType: v.sampleEntryType?.description ?? "", role: role, metadataKeys: []))
        }
        otherTracks = others.sorted { $0.trackIndex < $1.trackIndex }

        guard let p = primary else {
            classification = .noVideo
            whyNotSpatial = ["the movie has no video track"]
            return
        }
        let v = videos[p]
        let reasons = Self.reasons(v)
        whyNotSpatial = reasons
        if v.isMVHEVC {
            classification = reasons.isEmpty ? .spatialVideo : .stereoMVHEVCWithoutSpatialMetadata
        } else if let packing = v.metadata.framePacking {
            classification = .framePacked(packing)
        } else {
            classification = .monoscopic2D
        }
        profile = ProfileVerdict(file: file, report: self, path: (file.source as? FileSource)?.path)
    }

    /// The precise missing pieces for spatial video.
    static func reasons(_ v: SpatialVideoTrack) -> [String] {
        var r: [String] = []
        guard let type = v.sampleEntryType else { return ["the video track has no sample entry"] }
        if !v.isHEVC {
            r.append("the video codec is '\(type)', not HEVC ('hvc1'/'hev1'); spatial video is MV-HEVC")
            return r
        }
        if !v.hasHvcC { r.append("the '\(type)' sample entry has no hvcC") }
        if !v.hasLhvC {
            r.append("the '\(type)' sample entry has no lhvC, so the stream has a single layer (no second eye view)")
        }
        let m = v.metadata
        if !m.hasVexu {
            r.append("no vexu box in the '\(type)' sample entry (stereo view information missing)")
        } else if let f = m.viewFlags {
            if !f.hasLeftEye || !f.hasRightEye {
                r.append(
                    "vexu/eyes/stri flags 0x\(String(f.rawValue, radix: 16)) do not signal both eyes (left and right)")
            }
            if f.eyeViewsReversed { r.append("vexu/eyes/stri has eye_views_reversed set (must be 0 for MV-HEVC)") }
        } else {
            r.append("vexu has no eyes/stri box")
        }
        if m.baselineMicrometres == nil { r.append("no camera baseline (vexu/eyes/cams/blin missing)") }
        if m.horizontalFieldOfViewMillidegrees == nil { r.append("no horizontal field of view (hfov box missing)") }
        if let p = m.projectionKind, p != "rect" { r.append("projection is '\(p)', not rectilinear ('rect')") }
        return r
    }

    /// `nuh_layer_id` of every NAL unit in an `lhvC` record, read with bounds checks.
    /// Record: version(1) segmentation(2) parallelism(1) temporal/length(1) numOfArrays(1), then arrays.
    public static func layerIDs(lhvC record: [UInt8]) -> [UInt8] {
        var r = ByteReader(record)
        var ids: [UInt8] = []
        do {
            try r.skip(5)
            let arrays = try r.readU8()
            for _ in 0..<arrays {
                _ = try r.readU8()
                let n = try r.readU16()
                for _ in 0..<n {
                    let len = Int(try r.readU16())
                    let nal = try r.readBytes(len)
                    if nal.count >= 2 {
                        let id = (nal[0] & 1) << 5 | nal[1] >> 3
                        if !ids.contains(id) { ids.append(id) }
                    }
                }
            }
        } catch {}
        return ids.sorted()
    }

    static func describeOther(index: Int, track: Track, entry: Box?, enabled: Bool) -> SpatialOtherTrack {
        let handler = track.handler?.description ?? ""
        let type = entry?.type.description ?? ""
        var keys: [String] = []
        var role: String
        switch handler {
        case "soun": role = "audio"
        case "meta":
            if entry?.type == "mebx" {
                keys = mebxKeys(entry)
                role =
                    keys.contains { $0.lowercased().contains("cinematic") }
                    ? "timed metadata (mebx, Cinematic-mode)" : "timed metadata (mebx)"
            } else {
                role = "timed metadata"
            }
        case "text", "sbtl", "subt", "clcp": role = "text/subtitles"
        case "tmcd": role = "timecode"
        case "auxv": role = "auxiliary video (e.g. Cinematic-mode disparity)"
        default: role = handler.isEmpty ? "track without handler" : "'\(handler)' track"
        }
        if !enabled { role += " (disabled)" }
        return SpatialOtherTrack(
            trackIndex: index, trackID: track.trackID, handler: handler, sampleEntryType: type, role: role,
            metadataKeys: keys)
    }

    /// Keys declared in a `mebx` sample entry: each `keys` child holds a `keyd` (namespace + key value).
    static func mebxKeys(_ entry: Box?) -> [String] {
        guard let keys = entry?.child("keys") else { return [] }
        var out: [String] = []
        for k in keys.children ?? [] {
            guard let keyd = k.child("keyd"), case .raw(let b) = keyd.fields, b.count >= 4 else { continue }
            let ns = String(decoding: b[0..<4], as: UTF8.self)
            let value = String(decoding: b[4...].prefix(256), as: UTF8.self)
            out.append("\(ns):\(value)")
        }
        return out
    }

    /// The primary video track, if any.
    public var primary: SpatialVideoTrack? {
        primaryVideoTrack.flatMap { videoTracks.indices.contains($0) ? videoTracks[$0] : nil }
    }

    // MARK: Output

    /// Human-readable lines for `spatial-media info` (human units).
    public var lines: [String] {
        var out = ["spatial video: \(classification)"]
        for (k, v) in videoTracks.enumerated() {
            let m = v.metadata
            var head = "  video track \(v.trackID): \(v.sampleEntryType?.description ?? "?") \(v.width)x\(v.height)"
            if v.isMVHEVC {
                head +=
                    ", MV-HEVC (hvcC + lhvC"
                    + (v.lhvCLayerIDs.isEmpty
                        ? ")" : ", lhvC layers \(v.lhvCLayerIDs.map(String.init).joined(separator: ","))") + ")"
            }
            if k == primaryVideoTrack && videoTracks.count > 1 { head += " [primary]" }
            out.append(head)
            if let f = m.viewFlags {
                var views: [String] = []
                if f.hasLeftEye { views.append("left") }
                if f.hasRightEye { views.append("right") }
                if f.hasAdditionalViews { views.append("additional") }
                out.append(
                    "    views: \(views.isEmpty ? "none" : views.joined(separator: "+"))"
                        + (f.eyeViewsReversed ? " (reversed)" : ""))
            }
            if let h = m.heroEye { out.append("    hero eye: \(h)") }
            if let b = m.baselineMicrometres {
                out.append("    baseline: \(SpatialFormat.millimetres(b)) mm (\(b) µm)")
            }
            if let f = m.horizontalFieldOfViewMillidegrees {
                out.append("    horizontal field of view: \(SpatialFormat.degrees(f))°")
            }
            if let d = m.disparityAdjustment {
                out.append(
                    "    disparity adjustment: \(SpatialFormat.percent(d)) % of width (\(SpatialFormat.fraction(d)), \(d)/10000)"
                )
            }
            if m.projectionKind == nil, let p = m.effectiveProjection(isMVHEVC: v.isMVHEVC) {
                out.append("    projection: \(SpatialFormat.projectionName(p)) (implied: vexu has no proj box)")
            }
            for form in m.projectionForms { out.append("    projection (\(form.source)): \(form.text)") }
            if let k = m.viewPackingKind { out.append("    view packing: '\(k)'") }
            if let t = m.requiredBoxTypes {
                out.append("    required boxes: \(t.map(\.description).joined(separator: ", "))")
            }
            if let s = m.googleStereoMode { out.append("    st3d stereo mode: \(s) (\(SpatialFormat.st3dName(s)))") }
            if let g = m.googleProjection { out.append("    sv3d projection: '\(g)'") }
            if let x = m.sphericalV1StereoMode { out.append("    spherical v1 stereo mode: \(x)") }
        }
        for o in otherTracks {
            out.append(
                "  track \(o.trackID): \(o.role)" + (o.sampleEntryType.isEmpty ? "" : " ['\(o.sampleEntryType)']")
                    + (o.metadataKeys.isEmpty ? "" : " keys: \(o.metadataKeys.joined(separator: ", "))"))
        }
        if primaryVideoTrack != nil { out += profile.lines.map { "  " + $0 } }
        for r in whyNotSpatial { out.append("  not spatial: \(r)") }
        for d in diagnostics { out.append("  \(d)") }
        return out
    }

    /// Machine-readable form (the `"spatial_video"` object of `info --json`).
    public var json: JSON {
        var tracks: [JSON] = []
        for v in videoTracks {
            let m = v.metadata
            var o: [(String, JSON)] = [
                ("track_id", .uint(UInt64(v.trackID))), ("sample_entry", .string(v.sampleEntryType?.description ?? "")),
                ("width", .uint(UInt64(v.width))), ("height", .uint(UInt64(v.height))), ("mv_hevc", .bool(v.isMVHEVC)),
                ("lhvc_layer_ids", .array(v.lhvCLayerIDs.map { .uint(UInt64($0)) })),
            ]
            if let f = m.viewFlags {
                o.append(
                    (
                        "stri",
                        .object([
                            ("flags", .uint(UInt64(f.rawValue))), ("has_left_eye", .bool(f.hasLeftEye)),
                            ("has_right_eye", .bool(f.hasRightEye)),
                            ("has_additional_views", .bool(f.hasAdditionalViews)),
                            ("eye_views_reversed", .bool(f.eyeViewsReversed)),
                        ])
                    ))
            }
            if let h = m.heroEye { o.append(("hero_eye", .string(h.description))) }
            if let b = m.baselineMicrometres {
                o.append(("baseline_um", .uint(UInt64(b))));
                o.append(("baseline_mm", .double(SpatialUnits.millimetres(fromMicrometres: b))))
            }
            if let f = m.horizontalFieldOfViewMillidegrees {
                o.append(("hfov_millidegrees", .uint(UInt64(f))));
                o.append(("hfov_degrees", .double(SpatialUnits.degrees(fromMillidegrees: f))))
            }
            if let d = m.disparityAdjustment {
                o.append(("disparity_adjustment", .int(Int64(d))));
                o.append(("disparity_percent", .double(SpatialUnits.percent(fromDisparityUnits: d))))
            }
            if let p = m.effectiveProjection(isMVHEVC: v.isMVHEVC) { o.append(("projection", .string(p.description))) }
            o.append(("projection_box_present", .bool(m.hasProjectionBox)))
            if let k = m.viewPackingKind { o.append(("view_packing", .string(k.description))) }
            if let t = m.requiredBoxTypes {
                o.append(("required_box_types", .array(t.map { .string($0.description) })))
            }
            if let s = m.googleStereoMode { o.append(("st3d_stereo_mode", .uint(UInt64(s)))) }
            if let g = m.googleProjection { o.append(("sv3d_projection", .string(g.description))) }
            if let x = m.sphericalV1StereoMode { o.append(("spherical_v1_stereo_mode", .string(x))) }
            if let x = m.sphericalV1Projection { o.append(("spherical_v1_projection", .string(x))) }
            if let b = m.googleEquirectBounds { o.append(("sv3d_equi_bounds", .array(b.map { .uint(UInt64($0)) }))) }
            if let p = m.googlePose { o.append(("sv3d_pose", .array(p.map { .int(Int64($0)) }))) }
            if let n = m.lensCount { o.append(("lens_count", .uint(UInt64(n)))) }
            o.append(
                (
                    "projections",
                    .array(
                        m.projectionForms.map {
                            .object([("source", .string($0.source)), ("projection", .string($0.text))])
                        })
                ))
            o.append(("boxes_present", .array(m.presentBoxes.map { .string($0) })))
            tracks.append(.object(o))
        }
        let others: [JSON] = otherTracks.map { t in
            .object([
                ("track_id", .uint(UInt64(t.trackID))), ("handler", .string(t.handler)),
                ("sample_entry", .string(t.sampleEntryType)),
                ("role", .string(t.role)), ("metadata_keys", .array(t.metadataKeys.map { .string($0) })),
            ])
        }
        return .object([
            ("classification", .string(classification.name)), ("description", .string(classification.description)),
            ("profile", profile.json),
            ("why_not_spatial", .array(whyNotSpatial.map { .string($0) })), ("video_tracks", .array(tracks)),
            ("other_tracks", .array(others)), ("diagnostics", .array(diagnostics.map(\.json))),
        ])
    }
}

/// Exact decimal text for stored integers (no floating-point rounding in output).
enum SpatialFormat {
    static func decimal(_ value: Int64, scale: Int64, places: Int) -> String {
        let neg = value < 0
        let mag = value.magnitude
        let whole = mag / UInt64(scale)
        var frac = String(mag % UInt64(scale))
        while frac.count < places { frac = "0" + frac }
        return (neg ? "-" : "") + "\(whole)" + (places > 0 ? "." + frac : "")
    }
    static func millimetres(_ um: UInt32) -> String { decimal(Int64(um), scale: 1000, places: 3) }
    static func degrees(_ md: UInt32) -> String { decimal(Int64(md), scale: 1000, places: 3) }
    static func percent(_ u: Int32) -> String { (u >= 0 ? "+" : "") + decimal(Int64(u), scale: 100, places: 2) }
    static func fraction(_ u: Int32) -> String { decimal(Int64(u), scale: 10000, places: 4) }
    static func projectionName(_ p: FourCC) -> String {
        switch p {
        case "rect": return "rectilinear ('rect')"
        case "equi": return "equirectangular ('equi')"
        case "hequ": return "half-equirectangular ('hequ')"
        case "fish": return "fisheye ('fish')"
        case "prim": return "parametric immersive ('prim')"
        default: return "'\(p)'"
        }
    }
    static func st3dName(_ m: UInt8) -> String {
        switch m {
        case 0: return "mono"
        case 1: return "top-bottom"
        case 2: return "left-right"
        case 3: return "stereo-custom"
        default: return "reserved"
        }
    }
}

extension SpatialVideoReport {
    /// The spatial-video section of `spatial-media info`: text lines and the `"spatial_video"` JSON
    /// object. Nil for files without a movie (`moov`), such as still images.
    public static func infoSection(_ file: ISOFile) -> (lines: [String], json: JSON)? {
        guard file.box("moov") != nil else { return nil }
        let r = SpatialVideoReport(file)
        return (r.lines, r.json)
    }
}
