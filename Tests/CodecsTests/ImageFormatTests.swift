import BinaryIO
import Codecs
import ImageFormats
import Testing

@Suite struct ImageFormatTests {
    @Test func jpegRoundTripAndOrientation() throws {
        let rgb = testImage(width: 40, height: 20)
        let plain = try JPEG.decode(JPEG.encode(rgb, quality: 95))
        #expect(plain.image.width == 40 && plain.appliedOrientation == 1)
        #expect(try ImageOps.psnr(rgb, plain.image) > 35)
        let rotated = try JPEG.decode(JPEG.encode(rgb, quality: 95, exif: tiffWithOrientation(6)))
        #expect(rotated.image.width == 20 && rotated.image.height == 40 && rotated.appliedOrientation == 6)
        #expect(rotated.exifInfo.orientation == 6)
    }

    @Test func cmykJPEG() throws {
        let w = 16, h = 8
        var s: [UInt8] = []
        for _ in 0..<(w * h) { s += [255, 0, 255, 255] }  // inverted CMYK: C=0,M=1,Y=0,K=0 → magenta
        let d = try JPEG.decode(JPEG.encodeCMYK(s, width: w, height: h))
        #expect(d.image.format == .rgb)
        #expect(d.notes.contains { $0.contains("CMYK") })
        #expect(d.image.sample(0, 4, 4, channel: 0) > 200 && d.image.sample(0, 4, 4, channel: 1) < 60)
    }

    @Test func jpegBadInput() throws {
        #expect(throws: ParseError.self) { try JPEG.decode([0xFF, 0xD8, 0xFF, 0xE0, 0, 2, 0xFF]) }
        #expect(throws: ParseError.self) { try JPEG.decode([1, 2, 3]) }
        var j = try JPEG.encode(testImage(width: 16, height: 16))
        // Patch the SOF0 width to 50 000.
        if let p = (0..<(j.count - 9)).first(where: { j[$0] == 0xFF && j[$0 + 1] == 0xC0 }) {
            j[p + 7] = UInt8(50_000 >> 8); j[p + 8] = UInt8(50_000 & 0xFF)
        }
        #expect { try JPEG.decode(j) } throws: { ($0 as? ParseError)?.code == .limitExceeded }
        // Truncated scan: either a warning-decoded image or an error, never a crash.
        let cut = Array(try JPEG.encode(testImage(width: 64, height: 64)).prefix(400))
        _ = try? JPEG.decode(cut)
    }

    @Test(arguments: [8, 16])
    func pngRoundTrip(depth: Int) throws {
        let rgb = testImage(width: 33, height: 17, depth: depth)
        let back = try PNG.decode(PNG.encode(rgb))
        #expect(back.bitDepth == depth && back.format == .rgb)
        if depth == 8 { #expect(back == rgb) } else { #expect(try ImageOps.psnr(rgb, back) > 60) }
    }

    @Test func pngBadInput() throws {
        #expect(throws: ParseError.self) { try PNG.decode([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]) }
        var p = try PNG.encode(testImage(width: 16, height: 16))
        p.removeLast(30)
        #expect(throws: ParseError.self) { try PNG.decode(p) }
    }

    @Test(arguments: [(PixelFormat.yuv420, 8), (.yuv422, 10), (.yuv444, 8)])
    func y4mRoundTrip(format: PixelFormat, depth: Int) throws {
        let frames = try (0..<3).map { (i) throws(ParseError) -> Image in
            try ColourConversion.toYUV(testImage(width: 30, height: 18, seed: i), format: format, bitDepth: depth)
        }
        let path = "/tmp/codecs-test-\(format.rawValue)-\(depth)-\(UInt32.random(in: 0...UInt32.max)).y4m"
        try Y4M.write(frames, fpsNum: 25, to: path)
        let r = try Y4M.Reader(path: path)
        #expect(
            r.header.width == 30 && r.header.format == format && r.header.bitDepth == depth && r.header.fpsNum == 25)
        var got: [Image] = []
        while let f = try r.next() { got.append(f) }
        #expect(got.map(\.planes) == frames.map(\.planes))
        #expect(throws: ParseError.self) { try Y4M.parseHeader(Array("YUV4MPEG2 W50000 H2 C420".utf8)) }
        #expect(throws: ParseError.self) { try Y4M.parseHeader(Array("NOTY4M W5 H2".utf8)) }
    }

    @Test func mpoIndexAndAttributes() throws {
        let a = try JPEG.encode(testImage(width: 16, height: 16))
        let b = try JPEG.encode(testImage(width: 16, height: 16, seed: 3))
        let mpo = makeMPO(a, b, baselineMetres: (77, 1000), convergence: (-15, 10))
        let m = try MPO(mpo)
        #expect(m.fromIndex && m.pictures.count == 2)
        #expect(m.pictures[1].attributes.baselineMM == 77)
        #expect(m.pictures[1].attributes.convergenceAngleDegrees == -1.5)
        #expect(m.pictures[1].attributes.individualNumber == 2)
        #expect(try JPEG.decode(m.jpeg(1, in: mpo)).image.width == 16)
        // A single JPEG is one picture.
        #expect(try MPO(a).pictures.count == 1)
        // Garbage MP entries are ignored, not trusted.
        var broken = mpo
        if let p = (0..<(broken.count - 4)).first(where: { broken[$0] == 0x02 && broken[$0 + 1] == 0xB0 }) {
            broken[p + 8] = 0xFF
        }
        _ = try MPO(broken)
    }
}

/// Builds an MPO: APP2 MPF (index IFD) in the first JPEG, an attribute IFD in the second.
func makeMPO(_ a: [UInt8], _ b: [UInt8], baselineMetres: (UInt32, UInt32), convergence: (Int32, Int32)) -> [UInt8] {
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
    func le32(_ v: UInt32) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)]
    }
    func app2(_ tiff: [UInt8]) -> [UInt8] {
        [0xFF, 0xE2] + [UInt8((tiff.count + 6) >> 8), UInt8((tiff.count + 6) & 0xFF)] + Array("MPF".utf8) + [0] + tiff
    }
    // Second image attribute IFD: MPIndividualNum 2, ConvergenceAngle, BaselineLength.
    var t2: [UInt8] = [0x49, 0x49, 42, 0] + le32(8) + le16(3)
    let dataOff = 8 + 2 + 3 * 12 + 4
    t2 += le16(0xB101) + le16(4) + le32(1) + le32(2)
    t2 += le16(0xB205) + le16(10) + le32(1) + le32(UInt32(dataOff))
    t2 += le16(0xB206) + le16(5) + le32(1) + le32(UInt32(dataOff + 8))
    t2 += le32(0)
    t2 +=
        le32(UInt32(bitPattern: convergence.0)) + le32(UInt32(bitPattern: convergence.1)) + le32(baselineMetres.0)
        + le32(baselineMetres.1)
    let b2 = [0xFF, 0xD8] + app2(t2) + Array(b.dropFirst(2))
    // First image: index IFD with NumberOfImages and 2 MP entries (offsets relative to its TIFF header).
    var t1: [UInt8] = [0x49, 0x49, 42, 0] + le32(8) + le16(2)
    let entriesOff = 8 + 2 + 2 * 12 + 4
    t1 += le16(0xB001) + le16(4) + le32(1) + le32(2)
    t1 += le16(0xB002) + le16(7) + le32(32) + le32(UInt32(entriesOff))
    t1 += le32(0)
    let seg1 = app2(t1 + [UInt8](repeating: 0, count: 32))
    let firstLen = 2 + seg1.count + (a.count - 2)
    let tiffStart = 2 + 8
    var entries: [UInt8] = []
    entries += le32(0x020002) + le32(UInt32(firstLen)) + le32(0) + le16(0) + le16(0)
    entries += le32(0x020002) + le32(UInt32(b2.count)) + le32(UInt32(firstLen - tiffStart)) + le16(0) + le16(0)
    let seg1Final = app2(t1 + entries)
    return [0xFF, 0xD8] + seg1Final + Array(a.dropFirst(2)) + b2
}
