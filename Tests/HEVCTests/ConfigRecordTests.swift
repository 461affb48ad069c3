import BinaryIO
import Testing

@testable import HEVC

@Suite struct ConfigRecordTests {
    @Test(.needs(.sharedMedia)) func recordsRoundTripByteIdentically() throws {
        var n = 0
        for url in Shared.movieFiles {
            let data = try #require(Shared.bytes(url))
            let m = try #require(MiniMovie(data))
            let h = try HEVCDecoderConfigurationRecord(parsing: m.hvcC)
            #expect(try h.serialized() == m.hvcC, "\(url.lastPathComponent) hvcC")
            n += 1
            if let l = m.lhvC {
                let r = try LHEVCDecoderConfigurationRecord(parsing: l)
                #expect(try r.serialized() == l, "\(url.lastPathComponent) lhvC")
                n += 1
            }
        }
        print("configuration records round-tripped: \(n)")
    }

    @Test(.needs(.sharedMedia)) func appleLhvCHeader() throws {
        let data = try #require(Shared.bytes(Shared.stereoSpatial))
        let m = try #require(MiniMovie(data))
        let l = try #require(m.lhvC)
        #expect(Array(l.prefix(6)) == [0x01, 0xf0, 0x00, 0xfc, 0xcb, 0x02])
        let r = try LHEVCDecoderConfigurationRecord(parsing: l)
        #expect(r.lengthSize == 4 && r.arrays.map { $0.nalUnitType } == [.sps, .pps])
    }

    /// Building hvcC/lhvC from the parameter sets reproduces the fields Apple wrote.
    @Test(.needs(.sharedMedia)) func buildFromParameterSets() throws {
        let data = try #require(Shared.bytes(Shared.stereoSpatial))
        let m = try #require(MiniMovie(data))
        let orig = try HEVCDecoderConfigurationRecord(parsing: m.hvcC)
        let nals = orig.nalUnits()
        let built = try HEVCDecoderConfigurationRecord(
            vps: nals.filter { $0.type == .vps }, sps: nals.filter { $0.type == .sps },
            pps: nals.filter { $0.type == .pps }, sei: nals.filter { $0.type == .prefixSEI })
        #expect(built.profileIdc == orig.profileIdc)
        #expect(built.levelIdc == orig.levelIdc)
        #expect(built.compatibilityFlags == orig.compatibilityFlags)
        #expect(built.constraintIndicatorFlags == orig.constraintIndicatorFlags)
        #expect(built.chromaFormatIdc == orig.chromaFormatIdc)
        #expect(built.bitDepthLumaMinus8 == orig.bitDepthLumaMinus8)
        #expect(built.arrays.map { $0.nalUnits } == orig.arrays.map { $0.nalUnits })
        let back = try HEVCDecoderConfigurationRecord(parsing: try built.serialized())
        #expect(back == built)
        let lbytes = try #require(m.lhvC)
        let lorig = try LHEVCDecoderConfigurationRecord(parsing: lbytes)
        let lnals = lorig.nalUnits()
        let lbuilt = try LHEVCDecoderConfigurationRecord(
            sps: lnals.filter { $0.type == .sps }, pps: lnals.filter { $0.type == .pps })
        #expect(try lbuilt.serialized() == (try lorig.serialized()))
    }

    @Test func truncatedRecordIsAnError() {
        #expect(throws: ParseError(.truncated, offset: 0, "")) {
            try HEVCDecoderConfigurationRecord(parsing: [1, 1, 0x60])
        }
        // One array claiming a 100-byte NAL with 2 bytes present.
        let lhvc: [UInt8] = [1, 0xf0, 0, 0xfc, 0xcb, 1, 0xA1, 0, 1, 0, 100, 0x42, 0x01]
        #expect(throws: ParseError(.truncated, offset: 0, "")) { try LHEVCDecoderConfigurationRecord(parsing: lhvc) }
    }
}
