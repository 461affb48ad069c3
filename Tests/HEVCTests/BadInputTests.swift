import BinaryIO
import TestSupport
import Testing

@testable import HEVC

@Suite struct BadInputTests {
    @Test func expGolombWithTooManyLeadingZeros() {
        // PPS: pps_pic_parameter_set_id with 40 leading zeros.
        let rbsp: [UInt8] = [0, 0, 0, 0, 0, 0x80, 0x80]
        do {
            _ = try PictureParameterSet(rbsp: rbsp, header: NALHeader(type: .pps), baseOffset: 1000)
            Issue.record("expected error")
        } catch {
            #expect(error.code == .expGolombOverflow)
            #expect((1000..<1008).contains(error.offset ?? 0))
        }
    }

    @Test func idsOutOfRange() {
        // pps_pic_parameter_set_id = 64: ue(64) = 0000001 000001 → bits 0000 0010 0000 1...
        var w = BitWriter(); w.writeUE(64); w.writeUE(0); w.writeRBSPTrailingBits()
        #expect(throws: ParseError(.invalidValue, offset: 0, "")) {
            try PictureParameterSet(rbsp: w.bytes, header: NALHeader(type: .pps))
        }
        // sps_seq_parameter_set_id = 16.
        var s = SequenceParameterSet()
        s.maxDecPicBufferingMinus1 = [0]; s.maxNumReorderPics = [0]; s.maxLatencyIncreasePlus1 = [0]
        s.spsId = 16
        #expect(throws: ParseError(.invalidValue, offset: 0, "")) { try s.rbsp() }
    }

    @Test func vpsClaimingTooManyLayers() throws {
        var v = VideoParameterSet()
        v.maxLayersMinus1 = 20
        v.extensionFlag = true
        v.extensionAlignmentBits = RawBits(bytes: [0xFF], bitCount: 0)
        // Write the base part with a (wrong) empty extension payload, then parse it back.
        var w = BitWriter()
        w.writeBits(0, 4); w.writeFlag(true); w.writeFlag(true); w.writeBits(20, 6); w.writeBits(0, 3);
        w.writeFlag(true)
        w.writeBits(0xFFFF, 16)
        w.writeBits(0, 2); w.writeFlag(false); w.writeBits(1, 5); w.writeBits(0x6000_0000, 32); w.writeBits(0, 48);
        w.writeBits(30, 8)
        w.writeFlag(false); w.writeUE(0); w.writeUE(0); w.writeUE(0)
        w.writeBits(0, 6); w.writeUE(0); w.writeFlag(false)
        w.writeFlag(true)  // vps_extension_flag
        while !w.isByteAligned { w.writeFlag(true) }
        w.writeBits(0xFFFF_FFFF, 32)
        w.writeRBSPTrailingBits()
        do {
            _ = try VideoParameterSet(rbsp: w.bytes, header: NALHeader(type: .vps), baseOffset: 200)
            Issue.record("expected error")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect((error.offset ?? 0) > 200)
        }
    }

    @Test(.needs(.sharedMedia))
    func truncatedParameterSetsThrow() throws {
        let b = try #require(Shared.bytes(Shared.root.appendingPathComponent("fixtures/mvhevc_96x64_6f.hevc")))
        var store = ParameterSetStore()
        for nal in try AnnexB.split(b) {
            guard [.vps, .sps, .pps].contains(nal.type) || nal.type.isVCL else { continue }
            for cut in stride(from: 3, to: min(nal.bytes.count, 60), by: 1) {
                let t = try NALUnit(bytes: Array(nal.bytes.prefix(cut)))
                switch t.type {
                case .vps: _ = try? VideoParameterSet(nal: t)
                case .sps: _ = try? SequenceParameterSet(nal: t, vps: store.vps[0])
                case .pps: _ = try? PictureParameterSet(nal: t)
                default:
                    if let ctx = try? store.context(forSlice: nal) { _ = try? SliceSegmentHeader(nal: t, context: ctx) }
                }
            }
            _ = try? store.add(nal)
        }
    }

    @Test func sliceWithMissingPPSIsADanglingReference() throws {
        let nal = NALUnit(header: NALHeader(type: .trailR), rbsp: [0xA0, 0x80])
        #expect(throws: ParseError(.danglingReference, offset: 0, "")) {
            try ParameterSetStore().context(forSlice: nal)
        }
    }
}

/// Inputs the HEVC fuzzer found, minimised by libFuzzer.
@Suite struct HEVCFuzzRegressionTests {
    /// A VPS extension whose `dpb_size()` codes sub-layer 0 and skips a higher sub-layer: the parser stored
    /// only the coded sub-layers while the writer indexed them by sub-layer, so writing it back failed.
    @Test func dpbSizeWithUncodedSubLayer() throws {
        let hex = "00000140010411ff3600df4838a62be3a096877856f056ffdf2be48519001bdedf537472696e678778"
        var bytes: [UInt8] = []
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            bytes.append(UInt8(hex[i..<j], radix: 16) ?? 0)
            i = j
        }
        let nal = try #require(try AnnexB.split(bytes).first)
        let vps = try VideoParameterSet(nal: nal)
        #expect(try vps.rbsp() == nal.rbsp)
        for d in vps.vpsExtension?.dpbSizes ?? [] {
            #expect(d.maxNumReorderPics.count == d.subLayerDpbInfoPresent.count)
            #expect(d.maxDecPicBufferingMinus1.count == d.subLayerDpbInfoPresent.count)
        }
    }
}
