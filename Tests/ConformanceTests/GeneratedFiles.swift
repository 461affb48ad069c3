import BinaryIO
import ISOBMFF
import Testing

/// Builds the small files in `Conformance/files/`. They are made by this project, byte by byte, so
/// they can be committed; each has a sidecar `<name>.expect` listing facts the parser must report.
enum Generator {
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.writeU32(UInt32(8 + payload.count)); w.writeFourCC(FourCC(type)); w.write(payload)
        return w.take()
    }
    static func largeBox(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.writeU32(1); w.writeFourCC(FourCC(type)); w.writeU64(UInt64(16 + payload.count)); w.write(payload)
        return w.take()
    }
    static func full(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ payload: [UInt8]) -> [UInt8] {
        var w = ByteWriter()
        w.writeU8(version); w.writeU24(flags); w.write(payload)
        return box(type, w.take())
    }
    static func u32(_ v: UInt32...) -> [UInt8] { var w = ByteWriter(); for x in v { w.writeU32(x) }; return w.take() }
    static func u16(_ v: UInt16...) -> [UInt8] { var w = ByteWriter(); for x in v { w.writeU16(x) }; return w.take() }
    static func u64(_ v: UInt64...) -> [UInt8] { var w = ByteWriter(); for x in v { w.writeU64(x) }; return w.take() }

    static let matrix = u32(0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000)

    static func mvhd(duration: UInt32, nextTrack: UInt32) -> [UInt8] {
        full(
            "mvhd",
            u32(0, 0, 1000, duration) + u32(0x10000) + u16(0x100) + [UInt8](repeating: 0, count: 10) + matrix
                + [UInt8](repeating: 0, count: 24) + u32(nextTrack))
    }
    static func tkhd(id: UInt32, duration: UInt32, width: UInt32, height: UInt32, volume: UInt16) -> [UInt8] {
        full(
            "tkhd", flags: 3,
            u32(0, 0, id, 0, duration, 0, 0) + u16(0, 0, volume, 0) + matrix + u32(width << 16, height << 16))
    }
    static func visualEntry(_ type: String, width: UInt16, height: UInt16, children: [UInt8]) -> [UInt8] {
        var f: [UInt8] = [0, 0, 0, 0, 0, 0] + u16(1)
        f += u16(0, 0) + u32(0, 0, 0) + u16(width, height) + u32(0x480000, 0x480000, 0) + u16(1)
        var name = [UInt8](repeating: 0, count: 32)
        let text = Array("generated".utf8)
        name[0] = UInt8(text.count)
        for (i, c) in text.enumerated() { name[1 + i] = c }
        f += name + u16(24) + [0xFF, 0xFF]
        return box(type, f + children)
    }
    static func audioEntry(_ type: String) -> [UInt8] {
        box(type, [0, 0, 0, 0, 0, 0] + u16(1) + u16(0, 0) + u32(0) + u16(2, 16, 0, 0) + u32(48000 << 16))
    }
    /// A track whose samples are `sizes` bytes long, stored in one chunk at `chunkOffset` (stco or co64).
    static func trak(
        id: UInt32, handler: String, entry: [UInt8], sizes: [UInt32], chunkOffset: UInt64, co64: Bool,
        width: UInt32 = 0, height: UInt32 = 0
    ) -> [UInt8] {
        let mdhd = full("mdhd", u32(0, 0, 1000, UInt32(sizes.count) * 100) + u16(0x55C4, 0))
        let hdlr = full("hdlr", u32(0) + Array(handler.utf8) + u32(0, 0, 0) + Array("generated \(handler)".utf8) + [0])
        let mhd = handler == "vide" ? full("vmhd", flags: 1, u16(0, 0, 0, 0)) : full("smhd", u16(0, 0))
        let dinf = box("dinf", full("dref", u32(1) + full("url ", flags: 1, [])))
        let stsd = full("stsd", u32(1) + entry)
        let stts = full("stts", u32(1, UInt32(sizes.count), 100))
        let stss = handler == "vide" ? full("stss", u32(1, 1)) : []
        let stsc = full("stsc", u32(1, 1, UInt32(sizes.count), 1))
        let stsz = full("stsz", u32(0, UInt32(sizes.count)) + sizes.flatMap { u32($0) })
        let co = co64 ? full("co64", u32(1) + u64(chunkOffset)) : full("stco", u32(1, UInt32(chunkOffset)))
        let stbl = box("stbl", stsd + stts + stss + stsc + stsz + co)
        let minf = box("minf", mhd + dinf + stbl)
        let mdia = box("mdia", mdhd + hdlr + minf)
        let edts = box("edts", full("elst", u32(1, UInt32(sizes.count) * 100, 0) + u16(1, 0)))
        return box(
            "trak",
            tkhd(
                id: id, duration: UInt32(sizes.count) * 100, width: width, height: height,
                volume: handler == "soun" ? 0x100 : 0) + edts + mdia)
    }
    static func payload(_ n: Int, seed: UInt8) -> [UInt8] {
        (0..<n).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
    }

    static let ftypMP4 = box("ftyp", Array("isom".utf8) + u32(0x200) + Array("isomiso2mp41".utf8))
    static let ftypQT = box("ftyp", Array("qt  ".utf8) + u32(0) + Array("qt  ".utf8))
    static let visual = visualEntry(
        "avc1", width: 64, height: 48,
        children: box("pasp", u32(1, 1)) + box("colr", Array("nclx".utf8) + u16(1, 1, 1) + [0x80]))

    /// name → (bytes, expectation lines)
    static func all() -> [(String, [UInt8], [String])] {
        var out: [(String, [UInt8], [String])] = []
        // 1. moov first, ordinary mdat, stco.
        do {
            let sizes: [UInt32] = [100, 50, 75]
            let data = payload(225, seed: 1)
            var moov = [UInt8]()
            var offset: UInt64 = 0
            for _ in 0..<2 {  // fixed point: moov size does not depend on the offset value
                moov = box(
                    "moov",
                    mvhd(duration: 300, nextTrack: 2)
                        + trak(
                            id: 1, handler: "vide", entry: visual, sizes: sizes, chunkOffset: offset, co64: false,
                            width: 64, height: 48))
                offset = UInt64(ftypMP4.count + moov.count + 8)
            }
            out.append(
                (
                    "movie_moov_first.mp4", ftypMP4 + moov + box("mdat", data),
                    ["tracks 1", "track 1 vide avc1 64x48 samples 3", "sample 1 offset \(offset + 100) size 50"]
                ))
        }
        // 2. mdat first with a 64-bit largesize header, moov last.
        do {
            let sizes: [UInt32] = [40, 40]
            let data = payload(80, seed: 2)
            let mdat = largeBox("mdat", data)
            let offset = UInt64(ftypMP4.count + 16)
            let moov = box(
                "moov",
                mvhd(duration: 200, nextTrack: 2)
                    + trak(
                        id: 1, handler: "vide", entry: visual, sizes: sizes, chunkOffset: offset, co64: false,
                        width: 64, height: 48))
            out.append(
                (
                    "largesize_mdat.mp4", ftypMP4 + mdat + moov,
                    ["tracks 1", "header mdat large", "sample 1 offset \(offset + 40) size 40"]
                ))
        }
        // 3. size-0 mdat (to end of file) after moov; co64 chunk offsets.
        do {
            let sizes: [UInt32] = [30, 20]
            var moov = [UInt8]()
            var offset: UInt64 = 0
            for _ in 0..<2 {
                moov = box(
                    "moov",
                    mvhd(duration: 200, nextTrack: 2)
                        + trak(
                            id: 1, handler: "vide", entry: visual, sizes: sizes, chunkOffset: offset, co64: true,
                            width: 64, height: 48))
                offset = UInt64(ftypMP4.count + moov.count + 8)
            }
            var mdat = ByteWriter(); mdat.writeU32(0); mdat.writeFourCC("mdat"); mdat.write(payload(50, seed: 3))
            out.append(
                (
                    "size0_mdat_co64.mp4", ftypMP4 + moov + mdat.take(),
                    ["tracks 1", "header mdat toEnd", "sample 1 offset \(offset + 30) size 20"]
                ))
        }
        // 4. a uuid box and an unknown box, kept byte-exact.
        do {
            var u = ByteWriter(); u.writeU32(8 + 16 + 5); u.writeFourCC("uuid");
            u.write((0..<16).map { UInt8($0 * 17) }); u.write(Array("hello".utf8))
            let unknown = box("zzzz", [1, 2, 3])
            out.append(
                (
                    "uuid_and_unknown.mp4", ftypMP4 + u.take() + unknown + box("free", [0, 0, 0, 0]),
                    ["top uuid,zzzz,free"]
                ))
        }
        // 5. fragmented: moov with mvex/trex, two moof/mdat pairs.
        do {
            let trex = full("trex", u32(1, 1, 100, 0, 0))
            let moov = box(
                "moov",
                mvhd(duration: 0, nextTrack: 2)
                    + trak(
                        id: 1, handler: "vide", entry: visual, sizes: [], chunkOffset: 0, co64: false, width: 64,
                        height: 48) + box("mvex", trex))
            var file = ftypMP4 + moov
            for seq in 1...2 {
                let sizes: [UInt32] = [10, 12]
                func moof(_ dataOffset: UInt32) -> [UInt8] {
                    box(
                        "moof",
                        full("mfhd", u32(UInt32(seq)))
                            + box(
                                "traf",
                                full("tfhd", flags: 0x20000, u32(1))
                                    + full("tfdt", version: 1, u64(UInt64(seq - 1) * 200))
                                    + full("trun", flags: 0x201, u32(2, dataOffset) + sizes.flatMap { u32($0) })))
                }
                let m = moof(UInt32(moof(0).count + 8))
                file += m + box("mdat", payload(22, seed: UInt8(seq)))
            }
            out.append(("fragmented.mp4", file, ["fragmented true", "top ftyp,moov,moof,mdat,moof,mdat"]))
        }
        // 6. QuickTime multi-track: video + audio, QuickTime meta with keys/ilst in udta.
        do {
            let audio = audioEntry("sowt")
            var moov = [UInt8]()
            var base: UInt64 = 0
            for _ in 0..<2 {
                let qtMeta = box(
                    "meta",
                    full("hdlr", u32(0) + Array("mdta".utf8) + u32(0, 0, 0) + [0])
                        + full(
                            "keys",
                            u32(1) + u32(28) + Array("mdta".utf8) + Array("com.example.generated".utf8).prefix(20))
                        + box("ilst", box("\u{0}\u{0}\u{0}\u{1}", box("data", u32(1, 0) + Array("yes".utf8)))))
                moov = box(
                    "moov",
                    mvhd(duration: 200, nextTrack: 3)
                        + trak(
                            id: 1, handler: "vide", entry: visual, sizes: [20, 20], chunkOffset: base, co64: false,
                            width: 64, height: 48)
                        + trak(
                            id: 2, handler: "soun", entry: audio, sizes: [8, 8], chunkOffset: base + 40, co64: false)
                        + box("udta", qtMeta))
                base = UInt64(ftypQT.count + moov.count + 8)
            }
            out.append(
                (
                    "multitrack.mov", ftypQT + moov + box("mdat", payload(56, seed: 9)),
                    ["tracks 2", "track 2 soun sowt samples 2", "sample 1 offset \(base + 20) size 20"]
                ))
        }
        // 7. HEIF: two coded items, a 1x2 grid in idat, thumbnails refs, a ster group, Exif.
        do {
            let hvcC = box(
                "hvcC", [1, 1, 0x60, 0, 0, 0, 0x90, 0, 0, 0, 0, 0, 60, 0xF0, 0, 0xFC, 0xFD, 0xF8, 0xF8, 0, 0, 0x0F, 0])
            let ipco = box(
                "ipco",
                hvcC + full("ispe", u32(64, 64)) + full("ispe", u32(128, 64)) + full("pixi", [3, 8, 8, 8])
                    + box("irot", [1]) + box("imir", [0]))
            let ipma = full(
                "ipma", u32(3) + u16(1) + [3, 0x81, 2, 4] + u16(2) + [3, 0x81, 2, 4] + u16(3) + [2, 3, 5])
            let iinf = full(
                "iinf",
                u16(4) + full("infe", version: 2, flags: 1, u16(1, 0) + Array("hvc1".utf8) + [0])
                    + full("infe", version: 2, flags: 1, u16(2, 0) + Array("hvc1".utf8) + [0])
                    + full("infe", version: 2, u16(3, 0) + Array("grid".utf8) + Array("stereo grid".utf8) + [0])
                    + full("infe", version: 2, u16(4, 0) + Array("Exif".utf8) + [0]))
            let iref = full("iref", box("dimg", u16(3, 2, 1, 2)) + box("cdsc", u16(4, 1, 3)))
            let grpl = box("grpl", full("ster", u32(10, 2, 1, 2)))
            let grid: [UInt8] = [0, 0, 0, 1] + u16(128, 64)
            let exif: [UInt8] = u32(0) + Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 0]
            // Each coded item is whole length-prefixed NAL units (ISO/IEC 23008-12 §B.2.1), one unit per item; the
            // unit's bytes are filler (nothing here decodes them).
            let items = [u32(36) + payload(36, seed: 4), u32(40) + payload(40, seed: 5)]
            var meta = [UInt8]()
            var dataStart: UInt64 = 0
            let ftyp = box("ftyp", Array("heic".utf8) + u32(0) + Array("mif1heic".utf8))
            for _ in 0..<2 {
                var iloc = ByteWriter()
                iloc.writeU8(0x44); iloc.writeU8(0x00); iloc.writeU16(4)
                iloc.writeU16(1); iloc.writeU16(0); iloc.writeU16(0); iloc.writeU16(1);
                iloc.writeU32(UInt32(dataStart)); iloc.writeU32(40)
                iloc.writeU16(2); iloc.writeU16(0); iloc.writeU16(0); iloc.writeU16(1);
                iloc.writeU32(UInt32(dataStart + 40)); iloc.writeU32(44)
                iloc.writeU16(3); iloc.writeU16(1); iloc.writeU16(0); iloc.writeU16(1); iloc.writeU32(0);
                iloc.writeU32(UInt32(grid.count))
                iloc.writeU16(4); iloc.writeU16(0); iloc.writeU16(0); iloc.writeU16(1);
                iloc.writeU32(UInt32(dataStart + 84)); iloc.writeU32(UInt32(exif.count))
                meta = full(
                    "meta",
                    full("hdlr", u32(0) + Array("pict".utf8) + u32(0, 0, 0) + [0]) + full("pitm", u16(3)) + iinf
                        + full("iloc", version: 1, iloc.take()) + iref + box("iprp", ipco + ipma) + box("idat", grid)
                        + grpl)
                dataStart = UInt64(ftyp.count + meta.count + 8)
            }
            out.append(
                (
                    "heif_grid_ster.heic", ftyp + meta + box("mdat", items[0] + items[1] + exif),
                    [
                        "items 4", "primary 3", "group ster 10 1,2", "item 3 size 128x64",
                        "item 2 data \(Hex.string(items[1].prefix(4)))", "item 3 data \(Hex.string(grid))",
                    ]
                ))
        }
        return out
    }
}

/// Checks one expectation line against a parsed file; returns a failure message or nil.
func check(_ line: String, _ file: ISOFile) throws -> String? {
    let p = line.split(separator: " ").map(String.init)
    guard let key = p.first else { return nil }
    switch key {
    case "tracks": return file.tracks.count == Int(p[1]) ? nil : "tracks \(file.tracks.count)"
    case "track":
        guard let t = file.tracks.first(where: { $0.trackID == UInt32(p[1]) }) else { return "no track \(p[1])" }
        let entry = t.sampleEntries.first
        var got = "track \(t.trackID) \(t.handler?.description ?? "") \(entry?.type.description ?? "")"
        if let se = entry?.payload(SampleEntry.self), se.kind == .visual { got += " \(se.width)x\(se.height)" }
        got += " samples \(t.sampleCount)"
        return got == line ? nil : got
    case "sample":
        guard let t = file.tracks.first else { return "no track" }
        let s = try t.samples()
        guard let i = Int(p[1]), i < s.count else { return "no sample \(p[1])" }
        let got = "sample \(i) offset \(s[i].offset) size \(s[i].size)"
        return got == line ? nil : got
    case "header":
        guard let b = file.box(FourCC(p[1])) else { return "no \(p[1])" }
        let got = "header \(p[1]) \(b.header.form.rawValue)"
        return got == line ? nil : got
    case "top":
        let got =
            "top "
            + file.boxes.map(\.type.description).filter { $0 != "ftyp" || line.contains("ftyp") }.joined(separator: ",")
        return got == line ? nil : got
    case "fragmented": return "fragmented \(file.isFragmented)" == line ? nil : "fragmented \(file.isFragmented)"
    case "items": return file.heif?.items.count == Int(p[1]) ? nil : "items \(file.heif?.items.count ?? 0)"
    case "primary": return file.heif?.primaryItemID == UInt32(p[1]) ? nil : "primary \(file.heif?.primaryItemID ?? 0)"
    case "group":
        let g = file.heif?.groups.first
        let got =
            "group \(g?.type.description ?? "") \(g?.id ?? 0) \(g?.entityIDs.map(String.init).joined(separator: ",") ?? "")"
        return got == line ? nil : got
    case "item":
        guard let h = file.heif, let id = UInt32(p[1]) else { return "no heif" }
        if p[2] == "size" {
            let s = h.size(of: id)
            let got = "item \(id) size \(s?.width ?? 0)x\(s?.height ?? 0)"
            return got == line ? nil : got
        }
        let d = try h.data(of: id, file: file)
        let got = "item \(id) data \(Hex.string(p[3].count == 8 ? Array(d.prefix(4)) : d))"
        return got == line ? nil : got
    default: return "unknown expectation \(key)"
    }
}

@Suite("Generated conformance files")
struct GeneratedFileTests {
    @Test("Committed files equal freshly generated ones, meet their sidecar expectations and round-trip")
    func generated() throws {
        let dir = Paths.conformance + "/files"
        let regenerate = ProcessEnv.get("REGENERATE_CONFORMANCE") != nil
        for (name, bytes, expectations) in Generator.all() {
            let path = dir + "/" + name
            if regenerate {
                try AtomicFile.write(path: path, bytes: bytes)
                try AtomicFile.write(
                    path: path + ".expect", bytes: Array((expectations.joined(separator: "\n") + "\n").utf8))
            }
            let committed = try FileSource(path: path)
            #expect(
                try committed.read(at: 0, count: Int(committed.size)) == bytes,
                "\(name) differs from the generator's output")
            let file = try ISOFile.open(path: path)
            #expect(file.allDiagnostics.isEmpty, "\(name): \(file.allDiagnostics)")
            #expect(file.integrityFaults().isEmpty, "\(name) is whole for every reader: \(file.integrityFaults())")
            #expect(try file.serialized() == bytes, "\(name) does not rewrite byte-identically")
            let sidecar = try readText(path + ".expect").split(separator: "\n").map(String.init)
            for line in sidecar where !line.isEmpty {
                let failure = try check(line, file)
                #expect(failure == nil, "\(name): expected '\(line)', got '\(failure ?? "")'")
            }
        }
    }
}
