import BinaryIO
import HEVC
import MediaDecode
import SpatialConvert
import SpatialMedia
import SystemSupport

/// A value an option takes from a closed set of words (or one small syntax, such as a segment's "K/N"): the
/// library's own type, read from its text once, by the option's row (``OptionSpec/choice(_:_:)``), whichever shell
/// the text came from. A request holds the typed value, so the planning step never reads the text again.
public protocol OptionChoice: Sendable, Equatable {
    /// The value `text` spells, or nil when it spells none.
    init?(optionText text: String)
    /// The spelling of the value (what ``init(optionText:)`` reads back).
    var optionText: String { get }
    /// The values allowed, as a refusal lists them: "copy or none", "one of a, b, c".
    static var allowedText: String { get }
    /// The words allowed, as the option table lists them (`sm_option_table`'s "allowed"); empty for a syntax (a
    /// segment's "K/N").
    static var allowedValues: [String] { get }
}

extension OptionChoice {
    public static var allowedValues: [String] { [] }
}

extension OptionChoice where Self: RawRepresentable & CaseIterable, RawValue == String {
    public init?(optionText text: String) { self.init(rawValue: text) }
    public var optionText: String { rawValue }
    public static var allowedText: String { OptionChoices.listed(allowedValues) }
    public static var allowedValues: [String] { allCases.map(\.rawValue) }
}

/// Helpers of ``OptionChoice``.
public enum OptionChoices {
    /// "a or b" for two words, else "one of a, b, c".
    public static func listed(_ words: [String]) -> String {
        words.count == 2 ? "\(words[0]) or \(words[1])" : "one of \(words.joined(separator: ", "))"
    }
}

/// The x265 presets a conversion or split accepts (x265's own names, fastest first).
public enum X265Preset: String, Sendable, CaseIterable, OptionChoice {
    case ultrafast, superfast, veryfast, faster, fast, medium, slow, slower, veryslow, placebo
}

/// The sphere a frame-packed 180°/360° video is, when its metadata does not say (`projection`).
public enum SphereProjection: String, Sendable, CaseIterable, OptionChoice {
    /// 180°, half-equirectangular.
    case hequ
    /// 360°, equirectangular.
    case equi
    public static var allowedText: String { "hequ (180°, half-equirectangular) or equi (360°, equirectangular)" }
}

extension StereoVideoLayout: OptionChoice {}
extension StereoLayout: OptionChoice {}
extension EncodePath: OptionChoice {}
extension PublishingPreset: OptionChoice {}
extension CameraPropertyForm: OptionChoice {}
extension VideoDecoderChoice: OptionChoice {}
extension VideoConversionOptions.Audio: OptionChoice {
    public init?(optionText text: String) { self.init(rawValue: text) }
    public var optionText: String { rawValue }
    public static var allowedText: String { "copy or none" }
    public static var allowedValues: [String] { ["copy", "none"] }
}

extension SpatialVideoMuxOptions.Container: OptionChoice {
    public init?(optionText text: String) { self.init(rawValue: text) }
    public var optionText: String { rawValue }
    public static var allowedText: String { "mov or mp4" }
    public static var allowedValues: [String] { ["mov", "mp4"] }
}

extension LayerSPSForm: OptionChoice {
    public static var allowedText: String { "multilayer or full" }
}

extension HeroEye: OptionChoice {
    /// `left`, `right` or `none` (a reserved value has no spelling).
    public init?(optionText text: String) {
        switch text {
        case "left": self = .left
        case "right": self = .right
        case "none": self = .none
        default: return nil
        }
    }
    public var optionText: String { description }
    public static var allowedText: String { "left or right (or none)" }
    public static var allowedValues: [String] { ["left", "right", "none"] }
}

extension EyeQuality: OptionChoice {
    public init?(optionText text: String) { self.init(argument: text) }
    public var optionText: String { ConvertRequest.eyeQualityArgument(self) }
    public static var allowedText: String {
        "auto, asymmetric, asymmetric:N (N 0…\(NumberText.fixed(EyeQuality.maximumCRFOffset, places: 0)) CRF steps)"
            + " or equal"
    }
    public static var allowedValues: [String] { ["auto", "asymmetric", "asymmetric:N", "equal"] }
}

extension VideoSegment: OptionChoice {
    public init?(optionText text: String) {
        guard let s = VideoSegment.parse(text) else { return nil }
        self = s
    }
    public var optionText: String { "\(index)/\(count)" }
    public static var allowedText: String { "K/N with 1 ≤ K ≤ N, e.g. 2/4" }
}

/// An eye a repair adds as the hero eye where a track has none (`fix`'s `hero_eye`): left or right, never none.
public enum EyeChoice: String, Sendable, CaseIterable, OptionChoice {
    case left, right

    /// The library's hero eye.
    public var heroEye: HeroEye { self == .left ? .left : .right }
}

/// How a single-layer movie's frame packs the eyes (`edit`'s `packing`): the view-packing code `side` or `over`.
public enum ViewPackingChoice: String, Sendable, CaseIterable, OptionChoice {
    case side, over
}

/// A projection kind an edit writes (`edit`'s `projection`): a four-character code of
/// ``/SpatialMedia/StereoParameters/documentedProjections``.
public struct ProjectionChoice: Sendable, Equatable, OptionChoice {
    public var code: FourCC

    public init?(optionText text: String) {
        guard text.utf8.count == 4, StereoParameters.documentedProjections.contains(FourCC(text)) else { return nil }
        code = FourCC(text)
    }
    public var optionText: String { code.description }
    public static var allowedValues: [String] { StereoParameters.documentedProjections.map(\.description) }
    public static var allowedText: String { "one of \(allowedValues.joined(separator: ", "))" }
}

/// A stereo field an edit removes from a video (`edit`'s `remove`).
public enum RemovableField: String, Sendable, CaseIterable, OptionChoice {
    case baseline, hfov, disparity
    case heroEye = "hero_eye"
    case projection
}
