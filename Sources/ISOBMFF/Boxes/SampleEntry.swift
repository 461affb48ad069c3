import BinaryIO
import SystemSupport

/// The kind of a sample entry, chosen from its type and the track's handler.
public enum SampleEntryKind: String, Sendable {
    case visual, audio, generic
}

/// A sample entry in `stsd` (ISO/IEC 14496-12 §8.5.2, §12.1.3, §12.2.3; QuickTime sound
/// description versions 1 and 2). The fixed fields are stored byte-exactly; child boxes
/// (`hvcC`, `lhvC`, `colr`, `vexu` …) follow as ordinary children.
public struct SampleEntry: BoxPayload, Equatable {
    public var kind: SampleEntryKind
    /// Six reserved bytes.
    public var reserved: [UInt8]
    public var dataReferenceIndex: UInt16
    /// The remaining fixed fields, by kind. Visual: 70 bytes; audio: 20 (+16 for QuickTime v1,
    /// +36 for v2); generic: none (everything after is children or raw).
    public var fixed: [UInt8]

    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        let type = context.parents.last ?? FourCC(0)
        kind = SampleEntry.kind(of: type, handler: context.handler)
        reserved = try r.readBytes(6)
        dataReferenceIndex = try r.readU16()
        switch kind {
        case .visual:
            fixed = try r.readBytes(70)
        case .audio:
            var head = try r.readBytes(20)
            let version = UInt16(head[0]) << 8 | UInt16(head[1])
            // QuickTime sound sample description v1 adds 4 × u32; v2 adds 36 bytes. ISO writes 0 here.
            if context.handler == "soun" || SampleEntry.audioTypes.contains(type) {
                if version == 1 { head += try r.readBytes(16) } else if version == 2 { head += try r.readBytes(36) }
            }
            fixed = head
        case .generic:
            fixed = []
        }
    }
    public init(kind: SampleEntryKind, dataReferenceIndex: UInt16 = 1, fixed: [UInt8]) {
        self.kind = kind; self.reserved = [0, 0, 0, 0, 0, 0]; self.dataReferenceIndex = dataReferenceIndex;
        self.fixed = fixed
    }
    public func write(to w: inout ByteWriter) { w.write(reserved); w.writeU16(dataReferenceIndex); w.write(fixed) }

    static let visualTypes: Set<FourCC> = [
        "hvc1", "hev1", "hvc2", "hev2", "lhv1", "lhe1", "avc1", "avc2", "avc3", "avc4", "mp4v",
        "av01", "vp08", "vp09", "dvh1", "dvhe", "dva1", "dvav", "jpeg", "mjpa", "mjpb", "ap4h", "ap4x", "apch", "apcn",
        "apcs", "apco",
        "encv", "resv", "s263", "h263", "png ", "raw ", "2vuy", "v210", "yuv2", "dav1", "avc3", "vvc1", "vvi1", "hvt1",
        "mjp2", "j2ki",
        "hvc3", "hev3", "avs3", "rv60", "uncv", "icpv",
    ]
    static let audioTypes: Set<FourCC> = [
        "mp4a", "ac-3", "ec-3", "ac-4", "Opus", "fLaC", "alac", "lpcm", "sowt", "twos", "ipcm", "fpcm",
        "samr", "sawb", "enca", "mp3 ", ".mp3", "in24", "in32", "fl32", "fl64", "ulaw", "alaw", "ima4", "dtsc", "dtsh",
        "dtse", "mha1", "mhm1", "raw ",
    ]

    public static func kind(of type: FourCC, handler: FourCC?) -> SampleEntryKind {
        if let h = handler {
            if h == "vide" || h == "pict" || h == "auxv" {
                return visualTypes.contains(type) || !audioTypes.contains(type) ? .visual : .audio
            }
            if h == "soun" { return .audio }
            return .generic
        }
        if visualTypes.contains(type) { return .visual }
        if audioTypes.contains(type) { return .audio }
        return .generic
    }

    // MARK: Visual fields
    public var width: UInt16 { kind == .visual && fixed.count >= 20 ? UInt16(fixed[16]) << 8 | UInt16(fixed[17]) : 0 }
    public var height: UInt16 { kind == .visual && fixed.count >= 20 ? UInt16(fixed[18]) << 8 | UInt16(fixed[19]) : 0 }
    /// Visual: the compressor name (Pascal string in 32 bytes).
    public var compressorName: String {
        guard kind == .visual, fixed.count >= 66 else { return "" }
        let n = min(Int(fixed[34]), 31)
        return String(decoding: fixed[35..<(35 + n)], as: UTF8.self)
    }
    public var depth: UInt16 { kind == .visual && fixed.count >= 68 ? UInt16(fixed[66]) << 8 | UInt16(fixed[67]) : 0 }
    // MARK: Audio fields
    public var channelCount: UInt16 {
        kind == .audio && fixed.count >= 20 ? UInt16(fixed[8]) << 8 | UInt16(fixed[9]) : 0
    }
    public var sampleSize: UInt16 {
        kind == .audio && fixed.count >= 20 ? UInt16(fixed[10]) << 8 | UInt16(fixed[11]) : 0
    }
    /// Audio: sample rate from the 16.16 field (QuickTime v2 stores a 64-bit float instead).
    public var sampleRate: Double {
        guard kind == .audio, fixed.count >= 20 else { return 0 }
        let version = UInt16(fixed[0]) << 8 | UInt16(fixed[1])
        if version == 2, fixed.count >= 32 {
            var bits: UInt64 = 0
            for i in 24..<32 { bits = bits << 8 | UInt64(fixed[i]) }
            return Double(bitPattern: bits)
        }
        let v = UInt32(fixed[16]) << 24 | UInt32(fixed[17]) << 16 | UInt32(fixed[18]) << 8 | UInt32(fixed[19])
        return Double(v) / 65536
    }

    public var summary: String {
        switch kind {
        case .visual:
            return "visual \(width)x\(height) depth=\(depth)"
                + (compressorName.isEmpty ? "" : " compressor=\"\(compressorName)\"")
        case .audio: return "audio channels=\(channelCount) bits=\(sampleSize) rate=\(fmt(sampleRate))"
        case .generic: return "data_reference_index=\(dataReferenceIndex)"
        }
    }
    public var json: [(String, JSON)] {
        switch kind {
        case .visual:
            return [
                ("kind", .string("visual")), ("width", .uint(UInt64(width))), ("height", .uint(UInt64(height))),
                ("compressor", .string(compressorName)),
            ]
        case .audio:
            return [
                ("kind", .string("audio")), ("channels", .uint(UInt64(channelCount))),
                ("sample_size", .uint(UInt64(sampleSize))), ("sample_rate", .double(sampleRate)),
            ]
        case .generic: return [("kind", .string("generic"))]
        }
    }
}
