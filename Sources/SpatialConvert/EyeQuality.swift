import BinaryIO
import Codecs
import HEVC
import SystemSupport

// Encoder settings of each eye: asymmetric quality, rate control for both eyes together, VBV within the HEVC level,
// Apple's publishing limits (issue 23). Specs/conversion.md, "Quality per eye and rate control".
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the two eyes of a spatial video share quality.
///
/// With `.asymmetric` the hero eye (the base layer, what 2D players show) keeps exactly the settings it would have
/// with `.equal`, and only the other eye is coded coarser: its CRF is the hero's plus `crfOffset`, never above
/// ``nonHeroCRFCeiling`` (and never below the hero's). Binocular suppression makes the stereo percept follow the
/// better eye while the weaker one stays above a quality floor; the rule, the floor and the sources are in
/// Specs/conversion.md.
public enum EyeQuality: Sendable, Equatable, CustomStringConvertible {
    /// The default (issue 30): both eyes at the same quality when a multiview libx265 codes them (layer 1 then saves
    /// bits by inter-view prediction), else the asymmetric rule with ``defaultCRFOffset`` on the two-encode assembly.
    case automatic
    /// Both eyes with the same settings (two identical encodes: the behaviour before issue 23).
    case equal
    /// The non-hero eye `crfOffset` CRF steps coarser (0…``maximumCRFOffset``).
    case asymmetric(crfOffset: Double)

    /// The default offset: 6 CRF steps, the bound of the accepted range, so the non-hero eye's CRF is
    /// min(hero + 6, ``nonHeroCRFCeiling``): 6 steps below hero CRF 22, 5 at CRF 23, fewer towards the ceiling. x265
    /// roughly halves the bits per 6 steps, but at high rates (low CRF) each step saves less (5 steps from CRF 18 left
    /// 0.716 of the hero's bits on the bundled sample): the full bound is used where the coarser eye is furthest above
    /// the quality floor (Specs/conversion.md, Benchmarks/RESULTS.md).
    public static let defaultCRFOffset = 6.0
    /// The largest offset accepted (the bound of the literature's acceptable range, see Specs).
    public static let maximumCRFOffset = 6.0
    /// The non-hero eye is never given a CRF above this by the rule: past it the weaker eye falls under the quality
    /// floor (32 dB PSNR-Y) on some of the harness clips, so the offset shrinks, and from a hero CRF of 28 on both eyes
    /// are coded alike.
    public static let nonHeroCRFCeiling = 28.0
    /// The default of a conversion.
    public static let standard = EyeQuality.automatic
    /// The rule on the two-encode assembly: ``automatic`` is the asymmetric rule with the default offset there.
    public var assembled: EyeQuality { self == .automatic ? .asymmetric(crfOffset: EyeQuality.defaultCRFOffset) : self }

    /// `auto` (the default), `equal`, `asymmetric` (the default offset) or `asymmetric:N` (offset N CRF steps).
    public init?(argument: String) {
        if argument == "auto" { self = .automatic; return }
        if argument == "equal" { self = .equal; return }
        if argument == "asymmetric" { self = .asymmetric(crfOffset: EyeQuality.defaultCRFOffset); return }
        let prefix = "asymmetric:"
        guard argument.hasPrefix(prefix), let d = Double(argument.dropFirst(prefix.count)), d.isFinite,
            (0...EyeQuality.maximumCRFOffset).contains(d)
        else { return nil }
        self = .asymmetric(crfOffset: d)
    }

    public var description: String {
        switch self {
        case .automatic:
            return
                "auto (equal with inter-layer prediction, else \(EyeQuality.asymmetric(crfOffset: EyeQuality.defaultCRFOffset)))"
        case .equal: return "equal"
        case .asymmetric: return description(unit: "CRF")
        }
    }

    /// The rule in the unit of the rate control used: `CRF` or `QP` (the same steps and ceiling apply to both).
    public func description(unit: String) -> String {
        switch assembled {
        case .equal, .automatic: return "equal"
        case .asymmetric(let d):
            return "asymmetric, +\(fmt(d)) \(unit), at most \(unit) \(fmt(EyeQuality.nonHeroCRFCeiling))"
        }
    }

    /// The CRF of the non-hero eye when the hero eye has `heroCRF`.
    public func nonHeroCRF(heroCRF c: Double) -> Double {
        switch assembled {
        case .equal, .automatic: return c
        case .asymmetric(let d):
            return c >= EyeQuality.nonHeroCRFCeiling ? c : min(c + max(0, d), EyeQuality.nonHeroCRFCeiling)
        }
    }

    /// The share of a rate for both eyes that goes to the non-hero eye: r / (1 + r) with r = 2^(−offset/6), x265's
    /// rule of thumb that 6 CRF/QP steps halve the bits (0.5 when equal).
    public var nonHeroShare: Double {
        switch assembled {
        case .equal, .automatic: return 0.5
        case .asymmetric(let d):
            let r = exp2(-max(0, d) / 6)
            return r / (1 + r)
        }
    }
}

/// Publishing presets: limits of a playback platform applied to the encode.
public enum PublishingPreset: String, Sendable, CaseIterable {
    /// Apple Vision Pro (Apple's published limits for APMP/spatial video: HEVC Main or Main 10, 4:2:0, stereo up to
    /// 4320×4320 per eye, 30 fps recommended at those sizes, peak bitrate ≤ 150 Mbit/s).
    case visionPro = "vision-pro"

    /// Largest width and height of one eye.
    public var maxEyeSide: Int { 4320 }
    /// Peak bitrate of both eyes together, kbit/s (the VBV max rate).
    public var peakKbps: Int { 150_000 }
}

/// The settings of each eye's encoder and what was decided.
struct EyeEncoding {
    var hero: HEVCEncoderSettings
    var other: HEVCEncoderSettings
    /// "hero (left) CRF 23, other eye CRF 27 (asymmetric (+4 CRF))" and the VBV, for the report.
    var summary: String
    var notes: [String]
}

extension VideoConverter {
    /// The highest average bitrate accepted for both eyes (kbit/s): twice the Main-tier MaxBR of level 6.2, far above
    /// anything a player decodes, and well inside x265's 32-bit rate fields.
    static let maximumKbps = 480_000

    /// Checks the quality and rate options that need no input (usage errors).
    static func checkEyeOptions(_ o: VideoConversionOptions) throws(ParseError) {
        if case .asymmetric(let d) = o.eyeQuality, !(0...EyeQuality.maximumCRFOffset).contains(d) {
            throw ParseError(
                .invalidArgument,
                "the non-hero eye's CRF offset \(fmt(d)) is outside 0…\(fmt(EyeQuality.maximumCRFOffset))")
        }
        if let m = o.maxBitrateKbps, m <= 0 {
            throw ParseError(.invalidArgument, "the max bitrate must be positive (kbit/s)")
        }
        if let b = o.vbvBufferKbit, b <= 0 {
            throw ParseError(.invalidArgument, "the VBV buffer must be positive (kbit)")
        }
        if o.vbvBufferKbit != nil && o.maxBitrateKbps == nil && o.publishing == nil {
            throw ParseError(.invalidArgument, "a VBV buffer needs a max bitrate")
        }
        if case .bitrate(let k, _, _) = o.rateControl, let m = o.maxBitrateKbps, k > m {
            throw ParseError(.invalidArgument, "the average bitrate \(k) kbit/s is above the max bitrate \(m) kbit/s")
        }
        if case .bitrate(let k, _, _) = o.rateControl, !(2...maximumKbps).contains(k) {
            throw ParseError(.invalidArgument, "the bitrate for both eyes must be 2…\(maximumKbps) kbit/s")
        }
    }

    /// Each eye's settings from the settings both eyes share today (`base`, whose rate control is the options').
    /// `.equal` without VBV returns `base` for both eyes; `.asymmetric` returns `base` unchanged for the hero eye
    /// whenever the rate is a CRF or QP (only the other eye differs).
    static func eyeEncoding(
        _ base: HEVCEncoderSettings, options o: VideoConversionOptions, eyeW: Int, eyeH: Int,
        fpsNum: Int, fpsDen: Int
    ) throws(ParseError) -> EyeEncoding {
        var hero = base, other = base
        var notes: [String] = []
        let heroName = o.heroIsLeft ? "left" : "right", otherName = o.heroIsLeft ? "right" : "left"
        let q = o.eyeQuality.assembled
        let share = q.nonHeroShare
        // Peak rate for both eyes together: the user's, and the platform's limit.
        var (maxTotal, bufTotal) = try publishingCaps(
            o, eyeW: eyeW, eyeH: eyeH, fpsNum: fpsNum, fpsDen: fpsDen, notes: &notes)
        let split: (Int) -> (hero: Int, other: Int) = { total in
            let other = max(1, Int((Double(total) * share).rounded()))
            return (max(1, total - other), other)
        }
        var text: String
        switch o.rateControl {
        case .crf(let c):
            let oc = q.nonHeroCRF(heroCRF: c)
            other.rateControl = .crf(oc)
            text = "hero (\(heroName)) CRF \(fmt(c)), \(otherName) CRF \(fmt(oc))"
            // The default rule is min(hero + 6, 28) by design; an explicit offset that the ceiling cut is said.
            if case .asymmetric(let d) = q, o.eyeQuality != .automatic, oc - c < d {
                notes.append(
                    "non-hero eye at CRF \(fmt(oc)), not \(fmt(c + d)): the rule never codes it above CRF \(fmt(EyeQuality.nonHeroCRFCeiling))"
                )
            }
        case .qp(let p):
            let op = Int(q.nonHeroCRF(heroCRF: Double(p)).rounded())
            other.rateControl = .qp(op)
            text = "hero (\(heroName)) QP \(p), \(otherName) QP \(op)"
        case .bitrate(let k, let m, let b):
            let s = split(k)
            maxTotal = maxTotal ?? m
            bufTotal = bufTotal ?? b
            hero.rateControl = .bitrate(kbps: s.hero)
            other.rateControl = .bitrate(kbps: s.other)
            text = "\(k) kbit/s for both eyes: hero (\(heroName)) \(s.hero), \(otherName) \(s.other)"
        }
        // The rule as it was applied: in QP steps for --qp, as the rate's split for a bitrate (not the CRF rule).
        switch o.rateControl {
        case .crf: text += " (\(q))"
        case .qp: text += " (\(q.description(unit: "QP")))"
        case .bitrate:
            if case .asymmetric(let d) = q {
                text +=
                    " (asymmetric: the non-hero eye gets \(NumberText.fixed(share * 100, places: 1)) % of the rate, as \(fmt(d)) QP steps coarser)"
            } else {
                text += " (equal)"
            }
        }
        if let m = maxTotal {
            text += try applyVBV(
                max: m, buffer: bufTotal, hero: &hero, other: &other, eyeW: eyeW, eyeH: eyeH,
                fps: Double(fpsNum) / Double(max(1, fpsDen)), split: split, otherName: otherName, notes: &notes)
        }
        return EyeEncoding(hero: hero, other: other, summary: text, notes: notes)
    }

    /// The peak rate and buffer for both eyes together: the user's, capped by the publishing preset's peak (or by what
    /// the eye size's level allows when no max rate is given).
    private static func publishingCaps(
        _ o: VideoConversionOptions, eyeW: Int, eyeH: Int, fpsNum: Int, fpsDen: Int,
        notes: inout [String]
    ) throws(ParseError) -> (max: Int?, buffer: Int?) {
        var maxTotal = o.maxBitrateKbps
        var bufTotal = o.vbvBufferKbit
        let share = o.eyeQuality.assembled.nonHeroShare
        if let p = o.publishing {
            guard eyeW <= p.maxEyeSide, eyeH <= p.maxEyeSide else {
                throw ParseError(
                    .unsupported,
                    "each eye is \(eyeW)×\(eyeH); the \(p.rawValue) preset allows at most \(p.maxEyeSide)×\(p.maxEyeSide) per eye — scale the input first"
                )
            }
            if let m = maxTotal, m > p.peakKbps {
                notes.append("max bitrate \(m) kbit/s lowered to \(p.peakKbps) kbit/s, the \(p.rawValue) peak")
                maxTotal = p.peakKbps
            } else if maxTotal == nil {
                // A cap, not a target: the platform's peak, or less when the eye size's level allows less (the
                // preset does not raise the level a small picture signals).
                let fps = Double(fpsNum) / Double(max(1, fpsDen))
                if let l = HEVCLevel.lowest(width: eyeW, height: eyeH, fps: fps) {
                    // The hero eye takes 1 − share of the total: the level's limit per eye bounds the total.
                    // (The 1e-6 keeps an exact quotient such as 12000 / (2/3) from rounding down to 17999.)
                    let heroPart = 1 - share
                    maxTotal = min(p.peakKbps, Int((Double(l.maxBitrateKbps) / heroPart + 1e-6).rounded(.down)))
                    if bufTotal == nil {
                        bufTotal = min(
                            maxTotal ?? p.peakKbps, Int((Double(l.maxCPBKbit) / heroPart + 1e-6).rounded(.down)))
                    }
                } else {
                    maxTotal = p.peakKbps
                }
            }
        }
        return (maxTotal, bufTotal)
    }

    /// Splits the VBV (`m` kbit/s, buffer `buffer`) between the eyes, keeps each layer inside a Main-tier HEVC level
    /// and sets it on both eyes' settings; returns the text the summary appends.
    private static func applyVBV(
        max m: Int, buffer bufTotal: Int?, hero: inout HEVCEncoderSettings,
        other: inout HEVCEncoderSettings, eyeW: Int, eyeH: Int, fps: Double,
        split: (Int) -> (hero: Int, other: Int), otherName: String,
        notes: inout [String]
    ) throws(ParseError) -> String {
        var buf = bufTotal ?? m
        if bufTotal == nil { notes.append("VBV buffer: 1 s of the max rate (\(m) kbit)") }
        var mh = split(m), bh = split(buf)
        var levelText = ""
        if let sizeLevel = HEVCLevel.lowest(width: eyeW, height: eyeH, fps: fps), let top = HEVCLevel.mainTier.last {
            // Each layer's VBV must fit the Main-tier limits of the level the stream signals. x265 signals the
            // lowest level that holds the picture size, the sample rate and the VBV (Main tier asked for: no
            // switch to High tier); beyond the highest level the VBV is clamped.
            if mh.hero > top.maxBitrateKbps || bh.hero > top.maxCPBKbit {
                let f = min(
                    1, Double(top.maxBitrateKbps) / Double(mh.hero), Double(top.maxCPBKbit) / Double(max(1, bh.hero)))
                notes.append(
                    "VBV per eye (max \(mh.hero) kbit/s, buffer \(bh.hero) kbit) above the highest HEVC level (\(top), Main tier: \(top.maxBitrateKbps) kbit/s, \(top.maxCPBKbit) kbit): clamped"
                )
                mh = (
                    min(top.maxBitrateKbps, Int(Double(mh.hero) * f)),
                    min(top.maxBitrateKbps, Int(Double(mh.other) * f))
                )
                bh = (min(top.maxCPBKbit, Int(Double(bh.hero) * f)), min(top.maxCPBKbit, Int(Double(bh.other) * f)))
                buf = bh.hero + bh.other
            }
            let level =
                HEVCLevel.mainTier.first {
                    $0.idc >= sizeLevel.idc && $0.maxBitrateKbps >= mh.hero && $0.maxCPBKbit >= bh.hero
                } ?? top
            if level != sizeLevel {
                notes.append(
                    "the VBV per eye (max \(mh.hero) kbit/s, buffer \(bh.hero) kbit) is above \(sizeLevel) Main tier (\(sizeLevel.maxBitrateKbps) kbit/s, \(sizeLevel.maxCPBKbit) kbit), which \(eyeW)×\(eyeH) at \(fmt(fps)) fps needs: the stream signals \(level)"
                )
            }
            levelText = ", \(level) Main tier"
            hero.extraOptions["high-tier"] = "0"
            other.extraOptions["high-tier"] = "0"
        } else {
            notes.append(
                "each eye (\(eyeW)×\(eyeH) at \(fmt(fps)) fps) is beyond every HEVC level: the VBV is not checked against one"
            )
        }
        if case .bitrate(let kh, _, _) = hero.rateControl, kh > mh.hero {
            throw ParseError(
                .invalidArgument,
                "the hero eye's average \(kh) kbit/s would be above its max rate \(mh.hero) kbit/s: lower the average or raise the max rate"
            )
        }
        for (s, r, b) in [(0, mh.hero, bh.hero), (1, mh.other, bh.other)] {
            var e = s == 0 ? hero : other
            e.extraOptions["vbv-maxrate"] = "\(r)"
            e.extraOptions["vbv-bufsize"] = "\(b)"
            if s == 0 { hero = e } else { other = e }
        }
        return
            "; VBV max \(mh.hero + mh.other) kbit/s (hero \(mh.hero), \(otherName) \(mh.other)), buffer \(buf) kbit\(levelText)"
    }
}
