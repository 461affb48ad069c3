import BinaryIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An H.265 NAL unit type (the 6-bit `nal_unit_type` field), with names from Table 7-1.
public struct NALUnitType: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue & 0x3F }
    public init(_ v: UInt8) { self.init(rawValue: v) }

    public static let trailN = NALUnitType(0), trailR = NALUnitType(1), tsaN = NALUnitType(2), tsaR = NALUnitType(3)
    public static let stsaN = NALUnitType(4), stsaR = NALUnitType(5), radlN = NALUnitType(6), radlR = NALUnitType(7)
    public static let raslN = NALUnitType(8), raslR = NALUnitType(9)
    public static let blaWLP = NALUnitType(16), blaWRADL = NALUnitType(17), blaNLP = NALUnitType(18)
    public static let idrWRADL = NALUnitType(19), idrNLP = NALUnitType(20), craNUT = NALUnitType(21)
    public static let vps = NALUnitType(32), sps = NALUnitType(33), pps = NALUnitType(34), aud = NALUnitType(35)
    public static let eos = NALUnitType(36), eob = NALUnitType(37), fd = NALUnitType(38)
    public static let prefixSEI = NALUnitType(39), suffixSEI = NALUnitType(40)

    /// Video coding layer NAL unit (types 0…31).
    public var isVCL: Bool { rawValue < 32 }
    /// Intra random access point picture (types 16…23).
    public var isIRAP: Bool { rawValue >= 16 && rawValue <= 23 }
    /// IDR picture (types 19, 20).
    public var isIDR: Bool { rawValue == 19 || rawValue == 20 }
    /// RASL picture (types 8, 9).
    public var isRASL: Bool { rawValue == 8 || rawValue == 9 }
    /// RADL picture (types 6, 7).
    public var isRADL: Bool { rawValue == 6 || rawValue == 7 }
    /// Sub-layer non-reference picture (even types below 16).
    public var isSubLayerNonReference: Bool { rawValue < 16 && rawValue & 1 == 0 }
    /// The name used in H.265 Table 7-1, e.g. `IDR_W_RADL`.
    public var name: String {
        switch rawValue {
        case 0: return "TRAIL_N"
        case 1: return "TRAIL_R"
        case 2: return "TSA_N"
        case 3: return "TSA_R"
        case 4: return "STSA_N"
        case 5: return "STSA_R"
        case 6: return "RADL_N"
        case 7: return "RADL_R"
        case 8: return "RASL_N"
        case 9: return "RASL_R"
        case 16: return "BLA_W_LP"
        case 17: return "BLA_W_RADL"
        case 18: return "BLA_N_LP"
        case 19: return "IDR_W_RADL"
        case 20: return "IDR_N_LP"
        case 21: return "CRA_NUT"
        case 32: return "VPS_NUT"
        case 33: return "SPS_NUT"
        case 34: return "PPS_NUT"
        case 35: return "AUD_NUT"
        case 36: return "EOS_NUT"
        case 37: return "EOB_NUT"
        case 38: return "FD_NUT"
        case 39: return "PREFIX_SEI_NUT"
        case 40: return "SUFFIX_SEI_NUT"
        case 10...15: return "RSV_VCL_N\(rawValue)"
        case 22...23: return "RSV_IRAP_VCL\(rawValue)"
        case 24...31: return "RSV_VCL\(rawValue)"
        case 41...47: return "RSV_NVCL\(rawValue)"
        default: return "UNSPEC\(rawValue)"
        }
    }
    public var description: String { name }
}

/// The two-byte H.265 NAL unit header (§7.3.1.2).
public struct NALHeader: Hashable, Sendable, Codable {
    /// `forbidden_zero_bit`; must be 0 in a conforming stream.
    public var forbiddenZeroBit: Bool
    /// `nal_unit_type`.
    public var type: NALUnitType
    /// `nuh_layer_id` (0…63).
    public var layerId: UInt8
    /// `nuh_temporal_id_plus1` (1…7 in a conforming stream).
    public var temporalIdPlus1: UInt8

    /// Creates a header from its fields. Values are masked to their field widths.
    public init(type: NALUnitType, layerId: UInt8 = 0, temporalIdPlus1: UInt8 = 1, forbiddenZeroBit: Bool = false) {
        self.type = type
        self.layerId = layerId & 0x3F
        self.temporalIdPlus1 = temporalIdPlus1 & 7
        self.forbiddenZeroBit = forbiddenZeroBit
    }
    /// Decodes the header from its two bytes.
    public init(_ b0: UInt8, _ b1: UInt8) {
        forbiddenZeroBit = b0 & 0x80 != 0
        type = NALUnitType(rawValue: (b0 >> 1) & 0x3F)
        layerId = (b0 & 1) << 5 | b1 >> 3
        temporalIdPlus1 = b1 & 7
    }
    /// `TemporalId` (`nuh_temporal_id_plus1 − 1`; 0 when the field is 0, which is not conforming).
    public var temporalId: Int { max(0, Int(temporalIdPlus1) - 1) }
    /// The two header bytes.
    public var bytes: [UInt8] {
        [
            (forbiddenZeroBit ? 0x80 : 0) | (type.rawValue & 0x3F) << 1 | (layerId >> 5) & 1,
            (layerId & 0x1F) << 3 | (temporalIdPlus1 & 7),
        ]
    }
}

/// One NAL unit: its original bytes (header + escaped payload) and where it was found.
///
/// The header and the RBSP are views computed from `bytes`; the bytes are never changed by parsing.
public struct NALUnit: Sendable, Hashable {
    /// The NAL unit as stored: the two-byte header followed by the payload with emulation prevention bytes.
    public var bytes: [UInt8]
    /// Absolute offset of the first header byte in the input.
    public var offset: UInt64

    /// Wraps `bytes`; throws ``/BinaryIO/ParseError/Code/truncated`` when shorter than the two-byte header.
    public init(bytes: [UInt8], offset: UInt64 = 0) throws(ParseError) {
        guard bytes.count >= 2 else {
            throw ParseError(
                .truncated, offset: offset, "NAL unit of \(bytes.count) bytes is shorter than its 2-byte header")
        }
        self.bytes = bytes
        self.offset = offset
    }
    /// Builds a NAL unit from a header and an RBSP, inserting emulation prevention bytes.
    public init(header: NALHeader, rbsp: [UInt8]) {
        self.bytes = header.bytes + EmulationPrevention.insert(rbsp)
        self.offset = 0
    }
    /// The decoded header.
    public var header: NALHeader { NALHeader(bytes[0], bytes[1]) }
    /// Shorthand for `header.type`.
    public var type: NALUnitType { header.type }
    /// Shorthand for `header.layerId`.
    public var layerId: UInt8 { header.layerId }
    /// Size in bytes, header included.
    public var size: Int { bytes.count }
    /// The payload after the header with emulation prevention bytes removed (lenient).
    public var rbsp: [UInt8] { EmulationPrevention.remove(bytes[2...]) }
}

/// Emulation prevention (H.265 §7.4.2): the `0x03` bytes that keep start codes out of NAL payloads.
public enum EmulationPrevention {
    /// Removes every `0x03` that follows two zero bytes. Pure and total: never fails.
    ///
    /// Works on contiguous storage with `memchr` for the `03` candidates and bulk copies between them,
    /// so it runs at memory speed; other collections are copied to an array first.
    public static func remove<C: Collection>(_ escaped: C) -> [UInt8] where C.Element == UInt8 {
        if let done = escaped.withContiguousStorageIfAvailable({ removeContiguous($0) }) { return done }
        return Array(escaped).withUnsafeBufferPointer { removeContiguous($0) }
    }

    static func removeContiguous(_ src: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        guard let base = src.baseAddress, src.count > 2 else { return Array(src) }
        let n = src.count
        return [UInt8](unsafeUninitializedCapacity: n) { out, written in
            guard let dst = out.baseAddress else { written = 0; return }
            var copied = 0  // source bytes before this index are already handled
            var o = 0
            var zerosFrom = 0  // a removed 03 resets the zero run: only zeros at or after this index count
            var i = 2
            while i < n {
                guard let hit = memchr(base + i, 3, n - i) else { break }
                let j = i + (UnsafeRawPointer(hit) - UnsafeRawPointer(base + i))
                if j - 2 >= zerosFrom && base[j - 1] == 0 && base[j - 2] == 0 {
                    let run = j - copied
                    (dst + o).update(from: base + copied, count: run)
                    o += run
                    copied = j + 1
                    zerosFrom = j + 1
                    i = j + 3
                } else {
                    i = j + 1
                }
            }
            let tail = n - copied
            (dst + o).update(from: base + copied, count: tail)
            written = o + tail
        }
    }

    /// Removes emulation prevention bytes and rejects byte patterns a conforming NAL payload cannot contain:
    /// `00 00 00`, `00 00 01`, `00 00 02`, `00 00 03` followed by a byte above 3, a payload ending in a zero
    /// byte, and an emulation prevention byte at the very end of the buffer. `baseOffset` is the offset of
    /// the first byte of `escaped` in the input and is used for error positions.
    public static func removeStrict(_ escaped: [UInt8], baseOffset: UInt64 = 0) throws(ParseError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(escaped.count)
        var zeros = 0
        var i = 0
        let n = escaped.count
        while i < n {
            let b = escaped[i]
            if zeros >= 2 {
                if b < 3 {
                    throw ParseError(
                        .invalidValue, offset: baseOffset &+ UInt64(i),
                        "start code emulation 00 00 0\(b) inside a NAL unit")
                }
                if b == 3 {
                    if i + 1 >= n {
                        throw ParseError(
                            .truncated, offset: baseOffset &+ UInt64(i),
                            "emulation prevention sequence 00 00 03 at the end of the buffer")
                    }
                    if escaped[i + 1] > 3 {
                        throw ParseError(
                            .invalidValue, offset: baseOffset &+ UInt64(i + 1),
                            "00 00 03 followed by 0x\(Hex.string([escaped[i + 1]])) (must be 00…03)")
                    }
                    zeros = 0
                    i += 1
                    continue
                }
            }
            out.append(b)
            zeros = b == 0 ? zeros + 1 : 0
            i += 1
        }
        if let last = escaped.last, last == 0 {
            throw ParseError(
                .truncated, offset: baseOffset &+ UInt64(n - 1),
                "NAL payload ends with a zero byte (incomplete emulation sequence at the buffer end)")
        }
        return out
    }

    /// Inserts `0x03` after every two zero bytes that are followed by a byte ≤ 3, and after a final pair of
    /// zero bytes. `remove(insert(x)) == x` for every `x`.
    public static func insert<C: Collection>(_ rbsp: C) -> [UInt8] where C.Element == UInt8 {
        if let done = rbsp.withContiguousStorageIfAvailable({ insertContiguous($0) }) { return done }
        return Array(rbsp).withUnsafeBufferPointer { insertContiguous($0) }
    }

    static func insertContiguous(_ src: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        let n = src.count
        // Worst case one 03 per two input bytes, plus the final one.
        let (half, _) = n.quotientAndRemainder(dividingBy: 2)
        return [UInt8](unsafeUninitializedCapacity: n + half + 1) { out, written in
            guard let dst = out.baseAddress, let base = src.baseAddress else { written = 0; return }
            var o = 0, zeros = 0
            for i in 0..<n {
                let b = base[i]
                if zeros >= 2 && b <= 3 { dst[o] = 3; o += 1; zeros = 0 }
                dst[o] = b; o += 1
                zeros = b == 0 ? zeros + 1 : 0
            }
            if zeros >= 2 { dst[o] = 3; o += 1 }
            written = o
        }
    }
}

/// Annex B byte streams: NAL units separated by `00 00 01` / `00 00 00 01` start codes.
public enum AnnexB {
    /// Byte ranges of the NAL units in `buffer` (start code and trailing zero bytes excluded).
    ///
    /// Throws ``/BinaryIO/ParseError/Code/notRecognised`` ("missing start code") when non-zero bytes precede the first
    /// start code or when a non-empty buffer contains no start code at all. Uses `memchr` to find
    /// candidate `01` bytes, so the scan runs at memory speed.
    public static func nalRanges(in buffer: [UInt8], baseOffset: UInt64 = 0) throws(ParseError) -> [Range<Int>] {
        var starts: [Int] = []  // index of the first payload byte after each start code
        var codes: [Int] = []  // index of the first 00 of each 3-byte start code
        buffer.withUnsafeBufferPointer { buf in
            var i = 2
            while let j = nextStartCode(in: buf, from: i) {
                codes.append(j - 2)
                starts.append(j + 1)
                i = j + 1
            }
        }
        guard let firstCode = codes.first else {
            if buffer.contains(where: { $0 != 0 }) {
                throw ParseError(
                    .notRecognised, offset: baseOffset, "missing start code: no 00 00 01 in \(buffer.count) bytes")
            }
            return []
        }
        if let bad = buffer[0..<firstCode].firstIndex(where: { $0 != 0 }) {
            throw ParseError(
                .notRecognised, offset: baseOffset &+ UInt64(bad),
                "missing start code: \(firstCode - bad) bytes before the first start code")
        }
        var out: [Range<Int>] = []
        out.reserveCapacity(starts.count)
        for k in 0..<starts.count {
            let s = starts[k]
            var e = k + 1 < codes.count ? codes[k + 1] : buffer.count
            while e > s && buffer[e - 1] == 0 { e -= 1 }
            out.append(s..<e)
        }
        return out
    }

    /// The index of the `01` byte of the first `00 00 01` whose `01` is at or after `from` (≥ 2), found with
    /// `memchr`; `nil` when there is none.
    @inline(__always)
    static func nextStartCode(in buf: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard let base = buf.baseAddress else { return nil }
        let n = buf.count
        var i = max(from, 2)
        while i < n {
            guard let hit = memchr(base + i, 1, n - i) else { return nil }
            let j = i + (UnsafeRawPointer(hit) - UnsafeRawPointer(base + i))
            if base[j - 1] == 0 && base[j - 2] == 0 { return j }
            i = j + 1
        }
        return nil
    }

    /// Splits an Annex B stream into NAL units. Empty or one-byte NAL units are errors.
    public static func split(_ buffer: [UInt8], baseOffset: UInt64 = 0, limits: Limits = .default) throws(ParseError)
        -> [NALUnit]
    {
        let ranges = try nalRanges(in: buffer, baseOffset: baseOffset)
        var out: [NALUnit] = []
        out.reserveCapacity(ranges.count)
        for r in ranges {
            try Limits.check(
                r.count, limits.maxNALUnitSize, "maxNALUnitSize", offset: baseOffset &+ UInt64(r.lowerBound))
            out.append(try NALUnit(bytes: Array(buffer[r]), offset: baseOffset &+ UInt64(r.lowerBound)))
        }
        return out
    }

    /// Writes NAL units as an Annex B stream with 4-byte start codes.
    public static func join(_ nals: [NALUnit]) -> [UInt8] {
        var out: [UInt8] = []
        for n in nals { out += [0, 0, 0, 1]; out += n.bytes }
        return out
    }
}

/// Length-prefixed NAL units, as stored in MP4/QuickTime samples (length size from `hvcC`/`lhvC`).
public enum LengthPrefixed {
    /// Splits one sample into NAL units. `lengthSize` must be 1, 2 or 4. A length that runs past the end
    /// of the sample, or a NAL unit shorter than its header, is an error at the offset of the length field.
    public static func split(_ sample: [UInt8], lengthSize: Int, baseOffset: UInt64 = 0, limits: Limits = .default)
        throws(ParseError) -> [NALUnit]
    {
        guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4 else {
            throw ParseError(.invalidValue, offset: baseOffset, "NAL length size \(lengthSize) (must be 1, 2 or 4)")
        }
        var r = ByteReader(sample, baseOffset: baseOffset)
        var out: [NALUnit] = []
        while !r.isAtEnd {
            let at = r.absoluteOffset
            let len64 = try r.readUInt(byteCount: lengthSize)
            guard let len = Int(exactly: len64), len <= r.remaining else {
                throw ParseError(
                    .truncated, offset: at, "NAL length \(len64) runs past the sample (\(r.remaining) bytes left)")
            }
            try Limits.check(len, limits.maxNALUnitSize, "maxNALUnitSize", offset: at)
            let nalOffset = r.absoluteOffset
            let bytes = try r.readBytes(len)
            out.append(try NALUnit(bytes: bytes, offset: nalOffset))
        }
        return out
    }

    /// Writes NAL units with big-endian length prefixes of `lengthSize` bytes (1, 2 or 4).
    public static func join(_ nals: [NALUnit], lengthSize: Int = 4) throws(ParseError) -> [UInt8] {
        var w = ByteWriter()
        for n in nals {
            guard lengthSize == 1 || lengthSize == 2 || lengthSize == 4,
                UInt64(n.bytes.count) < (UInt64(1) << UInt64(lengthSize * 8))
            else {
                throw ParseError(
                    .unwritable, "NAL unit of \(n.bytes.count) bytes does not fit a \(lengthSize)-byte length")
            }
            w.writeUInt(UInt64(n.bytes.count), byteCount: lengthSize)
            w.write(n.bytes)
        }
        return w.bytes
    }
}
