import BinaryIO
import Testing

@testable import HEVC

/// Round trips alone cannot catch a misparse (re-encoding misread values gives the same bits), so this
/// checks that parsing ends exactly where the modelled syntax should end.
@Suite struct ParameterSetSemanticsTests {
    @Test(.needs(.sharedMedia)) func parsingConsumesExactlyTheModelledSyntax() throws {
        for (file, nals) in try allSharedNALUnits() {
            var vpsById: [UInt8: VideoParameterSet] = [:]
            for nal in nals {
                switch nal.type {
                case .vps:
                    let v = try VideoParameterSet(nal: nal)
                    vpsById[v.vpsId] = v
                    if let e = v.vpsExtension {
                        print(
                            "\(file) VPS layers=\(v.maxLayersMinus1 + 1) ids=\(e.layerIdInNuh) views=\(e.viewIdVal) dep=\(e.directDependency) defaultActive=\(e.defaultRefLayersActive) ptls=\(e.profileTierLevels.map { $0.profileIdc }) ols=\(e.outputLayerSets.count) rep=\(e.repFormats.map { "\($0.picWidth)x\($0.picHeight)" }) vui=\(e.vuiPresent) tail=\(v.extensionData.bitCount)"
                        )
                        if !e.vuiPresent { #expect(v.extensionData.bitCount <= 1, "VPS tail in \(file)") }
                    } else {
                        #expect(v.extensionData.bitCount == 0 || v.extensionFlag, "VPS tail in \(file)")
                    }
                case .sps:
                    let v = SequenceParameterSet.referencedVPSId(in: nal).flatMap { vpsById[$0] }
                    let s = try SequenceParameterSet(nal: nal, vps: v)
                    print(
                        "\(file) SPS layer=\(s.header.layerId) id=\(s.spsId) multi=\(s.isMultiLayerExtension) \(s.picWidthInLumaSamples)x\(s.picHeightInLumaSamples) rps=\(s.shortTermRefPicSets.count) vui=\(s.vuiPresent) ext=\(s.extensionPresent) tail=\(s.extensionData.bitCount)"
                    )
                    if !s.extension3DFlag && !s.sccExtensionFlag && s.extension4Bits == 0 {
                        #expect(s.extensionData.isEmpty, "SPS tail in \(file)")
                    }
                case .pps:
                    let p = try PictureParameterSet(nal: nal)
                    print(
                        "\(file) PPS layer=\(p.header.layerId) id=\(p.ppsId) sps=\(p.spsId) extra=\(p.numExtraSliceHeaderBits) tail=\(p.extensionData.bitCount)"
                    )
                    if !p.extension3DFlag && !p.sccExtensionFlag && p.extension4Bits == 0 && !p.colourMappingEnabled {
                        #expect(p.extensionData.isEmpty, "PPS tail in \(file)")
                    }
                default: break
                }
            }
        }
    }
}
