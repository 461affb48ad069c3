/// A big-endian reader over a bounded window of a byte array.
///
/// The reader never reads outside `[start, end)`; a child reader made with ``slice(_:)`` is a
/// sub-window of its parent, so a box parser cannot read past the end of its box by construction.
/// Offsets reported in errors are absolute: `baseOffset` is the file offset of `storage[0]`.
/// A failed read throws and leaves the position unchanged.
public struct ByteReader: Sendable {
    public let storage: [UInt8]
    public let start: Int
    public let end: Int
    public private(set) var position: Int
    /// Absolute file offset of `storage[0]`.
    public let baseOffset: UInt64

    /// A reader over all of `bytes`, whose first byte sits at `baseOffset` in the file.
    public init(_ bytes: [UInt8], baseOffset: UInt64 = 0) {
        self.storage = bytes
        self.start = 0
        self.end = bytes.count
        self.position = 0
        self.baseOffset = baseOffset
    }

    init(storage: [UInt8], start: Int, end: Int, baseOffset: UInt64) {
        self.storage = storage
        self.start = start
        self.end = end
        self.position = start
        self.baseOffset = baseOffset
    }

    /// Bytes left before the end of the window.
    @inlinable public var remaining: Int { end - position }
    @inlinable public var isAtEnd: Bool { position >= end }
    /// Bytes consumed since the start of the window.
    @inlinable public var consumed: Int { position - start }
    /// Absolute file offset of the next byte to be read.
    @inlinable public var absoluteOffset: UInt64 { baseOffset &+ UInt64(truncatingIfNeeded: position) }
    /// Absolute file offset of the window's first byte.
    @inlinable public var absoluteStart: UInt64 { baseOffset &+ UInt64(truncatingIfNeeded: start) }

    @inlinable
    func need(_ n: Int, _ what: @autoclosure () -> String) throws(ParseError) {
        if n < 0 || n > end - position {
            throw ParseError(
                .truncated, offset: absoluteOffset,
                "need \(n) bytes for \(what()), \(end - position) left")
        }
    }

    public mutating func readU8() throws(ParseError) -> UInt8 {
        try need(1, "u8")
        defer { position += 1 }
        return storage[position]
    }
    public mutating func readU16() throws(ParseError) -> UInt16 {
        try need(2, "u16")
        defer { position += 2 }
        return UInt16(storage[position]) << 8 | UInt16(storage[position + 1])
    }
    public mutating func readU24() throws(ParseError) -> UInt32 {
        try need(3, "u24")
        defer { position += 3 }
        return UInt32(storage[position]) << 16 | UInt32(storage[position + 1]) << 8 | UInt32(storage[position + 2])
    }
    public mutating func readU32() throws(ParseError) -> UInt32 { try bigEndian(UInt32.self, "u32") }
    public mutating func readU64() throws(ParseError) -> UInt64 { try bigEndian(UInt64.self, "u64") }
    /// A big-endian unsigned integer of `T`'s width (`what` names it in the error when the bytes run out).
    @inline(__always)
    mutating func bigEndian<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, _ what: String) throws(ParseError) -> T {
        let n = MemoryLayout<T>.size
        try need(n, what)
        defer { position += n }
        var v: T = 0
        for i in 0..<n { v = v << 8 | T(storage[position + i]) }
        return v
    }
    /// Reads an unsigned big-endian integer of `byteCount` bytes (0…8). Zero bytes read as 0.
    public mutating func readUInt(byteCount: Int) throws(ParseError) -> UInt64 {
        guard byteCount >= 0 && byteCount <= 8 else {
            throw ParseError(.invalidValue, offset: absoluteOffset, "integer width \(byteCount) bytes")
        }
        try need(byteCount, "u\(byteCount * 8)")
        var v: UInt64 = 0
        for i in 0..<byteCount { v = v << 8 | UInt64(storage[position + i]) }
        position += byteCount
        return v
    }
    public mutating func readI8() throws(ParseError) -> Int8 { Int8(bitPattern: try readU8()) }
    public mutating func readI16() throws(ParseError) -> Int16 { Int16(bitPattern: try readU16()) }
    public mutating func readI32() throws(ParseError) -> Int32 { Int32(bitPattern: try readU32()) }
    public mutating func readI64() throws(ParseError) -> Int64 { Int64(bitPattern: try readU64()) }

    /// Reads a four-character code.
    public mutating func readFourCC() throws(ParseError) -> FourCC { FourCC(try readU32()) }

    /// Reads `n` bytes. `n` is checked against what is present before anything is allocated.
    public mutating func readBytes(_ n: Int) throws(ParseError) -> [UInt8] {
        try need(n, "\(n) bytes")
        defer { position += n }
        return Array(storage[position..<(position + n)])
    }
    /// Reads everything left in the window.
    public mutating func readRemaining() -> [UInt8] {
        defer { position = end }
        return Array(storage[position..<end])
    }
    /// Reads a NUL-terminated UTF-8 string; without a NUL the rest of the window is the string.
    /// `terminated` tells whether a NUL was present (needed to write the bytes back).
    public mutating func readCString() -> (value: String, terminated: Bool) {
        var i = position
        while i < end && storage[i] != 0 { i += 1 }
        let value = String(decoding: storage[position..<i], as: UTF8.self)
        if i < end { position = i + 1; return (value, true) }
        position = end
        return (value, false)
    }

    public mutating func skip(_ n: Int) throws(ParseError) {
        try need(n, "skip")
        position += n
    }
    /// Returns the byte `ahead` bytes past the position without consuming, or nil at the end.
    public func peekU8(ahead: Int = 0) -> UInt8? {
        let i = position + ahead
        return i >= position && i < end ? storage[i] : nil
    }
    public func peekU32() -> UInt32? {
        guard end - position >= 4 else { return nil }
        var v: UInt32 = 0
        for i in 0..<4 { v = v << 8 | UInt32(storage[position + i]) }
        return v
    }

    /// A reader over the next `n` bytes; the parent moves past them.
    public mutating func slice(_ n: Int) throws(ParseError) -> ByteReader {
        try need(n, "a \(n)-byte structure")
        let child = ByteReader(storage: storage, start: position, end: position + n, baseOffset: baseOffset)
        position += n
        return child
    }
    /// The bytes of the whole window, independent of the position.
    public var windowBytes: ArraySlice<UInt8> { storage[start..<end] }
    /// The bytes from the position to the end, without consuming.
    public var remainingBytes: ArraySlice<UInt8> { storage[position..<end] }

    /// Throws ``ParseError/Code/invalidValue`` at the current position.
    public func fail(_ code: ParseError.Code = .invalidValue, _ message: String) -> ParseError {
        ParseError(code, offset: absoluteOffset, message)
    }
}
