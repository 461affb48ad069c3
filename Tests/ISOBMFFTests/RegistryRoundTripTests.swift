import BinaryIO
import Testing

@testable import ISOBMFF

/// Every row of ``BoxRegistry/standard`` that reads fields (typed entries, parent-scoped entries, child defaults,
/// resolver cases, `uuid` entries, the immersive rows) has a crafted sample of its field bytes here; each
/// sample is read with the row's codec in the row's context and must give the row's payload type, write back
/// the same bytes (`write(parse(bytes)) == bytes`) and read back to an equal value (`parse(write(x)) == x`).
/// A row without a sample fails the test, so a new row cannot be added untested.
@Suite("Registry rows round-trip")
struct RegistryRoundTripTests {
    /// Field bytes (hex, spaces ignored) by row key: `type`, `parent/type`, `parent/*` (child default, read as
    /// the child in ``childDefaultSampleType``), `grandparent/parent/type` or `parent/type@handler` (resolver
    /// cases), `uuid:<hex>`.
    static let samples: [String: String] = [
        "ftyp": "6d696633 00000000 6d696631 68656963",
        "styp": "6d736468 00000000 6d736468 64617368",
        "meta": "00000000",
        "meta/keys": "00000000 00000001 0000001c 6d647461 636f6d2e 6578616d 706c652e 67656e65 72617465",
        "hdlr": "00000000 00000000 76696465 00000000 00000000 00000000 566964656f00",
        "mvhd": "00000000 00000000 00000000 000003e8 000000c8 00010000 0100 0000 00000000 00000000"
            + " 00010000 00000000 00000000 00000000 00010000 00000000 00000000 00000000 40000000"
            + " 00000000 00000000 00000000 00000000 00000000 00000000 00000002",
        "tkhd": "00000003 00000000 00000000 00000001 00000000 000000c8 00000000 00000000 0000 0000 0000 0000"
            + " 00010000 00000000 00000000 00000000 00010000 00000000 00000000 00000000 40000000"
            + " 00400000 00300000",
        "mdhd": "00000000 00000000 00000000 000003e8 000000c8 55c4 0000",
        "elst": "00000000 00000001 00000000 00000000 00010000",
        "vmhd": "00000001 0000 0000 0000 0000",
        "smhd": "00000000 0000 0000",
        "nmhd": "00000000",
        "sthd": "00000000",
        "dref": "00000000 00000001",
        "dref/url ": "00000001",
        "dref/urn ": "00000000 6e616d6500 6c6f6300",
        "tref/*": "00000001 00000002",
        "stsd": "00000000 00000001",
        "stsd/hvc1@vide": "000000000000 0001 0000 0000 00000000 00000000 00000000 0280 0168 00480000 00480000"
            + " 00000000 0001 00000000000000000000000000000000 00000000000000000000000000000000 0018 ffff",
        "stsd/mp4a@soun": "000000000000 0001 00000000 00000000 0002 0010 0000 0000 bb800000",
        "stsd/mebx@meta": "000000000000 0001",
        "stts": "00000000 00000001 00000003 00000200",
        "ctts": "00000000 00000001 000000d8 00000000",
        "stss": "00000000 00000002 00000001 00000005",
        "stps": "00000000 00000001 00000003",
        "stsc": "00000000 00000001 00000001 00000001 00000001",
        "stsz": "00000000 00000000 00000002 00000010 00000020",
        "stz2": "00000000 000000 04 00000003 12 30",
        "stco": "00000000 00000002 00000030 00000100",
        "co64": "00000000 00000001 00000000000002c4",
        "sgpd": "01000000 73796e63 00000001 00000001 15",
        "sbgp": "00000000 73656967 00000001 0000000a 00000001",
        "colr": "6e636c78 0001 000d 0001 00",
        "pasp": "00000001 00000001",
        "clap": "000001c3 00000001 000001cd 00000001 ffffffff 00000002 ffffffff 00000002",
        "btrt": "00000000 0001f400 0001f400",
        "fiel": "01 00",
        "chrm": "01 01",
        "hvcC": "01 01 60000000 900000000000 3c f000 fc fd f8 f8 0000 0f 00",
        "lhvC": "01 f000 fc cb 02 a1 0001 0009 42090e822e458a9404 a2 0001 0009 44094802cbc14da805",
        "trex": "00000000 00000001 00000001 00000064 00000000 00000000",
        "mehd": "00000000 000d848d",
        "mfhd": "00000000 00000001",
        "tfdt": "01000000 0000000100000000",
        "tfhd": "00020000 00000001",
        "trun": "00000001 00000001 00001103",
        "sidx": "00000000 00000001 0007a120 00000000 00000000 0000 0001 000030c6 0007a118 90000000",
        "pitm": "00000000 0001",
        "iinf": "00000000 0001",
        "iinf/infe": "02000000 03eb 0000 68766331 00",
        "iloc": "0000000004400001000100000000015200010000fc46",
        "iref": "00000000",
        "iref/*": "0002 0001 0001",
        "ipma": "00000000 00000001 03eb 02 81 02",
        "ispe": "00000000 00000040 00000040",
        "pixi": "00000000 01 08",
        "irot": "01",
        "imir": "00",
        "auxC": "00000000 75726e3a6d7065673a686576633a323031353a61757869643a3100",
        "grpl/*": "00000000 0000000a 00000002 00000001 00000002",
        "cmin": "00001000 0000cccc 00008000 00008000",
        "cmex": "0000000f 00000000 00000000 00000000 00000000 0000",
        "uuid:22cc04c7d6d94e079d904eb6ecbaf3a3": "00001e00 2622d86e 20000000 20000000",
        "uuid:4363e9145b7d4aab97aebea69803b434": "00000000",
        "uuid:de22508536cb436587432f8705e7c78a": "00000125",
        "eyes/stri": "00000000 03",
        "eyes/hero": "00000000 01",
        "cams/blin": "00000000 00004b28",
        "cmfy/dadj": "00000000 ffffff38",
        "pack/pkin": "00000000 73696465",
        "hfov": "0000f7a8",
        "st3d": "00000000 02",
        "sv3d/svhd": "00000000 7370617469616c2d6d6564696100",
        "sv3d/proj/prhd": "00000000 00000000 fff00000 00000000",
        "sv3d/proj/equi": "00000000 00000000 00000000 40000000 40000000",
        "sv3d/proj/cbmp": "00000000 00000000 00000002",
        "vexu/proj/prji": "00000000 72656374",
        "vexu/proj/rect": "00000000",
        "vexu/proj/equi": "00000000",
        "vexu/proj/hequ": "00000000",
        "vexu/proj/fish": "00000000",
        "vexu/proj/prim": "00000000",
        "vexu/must": "00000000 73747269 68657275",
        "eyes/must": "00000000 73747269",
        "lnsc/lens": "00000000",
        "lens/lnhd": "00000000 00000007 66697368 6e726d6c 6c656674",
        "lens/rdim": "00000000 00000780 00000438",
        "lens/lnin": "00000003 0004 fffe 000004b0 000003c0 0000021c 000004ba fffffffd 3e800000",
        "lens/ldst": "00000001 be000000 3d800000 3a83126f bb03126f 3fe00000",
        "lens/lfad": "00000000 3f800000 3f000000 bf000000 40000000 3e800000 00000000",
        "lnex/corg": "00000000 626c696e",
        "cxfm/uqua": "00000000 00000000 3f3504f3 00000000",
        "data": "00000001 00000000 68656c6c6f",
    ]

    /// The child a child-default row is read as (any child of that parent would do).
    static let childDefaultSampleType: [FourCC: FourCC] = ["tref": "cdsc", "iref": "dimg", "grpl": "ster"]

    /// A row's key in ``samples`` and the context its fields are read in (enclosing types, the box's own
    /// type last, as the parser sets them).
    static func keyAndContext(_ row: BoxRegistryRow) -> (key: String, context: ParseContext)? {
        var ctx = ParseContext()
        switch row.key {
        case .type(let t, let parent):
            ctx.parents = (parent.map { [$0] } ?? []) + [t]
            return ((parent.map { "\($0)/" } ?? "") + t.description, ctx)
        case .childDefault(let parent):
            guard let t = childDefaultSampleType[parent] else { return ("\(parent)/*", ctx) }
            ctx.parents = [parent, t]
            return ("\(parent)/*", ctx)
        case .resolved(let parent, let c):
            ctx.parents = (c.grandparent.map { [$0] } ?? []) + [parent, c.type]
            ctx.handler = c.handler
            let key =
                (c.grandparent.map { "\($0)/" } ?? "") + "\(parent)/\(c.type)" + (c.handler.map { "@\($0)" } ?? "")
            return (key, ctx)
        case .uuid(let bytes):
            ctx.parents = ["uuid"]
            return ("uuid:" + Hex.string(bytes), ctx)
        }
    }

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count - 1, by: 2).compactMap { UInt8(String(digits[$0...$0 + 1]), radix: 16) }
    }

    static func read(_ codec: BoxCodec, _ bytes: [UInt8], _ ctx: ParseContext) throws(ParseError) -> any BoxPayload {
        var context = ctx
        var r = ByteReader(bytes)
        switch codec.layout {
        case .fields(let parse), .fieldsThenChildren(let parse): return try parse(&r, &context)
        case .container, .raw: throw ParseError(.invalidValue, "not a fields row")
        }
    }

    @Test("every fields row has a sample, reads as its payload type and round-trips both ways")
    func everyRowRoundTrips() throws {
        let rows = BoxRegistry.standard.rows.filter { $0.codec.payloadType != nil }
        var covered = Set<String>()
        for row in rows {
            let (key, ctx) = try #require(Self.keyAndContext(row))
            guard let hex = Self.samples[key] else {
                Issue.record("registry row \(key) (\(row.codec.name)) has no sample in RegistryRoundTripTests")
                continue
            }
            covered.insert(key)
            let original = Self.bytes(hex)
            let x = try Self.read(row.codec, original, ctx)
            let expectedType = try #require(row.codec.payloadType)
            #expect(type(of: x) == expectedType, "\(key): read as \(type(of: x))")
            let written = x.serialized()
            #expect(written == original, "\(key): write(parse(bytes)) differs")
            let y = try Self.read(row.codec, written, ctx)
            #expect(Self.equal(x, y), "\(key): parse(write(x)) != x (or \(type(of: x)) is not Equatable)")
        }
        #expect(covered.count == rows.count)
        // A resolver enumerates its rows only through the cases it was registered with.
        let registry = BoxRegistry.standard
        for parent in registry.resolvers.keys {
            #expect(registry.resolverCases[parent]?.isEmpty == false, "the resolver for \(parent) lists no cases")
        }
        #expect(Set(Self.samples.keys).subtracting(covered).isEmpty, "samples for rows that no longer exist")
        #expect(rows.count == 93, "rows covered: \(rows.count)")
    }

    @Test("each four-character code row has its own payload type, except the documented shared ones")
    func onePayloadTypePerCode() {
        var codesByType: [String: Set<String>] = [:]
        for row in BoxRegistry.standard.rows {
            guard let t = row.codec.payloadType, let (key, _) = Self.keyAndContext(row) else { continue }
            let code = key.split(separator: "/").last.map { String($0.split(separator: "@")[0]) } ?? key
            codesByType[String(describing: t), default: []].insert(code)
        }
        // Shared by rule (Specs/boxes.md): the same code under two parents or as a vendor uuid, one layout read
        // per code from the box type (stsz/stz2, the lens-collection fields), and children defaults.
        let shared: [String: Set<String>] = [
            "RequiredBoxTypesBox": ["must"], "SampleSizeBox": ["stsz", "stz2"],
            "CameraIntrinsicsProperty": ["cmin", "uuid:22cc04c7d6d94e079d904eb6ecbaf3a3"],
            "CameraExtrinsicsProperty": ["cmex", "uuid:4363e9145b7d4aab97aebea69803b434"],
            "SampleEntry": ["hvc1", "mp4a", "mebx"],
        ]
        for (t, codes) in codesByType where codes.count > 1 {
            #expect(shared[t] == codes, "\(t) covers \(codes.sorted())")
        }
    }

    static func equal(_ a: any BoxPayload, _ b: any BoxPayload) -> Bool {
        guard let e = a as? any Equatable else { return false }
        return e.isEqual(to: b)
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool { (other as? Self) == self }
}
