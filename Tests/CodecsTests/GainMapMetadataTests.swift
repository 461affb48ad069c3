import BinaryIO
import Codecs
import Foundation
import ISOBMFF
import ImageFormats
import TestSupport
import Testing

private typealias F = GainMapMetadata.Fraction

/// Issue 38, item 2: the MP index by type, and HDR gain-map metadata (hdrgm XMP, ISO 21496-1 block, `tmap` payload).
@Suite("Gain-map metadata and MPF types")
struct GainMapMetadataTests {
    static let values = UltraHDRFixture.Values(
        gainMapMin: -0.5, gainMapMax: 3.25, gamma: 0.8, offsetSDR: 0.01, offsetHDR: 0.02,
        capacityMin: 0.25, capacityMax: 3.5)

    /// The `tmap` payload, byte by byte: version 0, minimum and writer version 0, flags (use base colour space), base
    /// and alternate headroom, then one channel's min, max, gamma, base and alternate offsets, each
    /// numerator/denominator.
    @Test func tmapPayloadIsWrittenAndReadByteExactly() throws {
        let f = GainMapMetadata.Fraction.self
        let m = GainMapMetadata(
            baseHeadroom: f.init(1, 4), alternateHeadroom: f.init(7, 2),
            channels: [
                .init(
                    gainMapMin: f.init(-1, 2), gainMapMax: f.init(13, 4), gamma: f.init(4, 5),
                    baseOffset: f.init(1, 100), alternateOffset: f.init(1, 50))
            ])
        var want: [UInt8] = [0, 0, 0, 0, 0, 0x40]
        for v: UInt32 in [1, 4, 7, 2, UInt32(bitPattern: -1), 2, 13, 4, 4, 5, 1, 100, 1, 50] {
            want += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        #expect(m.tmapPayload == want)
        let back = try GainMapMetadata(tmap: want)
        #expect(back == m)
        // Three different channels set the multichannel flag and write three groups.
        var three = m
        three.channels = [
            m.channels[0], m.channels[0],
            .init(
                gainMapMin: f.init(0, 1), gainMapMax: f.init(2, 1), gamma: f.init(1, 1),
                baseOffset: f.init(1, 64), alternateOffset: f.init(1, 64)),
        ]
        #expect(three.isoBytes[4] == 0xC0 && three.isoBytes.count == 5 + 16 + 3 * 40)
        #expect(try GainMapMetadata(iso: three.isoBytes) == three)
        // Cut short, a zero denominator, a version we do not read, bytes after a version-0 writer: refused.
        #expect(throws: ParseError.self) { try GainMapMetadata(tmap: Array(want.dropLast())) }
        var zero = want; zero[13] = 0
        #expect(throws: ParseError.self) { try GainMapMetadata(tmap: zero) }
        var v1 = want; v1[2] = 1
        #expect(throws: ParseError.self) { try GainMapMetadata(tmap: v1) }
        #expect(throws: ParseError.self) { try GainMapMetadata(tmap: want + [0]) }
        #expect(throws: ParseError.self) { try GainMapMetadata(tmap: [1] + want.dropFirst()) }
    }

    /// hdrgm values map onto ISO 21496-1 as Adobe publishes (SDR base: base headroom = HDRCapacityMin, base offset =
    /// OffsetSDR; HDR base: swapped), decimals kept as exact rationals; attributes, elements and rdf:Seq all read.
    @Test func hdrgmXMPMapsOntoISO() throws {
        let attrs = UltraHDRFixture.gainMapXMP(Self.values, elements: false)
        let m = try #require(try GainMapMetadata(hdrgmXMP: Array(attrs.utf8)))
        #expect(m.channels.count == 1)
        #expect(
            m.channels[0].gainMapMin == F(-1, 2) && m.channels[0].gainMapMax == F(13, 4)
                && m.channels[0].gamma == F(4, 5))
        #expect(m.channels[0].baseOffset == F(1, 100) && m.channels[0].alternateOffset == F(1, 50))
        #expect(m.baseHeadroom == F(1, 4) && m.alternateHeadroom == F(7, 2) && m.useBaseColourSpace)
        let elems = UltraHDRFixture.gainMapXMP(Self.values, elements: true)
        #expect(try GainMapMetadata(hdrgmXMP: Array(elems.utf8)) == m)
        let hdrBase = elems.replacingOccurrences(
            of: "<hdrgm:BaseRenditionIsHDR>False", with: "<hdrgm:BaseRenditionIsHDR>True")
        let h = try #require(try GainMapMetadata(hdrgmXMP: Array(hdrBase.utf8)))
        #expect(h.baseHeadroom == F(7, 2) && h.alternateHeadroom == F(1, 4) && h.channels[0].baseOffset == F(1, 50))
        let seq = elems.replacingOccurrences(
            of: "<hdrgm:GainMapMax>3.25</hdrgm:GainMapMax>",
            with:
                "<hdrgm:GainMapMax><rdf:Seq><rdf:li>3.25</rdf:li><rdf:li>3</rdf:li><rdf:li>2.5</rdf:li></rdf:Seq></hdrgm:GainMapMax>"
        )
        let s = try #require(try GainMapMetadata(hdrgmXMP: Array(seq.utf8)))
        #expect(s.channels.map(\.gainMapMax) == [F(13, 4), F(3, 1), F(5, 2)])
        // A long decimal becomes the nearest rational that fits.
        let long = try #require(GainMapMetadata.Fraction.decimal("2.3219280948873622", unsigned: false))
        #expect(abs(long.value - 2.3219280948873622) < 1e-9)
        // Required fields, bad numbers: refused; no hdrgm: nil.
        #expect(throws: ParseError.self) {
            try GainMapMetadata(
                hdrgmXMP: Array(attrs.replacingOccurrences(of: "hdrgm:GainMapMax", with: "hdrgm:X").utf8))
        }
        #expect(throws: ParseError.self) {
            try GainMapMetadata(hdrgmXMP: Array(attrs.replacingOccurrences(of: "\"0.8\"", with: "\"-1\"").utf8))
        }
        #expect(try GainMapMetadata(hdrgmXMP: Array("<x:xmpmeta/>".utf8)) == nil)
    }

    /// Only MP type Disparity (or exactly two Multi-angle pictures) makes a stereo pair; a gain map never does.
    @Test func stereoPairByMPType() throws {
        let a = try JPEG.encode(testImage(width: 16, height: 16))
        let b = try JPEG.encode(testImage(width: 16, height: 16, seed: 3))
        func pair(_ t: (UInt32, UInt32)) throws -> (Int, Int)? {
            try MPO(UltraHDRFixture.withMPF(a, secondary: b, types: t)).stereoPair
        }
        #expect(try pair((0x02_0002, 0x02_0002)).map { [$0.0, $0.1] } == [0, 1])
        #expect(try pair((0x02_0003, 0x02_0003)).map { [$0.0, $0.1] } == [0, 1])
        #expect(try pair((0x03_0000, 0)) == nil)
        #expect(try pair((0x03_0000, 0x01_0001)) == nil)
        #expect(try pair((0x02_0002, 0x02_0001)) == nil)
        for variant in UltraHDRFixture.Variant.allCases {
            let made = try UltraHDRFixture.make(variant, values: Self.values)
            let mpo = try MPO(made.bytes)
            #expect(mpo.stereoPair == nil && mpo.gainMapIndex == 1)
            #expect(mpo.pictures[1].gainMap == (variant == .adobe ? .iso21496 : .hdrgm))
            let g = try #require(try JPEGGainMap.read(made.bytes, mpo: mpo))
            #expect(g.width == made.gainMap.width && g.metadata?.channels.first?.gainMapMax.value == 3.25)
            // Disparity-typed pictures that are marked as gain maps are still not a stereo pair.
            let retyped = UltraHDRFixture.withMPF(
                try JPEG.encode(made.primary), secondary: made.gainMapJPEG, types: (0x02_0002, 0x02_0002))
            #expect(try MPO(retyped).stereoPair == nil)
        }
    }
    /// The FuzzJPEG seeds (`scripts/make_jpeg_seeds.py`, written from the published layouts) read as what each states:
    /// Disparity and two Multi-angle pictures are stereo pairs, three Multi-angle and a thumbnail are not, every
    /// gain-map form is found with its metadata, and what we write reads back byte-exactly (the target's own check).
    @Test func fuzzSeedsReadAsTheyState() throws {
        let dir = try TestPaths.tempDir("jpeg-seeds")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try Run.program("/usr/bin/env", ["python3", TestPaths.package("scripts/make_jpeg_seeds.py"), dir])
        try #require(r.status == 0, "\(r.err)")
        func read(_ name: String) throws -> ([UInt8], MPO) {
            let bytes = try FileBytes.read(dir + "/seed-" + name + ".jpg")
            return (bytes, try MPO(bytes))
        }
        for name in ["stereo-disparity", "stereo-multiangle"] { #expect(try read(name).1.stereoPair != nil, "\(name)") }
        for name in ["three-multiangle", "thumbnail", "container-only"] {
            let (_, m) = try read(name)
            #expect(m.stereoPair == nil && m.gainMapIndex == (name == "container-only" ? 1 : nil), "\(name)")
        }
        for name in [
            "ultrahdr-attributes", "ultrahdr-elements", "ultrahdr-seq-hdrbase", "adobe-iso", "iso-three-channels",
            "apple",
        ] {
            let (bytes, m) = try read(name)
            let g = try #require(try JPEGGainMap.read(bytes, mpo: m), "\(name)")
            #expect(m.stereoPair == nil && g.index == 1, "\(name)")
            if name == "apple" { #expect(g.isApple && g.metadata == nil); continue }
            let meta = try #require(g.metadata, "\(name)")
            #expect(try GainMapMetadata(tmap: meta.tmapPayload) == meta, "\(name)")
            #expect(meta.channels.count == (name.contains("seq") || name.contains("three") ? 3 : 1), "\(name)")
        }
        // A gain map named only by the directory, without metadata, is named and refused rather than guessed.
        let (bytes, m) = try read("container-only")
        #expect(throws: ParseError.self) { try JPEGGainMap.read(bytes, mpo: m) }
    }
}
