import BinaryIO
import SpatialMedia

/// The stereo values of a request as given, each under either of its two names: the stored unit (`baseline_um`,
/// `hfov_millidegrees`, `disparity` in 1/10000 of the width) or the human one (`baseline_mm`, `hfov_degrees`,
/// `disparity_percent`). The one place where a shell's values become ``/SpatialMedia/StereoParameters``: no shell
/// converts units or checks these ranges itself.
public struct StereoValueInputs: Sendable, Equatable {
    public var baselineMillimetres: Double?
    public var baselineMicrometres: Int?
    public var hfovDegrees: Double?
    public var hfovMillidegrees: Int?
    public var disparityPercent: Double?
    public var disparity: Int?

    public init(
        baselineMillimetres: Double? = nil, baselineMicrometres: Int? = nil, hfovDegrees: Double? = nil,
        hfovMillidegrees: Int? = nil,
        disparityPercent: Double? = nil, disparity: Int? = nil
    ) {
        self.baselineMillimetres = baselineMillimetres; self.baselineMicrometres = baselineMicrometres;
        self.hfovDegrees = hfovDegrees
        self.hfovMillidegrees = hfovMillidegrees; self.disparityPercent = disparityPercent; self.disparity = disparity
    }

    /// The values in stored units (nil where not given). Giving both names of one value is refused; human values go
    /// through the checked initialiser of ``/SpatialMedia/StereoParameters`` (rounded, never truncated). A photo's
    /// baseline must be above 0 and fit its signed 32-bit camera position. `name` spells a key for the messages.
    public func parameters(photo: Bool, name: (String) -> String = { "\"\($0)\"" }) throws(ParseError)
        -> StereoParameters
    {
        func refuse(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        for (a, b, x, y) in [
            ("baseline_um", "baseline_mm", baselineMicrometres != nil, baselineMillimetres != nil),
            ("hfov_millidegrees", "hfov_degrees", hfovMillidegrees != nil, hfovDegrees != nil),
            ("disparity", "disparity_percent", disparity != nil, disparityPercent != nil),
        ] where x && y {
            throw refuse("give \(name(a)) or \(name(b)), not both")
        }
        var s: StereoParameters
        do throws(ParseError) {
            s = try StereoParameters(
                baselineMillimetres: baselineMillimetres, horizontalFieldOfViewDegrees: hfovDegrees,
                disparityPercent: disparityPercent)
        } catch {
            // The library's range refusal of a human value is a refused option here.
            var e = error
            if e.code == .invalidArgument { e.code = .invalidOption }
            throw e
        }
        let maxUM = photo ? Int(Int32.max) : Int(UInt32.max)
        if let um = baselineMicrometres {
            guard (0...maxUM).contains(um) else {
                throw refuse("\(name("baseline_um")) must be 0…\(maxUM) µm (got \(um))")
            }
            s.baselineMicrometres = UInt32(um)
        }
        if let md = hfovMillidegrees {
            guard (1...179_999).contains(md) else {
                throw refuse("\(name("hfov_millidegrees")) must be 1…179999 (1/1000°, got \(md))")
            }
            s.horizontalFieldOfViewMillidegrees = UInt32(md)
        }
        if let d = disparity {
            guard (-10_000...10_000).contains(d) else {
                throw refuse("\(name("disparity")) must be -10000…10000 (1/10000 of the width, got \(d))")
            }
            s.disparityAdjustment = Int32(d)
        }
        if photo, let b = s.baselineMicrometres {
            if b == 0 { throw refuse("a photo's baseline must be above 0 mm (it rounds to 0 µm)") }
            if b > UInt32(Int32.max) { throw refuse("a photo's baseline must be at most \(Int32.max) µm") }
        }
        return s
    }
}

extension StereoValueInputs {
    /// The JSON keys these values are read under.
    public static let keys = [
        "baseline_mm", "baseline_um", "hfov_degrees", "hfov_millidegrees", "disparity_percent", "disparity",
    ]

    /// Reads untyped values (the C ABI's `sm_edit_set_values`): only ``keys``, numbers (integers for the stored units).
    public init(values: [(String, RequestValue)]) throws(ParseError) {
        self.init()
        for (key, v) in values where v != .null {
            let spec = OptionSpec(
                key, flag: nil,
                key.hasSuffix("_mm") || key.hasSuffix("_degrees") || key.hasSuffix("_percent") ? .number : .integer,
                .both)
            switch key {
            case "baseline_mm": baselineMillimetres = try RequestValues.number(v, spec)
            case "baseline_um": baselineMicrometres = try RequestValues.integer(v, spec)
            case "hfov_degrees": hfovDegrees = try RequestValues.number(v, spec)
            case "hfov_millidegrees": hfovMillidegrees = try RequestValues.integer(v, spec)
            case "disparity_percent": disparityPercent = try RequestValues.number(v, spec)
            case "disparity": disparity = try RequestValues.integer(v, spec)
            default:
                throw ParseError(
                    .invalidOption, "unknown stereo value \"\(key)\" (known: \(Self.keys.joined(separator: ", ")))")
            }
        }
    }
}

extension StereoValueInputs {
    /// The values each key may take, as its row states them (the checks above and the library's refuse the rest).
    public static func range(_ key: String) -> ClosedRange<Double>? {
        switch key {
        case "baseline_mm": return 0...(Double(UInt32.max) / 1000)
        case "baseline_um": return 0...Double(UInt32.max)
        case "hfov_degrees": return 0.001...179.999
        case "hfov_millidegrees": return 1...179_999
        case "disparity_percent": return -100...100
        case "disparity": return -10_000...10_000
        default: return nil
        }
    }

    /// The six rows of the stereo values of a request whose values are at `path`: the human units under their
    /// flags, the stored units without one; `defaults` by key (none: only acts when given).
    static func rows<R>(
        _ path: WritableKeyPath<R, StereoValueInputs>, _ applies: OptionSpec.Applies, defaults: [String: String] = [:]
    ) -> [RequestOption<R>] {
        func spec(_ key: String, _ flag: String?, _ type: OptionSpec.ValueType) -> OptionSpec {
            OptionSpec(key, flag: flag, type, applies, default: defaults[key] ?? "", range: range(key))
        }
        return [
            .value(
                spec("baseline_mm", "--baseline", .number), path.appending(path: \.baselineMillimetres),
                RequestValues.number),
            .value(
                spec("baseline_um", nil, .integer), path.appending(path: \.baselineMicrometres),
                RequestValues.integer),
            .value(spec("hfov_degrees", "--hfov", .number), path.appending(path: \.hfovDegrees), RequestValues.number),
            .value(
                spec("hfov_millidegrees", nil, .integer), path.appending(path: \.hfovMillidegrees),
                RequestValues.integer),
            .value(
                spec("disparity_percent", "--disparity", .number), path.appending(path: \.disparityPercent),
                RequestValues.number),
            .value(spec("disparity", nil, .integer), path.appending(path: \.disparity), RequestValues.integer),
        ]
    }
}
