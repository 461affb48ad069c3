import BinaryIO
import Codecs
import HEVC
import ImageFormats
import Testing

@Suite struct HEVCCodecTests {
    @Test(arguments: [8, 10])
    func stillRoundTrip(depth: Int) throws {
        let rgb = testImage(width: 96, height: 64, depth: depth == 8 ? 8 : 16)
        let s = HEVCEncoderSettings.stillImage(quality: 80, bitDepth: depth)
        let coded = try #require(try HEVCStillEncoder.encode([rgb], settings: s).first)
        #expect(!coded.isGrid)
        let dec = try HEVCDecoder.decodeItem(hvcC: coded.hvcC, data: coded.tiles[0])
        #expect(dec.width == 96 && dec.height == 64 && dec.bitDepth == depth && dec.format == .yuv420)
        let back = try ColourConversion.toRGB(dec, bitDepth: depth == 8 ? 8 : 16)
        #expect(try ImageOps.psnr(rgb, back) >= 40)
    }

    @Test func gridWithPaddedEdgeTiles() throws {
        // 600×300 → 2×1 tiles of 512×512 (cropped by the grid output size); tiles share one hvcC.
        let rgb = testImage(width: 600, height: 300)
        var s = HEVCEncoderSettings.stillImage(quality: 80)
        s.preset = "ultrafast"
        let c = try #require(try HEVCStillEncoder.encode([rgb], settings: s).first)
        #expect(c.isGrid && c.columns == 2 && c.rows == 1 && c.tileWidth == 512 && c.tileHeight == 300)
        let g = HEVCDecoder.Grid(
            rows: c.rows, columns: c.columns, outputWidth: 600, outputHeight: 300, tiles: c.tiles,
            tileConfigs: Array(repeating: c.hvcC, count: 2))
        let img = try HEVCDecoder.decodeGrid(g, workers: 2)
        #expect(img.width == 600 && img.height == 300)
        #expect(try ImageOps.psnr(rgb, ColourConversion.toRGB(img)) >= 38)
    }

    @Test func onePixelImage() throws {
        let rgb = testImage(width: 1, height: 1)
        let c = try #require(try HEVCStillEncoder.encode([rgb], settings: .stillImage()).first)
        #expect(c.isGrid && c.width == 1 && c.height == 1)
        let g = HEVCDecoder.Grid(
            rows: 1, columns: 1, outputWidth: 1, outputHeight: 1, tiles: c.tiles, tileConfigs: [c.hvcC])
        let img = try HEVCDecoder.decodeGrid(g)
        #expect(img.width == 1 && img.height == 1)
    }

    @Test func videoSequenceFixedGOP() throws {
        var s = HEVCEncoderSettings()
        s.preset = "ultrafast"; s.keyint = 4; s.bframes = 2; s.rateControl = .qp(30); s.threads = 1
        let enc = try HEVCEncoder(width: 64, height: 64, settings: s)
        let headers = try enc.headers()
        #expect(headers.map { ($0[0] >> 1) & 0x3F } == [32, 33, 34])
        var frames: [EncodedFrame] = []
        for i in 0..<8 {
            let yuv = try ColourConversion.toYUV(testImage(width: 64, height: 64, seed: i), format: .yuv420)
            frames += try enc.encode(yuv, pts: Int64(i))
        }
        frames += try enc.flush()
        #expect(frames.count == 8)
        #expect(frames.filter(\.isKeyframe).map(\.pts).sorted() == [0, 4])
        // Annex-B stream decodes back to 8 pictures.
        var stream: [UInt8] = []
        for n in headers + frames.flatMap(\.nalUnits) { stream += [0, 0, 0, 1] + n }
        let pics = try HEVCDecoder.decode(annexB: stream)
        #expect(pics.count == 8)
    }

    /// Pictures smaller than x265's default 64-pixel CTU get a smaller CTU; below 16 pixels the error says why.
    @Test(arguments: [(48, 40), (24, 18), (130, 20)])
    func smallVideoPicturesEncode(width: Int, height: Int) throws {
        var s = HEVCEncoderSettings()
        s.preset = "ultrafast"; s.keyint = 2; s.bframes = 0; s.rateControl = .qp(30); s.threads = 1
        let enc = try HEVCEncoder(width: width, height: height, settings: s)
        var frames: [EncodedFrame] = []
        for i in 0..<3 {
            frames += try enc.encode(
                try ColourConversion.toYUV(testImage(width: width, height: height, seed: i), format: .yuv420),
                pts: Int64(i))
        }
        frames += try enc.flush()
        var stream: [UInt8] = []
        for n in try enc.headers() + frames.flatMap(\.nalUnits) { stream += [0, 0, 0, 1] + n }
        let pics = try HEVCDecoder.decode(annexB: stream)
        #expect(pics.count == 3 && pics.allSatisfy { $0.width == width && $0.height == height })
    }

    @Test func tinyVideoPicturesAreRefusedWithAReason() {
        do {
            _ = try HEVCEncoder(width: 8, height: 64, settings: HEVCEncoderSettings())
            Issue.record("an 8-pixel-wide picture was accepted")
        } catch {
            #expect(error.message.contains("at least 16×16"))
        }
    }

    @Test func corruptStreamsDoNotCrash() throws {
        let c = try #require(
            try HEVCStillEncoder.encode([testImage(width: 32, height: 32)], settings: .stillImage()).first)
        var bad = c.tiles[0]
        for i in stride(from: 8, to: bad.count, by: 7) { bad[i] ^= 0x5A }
        _ = try? HEVCDecoder.decodeItem(hvcC: c.hvcC, data: bad)
        #expect(throws: ParseError.self) { try HEVCDecoder.decodeItem(hvcC: [1, 2, 3], data: c.tiles[0]) }
        var trunc = c.tiles[0]; trunc[0] = 0x7F
        #expect(throws: ParseError.self) { try HEVCDecoder.decodeItem(hvcC: c.hvcC, data: trunc) }
    }
}
