import BinaryIO
import ISOBMFF
import SystemSupport

/// The Apple playback profile a movie is made for (Specs/formats.md §8, Specs/validation.md "Profiles").
public enum MediaProfile: String, Sendable, Equatable, CaseIterable {
    /// Ordinary flat video.
    case video2D = "2d"
    /// Stereo packed in one picture (side-by-side or over-under), rectilinear: "3D video", shown on a flat screen.
    case framePacked3D = "3d-frame-packed"
    /// Two-layer MV-HEVC without the spatial metadata (baseline, field of view): 3D, not spatial.
    case multiview3D = "3d-mv-hevc"
    /// Apple spatial video: MV-HEVC with baseline and horizontal field of view, rectilinear.
    case spatialVideo = "spatial-video"
    /// Apple Projected Media Profile, half-equirectangular (`hequ`).
    case apmp180 = "apmp-180"
    /// Apple Projected Media Profile, equirectangular (`equi`).
    case apmp360 = "apmp-360"
    /// Apple Projected Media Profile, wide field of view (`prim` parametric immersive, or the older `fish`).
    case apmpWideFOV = "apmp-wide-fov"
    /// Apple Immersive Video: identified, never authored (its calibration and presentation metadata are not published).
    case appleImmersive = "apple-immersive"
    /// A sphere described only by Google's spherical metadata (VR180/360): not APMP until converted.
    case googleSpherical = "google-spherical"
    /// No video track.
    case noVideo = "no-video"

    /// The profile's name as Apple's material calls it.
    public var title: String {
        switch self {
        case .video2D: return "2D video"
        case .framePacked3D: return "3D video, frame-packed"
        case .multiview3D: return "3D video, MV-HEVC (not spatial)"
        case .spatialVideo: return "spatial video (MV-HEVC)"
        case .apmp180: return "APMP 180° (half-equirectangular)"
        case .apmp360: return "APMP 360° (equirectangular)"
        case .apmpWideFOV: return "APMP wide FOV (parametric immersive)"
        case .appleImmersive: return "Apple Immersive Video (identified, not authored)"
        case .googleSpherical: return "Google spherical video (VR180/360), not APMP"
        case .noVideo: return "no video"
        }
    }

    /// True for the APMP profiles.
    public var isAPMP: Bool { self == .apmp180 || self == .apmp360 || self == .apmpWideFOV }
}

/// One way a file falls short of its profile, with the rule that says so (IDs in Specs/validation.md).
public struct ProfileShortfall: Sendable, Equatable {
    public var ruleID: String
    public var severity: Severity
    public var message: String
    /// The spatial-video rules (SV-VIDEO-…) say the same for a movie that is checked as spatial video; a checker
    /// that runs those leaves this shortfall out unless the movie aims at a profile of its own (3D, APMP, …).
    public var restatesSpatialVideoRules: Bool
    public init(_ ruleID: String, _ severity: Severity, _ message: String, restatesSpatialVideoRules: Bool = false) {
        self.ruleID = ruleID; self.severity = severity; self.message = message;
        self.restatesSpatialVideoRules = restatesSpatialVideoRules
    }
}

/// Which profile a movie is made for, and exactly where it falls short of it.
public struct ProfileVerdict: Sendable {
    public var profile: MediaProfile
    /// `mono`, `frame-packed side-by-side`, `frame-packed over-under`, `MV-HEVC`.
    public var stereo: String
    /// Findings: errors and warnings are shortfalls; infos are notes.
    public var findings: [ProfileShortfall]
    /// True when nothing keeps the file from playing as its profile.
    public var meetsProfile: Bool { !findings.contains { $0.severity != .info } }

    /// APMP publishing limits (Specs/formats.md §8, WWDC25): mono up to 7680×3840, stereo up to 4320×4320 per eye.
    public static let monoMaxSize = (width: 7680, height: 3840)
    public static let stereoMaxEyeSize = (width: 4320, height: 4320)
    /// Peak bitrate limit for APMP, bits per second, measured over one-second windows of samples.
    public static let maxPeakBitrate: UInt64 = 150_000_000

    init(profile: MediaProfile, stereo: String, findings: [ProfileShortfall]) {
        self.profile = profile; self.stereo = stereo; self.findings = findings
    }

    /// Judges the primary video track of `file` (`report` is its spatial-video analysis).
    public init(file: ISOFile, report: SpatialVideoReport, path: String? = nil) {
        var f: [ProfileShortfall] = []
        guard let v = report.primary else {
            profile = .noVideo; stereo = "none"; findings = []
            return
        }
        let m = v.metadata
        let packing: FramePacking? = v.isMVHEVC ? nil : m.framePacking
        let strStereo =
            v.isMVHEVC
            ? "MV-HEVC"
            : packing.map { "frame-packed \($0 == .sideBySide ? "side-by-side" : "over-under")" }
                ?? ((m.viewFlags.map { $0.hasLeftEye && $0.hasRightEye } ?? false)
                    ? "frame-packed (layout not signalled)" : "mono")
        stereo = strStereo
        let isStereo = strStereo != "mono"

        // 1. Which profile.
        profile = Self.classify(v, report: report, path: path, isStereo: isStereo, findings: &f)

        // 2. Where it falls short.
        if profile == .appleImmersive {
            f.append(
                ProfileShortfall(
                    "SV-PROF-012", .info,
                    "Apple Immersive Video: its calibration (AIME) and presentation metadata are not published; identified only, not checked or authored"
                ))
            findings = f
            return
        }
        if v.sampleEntryType == "hev1" {
            f.append(
                ProfileShortfall(
                    "SV-PROF-002", .warning,
                    "the sample entry is 'hev1' (parameter sets in the samples); Apple's players expect 'hvc1' — `spatial-media fix` rewrites it",
                    restatesSpatialVideoRules: true))
        }
        if profile == .multiview3D {
            for r in report.whyNotSpatial {
                f.append(
                    ProfileShortfall("SV-PROF-015", .info, "not spatial video: \(r)", restatesSpatialVideoRules: true))
            }
        }
        Self.signallingShortfalls(m, v, profile: profile, isStereo: isStereo, findings: &f)
        Self.publishingShortfalls(file, v, profile: profile, packing: packing, isStereo: isStereo, findings: &f)
        findings = f
    }

    /// Which profile the primary track aims at (an unknown projection kind adds SV-PROF-011).
    static func classify(
        _ v: SpatialVideoTrack, report: SpatialVideoReport, path: String?, isStereo: Bool,
        findings: inout [ProfileShortfall]
    ) -> MediaProfile {
        let m = v.metadata
        let immersive = looksLikeAppleImmersive(report: report, path: path)
        if immersive {
            return .appleImmersive
        } else if let p = m.projectionKind, p != "rect" {
            switch p {
            case "hequ": return .apmp180
            case "equi": return .apmp360
            case "prim", "fish": return .apmpWideFOV
            default:
                findings.append(
                    ProfileShortfall(
                        "SV-PROF-011", .warning,
                        "projection kind '\(p)' is not one Apple documents (rect, equi, hequ, fish, prim); players may show it flat"
                    ))
                return isStereo ? (v.isMVHEVC ? .multiview3D : .framePacked3D) : .video2D
            }
        } else if m.hasGoogleSphere {
            return .googleSpherical
        } else if v.isMVHEVC {
            return report.classification == .spatialVideo ? .spatialVideo : .multiview3D
        } else if isStereo {
            return .framePacked3D
        } else {
            return .video2D
        }
    }

    /// Shortfalls of the signalling: spheres, frame packing, hfov against the projection, hero eye, lenses.
    static func signallingShortfalls(
        _ m: StereoVideoMetadata, _ v: SpatialVideoTrack, profile: MediaProfile, isStereo: Bool,
        findings f: inout [ProfileShortfall]
    ) {
        if profile == .googleSpherical {
            let forms = m.projectionForms.map { "\($0.source): \($0.text)" }.joined(separator: "; ")
            switch m.googleToAPMP() {
            case .success(let s):
                f.append(
                    ProfileShortfall(
                        "SV-PROF-010", .warning,
                        "a sphere described only by Google's spherical metadata (\(forms)); Apple's players need APMP — tag it without re-encoding: `spatial-media edit --to-apmp` (would write proj '\(s.projection)'\(s.packing.map { ", pack '\($0)'" } ?? ""))"
                    ))
            case .failure(let e):
                f.append(
                    ProfileShortfall(
                        "SV-PROF-010", .warning,
                        "a sphere described only by Google's spherical metadata (\(forms)); it has no exact APMP form: \(e.reason)"
                    ))
            }
        }
        // Frame packing must be signalled with vexu/pack for Apple (3D frame-packed and frame-packed APMP).
        if !v.isMVHEVC && isStereo && (profile == .framePacked3D || profile.isAPMP) {
            if m.viewPackingKind == nil || !(m.viewPackingKind == "side" || m.viewPackingKind == "over") {
                let from =
                    m.viewPackingKind.map { "pkin is '\($0)'" }
                    ?? (m.googleStereoMode != nil
                        ? "only st3d says so"
                        : m.sphericalV1StereoMode != nil
                            ? "only the v1 XML says so" : "vexu/eyes/stri signals two eyes but no layout")
                f.append(
                    ProfileShortfall(
                        "SV-PROF-003", .error,
                        "frame-packed stereo without vexu/pack/pkin ('side' or 'over') — \(from); Apple's players show it as 2D (`spatial-media edit --packing side|over`)"
                    ))
            }
            if m.viewFlags == nil {
                f.append(
                    ProfileShortfall(
                        "SV-PROF-004", .error, "frame-packed stereo without vexu/eyes/stri: the eyes are not declared"))
            } else if let fl = m.viewFlags, !(fl.hasLeftEye && fl.hasRightEye) {
                f.append(
                    ProfileShortfall(
                        "SV-PROF-004", .error,
                        "stri flags 0x\(String(fl.rawValue, radix: 16)) do not declare both eyes for a frame-packed picture"
                    ))
            }
        }
        // Projection against hfov.
        if let fov = m.horizontalFieldOfViewMillidegrees {
            let deg = SpatialFormat.degrees(fov)
            switch m.projectionKind {
            case "hequ"?, "equi"?:
                f.append(
                    ProfileShortfall(
                        "SV-PROF-005", .warning,
                        "hfov says \(deg)° but the projection '\(m.projectionKind?.description ?? "")' covers \(m.projectionKind == "hequ" ? "180" : "360")° by definition; hfov describes a rectilinear camera — remove it"
                    ))
            case "prim"?, "fish"?:
                f.append(
                    ProfileShortfall(
                        "SV-PROF-005", .info,
                        "hfov \(deg)° next to a '\(m.projectionKind?.description ?? "")' projection: the lens collection, not hfov, describes the field of view"
                    ))
            default:
                if fov == 0 || fov >= 180_000 {
                    f.append(
                        ProfileShortfall(
                            "SV-PROF-005", .error,
                            "hfov \(deg)° is impossible for a rectilinear projection (must be above 0° and below 180°)")
                    )
                }
            }
        } else if profile == .framePacked3D {
            f.append(
                ProfileShortfall(
                    "SV-PROF-016", .info,
                    "no hfov: players pick a default screen size for 3D video (`spatial-media edit --hfov DEG` or `fix --hfov`)"
                ))
        }
        if (profile == .framePacked3D || profile.isAPMP) && isStereo && m.heroEye == nil {
            f.append(ProfileShortfall("SV-PROF-016", .info, "no hero eye: 2D players choose one (`--hero left|right`)"))
        }
        if profile == .apmpWideFOV {
            if m.projectionKind == "fish" {
                f.append(
                    ProfileShortfall(
                        "SV-PROF-011", .warning,
                        "projection 'fish' is the older fisheye kind; APMP wide-FOV content uses 'prim' with a lens collection"
                    ))
            } else if (m.lensCount ?? 0) == 0 {
                f.append(
                    ProfileShortfall(
                        "SV-PROF-011", .error,
                        "parametric immersive ('prim') without a lens collection (vexu/lnsc/lens): the lens cannot be modelled"
                    ))
            }
        }
        if profile.isAPMP, m.hasGoogleSphere, case .success(let s) = m.googleToAPMP(), s.projection != m.projectionKind
        {
            f.append(
                ProfileShortfall(
                    "SV-PROF-013", .warning,
                    "the APMP projection '\(m.projectionKind?.description ?? "")' disagrees with the Google metadata ('\(s.projection)')"
                ))
        }
    }

    /// Codec and publishing limits for 3D and APMP.
    static func publishingShortfalls(
        _ file: ISOFile, _ v: SpatialVideoTrack, profile: MediaProfile, packing: FramePacking?,
        isStereo: Bool, findings f: inout [ProfileShortfall]
    ) {
        let type = v.sampleEntryType?.description ?? "?"
        if profile == .framePacked3D || profile.isAPMP || profile == .googleSpherical {
            if !v.isHEVC {
                let why =
                    type.hasPrefix("av0")
                    ? "AV1 has no hardware decoder on the M2 Vision Pro"
                    : type.hasPrefix("avc")
                        ? "H.264 frame-packed video was reported to stutter on visionOS 26"
                        : "not a codec Apple documents for it"
                f.append(ProfileShortfall("SV-PROF-006", .warning, "the codec is '\(type)', not HEVC ('hvc1'): \(why)"))
            }
        }
        if profile.isAPMP {
            if v.isHEVC,
                let rec = file.tracks.first(where: { $0.trackID == v.trackID })?.sampleEntries.first?.child("hvcC")?
                    .payload(HEVCConfigurationBox.self)?.record,
                rec.count >= 23
            {
                let profileIdc = rec[1] & 0x1F, chroma = rec[16] & 3, depth = (rec[17] & 7) + 8
                if profileIdc != 1 && profileIdc != 2 {
                    f.append(
                        ProfileShortfall(
                            "SV-PROF-007", .warning,
                            "HEVC profile_idc \(profileIdc); APMP publishing allows Main (1) or Main 10 (2)"))
                }
                if chroma != 1 {
                    f.append(
                        ProfileShortfall(
                            "SV-PROF-007", .warning,
                            "chroma format \(chroma == 0 ? "4:0:0" : chroma == 2 ? "4:2:2" : "4:4:4"); APMP publishing allows 4:2:0"
                        ))
                }
                if depth > 10 {
                    f.append(
                        ProfileShortfall(
                            "SV-PROF-007", .warning, "\(depth)-bit video; APMP publishing allows 8 or 10 bits"))
                }
            }
            let eyeW = packing == .sideBySide ? v.width / 2 : v.width
            let eyeH = packing == .topBottom ? v.height / 2 : v.height
            if isStereo {
                if eyeW > Self.stereoMaxEyeSize.width || eyeH > Self.stereoMaxEyeSize.height {
                    f.append(
                        ProfileShortfall(
                            "SV-PROF-008", .warning,
                            "\(eyeW)×\(eyeH) per eye exceeds the APMP stereo limit of 4320×4320 per eye"))
                }
            } else if v.width > Self.monoMaxSize.width || v.height > Self.monoMaxSize.height {
                f.append(
                    ProfileShortfall(
                        "SV-PROF-008", .warning, "\(v.width)×\(v.height) exceeds the APMP mono limit of 7680×3840"))
            }
            if let peak = Self.peakBitrate(file: file, trackID: v.trackID), peak > Self.maxPeakBitrate {
                f.append(
                    ProfileShortfall(
                        "SV-PROF-009", .warning,
                        "peak bitrate \(peak / 1_000_000) Mb/s (over one second of samples) exceeds APMP's 150 Mb/s"))
            }
        }
    }

    /// Apple Immersive Video is recognised by its `.aivu` file name or by timed-metadata keys that name
    /// immersive presentation; the signalling is not published, so this is a heuristic (Specs/validation.md).
    public static func looksLikeAppleImmersive(report: SpatialVideoReport, path: String?) -> Bool {
        if let p = path, p.lowercased().hasSuffix(".aivu") { return true }
        return report.otherTracks.contains { t in t.metadataKeys.contains { $0.lowercased().contains("immersive") } }
    }

    /// The largest number of sample bits that fall within one second of decode time, or nil when the
    /// sample table cannot be read.
    public static func peakBitrate(file: ISOFile, trackID: UInt32) -> UInt64? {
        guard let t = file.tracks.first(where: { $0.trackID == trackID }), t.timescale > 0, !file.isFragmented,
            let samples = try? t.samples()
        else { return nil }
        let window = UInt64(t.timescale)
        var start = 0
        var bytes: UInt64 = 0
        var peak: UInt64 = 0
        for (i, s) in samples.enumerated() {
            bytes += UInt64(s.size)
            while start < i && s.decodeTime >= samples[start].decodeTime + window {
                bytes -= UInt64(samples[start].size)
                start += 1
            }
            peak = max(peak, bytes)
        }
        return peak * 8
    }

    /// Text lines for `info` and `validate`.
    public var lines: [String] {
        var out = [
            "profile: \(profile.title) [\(profile.rawValue)], stereo: \(stereo)"
                + (meetsProfile ? "" : " — falls short:")
        ]
        for x in findings {
            out.append("  \(x.severity == .info ? "note" : x.severity.rawValue) \(x.ruleID): \(x.message)")
        }
        return out
    }

    /// Machine-readable form.
    public var json: JSON {
        .object([
            ("profile", .string(profile.rawValue)), ("title", .string(profile.title)), ("stereo", .string(stereo)),
            ("meets_profile", .bool(meetsProfile)),
            (
                "findings",
                .array(
                    findings.map {
                        .object([
                            ("rule", .string($0.ruleID)), ("severity", .string($0.severity.rawValue)),
                            ("message", .string($0.message)),
                        ])
                    })
            ),
        ])
    }
}
