import BinaryIO
import Foundation
import Testing

@testable import HEVC

@Suite struct NALFramingTests {
    @Test func annexBThreeAndFourByteStartCodes() throws {
        let stream: [UInt8] = [
            0, 0, 0, 1, 0x40, 0x01, 0xAA, 0, 0, 1, 0x42, 0x01, 0xBB, 0x00, 0x00, 0, 0, 0, 1, 0x44, 0x01, 0xCC,
        ]
        let nals = try AnnexB.split(stream)
        #expect(nals.map { $0.bytes } == [[0x40, 0x01, 0xAA], [0x42, 0x01, 0xBB], [0x44, 0x01, 0xCC]])
        #expect(nals.map { $0.type } == [.vps, .sps, .pps])
        #expect(nals[1].offset == 10)
        #expect(AnnexB.join(nals) != [])
        #expect(try AnnexB.split(AnnexB.join(nals)).map { $0.bytes } == nals.map { $0.bytes })
    }

    @Test func missingStartCodeIsAnErrorWithPosition() {
        #expect(throws: ParseError(.notRecognised, offset: 0, "")) { try AnnexB.split([0x40, 0x01, 0x02, 0x03]) }
        do {
            _ = try AnnexB.split([0, 0x40, 0x01, 0, 0, 1, 0x40, 0x01])
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .notRecognised && error.offset == 1)
        }
        #expect(throws: ParseError(.truncated, offset: 0, "")) {
            try AnnexB.split([0, 0, 1, 0x40, 0, 0, 1, 0x40, 0x01])
        }
    }

    @Test func header() throws {
        let h = NALHeader(0x40, 0x09)  // type 32, layer 1, tid+1 1
        #expect(h.type == .vps && h.layerId == 1 && h.temporalIdPlus1 == 1)
        #expect(NALHeader(h.bytes[0], h.bytes[1]) == h)
        let forbidden = NALHeader(0xC0, 0x01)
        #expect(forbidden.forbiddenZeroBit)
        #expect(throws: ParseError(.truncated, offset: 0, "")) { try NALUnit(bytes: [0x40]) }
    }

    @Test func lengthPrefixedSplitting() throws {
        let sample: [UInt8] = [0, 0, 0, 3, 0x26, 0x01, 0xAF, 0, 0, 0, 2, 0x02, 0x01]
        let nals = try LengthPrefixed.split(sample, lengthSize: 4, baseOffset: 100)
        #expect(nals.count == 2 && nals[0].offset == 104 && nals[1].bytes == [0x02, 0x01])
        #expect(try LengthPrefixed.join(nals, lengthSize: 4) == sample)
        let two: [UInt8] = [0, 2, 0x40, 0x01]
        #expect(try LengthPrefixed.split(two, lengthSize: 2).count == 1)
        #expect(try LengthPrefixed.split([2, 0x40, 0x01], lengthSize: 1).count == 1)
        do {
            _ = try LengthPrefixed.split([0, 0, 0, 9, 0x26, 0x01], lengthSize: 4, baseOffset: 50)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .truncated && error.offset == 50)
        }
        #expect(throws: ParseError(.invalidValue, offset: 0, "")) { try LengthPrefixed.split(sample, lengthSize: 3) }
    }

    @Test func emulationPreventionProperties() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let n = Int.random(in: 0...40, using: &rng)
            // Zero-heavy random buffers exercise the interesting cases.
            let x: [UInt8] = (0..<n).map { _ in [0, 0, 0, 1, 2, 3, 4, 0xFF].randomElement(using: &rng) ?? 0 }
            let escaped = EmulationPrevention.insert(x)
            #expect(EmulationPrevention.remove(escaped) == x)
            #expect(EmulationPrevention.insert(EmulationPrevention.remove(escaped)) == escaped)
            // No start code emulation survives insertion.
            for i in 0..<max(0, escaped.count - 2) {
                #expect(!(escaped[i] == 0 && escaped[i + 1] == 0 && escaped[i + 2] <= 2))
            }
        }
        #expect(EmulationPrevention.insert([0, 0, 1]) == [0, 0, 3, 1])
        #expect(EmulationPrevention.remove([0, 0, 3, 0, 0, 3]) == [0, 0, 0, 0])
    }

    /// The memchr-based fast paths agree with a byte-at-a-time statement of the rule on arbitrary input
    /// (including escaped input that is not canonical, slices with non-zero start indices and long runs).
    @Test func emulationPreventionFastPathsMatchTheRule() {
        func slowRemove(_ x: [UInt8]) -> [UInt8] {
            var out: [UInt8] = [], zeros = 0
            for b in x {
                if zeros >= 2 && b == 3 { zeros = 0; continue }
                out.append(b); zeros = b == 0 ? zeros + 1 : 0
            }
            return out
        }
        func slowInsert(_ x: [UInt8]) -> [UInt8] {
            var out: [UInt8] = [], zeros = 0
            for b in x {
                if zeros >= 2 && b <= 3 { out.append(3); zeros = 0 }
                out.append(b); zeros = b == 0 ? zeros + 1 : 0
            }
            if zeros >= 2 { out.append(3) }
            return out
        }
        var rng = SystemRandomNumberGenerator()
        for round in 0..<4000 {
            let n = round < 100 ? round % 8 : Int.random(in: 0...300, using: &rng)
            let x: [UInt8] = (0..<n).map { _ in [0, 0, 0, 3, 3, 1, 0x7F].randomElement(using: &rng) ?? 0 }
            #expect(EmulationPrevention.remove(x) == slowRemove(x))
            #expect(EmulationPrevention.insert(x) == slowInsert(x))
            let from = n > 3 ? Int.random(in: 0..<n, using: &rng) : 0
            #expect(EmulationPrevention.remove(x[from...]) == slowRemove(Array(x[from...])))
        }
    }

    @Test func strictEmulationPreventionErrors() throws {
        #expect(try EmulationPrevention.removeStrict([1, 0, 0, 3, 1, 5]) == [1, 0, 0, 1, 5])
        do {
            _ = try EmulationPrevention.removeStrict([5, 0, 0, 3], baseOffset: 10); Issue.record("expected error")
        } catch { #expect(error.code == .truncated && error.offset == 13) }
        do {
            _ = try EmulationPrevention.removeStrict([5, 0, 0, 1, 7], baseOffset: 10); Issue.record("expected error")
        } catch { #expect(error.code == .invalidValue && error.offset == 13) }
        do { _ = try EmulationPrevention.removeStrict([5, 0, 0, 3, 9]); Issue.record("expected error") } catch {
            #expect(error.code == .invalidValue && error.offset == 4)
        }
        do { _ = try EmulationPrevention.removeStrict([5, 7, 0]); Issue.record("expected error") } catch {
            #expect(error.code == .truncated && error.offset == 2)
        }
    }

    /// Throughput of the Annex B scan on a generated 64 MiB stream (goal: ≥ 1 GB/s in release builds).
    @Test func annexBScanThroughput() throws {
        var rng = SystemRandomNumberGenerator()
        // A 64 KiB block of random non-zero bytes (no start code can occur inside), reused for every NAL unit.
        let block: [UInt8] = (0..<65536).map { _ in UInt8.random(in: 1...255, using: &rng) }
        var buf: [UInt8] = []
        buf.reserveCapacity((64 << 20) + 65536)
        var nalCount = 0
        while buf.count < 64 << 20 {
            buf += [0, 0, 0, 1, 0x02, 0x01]
            let len = Int.random(in: 2000...40000, using: &rng)
            buf += block[0..<len]
            nalCount += 1
        }
        let start = Date()
        let ranges = try AnnexB.nalRanges(in: buf)
        let secs = Date().timeIntervalSince(start)
        #expect(ranges.count == nalCount)
        print(
            String(
                format: "Annex B scan: %.1f MB in %.3f s = %.2f GB/s (%d NAL units)", Double(buf.count) / 1e6, secs,
                Double(buf.count) / secs / 1e9, ranges.count))
    }
}
