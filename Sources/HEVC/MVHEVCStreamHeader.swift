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
        let vpsList = try units(hvcC.arrays, .vps), sps = try units(hvcC.arrays, .sps),
            pps = try units(hvcC.arrays, .pps)
        let seis = try units(hvcC.arrays, .prefixSEI)
        let layerSPS = try units(lhvC.arrays, .sps), layerPPS = try units(lhvC.arrays, .pps)
        guard vpsList.count == 1, let vps = vpsList.first else {
            throw ParseError(.invalidValue, path: "hvcC", "hvcC holds \(vpsList.count) VPS; one is needed")
        }
        guard let firstSPS = sps.first, !pps.isEmpty else {
            throw ParseError(.invalidValue, path: "hvcC", "hvcC lacks the base layer's SPS or PPS")
        }
        guard !layerSPS.isEmpty, !layerPPS.isEmpty else {
            throw ParseError(.invalidValue, path: "lhvC", "lhvC lacks layer 1's SPS or PPS")
        }
        guard seis.count == 1, let sei = seis.first else {
            throw ParseError(
                .invalidValue, path: "hvcC",
                "hvcC holds \(seis.count) prefix SEI NAL units; one (the view-position SEI) is expected")
        }
        let v = try VideoParameterSet(nal: vps)
        let s = try SequenceParameterSet(nal: firstSPS)
        var timing: (UInt32, UInt32)? = nil
        if s.vuiPresent && s.vui.timingInfoPresent { timing = (s.vui.numUnitsInTick, s.vui.timeScale) }
        self.init(
            vps: vps, baseSPS: sps, basePPS: pps, layerSPS: layerSPS, layerPPS: layerPPS, sei: sei, accessUnits: [],
            videoParameterSet: v, width: s.croppedWidth, height: s.croppedHeight, timing: timing,
            maxNumReorderPics: Int(s.maxNumReorderPics.last ?? 0))
    }
}

extension MVHEVCStream {
    /// The prefix SEI (layer 0) with payload 176 (three-dimensional reference displays information) naming the left and
    /// right view ids: view 0 is layer 0, so the left view is 0 when the base layer is the left eye.
    public static func viewSEI(baseIsLeft: Bool) throws(ParseError) -> NALUnit {
        var info = ThreeDimensionalReferenceDisplaysInfo()
        info.displays = [
            ThreeDimensionalReferenceDisplaysInfo.Display(
                leftViewId: baseIsLeft ? 0 : 1, rightViewId: baseIsLeft ? 1 : 0)
        ]
        return SEIMessageList(
            header: NALHeader(type: .prefixSEI), messages: [SEIMessage(payloadType: 176, payload: try info.payload())]
        ).nalUnit()
    }

    /// The header of a two-layer stream a multiview encoder made itself: its VPS (with the multilayer extension), the
    /// SPS/PPS of layer 0 and of layer 1 as the encoder wrote them (the layer-1 SPS without a video signal type when
    /// the VPS VUI describes layer 1), and our SEI 176 (``viewSEI(baseIsLeft:)``) in place
    /// of the encoder's own multiview SEI messages. Throws unless there is exactly one VPS declaring two layers, and
    /// SPS and PPS for both layers, all 8-bit 4:2:0.
    public init(encoderHeaders nals: [NALUnit], baseIsLeft: Bool) throws(ParseError) {
        func fail(_ m: String) -> ParseError { ParseError(.invalidValue, path: "encoder headers", m) }
        let vpsList = nals.filter { $0.type == .vps }
        guard vpsList.count == 1, let vpsNAL = vpsList.first else { throw fail("\(vpsList.count) VPS; one is needed") }
        let vps = try VideoParameterSet(nal: vpsNAL)
        guard vps.maxLayersMinus1 == 1, vps.vpsExtension != nil else {
            throw fail(
                "the VPS declares \(vps.maxLayersMinus1 + 1) layer(s) without a two-layer extension: not a two-view encode"
            )
        }
        let baseSPS = nals.filter { $0.type == .sps && $0.layerId == 0 },
            layerSPS = nals.filter { $0.type == .sps && $0.layerId == 1 }
        let basePPS = nals.filter { $0.type == .pps && $0.layerId == 0 },
            layerPPS = nals.filter { $0.type == .pps && $0.layerId == 1 }
        guard let first = baseSPS.first, !layerSPS.isEmpty, !basePPS.isEmpty, !layerPPS.isEmpty else {
            throw fail(
                "the SPS and PPS of both layers are needed (layer 0: \(baseSPS.count) SPS, \(basePPS.count) PPS; layer 1: \(layerSPS.count) SPS, \(layerPPS.count) PPS)"
            )
        }
        let s = try SequenceParameterSet(nal: first)
        guard s.chromaFormatIdc == 1, s.bitDepthLumaMinus8 == 0, s.bitDepthChromaMinus8 == 0 else {
            throw ParseError(
                .unsupported, path: "encoder headers", "the base layer is not 8-bit 4:2:0 (Multiview Main)")
        }
        var timing: (UInt32, UInt32)? = nil
        if s.vuiPresent && s.vui.timingInfoPresent { timing = (s.vui.numUnitsInTick, s.vui.timeScale) }
        // x265 copies the VUI's video signal type into the layer-1 SPS and writes no VPS VUI; a layer > 0 SPS must
        // leave the colours to the VPS VUI (HTM asserts it). So the VPS gets the VUI the assembly writes (the base
        // SPS's description for every layer) and the layer-1 SPS loses its video signal type.
        var (vps1, vps1NAL) = (vps, vpsNAL)
        if vps.videoSignalInfo(layerId: 1) == nil, var ext = vps.vpsExtension, vps.extensionData.bitCount == 0 {
            ext.vuiPresent = true
            vps1.vpsExtension = ext
            vps1.vui = MVHEVCAssembler.appleVPSVUI(baseSPS: s)
            vps1NAL = try vps1.nalUnit()
            vps1 = try VideoParameterSet(nal: vps1NAL)
        }
        let layer1 = try layerSPS.map { (n: NALUnit) throws(ParseError) -> NALUnit in
            var sps = try SequenceParameterSet(nal: n, vps: vps1)
            guard sps.vuiPresent, sps.vui.videoSignalTypePresent, vps1.videoSignalInfo(layerId: 1) != nil else {
                return n
            }
            MVHEVCAssembler.dropVideoSignalType(&sps)
            return try sps.nalUnit(vps: vps1)
        }
        self.init(
            vps: vps1NAL, baseSPS: baseSPS, basePPS: basePPS, layerSPS: layer1, layerPPS: layerPPS,
            sei: try MVHEVCStream.viewSEI(baseIsLeft: baseIsLeft), accessUnits: [], videoParameterSet: vps1,
            width: s.croppedWidth, height: s.croppedHeight, timing: timing,
            maxNumReorderPics: Int(s.maxNumReorderPics.last ?? 0))
    }
}

extension MVHEVCAccessUnit {
    /// One access unit as a multiview encoder returned it (both layers' NAL units, picture order count `poc`), for
    /// muxing with a header from ``MVHEVCStream/init(encoderHeaders:baseIsLeft:)``: parameter sets (kept in the
    /// sample entry) and SEI made only of multiview messages (payloads 176–180, replaced by the header's SEI 176) are
    /// dropped; layer-0 NAL units come first. Throws when there is no layer-0 or no layer-1 picture.
    public init(encoderOutput nals: [NALUnit], poc: Int) throws(ParseError) {
        let kept = nals.filter { n in
            if n.type == .vps || n.type == .sps || n.type == .pps { return false }
            if n.type == .prefixSEI, let list = try? SEIMessageList(nal: n), !list.messages.isEmpty,
                list.messages.allSatisfy({ (176...180).contains($0.payloadType) })
            {
                return false
            }
            return true
        }
        let base = kept.filter { $0.layerId == 0 }, second = kept.filter { $0.layerId != 0 }
        guard let slice = base.first(where: { $0.type.isVCL }), second.contains(where: { $0.type.isVCL }) else {
            throw ParseError(
                .invalidValue, "the encoder returned an access unit (POC \(poc)) without a picture of each layer")
        }
        self.init(nalUnits: base + second, poc: poc, isIRAP: slice.type.isIRAP, baseType: slice.type)
    }
}
