// `options_json` of the long operations: a small, bounded JSON reader (objects, arrays, strings,
// numbers, true/false/null) and typed access that rejects unknown keys and wrong types, so a typo
// in an option is an error instead of being silently ignored.

import SpatialOperations
import SystemSupport

/// A parsed JSON value.
enum OptionValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([OptionValue])
    case object([(String, OptionValue)])

    static func == (a: OptionValue, b: OptionValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.bool(let x), .bool(let y)): return x == y
        case (.number(let x), .number(let y)): return x == y
        case (.string(let x), .string(let y)): return x == y
        case (.array(let x), .array(let y)): return x == y
        case (.object(let x), .object(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }
}

extension OptionValue {
    /// The value as the operations layer's requests take it.
    var requestValue: RequestValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let d): return .number(d)
        case .string(let s): return .string(s)
        case .array(let a): return .array(a.map(\.requestValue))
        case .object: return .string("(an object)")
        }
    }
}

/// A recursive-descent JSON reader over UTF-8 bytes with a nesting limit.
struct OptionParser {
    private let b: [UInt8]
    private var i = 0
    private static let maxDepth = 32

    static func parse(_ text: String) throws(ABIError) -> OptionValue {
        var p = OptionParser(b: Array(text.utf8))
        let v = try p.value(depth: 0)
        p.space()
        guard p.i == p.b.count else { throw p.error("unexpected text after the JSON value") }
        return v
    }

    private init(b: [UInt8]) { self.b = b }

    private func error(_ m: String) -> ABIError { .argument("options_json: \(m) at byte \(i)") }

    private mutating func space() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    private mutating func literal(_ word: String) -> Bool {
        let w = Array(word.utf8)
        guard i + w.count <= b.count, Array(b[i..<(i + w.count)]) == w else { return false }
        i += w.count
        return true
    }

    private mutating func value(depth: Int) throws(ABIError) -> OptionValue {
        guard depth <= Self.maxDepth else { throw error("nested deeper than \(Self.maxDepth) levels") }
        space()
        guard i < b.count else { throw error("unexpected end") }
        switch b[i] {
        case UInt8(ascii: "{"):
            var fields: [(String, OptionValue)] = []
            try members(close: "}", in: "an object") { (p: inout OptionParser) throws(ABIError) in
                p.space()
                guard p.i < p.b.count, p.b[p.i] == UInt8(ascii: "\"") else { throw p.error("expected a key string") }
                let key = try p.string()
                p.space()
                guard p.i < p.b.count, p.b[p.i] == UInt8(ascii: ":") else { throw p.error("expected ':'") }
                p.i += 1
                fields.append((key, try p.value(depth: depth + 1)))
            }
            return .object(fields)
        case UInt8(ascii: "["):
            var items: [OptionValue] = []
            try members(close: "]", in: "an array") { (p: inout OptionParser) throws(ABIError) in
                items.append(try p.value(depth: depth + 1))
            }
            return .array(items)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            if literal("true") { return .bool(true) }
        case UInt8(ascii: "f"):
            if literal("false") { return .bool(false) }
        case UInt8(ascii: "n"):
            if literal("null") { return .null }
        default:
            return try number()
        }
        throw error("unknown literal")
    }

    /// The comma-separated members of an object or array after its opening byte, up to `close` (consumed).
    private mutating func members(
        close: Unicode.Scalar, in what: String, _ member: (inout OptionParser) throws(ABIError) -> Void
    ) throws(ABIError) {
        let end = UInt8(ascii: close)
        i += 1
        space()
        if i < b.count, b[i] == end { i += 1; return }
        while true {
            try member(&self)
            space()
            guard i < b.count else { throw error("unexpected end in \(what)") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == end { i += 1; return }
            throw error("expected ',' or '\(close)'")
        }
    }

    private mutating func number() throws(ABIError) -> OptionValue {
        let start = i
        while i < b.count,
            (b[i] >= 0x30 && b[i] <= 0x39) || b[i] == UInt8(ascii: "-") || b[i] == UInt8(ascii: "+")
                || b[i] == UInt8(ascii: ".") || b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E")
        { i += 1 }
        guard i > start, i - start <= 64, let d = Double(String(decoding: b[start..<i], as: UTF8.self)), d.isFinite
        else {
            i = start
            throw error("expected a value")
        }
        return .number(d)
    }

    private mutating func hex4() throws(ABIError) -> UInt32 {
        guard i + 4 <= b.count, let v = UInt32(String(decoding: b[i..<(i + 4)], as: UTF8.self), radix: 16) else {
            throw error("bad \\u escape")
        }
        i += 4
        return v
    }

    private mutating func string() throws(ABIError) -> String {
        i += 1  // opening quote
        var out: [UInt8] = []
        while i < b.count {
            let c = b[i]
            i += 1
            if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            if c < 0x20 { throw error("control character in a string") }
            guard c == UInt8(ascii: "\\") else { out.append(c); continue }
            guard i < b.count else { break }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var v = try hex4()
                if v >= 0xD800 && v < 0xDC00, i + 6 <= b.count, b[i] == UInt8(ascii: "\\"),
                    b[i + 1] == UInt8(ascii: "u")
                {
                    i += 2
                    let lo = try hex4()
                    guard lo >= 0xDC00 && lo < 0xE000 else { throw error("bad surrogate pair") }
                    v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(v) else { throw error("bad \\u escape") }
                out += Array(String(Character(scalar)).utf8)
            default: throw error("bad escape")
            }
        }
        throw error("unterminated string")
    }
}

/// Typed, checked access to an options object. Every key must be consumed; `finish()` rejects the rest.
struct Options {
    private var fields: [String: OptionValue] = [:]

    /// NULL → no options. Anything else must be a JSON object without duplicate keys.
    init(_ text: String?) throws(ABIError) {
        guard let text else { return }
        guard case .object(let list) = try OptionParser.parse(text) else {
            throw .argument("options_json must be a JSON object, e.g. {}")
        }
        for (k, v) in list {
            if fields[k] != nil { throw .argument("options_json: key \"\(k)\" appears twice") }
            fields[k] = v
        }
    }

    private mutating func take(_ key: String) -> OptionValue? {
        guard let v = fields.removeValue(forKey: key) else { return nil }
        return v == .null ? nil : v
    }

    mutating func bool(_ key: String) throws(ABIError) -> Bool? {
        guard let v = take(key) else { return nil }
        guard case .bool(let x) = v else { throw .argument("option \"\(key)\" must be true or false") }
        return x
    }

    mutating func double(_ key: String) throws(ABIError) -> Double? {
        guard let v = take(key) else { return nil }
        guard case .number(let x) = v else { throw .argument("option \"\(key)\" must be a number") }
        return x
    }

    /// A number strictly above `above` (or at least `from`) and at most `atMost` (or strictly below `below`).
    mutating func double(
        _ key: String, above: Double? = nil, from: Double? = nil, below: Double? = nil, atMost: Double? = nil,
        _ unit: String
    ) throws(ABIError) -> Double? {
        guard let x = try double(key) else { return nil }
        let ok =
            (above.map { x > $0 } ?? true) && (from.map { x >= $0 } ?? true) && (below.map { x < $0 } ?? true)
            && (atMost.map { x <= $0 } ?? true)
        guard ok else {
            let lower =
                above.map { "above \(NumberText.fixed($0, places: 3, trimZeros: true))" } ?? from.map {
                    "at least \(NumberText.fixed($0, places: 3, trimZeros: true))"
                } ?? ""
            let upper =
                below.map { "below \(NumberText.fixed($0, places: 3, trimZeros: true))" } ?? atMost.map {
                    "at most \(NumberText.fixed($0, places: 3, trimZeros: true))"
                } ?? ""
            throw .argument(
                "option \"\(key)\" must be \([lower, upper].filter { !$0.isEmpty }.joined(separator: " and ")) \(unit) (got \(NumberText.fixed(x, places: 3, trimZeros: true)))"
            )
        }
        return x
    }

    mutating func int(_ key: String, _ range: ClosedRange<Int>) throws(ABIError) -> Int? {
        guard let d = try double(key) else { return nil }
        guard d == d.rounded(), let x = Int(exactly: d), range.contains(x) else {
            throw .argument("option \"\(key)\" must be an integer in \(range.lowerBound)…\(range.upperBound)")
        }
        return x
    }

    mutating func string(_ key: String) throws(ABIError) -> String? {
        guard let v = take(key) else { return nil }
        guard case .string(let x) = v else { throw .argument("option \"\(key)\" must be a string") }
        return x
    }

    mutating func choice(_ key: String, _ allowed: [String]) throws(ABIError) -> String? {
        guard let s = try string(key) else { return nil }
        guard allowed.contains(s) else {
            throw .argument("option \"\(key)\" must be one of \(allowed.joined(separator: ", ")) (got \"\(s)\")")
        }
        return s
    }

    /// Every key not taken yet, in key order (null values left out): what a request's own table reads.
    mutating func takeAll() -> [(String, OptionValue)] {
        let rest = fields.filter { $0.value != .null }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        fields = [:]
        return rest
    }

    /// Fails when keys were given that the operation does not know.
    func finish(_ operation: String) throws(ABIError) {
        if let k = fields.keys.sorted().first { throw .argument("unknown option \"\(k)\" for \(operation)") }
    }
}
