/// An MSB-first bit reader for codec syntax (H.265 `u(n)`, `ue(v)`, `se(v)`).
///
/// Reads never go past the end of the buffer: each throws ``ParseError/Code/truncated`` instead.
/// Exp-Golomb codes are capped at 31 leading zeros (values up to 2³²−2), as H.265 requires;
/// more throw ``ParseError/Code/expGolombOverflow``. Error offsets are `baseOffset + byte index`.
public struct BitReader: Sendable {
    public let bytes: [UInt8]
    /// Position in bits from the start of `bytes`.
    public private(set) var bitPosition: Int
    /// Offset reported in errors for byte 0 (for example the NAL unit's file offset).
    public var baseOffset: UInt64

    public init(_ bytes: [UInt8], baseOffset: UInt64 = 0) {
        self.bytes = bytes
        self.bitPosition = 0
        self.baseOffset = baseOffset
    }

    public var totalBits: Int { bytes.count &* 8 }
    public var bitsLeft: Int { totalBits - bitPosition }
    public var isByteAligned: Bool { bitPosition & 7 == 0 }
    public var bytePosition: Int { bitPosition >> 3 }

    func truncated(_ what: String) -> ParseError {
        ParseError(
            .truncated, offset: baseOffset &+ UInt64(bitPosition >> 3),
            "bit \(bitPosition): need \(what), \(bitsLeft) bits left")
    }

    /// Reads one bit.
    public mutating func readFlag() throws(ParseError) -> Bool {
        guard bitPosition < totalBits else { throw truncated("1 bit") }
        let b = bytes[bitPosition >> 3] >> (7 - UInt8(bitPosition & 7)) & 1
        bitPosition += 1
        return b == 1
    }
    /// Reads `n` bits (0…64) as an unsigned value.
    public mutating func readBits(_ n: Int) throws(ParseError) -> UInt64 {
        guard n >= 0 && n <= 64 else {
            throw ParseError(.invalidValue, offset: baseOffset &+ UInt64(bitPosition >> 3), "bit count \(n)")
        }
        guard n <= bitsLeft else { throw truncated("\(n) bits") }
        var v: UInt64 = 0
        var left = n
        while left > 0 {
            let byte = bytes[bitPosition >> 3]
            let used = bitPosition & 7
            let avail = 8 - used
            let take = min(avail, left)
            let chunk = (UInt64(byte) >> UInt64(avail - take)) & ((1 << UInt64(take)) - 1)
            v = take == 64 ? chunk : (v << UInt64(take)) | chunk
            left -= take
            bitPosition += take
        }
        return v
    }
    /// Reads `n` bits (0…32).
    public mutating func readU32(_ n: Int) throws(ParseError) -> UInt32 {
        UInt32(truncatingIfNeeded: try readBits(min(n, 32)))
    }
    /// Reads an unsigned Exp-Golomb code.
    public mutating func readUE() throws(ParseError) -> UInt32 {
        var zeros = 0
        while true {
            guard bitPosition < totalBits else { throw truncated("an Exp-Golomb code") }
            if try readFlag() { break }
            zeros += 1
            if zeros > 31 {
                throw ParseError(
                    .expGolombOverflow, offset: baseOffset &+ UInt64(bitPosition >> 3),
                    "Exp-Golomb code with more than 31 leading zeros at bit \(bitPosition)")
            }
        }
        if zeros == 0 { return 0 }
        let suffix = try readBits(zeros)
        let value = (UInt64(1) << UInt64(zeros)) - 1 + suffix
        guard value <= UInt64(UInt32.max) - 1 else {
            throw ParseError(
                .expGolombOverflow, offset: baseOffset &+ UInt64(bitPosition >> 3),
                "Exp-Golomb value \(value) too large")
        }
        return UInt32(value)
    }
    /// Reads a signed Exp-Golomb code.
    public mutating func readSE() throws(ParseError) -> Int32 {
        let k = Int64(try readUE())
        let v = k & 1 == 1 ? (k + 1) / 2 : -(k / 2)
        return Int32(truncatingIfNeeded: v)
    }
    /// Skips `n` bits.
    public mutating func skipBits(_ n: Int) throws(ParseError) {
        guard n >= 0 && n <= bitsLeft else { throw truncated("\(n) bits") }
        bitPosition += n
    }
    /// Moves to `bit` (0…totalBits).
    public mutating func seek(toBit bit: Int) throws(ParseError) {
        guard bit >= 0 && bit <= totalBits else { throw truncated("seek to bit \(bit)") }
        bitPosition = bit
    }
    /// H.265 `more_rbsp_data()`: true when data other than the stop bit and trailing zero bits remain.
    public func moreRBSPData() -> Bool {
        guard bitPosition < totalBits else { return false }
        // Find the last 1 bit in the buffer (the rbsp_stop_one_bit).
        var last = bytes.count - 1
        while last >= 0 && bytes[last] == 0 { last -= 1 }
        guard last >= 0 else { return false }
        let byte = bytes[last]
        var tz = 0
        while (byte >> UInt8(tz)) & 1 == 0 { tz += 1 }
        let stopBit = last * 8 + (7 - tz)
        return bitPosition < stopBit
    }
}

/// An MSB-first bit writer, the inverse of ``BitReader``.
public struct BitWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    /// Bits written in total.
    public private(set) var bitCount: Int = 0

    public init() {}

    public var isByteAligned: Bool { bitCount & 7 == 0 }

    public mutating func writeFlag(_ b: Bool) { writeBits(b ? 1 : 0, 1) }
    /// Writes the low `n` bits (0…64) of `v`.
    public mutating func writeBits(_ v: UInt64, _ n: Int) {
        guard n > 0 else { return }
        var left = min(n, 64)
        while left > 0 {
            let used = bitCount & 7
            if used == 0 { bytes.append(0) }
            let avail = 8 - used
            let take = min(avail, left)
            let chunk = UInt8((v >> UInt64(left - take)) & ((1 << UInt64(take)) - 1))
            bytes[bytes.count - 1] |= chunk << UInt8(avail - take)
            left -= take
            bitCount += take
        }
    }
    public mutating func writeUE(_ v: UInt32) {
        let x = UInt64(v) + 1
        let len = 64 - x.leadingZeroBitCount
        writeBits(0, len - 1)
        writeBits(x, len)
    }
    public mutating func writeSE(_ v: Int32) {
        let k: UInt32 = v > 0 ? UInt32(2 * Int64(v) - 1) : UInt32(-2 * Int64(v))
        writeUE(k)
    }
    /// Appends `count` bits of `source` starting at bit `start` (used to keep unmodelled syntax verbatim).
    public mutating func appendBits(from source: [UInt8], start: Int, count: Int) {
        var pos = start
        var left = count
        // Byte-aligned fast path.
        if isByteAligned && pos & 7 == 0 {
            let whole = left / 8
            if whole > 0, pos / 8 + whole <= source.count {
                bytes.append(contentsOf: source[(pos / 8)..<(pos / 8 + whole)])
                bitCount += whole * 8
                pos += whole * 8
                left -= whole * 8
            }
        }
        // Up to 32 bits per write, gathered from at most five source bytes; stops at the end of `source`.
        while left > 0 {
            let n = min(left, 32)
            var v: UInt64 = 0, got = 0
            while got < n {
                let byteIndex = pos >> 3
                guard byteIndex < source.count else { writeBits(v, got); return }
                let used = pos & 7
                let take = min(8 - used, n - got)
                let bits = (UInt64(source[byteIndex]) >> UInt64(8 - used - take)) & ((1 << UInt64(take)) - 1)
                v = v << UInt64(take) | bits
                got += take
                pos += take
            }
            writeBits(v, n)
            left -= n
        }
    }
    /// Writes zero bits up to the next byte boundary.
    public mutating func alignWithZeros() { while !isByteAligned { writeBits(0, 1) } }
    /// Writes `rbsp_trailing_bits()`: a 1 bit, then zeros to the byte boundary.
    public mutating func writeRBSPTrailingBits() { writeBits(1, 1); alignWithZeros() }
}
