import BinaryIO
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Apple's UUIDs for the HEIF camera and stereo properties found in Vision Pro / iPhone spatial photos.
public enum AppleUUID {
    /// Camera intrinsics, same payload as `cmin`.
    public static let cameraIntrinsics: [UInt8] = [
        0x22, 0xcc, 0x04, 0xc7, 0xd6, 0xd9, 0x4e, 0x07, 0x9d, 0x90, 0x4e, 0xb6, 0xec, 0xba, 0xf3, 0xa3,
    ]
    /// Camera extrinsics, same payload as `cmex`.
    public static let cameraExtrinsics: [UInt8] = [
        0x43, 0x63, 0xe9, 0x14, 0x5b, 0x7d, 0x4a, 0xab, 0x97, 0xae, 0xbe, 0xa6, 0x98, 0x03, 0xb4, 0x34,
    ]
    /// Horizontal disparity adjustment: a signed 32-bit value in 1/10000 of the image width, no version/flags.
    public static let disparityAdjustment: [UInt8] = [
        0xde, 0x22, 0x50, 0x85, 0x36, 0xcb, 0x43, 0x65, 0x87, 0x43, 0x2f, 0x87, 0x05, 0xe7, 0xc7, 0x8a,
    ]
    /// Google spherical video v1 XML box.
    public static let sphericalV1: [UInt8] = [
        0xff, 0xcc, 0x82, 0x63, 0xf8, 0x55, 0x4a, 0x93, 0x88, 0x14, 0x58, 0x7a, 0x02, 0x52, 0x1f, 0xdd,
    ]
}

/// `cmin` CameraIntrinsicMatrixProperty (ISO/IEC 23008-12 amendment; Apple writes the same payload in a
/// `uuid` box). Values are relative to the image size, in fixed point with `2^denominatorShift` as the unit.
public struct CameraIntrinsicsProperty: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var focalLengthX: Int32
    public var principalPointX: Int32
    public var principalPointY: Int32
    /// Present when flag bit 0 is set (non-square pixels / skew).
    public var focalLengthY: Int32?
    public var skew: Int32?

    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        guard fullBox.version == 0 else {
            throw r.fail(.unsupportedVersion, "camera intrinsics version \(fullBox.version)")
        }
        focalLengthX = try r.readI32(); principalPointX = try r.readI32(); principalPointY = try r.readI32()
        if fullBox.flags & 1 != 0 { focalLengthY = try r.readI32(); skew = try r.readI32() }
    }
    /// Builds intrinsics from pixel values for an image of `width`×`height`.
    public init(
        fx: Double, fy: Double? = nil, cx: Double, cy: Double, width: Int, height: Int, denominatorShift: UInt8 = 28
    ) {
        let shift = min(denominatorShift, 30)
        let unit = Double(UInt64(1) << UInt64(shift))
        var flags = UInt32(shift) << 8
        func q(_ v: Double) -> Int32 {
            let x = (v * unit).rounded();
            return x.isFinite ? Int32(max(min(x, Double(Int32.max)), Double(Int32.min))) : 0
        }
        focalLengthX = q(fx / Double(max(width, 1)))
        principalPointX = q(cx / Double(max(width, 1)))
        principalPointY = q(cy / Double(max(height, 1)))
        if let fy, fy != fx {
            flags |= 1
            focalLengthY = q(fy / Double(max(height, 1)))
            skew = 0
        }
        fullBox = FullBoxHeader(version: 0, flags: flags)
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        w.writeI32(focalLengthX); w.writeI32(principalPointX); w.writeI32(principalPointY)
        if fullBox.flags & 1 != 0 { w.writeI32(focalLengthY ?? 0); w.writeI32(skew ?? 0) }
    }
    public var denominatorShift: Int { Int((fullBox.flags >> 8) & 0x1F) }
    public var skewDenominatorShift: Int { Int((fullBox.flags >> 16) & 0x1F) }
    var unit: Double { Double(UInt64(1) << UInt64(denominatorShift)) }
    /// fx as a fraction of the image width.
    public var fxRelative: Double { Double(focalLengthX) / unit }
    /// fy as a fraction of the image height (without flag 1, fy equals fx in pixels).
    public func fyPixels(width: Int, height: Int) -> Double {
        if let fy = focalLengthY { return Double(fy) / unit * Double(height) }
        return fxRelative * Double(width)
    }
    public var cxRelative: Double { Double(principalPointX) / unit }
    public var cyRelative: Double { Double(principalPointY) / unit }
    public var skewValue: Double { Double(skew ?? 0) / Double(UInt64(1) << UInt64(skewDenominatorShift)) }
    public var summary: String {
        "fx=\(fmt(fxRelative, 6))·W cx=\(fmt(cxRelative, 6))·W cy=\(fmt(cyRelative, 6))·H shift=\(denominatorShift)"
            + (focalLengthY.map { " fy=\(fmt(Double($0) / unit, 6))·H" } ?? "")
    }
    public var json: [(String, JSON)] {
        [
            ("fx_relative", .double(fxRelative)), ("cx_relative", .double(cxRelative)),
            ("cy_relative", .double(cyRelative)), ("denominator_shift", .uint(UInt64(denominatorShift))),
        ]
    }
}

/// `cmex` CameraExtrinsicMatrixProperty (Apple writes the same payload in a `uuid` box): camera position in
/// micrometres and an optional orientation (quaternion in version 0, yaw/pitch/roll in version 1).
public struct CameraExtrinsicsProperty: BoxPayload, FullBoxCarrying, Equatable {
    public var fullBox: FullBoxHeader
    public var positionX: Int32?
    public var positionY: Int32?
    public var positionZ: Int32?
    /// Version 0: quaternion x, y, z (each /2^14, or /2^30 with flag 0x10). Version 1: yaw, pitch, roll (16.16
    /// degrees).
    public var orientation: [Int32]?
    public var worldCoordinateSystemID: UInt32?

    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) {
        fullBox = try FullBoxHeader(parsing: &r)
        guard fullBox.version <= 1 else {
            throw r.fail(.unsupportedVersion, "camera extrinsics version \(fullBox.version)")
        }
        let f = fullBox.flags
        positionX = f & 1 != 0 ? try r.readI32() : nil
        positionY = f & 2 != 0 ? try r.readI32() : nil
        positionZ = f & 4 != 0 ? try r.readI32() : nil
        if f & 8 != 0 {
            if fullBox.version == 0 && f & 0x10 == 0 {
                orientation = [Int32(try r.readI16()), Int32(try r.readI16()), Int32(try r.readI16())]
            } else {
                orientation = [try r.readI32(), try r.readI32(), try r.readI32()]
            }
        }
        worldCoordinateSystemID = f & 0x20 != 0 ? try r.readU32() : nil
    }
    /// Position only (micrometres), no rotation — the form Apple writes.
    public init(positionMicrometres x: Int32, y: Int32 = 0, z: Int32 = 0) {
        var flags: UInt32 = 0
        if x != 0 { flags |= 1 }
        if y != 0 { flags |= 2 }
        if z != 0 { flags |= 4 }
        fullBox = FullBoxHeader(version: 0, flags: flags)
        positionX = x != 0 ? x : nil; positionY = y != 0 ? y : nil; positionZ = z != 0 ? z : nil
    }
    public func write(to w: inout ByteWriter) {
        fullBox.write(to: &w)
        let f = fullBox.flags
        if f & 1 != 0 { w.writeI32(positionX ?? 0) }
        if f & 2 != 0 { w.writeI32(positionY ?? 0) }
        if f & 4 != 0 { w.writeI32(positionZ ?? 0) }
        if f & 8 != 0 {
            let o = orientation ?? [0, 0, 0]
            for v in o.prefix(3) {
                if fullBox.version == 0 && f & 0x10 == 0 {
                    w.writeI16(Int16(truncatingIfNeeded: v))
                } else {
                    w.writeI32(v)
                }
            }
        }
        if f & 0x20 != 0 { w.writeU32(worldCoordinateSystemID ?? 0) }
    }
    /// Position in micrometres (absent components are 0).
    public var position: (x: Int64, y: Int64, z: Int64) {
        (Int64(positionX ?? 0), Int64(positionY ?? 0), Int64(positionZ ?? 0))
    }
    /// Orientation as a unit quaternion (x, y, z, w), or nil when the box has none.
    public var quaternion: (x: Double, y: Double, z: Double, w: Double)? {
        guard let o = orientation, o.count == 3 else { return nil }
        if fullBox.version == 0 {
            let scale = fullBox.flags & 0x10 != 0 ? Double(1 << 30) : Double(1 << 14)
            let x = Double(o[0]) / scale, y = Double(o[1]) / scale, z = Double(o[2]) / scale
            let ww = 1 - x * x - y * y - z * z
            return (x, y, z, ww > 0 ? ww.squareRoot() : 0)
        }
        // Yaw (z), pitch (y), roll (x) in degrees → quaternion.
        let d = Double.pi / 180 / 65536
        let yaw = Double(o[0]) * d / 2, pitch = Double(o[1]) * d / 2, roll = Double(o[2]) * d / 2
        let (cy, sy, cp, sp, cr, sr) = (cos(yaw), sin(yaw), cos(pitch), sin(pitch), cos(roll), sin(roll))
        return (
            sr * cp * cy - cr * sp * sy, cr * sp * cy + sr * cp * sy, cr * cp * sy - sr * sp * cy,
            cr * cp * cy + sr * sp * sy
        )
    }
    /// Rotation angle in degrees (0 when no orientation).
    public var rotationDegrees: Double {
        guard let q = quaternion else { return 0 }
        let w = min(1, abs(q.w))
        return 2 * acos(w) * 180 / Double.pi
    }
    public var summary: String {
        let p = position
        return "v\(fullBox.version) flags=0x\(String(fullBox.flags, radix: 16)) position=(\(p.x), \(p.y), \(p.z)) µm"
            + (orientation == nil ? "" : " rotation=\(fmt(rotationDegrees, 3))°")
    }
    public var json: [(String, JSON)] {
        let p = position
        return [
            ("position_um", .array([.int(p.x), .int(p.y), .int(p.z)])), ("rotation_degrees", .double(rotationDegrees)),
        ]
    }
}

/// Apple's disparity-adjustment property (`uuid` de225085-…): a signed 32-bit value in 1/10000 of the image width.
public struct DisparityAdjustmentProperty: BoxPayload, Equatable {
    public var value: Int32
    public init(value: Int32) { self.value = value }
    public init(parsing r: inout ByteReader, context: inout ParseContext) throws(ParseError) { value = try r.readI32() }
    public func write(to w: inout ByteWriter) { w.writeI32(value) }
    public var summary: String { "disparity_adjustment=\(value) (\(fmt(Double(value) / 100, 2)) % of width)" }
    public var json: [(String, JSON)] { [("value", .int(Int64(value)))] }
}
