import BinaryIO
// The only file that calls libx265.
@preconcurrency import CX265
import HEVC
import ImageFormats

/// Settings of an ``HEVCEncoder`` (x265 3.5). Every field maps to one x265 option named in its
/// comment; anything else can be passed through ``extraOptions``.
///
/// Defaults suit video with a fixed GOP: 8-bit 4:2:0, preset `medium`, CRF 23, closed GOP of 60
/// frames, no scene-cut detection, 3 B-frames, VPS/SPS/PPS only once (use ``HEVCEncoder/headers()``
/// for `hvcC`), no x265 version SEI.
public struct HEVCEncoderSettings: Sendable, Equatable {
    /// Rate control.
    public enum RateControl: Sendable, Equatable {
        /// Constant rate factor (`--crf`), 0…51, lower is better.
        case crf(Double)
        /// Constant QP (`--qp`), 0…51.
        case qp(Int)
        /// Average bitrate in kbit/s (`--bitrate`), with optional VBV max rate and buffer (kbit).
        case bitrate(kbps: Int, vbvMaxKbps: Int? = nil, vbvBufferKbit: Int? = nil)
    }
    /// 8 or 10 (selects the encoder with `x265_api_query(bitDepth, X265_BUILD, …)`, the non-macro
    /// form of `x265_api_get(bitDepth)`).
    public var bitDepth: Int = 8
    /// `.yuv420`, `.yuv422` or `.yuv444` (`--input-csp`); frames must be in this format.
    public var chroma: PixelFormat = .yuv420
    /// `--preset` (ultrafast … placebo).
    public var preset: String = "medium"
    /// `--tune` (psnr, ssim, grain, zerolatency, fastdecode) or nil.
    public var tune: String? = nil
    public var rateControl: RateControl = .crf(23)
    /// `--keyint`: distance between IDR frames. 1 = intra only.
    public var keyint: Int = 60
    /// `--min-keyint`; nil = same as keyint (fixed GOP).
    public var minKeyint: Int? = nil
    /// `--scenecut 0` when false (no extra I-frames at scene changes: fixed GOP).
    public var sceneCut: Bool = false
    /// `--bframes`.
    public var bframes: Int = 3
    /// `--open-gop`; false = closed GOPs starting with IDR pictures.
    public var openGOP: Bool = false
    /// Frame rate numerator/denominator (`--fps`), written into VUI timing.
    public var fpsNum: Int = 30
    public var fpsDen: Int = 1
    /// `--repeat-headers`: VPS/SPS/PPS before every keyframe in the returned NAL units.
    public var repeatHeaders: Bool = false
    /// Worker threads (`--pools`), 0 = x265's default (all cores); `--frame-threads` likewise.
    public var threads: Int = 0
    public var frameThreads: Int = 0
    /// VUI colour description written into the SPS (`--range`, `--colormatrix`, `--colorprim`, `--transfer`).
    public var colour: ColourSpace = .jpeg
    /// H.273 colour primaries / transfer characteristics written to VUI (1 = BT.709, 13 = sRGB transfer).
    public var colourPrimaries: Int = 1
    public var transferCharacteristics: Int = 13
    /// H.273 matrix coefficients written to VUI when set (any code x265 takes); nil = the code of ``colour``'s matrix.
    public var matrixCoefficients: Int? = nil
    /// Extra `x265_param_parse(name, value)` pairs applied last.
    public var extraOptions: [String: String] = [:]
    /// x265's `frames` (total frame count). 1 makes x265 signal the one-picture-only constraint, i.e. profile 3
    /// **Main Still Picture** for 8-bit 4:2:0 intra coding, as Apple's HEIC images; without it an all-intra encode
    /// is signalled as profile 4 "Main Intra" (range extensions). Every picture given is still encoded (grid tiles
    /// are separate pictures, each its own still picture).
    public var totalFrames: Int? = nil
    /// Set `general_non_packed_constraint_flag` in the VPS/SPS profile-tier-level of ``HEVCEncoder/headers()``, as
    /// Apple's encoders do (x265 always writes 0). True is only right when the stream carries no frame-packing
    /// SEI, which x265 writes only when asked.
    public var nonPackedConstraint = false

    public init() {}

    /// Settings for intra-coded still images (HEIF items / grid tiles): keyint 1, no B-frames, CRF
    /// derived from `quality` (0…100, higher is better): `crf = 40 − 0.3 × quality`
    /// (quality 80 → CRF 16, 100 → CRF 10, 0 → CRF 40).
    public static func stillImage(
        quality: Int = 80, bitDepth: Int = 8, chroma: PixelFormat = .yuv420, preset: String = "medium"
    ) -> HEVCEncoderSettings {
        var s = HEVCEncoderSettings()
        s.bitDepth = bitDepth; s.chroma = chroma; s.preset = preset
        let q = Double(min(100, max(0, quality)))
        s.rateControl = .crf(40 - 0.3 * q)
        s.keyint = 1; s.minKeyint = 1; s.bframes = 0; s.openGOP = false; s.sceneCut = false
        s.fpsNum = 1; s.fpsDen = 1
        s.totalFrames = 1
        s.nonPackedConstraint = true
        return s
    }
}

/// One picture's worth of output from the encoder, in decoding order.
public struct EncodedFrame: Sendable, Equatable {
    /// Presentation timestamp given with the input frame.
    public var pts: Int64
    /// Decoding timestamp chosen by x265 (may be negative with B-frames).
    public var dts: Int64
    /// Picture order count.
    public var poc: Int
    /// True for IDR / I pictures (keyframes / sync samples).
    public var isKeyframe: Bool
    /// "IDR", "I", "P", "B" or "b".
    public var sliceType: String
    /// NAL units (header + payload, no start code, no length prefix), in order.
    public var nalUnits: [[UInt8]]
}

/// An x265 encoder instance. Not thread-safe: drive one instance from one task.
///
/// Video use (issue 7): create with the frame size and settings, put ``headers()`` into `hvcC`,
/// call ``encode(_:pts:)`` for every frame in display order (each call returns zero or more frames
/// in decoding order — x265 buffers for lookahead and B-frames), then call ``flush()`` until it
/// returns an empty array. Frames must match the configured size, chroma format and bit depth
/// (use ``/ImageFormats/ColourConversion`` to convert).
public final class HEVCEncoder {
    public let width: Int
    public let height: Int
    public let settings: HEVCEncoderSettings
    private let api: UnsafePointer<x265_api>
    private let param: UnsafeMutablePointer<x265_param>
    private let encoder: OpaquePointer
    private let picture: UnsafeMutablePointer<x265_picture>

    /// x265 version string.
    public static var version: String { CodecVersions.x265 }

    public init(width: Int, height: Int, settings: HEVCEncoderSettings, limits: Limits = .default) throws(ParseError) {
        try Image.checkDimensions(width: width, height: height, limits: limits)
        guard settings.chroma.isYUV || settings.chroma == .gray else {
            throw CodecError.lib("x265", "chroma must be yuv420, yuv422, yuv444 or gray (4:0:0)")
        }
        let (sx, sy) = settings.chroma.chromaShift
        guard width % (1 << sx) == 0, height % (1 << sy) == 0 else {
            throw CodecError.lib(
                "x265",
                "\(width)×\(height) is not a multiple of the \(settings.chroma.rawValue) chroma grid; pad the picture first"
            )
        }
        var err: Int32 = 0
        guard let api = try X265.library().api_query(Int32(settings.bitDepth), X265_BUILD, &err) else {
            throw CodecError.lib("x265", "no \(settings.bitDepth)-bit encoder in the loaded libx265 (error \(err))")
        }
        guard let param = api.pointee.param_alloc() else { throw CodecError.lib("x265", "cannot allocate parameters") }
        func fail(_ m: String) -> ParseError { api.pointee.param_free(param); return CodecError.lib("x265", m) }
        if api.pointee.param_default_preset(param, settings.preset, settings.tune) != 0 {
            throw fail("unknown preset '\(settings.preset)' or tune '\(settings.tune ?? "")'")
        }
        let opts: [(String, String)]
        do throws(ParseError) {
            opts = try HEVCEncoder.parameterOptions(width: width, height: height, settings: settings)
        } catch {
            api.pointee.param_free(param); throw error
        }
        for (k, v) in opts {
            let r = api.pointee.param_parse(param, k, v)
            if r != 0 { throw fail("option \(k)=\(v) rejected (\(r == -1 ? "unknown option" : "bad value"))") }
        }
        // `frames` is an x265 CLI option, not a param_parse name: set the field.
        if let n = settings.totalFrames { param.pointee.totalFrames = Int32(clamping: max(0, n)) }
        if settings.chroma == .gray {
            // 4:0:0 (a grey depth or gain map): x265 signals the format range extensions profile by itself.
        } else if settings.bitDepth > 8 {
            _ = api.pointee.param_apply_profile(
                param,
                settings.chroma == .yuv420 ? "main10" : (settings.chroma == .yuv422 ? "main422-10" : "main444-10"))
        } else if settings.chroma == .yuv420 {
            _ = api.pointee.param_apply_profile(param, settings.keyint == 1 ? "mainstillpicture" : "main")
        }
        guard let enc = api.pointee.encoder_open(param) else {
            throw fail("cannot open the encoder with these settings")
        }
        guard let pic = api.pointee.picture_alloc() else {
            api.pointee.encoder_close(enc); throw fail("cannot allocate a picture")
        }
        api.pointee.picture_init(param, pic)
        self.api = api; self.param = param; self.encoder = enc; self.picture = pic
        self.width = width; self.height = height; self.settings = settings
    }

    /// The `x265_param_parse` name/value pairs of `settings` for a `width`×`height` picture, in the order they are
    /// applied (``HEVCEncoderSettings/extraOptions`` last). Shared with the multiview encoder.
    static func parameterOptions(width: Int, height: Int, settings: HEVCEncoderSettings) throws(ParseError) -> [(
        String, String
    )] {
        var opts: [(String, String)] = [
            ("input-res", "\(width)x\(height)"),
            (
                "input-csp",
                settings.chroma == .gray
                    ? "i400" : settings.chroma == .yuv420 ? "i420" : settings.chroma == .yuv422 ? "i422" : "i444"
            ),
            ("fps", "\(settings.fpsNum)/\(max(1, settings.fpsDen))"),
            ("keyint", "\(settings.keyint)"),
            ("min-keyint", "\(settings.minKeyint ?? settings.keyint)"),
            ("scenecut", settings.sceneCut ? "40" : "0"),
            ("bframes", "\(settings.bframes)"),
            ("open-gop", settings.openGOP ? "1" : "0"),
            ("repeat-headers", settings.repeatHeaders ? "1" : "0"),
            ("annexb", "1"),
            ("info", "0"),
            ("log-level", "error"),
            ("range", settings.colour.fullRange ? "full" : "limited"),
            (
                "colormatrix",
                settings.matrixCoefficients.map { "\($0)" } ?? HEVCEncoder.matrixName(settings.colour.matrix)
            ),
            ("colorprim", HEVCEncoder.primariesName(settings.colourPrimaries)),
            ("transfer", HEVCEncoder.transferName(settings.transferCharacteristics)),
        ]
        // x265 needs the picture to hold one coding tree unit (64 by default): small pictures get a smaller CTU.
        let smallest = min(width, height)
        guard smallest >= 16 else {
            throw CodecError.lib("x265", "\(width)×\(height) is too small to encode: x265 needs at least 16×16 pixels")
        }
        if smallest < 64 && settings.extraOptions["ctu"] == nil { opts.append(("ctu", smallest >= 32 ? "32" : "16")) }
        if settings.keyint == 1 { opts.append(("rc-lookahead", "0")) }
        if settings.threads > 0 { opts.append(("pools", "\(settings.threads)")) }
        if settings.frameThreads > 0 { opts.append(("frame-threads", "\(settings.frameThreads)")) }
        switch settings.rateControl {
        case .crf(let c): opts.append(("crf", "\(min(51, max(0, c)))"))
        case .qp(let q): opts.append(("qp", "\(min(51, max(0, q)))"))
        case .bitrate(let k, let m, let b):
            opts.append(("bitrate", "\(k)"))
            if let m { opts.append(("vbv-maxrate", "\(m)")) }
            if let b { opts.append(("vbv-bufsize", "\(b)")) }
        }
        for (k, v) in settings.extraOptions.sorted(by: { $0.key < $1.key }) { opts.append((k, v)) }
        return opts
    }

    deinit {
        api.pointee.encoder_close(encoder)
        api.pointee.picture_free(picture)
        api.pointee.param_free(param)
    }

    /// VPS, SPS, PPS (in that order) for `hvcC` / out-of-band parameter sets.
    public func headers() throws(ParseError) -> [[UInt8]] {
        var nals: UnsafeMutablePointer<x265_nal>? = nil
        var count: UInt32 = 0
        let r = api.pointee.encoder_headers(encoder, &nals, &count)
        guard r >= 0 else { throw CodecError.lib("x265", "cannot produce headers") }
        let out = HEVCEncoder.copy(nals, count)
        return settings.nonPackedConstraint ? try out.map(HEVCEncoder.settingNonPacked) : out
    }

    /// The VPS or SPS NAL unit `b` with `general_non_packed_constraint_flag` = 1 (other NAL units unchanged).
    static func settingNonPacked(_ b: [UInt8]) throws(ParseError) -> [UInt8] {
        let nal = try NALUnit(bytes: b)
        let bit: UInt64 = 1 << 45
        switch nal.type {
        case .vps:
            var v = try VideoParameterSet(nal: nal)
            guard v.profileTierLevel.constraintFlags & bit == 0 else { return b }
            v.profileTierLevel.constraintFlags |= bit
            return try v.nalUnit().bytes
        case .sps:
            var s = try SequenceParameterSet(nal: nal)
            guard !s.isMultiLayerExtension, s.profileTierLevel.constraintFlags & bit == 0 else { return b }
            s.profileTierLevel.constraintFlags |= bit
            return try s.nalUnit().bytes
        default:
            return b
        }
    }

    /// An `hvcC` record built from ``headers()`` (4-byte lengths).
    public func configurationRecord() throws(ParseError) -> [UInt8] {
        let nals = try headers().map { (b) throws(ParseError) -> NALUnit in try NALUnit(bytes: b) }
        let rec = try HEVCDecoderConfigurationRecord(
            vps: nals.filter { $0.type == .vps }, sps: nals.filter { $0.type == .sps },
            pps: nals.filter { $0.type == .pps })
        return try rec.serialized()
    }

    /// Submits one frame (display order) and returns whatever frames x265 has finished.
    public func encode(_ frame: Image, pts: Int64) throws(ParseError) -> [EncodedFrame] {
        guard frame.width == width, frame.height == height, frame.format == settings.chroma else {
            throw CodecError.lib(
                "x265",
                "frame is \(frame.width)×\(frame.height) \(frame.format.rawValue); the encoder expects \(width)×\(height) \(settings.chroma.rawValue)"
            )
        }
        let pic = picture
        pic.pointee.pts = pts
        pic.pointee.sliceType = Int32(X265_TYPE_AUTO)
        pic.pointee.colorSpace = Int32(
            settings.chroma == .gray
                ? X265_CSP_I400
                : settings.chroma == .yuv420
                    ? X265_CSP_I420 : settings.chroma == .yuv422 ? X265_CSP_I422 : X265_CSP_I444)
        if settings.chroma == .gray { return try encodeGray(frame, pic) }
        switch frame.planes {
        case .u8(let p):
            guard settings.bitDepth == 8 || frame.bitDepth == 8 else {
                throw CodecError.lib("x265", "bit depth mismatch")
            }
            pic.pointee.bitDepth = 8
            return try encodePlanes(p, frame, pic)
        case .u16(let p):
            pic.pointee.bitDepth = Int32(frame.bitDepth)
            return try encodePlanes(p, frame, pic)
        }
    }

    /// Submits the three planes of a colour frame, 8 or 16 bits a sample, without copying them.
    private func encodePlanes<T>(_ p: [[T]], _ frame: Image, _ pic: UnsafeMutablePointer<x265_picture>)
        throws(ParseError) -> [EncodedFrame]
    {
        guard p.count == 3 else { throw CodecError.lib("x265", "a colour frame has \(p.count) planes, not 3") }
        let size = MemoryLayout<T>.size
        return try p[0].withUnsafeBufferPointer { (y) throws(ParseError) -> [EncodedFrame] in
            try p[1].withUnsafeBufferPointer { (u) throws(ParseError) -> [EncodedFrame] in
                try p[2].withUnsafeBufferPointer { (v) throws(ParseError) -> [EncodedFrame] in
                    pic.pointee.planes = (
                        UnsafeMutableRawPointer(mutating: y.baseAddress),
                        UnsafeMutableRawPointer(mutating: u.baseAddress),
                        UnsafeMutableRawPointer(mutating: v.baseAddress)
                    )
                    pic.pointee.stride = (
                        Int32(frame.planeWidth(0) * size), Int32(frame.planeWidth(1) * size),
                        Int32(frame.planeWidth(2) * size)
                    )
                    return try run(pic)
                }
            }
        }
    }

    /// Submits a 4:0:0 frame: one plane.
    private func encodeGray(_ frame: Image, _ pic: UnsafeMutablePointer<x265_picture>) throws(ParseError)
        -> [EncodedFrame]
    {
        switch frame.planes {
        case .u8(let p):
            guard settings.bitDepth == 8, let y = p.first else { throw CodecError.lib("x265", "bit depth mismatch") }
            pic.pointee.bitDepth = 8
            return try y.withUnsafeBufferPointer { (b) throws(ParseError) -> [EncodedFrame] in
                pic.pointee.planes = (UnsafeMutableRawPointer(mutating: b.baseAddress), nil, nil)
                pic.pointee.stride = (Int32(frame.planeWidth(0)), 0, 0)
                return try run(pic)
            }
        case .u16(let p):
            guard let y = p.first else { throw CodecError.lib("x265", "no luma plane") }
            pic.pointee.bitDepth = Int32(frame.bitDepth)
            return try y.withUnsafeBufferPointer { (b) throws(ParseError) -> [EncodedFrame] in
                pic.pointee.planes = (UnsafeMutableRawPointer(mutating: b.baseAddress), nil, nil)
                pic.pointee.stride = (Int32(frame.planeWidth(0) * 2), 0, 0)
                return try run(pic)
            }
        }
    }

    /// Drains the encoder. Call repeatedly until it returns an empty array.
    public func flush() throws(ParseError) -> [EncodedFrame] {
        try HEVCEncoder.drain { () throws(ParseError) in try run(nil) }
    }

    /// Calls an encoder's flushing step until it returns no more frames: the drain loop of both x265 encoders.
    static func drain(_ step: () throws(ParseError) -> [EncodedFrame]) throws(ParseError) -> [EncodedFrame] {
        var all: [EncodedFrame] = []
        while true {
            let got = try step()
            if got.isEmpty { break }
            all += got
        }
        return all
    }

    private func run(_ input: UnsafeMutablePointer<x265_picture>?) throws(ParseError) -> [EncodedFrame] {
        var nals: UnsafeMutablePointer<x265_nal>? = nil
        var count: UInt32 = 0
        var out = x265_picture()
        api.pointee.picture_init(param, &out)
        let r = api.pointee.encoder_encode(encoder, &nals, &count, input, &out)
        if r < 0 { throw CodecError.lib("x265", "encoding failed") }
        if r == 0 || count == 0 { return [] }
        let units = HEVCEncoder.copy(nals, count)
        let name = HEVCEncoder.sliceTypeName(Int(out.sliceType))
        return [
            EncodedFrame(
                pts: out.pts, dts: out.dts, poc: Int(out.poc), isKeyframe: name == "IDR" || name == "I",
                sliceType: name, nalUnits: units)
        ]
    }

    /// "IDR", "I", "P", "B" or "b" for an x265 slice type (the values are the same in every x265 API build).
    static func sliceTypeName(_ t: Int) -> String {
        switch t {
        case Int(X265_TYPE_IDR): return "IDR"
        case Int(X265_TYPE_I): return "I"
        case Int(X265_TYPE_P): return "P"
        case Int(X265_TYPE_B): return "B"
        default: return "b"
        }
    }

    /// Copies x265's NAL array (valid only until the next call) and strips Annex-B start codes.
    static func copy(_ nals: UnsafeMutablePointer<x265_nal>?, _ count: UInt32) -> [[UInt8]] {
        guard let nals else { return [] }
        var out: [[UInt8]] = []
        for i in 0..<Int(count) {
            let n = nals[i]
            guard let p = n.payload, n.sizeBytes > 0 else { continue }
            out.append(stripStartCode(Array(UnsafeBufferPointer(start: p, count: Int(n.sizeBytes)))))
        }
        return out
    }

    /// A NAL unit's bytes without the Annex B start code x265 puts before it.
    static func stripStartCode(_ bytes: [UInt8]) -> [UInt8] {
        var b = bytes
        if b.count >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0 && b[3] == 1 {
            b.removeFirst(4)
        } else if b.count >= 3 && b[0] == 0 && b[1] == 0 && b[2] == 1 {
            b.removeFirst(3)
        }
        return b
    }

    static func matrixName(_ m: ColourSpace.Matrix) -> String {
        switch m {
        case .bt601: "smpte170m";
        case .bt709: "bt709";
        case .bt2020: "bt2020nc"
        }
    }
    static func primariesName(_ c: Int) -> String {
        // x265 takes the code itself for the others.
        switch c {
        case 9: "bt2020";
        case 5: "bt470bg";
        case 6: "smpte170m";
        case 12: "smpte432";
        case 1: "bt709";
        default: "\(c)"
        }
    }
    static func transferName(_ c: Int) -> String {
        switch c {
        case 1: "bt709";
        case 6: "smpte170m";
        case 16: "smpte2084";
        case 18: "arib-std-b67";
        case 13: "iec61966-2-1";
        default: "\(c)"
        }
    }
}

/// Still-image HEVC coding: a single picture or a grid of equal tiles sharing one `hvcC`.
public enum HEVCStillEncoder {
    /// A coded still image.
    public struct Coded: Sendable {
        /// `hvcC` record shared by every tile (or the single picture).
        public var hvcC: [UInt8]
        /// Tile bitstreams in raster order, each length-prefixed (4 bytes) NAL units of one picture.
        /// One entry when the picture is not a grid.
        public var tiles: [[UInt8]]
        public var tileWidth: Int
        public var tileHeight: Int
        public var rows: Int
        public var columns: Int
        /// The visible picture size (grid output size).
        public var width: Int
        public var height: Int
        /// True when the tiles form a `grid` derived image; false for one plain coded picture.
        public var isGrid: Bool { rows * columns > 1 || tileWidth != width || tileHeight != height }
    }

    /// A grey picture at `bitDepth` for a 4:0:0 encode: a grey image as it is, or the luma of any other.
    static func gray(_ img: Image, bitDepth: Int) throws(ParseError) -> Image {
        if img.format == .gray { return try ColourConversion.changeDepth(img, to: bitDepth) }
        let yuv = try ColourConversion.toYUV(img, format: .yuv444, bitDepth: bitDepth)
        let planes: Planes
        switch yuv.planes {
        case .u8(let p): planes = .u8(Array(p.prefix(1)))
        case .u16(let p): planes = .u16(Array(p.prefix(1)))
        }
        return try Image(
            width: yuv.width, height: yuv.height, bitDepth: bitDepth, format: .gray, planes: planes, colour: yuv.colour)
    }

    /// Encodes `images` (all the same size) with one encoder so that every tile of every image
    /// shares one `hvcC`. Images larger than `tileSize` — or whose size does not fit the chroma grid —
    /// become grids of `tileSize`×`tileSize` tiles (edge tiles padded by repeating the last row and
    /// column); smaller ones use one tile of the image size rounded up to the chroma grid.
    public static func encode(
        _ images: [Image], settings: HEVCEncoderSettings, tileSize: Int = 512, limits: Limits = .default
    ) throws(ParseError) -> [Coded] {
        guard let first = images.first else { return [] }
        let w = first.width, h = first.height
        guard images.allSatisfy({ $0.width == w && $0.height == h }) else {
            throw ParseError(.invalidValue, "images to encode together must have the same size")
        }
        try Image.checkDimensions(width: w, height: h, limits: limits)
        let (sx, sy) = settings.chroma.chromaShift
        func roundUp(_ v: Int, _ m: Int) -> Int { (v + m - 1) / m * m }
        // x265 needs at least one CTU (64×64 by default).
        let tw = w > tileSize ? tileSize : max(64, roundUp(w, 1 << sx))
        let th = h > tileSize ? tileSize : max(64, roundUp(h, 1 << sy))
        let cols = (w + tw - 1) / tw, rows = (h + th - 1) / th
        let enc = try HEVCEncoder(width: tw, height: th, settings: settings, limits: limits)
        let hvcC = try enc.configurationRecord()
        var frames: [EncodedFrame] = []
        var pts: Int64 = 0
        for img in images {
            var yuv =
                settings.chroma == .gray
                ? try gray(img, bitDepth: settings.bitDepth)
                : try ColourConversion.toYUV(
                    img, format: settings.chroma, bitDepth: settings.bitDepth, colour: settings.colour)
            yuv = try ImageOps.padEdge(yuv, width: cols * tw, height: rows * th)
            for r in 0..<rows {
                for c in 0..<cols {
                    let tile = try ImageOps.crop(yuv, x: c * tw, y: r * th, width: tw, height: th)
                    frames += try enc.encode(tile, pts: pts)
                    pts += 1
                }
            }
        }
        frames += try enc.flush()
        frames.sort { $0.pts < $1.pts }
        guard frames.count == Int(pts) else {
            throw CodecError.lib("x265", "expected \(pts) coded tiles, got \(frames.count)")
        }
        var out: [Coded] = []
        let per = rows * cols
        for i in 0..<images.count {
            var tiles: [[UInt8]] = []
            for f in frames[(i * per)..<((i + 1) * per)] {
                let vcl = f.nalUnits.filter { !$0.isEmpty && (($0[0] >> 1) & 0x3F) < 32 }
                tiles.append(
                    try LengthPrefixed.join(
                        vcl.map { (b) throws(ParseError) -> NALUnit in try NALUnit(bytes: b) }, lengthSize: 4))
            }
            out.append(
                Coded(
                    hvcC: hvcC, tiles: tiles, tileWidth: tw, tileHeight: th, rows: rows, columns: cols, width: w,
                    height: h))
        }
        return out
    }
}
