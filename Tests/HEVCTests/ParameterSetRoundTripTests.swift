import BinaryIO
import Testing

@testable import HEVC

@Suite struct ParameterSetRoundTripTests {
    @Test(.needs(.sharedMedia)) func everyParameterSetAndSEIRoundTrips() throws {
        var counts: [String: Int] = [:]
        for (file, nals) in try allSharedNALUnits() {
            var vpsById: [UInt8: VideoParameterSet] = [:]
            for nal in nals {
                do {
                    switch nal.type {
                    case .vps:
                        let v = try VideoParameterSet(nal: nal)
                        vpsById[v.vpsId] = v
                        #expect(try v.nalUnit().bytes == nal.bytes, "VPS in \(file)")
                        counts["VPS", default: 0] += 1
                    case .sps:
                        let v = SequenceParameterSet.referencedVPSId(in: nal).flatMap { vpsById[$0] }
                        let s = try SequenceParameterSet(nal: nal, vps: v)
                        #expect(try s.nalUnit(vps: v).bytes == nal.bytes, "SPS in \(file)")
                        counts["SPS", default: 0] += 1
                    case .pps:
                        let p = try PictureParameterSet(nal: nal)
                        #expect(try p.nalUnit().bytes == nal.bytes, "PPS in \(file)")
                        counts["PPS", default: 0] += 1
                    case .prefixSEI, .suffixSEI:
                        let s = try SEIMessageList(nal: nal)
                        #expect(s.nalUnit().bytes == nal.bytes, "SEI in \(file)")
                        counts["SEI", default: 0] += 1
                        counts["SEI messages", default: 0] += s.messages.count
                    default: break
                    }
                } catch {
                    Issue.record("\(file) NAL at \(nal.offset) type \(nal.type) layer \(nal.layerId): \(error)")
                }
            }
        }
        print("parameter-set round trips: \(counts.sorted { $0.key < $1.key })")
        #expect(counts["VPS", default: 0] > 0 && counts["SPS", default: 0] > 0 && counts["PPS", default: 0] > 0)
    }

    @Test(.needs(.sharedMedia)) func stereoSpatialVPSExtension() throws {
        let b = try #require(Shared.bytes(Shared.stereoSpatial))
        let m = try #require(MiniMovie(b))
        let h = try HEVCDecoderConfigurationRecord(parsing: m.hvcC)
        let vpsNAL = try #require(h.nalUnits().first { $0.type == .vps })
        let vps = try VideoParameterSet(nal: vpsNAL)
        let e = try #require(vps.vpsExtension)
        #expect(vps.maxLayersMinus1 == 1)
        #expect(e.scalabilityMask[1])
        #expect(e.layerIdInNuh == [0, 1])
        #expect(e.viewIdVal == [0, 1])
        #expect(e.directDependency[1] == [true])
        #expect(e.defaultRefLayersActive)
        #expect(vps.profileTierLevel(index: 2)?.profileIdc == 6)
        #expect(vps.viewId(layerId: 1) == 1)
    }

    @Test func editedSPSReencodes() throws {
        var s = SequenceParameterSet()
        s.picWidthInLumaSamples = 64; s.picHeightInLumaSamples = 64
        s.maxDecPicBufferingMinus1 = [1]; s.maxNumReorderPics = [0]; s.maxLatencyIncreasePlus1 = [0]
        s.profileTierLevel.profileIdc = 1
        let nal = try s.nalUnit()
        var back = try SequenceParameterSet(nal: nal)
        #expect(back.picWidthInLumaSamples == 64)
        back.spsId = 3
        back.header.layerId = 1
        let again = try SequenceParameterSet(nal: try back.nalUnit())
        #expect(again.spsId == 3 && again.header.layerId == 1)
    }
}
