import BinaryIO
import ISOBMFF

/// Where a conversion segment sits in the whole conversion: written by `convert --segment K/N` as
/// `moov/udta/smsg` and read by `concat`, which joins segments only when their ranges tile the whole clip.
///
/// Layout (big-endian, see Specs/conversion.md "Segments"): version (u8, 0), flags (u24, 0), segment index
/// (u32, 1-based), segment count (u32), first frame (u64, 0-based, in the whole clip), frame count (u64), frames of the
/// whole clip (u64), GOP length in frames (u32); then (since issue 28) the input's identity (u16 length + bytes) and
/// the encoder settings (u16 length + UTF-8). A reader of version 0 ignores bytes it does not know; a box without
/// the last two fields reads them as nil.
public struct VideoSegmentInfo: Sendable, Equatable {
    public static let boxType: FourCC = "smsg"
    public var index: Int
    public var count: Int
    public var firstFrame: Int
    public var frameCount: Int
    public var totalFrames: Int
    public var gopFrames: Int
    /// Identity of the converted input (``inputIdentity(path:)``): segments of one conversion have equal ones.
    public var input: [UInt8]?
    /// The encoder settings every segment of one conversion shares (rate control, preset, GOP, eye quality…), as text.
    public var settings: String?

    public init(
        index: Int, count: Int, firstFrame: Int, frameCount: Int, totalFrames: Int, gopFrames: Int,
        input: [UInt8]? = nil, settings: String? = nil
    ) {
        self.index = index; self.count = count; self.firstFrame = firstFrame
        self.frameCount = frameCount; self.totalFrames = totalFrames; self.gopFrames = gopFrames
        self.input = input; self.settings = settings
    }

    /// Bytes hashed at each end of the input by ``inputIdentity(path:)``.
    public static let identityWindow = 4 << 20

    /// An identity of the file at `path` that is the same on every machine holding a copy (no path, no time): its size
    /// (u64) and a 64-bit FNV-1a hash of its first and of its last ``identityWindow`` bytes. It tells another input or
    /// a changed one from the converted input; it is not a cryptographic digest.
    public static func inputIdentity(path: String) throws(ParseError) -> [UInt8] {
        let source = try FileSource(path: path)
        let size = source.size
        let window = UInt64(identityWindow)
        let head = try source.read(at: 0, count: Int(min(size, window)))
        let tailStart = size > window ? size - window : 0
        let tail = try source.read(at: tailStart, count: Int(size - tailStart))
        var w = ByteWriter()
        w.writeU64(size); w.writeU64(fnv1a(head)); w.writeU64(fnv1a(tail))
        return w.take()
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }

    /// The `smsg` box.
    public func box() throws(ParseError) -> Box {
        guard let i = UInt32(exactly: index), let n = UInt32(exactly: count), let g = UInt32(exactly: gopFrames),
            let f = UInt64(exactly: firstFrame), let c = UInt64(exactly: frameCount),
            let t = UInt64(exactly: totalFrames)
        else {
            throw ParseError(.unwritable, "segment numbers out of range")
        }
        var w = ByteWriter()
        w.writeU8(0); w.writeU24(0)
        w.writeU32(i); w.writeU32(n); w.writeU64(f); w.writeU64(c); w.writeU64(t); w.writeU32(g)
        if input != nil || settings != nil {
            let id = input ?? [], text = Array((settings ?? "").utf8)
            guard let il = UInt16(exactly: id.count), let tl = UInt16(exactly: text.count) else {
                throw ParseError(.unwritable, "segment identity or settings longer than 65535 bytes")
            }
            w.writeU16(il); w.write(id); w.writeU16(tl); w.write(text)
        }
        return Box(type: Self.boxType, fields: .raw(w.take()))
    }

    /// Reads `moov/udta/smsg` of `file`; nil when the movie is not a segment.
    public static func read(from file: ISOFile, path: String) throws(ParseError) -> VideoSegmentInfo? {
        guard let box = file.box("moov")?.child("udta")?.child(boxType) else { return nil }
        guard case .raw(let bytes) = box.fields else {
            throw ParseError(
                .invalidValue, offset: box.header.offset, path: "\(path): moov/udta/smsg", "unreadable segment box")
        }
        var r = ByteReader(bytes, baseOffset: box.header.offset + UInt64(box.header.length))
        let version = try r.readU8()
        _ = try r.readU24()
        guard version == 0 else {
            throw ParseError(
                .unsupported, offset: box.header.offset, path: "\(path): moov/udta/smsg",
                "segment box version \(version) is not supported (0)")
        }
        let i = try r.readU32(), n = try r.readU32(), f = try r.readU64(), c = try r.readU64(), t = try r.readU64(),
            g = try r.readU32()
        guard n >= 1, i >= 1, i <= n, g >= 1, f <= UInt64(Int.max / 2), c <= UInt64(Int.max / 2),
            t <= UInt64(Int.max / 2), f + c <= t
        else {
            throw ParseError(
                .invalidValue, offset: box.header.offset, path: "\(path): moov/udta/smsg",
                "inconsistent segment box: segment \(i) of \(n), frames \(f)+\(c) of \(t), GOP \(g)")
        }
        var input: [UInt8]?, settings: String?
        if r.remaining >= 2 {
            input = try r.readBytes(Int(try r.readU16()))
            if r.remaining >= 2 { settings = String(decoding: try r.readBytes(Int(try r.readU16())), as: UTF8.self) }
        }
        return VideoSegmentInfo(
            index: Int(i), count: Int(n), firstFrame: Int(f), frameCount: Int(c), totalFrames: Int(t),
            gopFrames: Int(g),
            input: input, settings: settings)
    }

    /// The frame ranges of `count` segments of a clip of `totalFrames` frames cut on multiples of `gop` frames: the
    /// clip's GOPs (the last one possibly short) shared out as evenly as possible, earlier segments taking the spare
    /// ones. Throws when there are fewer GOPs than segments.
    public static func ranges(totalFrames: Int, gop: Int, count: Int) throws(ParseError) -> [Range<Int>] {
        guard totalFrames > 0, gop > 0, count > 0 else {
            throw ParseError(.invalidArgument, "segments need a positive frame count, GOP length and segment count")
        }
        let gops = (totalFrames + gop - 1) / gop
        guard gops >= count else {
            throw ParseError(
                .invalidArgument,
                "\(totalFrames) frames make \(gops) GOPs of \(gop) frames: too few for \(count) segments (use fewer segments or a shorter GOP)"
            )
        }
        var out: [Range<Int>] = []
        var g = 0
        for k in 0..<count {
            let n = gops / count + (k < gops % count ? 1 : 0)
            out.append(min(totalFrames, g * gop)..<min(totalFrames, (g + n) * gop))
            g += n
        }
        return out
    }
}
