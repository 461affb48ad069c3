import BinaryIO
import SystemSupport

/// HDR gain-map metadata in the model of ISO 21496-1: how a gain-map image turns the base rendition into the
/// alternate one. Values are the rationals the standard stores; gain-map min/max and the headrooms are log2 values.
/// Read from a JPEG's Ultra HDR / Adobe `hdrgm` XMP (`init(hdrgmXMP:)`, in ImageFormats) or ISO 21496-1 binary block
/// (``init(iso:)``), written as the payload of a HEIF `tmap` derived image (``tmapPayload``). See
/// `Specs/spatial-photo.md`, "HDR gain maps of JPEG inputs".
public struct GainMapMetadata: Sendable, Equatable {
    /// A signed rational (numerator int32, denominator uint32 > 0).
    public struct Fraction: Sendable, Equatable, CustomStringConvertible {
        public var numerator: Int64
        public var denominator: UInt32
        public init(_ n: Int64, _ d: UInt32) { numerator = n; denominator = d }
        public var value: Double { denominator == 0 ? .nan : Double(numerator) / Double(denominator) }
        public var description: String { "\(numerator)/\(denominator)" }

        /// The exact rational of a decimal text ("-1.25", "2", "1e-3") when it fits int32/uint32 after reduction,
        /// else the nearest rational with a denominator of at most 2^31 (continued fractions). Nil for no number.
        public static func decimal(_ text: String, unsigned: Bool) -> Fraction? {
            let t = text.trimmedSpaces(in: [" ", "\n", "\r", "\t"])
            guard !t.isEmpty, t.utf8.count <= 64, let v = Double(t), v.isFinite else { return nil }
            if unsigned && v < 0 { return nil }
            let maxNum: Int64 = unsigned ? Int64(UInt32.max) : Int64(Int32.max)
            // Exact when the text is a plain decimal of few digits.
            var digits = t
            var negative = false
            if digits.hasPrefix("-") {
                negative = true; digits.removeFirst()
            } else if digits.hasPrefix("+") {
                digits.removeFirst()
            }
            let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
            if parts.count <= 2, parts.allSatisfy({ $0.allSatisfy { $0 >= "0" && $0 <= "9" } }), !digits.isEmpty,
                digits != "."
            {
                let whole = parts[0], frac = parts.count == 2 ? parts[1] : ""
                if whole.count + frac.count <= 18, frac.count <= 9,
                    let n = Int64(whole.isEmpty && frac.isEmpty ? "0" : String(whole + frac))
                {
                    var num = n, den: Int64 = 1
                    for _ in 0..<frac.count { den *= 10 }
                    let g = gcd(num, den)
                    num /= g; den /= g
                    if num <= maxNum, den <= Int64(UInt32.max) { return Fraction(negative ? -num : num, UInt32(den)) }
                }
            }
            return approximate(v, maxNumerator: maxNum)
        }

        /// The nearest rational to `v` with |numerator| ≤ `maxNumerator` and denominator ≤ 2^31 − 1.
        public static func approximate(_ v: Double, maxNumerator: Int64 = Int64(Int32.max)) -> Fraction? {
            guard v.isFinite, abs(v) <= Double(maxNumerator) else { return nil }
            let x = abs(v)
            var (h0, h1): (Int64, Int64) = (0, 1), (k0, k1): (Int64, Int64) = (1, 0)
            var r = x
            for _ in 0..<40 {
                let a = r.rounded(.down)
                guard a < 1e12 else { break }
                let ai = Int64(a)
                let (hm, o1) = ai.multipliedReportingOverflow(by: h1), (km, o2) = ai.multipliedReportingOverflow(by: k1)
                guard !o1, !o2 else { break }
                let h2 = hm + h0, k2 = km + k0
                guard h2 <= maxNumerator, k2 <= Int64(Int32.max) else { break }
                (h0, h1, k0, k1) = (h1, h2, k1, k2)
                let f = r - a
                if f < 1e-12 { break }
                r = 1 / f
            }
            guard k1 > 0 else { return nil }
            return Fraction(v < 0 ? -h1 : h1, UInt32(k1))
        }

        static func gcd(_ a: Int64, _ b: Int64) -> Int64 {
            var (x, y) = (abs(a), abs(b))
            while y != 0 { (x, y) = (y, x % y) }
            return max(x, 1)
        }
    }

    /// One colour channel's values.
    public struct Channel: Sendable, Equatable {
        /// log2 of the smallest gain (hdrgm `GainMapMin`).
        public var gainMapMin: Fraction
        /// log2 of the largest gain (hdrgm `GainMapMax`).
        public var gainMapMax: Fraction
        /// Gamma the gain-map values were encoded with (hdrgm `Gamma`), > 0.
        public var gamma: Fraction
        /// Offset added to the base rendition (hdrgm `OffsetSDR` when the base is SDR).
        public var baseOffset: Fraction
        /// Offset added to the alternate rendition (hdrgm `OffsetHDR` when the base is SDR).
        public var alternateOffset: Fraction
        public init(
            gainMapMin: Fraction, gainMapMax: Fraction, gamma: Fraction, baseOffset: Fraction, alternateOffset: Fraction
        ) {
            self.gainMapMin = gainMapMin; self.gainMapMax = gainMapMax; self.gamma = gamma
            self.baseOffset = baseOffset; self.alternateOffset = alternateOffset
        }
    }

    /// ISO 21496-1 `minimum_version` and `writer_version` (0 for the layout read and written here).
    public var minimumVersion: UInt16 = 0
    public var writerVersion: UInt16 = 0
    /// The gain map is applied in the base image's colour space (else in the alternate's).
    public var useBaseColourSpace = true
    /// log2 headroom of the base rendition (hdrgm `HDRCapacityMin` when the base is SDR).
    public var baseHeadroom: Fraction
    /// log2 headroom of the alternate rendition (hdrgm `HDRCapacityMax` when the base is SDR).
    public var alternateHeadroom: Fraction
    /// One channel (the same for R, G, B) or three.
    public var channels: [Channel]

    public init(
        baseHeadroom: Fraction, alternateHeadroom: Fraction, channels: [Channel], useBaseColourSpace: Bool = true
    ) {
        self.baseHeadroom = baseHeadroom; self.alternateHeadroom = alternateHeadroom; self.channels = channels
        self.useBaseColourSpace = useBaseColourSpace
    }

    /// The APP2 identifier of an ISO 21496-1 block in a JPEG (null-terminated).
    public static let isoURN = "urn:iso:std:iso:ts:21496:-1"
    /// The XMP namespace of Adobe's / Android's gain-map fields.
    public static let hdrgmNamespace = "http://ns.adobe.com/hdr-gain-map/1.0/"

    // MARK: ISO 21496-1 binary

    /// Parses an ISO 21496-1 metadata block: `minimum_version` u16, `writer_version` u16, then (for minimum version 0)
    /// a flags byte (bit 7 multichannel, bit 6 use base colour space, 6 reserved bits), base and alternate headroom
    /// (u32 numerator, u32 denominator each) and per channel gain-map min (s32/u32), max (s32/u32), gamma (u32/u32),
    /// base offset (s32/u32) and alternate offset (s32/u32). Bytes after the fields are allowed only when the writer
    /// version is above 0. Throws on a block cut short, a minimum version above 0, a zero denominator or a gamma of 0.
    public init(iso bytes: [UInt8]) throws(ParseError) {
        var r = ByteReader(bytes)
        minimumVersion = try r.readU16()
        writerVersion = try r.readU16()
        guard minimumVersion == 0 else {
            throw ParseError(
                .unsupported,
                "ISO 21496-1 gain-map metadata of minimum version \(minimumVersion) (only version 0 is read)")
        }
        guard writerVersion >= minimumVersion else {
            throw ParseError(
                .invalidValue, offset: 2,
                "ISO 21496-1 writer version \(writerVersion) is below its minimum version \(minimumVersion)")
        }
        let flags = try r.readU8()
        useBaseColourSpace = flags & 0x40 != 0
        let count = flags & 0x80 != 0 ? 3 : 1
        func unsigned() throws(ParseError) -> Fraction {
            let n = try r.readU32(), d = try r.readU32()
            guard d != 0 else {
                throw ParseError(
                    .invalidValue, offset: UInt64(r.position - 4), "ISO 21496-1 gain-map metadata: a denominator is 0")
            }
            return Fraction(Int64(n), d)
        }
        func signed() throws(ParseError) -> Fraction {
            let n = Int32(bitPattern: try r.readU32()), d = try r.readU32()
            guard d != 0 else {
                throw ParseError(
                    .invalidValue, offset: UInt64(r.position - 4), "ISO 21496-1 gain-map metadata: a denominator is 0")
            }
            return Fraction(Int64(n), d)
        }
        baseHeadroom = try unsigned()
        alternateHeadroom = try unsigned()
        var list: [Channel] = []
        for _ in 0..<count {
            let mn = try signed(), mx = try signed(), g = try unsigned(), bo = try signed(), ao = try signed()
            guard g.numerator > 0 else {
                throw ParseError(.invalidValue, offset: UInt64(r.position), "ISO 21496-1 gain-map metadata: gamma is 0")
            }
            list.append(Channel(gainMapMin: mn, gainMapMax: mx, gamma: g, baseOffset: bo, alternateOffset: ao))
        }
        channels = list
        if writerVersion == 0, r.remaining > 0 {
            throw ParseError(
                .invalidValue, offset: UInt64(r.position),
                "ISO 21496-1 gain-map metadata: \(r.remaining) bytes after the fields of a version-0 writer")
        }
    }

    /// The ISO 21496-1 block (as ``init(iso:)`` reads it), versions 0; three channels only when they differ.
    public var isoBytes: [UInt8] {
        var w = ByteWriter()
        w.writeU16(minimumVersion); w.writeU16(writerVersion)
        let multi = channels.count == 3 && !(channels[1] == channels[0] && channels[2] == channels[0])
        w.writeU8((multi ? 0x80 : 0) | (useBaseColourSpace ? 0x40 : 0))
        func u(_ f: Fraction) { w.writeU32(UInt32(truncatingIfNeeded: f.numerator)); w.writeU32(f.denominator) }
        u(baseHeadroom); u(alternateHeadroom)
        for c in (multi ? channels : Array(channels.prefix(1))) {
            u(c.gainMapMin); u(c.gainMapMax); u(c.gamma); u(c.baseOffset); u(c.alternateOffset)
        }
        return w.take()
    }

    /// The payload of a HEIF `tmap` derived image item: a version byte (0), then ``isoBytes``.
    public var tmapPayload: [UInt8] { [0] + isoBytes }

    /// Reads a `tmap` item payload (version byte 0, then the ISO 21496-1 block).
    public init(tmap payload: [UInt8]) throws(ParseError) {
        guard let v = payload.first else { throw ParseError(.truncated, "empty tmap item") }
        guard v == 0 else {
            throw ParseError(.unsupported, "tmap item of version \(v) (only version 0 is read)")
        }
        try self.init(iso: Array(payload.dropFirst()))
    }

    /// True when every value is one a reader can apply: denominators above 0 (checked when read), gamma above 0,
    /// max ≥ min per channel.
    public var problems: [String] {
        var out: [String] = []
        for (i, c) in channels.enumerated() {
            if c.gamma.numerator <= 0 || c.gamma.denominator == 0 {
                out.append("channel \(i): gamma \(c.gamma) is not above 0")
            }
            if c.gainMapMax.value < c.gainMapMin.value {
                out.append("channel \(i): gain-map max \(c.gainMapMax) is below its min \(c.gainMapMin)")
            }
        }
        return out
    }

    /// One line for people: "min 0, max 2.3, gamma 1, offsets 0.015625/0.015625, headroom 0 → 2.3 (log2)".
    public var summary: String {
        let c = channels.first
        func f(_ x: Fraction?) -> String { x.map { NumberText.fixed($0.value, places: 6, trimZeros: true) } ?? "?" }
        return
            "gain-map min \(f(c?.gainMapMin)), max \(f(c?.gainMapMax)), gamma \(f(c?.gamma)), base offset \(f(c?.baseOffset)), "
            + "alternate offset \(f(c?.alternateOffset)), headroom \(f(baseHeadroom)) → \(f(alternateHeadroom)) (log2)"
            + (channels.count == 3 ? ", 3 channels" : "")
    }
}

extension String {
    func trimmedSpaces(in set: Set<Character>) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
