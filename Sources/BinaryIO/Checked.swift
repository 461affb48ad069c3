/// Overflow-checked arithmetic on values read from input. Each function throws
/// ``ParseError/Code/arithmeticOverflow`` at `offset` instead of trapping.
public enum Checked {
    @inlinable
    public static func add(_ a: UInt64, _ b: UInt64, offset: UInt64 = 0) throws(ParseError) -> UInt64 {
        let (r, o) = a.addingReportingOverflow(b)
        if o { throw ParseError(.arithmeticOverflow, offset: offset, "\(a) + \(b) overflows 64 bits") }
        return r
    }
    @inlinable
    public static func sub(_ a: UInt64, _ b: UInt64, offset: UInt64 = 0) throws(ParseError) -> UInt64 {
        if b > a { throw ParseError(.arithmeticOverflow, offset: offset, "\(a) - \(b) is negative") }
        return a - b
    }
    @inlinable
    public static func mul(_ a: UInt64, _ b: UInt64, offset: UInt64 = 0) throws(ParseError) -> UInt64 {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        if o { throw ParseError(.arithmeticOverflow, offset: offset, "\(a) × \(b) overflows 64 bits") }
        return r
    }
    @inlinable
    public static func add(_ a: Int, _ b: Int, offset: UInt64 = 0) throws(ParseError) -> Int {
        let (r, o) = a.addingReportingOverflow(b)
        if o { throw ParseError(.arithmeticOverflow, offset: offset, "\(a) + \(b) overflows") }
        return r
    }
    @inlinable
    public static func mul(_ a: Int, _ b: Int, offset: UInt64 = 0) throws(ParseError) -> Int {
        let (r, o) = a.multipliedReportingOverflow(by: b)
        if o { throw ParseError(.arithmeticOverflow, offset: offset, "\(a) × \(b) overflows") }
        return r
    }
    /// Converts a 64-bit unsigned value to `Int`, throwing when it does not fit.
    @inlinable
    public static func int(_ v: UInt64, offset: UInt64 = 0) throws(ParseError) -> Int {
        guard let r = Int(exactly: v) else {
            throw ParseError(.arithmeticOverflow, offset: offset, "\(v) does not fit in Int")
        }
        return r
    }
    /// Converts an `Int` to `UInt64`, throwing when it is negative.
    @inlinable
    public static func u64(_ v: Int, offset: UInt64 = 0) throws(ParseError) -> UInt64 {
        guard let r = UInt64(exactly: v) else {
            throw ParseError(.arithmeticOverflow, offset: offset, "\(v) is negative")
        }
        return r
    }
    /// Converts an `Int` to `UInt32` (a count or size field being written), throwing when it does not fit.
    @inlinable
    public static func u32(_ v: Int, offset: UInt64 = 0) throws(ParseError) -> UInt32 {
        guard let r = UInt32(exactly: v) else {
            throw ParseError(.unwritable, offset: offset, "\(v) does not fit a 32-bit field")
        }
        return r
    }
}
