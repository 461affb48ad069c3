// Both eyes through one multiview libx265 (x265 4.x, API build 216, built with ENABLE_MULTIVIEW), loaded with dlopen
// (issue 23). Specs/conversion.md, "Multiview encode path".
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BinaryIO
import ImageFormats
@preconcurrency import CX265

/// The parts of libx265 API build 216 this program touches, declared here by byte offset (the build-216 header is not
/// available at compile time: the program is built against the system's x265, another API build).
///
/// Offsets are those of the 64-bit (LP64) layout of x265 4.1's `x265.h`. They are trusted only when the library's own
/// `x265_api` table reports build 216 and the same `sizeof(x265_param)` and `sizeof(x265_picture)`, and when
/// `numViews` reads back as set by `x265_param_parse` (see ``X265MultiviewEncoder``); otherwise the encoder refuses
/// to open and the conversion falls back to two single-layer encodes.
enum X265Build216 {
    static let build: Int32 = 216
    /// `x265_api`: eight `int`s (major version, build number, sizeof param, picture, analysis data, zone, stats, bit
    /// depth), two string pointers, then the function pointers in declaration order.
    enum API {
        static let buildNumber = 4, sizeofParam = 8, sizeofPicture = 12, versionString = 32
        static let firstFunction = 48
        /// Index of each function pointer we call, counted from `param_alloc`.
        static let paramAlloc = 0, paramFree = 1, paramDefault = 2, paramParse = 3, paramApplyProfile = 5,
                   paramDefaultPreset = 6, pictureInit = 9, encoderOpen = 10, encoderHeaders = 14, encoderEncode = 16,
                   encoderClose = 19
    }
    static let sizeofParam: Int32 = 4736
    static let sizeofPicture: Int32 = 16896
    /// `x265_param`: the multiview fields near its end (`numScalableLayers`, `numViews`, `format`, `numLayers`).
    enum Param {
        static let numScalableLayers = 4696, numViews = 4700, format = 4704, numLayers = 4708
    }
    /// `x265_picture`: the fields at its start that a caller fills or reads.
    enum Picture {
        static let pts = 0, dts = 8, planes = 32, stride = 64, bitDepth = 80, sliceType = 84, poc = 88, colorSpace = 92
    }
}

/// A two-view (MV-HEVC) encoder: a multiview libx265 coding the base view as layer 0 and the second view as layer 1
/// with inter-layer (inter-view) prediction, one rate control for both (layer 1 pictures take the QP of their
/// layer-0 picture). Not thread-safe: drive one instance from one thread.
///
/// ``headers()`` returns the encoder's parameter sets: VPS with its multilayer extension, the SPS and PPS of layer 0
/// and of layer 1 (`nuh_layer_id` 1), and the multiview SEI messages x265 writes. ``encode(base:second:pts:)`` takes
/// one picture of each view and returns finished access units (both layers' NAL units) in decoding order.
public final class X265MultiviewEncoder {
    public let width: Int
    public let height: Int
    /// `x265_version_str` of the library.
    public let version: String
    private typealias AllocFn = @convention(c) () -> UnsafeMutableRawPointer?
    private typealias FreeFn = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private typealias ParseFn = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    private typealias ProfileFn = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32
    private typealias PictureInitFn = @convention(c) (UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Void
    private typealias OpenFn = @convention(c) (UnsafeMutableRawPointer?) -> OpaquePointer?
    private typealias HeadersFn = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<x265_nal>?>?, UnsafeMutablePointer<UInt32>?) -> Int32
    private typealias EncodeFn = @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<x265_nal>?>?, UnsafeMutablePointer<UInt32>?,
                                                 UnsafeMutableRawPointer?, UnsafeMutableRawPointer?) -> Int32
    private typealias CloseFn = @convention(c) (OpaquePointer?) -> Void
    private typealias APIGetFn = @convention(c) (Int32) -> UnsafeRawPointer?

    private let paramFree: FreeFn
    private let pictureInit: PictureInitFn
    private let headersFn: HeadersFn
    private let encodeFn: EncodeFn
    private let closeFn: CloseFn
    private let param: UnsafeMutableRawPointer
    private let encoder: OpaquePointer
    /// Two input pictures and two output pictures, each `sizeof(x265_picture)` of the library, contiguous (x265 reads
    /// view n at `pic_in + n` and writes layer n at `pic_out + n`).
    private let inputs: UnsafeMutableRawPointer
    private let outputs: UnsafeMutableRawPointer
    private let pictureSize: Int

    /// Opens `library` (a file path) and an 8-bit 4:2:0 two-view encoder with `settings` (the options of
    /// ``HEVCEncoder``; rate control applies to layer 0 and layer 1 follows its QPs). Throws when the library is not
    /// a build-216 multiview libx265 of the layout declared in `X265Build216`, or refuses the settings.
    public init(library: String, width: Int, height: Int, settings: HEVCEncoderSettings, limits: Limits = .default) throws(ParseError) {
        try Image.checkDimensions(width: width, height: height, limits: limits)
        guard settings.bitDepth == 8, settings.chroma == .yuv420, width % 2 == 0, height % 2 == 0 else {
            throw CodecError.lib("x265 multiview", "multiview encoding is 8-bit 4:2:0 with even sizes only")
        }
        guard MemoryLayout<Int>.size == 8 else { throw CodecError.lib("x265 multiview", "the build-216 layout is declared for 64-bit systems only") }
        guard let h = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
            throw CodecError.lib("x265 multiview", "\(library) cannot be loaded (\(dlerror().map { String(cString: $0) } ?? "unknown"))")
        }
        // Kept open for the life of the process (a library is not unloaded under code that may call it again).
        guard let getSym = dlsym(h, "x265_api_get_\(X265Build216.build)") else {
            throw CodecError.lib("x265 multiview", "\(library) has no x265_api_get_\(X265Build216.build): not x265 API build \(X265Build216.build)")
        }
        guard let api = unsafeBitCast(getSym, to: APIGetFn.self)(8) else {
            throw CodecError.lib("x265 multiview", "\(library) has no 8-bit encoder")
        }
        let build = api.load(fromByteOffset: X265Build216.API.buildNumber, as: Int32.self)
        let pSize = api.load(fromByteOffset: X265Build216.API.sizeofParam, as: Int32.self)
        let picSize = api.load(fromByteOffset: X265Build216.API.sizeofPicture, as: Int32.self)
        guard build == X265Build216.build, pSize == X265Build216.sizeofParam, picSize == X265Build216.sizeofPicture else {
            throw CodecError.lib("x265 multiview", "\(library) reports API build \(build), sizeof(x265_param) \(pSize), sizeof(x265_picture) \(picSize); this program knows build \(X265Build216.build) with \(X265Build216.sizeofParam) and \(X265Build216.sizeofPicture)")
        }
        version = api.load(fromByteOffset: X265Build216.API.versionString, as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? "unknown"
        func fn<T>(_ index: Int, _ type: T.Type) -> T? {
            guard let p = api.load(fromByteOffset: X265Build216.API.firstFunction + 8 * index, as: UnsafeRawPointer?.self) else { return nil }
            return unsafeBitCast(p, to: type)
        }
        typealias A = X265Build216.API
        guard let alloc = fn(A.paramAlloc, AllocFn.self), let free = fn(A.paramFree, FreeFn.self),
              let parse = fn(A.paramParse, ParseFn.self), let profile = fn(A.paramApplyProfile, ProfileFn.self),
              let preset = fn(A.paramDefaultPreset, ParseFn.self), let pInit = fn(A.pictureInit, PictureInitFn.self),
              let open = fn(A.encoderOpen, OpenFn.self), let hdrs = fn(A.encoderHeaders, HeadersFn.self),
              let enc = fn(A.encoderEncode, EncodeFn.self), let close = fn(A.encoderClose, CloseFn.self),
              fn(A.paramDefault, FreeFn.self) != nil else {
            throw CodecError.lib("x265 multiview", "\(library): the API table lacks a function")
        }
        guard let param = alloc() else { throw CodecError.lib("x265 multiview", "cannot allocate parameters") }
        func fail(_ m: String) -> ParseError { free(param); return CodecError.lib("x265 multiview", m) }
        if preset(param, settings.preset, settings.tune) != 0 { throw fail("unknown preset '\(settings.preset)' or tune '\(settings.tune ?? "")'") }
        typealias P = X265Build216.Param
        // The declared offsets must hold the defaults x265_param_default set: one view, one layer, no packed format.
        guard param.load(fromByteOffset: P.numViews, as: Int32.self) == 1, param.load(fromByteOffset: P.numLayers, as: Int32.self) == 1,
              param.load(fromByteOffset: P.numScalableLayers, as: Int32.self) == 1, param.load(fromByteOffset: P.format, as: Int32.self) == 0 else {
            throw fail("\(library): the multiview fields are not where build \(X265Build216.build) has them")
        }
        let opts: [(String, String)]
        do throws(ParseError) { opts = try HEVCEncoder.parameterOptions(width: width, height: height, settings: settings) } catch {
            free(param); throw error
        }
        for (k, v) in opts + [("num-views", "2")] {
            let r = parse(param, k, v)
            if r != 0 { throw fail("option \(k)=\(v) rejected (\(r == -1 ? "unknown option" : "bad value"))") }
        }
        guard param.load(fromByteOffset: P.numViews, as: Int32.self) == 2 else {
            throw fail("\(library): num-views did not reach the numViews field (not a multiview build of the declared layout)")
        }
        // x265's command line sets numLayers from numViews itself; x265_param_parse does not.
        param.storeBytes(of: Int32(2), toByteOffset: P.numLayers, as: Int32.self)
        _ = profile(param, "main")
        guard let e = open(param) else { throw fail("cannot open the multiview encoder with these settings") }
        pictureSize = Int(picSize)
        inputs = UnsafeMutableRawPointer.allocate(byteCount: 2 * pictureSize, alignment: 16)
        outputs = UnsafeMutableRawPointer.allocate(byteCount: 2 * pictureSize, alignment: 16)
        inputs.initializeMemory(as: UInt8.self, repeating: 0, count: 2 * pictureSize)
        outputs.initializeMemory(as: UInt8.self, repeating: 0, count: 2 * pictureSize)
        for i in 0..<2 { pInit(param, inputs + i * pictureSize) }
        self.param = param; self.encoder = e
        paramFree = free; pictureInit = pInit; headersFn = hdrs; encodeFn = enc; closeFn = close
        self.width = width; self.height = height
    }

    deinit {
        closeFn(encoder)
        paramFree(param)
        inputs.deallocate()
        outputs.deallocate()
    }

    /// VPS, SPS and PPS of both layers and x265's multiview SEI messages, in x265's order.
    public func headers() throws(ParseError) -> [[UInt8]] {
        var nals: UnsafeMutablePointer<x265_nal>? = nil
        var count: UInt32 = 0
        guard headersFn(encoder, &nals, &count) >= 0 else { throw CodecError.lib("x265 multiview", "cannot produce headers") }
        return HEVCEncoder.copy(nals, count)
    }

    /// Submits one picture of each view (display order; `base` becomes layer 0) and returns the access units x265
    /// has finished, each with the NAL units of both layers.
    public func encode(base: Image, second: Image, pts: Int64) throws(ParseError) -> [EncodedFrame] {
        for f in [base, second] {
            guard f.width == width, f.height == height, f.format == .yuv420, f.bitDepth == 8, case .u8(let p) = f.planes, p.count == 3 else {
                throw CodecError.lib("x265 multiview", "a view is \(f.width)×\(f.height) \(f.format.rawValue) \(f.bitDepth)-bit; the encoder expects \(width)×\(height) 8-bit 4:2:0")
            }
        }
        guard case .u8(let a) = base.planes, case .u8(let b) = second.planes else { return [] }
        return try a[0].withUnsafeBufferPointer { (ay) throws(ParseError) -> [EncodedFrame] in
            try a[1].withUnsafeBufferPointer { (au) throws(ParseError) -> [EncodedFrame] in
                try a[2].withUnsafeBufferPointer { (av) throws(ParseError) -> [EncodedFrame] in
                    try b[0].withUnsafeBufferPointer { (by) throws(ParseError) -> [EncodedFrame] in
                        try b[1].withUnsafeBufferPointer { (bu) throws(ParseError) -> [EncodedFrame] in
                            try b[2].withUnsafeBufferPointer { (bv) throws(ParseError) -> [EncodedFrame] in
                                fill(0, [ay.baseAddress, au.baseAddress, av.baseAddress], image: base, pts: pts)
                                fill(1, [by.baseAddress, bu.baseAddress, bv.baseAddress], image: second, pts: pts)
                                return try run(inputs)
                            }
                        }
                    }
                }
            }
        }
    }

    private func fill(_ view: Int, _ planes: [UnsafePointer<UInt8>?], image: Image, pts: Int64) {
        typealias F = X265Build216.Picture
        let pic = inputs + view * pictureSize
        pic.storeBytes(of: pts, toByteOffset: F.pts, as: Int64.self)
        for i in 0..<3 {
            pic.storeBytes(of: UnsafeMutableRawPointer(mutating: planes[i]), toByteOffset: F.planes + 8 * i, as: UnsafeMutableRawPointer?.self)
            pic.storeBytes(of: Int32(image.planeWidth(i)), toByteOffset: F.stride + 4 * i, as: Int32.self)
        }
        pic.storeBytes(of: Int32(8), toByteOffset: F.bitDepth, as: Int32.self)
        pic.storeBytes(of: Int32(X265_TYPE_AUTO), toByteOffset: F.sliceType, as: Int32.self)
        pic.storeBytes(of: Int32(X265_CSP_I420), toByteOffset: F.colorSpace, as: Int32.self)
    }

    /// Drains the encoder: the remaining access units.
    public func flush() throws(ParseError) -> [EncodedFrame] {
        try HEVCEncoder.drain { () throws(ParseError) in try run(nil) }
    }

    private func run(_ input: UnsafeMutableRawPointer?) throws(ParseError) -> [EncodedFrame] {
        var nals: UnsafeMutablePointer<x265_nal>? = nil
        var count: UInt32 = 0
        for i in 0..<2 { pictureInit(param, outputs + i * pictureSize) }
        let r = encodeFn(encoder, &nals, &count, input, outputs)
        // The planes given are only valid during this call.
        for i in 0..<2 {
            for p in 0..<3 {
                (inputs + i * pictureSize).storeBytes(of: nil, toByteOffset: X265Build216.Picture.planes + 8 * p, as: UnsafeMutableRawPointer?.self)
            }
        }
        if r < 0 { throw CodecError.lib("x265 multiview", "encoding failed") }
        if r == 0 || count == 0 { return [] }
        typealias F = X265Build216.Picture
        let name = HEVCEncoder.sliceTypeName(Int(outputs.load(fromByteOffset: F.sliceType, as: Int32.self)))
        return [EncodedFrame(pts: outputs.load(fromByteOffset: F.pts, as: Int64.self), dts: outputs.load(fromByteOffset: F.dts, as: Int64.self),
                             poc: Int(outputs.load(fromByteOffset: F.poc, as: Int32.self)), isKeyframe: name == "IDR" || name == "I",
                             sliceType: name, nalUnits: HEVCEncoder.copy(nals, count))]
    }
}
