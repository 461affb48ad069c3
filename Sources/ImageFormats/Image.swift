import BinaryIO

/// How the samples of an ``Image`` are laid out.
public enum PixelFormat: String, Sendable, Equatable, CaseIterable {
    /// Three planes Y, Cb, Cr; chroma planes are half width and half height (rounded up).
    case yuv420
    /// Three planes; chroma planes are half width (rounded up), full height.
    case yuv422
    /// Three full-size planes.
    case yuv444
    /// One plane of luma / grey samples.
    case gray
    /// One plane of interleaved R, G, B samples (3 per pixel).
    case rgb
    /// One plane of interleaved R, G, B, A samples (4 per pixel, straight alpha).
    case rgba

    public var isYUV: Bool { self == .yuv420 || self == .yuv422 || self == .yuv444 }
    /// Samples per pixel in plane 0.
    public var interleavedChannels: Int { self == .rgb ? 3 : (self == .rgba ? 4 : 1) }
    public var planeCount: Int { isYUV ? 3 : 1 }
    /// Chroma subsampling shifts (x, y).
    public var chromaShift: (x: Int, y: Int) {
        switch self {
        case .yuv420: return (1, 1)
        case .yuv422: return (1, 0)
        default: return (0, 0)
        }
    }
}

/// Colour interpretation of YUV samples (ITU-T H.273 matrix + range).
public struct ColourSpace: Sendable, Equatable {
    public enum Matrix: String, Sendable, Equatable { case bt601, bt709, bt2020 }
    public var matrix: Matrix
    /// True when luma spans 0…max (JPEG-style), false for "video" range 16…235 (8-bit).
    public var fullRange: Bool
    public init(matrix: Matrix, fullRange: Bool) { self.matrix = matrix; self.fullRange = fullRange }
    /// JPEG/JFIF: BT.601 full range.
    public static let jpeg = ColourSpace(matrix: .bt601, fullRange: true)
    /// Typical HD video: BT.709 limited range.
    public static let video709 = ColourSpace(matrix: .bt709, fullRange: false)

    /// Maps H.273 matrix_coefficients (1 = 709, 5/6 = 601, 9 = 2020 NCL); unknown values fall back to 601.
    public init(matrixCoefficients: Int, fullRange: Bool) {
        switch matrixCoefficients {
        case 1: matrix = .bt709
        case 9, 10: matrix = .bt2020
        default: matrix = .bt601
        }
        self.fullRange = fullRange
    }
    /// H.273 matrix_coefficients code for this matrix.
    public var matrixCoefficients: Int {
        switch matrix {
        case .bt601: 6;
        case .bt709: 1;
        case .bt2020: 9
        }
    }
}

/// The samples of an image.
///
/// `u8` is used for bit depth 8, `u16` for 9…16 (values in the low bits, not scaled up).
/// Planes are tightly packed: row stride = plane width × channels.
public enum Planes: Sendable, Equatable {
    case u8([[UInt8]])
    case u16([[UInt16]])
}

/// A decoded picture: planar YUV, grey, or interleaved RGB/RGBA, 8 to 16 bits per sample.
public struct Image: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var bitDepth: Int
    public var format: PixelFormat
    public var planes: Planes
    /// How YUV samples map to RGB; also used when this image is converted to YUV.
    public var colour: ColourSpace

    /// Builds an image from planes and checks that their sizes match the geometry.
    public init(
        width: Int, height: Int, bitDepth: Int, format: PixelFormat, planes: Planes, colour: ColourSpace = .jpeg
    ) throws(ParseError) {
        self.width = width; self.height = height; self.bitDepth = bitDepth; self.format = format
        self.planes = planes; self.colour = colour
        guard width > 0, height > 0, (8...16).contains(bitDepth) else {
            throw ParseError(.invalidValue, "image geometry \(width)×\(height) at \(bitDepth) bits is not valid")
        }
        let expected = (0..<format.planeCount).map {
            Image.planeSampleCount(width: width, height: height, format: format, plane: $0)
        }
        let actual: [Int]
        switch planes {
        case .u8(let p):
            actual = p.map(\.count);
            guard bitDepth == 8 else { throw ParseError(.invalidValue, "8-bit planes for a \(bitDepth)-bit image") }
        case .u16(let p):
            actual = p.map(\.count);
            guard bitDepth > 8 else { throw ParseError(.invalidValue, "16-bit planes for an 8-bit image") }
        }
        guard actual == expected else {
            throw ParseError(
                .invalidValue, "plane sizes \(actual) do not match \(width)×\(height) \(format.rawValue) (\(expected))")
        }
    }

    /// A zero-filled image (mid-grey chroma for YUV). Dimensions are checked against `limits`.
    public static func blank(
        width: Int, height: Int, bitDepth: Int = 8, format: PixelFormat, colour: ColourSpace = .jpeg,
        limits: Limits = .default
    ) throws(ParseError) -> Image {
        try checkDimensions(width: width, height: height, limits: limits)
        let counts = (0..<format.planeCount).map {
            planeSampleCount(width: width, height: height, format: format, plane: $0)
        }
        let mid = 1 << (bitDepth - 1)
        let planes: Planes
        if bitDepth == 8 {
            planes = .u8(
                counts.enumerated().map { [UInt8](repeating: $0.offset > 0 ? UInt8(mid) : 0, count: $0.element) })
        } else {
            planes = .u16(
                counts.enumerated().map { [UInt16](repeating: $0.offset > 0 ? UInt16(mid) : 0, count: $0.element) })
        }
        return try Image(
            width: width, height: height, bitDepth: bitDepth, format: format, planes: planes, colour: colour)
    }

    /// Throws ``/BinaryIO/ParseError/Code/limitExceeded`` when a side exceeds `limits.maxImageDimension` or the
    /// pixel count would not fit memory sensibly (more than 2^28 pixels), and `invalidValue` for sides < 1.
    public static func checkDimensions(width: Int, height: Int, limits: Limits = .default) throws(ParseError) {
        guard width > 0, height > 0 else {
            throw ParseError(.invalidValue, "image size \(width)×\(height) is empty")
        }
        try Limits.check(width, limits.maxImageDimension, "maxImageDimension (width)")
        try Limits.check(height, limits.maxImageDimension, "maxImageDimension (height)")
        let (px, o) = width.multipliedReportingOverflow(by: height)
        guard !o, px <= 1 << 28 else {
            throw ParseError(.limitExceeded, "image of \(width)×\(height) pixels exceeds 2^28 pixels")
        }
    }

    /// Width of plane `plane` in samples (for interleaved formats: pixels × channels).
    public static func planeWidth(width: Int, format: PixelFormat, plane: Int) -> Int {
        if plane == 0 { return width * format.interleavedChannels }
        return (width + (1 << format.chromaShift.x) - 1) >> format.chromaShift.x
    }
    public static func planeHeight(height: Int, format: PixelFormat, plane: Int) -> Int {
        if plane == 0 { return height }
        return (height + (1 << format.chromaShift.y) - 1) >> format.chromaShift.y
    }
    static func planeSampleCount(width: Int, height: Int, format: PixelFormat, plane: Int) -> Int {
        planeWidth(width: width, format: format, plane: plane)
            * planeHeight(height: height, format: format, plane: plane)
    }
    public func planeWidth(_ p: Int) -> Int { Image.planeWidth(width: width, format: format, plane: p) }
    public func planeHeight(_ p: Int) -> Int { Image.planeHeight(height: height, format: format, plane: p) }

    /// Largest sample value at this bit depth.
    public var maxValue: Int { (1 << bitDepth) - 1 }

    /// Sample at (x, y) of plane `p` (channel `c` for interleaved formats), as Int. Bounds are the caller's job.
    @inlinable public func sample(_ p: Int, _ x: Int, _ y: Int, channel c: Int = 0) -> Int {
        let stride = Image.planeWidth(width: width, format: format, plane: p)
        let i = y * stride + x * (p == 0 ? format.interleavedChannels : 1) + c
        switch planes {
        case .u8(let pl): return Int(pl[p][i])
        case .u16(let pl): return Int(pl[p][i])
        }
    }
}

/// Errors raised by the codec wrappers: a ParseError with code `unsupported`, `invalidValue` …
/// and the library's own message.
package enum CodecError {
    package static func lib(_ library: String, _ what: String, offset: UInt64 = 0) -> ParseError {
        ParseError(.invalidValue, offset: offset, "\(library): \(what)")
    }
}
