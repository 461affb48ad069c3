import BinaryIO
import Testing

@testable import HEVC

/// The streaming scanner must find exactly what the in-memory scan finds, whatever the piece size.
@Suite struct AnnexBScannerTests {
    /// Ranges (absolute) and the error code, from the streaming scanner.
    static func scan(_ bytes: [UInt8], piece: Int, limits: Limits = .default) -> ([Range<UInt64>], ParseError.Code?) {
        var s = AnnexB.Scanner(source: MemorySource(bytes), pieceSize: piece, limits: limits)
        var out: [Range<UInt64>] = []
        do {
            while let r = try s.nextRange() { out.append(r) }
            return (out, nil)
        } catch { return (out, error.code) }
    }

    static func reference(_ bytes: [UInt8]) -> ([Range<UInt64>], ParseError.Code?) {
        do { return (try AnnexB.nalRanges(in: bytes).map { UInt64($0.lowerBound)..<UInt64($0.upperBound) }, nil) } catch
        { return ([], error.code) }
    }

    @Test func agreesWithTheInMemoryScanOnRandomStreams() {
        var rng = SplitMix(seed: 7)
        // Streams built from start codes, zero runs and payload bytes drawn from a small alphabet, so that
        // start codes straddle piece boundaries in every way.
        for round in 0..<400 {
            var b: [UInt8] = []
            if round % 7 == 0 { b += [UInt8(rng.next() % 3)] }  // sometimes junk before the first start code
            let parts = Int(rng.next() % 12)
            for _ in 0..<parts {
                switch rng.next() % 4 {
                case 0: b += [0, 0, 1]
                case 1: b += [0, 0, 0, 1]
                case 2: b += Array(repeating: 0, count: Int(rng.next() % 5))
                default: for _ in 0..<Int(rng.next() % 90) { b.append([0, 1, 2, 3, 0x40, 0xFF][Int(rng.next() % 6)]) }
                }
            }
            let expected = Self.reference(b)
            for piece in [64, 65, 67, 100, 4096] {
                let got = Self.scan(b, piece: piece)
                if expected.1 == nil {
                    #expect(got.1 == nil && got.0 == expected.0, "round \(round), piece \(piece): \(b)")
                } else {
                    #expect(got.1 == expected.1, "round \(round), piece \(piece): \(b)")
                }
            }
        }
    }

    @Test func largeStreamInSmallPieces() throws {
        var rng = SplitMix(seed: 3)
        var b: [UInt8] = []
        var count = 0
        while b.count < 3 << 20 {
            b += [0, 0, 0, 1, 0x02, 0x01]
            for _ in 0..<Int(rng.next() % 20000 + 10) { b.append(UInt8(truncatingIfNeeded: rng.next() | 0x04)) }
            count += 1
        }
        let (ranges, err) = Self.scan(b, piece: 1 << 16)
        #expect(err == nil)
        #expect(ranges.count == count)
        #expect(ranges == Self.reference(b).0)
        // next() gives the same bytes and offsets as split().
        var s = AnnexB.Scanner(source: MemorySource(b), pieceSize: 70_001)
        var nals: [NALUnit] = []
        while let n = try s.next() { nals.append(n) }
        #expect(nals == (try AnnexB.split(b)))
    }

    @Test func aNALUnitOverTheLimitIsNamedBeforeItIsRead() {
        var b: [UInt8] = [0, 0, 1, 0x02, 0x01]
        b += Array(repeating: 0x55, count: 10_000)
        var limits = Limits.default
        limits.maxNALUnitSize = 1000
        var s = AnnexB.Scanner(source: MemorySource(b), pieceSize: 256, limits: limits)
        do {
            _ = try s.nextRange()
            Issue.record("expected the NAL size limit")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("maxNALUnitSize"))
            #expect(error.offset == 3)
        }
    }

    @Test func analysisOfAStreamReadInPiecesMatchesTheWholeBuffer() throws {
        for url in Shared.annexBFiles {
            guard let bytes = Shared.bytes(url) else { continue }
            let whole = try HEVCStreamInfo(annexB: bytes)
            var streamed = try HEVCStreamInfo(scanning: MemorySource(bytes))
            #expect(streamed.accessUnitCount == whole.accessUnitCount, "\(url.lastPathComponent)")
            streamed.frameTypes = whole.frameTypes  // kept for the first 100 access units only
            #expect(streamed == whole, "\(url.lastPathComponent)")
            #expect(try HEVCDump.nalLines(scanning: MemorySource(bytes)) == (try HEVCDump.nalLines(annexB: bytes)))
        }
    }
}

/// A small deterministic generator (SplitMix64).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
