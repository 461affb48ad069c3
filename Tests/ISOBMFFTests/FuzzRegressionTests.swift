import BinaryIO
import TestSupport
import Testing

@testable import ISOBMFF

/// Replays inputs the fuzzer found (kept in `Fuzz/Regressions/FuzzBoxes/`, only inputs this project made
/// or minimised itself) and fixed problems rebuilt as small inputs.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// The same work the fuzz target does; must not crash and must round-trip.
    func exercise(_ bytes: [UInt8]) throws {
        guard let file = try? ISOFile.parse(source: MemorySource(bytes)) else { return }
        #expect(try file.serialized() == bytes)
        _ = BoxDump.lines(file)
        _ = ContainerSummary(file).json.serialized()
        for t in file.tracks { _ = try? t.samples() }
        if let h = file.heif {
            _ = h.checkReferences()
            for item in h.items { _ = try? h.data(of: item.id, file: file) }
        }
    }

    @Test func savedFindings() throws {
        let dir = Paths.root + "/Fuzz/Regressions/FuzzBoxes"
        let src = try FileSource(path: dir + "/index.txt")
        let names = String(decoding: try src.read(at: 0, count: Int(src.size)), as: UTF8.self).split(separator: "\n")
        for name in names where !name.hasPrefix("#") {
            let f = try FileSource(path: dir + "/" + name)
            try exercise(try f.read(at: 0, count: Int(f.size)))
        }
    }

    /// Found on a corpus file: a movie duration of ~2^63 made the dump's number formatting trap.
    @Test func hugeDurationInDump() throws {
        var p = ByteWriter()
        p.writeU8(1); p.writeU24(0); p.writeU64(0); p.writeU64(0); p.writeU32(1); p.writeU64(UInt64.max)
        p.writeU32(0x10000); p.writeU16(0x100); p.write([UInt8](repeating: 0, count: 10))
        for _ in 0..<9 { p.writeU32(0) }
        p.write([UInt8](repeating: 0, count: 24)); p.writeU32(2)
        try exercise(ftyp + box("moov", box("mvhd", p.take())))
        let f = try parse(ftyp + box("moov", box("mvhd", p.bytes)))
        #expect(BoxDump.lines(f).joined().contains("mvhd"))
    }
}
