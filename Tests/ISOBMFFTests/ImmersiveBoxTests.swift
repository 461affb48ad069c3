import BinaryIO
import Testing

@testable import ISOBMFF

/// Frame-packing, projection, `must` and parametric-immersive lens boxes (Specs/boxes.md, "Apple Projected
/// Media Profile"): typed by parent, written back byte for byte, unknown kinds and children kept.
@Suite("APMP and frame-packing boxes")
struct ImmersiveBoxTests {
    static func u32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    static func f32(_ v: Float) -> [UInt8] { u32(v.bitPattern) }
    static let fb: [UInt8] = [0, 0, 0, 0]

    /// A parametric-immersive vexu: must, eyes{must, stri, hero}, proj{prji 'prim', prim}, pack{pkin 'side'},
    /// lnsc{lens{lnhd, rdim, lnin (flags 3), ldst (flags 1), lfad, lnex{corg, cxfm{uqua}}, an unknown child}}.
    static func immersiveVexu() -> [UInt8] {
        let lnin = box(
            "lnin",
            [0, 0, 0, 3] + [0, 4, 0xFF, 0xFE] + u32(1200) + u32(960) + u32(540) + u32(1210)
                + u32(UInt32(bitPattern: -3)) + f32(0.25))
        let ldst = box("ldst", [0, 0, 0, 1] + f32(-0.125) + f32(0.0625) + f32(0.001) + f32(-0.002) + f32(1.75))
        let lfad = box("lfad", fb + [Float](arrayLiteral: 1, 0.5, -0.5, 2, 0.25, 0).flatMap(f32))
        let lnex = box(
            "lnex",
            box("corg", fb + Array("blin".utf8)) + box("cxfm", box("uqua", fb + f32(0) + f32(0.70710677) + f32(0))))
        let lens = box(
            "lens",
            fb + box("lnhd", fb + u32(7) + Array("fish".utf8) + Array("nrml".utf8) + Array("left".utf8))
                + box("rdim", fb + u32(3840) + u32(2160)) + lnin + ldst + lfad + lnex + box("zzzz", [1, 2, 3]))
        let eyes = box("eyes", box("must", fb + Array("stri".utf8)) + box("stri", fb + [3]) + box("hero", fb + [1]))
        let proj = box("proj", box("prji", fb + Array("prim".utf8)) + box("prim", fb))
        return box(
            "vexu",
            box("must", fb + Array("eyes".utf8) + Array("pack".utf8)) + eyes + proj
                + box("pack", box("pkin", fb + Array("side".utf8))) + box("lnsc", lens))
    }

    @Test func parametricImmersiveRoundTripsTyped() throws {
        let bytes = Self.immersiveVexu()
        let (boxes, trailing, diags) = BoxParser().parseBoxes(bytes)
        #expect(diags.isEmpty && trailing.isEmpty)
        let vexu = try #require(boxes.first)
        #expect(try vexu.serialized() == bytes)
        var untyped: [String] = []
        vexu.walk { b, _ in
            if b.malformed != nil { untyped.append(b.path + " malformed") }
            if case .raw = b.fields, b.type != "zzzz" { untyped.append(b.path) }
        }
        #expect(untyped.isEmpty, "kept raw: \(untyped)")
        #expect(vexu.child("must")?.payload(RequiredBoxTypesBox.self)?.types == ["eyes", "pack"])
        #expect(vexu.find("eyes", "must")?.payload(RequiredBoxTypesBox.self)?.types == ["stri"])
        #expect(vexu.find("proj", "prji")?.payload(ProjectionInformationBox.self)?.projectionKind == "prim")
        #expect(vexu.find("proj", "prim")?.payload(ParametricImmersiveProjectionBox.self) != nil)
        #expect(vexu.find("pack", "pkin")?.payload(ViewPackingInformationBox.self)?.packingKind == "side")
        let lens = try #require(vexu.find("lnsc", "lens"))
        let lnhd = try #require(lens.child("lnhd")?.payload(LensHeaderBox.self))
        #expect(lnhd.field("lens_identifier")?.bits == 7 && lnhd.field("algorithm_kind")?.value == "'fish'")
        #expect(
            lens.child("rdim")?.payload(IntrinsicMatrixReferenceDimensionsBox.self)?.fields.map(\.bits) == [3840, 2160])
        let lnin = try #require(lens.child("lnin")?.payload(LensIntrinsicsBox.self))
        #expect(
            lnin.fields.map(\.name) == [
                "denominator_shift", "skew_denominator_shift", "focal_length_x", "principal_point_x",
                "principal_point_y", "focal_length_y", "skew_factor", "projection_offset",
            ])
        #expect(lnin.field("skew_denominator_shift")?.value == "-2" && lnin.field("skew_factor")?.value == "-3")
        #expect(lnin.field("projection_offset")?.value == "0.25")
        #expect(lens.child("ldst")?.payload(LensDistortionsBox.self)?.field("radial_angle_limit")?.value == "1.75")
        #expect(lens.child("lfad")?.payload(LensFrameAdjustmentBox.self)?.fields.count == 6)
        #expect(
            lens.find("lnex", "corg")?.payload(ExtrinsicOriginSourceBox.self)?.field("origin_source")?.value == "'blin'"
        )
        #expect(lens.find("lnex", "cxfm", "uqua")?.payload(UnitQuaternionBox.self)?.field("y")?.value == "0.70710677")
    }

    @Test func lensFlagsDecideTheOptionalFields() throws {
        // lnin without flags has five fields; with more bytes than the flags announce, the rest stays trailing.
        let plain = box(
            "lens", Self.fb + box("lnin", Self.fb + [0, 0, 0, 0] + Self.u32(1) + Self.u32(2) + Self.u32(3)))
        let extra = box(
            "lens", Self.fb + box("lnin", Self.fb + [0, 0, 0, 0] + Self.u32(1) + Self.u32(2) + Self.u32(3) + [9, 9]))
        for bytes in [plain, extra] {
            let (b, _, _) = BoxParser().parseBoxes(box("lnsc", bytes))
            let lnin = try #require(b.first?.find("lens", "lnin"))
            #expect(lnin.payload(LensIntrinsicsBox.self)?.fields.count == 5)
            #expect(try b[0].serialized() == box("lnsc", bytes))
        }
        // lnin with flags 1 but too short: kept raw with a diagnostic, still byte-exact.
        let short = box("lnsc", box("lens", Self.fb + box("lnin", [0, 0, 0, 1] + [0, 0, 0, 0] + Self.u32(1))))
        let (b, _, _) = BoxParser().parseBoxes(short)
        let lnin = try #require(b.first?.find("lens", "lnin"))
        #expect(lnin.malformed != nil)
        #expect(try b[0].serialized() == short)
    }

    @Test func projKeyedByGrandparent() throws {
        // Apple: vexu/proj/equi is a kind box (FullBox, no fields); Google: sv3d/proj/equi holds four bounds.
        let apple = box("vexu", box("proj", box("prji", Self.fb + Array("equi".utf8)) + box("equi", Self.fb)))
        let google = box(
            "sv3d",
            box("svhd", Self.fb + Array("x\0".utf8))
                + box(
                    "proj",
                    box("prhd", Self.fb + Self.u32(0) + Self.u32(0) + Self.u32(0))
                        + box(
                            "equi", Self.fb + Self.u32(0) + Self.u32(0) + Self.u32(0x4000_0000) + Self.u32(0x4000_0000))
                ))
        let mesh = box(
            "sv3d",
            box(
                "proj",
                box("prhd", Self.fb + Self.u32(0) + Self.u32(0) + Self.u32(0))
                    + box("mshp", Self.fb + [1, 2, 3, 4, 5, 6, 7, 8])))
        let (boxes, _, diags) = BoxParser().parseBoxes(apple + google + mesh)
        #expect(diags.isEmpty)
        #expect(boxes[0].find("proj", "equi")?.payload(EquirectangularProjectionKindBox.self) != nil)
        #expect(
            boxes[1].find("proj", "equi")?.payload(EquirectangularProjectionBox.self)?.storedFields == [
                0, 0, 0x4000_0000, 0x4000_0000,
            ])
        #expect(boxes[1].find("proj", "prji") == nil)
        guard case .raw = boxes[2].find("proj", "mshp")?.fields else { Issue.record("mshp should be kept raw"); return }
        for (b, bytes) in zip(boxes, [apple, google, mesh]) { #expect(try b.serialized() == bytes) }
    }

    @Test func unknownKindsAndChildrenSurvive() throws {
        // An unknown projection kind with its own (unknown) kind box, and a pkin value 0 ("set elsewhere").
        let bytes = box(
            "vexu",
            box("proj", box("prji", Self.fb + Array("cylx".utf8)) + box("cylx", Self.fb + [1, 2]))
                + box("pack", box("pkin", Self.fb + [0, 0, 0, 0]) + box("what", [7])))
        let (boxes, _, diags) = BoxParser().parseBoxes(bytes)
        #expect(diags.isEmpty)
        #expect(boxes[0].find("proj", "prji")?.payload(ProjectionInformationBox.self)?.projectionKind == "cylx")
        #expect(boxes[0].find("pack", "pkin")?.payload(ViewPackingInformationBox.self)?.packingKind.rawValue == 0)
        #expect(try boxes[0].serialized() == bytes)
    }
}
