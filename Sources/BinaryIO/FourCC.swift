import SystemSupport

/// A four-character code such as `moov` or `hvc1`, stored as its 32-bit big-endian value so that
/// codes with non-ASCII bytes (for example `©nam`) round-trip exactly.
public struct FourCC: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: UInt32

    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates a code from up to four characters; each character is taken as one Latin-1 byte.
    public init(_ text: String) {
        var v: UInt32 = 0
        var n = 0
        for scalar in text.unicodeScalars.prefix(4) {
            v = v << 8 | (UInt32(scalar.value) & 0xFF)
            n += 1
        }
        while n < 4 { v = v << 8 | 0x20; n += 1 }
        self.rawValue = v
    }
    public init(stringLiteral value: String) { self.init(value) }

    public var bytes: [UInt8] {
        [UInt8(rawValue >> 24), UInt8(rawValue >> 16 & 0xFF), UInt8(rawValue >> 8 & 0xFF), UInt8(rawValue & 0xFF)]
    }
    /// Printable form: bytes 0x20…0x7E as characters, others (including `©` = 0xA9) as Latin-1
    /// characters, control bytes as `\xNN`.
    public var description: String {
        var s = ""
        for b in bytes {
            if b >= 0x20 && b < 0x7F || b >= 0xA0 {
                s.unicodeScalars.append(Unicode.Scalar(b))
            } else {
                s += "\\x" + String(b, radix: 16).leftPadded(2)
            }
        }
        return s
    }
    public static func < (a: FourCC, b: FourCC) -> Bool { a.rawValue < b.rawValue }
}

/// Hex helpers used in dumps and tests.
public enum Hex {
    public static func string<C: Collection>(_ bytes: C, separator: String = "") -> String where C.Element == UInt8 {
        bytes.map { String($0, radix: 16).leftPadded(2) }.joined(separator: separator)
    }
    /// Parses hex digits, ignoring spaces; nil on any other character or odd length.
    public static func bytes(_ text: String) -> [UInt8]? {
        let digits = text.filter { !$0.isWhitespace }
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 2)
        var i = digits.startIndex
        while i < digits.endIndex {
            let j = digits.index(i, offsetBy: 2)
            guard let b = UInt8(digits[i..<j], radix: 16) else { return nil }
            out.append(b)
            i = j
        }
        return out
    }
}
