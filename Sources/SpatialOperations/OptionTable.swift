import BinaryIO
import SystemSupport

/// How a shell names an option in the messages the planning step writes: the command line's flag (`--crf`) or
/// the JSON key the C ABI and the Python package take (`"crf"`). The wording is otherwise the same everywhere.
public enum OptionSpelling: Sendable, Equatable {
    case flag
    case key
}

/// A value given to a request through a shell that hands over untyped values (the C ABI's `options_json`, and
/// Python through it). The command line builds its request with typed values directly.
public enum RequestValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([RequestValue])
}

/// One option of a request: its JSON key (also the name in the report and, unless ``python`` says otherwise, the
/// Python keyword), the command line's flag, its type, the default written when it is not given (taken from the
/// library's own values, so a changed default shows here) and which kind of job takes it.
///
/// The table of a request (``ConvertRequest/table``) is the one place these names meet: the command line's help,
/// the C header's option list and the Python keywords are checked against it by a test.
public struct OptionSpec: Sendable {
    /// What a value must look like before the planning step checks its range.
    public enum ValueType: String, Sendable {
        case bool, integer, number, text, path
        /// A frame rate: "30", "29.97", "30000/1001", a number, or `[num, den]`.
        case rate
        /// A segment: "K/N" or `[k, n]`.
        case segment
    }

    /// Which conversions take the option.
    public enum Applies: String, Sendable { case photo, video, both }

    public var key: String
    /// The command line's spelling; nil when the command line has none (the stored-unit forms of the values).
    public var flag: String?
    /// The Python keyword when it differs from ``key``.
    public var python: String?
    public var type: ValueType
    public var applies: Applies
    /// The default as text ("" when there is none: the option only acts when given).
    public var defaultText: String
    /// A choice's values, as the option takes them (empty: not a closed set of words). A choice's row takes them
    /// from the library's type (``OptionChoice/allowedValues``).
    public var allowed: [String]
    /// The values a number may take (nil: any the type allows), checked by `checkRange`.
    public var range: ClosedRange<Double>?

    public init(
        _ key: String, flag: String?, python: String? = nil, _ type: ValueType, _ applies: Applies,
        default defaultText: String = "", allowed: [String] = [], range: ClosedRange<Double>? = nil
    ) {
        self.key = key; self.flag = flag; self.python = python; self.type = type; self.applies = applies;
        self.defaultText = defaultText; self.allowed = allowed; self.range = range
    }

    /// `value` when it is in ``range``; else refused as `invalid-option` naming the range ("between 0 and 51").
    @discardableResult
    public func checkRange<T: BinaryInteger>(_ value: T, _ spelling: OptionSpelling) throws(ParseError) -> T {
        try checkRange(Double(value), spelling)
        return value
    }

    /// `value` when it is in ``range``; else refused as `invalid-option` naming the range ("between 0 and 51").
    @discardableResult
    public func checkRange(_ value: Double, _ spelling: OptionSpelling) throws(ParseError) -> Double {
        if let range, !range.contains(value) {
            throw ParseError(
                .invalidOption,
                "\(name(spelling)) must be between \(OptionSpec.number(range.lowerBound)) and \(OptionSpec.number(range.upperBound))"
            )
        }
        return value
    }

    /// A bound as text: "51", "0.5".
    static func number(_ d: Double) -> String { NumberText.fixed(d, places: 3, trimZeros: true) }

    /// The Python keyword.
    public var pythonKeyword: String { python ?? key }

    /// The name a message uses for this option.
    public func name(_ spelling: OptionSpelling) -> String {
        spelling == .flag ? (flag ?? key) : "\"\(key)\""
    }

    /// The value of this option that `text` spells, read once here for every shell; a text that spells none is
    /// refused naming the allowed values.
    public func choice<T: OptionChoice>(_ text: String, _ spelling: OptionSpelling) throws(ParseError) -> T {
        guard let value = T(optionText: text) else {
            throw ParseError(.invalidOption, "\(name(spelling)) must be \(T.allowedText)")
        }
        return value
    }

    /// The row as JSON (`sm_option_table`): key, flag, python, type, applies, default, allowed (a choice's values,
    /// else null) and range (`[lowest, highest]` of a number, else null).
    public var json: JSON {
        .object([
            ("key", .string(key)), ("flag", flag.map { .string($0) } ?? .null), ("python", .string(pythonKeyword)),
            ("type", .string(type.rawValue)), ("applies", .string(applies.rawValue)), ("default", .string(defaultText)),
            ("allowed", allowed.isEmpty ? .null : .array(allowed.map { .string($0) })),
            ("range", range.map { .array([.double($0.lowerBound), .double($0.upperBound)]) } ?? .null),
        ])
    }
}

/// One option of a request `R`: its row (``OptionSpec``), the property of `R` that holds its value, how an untyped
/// value is read into that property and whether the option is given — the one listing of the option beside the
/// property itself.
struct RequestOption<R> {
    var spec: OptionSpec
    let set: (inout R, RequestValue) throws(ParseError) -> Void
    let isGiven: (R) -> Bool

    /// A value read by `read`; given when not nil.
    static func value<T>(
        _ spec: OptionSpec, _ path: WritableKeyPath<R, T?>,
        _ read: @escaping (RequestValue, OptionSpec) throws(ParseError) -> T
    ) -> RequestOption {
        RequestOption(
            spec: spec,
            set: { (r: inout R, v: RequestValue) throws(ParseError) in r[keyPath: path] = try read(v, spec) },
            isGiven: { $0[keyPath: path] != nil })
    }

    /// A value read by `read`, which may read it as not given (a layout's `auto`); given when not nil.
    static func optional<T>(
        _ spec: OptionSpec, _ path: WritableKeyPath<R, T?>,
        _ read: @escaping (RequestValue, OptionSpec) throws(ParseError) -> T?
    ) -> RequestOption {
        RequestOption(
            spec: spec,
            set: { (r: inout R, v: RequestValue) throws(ParseError) in r[keyPath: path] = try read(v, spec) },
            isGiven: { $0[keyPath: path] != nil })
    }

    /// A choice (``OptionChoice``) read from its text by the row, whose allowed values are the type's; given when
    /// not nil.
    static func choice<T: OptionChoice>(_ spec: OptionSpec, _ path: WritableKeyPath<R, T?>) -> RequestOption {
        var spec = spec
        if spec.allowed.isEmpty { spec.allowed = T.allowedValues }
        return value(spec, path) { (v, spec) throws(ParseError) in try RequestValues.choice(v, spec) }
    }

    /// This option with the range `range` when its row states none.
    func ranged(_ range: ClosedRange<Double>?) -> RequestOption {
        var o = self
        if o.spec.range == nil { o.spec.range = range }
        return o
    }

    /// A switch held as a plain `Bool` whose default is the row's ("true" or "false"); given when not the default.
    static func toggle(_ spec: OptionSpec, _ path: WritableKeyPath<R, Bool>) -> RequestOption {
        let byDefault = spec.defaultText == "true"
        return RequestOption(
            spec: spec,
            set: { (r: inout R, v: RequestValue) throws(ParseError) in
                r[keyPath: path] = try RequestValues.bool(v, spec)
            },
            isGiven: { $0[keyPath: path] != byDefault })
    }

    /// A switch: given when true.
    static func flag(_ spec: OptionSpec, _ path: WritableKeyPath<R, Bool?>) -> RequestOption {
        RequestOption(
            spec: spec,
            set: { (r: inout R, v: RequestValue) throws(ParseError) in
                r[keyPath: path] = try RequestValues.bool(v, spec)
            },
            isGiven: { $0[keyPath: path] == true })
    }
}

/// Reads untyped values into a request by its table: every key must be in the table and of its type; ranges and
/// combinations are the planning step's. Unknown keys are refused, so a misspelt option is never silently unused.
enum RequestValues {
    static func typeError(_ spec: OptionSpec, _ what: String) -> ParseError {
        ParseError(.invalidOption, "option \(spec.name(.key)) must be \(what)")
    }

    /// Fills a request from `values` by its `table`: every key must be a row of it (else refused, naming `job`) and
    /// given once; a null value counts as not given. `set` stores one typed value.
    static func fill(
        _ values: [(String, RequestValue)], table: [OptionSpec], job: String,
        _ set: (OptionSpec, RequestValue) throws(ParseError) -> Void
    ) throws(ParseError) {
        var seen: Set<String> = []
        for (key, value) in values {
            guard let spec = table.first(where: { $0.key == key }) else {
                throw ParseError(.invalidOption, "unknown option \"\(key)\" for \(job)")
            }
            guard seen.insert(key).inserted else {
                throw ParseError(.invalidOption, "option \"\(key)\" is given twice")
            }
            if value == .null { continue }
            try set(spec, value)
        }
    }

    /// Fills `request` from `values` by its rows (``fill(_:table:job:_:)``).
    static func fill<R>(
        _ values: [(String, RequestValue)], into request: inout R, options: [RequestOption<R>], job: String
    ) throws(ParseError) {
        var r = request
        try fill(values, table: options.map(\.spec), job: job) { (spec, value) throws(ParseError) in
            guard let option = options.first(where: { $0.spec.key == spec.key }) else {
                throw ParseError(.invalidOption, "unknown option \"\(spec.key)\" for \(job)")
            }
            try option.set(&r, value)
        }
        request = r
    }

    static func bool(_ v: RequestValue, _ spec: OptionSpec) throws(ParseError) -> Bool {
        guard case .bool(let b) = v else { throw typeError(spec, "true or false") }
        return b
    }

    static func number(_ v: RequestValue, _ spec: OptionSpec) throws(ParseError) -> Double {
        guard case .number(let d) = v, d.isFinite else { throw typeError(spec, "a number") }
        return d
    }

    static func integer(_ v: RequestValue, _ spec: OptionSpec) throws(ParseError) -> Int {
        guard case .number(let d) = v, d == d.rounded(), let i = Int(exactly: d) else {
            throw typeError(spec, "an integer")
        }
        return i
    }

    static func text(_ v: RequestValue, _ spec: OptionSpec) throws(ParseError) -> String {
        guard case .string(let s) = v else { throw typeError(spec, "a string") }
        return s
    }

    /// A choice (``OptionChoice``) from its text.
    static func choice<T: OptionChoice>(_ v: RequestValue, _ spec: OptionSpec) throws(ParseError) -> T {
        try spec.choice(text(v, spec), .key)
    }

    /// A path: a non-empty string.
    static func path(_ v: RequestValue, _ spec: OptionSpec) throws(ParseError) -> String {
        let s = try text(v, spec)
        if s.isEmpty { throw ParseError(.invalidOption, "option \(spec.name(.key)) is empty") }
        return s
    }

    /// A rate or segment as its text form: "N/D" from a pair, the number's shortest text from a number.
    static func fraction(_ v: RequestValue, _ spec: OptionSpec) throws(ParseError) -> String {
        switch v {
        case .string(let s): return s
        case .number(let d) where d.isFinite:
            return d == d.rounded() && abs(d) < 1e15 ? String(Int(d)) : String(d)
        case .array(let parts) where parts.count == 2:
            guard case .number(let a) = parts[0], case .number(let b) = parts[1], a == a.rounded(), b == b.rounded(),
                let n = Int(exactly: a), let d = Int(exactly: b)
            else { break }
            return "\(n)/\(d)"
        default: break
        }
        throw typeError(
            spec, spec.type == .rate ? "a rate such as \"30000/1001\", 29.97 or [30000, 1001]" : "\"K/N\" or [k, n]")
    }
}

/// A request with a table of options (``OptionSpec``): its rows by key, and the command line's way in to a choice's
/// one reading (the row reads the text as the C ABI's JSON is read).
public protocol OptionTableRequest {
    /// The name table: JSON key ↔ flag ↔ Python keyword, type, job, default, allowed values and range.
    static var table: [OptionSpec] { get }
}

extension OptionTableRequest {
    /// The row of `key` (a key of ``table``).
    public static func row(_ key: String) -> OptionSpec {
        table.first { $0.key == key } ?? OptionSpec(key, flag: nil, .text, .both)
    }

    /// The default the row of `key` states (the command line's help shows it).
    public static func defaultText(_ key: String) -> String { row(key).defaultText }

    /// The value of the choice `key` that `text` spells (nil when `text` is nil), read by the option's row; a wrong
    /// value is refused naming the allowed ones.
    public static func choiceValue<T: OptionChoice>(_ key: String, _ text: String?, _ spelling: OptionSpelling)
        throws(ParseError) -> T?
    {
        guard let text else { return nil }
        return try row(key).choice(text, spelling)
    }
}
