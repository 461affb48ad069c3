/// Overflow-checked arithmetic on values read from input. Each function throws
/// ``ParseError/Code/arithmeticOverflow`` at `offset` instead of trapping.
public enum Checked {
    @inlinable
    public static func add(_ a: UInt64, _ b: UInt64, offset: UInt64 = 0) throws(ParseError) -> UInt64 {
        try result(a.addingReportingOverflow(b), offset: offset, "\(a) + \(b) overflows 64 bits")
    }
    @inlinable
    public static func sub(_ a: UInt64, _ b: UInt64, offset: UInt64 = 0) throws(ParseError) -> UInt64 {
        if b > a { throw ParseError(.arithmeticOverflow, offset: offset, "\(a) - \(b) is negative") }
        return a - b
    }
    @inlinable
    public static func mul(_ a: UInt64, _ b: UInt64, offset: UInt64 = 0) throws(ParseError) -> UInt64 {
        try result(a.multipliedReportingOverflow(by: b), offset: offset, "\(a) × \(b) overflows 64 bits")
    }
    @inlinable
    public static func add(_ a: Int, _ b: Int, offset: UInt64 = 0) throws(ParseError) -> Int {
        try result(a.addingReportingOverflow(b), offset: offset, "\(a) + \(b) overflows")
    }
    @inlinable
    public static func mul(_ a: Int, _ b: Int, offset: UInt64 = 0) throws(ParseError) -> Int {
        try result(a.multipliedReportingOverflow(by: b), offset: offset, "\(a) × \(b) overflows")
    }
    /// Converts a 64-bit unsigned value to `Int`, throwing when it does not fit.
    @inlinable
    public static func int(_ v: UInt64, offset: UInt64 = 0) throws(ParseError) -> Int {
        try exact(Int(exactly: v), .arithmeticOverflow, offset: offset, "\(v) does not fit in Int")
    }
    /// Converts an `Int` to `UInt64`, throwing when it is negative.
    @inlinable
    public static func u64(_ v: Int, offset: UInt64 = 0) throws(ParseError) -> UInt64 {
        try exact(UInt64(exactly: v), .arithmeticOverflow, offset: offset, "\(v) is negative")
    }
    /// Converts an `Int` to `UInt32` (a count or size field being written), throwing when it does not fit.
    @inlinable
    public static func u32(_ v: Int, offset: UInt64 = 0) throws(ParseError) -> UInt32 {
        try exact(UInt32(exactly: v), .unwritable, offset: offset, "\(v) does not fit a 32-bit field")
    }

    /// The value of an operation that reports overflow, or the error `what` describes.
    @inlinable
    static func result<T>(_ r: (partialValue: T, overflow: Bool), offset: UInt64, _ what: @autoclosure () -> String)
        throws(ParseError) -> T
    {
        if r.overflow { throw ParseError(.arithmeticOverflow, offset: offset, what()) }
        return r.partialValue
    }
    /// The value of an exact conversion, or the error (`code`, `what`) when there is none.
    @inlinable
    static func exact<T>(_ v: T?, _ code: ParseError.Code, offset: UInt64, _ what: @autoclosure () -> String)
        throws(ParseError) -> T
    {
        guard let v else { throw ParseError(code, offset: offset, what()) }
        return v
    }
}
