import BinaryIO

/// A run of bits kept verbatim (syntax the library does not model, or chooses to keep as is).
public struct RawBits: Hashable, Sendable {
    /// The bits, MSB first, padded with zeros to a whole byte.
    public var bytes: [UInt8]
    /// Number of valid bits in `bytes`.
    public var bitCount: Int
    public init(bytes: [UInt8] = [], bitCount: Int = 0) {
        self.bytes = bytes
        self.bitCount = max(0, min(bitCount, bytes.count * 8))
    }
    /// No bits.
    public static let empty = RawBits()
    public var isEmpty: Bool { bitCount == 0 }
}

/// One description of a syntax structure serves both directions: a reader fills the values,
/// a writer emits them. Conditions in the syntax use values already coded.
protocol BitCoder {
    var isReading: Bool { get }
    /// Bits read or written so far.
    var position: Int { get }
    mutating func bits(_ v: inout UInt64, _ n: Int) throws(ParseError)
    mutating func ue(_ v: inout UInt32) throws(ParseError)
    mutating func se(_ v: inout Int32) throws(ParseError)
    mutating func raw(_ v: inout RawBits, count: Int) throws(ParseError)
    /// Bits read since `start` (reader), empty for the writer.
    func captured(from start: Int) -> RawBits
    /// Reader: bits left before the rbsp_stop_one_bit. Writer: 0.
    var bitsBeforeStop: Int { get }
    func fail(_ code: ParseError.Code, _ message: String) -> ParseError
}

extension BitCoder {

    /// `*_sub_layer_ordering_info` (VPS and SPS share the syntax): `n` entries of max_dec_pic_buffering_minus1,
    /// max_num_reorder_pics and max_latency_increase_plus1, named with `prefix` (`vps` or `sps`) in errors.
    mutating func subLayerOrdering(
        count n: Int, _ dpb: inout [UInt32], _ reorder: inout [UInt32], _ latency: inout [UInt32], prefix: String
    ) throws(ParseError) {
        if isReading { dpb = []; reorder = []; latency = [] }
        guard isReading || (dpb.count == n && reorder.count == n && latency.count == n) else {
            throw fail(.unwritable, "sub-layer ordering arrays need \(n) entries")
        }
        for i in 0..<n {
            var a = isReading ? 0 : dpb[i]
            var b = isReading ? 0 : reorder[i]
            var d = isReading ? 0 : latency[i]
            try ue(&a, max: 15, "\(prefix)_max_dec_pic_buffering_minus1");
            try ue(&b, max: 15, "\(prefix)_max_num_reorder_pics"); try ue(&d)
            if isReading { dpb.append(a); reorder.append(b); latency.append(d) }
        }
    }
    mutating func u32(_ v: inout UInt32, _ n: Int) throws(ParseError) {
        var x = UInt64(v); try bits(&x, min(max(n, 0), 32)); v = UInt32(truncatingIfNeeded: x)
    }
    mutating func u8(_ v: inout UInt8, _ n: Int) throws(ParseError) {
        var x = UInt64(v); try bits(&x, min(max(n, 0), 8)); v = UInt8(truncatingIfNeeded: x)
    }
    mutating func u16(_ v: inout UInt16, _ n: Int) throws(ParseError) {
        var x = UInt64(v); try bits(&x, min(max(n, 0), 16)); v = UInt16(truncatingIfNeeded: x)
    }
    mutating func flag(_ v: inout Bool) throws(ParseError) {
        var x: UInt64 = v ? 1 : 0; try bits(&x, 1); v = x == 1
    }
    /// ue(v) with an inclusive maximum; out-of-range values are errors in both directions.
    mutating func ue(_ v: inout UInt32, max: UInt32, _ name: String) throws(ParseError) {
        try ue(&v)
        if v > max { throw fail(.invalidValue, "\(name) = \(v) out of range 0…\(max)") }
    }
    mutating func se(_ v: inout Int32, min: Int32, max: Int32, _ name: String) throws(ParseError) {
        try se(&v)
        if v < min || v > max { throw fail(.invalidValue, "\(name) = \(v) out of range \(min)…\(max)") }
    }
    /// Codes a structure whose content is kept only as raw bits: the reader runs `parse` to find its
    /// length (values are discarded), the writer appends the kept bits.
    mutating func opaque(_ v: inout RawBits, _ parse: (inout Self) throws(ParseError) -> Void) throws(ParseError) {
        if isReading {
            let start = position
            try parse(&self)
            v = captured(from: start)
        } else {
            try raw(&v, count: v.bitCount)
        }
    }
    /// Codes an array of `count` elements. The reader appends; the writer requires `a.count == count`.
    mutating func list<T>(
        _ a: inout [T], count: Int, _ make: () -> T,
        _ body: (inout Self, inout T) throws(ParseError) -> Void
    ) throws(ParseError) {
        let n = max(0, count)
        if isReading {
            a = []
            for _ in 0..<n {
                var e = make()
                try body(&self, &e)
                a.append(e)
            }
        } else {
            guard a.count == n else { throw fail(.unwritable, "array has \(a.count) entries, syntax needs \(n)") }
            for i in 0..<n { try body(&self, &a[i]) }
        }
    }
    /// Like ``list`` with the element index passed to `body`.
    mutating func listI<T>(
        _ a: inout [T], count: Int, _ make: () -> T,
        _ body: (inout Self, Int, inout T) throws(ParseError) -> Void
    ) throws(ParseError) {
        let n = max(0, count)
        if isReading {
            a = []
            for i in 0..<n {
                var e = make()
                try body(&self, i, &e)
                a.append(e)
            }
        } else {
            guard a.count == n else { throw fail(.unwritable, "array has \(a.count) entries, syntax needs \(n)") }
            for i in 0..<n { try body(&self, i, &a[i]) }
        }
    }
    mutating func flags(_ a: inout [Bool], count: Int) throws(ParseError) {
        try list(&a, count: count, { false }) { (c: inout Self, e: inout Bool) throws(ParseError) in try c.flag(&e) }
    }
    mutating func ues(_ a: inout [UInt32], count: Int, max: UInt32 = UInt32.max - 1, _ name: String) throws(ParseError)
    {
        try list(&a, count: count, { 0 }) { (c: inout Self, e: inout UInt32) throws(ParseError) in
            try c.ue(&e, max: max, name)
        }
    }
    mutating func ses(_ a: inout [Int32], count: Int) throws(ParseError) {
        try list(&a, count: count, { 0 }) { (c: inout Self, e: inout Int32) throws(ParseError) in try c.se(&e) }
    }
    mutating func us(_ a: inout [UInt32], count: Int, bits n: Int) throws(ParseError) {
        try list(&a, count: count, { 0 }) { (c: inout Self, e: inout UInt32) throws(ParseError) in try c.u32(&e, n) }
    }
    /// Everything up to the rbsp_stop_one_bit (reader), or the kept bits (writer).
    mutating func restBeforeStop(_ v: inout RawBits) throws(ParseError) {
        if isReading {
            let n = bitsBeforeStop
            if n < 0 { throw fail(.invalidValue, "syntax runs \(-n) bits past the rbsp_stop_one_bit") }
            try raw(&v, count: n)
        } else {
            try raw(&v, count: v.bitCount)
        }
    }
    /// Reader: throws when a required condition does not hold.
    func require(_ ok: Bool, _ message: @autoclosure () -> String) throws(ParseError) {
        if !ok { throw fail(.invalidValue, message()) }
    }
}

/// Reads an RBSP.
struct RBSPReader: BitCoder {
    var r: BitReader
    /// Bit index of the rbsp_stop_one_bit (the last 1 bit), or `totalBits` when there is none.
    let stopBit: Int
    let hasStopBit: Bool

    init(_ rbsp: [UInt8], baseOffset: UInt64) {
        r = BitReader(rbsp, baseOffset: baseOffset)
        var last = rbsp.count - 1
        while last >= 0 && rbsp[last] == 0 { last -= 1 }
        if last >= 0 {
            let tz = rbsp[last].trailingZeroBitCount
            stopBit = last * 8 + 7 - tz
            hasStopBit = true
        } else {
            stopBit = rbsp.count * 8
            hasStopBit = false
        }
    }
    var isReading: Bool { true }
    var position: Int { r.bitPosition }
    var bitsBeforeStop: Int { stopBit - r.bitPosition }
    mutating func bits(_ v: inout UInt64, _ n: Int) throws(ParseError) { v = try r.readBits(n) }
    mutating func ue(_ v: inout UInt32) throws(ParseError) { v = try r.readUE() }
    mutating func se(_ v: inout Int32) throws(ParseError) { v = try r.readSE() }
    mutating func raw(_ v: inout RawBits, count: Int) throws(ParseError) {
        guard count >= 0 && count <= r.bitsLeft else {
            throw fail(.truncated, "need \(count) bits, \(r.bitsLeft) left")
        }
        var w = BitWriter()
        w.appendBits(from: r.bytes, start: r.bitPosition, count: count)
        try r.skipBits(count)
        v = RawBits(bytes: w.bytes, bitCount: count)
    }
    func captured(from start: Int) -> RawBits {
        let n = r.bitPosition - start
        guard n > 0 && start >= 0 else { return .empty }
        var w = BitWriter()
        w.appendBits(from: r.bytes, start: start, count: n)
        return RawBits(bytes: w.bytes, bitCount: n)
    }
    func fail(_ code: ParseError.Code, _ message: String) -> ParseError {
        ParseError(code, offset: r.baseOffset &+ UInt64(r.bitPosition >> 3), "bit \(r.bitPosition): \(message)")
    }
    /// Number of whole zero bytes after the byte holding the stop bit.
    var trailingZeroBytes: Int { hasStopBit ? max(0, r.bytes.count - (stopBit / 8 + 1)) : 0 }
}

/// Writes an RBSP.
struct RBSPWriter: BitCoder {
    var w = BitWriter()
    var isReading: Bool { false }
    var position: Int { w.bitCount }
    var bitsBeforeStop: Int { 0 }
    mutating func bits(_ v: inout UInt64, _ n: Int) throws(ParseError) {
        guard n >= 0 && n <= 64 else { throw fail(.unwritable, "bit count \(n)") }
        if n < 64 && v >> UInt64(n) != 0 { throw fail(.unwritable, "value \(v) does not fit in \(n) bits") }
        w.writeBits(v, n)
    }
    mutating func ue(_ v: inout UInt32) throws(ParseError) {
        guard v < UInt32.max else { throw fail(.unwritable, "ue(v) value \(v) too large") }
        w.writeUE(v)
    }
    mutating func se(_ v: inout Int32) throws(ParseError) {
        guard v != Int32.min else { throw fail(.unwritable, "se(v) value \(v) too small") }
        w.writeSE(v)
    }
    mutating func raw(_ v: inout RawBits, count: Int) throws(ParseError) {
        w.appendBits(from: v.bytes, start: 0, count: min(count, v.bitCount))
    }
    func captured(from start: Int) -> RawBits { .empty }
    func fail(_ code: ParseError.Code, _ message: String) -> ParseError {
        ParseError(code, offset: UInt64(w.bitCount >> 3), "writing bit \(w.bitCount): \(message)")
    }
    /// Writes rbsp_trailing_bits() followed by `zeroBytes` zero bytes.
    mutating func finish(zeroBytes: Int) -> [UInt8] {
        w.writeRBSPTrailingBits()
        var out = w.bytes
        if zeroBytes > 0 { out += [UInt8](repeating: 0, count: min(zeroBytes, 1 << 20)) }
        return out
    }
}

/// Ceil(Log2(n)) for n ≥ 1 (0 for n ≤ 1).
@inline(__always) func ceilLog2(_ n: Int) -> Int {
    guard n > 1 else { return 0 }
    return Int.bitWidth - (n - 1).leadingZeroBitCount
}
