import BinaryIO
import SystemSupport

/// The one severity of every report (``/BinaryIO/Severity``), named here for the validator's users.
public typealias Severity = BinaryIO.Severity

/// One validation rule. Every rule is listed in `Specs/validation.md` with the same ID.
public struct Rule: Sendable, Equatable {
    public var id: String
    /// The usual severity (some rules escalate; the spec lists both levels).
    public var severity: Severity
    public var title: String
    /// Where the rule comes from: Apple document, ISO clause, Specs/formats.md section, or our measurement rationale.
    public var source: String
}

/// A rule that fired on one input.
public struct Finding: Sendable, Equatable {
    public var ruleID: String
    public var severity: Severity
    /// What is wrong and what to do about it.
    public var message: String
    /// Where: a box path with offset, an item id, a frame number; empty for whole-file findings.
    public var location: String

    public init(_ ruleID: String, _ severity: Severity? = nil, _ message: String, at location: String = "") {
        self.ruleID = ruleID
        self.severity = severity ?? RuleCatalog.rule(ruleID)?.severity ?? .info
        self.message = message
        self.location = location
    }

    /// SV-GEOM-021: the pixels could not be checked (`why`), so only the metadata was.
    static func pixelsNotChecked(_ why: String) -> Finding {
        Finding(
            "SV-GEOM-021", .warning,
            "pixels not checked: \(why); metadata checked only (--no-pixels skips pixel checks)")
    }

    public var json: JSON {
        var o: [(String, JSON)] = [
            ("rule", .string(ruleID)), ("severity", .string(severity.rawValue)), ("message", .string(message)),
        ]
        if !location.isEmpty { o.append(("location", .string(location))) }
        if let r = RuleCatalog.rule(ruleID) {
            o.append(("title", .string(r.title))); o.append(("source", .string(r.source)))
        }
        return .object(o)
    }
}

/// Every rule, in ID order.
public enum RuleCatalog {
    static let apple =
        "Apple, “QuickTime and ISO Base Media File Formats and Spatial and Immersive Media” (Stereo-Video-ISOBMFF-Extensions)"
    static let applePhoto = "Apple sample “Writing spatial photos”"
    static let wwdc =
        "Apple WWDC24 s.10166 “Build compelling spatial photo and video experiences” (rectified, optically centred, no vertical disparity)"

    public static let all: [Rule] = [
        // Container and stream (videos)
        Rule(id: "SV-VIDEO-001", severity: .error, title: "Video is HEVC", source: "\(apple); Specs/formats.md §1.1"),
        Rule(
            id: "SV-VIDEO-002", severity: .warning, title: "Sample entry is 'hvc1' (parameter sets out of band)",
            source: "Apple HEVC Stereo Video profile (Specs/formats.md §7: unconfirmed MUST); Specs/formats.md §8"),
        Rule(
            id: "SV-VIDEO-003", severity: .error, title: "hvcC present",
            source: "ISO/IEC 14496-15 §8.3; Specs/formats.md §1.1"),
        Rule(
            id: "SV-VIDEO-004", severity: .error, title: "lhvC present (second layer configured)",
            source: "ISO/IEC 14496-15 §9.5; Specs/formats.md §2.2"),
        Rule(
            id: "SV-VIDEO-005", severity: .error, title: "Exactly two layers / views in the stream",
            source: "ISO/IEC 23008-2 Annex F/G (MV-HEVC); Specs/formats.md §3.2"),
        Rule(
            id: "SV-VIDEO-006", severity: .error, title: "Layers carry distinct view ids",
            source: "ISO/IEC 23008-2 F.7.4.3.1 (view_id_val); Specs/formats.md §3.2"),
        Rule(
            id: "SV-VIDEO-007", severity: .warning,
            title: "SEI 176 (3D reference displays) names the left and right views",
            source: "ISO/IEC 23008-2 G.14.2.1; Specs/formats.md §3.6 (Apple's encoder writes it)"),
        Rule(
            id: "SV-VIDEO-008", severity: .error,
            title: "SEI 176 left/right view ids are distinct and map to the two layers",
            source: "ISO/IEC 23008-2 G.14.3.1; Specs/formats.md §3.6"),
        Rule(
            id: "SV-VIDEO-009", severity: .error, title: "vexu box present", source: "\(apple); Specs/formats.md §1.1"),
        Rule(
            id: "SV-VIDEO-010", severity: .error, title: "vexu/eyes/stri present",
            source: "\(apple) (stri mandatory in eyes); Specs/formats.md §1.2"),
        Rule(
            id: "SV-VIDEO-011", severity: .error, title: "stri signals both eyes",
            source: "\(apple); Specs/formats.md §1.2 (Media3 asserts it)"),
        Rule(
            id: "SV-VIDEO-012", severity: .error, title: "stri eye_views_reversed is 0",
            source: "Specs/formats.md §1.2 (Media3 asserts it for MV-HEVC)"),
        Rule(
            id: "SV-VIDEO-013", severity: .info,
            title: "Hero eye signalled (optional: Apple's media framework also leaves it out; 2D shows the base layer)",
            source: "\(apple) (optional); Specs/formats.md §1.2"),
        Rule(
            id: "SV-VIDEO-014", severity: .warning, title: "Hero eye value is left or right",
            source: "Specs/formats.md §1.2 (0 none, 1 left, 2 right, ≥3 reserved)"),
        Rule(
            id: "SV-VIDEO-015", severity: .error, title: "Camera baseline (blin) present",
            source:
                "\(apple); Specs/formats.md §1.3; visionOS treats the movie as spatial only with it (VideoClassification)"
        ),
        Rule(
            id: "SV-VIDEO-016", severity: .error, title: "Baseline is not zero",
            source: "Specs/formats.md §6 (baseline > 0)"),
        Rule(
            id: "SV-VIDEO-017", severity: .warning, title: "Baseline plausible (10–100 mm)",
            source: "Specs/formats.md §6 (typically 19–65 mm); our margin"),
        Rule(
            id: "SV-VIDEO-018", severity: .error, title: "Horizontal field of view (hfov) present",
            source: "\(apple); Specs/formats.md §1.1"),
        Rule(
            id: "SV-VIDEO-019", severity: .warning, title: "Horizontal field of view ≤ 90° (error if 0 or ≥ 180°)",
            source: "Specs/formats.md §1.3 / §6 (Apple guidance ≤ 90°)"),
        Rule(
            id: "SV-VIDEO-020", severity: .error, title: "Projection is rectilinear",
            source: "\(apple); Specs/formats.md §1.2 (spatial = 'rect')"),
        Rule(
            id: "SV-VIDEO-021", severity: .info, title: "No proj box (rectilinear implied)",
            source: "Specs/formats.md §1.1 (Apple's writer omits proj)"),
        Rule(
            id: "SV-VIDEO-022", severity: .error, title: "Disparity adjustment within ±10000",
            source: "Specs/formats.md §1.3"),
        Rule(
            id: "SV-VIDEO-023", severity: .warning,
            title: "Disparity adjustment within comfort bounds (−2 % … +5 % of width)",
            source:
                "our rationale: Apple uses +2 % (SBS sample) and +2.93 % (Vision Pro capture); see Specs/validation.md"),
        Rule(
            id: "SV-VIDEO-024", severity: .info, title: "No disparity adjustment (0 implied)",
            source: "Specs/formats.md §1.3 (absent = 0)"),
        Rule(
            id: "SV-VIDEO-025", severity: .error, title: "Both eyes have the same size",
            source: "Specs/formats.md §6; Apple (equal eye sizes)"),
        Rule(
            id: "SV-VIDEO-026", severity: .info, title: "Container brand",
            source: "Specs/formats.md §1.5 (MOV vs MP4); Apple's tools write QuickTime"),
        Rule(
            id: "SV-VIDEO-027", severity: .info, title: "Second layer uses inter-layer prediction",
            source: "Specs/formats.md §3.7; needs a multi-layer decoder to split"),
        Rule(
            id: "SV-VIDEO-028", severity: .warning, title: "Second layer profile is Multiview Main",
            source: "ISO/IEC 23008-2 G.11.1; Specs/formats.md §1.6"),
        Rule(
            id: "SV-VIDEO-029", severity: .warning, title: "Stereo boxes are well-formed",
            source: "Specs/formats.md §1.2 (FFmpeg rejects other sizes)"),
        Rule(id: "SV-VIDEO-030", severity: .error, title: "The movie has a video track", source: "—"),
        Rule(
            id: "SV-VIDEO-031", severity: .info, title: "Frame-packed rectilinear stereo (3D video, not spatial video)",
            source:
                "Specs/formats.md §5, §8; convert with `spatial-media convert` to MV-HEVC (never offered for spheres)"),
        // Profiles (Specs/formats.md §8): which of Apple's playback profiles a movie is made for, and where it falls
        // short.
        Rule(
            id: "SV-PROF-001", severity: .info,
            title:
                "Profile of the movie (2D, 3D frame-packed, 3D MV-HEVC, spatial, APMP 180/360/wide FOV, Apple Immersive, Google spherical)",
            source: "Apple WWDC25-297/304; Specs/formats.md §8"),
        Rule(
            id: "SV-PROF-002", severity: .warning, title: "HEVC sample entry is 'hvc1', not 'hev1'",
            source:
                "Specs/formats.md §8 (players on Apple devices expect hvc1; immich #29817, AVPro #2462); repaired by `spatial-media fix`"
        ),
        Rule(
            id: "SV-PROF-003", severity: .error,
            title: "Frame-packed stereo is signalled with vexu/pack/pkin ('side' or 'over')",
            source: "Apple WWDC25-297 (pack is required when the stereo is frame-packed); Specs/formats.md §8"),
        Rule(
            id: "SV-PROF-004", severity: .error, title: "Frame-packed stereo declares both eyes (vexu/eyes/stri 0x03)",
            source: "Specs/formats.md §8 (minimal signalling)"),
        Rule(
            id: "SV-PROF-005", severity: .warning,
            title: "Projection consistent with hfov (hfov is for rectilinear pictures; 0 < hfov < 180°)",
            source: "Specs/formats.md §1.3, §8 (equi/hequ cover 360°/180° by definition)"),
        Rule(
            id: "SV-PROF-006", severity: .warning, title: "3D / APMP video is HEVC",
            source:
                "Specs/formats.md §8 (AV1: no hardware decode on the M2 Vision Pro; H.264 frame-packed reported to stutter on visionOS 26.3)"
        ),
        Rule(
            id: "SV-PROF-007", severity: .warning,
            title: "APMP publishing: HEVC Main or Main 10, 4:2:0, at most 10 bits",
            source: "Apple APMP publishing limits (Specs/formats.md §8)"),
        Rule(
            id: "SV-PROF-008", severity: .warning,
            title: "APMP publishing: mono ≤ 7680×3840, stereo ≤ 4320×4320 per eye",
            source: "Apple APMP publishing limits (Specs/formats.md §8)"),
        Rule(
            id: "SV-PROF-009", severity: .warning,
            title: "APMP publishing: peak bitrate ≤ 150 Mb/s (one-second windows of samples)",
            source: "Apple APMP publishing limits (Specs/formats.md §8); window length is our choice"),
        Rule(
            id: "SV-PROF-010", severity: .warning,
            title: "Sphere described only by Google spherical metadata (not APMP)",
            source: "Specs/formats.md §5, §8; tag with `spatial-media edit --to-apmp` (no re-encoding, never flattened)"
        ),
        Rule(
            id: "SV-PROF-011", severity: .warning,
            title:
                "Projection kind is one Apple documents; wide FOV uses 'prim' with a lens collection (error without one)",
            source: "Specs/formats.md §8"),
        Rule(
            id: "SV-PROF-012", severity: .info, title: "Apple Immersive Video identified (not checked, never authored)",
            source:
                "Specs/formats.md §8 (calibration and presentation metadata unpublished); identified by .aivu name or immersive metadata keys [heuristic]"
        ),
        Rule(
            id: "SV-PROF-013", severity: .warning, title: "APMP and Google spherical metadata agree",
            source: "Specs/formats.md §5, §8"),
        Rule(
            id: "SV-PROF-015", severity: .info, title: "3D MV-HEVC: what keeps it from spatial video",
            source: "as SV-VIDEO-009…021 (info only)"),
        Rule(
            id: "SV-PROF-016", severity: .info, title: "3D / APMP without hfov or hero eye",
            source:
                "Specs/formats.md §8 (optional; players choose defaults); added by `spatial-media fix --hfov` / `--hero`"
        ),
        Rule(
            id: "SV-VIDEO-032", severity: .warning,
            title: "Parameter sets and SEI end with correct trailing bits (e.g. vps_extension2_flag present)",
            source: "H.265 §7.3.2.1, §7.3.2.5, §F.7.3.2.1; Specs/hevc.md"),
        Rule(
            id: "SV-VIDEO-033", severity: .warning, title: "Hero eye is the eye the base layer carries",
            source: "Specs/formats.md §1.6 (SEI 176 view ids; single-layer players show layer 0)"),
        Rule(
            id: "SV-VIDEO-034", severity: .info, title: "Sample entry repeats the SPS VUI colour description (colr)",
            source: "ISO/IEC 14496-12 §12.1.5; QuickTime nclc"),
        Rule(
            id: "SV-VIDEO-035", severity: .warning, title: "colr agrees with the SPS VUI colour description",
            source: "ISO/IEC 14496-12 §12.1.5; H.265 Annex E"),
        Rule(
            id: "SV-VIDEO-036", severity: .error,
            title: "Pictures decoded out of display order (B-frames) have composition offsets (`ctts`)",
            source: "ISO/IEC 14496-12 §8.6.1.3 (composition time = decode time + offset)"),
        Rule(
            id: "SV-VIDEO-037", severity: .info,
            title: "Frames hidden by the edit list (presented frames as `info` and `fix` count them)",
            source: "ISO/IEC 14496-12 §8.6.6 (edit list)"),
        Rule(
            id: "SV-HDR-001", severity: .warning, title: "colr nclx states the range the SPS VUI states",
            source: "ISO/IEC 14496-12 §12.1.5; H.265 E.3.1 video_full_range_flag"),
        Rule(
            id: "SV-HDR-002", severity: .warning,
            title: "mdcv/clli boxes equal the mastering display and content light level SEI of hvcC",
            source:
                "ISO/IEC 14496-12 (mdcv, clli); H.265 D.2.28, D.2.35; Apple HLS authoring spec 1.8 (HDR10 SEI in hvcC)"),
        Rule(
            id: "SV-HDR-003", severity: .warning, title: "PQ video carries mastering display metadata",
            source: "SMPTE ST 2086 / HDR10: displays tone-map PQ with it"),
        Rule(
            id: "SV-HDR-004", severity: .warning,
            title: "Both layers are stated in the same colour (base SPS VUI and VPS VUI)",
            source: "H.265 F.7.4.3.1.5 video_signal_info; the eyes of one picture"),
        Rule(
            id: "SV-HDR-005", severity: .error,
            title: "Each layer's profile allows its bit depth and chroma; hvcC matches the base SPS",
            source: "H.265 A.3, F (profiles); ISO/IEC 14496-15 §8.3.3 (hvcC)"),
        Rule(
            id: "SV-VIDEO-038", severity: .info,
            title: "Negative composition offsets in a version-0 `ctts` are read as signed",
            source: "ISO/IEC 14496-12 §8.6.1.3; FFmpeg and Apple read them signed"),
        Rule(
            id: "SV-VIDEO-039", severity: .warning, title: "The edit list does not hide a video track's first frame",
            source: "ISO/IEC 14496-12 §8.6.6 (edit list); players that ignore edit lists show the hidden frame"),
        // Photos
        Rule(
            id: "SV-PHOTO-001", severity: .error, title: "HEIF file with a 'ster' entity group",
            source: "ISO/IEC 23008-12:2022 §6.8.5; Specs/formats.md §4.2"),
        Rule(
            id: "SV-PHOTO-002", severity: .error, title: "'ster' group names exactly two image items",
            source: "ISO/IEC 23008-12 §6.8.5; Specs/formats.md §4.2"),
        Rule(
            id: "SV-PHOTO-003", severity: .error, title: "Both eyes have the same size",
            source: "\(applePhoto); Specs/formats.md §4.2"),
        Rule(
            id: "SV-PHOTO-004", severity: .warning, title: "Primary item is one of the eyes",
            source: "\(applePhoto) (some apps ignore pitm); Specs/formats.md §4.2"),
        Rule(
            id: "SV-PHOTO-005", severity: .info, title: "Primary item is the right eye",
            source: "\(applePhoto) (sets primary = left)"),
        Rule(
            id: "SV-PHOTO-006", severity: .error, title: "Camera intrinsics present for both eyes",
            source: "\(applePhoto) (CameraModel required); Specs/formats.md §4.3"),
        Rule(
            id: "SV-PHOTO-007", severity: .warning, title: "Intrinsics equal for both eyes",
            source: "Specs/formats.md §6 (fx equal)"),
        Rule(
            id: "SV-PHOTO-008", severity: .warning, title: "Principal point centred (offset ≤ 1 % of the size)",
            source: "Specs/formats.md §6 (optically centred); \(wwdc)"),
        Rule(
            id: "SV-PHOTO-009", severity: .warning, title: "Horizontal field of view ≤ 90°",
            source: "Specs/formats.md §6"),
        Rule(
            id: "SV-PHOTO-010", severity: .error, title: "Right-eye extrinsics present (baseline known)",
            source: "\(applePhoto); Specs/formats.md §4.4"),
        Rule(id: "SV-PHOTO-011", severity: .error, title: "Baseline is not zero", source: "Specs/formats.md §6"),
        Rule(
            id: "SV-PHOTO-012", severity: .warning, title: "Baseline plausible (10–100 mm)",
            source: "Specs/formats.md §6 (typically 19–65 mm); our margin"),
        Rule(
            id: "SV-PHOTO-013", severity: .error, title: "Right camera at +x from the left camera",
            source: "Specs/formats.md §4.4 (Apple requires +x)"),
        Rule(
            id: "SV-PHOTO-014", severity: .warning, title: "No rotation between the cameras",
            source: "Specs/formats.md §4.4; \(wwdc)"),
        Rule(
            id: "SV-PHOTO-015", severity: .error, title: "Disparity adjustment present",
            source: "Specs/formats.md §4.5 (Apple: the stereo group must always define one)"),
        Rule(
            id: "SV-PHOTO-016", severity: .error, title: "Disparity adjustment within ±10000",
            source: "Specs/formats.md §1.3 / §4.5"),
        Rule(
            id: "SV-PHOTO-017", severity: .warning, title: "Disparity adjustment within comfort bounds (−2 % … +5 %)",
            source: "as SV-VIDEO-023"),
        Rule(
            id: "SV-PHOTO-018", severity: .info, title: "Camera properties only in standard FourCC form",
            source: "Specs/formats.md §4.7 (whether Apple reads cmin/cmex FourCCs is unconfirmed)"),
        Rule(
            id: "SV-PHOTO-019", severity: .warning, title: "Stereo properties are readable",
            source: "Specs/formats.md §4.3–4.5"),
        Rule(
            id: "SV-PHOTO-021", severity: .error,
            title: "Stereo eyes are 'hvc1' items, not a layered-HEVC ('lhv1') layer",
            source:
                "ISO/IEC 23008-12 (lhv1 items); Apple's readers take two hvc1 items in a ster group (Specs/formats.md §4)"
        ),
        Rule(
            id: "SV-PHOTO-020", severity: .warning, title: "Both eyes carry the same disparity adjustment",
            source: "Specs/formats.md §4.1 (Apple associates one property with both)"),
        Rule(
            id: "SV-PHOTO-024", severity: .info, title: "Each eye carries an HDR gain map",
            source:
                "Apple iPhone spatial photos (one urn:com:apple:photo:2020:aux:hdrgainmap per eye); Specs/spatial-photo.md"
        ),
        Rule(
            id: "SV-PHOTO-025", severity: .warning, title: "Both eyes carry the same kinds of auxiliary images",
            source: "Specs/spatial-photo.md (auxiliary images follow their eye)"),
        Rule(
            id: "SV-PHOTO-026", severity: .warning, title: "An auxiliary image has its eye's shape",
            source: "ISO/IEC 23008-12 §6.5.8 (an auxiliary image covers its master image); Specs/spatial-photo.md"),
        Rule(
            id: "SV-PHOTO-023", severity: .warning,
            title: "8-bit 4:2:0 colour images are not coded in profile 4 (range extensions)",
            source:
                "Apple Vision Pro photos: Main Still Picture (3) for colour, profile 4 only for depth/gain maps; Specs/formats.md §4.1"
        ),
        Rule(
            id: "SV-PHOTO-022", severity: .warning, title: "Image parameter sets end with correct trailing bits",
            source: "H.265 §7.3.2; Specs/hevc.md"),
        // Other inputs
        Rule(
            id: "SV-PAIR-001", severity: .info, title: "Input carries no spatial metadata",
            source: "—; convert with `spatial-media convert` / `spatial-media assemble`"),
        Rule(id: "SV-PAIR-002", severity: .error, title: "Both eyes have the same size", source: "Specs/formats.md §6"),
        Rule(id: "SV-PAIR-003", severity: .info, title: "MPO stereo attributes", source: "CIPA DC-007 (MP format)"),
        Rule(id: "SV-PAIR-004", severity: .error, title: "A second eye is present", source: "—"),
        Rule(
            id: "SV-PAIR-005", severity: .info,
            title: "A JPEG whose further pictures are not stereo views is one photo",
            source: "CIPA DC-007 §5.2.3.3.1 (MP type codes); Ultra HDR / ISO 21496-1 gain maps"),
        Rule(
            id: "SV-PAIR-006", severity: .warning, title: "A picture marked as a gain map has readable metadata",
            source: "ISO 21496-1; Adobe hdrgm XMP"),
        Rule(
            id: "SV-PAIR-008", severity: .info,
            title: "The layout of an input that states none, measured as convert measures it",
            source: "our measurement rationale (one recognition for convert and validate: Specs/conversion.md)"),
        Rule(
            id: "SV-PAIR-009", severity: .info, title: "An input that states no layout holds a stereo pair in one",
            source: "our measurement rationale (a 2D picture or video is not a stereo pair: Specs/conversion.md)"),
        Rule(
            id: "SV-PAIR-007", severity: .info, title: "The values a raw pair is judged at, and where each comes from",
            source: "EXIF 2.3 FocalLengthIn35mmFilm; our stereo defaults"),
        Rule(id: "SV-FILE-001", severity: .error, title: "File can be read", source: "—"),
        Rule(
            id: "SV-MKV-001", severity: .info, title: "Matroska file read through FFmpeg (never spatial)",
            source:
                "Matroska specification (StereoMode element); Apple's stereo metadata are QuickTime/MP4 boxes (Specs/formats.md §1)"
        ),
        Rule(id: "SV-MKV-002", severity: .error, title: "A Matroska file has a readable video stream", source: "—"),
        Rule(
            id: "SV-FFMPEG-001", severity: .info,
            title: "A video file other than MP4/MOV/Matroska read through FFmpeg, as convert reads it (never spatial)",
            source:
                "Apple's stereo metadata are QuickTime/MP4 boxes (Specs/formats.md §1); FFmpeg's stereo 3D and spherical side data"
        ),
        Rule(
            id: "SV-FFMPEG-002", severity: .error,
            title: "A video file read through FFmpeg has a readable video stream", source: "—"),
        Rule(
            id: "SV-FILE-002", severity: .error,
            title: "The file is whole, not damaged or truncated (boxes, JPEG data, streams read through FFmpeg)",
            source: "ISO/IEC 14496-12 §4.2 (box size); ISO/IEC 10918-1; ISO/IEC 13818-1 §2.4.3; Matroska EBML sizes"),
        Rule(
            id: "SV-FILE-003", severity: .error, title: "Sample chunks and item extents lie within the file",
            source: "ISO/IEC 14496-12 §8.7 (stco/co64), ISO/IEC 23008-12 (iloc)"),
        // Geometry measured on pixels
        Rule(
            id: "SV-GEOM-001", severity: .warning,
            title: "Vertical offset at the centre ≤ 0.5 % of height (error > 1 %)", source: "\(wwdc); our thresholds"),
        Rule(
            id: "SV-GEOM-002", severity: .warning,
            title: "Vertical disparity left after the fitted field: 95th percentile ≤ 1 % of height",
            source: "\(wwdc); our thresholds"),
        Rule(
            id: "SV-GEOM-003", severity: .warning, title: "Roll between eyes ≤ 0.25° (error > 1°)",
            source: "\(wwdc) (rectified); our thresholds"),
        Rule(
            id: "SV-GEOM-004", severity: .warning, title: "Vertical scale (focal) difference ≤ 0.5 % (error > 1.5 %)",
            source: "\(wwdc) (rectified); our thresholds"),
        Rule(
            id: "SV-GEOM-005", severity: .warning,
            title:
                "Toe-in/toe-out between the camera axes < 0.5° (error when a toe-in's shift of infinity diverges > 0.25°, or keystone > 3 % of H)",
            source:
                "\(wwdc) (parallel optical axes); Lambooij et al. 2009 (±1° comfort zone); Woods et al. 1993, Allison 2007 (toed-in keystone)"
        ),
        Rule(
            id: "SV-GEOM-006", severity: .error,
            title: "No divergence: rectified far field not beyond infinity by more than 0.1° (error > 0.25°)",
            source: "\(wwdc) (optically centred); Mendiburu 2009 (no divergence); our thresholds"),
        Rule(
            id: "SV-GEOM-007", severity: .error, title: "Eyes not swapped (half-occlusions and disparity)",
            source: "our measurement rationale (half-occlusion geometry)"),
        Rule(
            id: "SV-GEOM-008", severity: .error, title: "The eyes differ (there is depth)",
            source: "our measurement rationale"),
        Rule(
            id: "SV-GEOM-009", severity: .warning, title: "Brightness/contrast match between eyes",
            source: "our measurement rationale (binocular rivalry)"),
        Rule(
            id: "SV-GEOM-010", severity: .warning, title: "Colour match between eyes",
            source: "our measurement rationale (binocular rivalry)"),
        Rule(id: "SV-GEOM-011", severity: .warning, title: "Geometry can be measured", source: "—"),
        Rule(id: "SV-GEOM-012", severity: .info, title: "Measurement summary", source: "—"),
        Rule(
            id: "SV-GEOM-013", severity: .warning,
            title: "Measurement reliable (confidence ≥ 0.3), else no geometry verdict",
            source: "our measurement rationale"),
        Rule(
            id: "SV-GEOM-014", severity: .info, title: "Rectified horizontal disparity, window and depth budget",
            source: "Specs/formats.md §1.3 (dadj sign)"),
        Rule(
            id: "SV-GEOM-021", severity: .warning,
            title: "Pixels of a video could be checked (else: why, and what to install)", source: "—"),
        Rule(
            id: "SV-GEOM-022", severity: .info, title: "Frames measured (which, and why fewer than asked)",
            source: "—"),
        Rule(id: "SV-GEOM-015", severity: .info, title: "Pixels unavailable", source: "—"),
        Rule(
            id: "SV-GEOM-016", severity: .warning,
            title: "Far field not more than 0.5 % of the width in front of infinity — of the window when the stated "
                + "disparity adjustment is the undo of a shift (else: shifted / off-centre crop, or a near scene — "
                + "both readings)",
            source: "\(wwdc) (optically centred); Lambooij et al. 2009 (comfort zone); our threshold; issue 41"),
        Rule(
            id: "SV-GEOM-017", severity: .warning,
            title: "No window violation: content in front of the window clear of the left/right edges",
            source: "Specs/formats.md §1.3 (window = zero-parallax plane); our thresholds"),
        Rule(
            id: "SV-GEOM-018", severity: .warning, title: "Sharpness match between eyes (ratio ≤ 1.25)",
            source: "our measurement rationale (binocular rivalry)"),
        Rule(
            id: "SV-GEOM-019", severity: .warning,
            title: "Eyes in sync (video: no time offset between the eyes, lags −3…+3 frames)",
            source: "our measurement rationale (block motion cross-correlation)"),
        Rule(
            id: "SV-GEOM-020", severity: .warning,
            title: "Window placed: at most 75 % of the content in front of the window",
            source: "Specs/formats.md §1.3 (positive dadj pushes the scene back); our threshold"),
    ]

    public static func rule(_ id: String) -> Rule? { all.first { $0.id == id } }
}
