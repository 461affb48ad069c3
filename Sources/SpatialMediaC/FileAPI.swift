import BinaryIO
import HEVC
import ISOBMFF
import SpatialMedia
import SpatialOperations
import SystemSupport

// Exported functions: library information, memory, files, info JSON and the typed getters.
// See include/spatialmedia.h for the contract of each function.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// ABI version of this implementation (`SM_ABI_VERSION` in the header).
public let smABIVersion: UInt32 = 1

// MARK: - Library

@_cdecl("sm_version")
public func sm_version() -> UnsafePointer<CChar> { StaticCString.get(SpatialMediaVersion.string) }

@_cdecl("sm_abi_version")
public func sm_abi_version() -> UInt32 { smABIVersion }

/// Capability bits (`SM_CAP_*`).
public enum SMCapability {
    public static let info: UInt32 = 1 << 0
    public static let editVideo: UInt32 = 1 << 1
    public static let editPhoto: UInt32 = 1 << 2
    public static let combinePhoto: UInt32 = 1 << 3
    public static let validate: UInt32 = 1 << 4
    public static let convertPhoto: UInt32 = 1 << 5
    public static let convertVideo: UInt32 = 1 << 6
    public static let split: UInt32 = 1 << 7
    public static let alignPhoto: UInt32 = 1 << 8
    public static let fixVideo: UInt32 = 1 << 9
    /// What this build provides.
    static let built: UInt32 =
        info | editVideo | editPhoto | combinePhoto | validate | convertPhoto | convertVideo | split | alignPhoto
        | fixVideo
}

@_cdecl("sm_capabilities")
public func sm_capabilities() -> UInt32 { SMCapability.built }

@_cdecl("sm_status_name")
public func sm_status_name(_ status: Int32) -> UnsafePointer<CChar> {
    StaticCString.get(SMStatus.names[status] ?? "SM_ERR_UNKNOWN")
}

@_cdecl("sm_last_error")
public func sm_last_error() -> UnsafePointer<CChar> { LastError.current }

@_cdecl("sm_last_error_location")
public func sm_last_error_location(
    _ outOffset: UnsafeMutablePointer<Int64>?, _ outBoxPath: UnsafeMutablePointer<UnsafePointer<CChar>?>?,
    _ outCode: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) {
    outOffset?.pointee = LastError.offset
    outBoxPath?.pointee = LastError.boxPath
    outCode?.pointee = LastError.code
}

@_cdecl("sm_string_free")
public func sm_string_free(_ string: UnsafeMutablePointer<CChar>?) { free(string) }

@_cdecl("sm_buffer_free")
public func sm_buffer_free(_ buffer: UnsafeMutablePointer<UInt8>?) { free(buffer) }

// MARK: - Opening

/// Parses a byte source: an Annex-B HEVC stream when it starts with a start code, else ISOBMFF.
func openSource(_ source: any ByteSource, path: String?) throws(ABIError) -> FileObject {
    let size = source.size
    if size == 0 { throw .argument("the input is empty (0 bytes)") }
    let head = try lift { () throws(ParseError) in try source.read(at: 0, count: 4) }
    if head.starts(with: [0, 0, 1]) || head.starts(with: [0, 0, 0, 1]) {
        let info = try lift { () throws(ParseError) in try MediaInfo.annexB(source: source) }
        return FileObject(path: path, content: .annexB(info.json))
    }
    let file = try lift { () throws(ParseError) in try ISOFile.parse(source: source) }
    return FileObject(path: path, content: .iso(file))
}

/// Stores a new handle in an out parameter (which the caller checked is not NULL).
func deliverHandle(_ object: AnyObject, to out: UnsafeMutablePointer<OpaquePointer?>) throws(ABIError) {
    out.pointee = try Registry.shared.insert(object)
}

@_cdecl("sm_file_open")
public func sm_file_open(_ path: SMString, _ outFile: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    outFile?.pointee = nil
    return abiCall("sm_file_open") { () throws(ABIError) in
        guard let outFile else { throw .argument("out_file is NULL") }
        let p = try requiredPath(path, "path")
        let source = try lift { () throws(ParseError) in try FileSource(path: p) }
        if source.size == 0 { throw ABIError(SMStatus.parse, "\(p) is empty (0 bytes)") }
        try deliverHandle(try openSource(source, path: p), to: outFile)
    }
}

@_cdecl("sm_file_open_memory")
public func sm_file_open_memory(
    _ data: UnsafePointer<UInt8>?, _ size: Int, _ outFile: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    outFile?.pointee = nil
    return abiCall("sm_file_open_memory") { () throws(ABIError) in
        guard let outFile else { throw .argument("out_file is NULL") }
        guard let data else { throw .argument("data is NULL") }
        guard size > 0 else {
            throw .argument(
                size == 0 ? "size is 0: an empty buffer is not a file" : "size is larger than the address space")
        }
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        try deliverHandle(try openSource(MemorySource(bytes), path: nil), to: outFile)
    }
}

@_cdecl("sm_file_free")
public func sm_file_free(_ file: OpaquePointer?) -> Int32 {
    abiCall("sm_file_free") { () throws(ABIError) in try Registry.shared.remove(file, as: FileObject.self, "file") }
}

func fileObject(_ h: OpaquePointer?) throws(ABIError) -> FileObject {
    try Registry.shared.lookup(h, as: FileObject.self, "file")
}

/// Checks an out pointer and clears it, so that it holds 0 on failure.
func out<T>(_ p: UnsafeMutablePointer<T>?, _ name: String, zero: T) throws(ABIError) -> UnsafeMutablePointer<T> {
    guard let p else { throw .argument("\(name) is NULL") }
    p.pointee = zero
    return p
}

@_cdecl("sm_file_kind")
public func sm_file_kind(_ file: OpaquePointer?, _ outKind: UnsafeMutablePointer<Int32>?) -> Int32 {
    abiCall("sm_file_kind") { () throws(ABIError) in
        let o = try out(outKind, "out_kind", zero: 0)
        o.pointee = try fileObject(file).kind
    }
}

@_cdecl("sm_file_is_spatial")
public func sm_file_is_spatial(_ file: OpaquePointer?, _ outIsSpatial: UnsafeMutablePointer<Int32>?) -> Int32 {
    abiCall("sm_file_is_spatial") { () throws(ABIError) in
        let o = try out(outIsSpatial, "out_is_spatial", zero: 0)
        let f = try fileObject(file)
        let spatialVideo = f.video?.classification == .spatialVideo
        o.pointee = (f.photo != nil || spatialVideo) ? 1 : 0
    }
}

public enum SMJSONFlag { public static let pretty: UInt32 = 1 }

@_cdecl("sm_file_info_json")
public func sm_file_info_json(
    _ file: OpaquePointer?, _ flags: UInt32, _ outJSON: SMStringOut, _ outLen: UnsafeMutablePointer<Int>?
) -> Int32 {
    outJSON?.pointee = nil
    outLen?.pointee = 0
    return abiCall("sm_file_info_json") { () throws(ABIError) in
        guard let outJSON else { throw .argument("out_json is NULL") }
        try checkFlags(flags, allowed: SMJSONFlag.pretty)
        let f = try fileObject(file)
        try deliver(f.infoJSON().serialized(pretty: flags & SMJSONFlag.pretty != 0), to: outJSON, length: outLen)
    }
}

@_cdecl("sm_info_path")
public func sm_info_path(
    _ path: SMString, _ flags: UInt32, _ outJSON: SMStringOut, _ outLen: UnsafeMutablePointer<Int>?
) -> Int32 {
    outJSON?.pointee = nil
    outLen?.pointee = 0
    return abiCall("sm_info_path") { () throws(ABIError) in
        guard let outJSON else { throw .argument("out_json is NULL") }
        try checkFlags(flags, allowed: SMJSONFlag.pretty)
        let p = try requiredPath(path, "path")
        let read = Operations.infoJSON(InfoRequest(path: p))
        if let error = read.error { throw ABIError(error) }
        try deliver(read.json.serialized(pretty: flags & SMJSONFlag.pretty != 0), to: outJSON, length: outLen)
    }
}

@_cdecl("sm_file_serialize")
public func sm_file_serialize(
    _ file: OpaquePointer?, _ outBytes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
    _ outLen: UnsafeMutablePointer<Int>?
) -> Int32 {
    outBytes?.pointee = nil
    outLen?.pointee = 0
    return abiCall("sm_file_serialize") { () throws(ABIError) in
        guard let outBytes else { throw .argument("out_bytes is NULL") }
        guard let outLen else { throw .argument("out_len is NULL") }
        let f = try fileObject(file)
        guard case .iso(let iso) = f.content else {
            throw ABIError(SMStatus.notApplicable, "a raw HEVC stream has no box structure to write")
        }
        let bytes = try lift { () throws(ParseError) in try iso.serialized() }
        outBytes.pointee = try mallocBytes(bytes)
        outLen.pointee = bytes.count
    }
}

// MARK: - Video getters

public enum SMVideoClass {
    public static let noVideo: Int32 = 0, twoD: Int32 = 1, spatial: Int32 = 2, stereoWithoutMetadata: Int32 = 3
    public static let sideBySide: Int32 = 4, topBottom: Int32 = 5
    static let names: [Int32: String] = [
        0: "no-video", 1: "2d", 2: "spatial-video", 3: "stereo-mv-hevc-without-spatial-metadata",
        4: "frame-packed-side-by-side", 5: "frame-packed-top-bottom",
    ]
    static func code(_ c: VideoStereoClass) -> Int32 {
        switch c {
        case .noVideo: return noVideo
        case .monoscopic2D: return twoD
        case .spatialVideo: return spatial
        case .stereoMVHEVCWithoutSpatialMetadata: return stereoWithoutMetadata
        case .framePacked(.sideBySide): return sideBySide
        case .framePacked(.topBottom): return topBottom
        }
    }
}

func videoReport(_ h: OpaquePointer?) throws(ABIError) -> SpatialVideoReport {
    let f = try fileObject(h)
    guard let v = f.video else { throw .notFound("not a movie (no moov box)") }
    return v
}

/// The primary video track's metadata.
func primaryTrack(_ h: OpaquePointer?) throws(ABIError) -> SpatialVideoTrack {
    guard let t = try videoReport(h).primary else { throw .notFound("the movie has no video track") }
    return t
}

/// The one body of the scalar getters: checks and zeroes `outValue` (named `outName` in errors), then stores
/// what `value` reads.
func getter<T>(
    _ function: StaticString, _ outValue: UnsafeMutablePointer<T>?, _ outName: String, zero: T,
    _ value: () throws(ABIError) -> T
) -> Int32 {
    abiCall(function) { () throws(ABIError) in
        let o = try out(outValue, outName, zero: zero)
        o.pointee = try value()
    }
}

/// The body of the two-value getters: both outputs are zeroed first (even when the other is NULL), checked, then
/// set from `value`.
func pairGetter(
    _ function: StaticString, _ a: (UnsafeMutablePointer<UInt32>?, String),
    _ b: (UnsafeMutablePointer<UInt32>?, String),
    _ value: () throws(ABIError) -> (UInt32, UInt32)
) -> Int32 {
    a.0?.pointee = 0
    b.0?.pointee = 0
    return abiCall(function) { () throws(ABIError) in
        let x = try out(a.0, a.1, zero: 0), y = try out(b.0, b.1, zero: 0)
        (x.pointee, y.pointee) = try value()
    }
}

/// A stereo value of the primary video track, or ``ABIError`` `notFound` naming the box the track lacks.
func videoValue<T>(_ file: OpaquePointer?, missing box: String, _ read: (StereoVideoMetadata) -> T?) throws(ABIError)
    -> T
{
    let t = try primaryTrack(file)
    guard let v = read(t.metadata) else { throw .notFound("video track \(t.trackID) has no \(box)") }
    return v
}

@_cdecl("sm_video_classification")
public func sm_video_classification(_ file: OpaquePointer?, _ outClass: UnsafeMutablePointer<Int32>?) -> Int32 {
    getter("sm_video_classification", outClass, "out_class", zero: 0) { () throws(ABIError) in
        SMVideoClass.code(try videoReport(file).classification)
    }
}

@_cdecl("sm_video_classification_name")
public func sm_video_classification_name(_ videoClass: Int32) -> UnsafePointer<CChar> {
    StaticCString.get(SMVideoClass.names[videoClass] ?? "unknown")
}

@_cdecl("sm_video_baseline_um")
public func sm_video_baseline_um(_ file: OpaquePointer?, _ outValue: UnsafeMutablePointer<UInt32>?) -> Int32 {
    getter("sm_video_baseline_um", outValue, "out_micrometres", zero: 0) { () throws(ABIError) in
        try videoValue(file, missing: "baseline (vexu/eyes/cams/blin)") { $0.baselineMicrometres }
    }
}

@_cdecl("sm_video_hfov_millidegrees")
public func sm_video_hfov_millidegrees(_ file: OpaquePointer?, _ outValue: UnsafeMutablePointer<UInt32>?) -> Int32 {
    getter("sm_video_hfov_millidegrees", outValue, "out_millidegrees", zero: 0) { () throws(ABIError) in
        try videoValue(file, missing: "horizontal field of view (hfov)") { $0.horizontalFieldOfViewMillidegrees }
    }
}

@_cdecl("sm_video_disparity")
public func sm_video_disparity(_ file: OpaquePointer?, _ outValue: UnsafeMutablePointer<Int32>?) -> Int32 {
    getter("sm_video_disparity", outValue, "out_disparity", zero: 0) { () throws(ABIError) in
        try videoValue(file, missing: "disparity adjustment (vexu/eyes/cmfy/dadj)") { $0.disparityAdjustment }
    }
}

@_cdecl("sm_video_hero_eye")
public func sm_video_hero_eye(_ file: OpaquePointer?, _ outValue: UnsafeMutablePointer<Int32>?) -> Int32 {
    getter("sm_video_hero_eye", outValue, "out_hero_eye", zero: 0) { () throws(ABIError) in
        try videoValue(file, missing: "hero eye box (vexu/eyes/hero)") { $0.heroEye.map { Int32($0.rawValue) } }
    }
}

// MARK: - Photo getters

func spatialPhoto(_ h: OpaquePointer?) throws(ABIError) -> SpatialPhoto {
    let f = try fileObject(h)
    guard let p = f.photo else { throw .notFound(f.photoProblem) }
    return p
}

@_cdecl("sm_photo_eye_items")
public func sm_photo_eye_items(
    _ file: OpaquePointer?, _ outLeft: UnsafeMutablePointer<UInt32>?, _ outRight: UnsafeMutablePointer<UInt32>?
) -> Int32 {
    pairGetter("sm_photo_eye_items", (outLeft, "out_left_item"), (outRight, "out_right_item")) { () throws(ABIError) in
        let p = try spatialPhoto(file)
        return (p.left.itemID, p.right.itemID)
    }
}

@_cdecl("sm_photo_size")
public func sm_photo_size(
    _ file: OpaquePointer?, _ outWidth: UnsafeMutablePointer<UInt32>?, _ outHeight: UnsafeMutablePointer<UInt32>?
) -> Int32 {
    pairGetter("sm_photo_size", (outWidth, "out_width"), (outHeight, "out_height")) { () throws(ABIError) in
        let p = try spatialPhoto(file)
        guard let pw = UInt32(exactly: p.left.width), let ph = UInt32(exactly: p.left.height), pw > 0, ph > 0 else {
            throw .notFound("the left eye (item \(p.left.itemID)) has no image size (ispe)")
        }
        return (pw, ph)
    }
}

@_cdecl("sm_photo_baseline_um")
public func sm_photo_baseline_um(_ file: OpaquePointer?, _ outValue: UnsafeMutablePointer<Double>?) -> Int32 {
    getter("sm_photo_baseline_um", outValue, "out_micrometres", zero: 0) { () throws(ABIError) in
        guard let v = try spatialPhoto(file).baselineMicrometres else {
            throw .notFound("the right eye has no camera extrinsics (no baseline)")
        }
        return v
    }
}

@_cdecl("sm_photo_hfov_millidegrees")
public func sm_photo_hfov_millidegrees(_ file: OpaquePointer?, _ outValue: UnsafeMutablePointer<Double>?) -> Int32 {
    getter("sm_photo_hfov_millidegrees", outValue, "out_millidegrees", zero: 0) { () throws(ABIError) in
        guard let v = try spatialPhoto(file).horizontalFOVDegrees, v.isFinite else {
            throw .notFound("the eyes have no usable camera intrinsics (no field of view)")
        }
        return v * 1000
    }
}

@_cdecl("sm_photo_disparity")
public func sm_photo_disparity(_ file: OpaquePointer?, _ outValue: UnsafeMutablePointer<Int32>?) -> Int32 {
    getter("sm_photo_disparity", outValue, "out_disparity", zero: 0) { () throws(ABIError) in
        guard let v = try spatialPhoto(file).disparityAdjustment else {
            throw .notFound("the photo has no disparity adjustment property")
        }
        return v
    }
}
