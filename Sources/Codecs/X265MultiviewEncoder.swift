import BinaryIO
import ImageFormats

// Both eyes through one multiview libx265 (x265 4.x built with ENABLE_MULTIVIEW), driven through our own C binding
// (scripts/x265mv, compiled by scripts/setup.sh against that library's x265.h) loaded with dlopen (issues 23, 30).
// Specs/conversion.md, "Multiview encode path".
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A two-view (MV-HEVC) encoder: a multiview libx265 coding the base view as layer 0 and the second view as layer 1
/// with inter-layer (inter-view) prediction, one rate control for both (layer 1 pictures take the QP of their
/// layer-0 picture). Not thread-safe: drive one instance from one thread.
///
/// The library is reached only through `libspatialmedia_x265mv.so` (``X265MultiviewProbe/bindingName``), whose C
/// interface (`spatialmedia_x265mv.h`, ABI 1) is ours: options go in as `x265_param_parse` strings, pictures as plane
/// pointers, NAL units come back as type/size/bytes. No x265 structure is read or written here, so the x265 API
/// build (215 for x265 4.1, 216 for 4.2, …) does not matter to this code.
///
/// ``headers()`` returns the encoder's parameter sets: VPS with its multilayer extension, the SPS and PPS of layer 0
/// and of layer 1 (`nuh_layer_id` 1), and the multiview SEI messages x265 writes. ``encode(base:second:pts:)`` takes
/// one picture of each view and returns finished access units (both layers' NAL units) in decoding order.
public final class X265MultiviewEncoder {
    public let width: Int
    public let height: Int
    /// `x265_version_str` of the library.
    public let version: String
    /// `X265_BUILD` the binding was compiled against.
    public let apiBuild: Int

    /// `smx_nal` of our `spatialmedia_x265mv.h` (64-bit): type u32 at 0, size u32 at 4, payload pointer at 8.
    private enum NAL { static let size = 4, payload = 8, stride = 16 }
    /// `smx_picture_info`: pts i64 at 0, dts i64 at 8, poc i32 at 16, slice type i32 at 20; 24 bytes.
    private enum Info { static let pts = 0, dts = 8, poc = 16, sliceType = 20, size = 24 }
    private typealias OpenFn =
        @convention(c) (
            UnsafePointer<CChar>?, UnsafePointer<CChar>?, Int32, UnsafePointer<UnsafePointer<CChar>?>?,
            UnsafePointer<UnsafePointer<CChar>?>?, UnsafeMutablePointer<CChar>?, Int
        ) -> OpaquePointer?
    private typealias HeadersFn =
        @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeRawPointer?>?, UnsafeMutablePointer<UInt32>?) ->
        Int32
    private typealias EncodeFn =
        @convention(c) (
            OpaquePointer?, UnsafePointer<UnsafePointer<UInt8>?>?, UnsafePointer<Int32>?, Int64,
            UnsafeMutablePointer<UnsafeRawPointer?>?, UnsafeMutablePointer<UInt32>?,
            UnsafeMutableRawPointer?
        ) -> Int32
    private typealias CloseFn = @convention(c) (OpaquePointer?) -> Void
    private typealias IntFn = @convention(c) () -> Int32
    private typealias StringFn = @convention(c) () -> UnsafePointer<CChar>?

    private let headersFn: HeadersFn
    private let encodeFn: EncodeFn
    private let closeFn: CloseFn
    private let encoder: OpaquePointer

    /// Opens `library` (the binding's file, ``X265MultiviewProbe/library``) and an 8-bit 4:2:0 two-view encoder with
    /// `settings` (the options of ``HEVCEncoder``; rate control applies to layer 0 and layer 1 follows its QPs) plus
    /// `extraOptions` (`x265_param_parse` name/value pairs applied last). Throws when the binding cannot be loaded,
    /// is of another ABI, or the library refuses the settings.
    public init(
        library: String, width: Int, height: Int, settings: HEVCEncoderSettings, extraOptions: [(String, String)] = [],
        limits: Limits = .default
    ) throws(ParseError) {
        try Image.checkDimensions(width: width, height: height, limits: limits)
        guard settings.bitDepth == 8, settings.chroma == .yuv420, width % 2 == 0, height % 2 == 0 else {
            throw CodecError.lib("x265 multiview", "multiview encoding is 8-bit 4:2:0 with even sizes only")
        }
        guard MemoryLayout<Int>.size == 8 else {
            throw CodecError.lib("x265 multiview", "the binding's structures are read with their 64-bit layout")
        }
        guard let h = dlopen(library, RTLD_NOW | RTLD_LOCAL) else {
            throw CodecError.lib(
                "x265 multiview", "\(library) cannot be loaded (\(dlerror().map { String(cString: $0) } ?? "unknown"))")
        }
        // Kept open for the life of the process (a library is not unloaded under code that may call it again).
        func sym<T>(_ name: String, _ type: T.Type) throws(ParseError) -> T {
            guard let p = dlsym(h, name) else {
                throw CodecError.lib("x265 multiview", "\(library) has no \(name): not spatial-media's x265 binding")
            }
            return unsafeBitCast(p, to: type)
        }
        let abi = try sym("smx_abi", IntFn.self)()
        guard abi == X265MultiviewProbe.bindingABI else {
            throw CodecError.lib(
                "x265 multiview",
                "\(library) is binding ABI \(abi); this program calls ABI \(X265MultiviewProbe.bindingABI) (run scripts/setup.sh again)"
            )
        }
        let open = try sym("smx_open", OpenFn.self)
        headersFn = try sym("smx_headers", HeadersFn.self)
        encodeFn = try sym("smx_encode", EncodeFn.self)
        closeFn = try sym("smx_close", CloseFn.self)
        apiBuild = Int(try sym("smx_x265_build", IntFn.self)())
        guard let vs = try sym("smx_x265_version", StringFn.self)() else {
            throw CodecError.lib("x265 multiview", "\(library): its libx265 has no 8-bit encoder")
        }
        version = String(cString: vs)
        let opts = try HEVCEncoder.parameterOptions(width: width, height: height, settings: settings) + extraOptions
        var error = [CChar](repeating: 0, count: 512)
        let opened: OpaquePointer? = Self.withCStrings(opts.map(\.0)) { keys in
            Self.withCStrings(opts.map(\.1)) { values in
                error.withUnsafeMutableBufferPointer { e in
                    open(settings.preset, settings.tune, Int32(opts.count), keys, values, e.baseAddress, e.count)
                }
            }
        }
        guard let e = opened else {
            let reason = error.withUnsafeBufferPointer { b in b.baseAddress.map { String(cString: $0) } ?? "" }
            throw CodecError.lib("x265 multiview", "cannot open the multiview encoder: \(reason)")
        }
        encoder = e
        self.width = width; self.height = height
    }

    deinit { closeFn(encoder) }

    /// Calls `body` with a C array of the strings (valid during the call).
    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R
    {
        let copies = strings.map { strdup($0) }
        defer { for c in copies { free(c) } }
        let pointers = copies.map { UnsafePointer($0) }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }

    /// VPS, SPS and PPS of both layers and x265's multiview SEI messages, in x265's order.
    public func headers() throws(ParseError) -> [[UInt8]] {
        var nals: UnsafeRawPointer? = nil
        var count: UInt32 = 0
        guard headersFn(encoder, &nals, &count) >= 0 else {
            throw CodecError.lib("x265 multiview", "cannot produce headers")
        }
        return Self.copy(nals, count)
    }

    /// Submits one picture of each view (display order; `base` becomes layer 0) and returns the access units x265
    /// has finished, each with the NAL units of both layers.
    public func encode(base: Image, second: Image, pts: Int64) throws(ParseError) -> [EncodedFrame] {
        for f in [base, second] {
            guard f.width == width, f.height == height, f.format == .yuv420, f.bitDepth == 8,
                case .u8(let p) = f.planes, p.count == 3
            else {
                throw CodecError.lib(
                    "x265 multiview",
                    "a view is \(f.width)×\(f.height) \(f.format.rawValue) \(f.bitDepth)-bit; the encoder expects \(width)×\(height) 8-bit 4:2:0"
                )
            }
        }
        guard case .u8(let a) = base.planes, case .u8(let b) = second.planes else { return [] }
        let strides = (0..<3).map { Int32(base.planeWidth($0)) } + (0..<3).map { Int32(second.planeWidth($0)) }
        return try a[0].withUnsafeBufferPointer { (ay) throws(ParseError) -> [EncodedFrame] in
            try a[1].withUnsafeBufferPointer { (au) throws(ParseError) -> [EncodedFrame] in
                try a[2].withUnsafeBufferPointer { (av) throws(ParseError) -> [EncodedFrame] in
                    try b[0].withUnsafeBufferPointer { (by) throws(ParseError) -> [EncodedFrame] in
                        try b[1].withUnsafeBufferPointer { (bu) throws(ParseError) -> [EncodedFrame] in
                            try b[2].withUnsafeBufferPointer { (bv) throws(ParseError) -> [EncodedFrame] in
                                try run(
                                    [
                                        ay.baseAddress, au.baseAddress, av.baseAddress, by.baseAddress, bu.baseAddress,
                                        bv.baseAddress,
                                    ],
                                    strides: strides, pts: pts)
                            }
                        }
                    }
                }
            }
        }
    }

    /// Drains the encoder: the remaining access units.
    public func flush() throws(ParseError) -> [EncodedFrame] {
        try HEVCEncoder.drain { () throws(ParseError) in try run(nil, strides: [], pts: 0) }
    }

    private func run(_ planes: [UnsafePointer<UInt8>?]?, strides: [Int32], pts: Int64) throws(ParseError)
        -> [EncodedFrame]
    {
        var nals: UnsafeRawPointer? = nil
        var count: UInt32 = 0
        var info = [UInt8](repeating: 0, count: Info.size)
        let r: Int32 = info.withUnsafeMutableBytes { i in
            guard let planes else { return encodeFn(encoder, nil, nil, 0, &nals, &count, i.baseAddress) }
            return planes.withUnsafeBufferPointer { p in
                strides.withUnsafeBufferPointer { s in
                    encodeFn(encoder, p.baseAddress, s.baseAddress, pts, &nals, &count, i.baseAddress)
                }
            }
        }
        if r < 0 { throw CodecError.lib("x265 multiview", "encoding failed") }
        if r == 0 || count == 0 { return [] }
        return info.withUnsafeBytes { i in
            let name = HEVCEncoder.sliceTypeName(Int(i.load(fromByteOffset: Info.sliceType, as: Int32.self)))
            return [
                EncodedFrame(
                    pts: i.load(fromByteOffset: Info.pts, as: Int64.self),
                    dts: i.load(fromByteOffset: Info.dts, as: Int64.self),
                    poc: Int(i.load(fromByteOffset: Info.poc, as: Int32.self)),
                    isKeyframe: name == "IDR" || name == "I",
                    sliceType: name, nalUnits: Self.copy(nals, count))
            ]
        }
    }

    /// The NAL units' bytes without their Annex B start codes.
    private static func copy(_ nals: UnsafeRawPointer?, _ count: UInt32) -> [[UInt8]] {
        guard let nals else { return [] }
        return (0..<Int(count)).compactMap { i -> [UInt8]? in
            let n = nals + i * NAL.stride
            let size = Int(n.load(fromByteOffset: NAL.size, as: UInt32.self))
            guard let p = n.load(fromByteOffset: NAL.payload, as: UnsafePointer<UInt8>?.self), size > 0 else {
                return nil
            }
            return HEVCEncoder.stripStartCode(Array(UnsafeBufferPointer(start: p, count: size)))
        }
    }
}
