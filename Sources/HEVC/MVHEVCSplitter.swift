import BinaryIO

/// The two single-layer streams recovered by ``MVHEVCSplitter``.
public struct SplitLayers: Sendable {
    /// Layer 0 as a single-layer Annex B stream.
    public var base: [UInt8]
    /// Layer 1 rewritten as a single-layer Annex B stream (`nuh_layer_id` 0, ids renumbered from 0).
    public var second: [UInt8]
    /// True when SEI 176 (or the default order) says layer 0 is the left eye.
    public var baseIsLeft: Bool
    /// Access units written.
    public var accessUnits: Int
    public var left: [UInt8] { baseIsLeft ? base : second }
    public var right: [UInt8] { baseIsLeft ? second : base }
}

/// Splits a two-layer MV-HEVC stream whose layer 1 does not use inter-layer prediction (what
/// ``MVHEVCAssembler`` writes) back into two single-layer HEVC streams, without decoding.
///
/// Layer 1 is rewritten: `nuh_layer_id` 0, SPS/PPS ids renumbered from 0 in order of appearance, the POC LSB of
/// IDR slices and `inter_layer_pred_enabled_flag` removed. The VPS loses its multilayer part. For files made by
/// the assembler with the full SPS form, both outputs equal the original inputs byte for byte.
/// Streams whose layer 1 uses inter-layer prediction (Apple's encoder, x265 multiview) cannot be split this
/// way: the error says to decode them with FFmpeg ≥ 7.1 instead.
public enum MVHEVCSplitter {
    /// `parameterSets`: NAL units from `hvcC` + `lhvC` (may be empty for Annex B input with in-band sets);
    /// `accessUnits`: the samples' NAL units in decode order.
    ///
    /// With `baseOnly`, only layer 0 is written (``SplitLayers/second`` stays empty): the base layer never depends on
    /// layer 1, so this works for inter-layer-predicted streams too (the base-layer eye, losslessly).
    public static func split(parameterSets: [NALUnit], accessUnits: [[NALUnit]], baseOnly: Bool = false)
        throws(ParseError) -> SplitLayers
    {
        var sets = ParameterSets()
        for n in parameterSets { _ = try sets.collect(n) }
        var aus: [[NALUnit]] = []
        for au in accessUnits {
            var rest: [NALUnit] = []
            for n in au {
                if try !sets.collect(n) { rest.append(n) }
            }
            aus.append(rest)
        }
        guard let vpsN = sets.vps else { throw ParseError(.invalidValue, "the stream has no VPS") }
        let mvVPS = try VideoParameterSet(nal: vpsN)
        guard let ext = mvVPS.vpsExtension, mvVPS.layerIds.count == 2, mvVPS.layerIds[1] == 1 else {
            throw ParseError(
                .unsupported, offset: vpsN.offset, "not a two-layer MV-HEVC stream (the VPS has no second layer)")
        }
        if !baseOnly && ext.defaultRefLayersActive && !mvVPS.directReferenceLayers(of: 1).isEmpty {
            throw ParseError(.unsupported, offset: vpsN.offset, interLayerPredictionHint)
        }
        // Parameter sets as the two layers see them.
        var store = ParameterSetStore()
        try store.add(vpsN)
        for (_, n) in sets.sps { try store.add(n) }
        for (_, n) in sets.pps { try store.add(n) }
        let singleNAL = try singleLayerVPS(mvVPS)
        let singleVPS = try VideoParameterSet(nal: singleNAL)
        var baseHeader: [NALUnit] = [singleNAL]
        for (layer, n) in sets.sps where layer == 0 { baseHeader.append(n) }
        for (layer, n) in sets.pps where layer == 0 { baseHeader.append(n) }
        let layer1 =
            baseOnly
            ? Layer1Sets(header: [singleNAL])
            : try Layer1Sets(sets, vps: mvVPS, singleVPS: singleVPS, singleNAL: singleNAL)
        // Which eye is layer 0: SEI 176 from the configuration records (where a muxer keeps it, possibly
        // nowhere else), then from the access units; without one, layer 0 is the left eye.
        var baseIsLeft = true
        func readEyeOrder(_ list: SEIMessageList) {
            for m in list.messages where m.payloadType == 176 {
                if let info = m.threeDimensionalReferenceDisplays, let d = info.displays.first {
                    baseIsLeft = d.leftViewId == mvVPS.viewId(layerId: 0)
                }
            }
        }
        for n in parameterSets where n.type == .prefixSEI && n.layerId == 0 {
            if let list = try? SEIMessageList(nal: n) { readEyeOrder(list) }
        }
        var baseOut: [UInt8] = [], secondOut: [UInt8] = []
        for (i, au) in aus.enumerated() {
            var b: [NALUnit] = [], s: [NALUnit] = []
            for n in au {
                if n.layerId == 0 {
                    if n.type == .prefixSEI, let list = try? SEIMessageList(nal: n) {
                        readEyeOrder(list)
                        // SEI 176 describes the stereo pair; it has no meaning in a single-layer stream.
                        if !list.messages.isEmpty && list.messages.allSatisfy({ $0.payloadType == 176 }) { continue }
                    }
                    b.append(n)
                    continue
                }
                guard n.layerId == 1 else {
                    throw ParseError(
                        .unsupported, offset: n.offset,
                        "NAL unit with nuh_layer_id \(n.layerId): only two layers are supported")
                }
                if baseOnly { continue }
                s.append(try layer1.rewrite(n, accessUnit: i, store: store, singleVPS: singleVPS))
            }
            if i == 0 { b = baseHeader + b; s = layer1.header + s }
            baseOut += AccessUnitWriter.annexB(b)
            secondOut += AccessUnitWriter.annexB(s)
        }
        return SplitLayers(base: baseOut, second: secondOut, baseIsLeft: baseIsLeft, accessUnits: aus.count)
    }

    /// Why an inter-layer-predicted stream is refused, with the two commands that work on it.
    static let interLayerPredictionHint =
        "layer 1 uses inter-layer prediction (as Apple's and x265's MV-HEVC encoders do), "
        + "so it cannot be separated without decoding; what works: the base-layer eye alone, copied losslessly, with "
        + "`spatial-media split IN --copy --left L.hevc` (or --right, whichever eye is the base layer), or both eyes decoded "
        + "and re-encoded with `spatial-media split IN --left L.mp4 --right R.mp4` (FFmpeg 7.1 or newer)"

    /// The stream's parameter sets in order of appearance (first occurrence wins; repeats must be identical).
    struct ParameterSets {
        var vps: NALUnit? = nil
        var sps: [(UInt8, NALUnit)] = [], pps: [(UInt8, NALUnit)] = []
        var seen: [String: [UInt8]] = [:]

        /// Takes `n` when it is a VPS, SPS or PPS (true), leaves any other NAL unit (false).
        mutating func collect(_ n: NALUnit) throws(ParseError) -> Bool {
            guard n.type == .vps || n.type == .sps || n.type == .pps else { return false }
            let id: UInt32
            switch n.type {
            case .vps: id = UInt32(n.bytes.count > 2 ? n.bytes[2] >> 4 : 0)
            case .sps:
                let v = vps.flatMap { try? VideoParameterSet(nal: $0) }
                id = try SequenceParameterSet(nal: n, vps: v).spsId
            default: id = try PictureParameterSet(nal: n).ppsId
            }
            let key = "\(n.type.rawValue)/\(id)"
            if let old = seen[key] {
                guard old == n.bytes else {
                    throw ParseError(
                        .unsupported, offset: n.offset, "\(n.type.name) \(id) changes mid-stream (not supported)")
                }
                return true
            }
            seen[key] = n.bytes
            switch n.type {
            case .vps: if vps == nil { vps = n }
            case .sps: sps.append((n.layerId, n))
            default: pps.append((n.layerId, n))
            }
            return true
        }
    }

    /// The multilayer VPS without its extension and second layer.
    static func singleLayerVPS(_ mvVPS: VideoParameterSet) throws(ParseError) -> NALUnit {
        var single = mvVPS
        single.maxLayersMinus1 = 0
        single.maxLayerId = 0
        single.numLayerSetsMinus1 = 0
        single.layerIdIncluded = [[]]
        single.extensionFlag = false
        single.extensionAlignmentBits = .empty
        single.vpsExtension = nil
        single.vui = nil
        single.extension2Flag = nil
        single.extensionData = .empty
        return try single.nalUnit()
    }

    /// Layer 1's parameter sets renumbered from 0 as a single-layer stream's, and the rewriting of its NAL units.
    struct Layer1Sets {
        /// Single-layer VPS, SPSs and PPSs that start the second stream.
        var header: [NALUnit]
        var spsMap: [UInt32: UInt32] = [:], ppsMap: [UInt32: UInt32] = [:]
        var newSPS: [UInt32: SequenceParameterSet] = [:], newPPS: [UInt32: PictureParameterSet] = [:]

        init(header: [NALUnit]) { self.header = header }

        init(_ sets: ParameterSets, vps mvVPS: VideoParameterSet, singleVPS: VideoParameterSet, singleNAL: NALUnit)
            throws(ParseError)
        {
            header = [singleNAL]
            for (layer, n) in sets.sps where layer == 1 {
                var s = try SequenceParameterSet(nal: n, vps: mvVPS)
                let old = s.spsId
                let nid = UInt32(spsMap.count)
                if s.isMultiLayerExtension { s = try MVHEVCSplitter.fullForm(s, vps: mvVPS) }
                MVHEVCAssembler.restoreVideoSignalType(&s, vps: mvVPS)
                s.header.layerId = 0
                s.spsId = nid
                s.vpsId = singleVPS.vpsId
                let out = try s.nalUnit(vps: singleVPS)
                spsMap[old] = nid
                newSPS[old] = try SequenceParameterSet(nal: out, vps: singleVPS)
                header.append(out)
            }
            for (layer, n) in sets.pps where layer == 1 {
                var p = try PictureParameterSet(nal: n)
                guard let ns = spsMap[p.spsId] else {
                    throw ParseError(
                        .danglingReference, offset: n.offset,
                        "layer-1 PPS \(p.ppsId) refers to SPS \(p.spsId), which is not a layer-1 SPS")
                }
                let old = p.ppsId
                let nid = UInt32(ppsMap.count)
                p.header.layerId = 0
                p.ppsId = nid
                p.spsId = ns
                let out = try p.nalUnit()
                ppsMap[old] = nid
                newPPS[old] = try PictureParameterSet(nal: out)
                header.append(out)
            }
            guard !spsMap.isEmpty && !ppsMap.isEmpty else {
                throw ParseError(.invalidValue, "no layer-1 SPS/PPS found")
            }
        }

        /// A layer-1 NAL unit as a single-layer stream's: layer id 0; slices refer to the renumbered sets and lose
        /// inter-layer prediction (refused when it is used).
        func rewrite(_ n: NALUnit, accessUnit i: Int, store: ParameterSetStore, singleVPS: VideoParameterSet)
            throws(ParseError) -> NALUnit
        {
            if !n.type.isVCL {
                var bytes = n.bytes
                let hb = NALHeader(type: n.type, layerId: 0, temporalIdPlus1: n.header.temporalIdPlus1).bytes
                bytes[0] = hb[0]; bytes[1] = hb[1]
                return try NALUnit(bytes: bytes, offset: n.offset)
            }
            let ctx = try store.context(forSlice: n)
            let sh = try SliceSegmentHeader(nal: n, context: ctx)
            if !sh.dependentSliceSegment && sh.numActiveRefLayerPics(context: ctx) > 0 {
                throw ParseError(
                    .unsupported, offset: n.offset, "access unit \(i): " + MVHEVCSplitter.interLayerPredictionHint)
            }
            guard let s1 = newSPS[ctx.sps.spsId], let p1 = newPPS[ctx.pps.ppsId], let pid = ppsMap[ctx.pps.ppsId] else {
                throw ParseError(
                    .danglingReference, offset: n.offset, "layer-1 slice refers to a parameter set of layer 0")
            }
            return try sh.emit(context: SliceContext(vps: singleVPS, sps: s1, pps: p1)) { h in
                h.header.layerId = 0
                h.ppsId = pid
                h.interLayerPredEnabled = false
            }
        }
    }

    /// Annex B MV-HEVC input.
    public static func split(annexB: [UInt8], baseOnly: Bool = false) throws(ParseError) -> SplitLayers {
        try split(parameterSets: [], accessUnits: AccessUnits.group(try AnnexB.split(annexB)), baseOnly: baseOnly)
    }

    /// Converts a multilayer-form SPS (`sps_ext_or_max_sub_layers_minus1 = 7`) into the single-layer form, taking
    /// size, chroma and bit depth from the VPS rep_format, the DPB sizes from the VPS dpb_size, and a Main PTL.
    static func fullForm(_ s: SequenceParameterSet, vps: VideoParameterSet) throws(ParseError) -> SequenceParameterSet {
        guard let rf = vps.repFormat(layerId: 1), rf.chromaAndBitDepthPresent else {
            throw ParseError(.unsupported, "the multilayer SPS needs a VPS rep_format with chroma and bit depth")
        }
        var o = s
        o.maxSubLayersMinus1OrExt = vps.maxSubLayersMinus1
        o.temporalIdNesting = vps.temporalIdNesting
        var ptl = vps.profileTierLevel
        if let i = vps.profileTierLevelIndex(layerId: 1), let p = vps.profileTierLevel(index: i) {
            ptl.levelIdc = p.levelIdc
        }
        o.profileTierLevel = ptl
        o.chromaFormatIdc = UInt32(rf.chromaFormatIdc)
        o.separateColourPlane = rf.separateColourPlane
        o.picWidthInLumaSamples = UInt32(rf.picWidth)
        o.picHeightInLumaSamples = UInt32(rf.picHeight)
        o.conformanceWindowPresent = rf.conformanceWindowPresent
        o.conformanceWindow = rf.conformanceWindow
        o.bitDepthLumaMinus8 = UInt32(rf.bitDepthLumaMinus8)
        o.bitDepthChromaMinus8 = UInt32(rf.bitDepthChromaMinus8)
        o.subLayerOrderingInfoPresent = false
        let d = vps.vpsExtension?.dpbSizes.first
        let row = d?.maxDecPicBufferingMinus1.last ?? []
        o.maxDecPicBufferingMinus1 = [row.last ?? 4]
        o.maxNumReorderPics = [d?.maxNumReorderPics.last ?? 0]
        o.maxLatencyIncreasePlus1 = [d?.maxLatencyIncreasePlus1.last ?? 0]
        o.inferScalingList = false
        return o
    }
}
