import BinaryIO

extension MVHEVCStream {
    /// The header of a stream already stored in a movie: the parameter sets and SEI of its `hvcC` (layer 0) and
    /// `lhvC` (layer 1) records, no access units. The inverse of the sample entry a spatial-video muxer builds from a
    /// header: `hvcC` carries VPS, base SPS, base PPS and the prefix SEI; `lhvC` the layer-1 SPS and PPS.
    /// Throws when a record lacks the VPS, a base SPS or PPS, the layer-1 parameter sets, or carries more than one SEI.
    public init(hvcC: HEVCDecoderConfigurationRecord, lhvC: LHEVCDecoderConfigurationRecord) throws(ParseError) {
        func units(_ arrays: [NALUnitArray], _ type: NALUnitType) throws(ParseError) -> [NALUnit] {
            var out: [NALUnit] = []
            for a in arrays where a.nalUnitType == type {
                for b in a.nalUnits { out.append(try NALUnit(bytes: b)) }
            }
            return out
        }
        let vpsList = try units(hvcC.arrays, .vps), sps = try units(hvcC.arrays, .sps), pps = try units(hvcC.arrays, .pps)
        let seis = try units(hvcC.arrays, .prefixSEI)
        let layerSPS = try units(lhvC.arrays, .sps), layerPPS = try units(lhvC.arrays, .pps)
        guard vpsList.count == 1, let vps = vpsList.first else { throw ParseError(.invalidValue, offset: 0, path: "hvcC", "hvcC holds \(vpsList.count) VPS; one is needed") }
        guard let firstSPS = sps.first, !pps.isEmpty else { throw ParseError(.invalidValue, offset: 0, path: "hvcC", "hvcC lacks the base layer's SPS or PPS") }
        guard !layerSPS.isEmpty, !layerPPS.isEmpty else { throw ParseError(.invalidValue, offset: 0, path: "lhvC", "lhvC lacks layer 1's SPS or PPS") }
        guard seis.count == 1, let sei = seis.first else { throw ParseError(.invalidValue, offset: 0, path: "hvcC", "hvcC holds \(seis.count) prefix SEI NAL units; one (the view-position SEI) is expected") }
        let v = try VideoParameterSet(nal: vps)
        let s = try SequenceParameterSet(nal: firstSPS)
        var timing: (UInt32, UInt32)? = nil
        if s.vuiPresent && s.vui.timingInfoPresent { timing = (s.vui.numUnitsInTick, s.vui.timeScale) }
        self.init(vps: vps, baseSPS: sps, basePPS: pps, layerSPS: layerSPS, layerPPS: layerPPS, sei: sei, accessUnits: [],
                  videoParameterSet: v, width: s.croppedWidth, height: s.croppedHeight, timing: timing,
                  maxNumReorderPics: Int(s.maxNumReorderPics.last ?? 0))
    }
}
