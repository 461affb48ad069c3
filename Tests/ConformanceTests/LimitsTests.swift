import BinaryIO
import HEVC
import ISOBMFF
import Testing

/// One test per `Limits` field: exceeding it gives the named error, never a crash or a huge allocation.
@Suite("Limits: each field names itself when exceeded")
struct LimitsTests {
    func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.writeU32(UInt32(8 + payload.count)); w.writeFourCC(FourCC(type)); w.write(payload)
        return w.take()
    }
    func full(_ type: String, _ payload: [UInt8], version: UInt8 = 0) -> [UInt8] {
        box(type, [version, 0, 0, 0] + payload)
    }
    func u32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    var ftyp: [UInt8] { box("ftyp", Array("isom".utf8) + u32(0)) }

    func diagnostics(_ bytes: [UInt8], _ limits: Limits) throws -> [Diagnostic] {
        let f = try ISOFile.parse(source: MemorySource(bytes), limits: limits)
        #expect(try f.serialized() == bytes, "bytes must be kept even when a limit stops parsing")
        return f.allDiagnostics
    }
    func expectLimit(_ diags: [Diagnostic], _ name: String) {
        #expect(
            diags.contains { $0.code == .limitExceeded && $0.message.contains(name) }, "expected \(name) in \(diags)")
    }

    @Test func maxBoxDepth() throws {
        var l = Limits(); l.maxBoxDepth = 4
        var b = box("free", [])
        for _ in 0..<6 { b = box("moov", b) }
        expectLimit(try diagnostics(ftyp + b, l), "maxBoxDepth")
    }

    @Test func maxChildrenPerBox() throws {
        var l = Limits(); l.maxChildrenPerBox = 3
        let kids = (0..<5).flatMap { _ in box("free", []) }
        expectLimit(try diagnostics(ftyp + box("moov", kids), l), "maxChildrenPerBox")
        // At the top level too.
        expectLimit(try diagnostics(ftyp + kids, l), "maxChildrenPerBox")
    }

    @Test func maxTableEntries() throws {
        var l = Limits(); l.maxTableEntries = 10
        let stco = full("stco", u32(11) + (0..<11).flatMap { _ in u32(0) })
        expectLimit(
            try diagnostics(ftyp + box("moov", box("trak", box("mdia", box("minf", box("stbl", stco))))), l),
            "maxTableEntries")
    }

    @Test func maxItems() throws {
        var l = Limits(); l.maxItems = 2
        let iinf = full("iinf", [0, 3])
        expectLimit(try diagnostics(ftyp + full("meta", [] + iinf), l), "maxItems")
    }

    @Test func maxExtentsPerItem() throws {
        var l = Limits(); l.maxExtentsPerItem = 2
        // iloc v1, offset/length 4 bytes, one item with 3 extents.
        var p: [UInt8] = [0x44, 0x00, 0, 1, 0, 1, 0, 0, 0, 0, 0, 3]
        for _ in 0..<3 { p += u32(0) + u32(1) }
        expectLimit(try diagnostics(ftyp + full("meta", full("iloc", p, version: 1)), l), "maxExtentsPerItem")
    }

    @Test func maxSamples() throws {
        var l = Limits(); l.maxSamples = 5
        // trun with 6 samples and no per-sample fields (only the count).
        let trun = full("trun", u32(6))
        expectLimit(try diagnostics(ftyp + box("moof", box("traf", trun)), l), "maxSamples")
        // And through the sample-table iterator.
        let stsz = full("stsz", u32(1) + u32(6))
        let stbl = box("stbl", stsz + full("stco", u32(1) + u32(0)) + full("stsc", u32(1) + u32(1) + u32(6) + u32(1)))
        let f = try ISOFile.parse(
            source: MemorySource(ftyp + box("moov", box("trak", box("mdia", box("minf", stbl))))), limits: l)
        do { _ = try f.tracks[0].samples(limits: l); Issue.record("should throw") } catch {
            #expect(error.code == .limitExceeded && error.message.contains("maxSamples"))
        }
    }

    /// FuzzCABI finding (out of memory): a 28-byte `trun` with no per-sample fields and sample_count
    /// 16 872 308 was expanded into one empty entry per sample (540 MB). Field-less runs now keep only
    /// the count; a constant-size `stsz` that states millions of samples is not resolved by validation
    /// and is charged against the allocation budget where a full list is asked for.
    @Test func countsThatNoBytesBackAreNeverExpanded() throws {
        let trunBytes = box("trun", [0, 1, 0, 0] + u32(9_999_999))
        let file = ftyp + box("moof", box("traf", trunBytes))
        let parsed = try ISOFile.parse(source: MemorySource(file))
        #expect(parsed.allDiagnostics.isEmpty)
        let trun = try #require(parsed.box("moof")?.find("traf", "trun")?.payload(TrackRunBox.self))
        #expect(trun.sampleCount == 9_999_999 && trun.samples.isEmpty)
        #expect(try parsed.serialized() == file)

        // 9 000 000 samples of one byte in one chunk, in a 150-byte file.
        let stsz = full("stsz", u32(1) + u32(9_000_000))
        let stbl = box(
            "stbl", stsz + full("stco", u32(1) + u32(0)) + full("stsc", u32(1) + u32(1) + u32(9_000_000) + u32(1)))
        let movie = try ISOFile.parse(
            source: MemorySource(ftyp + box("moov", box("trak", box("mdia", box("minf", stbl))))))
        #expect(movie.tracks[0].sampleCount == 9_000_000)
        #expect(try movie.tracks[0].samples(first: 3).count == 3)
        var l = Limits(); l.maxTotalAllocation = 64 << 20
        do { _ = try movie.tracks[0].samples(limits: l); Issue.record("should throw") } catch {
            #expect(error.code == .limitExceeded && error.message.contains("maxTotalAllocation (sample list)"))
        }
    }

    @Test func maxNALUnitSize() throws {
        var l = Limits(); l.maxNALUnitSize = 16
        let stream: [UInt8] = [0, 0, 0, 1, 0x40, 0x01] + [UInt8](repeating: 0x55, count: 40)
        do { _ = try AnnexB.split(stream, limits: l); Issue.record("should throw") } catch {
            #expect(error.code == .limitExceeded && error.message.contains("maxNALUnitSize"))
        }
        do {
            _ = try LengthPrefixed.split(u32(40) + [UInt8](repeating: 0x40, count: 40), lengthSize: 4, limits: l);
            Issue.record("should throw")
        } catch {
            #expect(error.code == .limitExceeded && error.message.contains("maxNALUnitSize"))
        }
    }

    @Test func maxBoxInMemoryAndTotalAllocation() throws {
        var l = Limits(); l.maxBoxInMemory = 64
        let big = box("moov", box("udta", [UInt8](repeating: 0, count: 100)))
        expectLimit(try diagnostics(ftyp + big, l), "maxBoxInMemory")
        var t = Limits(); t.maxTotalAllocation = 150
        let two =
            box("moov", box("udta", [UInt8](repeating: 0, count: 80)))
            + box("meta", [0, 0, 0, 0] + [UInt8](repeating: 0, count: 80))
        expectLimit(try diagnostics(ftyp + two, t), "maxTotalAllocation")
    }
}
