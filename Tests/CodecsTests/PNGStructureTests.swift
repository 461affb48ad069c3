import BinaryIO
import Codecs
import ImageFormats
import Testing

/// The Swift PNG chunk reader that runs before libpng: structure, CRCs, IHDR rules, offsets in errors.
@Suite struct PNGStructureTests {
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let t = Array(type.utf8)
        let n = UInt32(data.count), c = CRC32.checksum(t + data)
        return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + t + data
            + [UInt8(c >> 24), UInt8(c >> 16 & 0xFF), UInt8(c >> 8 & 0xFF), UInt8(c & 0xFF)]
    }

    /// The chunks of a real libpng-written file, split at chunk boundaries.
    func chunks(of png: [UInt8]) -> [[UInt8]] {
        var out: [[UInt8]] = [], p = 8
        while p + 12 <= png.count {
            let n = Int(png[p]) << 24 | Int(png[p + 1]) << 16 | Int(png[p + 2]) << 8 | Int(png[p + 3])
            out.append(Array(png[p..<(p + 12 + n)])); p += 12 + n
        }
        return out
    }

    func ihdr(_ w: UInt32, _ h: UInt32, depth: UInt8 = 8, colour: UInt8 = 2, interlace: UInt8 = 0) -> [UInt8] {
        chunk(
            "IHDR",
            [
                UInt8(w >> 24), UInt8(w >> 16 & 0xFF), UInt8(w >> 8 & 0xFF), UInt8(w & 0xFF),
                UInt8(h >> 24), UInt8(h >> 16 & 0xFF), UInt8(h >> 8 & 0xFF), UInt8(h & 0xFF), depth, colour, 0, 0,
                interlace,
            ])
    }

    @Test func crcKnownVector() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func readsWhatLibpngWrites() throws {
        let png = try PNG.encode(testImage(width: 21, height: 9))
        let s = try PNGStructure(png)
        #expect(s.width == 21 && s.height == 9 && s.bitDepth == 8 && s.colourType == 2 && !s.interlaced)
        #expect(s.chunks.first?.type == "IHDR" && s.chunks.last?.type == "IEND")
        #expect(s.chunks.allSatisfy(\.crcValid) && s.imageDataBytes > 0 && s.warnings.isEmpty)
        let deep = try PNGStructure(PNG.encode(testImage(width: 4, height: 4, depth: 16)))
        #expect(deep.bitDepth == 16 && deep.channels == 3)
    }

    @Test func ancillaryChunksAndExif() throws {
        let parts = chunks(of: try PNG.encode(testImage(width: 8, height: 8)))
        let exif = tiffWithOrientation(6)
        var bad = chunk("tEXt", Array("Comment\0x".utf8)); bad[bad.count - 1] ^= 0xFF
        let png =
            PNGStructure.signature + parts[0] + chunk("cICP", [1, 13, 0, 1]) + chunk("eXIf", exif) + bad
            + parts[1...].joined()
        let s = try PNGStructure(png)
        #expect(s.exif == exif)
        #expect(s.cicp?.primaries == 1 && s.cicp?.transfer == 13 && s.cicp?.fullRange == true)
        #expect(s.warnings.contains { $0.contains("tEXt") && $0.contains("CRC") })
        // libpng accepts the same file (ancillary CRC errors are not fatal there either).
        let img = try PNG.decode(png)
        #expect(img.width == 8)
    }

    @Test func errorsNameTheChunkAndOffset() throws {
        let parts = chunks(of: try PNG.encode(testImage(width: 8, height: 8)))
        let rest = Array(parts[1...].joined())
        // A critical chunk with a wrong CRC.
        var broken = parts[0]; broken[broken.count - 1] ^= 1
        #expect { try PNGStructure(PNGStructure.signature + broken + rest) } throws: { e in
            let e = e as? ParseError
            return e?.code == .invalidValue && e?.path == "PNG/IHDR" && e?.offset == 8 + 21
        }
        // Bit depth 16 is not allowed with a palette.
        #expect { try PNGStructure(PNGStructure.signature + ihdr(8, 8, depth: 16, colour: 3) + rest) } throws: { e in
            (e as? ParseError)?.code == .invalidValue && (e as? ParseError)?.offset == 8 + 8 + 8
        }
        // Dimensions over the limit are refused before libpng allocates anything.
        for bytes in [
            PNGStructure.signature + ihdr(100_000, 8) + rest, PNGStructure.signature + ihdr(8, 1 << 30) + rest,
        ] {
            #expect { try PNG.decode(bytes) } throws: { ($0 as? ParseError)?.code == .limitExceeded }
        }
        #expect { try PNGStructure(PNGStructure.signature + ihdr(0, 8) + rest) } throws: {
            ($0 as? ParseError)?.code == .invalidValue
        }
        // A chunk running past the end of the file.
        let cut = Array((PNGStructure.signature + parts.joined()).dropLast(20))
        #expect { try PNGStructure(cut) } throws: { e in
            (e as? ParseError)?.code == .truncated && ((e as? ParseError)?.path ?? "").hasPrefix("PNG/")
        }
        // IHDR must come first; IDATs must be consecutive; no image data at all.
        #expect(throws: ParseError.self) {
            try PNGStructure(PNGStructure.signature + chunk("gAMA", [0, 0, 0xB1, 0x8F]) + parts.joined())
        }
        let idats = parts.filter { $0[4..<8].elementsEqual("IDAT".utf8) }
        if let idat = idats.first {
            let twice =
                PNGStructure.signature + parts[0] + idat + chunk("tEXt", Array("a\0b".utf8)) + idat + chunk("IEND", [])
            #expect(throws: ParseError.self) { try PNGStructure(twice) }
        }
        #expect { try PNGStructure(PNGStructure.signature + parts[0] + chunk("IEND", [])) } throws: {
            ($0 as? ParseError)?.code == .truncated
        }
        #expect { try PNGStructure([0x89, 0x50, 0x4E, 0x47]) } throws: { ($0 as? ParseError)?.code == .notRecognised }
        // A palette image without PLTE.
        #expect(throws: ParseError.self) {
            try PNGStructure(PNGStructure.signature + ihdr(8, 8, depth: 8, colour: 3) + rest)
        }
    }

    @Test func trailingBytesAreAWarning() throws {
        let png = try PNG.encode(testImage(width: 8, height: 8)) + [1, 2, 3]
        let s = try PNGStructure(png)
        #expect(s.warnings.contains { $0.contains("after IEND") })
        #expect(try PNG.decode(png).width == 8)
    }
}
