import BinaryIO
import ImageFormats
import Testing

@testable import Codecs
@testable import ImageFormats

/// The fused 8-bit YUV → RGB path must give exactly the generic path's bytes.
@Suite struct ColourFastPathTests {
    @Test(arguments: [PixelFormat.yuv420, .yuv422, .yuv444])
    func fused8BitPathEqualsTheGenericPath(format: PixelFormat) throws {
        var seed: UInt64 = 0x5EED
        func next() -> UInt8 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: seed >> 56)
        }
        for (w, h) in [(1, 1), (2, 2), (3, 5), (17, 9), (64, 33), (301, 257)] {
            for matrix in [ColourSpace.Matrix.bt601, .bt709, .bt2020] {
                for full in [false, true] {
                    let blank = try Image.blank(width: w, height: h, format: format)
                    let planes: [[UInt8]] = (0..<3).map { p in
                        (0..<(blank.planeWidth(p) * blank.planeHeight(p))).map { _ in next() }
                    }
                    let img = try Image(
                        width: w, height: h, bitDepth: 8, format: format, planes: .u8(planes),
                        colour: ColourSpace(matrix: matrix, fullRange: full))
                    let fast = try ColourConversion.toRGB(img, bitDepth: 8)
                    let generic = try ColourConversion.yuvToRGB(img, bitDepth: 8)
                    #expect(fast.planes == generic.planes, "\(format) \(w)×\(h) \(matrix) full=\(full)")
                }
            }
        }
    }
}
