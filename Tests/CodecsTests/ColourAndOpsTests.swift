import BinaryIO
import Codecs
import ImageFormats
import Testing

@Suite struct ColourAndOpsTests {
    @Test(arguments: [ColourSpace.Matrix.bt601, .bt709], [true, false])
    func rgbYuvRoundTrip(matrix: ColourSpace.Matrix, full: Bool) throws {
        let rgb = testImage(width: 64, height: 48)
        let cs = ColourSpace(matrix: matrix, fullRange: full)
        let yuv = try ColourConversion.toYUV(rgb, format: .yuv444, bitDepth: 8, colour: cs)
        let back = try ColourConversion.toRGB(yuv, bitDepth: 8)
        #expect(try ImageOps.psnr(rgb, back) > 40)
        let yuv420 = try ColourConversion.toYUV(rgb, format: .yuv420, bitDepth: 10, colour: cs)
        #expect(yuv420.planeWidth(1) == 32 && yuv420.planeHeight(1) == 24)
        #expect(try ImageOps.psnr(rgb, ColourConversion.toRGB(yuv420, bitDepth: 8)) > 35)
    }

    @Test func geometry() throws {
        let img = testImage(width: 5, height: 3)
        let r = try ImageOps.rotate(img, quarterTurns: 1)
        #expect(r.width == 3 && r.height == 5)
        // Anticlockwise: the top-right pixel becomes the top-left.
        #expect(r.sample(0, 0, 0, channel: 0) == img.sample(0, 4, 0, channel: 0))
        #expect(try ImageOps.rotate(ImageOps.rotate(r, quarterTurns: 1), quarterTurns: 2) == img)
        let m = try ImageOps.mirror(img, horizontal: true)
        #expect(m.sample(0, 0, 0, channel: 1) == img.sample(0, 4, 0, channel: 1))
        let c = try ImageOps.crop(img, x: 1, y: 1, width: 3, height: 2)
        #expect(c.sample(0, 0, 0, channel: 2) == img.sample(0, 1, 1, channel: 2))
        #expect(throws: ParseError.self) { try ImageOps.crop(img, x: 4, y: 0, width: 3, height: 1) }
        let j = try ImageOps.join(img, img)
        #expect(j.width == 10 && j.height == 3)
    }

    @Test func dimensionLimits() {
        #expect(throws: ParseError.self) { try Image.checkDimensions(width: 50_000, height: 10) }
        #expect(throws: ParseError.self) { try Image.checkDimensions(width: 0, height: 10) }
        #expect(throws: ParseError.self) { try Image.blank(width: 50_000, height: 2, format: .rgb) }
    }
}
