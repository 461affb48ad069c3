import SystemSupport
import Testing

@testable import BinaryIO

@Suite("Byte reader and writer")
struct ByteReaderTests {
    @Test func readsBigEndianAndStaysInWindow() throws {
        var r = ByteReader([0, 0, 0, 42, 0xFF, 0xFE, 1, 2, 3], baseOffset: 100)
        #expect(try r.readU32() == 42)
        #expect(try r.readI16() == -2)
        var child = try r.slice(2)
        #expect(child.absoluteOffset == 106)
        #expect(try child.readU16() == 0x0102)
        // The child cannot read its parent's remaining byte.
        #expect(throws: ParseError(.truncated, offset: 0, "")) { try child.readU8() }
        #expect(try r.readU8() == 3)
        do { _ = try r.readU32(); Issue.record("should throw") } catch {
            #expect(error.code == .truncated)
            #expect(error.offset == 109)
        }
    }

    @Test func failedReadDoesNotMove() throws {
        var r = ByteReader([1, 2, 3])
        _ = try? r.readU32()
        #expect(r.position == 0)
        #expect(try r.readU24() == 0x010203)
    }

    @Test func readBytesChecksCountBeforeAllocating() {
        var r = ByteReader([1, 2, 3])
        #expect(throws: ParseError(.truncated, offset: 0, "")) { try r.readBytes(Int.max) }
        #expect(throws: ParseError(.truncated, offset: 0, "")) { try r.readBytes(-1) }
    }

    @Test func writerPatchesSizes() {
        var w = ByteWriter()
        let p = w.reserveU32()
        w.writeFourCC("test")
        w.writeU64(7)
        w.patchU32(at: p, UInt32(w.count))
        #expect(w.bytes == [0, 0, 0, 16, 0x74, 0x65, 0x73, 0x74, 0, 0, 0, 0, 0, 0, 0, 7])
        var r = ByteReader(w.bytes)
        #expect(try! r.readU32() == 16)
    }

    @Test func variableWidthIntegersRoundTrip() throws {
        for width in 0...8 {
            var w = ByteWriter()
            let v: UInt64 = width == 0 ? 0 : (width == 8 ? UInt64.max - 5 : (UInt64(1) << UInt64(width * 8)) - 3)
            w.writeUInt(v, byteCount: width)
            var r = ByteReader(w.bytes)
            #expect(try r.readUInt(byteCount: width) == v)
        }
    }

    @Test func fourCCKeepsNonASCIIBytes() {
        let c = FourCC(0xA96E_616D)  // ©nam
        #expect(c.bytes == [0xA9, 0x6E, 0x61, 0x6D])
        #expect(FourCC("moov").rawValue == 0x6D6F_6F76)
        #expect(FourCC("moov").description == "moov")
    }

    @Test func checkedArithmeticReportsOverflow() {
        #expect(throws: ParseError(.arithmeticOverflow, offset: 0, "")) { try Checked.add(UInt64.max, 1) }
        #expect(throws: ParseError(.arithmeticOverflow, offset: 0, "")) { try Checked.mul(Int.max, 2) }
        #expect(throws: ParseError(.arithmeticOverflow, offset: 0, "")) { try Checked.int(UInt64.max) }
    }

    @Test func limitsNameTheField() {
        do { try Limits.check(11, 10, "maxItems", offset: 5); Issue.record("should throw") } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("maxItems"))
        }
    }

    @Test func jsonEscapesAndKeepsOrder() {
        let j = JSON.object([
            ("b", .int(-1)), ("a", .string("x\"\n")), ("c", .array([.bool(true), .null, .double(1.5)])),
        ])
        #expect(j.serialized() == #"{"b":-1,"a":"x\"\n","c":[true,null,1.5]}"#)
    }
}

@Suite("Bit reader and writer")
struct BitIOTests {
    @Test func expGolombRoundTrip() throws {
        var w = BitWriter()
        let values: [UInt32] = [0, 1, 2, 3, 7, 8, 255, 65535, 1 << 20, UInt32.max - 1]
        for v in values { w.writeUE(v) }
        let signed: [Int32] = [0, 1, -1, 2, -2, 1000, -1000, Int32.max, Int32.min + 1]
        for v in signed { w.writeSE(v) }
        w.writeBits(0x5, 3)
        w.writeRBSPTrailingBits()
        var r = BitReader(w.bytes)
        for v in values { #expect(try r.readUE() == v) }
        for v in signed { #expect(try r.readSE() == v) }
        #expect(try r.readBits(3) == 5)
        #expect(!r.moreRBSPData())
    }

    @Test func expGolombWithTooManyLeadingZerosIsAnError() {
        var r = BitReader([0, 0, 0, 0, 0x80])  // 32 leading zeros
        #expect(throws: ParseError(.expGolombOverflow, offset: 0, "")) { try r.readUE() }
        var t = BitReader([0, 0])
        #expect(throws: ParseError(.truncated, offset: 0, "")) { try t.readUE() }
    }

    @Test func readBitsAcrossBytesAnd64() throws {
        var r = BitReader([0xFF, 0x00, 0xAA, 0x55, 1, 2, 3, 4, 5, 6])
        #expect(try r.readBits(4) == 0xF)
        #expect(try r.readBits(8) == 0xF0)
        #expect(try r.readBits(64) == 0x0AA5_5010_2030_4050)
        #expect(r.bitsLeft == 4)
        #expect(throws: ParseError(.truncated, offset: 0, "")) { try r.readBits(5) }
    }

    @Test func appendBitsCopiesArbitraryRanges() {
        let src: [UInt8] = [0b1011_0011, 0b0101_1100, 0xFF]
        for start in 0..<8 {
            for count in 0..<(24 - start) {
                var w = BitWriter()
                w.writeBits(1, 1)
                w.appendBits(from: src, start: start, count: count)
                var r = BitReader(w.bytes)
                var s = BitReader(src)
                _ = try? r.readBits(1)
                try? s.skipBits(start)
                for _ in 0..<count { #expect((try? r.readFlag()) == (try? s.readFlag())) }
            }
        }
    }

    /// Long unaligned copies (the 32-bit gather path) and copies running past the source match a
    /// bit-by-bit reference, including how many bits were written.
    @Test func appendBitsMatchesBitByBitReference() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let src = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let lead = Int.random(in: 0...7, using: &rng)
            let start = Int.random(in: 0...(src.count * 8 + 4), using: &rng)
            let count = Int.random(in: 0...(src.count * 8 + 16), using: &rng)
            var fast = BitWriter(), slow = BitWriter()
            fast.writeBits(0x55, lead); slow.writeBits(0x55, lead)
            fast.appendBits(from: src, start: start, count: count)
            var pos = start
            while pos < start + count, pos >> 3 < src.count {
                slow.writeBits(UInt64(src[pos >> 3] >> (7 - UInt8(pos & 7)) & 1), 1)
                pos += 1
            }
            #expect(fast.bytes == slow.bytes && fast.bitCount == slow.bitCount)
        }
    }
}
