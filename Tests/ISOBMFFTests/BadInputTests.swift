import BinaryIO
import Testing

@testable import ISOBMFF

func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
    var w = ByteWriter()
    w.writeU32(UInt32(8 + payload.count)); w.writeFourCC(FourCC(type)); w.write(payload)
    return w.take()
}
func sizedBox(_ size: UInt32, _ type: String, _ payload: [UInt8]) -> [UInt8] {
    var w = ByteWriter()
    w.writeU32(size); w.writeFourCC(FourCC(type)); w.write(payload)
    return w.take()
}
let ftyp = box("ftyp", Array("isom".utf8) + [0, 0, 0, 0] + Array("isom".utf8))

func parse(_ bytes: [UInt8], limits: Limits = .default) throws(ParseError) -> ISOFile {
    try ISOFile.parse(source: MemorySource(bytes), limits: limits)
}
/// Parses and checks the contract that the bytes come back unchanged.
func parseKeeping(_ bytes: [UInt8], limits: Limits = .default) throws -> ISOFile {
    let f = try parse(bytes, limits: limits)
    #expect(try f.serialized() == bytes)
    return f
}

@Suite("Bad input: named errors with offset and path, bytes kept")
struct BadInputTests {
    @Test func emptyFile() {
        do { _ = try parse([]); Issue.record("should throw") } catch {
            #expect(error.code == .truncated)
            #expect(error.message.contains("empty"))
        }
    }

    @Test func truncatedFile() throws {
        let full = ftyp + box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)))
        let f = try parseKeeping(Array(full.prefix(full.count - 10)))
        let d = try #require(f.diagnostics.first)
        #expect(d.code == .sizePastParent)
        #expect(d.offset == UInt64(ftyp.count))
    }

    @Test func sizeSmallerThanHeader() throws {
        let f = try parseKeeping(ftyp + sizedBox(4, "free", []))
        #expect(f.diagnostics.first?.code == .sizeTooSmall)
        #expect(f.diagnostics.first?.offset == UInt64(ftyp.count))
    }

    @Test func childSizePastParent() throws {
        let moov = box("moov", sizedBox(200, "trak", [1, 2, 3, 4]))
        let f = try parseKeeping(ftyp + moov)
        let d = try #require(f.allDiagnostics.first)
        #expect(d.code == .sizePastParent)
        #expect(d.path == "moov")
        #expect(d.offset == UInt64(ftyp.count + 8))
    }

    @Test func sizeZeroBelowTopLevel() throws {
        let f = try parseKeeping(ftyp + box("moov", sizedBox(0, "trak", [0, 0, 0, 0])))
        #expect(f.allDiagnostics.first?.code == .sizeZeroNotTopLevel)
    }

    @Test func largesizeNearTwoToThe64() throws {
        var w = ByteWriter()
        w.writeU32(1); w.writeFourCC("mdat"); w.writeU64(UInt64.max - 3); w.write([1, 2, 3])
        let f = try parseKeeping(ftyp + w.take())
        #expect(f.diagnostics.first?.code == .sizePastParent)
    }

    @Test func nestingDeeperThanTheLimit() throws {
        var inner = box("free", [])
        for _ in 0..<40 { inner = box("moov", inner) }
        var limits = Limits()
        limits.maxBoxDepth = 16
        let f = try parseKeeping(ftyp + inner, limits: limits)
        let d = try #require(f.allDiagnostics.first { $0.code == .limitExceeded })
        #expect(d.message.contains("maxBoxDepth"))
        #expect(d.path.split(separator: "/").count == 17)
    }

    @Test func tableCountExceedingBytesPresent() throws {
        // stsz claims 1 000 000 000 entries with 8 bytes present: no huge allocation, named error.
        var p = ByteWriter()
        p.writeU32(0); p.writeU32(0); p.writeU32(1_000_000_000); p.writeU64(0)
        let stbl = box("moov", box("trak", box("mdia", box("minf", box("stbl", box("stsz", p.take()))))))
        let f = try parseKeeping(ftyp + stbl)
        let d = try #require(f.allDiagnostics.first)
        #expect(d.code == .limitExceeded || d.code == .truncated)
        #expect(d.path == "moov/trak[0]/mdia/minf/stbl/stsz")
    }

    @Test func tableCountWithinLimitButBytesMissing() throws {
        var p = ByteWriter()
        p.writeU32(0); p.writeU32(1000); p.write([0, 0, 0, 1])
        let f = try parseKeeping(
            ftyp + box("moov", box("trak", box("mdia", box("minf", box("stbl", box("stco", p.take())))))))
        let d = try #require(f.allDiagnostics.first)
        #expect(d.code == .truncated)
        #expect(d.message.contains("1000 entries"))
    }

    static func heif(iloc: [UInt8], iref: [UInt8]) -> [UInt8] {
        var infe: [UInt8] = []
        for id: UInt16 in [1, 2] { infe += box("infe", [2, 0, 0, 0, 0, UInt8(id), 0, 0] + Array("hvc1".utf8) + [0]) }
        let meta = box(
            "meta",
            [0, 0, 0, 0]
                + box("hdlr", [0, 0, 0, 0, 0, 0, 0, 0] + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
                + box("iinf", [0, 0, 0, 0, 0, 2] + infe) + box("iloc", iloc) + box("iref", [0, 0, 0, 0] + iref))
        return box("ftyp", Array("heic".utf8) + [0, 0, 0, 0]) + meta
    }

    @Test func ilocExtentOutsideTheFile() throws {
        let iloc: [UInt8] = [1, 0, 0, 0, 0x44, 0x00, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0x10, 0, 0, 0, 0, 64]
        let f = try parseKeeping(Self.heif(iloc: iloc, iref: []))
        let h = try #require(f.heif)
        do { _ = try h.data(of: 1, file: f); Issue.record("should throw") } catch {
            #expect(error.code == .sizePastParent)
            #expect(error.path == "meta/iloc")
        }
        do { _ = try h.data(of: 2, file: f); Issue.record("should throw") } catch {
            #expect(error.code == .danglingReference)
        }
    }

    /// Found by the fuzz smoke in CI: an item whose one extent claims ~1 GiB (under `maxBoxInMemory`) in a
    /// tiny file made `data(of:)` reserve the whole length before reading. Now refused before any allocation.
    @Test func ilocExtentLongerThanTheFileIsRefusedBeforeReserving() throws {
        // version 1, offset/length 4 bytes, one item (id 1, method 0), one extent: offset 0, length 0x3FFFFF00.
        let iloc: [UInt8] = [1, 0, 0, 0, 0x44, 0x00, 0, 1, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x3F, 0xFF, 0xFF, 0x00]
        let f = try parseKeeping(Self.heif(iloc: iloc, iref: []))
        let h = try #require(f.heif)
        do { _ = try h.data(of: 1, file: f); Issue.record("should throw") } catch {
            #expect(error.code == .sizePastParent)
            #expect(error.path == "meta/iloc")
            #expect(error.message.contains("1073741568 bytes but only"))
        }
    }

    @Test func cyclicAndDanglingItemReferences() throws {
        let cyc = box("dimg", [0, 1, 0, 1, 0, 2]) + box("dimg", [0, 2, 0, 1, 0, 1])
        let f = try parseKeeping(Self.heif(iloc: [0, 0, 0, 0, 0x44, 0, 0, 0], iref: cyc))
        #expect(f.heif?.checkReferences()?.code == .cyclicReference)
        let dangling = box("thmb", [0, 1, 0, 1, 0, 9])
        let g = try parseKeeping(Self.heif(iloc: [0, 0, 0, 0, 0x44, 0, 0, 0], iref: dangling))
        let e = try #require(g.heif?.checkReferences())
        #expect(e.code == .danglingReference)
        #expect(e.message.contains("item 9"))
    }

    @Test func notABoxFile() {
        do { _ = try parse(Array("Hello, this is text and not a movie".utf8)); Issue.record("should throw") } catch {
            #expect(error.code == .notRecognised)
        }
        do {
            _ = try parse([0xFF, 0xD8, 0xFF, 0xE1, 0, 0x10, 0x45, 0x78, 0x69, 0x66]); Issue.record("should throw")
        } catch {
            #expect(error.code == .notRecognised)
        }
    }

    @Test func directoryAndMissingPath() {
        do { _ = try ISOFile.open(path: "/tmp"); Issue.record("should throw") } catch {
            #expect(error.code == .io)
            #expect(error.message.contains("directory"))
        }
        do { _ = try ISOFile.open(path: "/nonexistent/file.mp4"); Issue.record("should throw") } catch {
            #expect(error.code == .io)
        }
    }

    @Test func malformedChildKeepsBytesAndNamesPath() throws {
        // A tkhd cut short: kept raw, flagged, written back unchanged.
        let f = try parseKeeping(ftyp + box("moov", box("trak", box("tkhd", [0, 0, 0, 3, 0, 0]))))
        let tkhd = try #require(f.find("moov", "trak", "tkhd"))
        #expect(tkhd.malformed?.code == .truncated)
        #expect(tkhd.malformed?.path == "moov/trak[0]/tkhd")
    }
}
