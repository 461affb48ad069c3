import BinaryIO

/// One SEI message: its type, and its payload bytes (RBSP form, i.e. without emulation prevention).
public struct SEIMessage: Hashable, Sendable {
    /// `payloadType` (e.g. 5 user data unregistered, 176 three-dimensional reference displays info).
    public var payloadType: UInt32
    /// The `sei_payload()` bytes, kept verbatim.
    public var payload: [UInt8]
    public init(payloadType: UInt32, payload: [UInt8]) {
        self.payloadType = payloadType
        self.payload = payload
    }
    /// The typed view of payload 176, if this is one and it parses.
    public var threeDimensionalReferenceDisplays: ThreeDimensionalReferenceDisplaysInfo? {
        payloadType == 176 ? try? ThreeDimensionalReferenceDisplaysInfo(payload: payload) : nil
    }
    /// The typed view of payload 5, if this is one.
    public var userDataUnregistered: UserDataUnregistered? {
        payloadType == 5 ? try? UserDataUnregistered(payload: payload) : nil
    }
}

/// An SEI NAL unit (prefix or suffix): the list of messages plus the trailing bytes, re-serialized exactly.
public struct SEIMessageList: Hashable, Sendable {
    public var header = NALHeader(type: .prefixSEI)
    public var messages: [SEIMessage] = []
    /// Bytes after the last message: normally the single `0x80` of rbsp_trailing_bits.
    public var trailing: [UInt8] = [0x80]

    public init(header: NALHeader = NALHeader(type: .prefixSEI), messages: [SEIMessage] = []) {
        self.header = header
        self.messages = messages
    }

    /// Parses an SEI NAL unit (types 39, 40).
    public init(nal: NALUnit) throws(ParseError) {
        guard nal.type == .prefixSEI || nal.type == .suffixSEI else {
            throw ParseError(.invalidValue, offset: nal.offset, "not an SEI NAL unit (\(nal.type))")
        }
        try self.init(rbsp: nal.rbsp, header: nal.header, baseOffset: nal.offset &+ 2)
    }

    /// Parses `sei_rbsp()`: messages while data other than the trailing bits remains.
    public init(rbsp: [UInt8], header: NALHeader, baseOffset: UInt64 = 0) throws(ParseError) {
        self.header = header
        var last = rbsp.count - 1
        while last >= 0 && rbsp[last] == 0 { last -= 1 }
        guard last >= 0 else {
            throw ParseError(.invalidValue, offset: baseOffset, "SEI RBSP has no rbsp_stop_one_bit")
        }
        var r = ByteReader(rbsp, baseOffset: baseOffset)
        var msgs: [SEIMessage] = []
        while r.position < last {
            var type: UInt32 = 0
            var b = try r.readU8()
            while b == 0xFF {
                type = try addChecked(type, 255, r)
                b = try r.readU8()
            }
            type = try addChecked(type, UInt32(b), r)
            var size: UInt32 = 0
            b = try r.readU8()
            while b == 0xFF {
                size = try addChecked(size, 255, r)
                b = try r.readU8()
            }
            size = try addChecked(size, UInt32(b), r)
            guard let n = Int(exactly: size), n <= r.remaining else {
                throw ParseError(
                    .truncated, offset: r.absoluteOffset,
                    "SEI payload of \(size) bytes runs past the NAL unit (\(r.remaining) left)")
            }
            msgs.append(SEIMessage(payloadType: type, payload: try r.readBytes(n)))
        }
        messages = msgs
        trailing = r.readRemaining()
    }

    /// The RBSP: each message with its type/size bytes, then ``trailing``.
    public func rbsp() -> [UInt8] {
        var out: [UInt8] = []
        for m in messages {
            var t = m.payloadType
            while t >= 255 { out.append(0xFF); t -= 255 }
            out.append(UInt8(t))
            var s = m.payload.count
            while s >= 255 { out.append(0xFF); s -= 255 }
            out.append(UInt8(s))
            out += m.payload
        }
        return out + trailing
    }
    /// The complete NAL unit with emulation prevention.
    public func nalUnit() -> NALUnit { NALUnit(header: header, rbsp: rbsp()) }
}

private func addChecked(_ a: UInt32, _ b: UInt32, _ r: ByteReader) throws(ParseError) -> UInt32 {
    let (v, o) = a.addingReportingOverflow(b)
    if o || v > 1 << 24 { throw ParseError(.invalidValue, offset: r.absoluteOffset, "SEI payload type/size too large") }
    return v
}

/// SEI payload 176, `three_dimensional_reference_displays_info` (H.265 §G.14.2.3; Specs/formats.md §3.6).
///
/// The mantissa length rule is v = max(0, prec − 30) when the exponent is 0, else max(0, exponent + prec − 31).
/// x265 writes one bit more than that; the parser detects this from the payload end and records the
/// length actually used in ``Display/mantissaBits`` so re-encoding reproduces the input bit for bit.
public struct ThreeDimensionalReferenceDisplaysInfo: Hashable, Sendable {
    public struct Display: Hashable, Sendable {
        public var leftViewId: UInt32 = 0
        public var rightViewId: UInt32 = 1
        public var exponentRefDisplayWidth: UInt8 = 0
        public var mantissaRefDisplayWidth: UInt32 = 0
        /// Bits used for `mantissa_ref_display_width` (normally the spec length).
        public var mantissaBits: Int = 1
        public var exponentRefViewingDistance: UInt8 = 0
        public var mantissaRefViewingDistance: UInt32 = 0
        public var viewingDistanceMantissaBits: Int = 0
        public var additionalShiftPresent = false
        public var numSampleShiftPlus512: UInt16 = 512
        public init(leftViewId: UInt32 = 0, rightViewId: UInt32 = 1) {
            self.leftViewId = leftViewId
            self.rightViewId = rightViewId
        }
    }
    public var precRefDisplayWidth: UInt32 = 31
    public var refViewingDistanceFlag = false
    public var precRefViewingDist: UInt32 = 0
    public var displays: [Display] = [Display()]
    public var extensionFlag = false
    /// True when the payload used x265's one-bit-longer mantissa.
    public var usesLongMantissa = false

    public init() {}

    /// Spec mantissa length for a given exponent and precision.
    public static func mantissaLength(exponent: UInt8, precision: UInt32) -> Int {
        exponent == 0 ? max(0, Int(precision) - 30) : max(0, Int(exponent) + Int(precision) - 31)
    }

    /// Parses the payload bytes.
    public init(payload: [UInt8]) throws(ParseError) {
        do {
            self = try Self.parse(payload, extra: 0)
        } catch {
            self = try Self.parse(payload, extra: 1)
            return
        }
        if !Self.validEnd(payload, self), let alt = try? Self.parse(payload, extra: 1), Self.validEnd(payload, alt) {
            self = alt
        }
    }

    /// How a payload 176 ends: as the syntax says, only with x265's one-bit-longer mantissa, or neither.
    enum PayloadEnd { case spec, longMantissa, invalid }
    static func payloadEnd(_ payload: [UInt8]) -> PayloadEnd {
        if let v = try? parse(payload, extra: 0), validEnd(payload, v) { return .spec }
        if let v = try? parse(payload, extra: 1), validEnd(payload, v) { return .longMantissa }
        return .invalid
    }

    private static func validEnd(_ payload: [UInt8], _ v: ThreeDimensionalReferenceDisplaysInfo) -> Bool {
        var w = RBSPWriter()
        var copy = v
        guard (try? copy.code(&w)) != nil else { return false }
        let used = w.position
        let total = payload.count * 8
        if used == total { return true }
        // payload_bit_equal_to_one then zeros to the end.
        var r = BitReader(payload)
        guard (try? r.seek(toBit: used)) != nil, let one = try? r.readFlag(), one else { return false }
        while r.bitsLeft > 0 { guard let b = try? r.readFlag(), !b else { return false } }
        return total - used <= 8
    }

    private static func parse(_ payload: [UInt8], extra: Int) throws(ParseError)
        -> ThreeDimensionalReferenceDisplaysInfo
    {
        var v = ThreeDimensionalReferenceDisplaysInfo()
        var c = RBSPReader(payload, baseOffset: 0)
        try v.code(&c, extraMantissaBits: extra)
        v.usesLongMantissa = extra > 0
        return v
    }

    mutating func code<C: BitCoder>(_ c: inout C, extraMantissaBits extra: Int = 0) throws(ParseError) {
        try c.ue(&precRefDisplayWidth, max: 31, "prec_ref_display_width")
        try c.flag(&refViewingDistanceFlag)
        if refViewingDistanceFlag { try c.ue(&precRefViewingDist, max: 31, "prec_ref_viewing_dist") }
        var n = UInt32(max(0, displays.count - 1))
        try c.ue(&n, max: 31, "num_ref_displays_minus1")
        let prec = precRefDisplayWidth, precD = precRefViewingDist, distFlag = refViewingDistanceFlag
        try c.list(&displays, count: Int(n) + 1, { Display() }) { (c: inout C, d: inout Display) throws(ParseError) in
            try c.ue(&d.leftViewId, max: 1023, "left_view_id")
            try c.ue(&d.rightViewId, max: 1023, "right_view_id")
            try c.u8(&d.exponentRefDisplayWidth, 6)
            if c.isReading {
                d.mantissaBits = Self.mantissaLength(exponent: d.exponentRefDisplayWidth, precision: prec) + extra
            }
            try c.u32(&d.mantissaRefDisplayWidth, d.mantissaBits)
            if distFlag {
                try c.u8(&d.exponentRefViewingDistance, 6)
                if c.isReading {
                    d.viewingDistanceMantissaBits =
                        Self.mantissaLength(exponent: d.exponentRefViewingDistance, precision: precD) + extra
                }
                try c.u32(&d.mantissaRefViewingDistance, d.viewingDistanceMantissaBits)
            }
            try c.flag(&d.additionalShiftPresent)
            if d.additionalShiftPresent { try c.u16(&d.numSampleShiftPlus512, 10) }
        }
        try c.flag(&extensionFlag)
    }

    /// Encodes the payload (with payload alignment bits).
    public func payload() throws(ParseError) -> [UInt8] {
        var w = RBSPWriter()
        var copy = self
        try copy.code(&w)
        if w.w.isByteAligned { return w.w.bytes }
        return w.finish(zeroBytes: 0)
    }
}

/// SEI payload 5, `user_data_unregistered`: a 16-byte UUID and opaque bytes.
public struct UserDataUnregistered: Hashable, Sendable {
    public var uuid: [UInt8]
    public var data: [UInt8]
    public init(uuid: [UInt8], data: [UInt8]) { self.uuid = uuid; self.data = data }
    /// Parses the payload; fewer than 16 bytes is an error.
    public init(payload: [UInt8]) throws(ParseError) {
        guard payload.count >= 16 else {
            throw ParseError(.truncated, "user_data_unregistered needs 16 bytes, has \(payload.count)")
        }
        uuid = Array(payload[0..<16])
        data = Array(payload[16...])
    }
    public var payload: [UInt8] { uuid + data }
    /// The data as text when it is printable UTF-8 (x265 writes its settings here).
    public var text: String? {
        let d = data.last == 0 ? Array(data.dropLast()) : data
        let s = String(decoding: d, as: UTF8.self)
        return s.unicodeScalars.allSatisfy { $0.value >= 0x20 || $0 == "\n" || $0 == "\t" } ? s : nil
    }
}
