import BinaryIO

/// The parameter sets a slice segment header is parsed or written against.
public struct SliceContext: Sendable {
    public var vps: VideoParameterSet?
    public var sps: SequenceParameterSet
    public var pps: PictureParameterSet
    public init(vps: VideoParameterSet?, sps: SequenceParameterSet, pps: PictureParameterSet) {
        self.vps = vps; self.sps = sps; self.pps = pps
    }

    /// `ChromaArrayType`, taking the VPS rep_format for a multilayer-form SPS.
    public func chromaArrayType(layerId: UInt8) -> Int {
        let (fmt, sep) = chroma(layerId: layerId)
        return sep ? 0 : fmt
    }
    func chroma(layerId: UInt8) -> (Int, Bool) {
        if sps.isMultiLayerExtension, let rf = repFormat(layerId: layerId) {
            return (Int(rf.chromaFormatIdc), rf.separateColourPlane)
        }
        return (Int(sps.chromaFormatIdc), sps.separateColourPlane)
    }
    func repFormat(layerId: UInt8) -> RepFormat? {
        guard let vps, let e = vps.vpsExtension else { return nil }
        if sps.updateRepFormat {
            return Int(sps.repFormatIdx) < e.repFormats.count ? e.repFormats[Int(sps.repFormatIdx)] : nil
        }
        return vps.repFormat(layerId: layerId)
    }
    /// Luma width and height in samples (before cropping).
    public func pictureSize(layerId: UInt8) -> (width: Int, height: Int) {
        if sps.isMultiLayerExtension, let rf = repFormat(layerId: layerId) {
            return (Int(rf.picWidth), Int(rf.picHeight))
        }
        return (Int(sps.picWidthInLumaSamples), Int(sps.picHeightInLumaSamples))
    }
    /// `PicSizeInCtbsY`.
    public func picSizeInCtbs(layerId: UInt8) -> Int {
        let (w, h) = pictureSize(layerId: layerId)
        let ctb = 1 << min(max(sps.ctbLog2SizeY, 3), 6)
        return ((w + ctb - 1) / ctb) * ((h + ctb - 1) / ctb)
    }
}

/// Slice types (`slice_type`).
public enum SliceType: UInt32, Sendable, Codable {
    case b = 0
    case p = 1
    case i = 2
    public var letter: String { self == .b ? "B" : self == .p ? "P" : "I" }
}

/// One long-term reference entry of a slice header.
public struct LongTermRef: Hashable, Sendable {
    public var ltIdxSps: UInt32 = 0
    public var pocLsbLt: UInt32 = 0
    public var usedByCurrPicLt = false
    public var deltaPocMsbPresent = false
    public var deltaPocMsbCycleLt: UInt32 = 0
    public init() {}
}

/// A slice segment header (§7.3.6.1 with the multilayer additions of §F.7.3.6.1), the slice data kept as bytes.
///
/// ``emit(context:)`` writes the header from the properties, `byte_alignment()`, then the original slice
/// data, and applies emulation prevention — so an unchanged header reproduces the original NAL unit.
/// Presence of fields follows the context: writing with a VPS whose `default_ref_layers_active_flag` is 0
/// inserts `inter_layer_pred_enabled_flag`; writing a layer-1 IDR slice inserts `slice_pic_order_cnt_lsb`.
public struct SliceSegmentHeader: Hashable, Sendable {
    public var header: NALHeader
    public var firstSliceSegmentInPic = true
    public var noOutputOfPriorPics = false
    public var ppsId: UInt32 = 0
    public var dependentSliceSegment = false
    public var sliceSegmentAddress: UInt32 = 0
    /// `discardable_flag`, `cross_layer_bla_flag`, `slice_reserved_flag[]` (num_extra_slice_header_bits of them).
    public var extraBits: [Bool] = []
    public var sliceTypeRaw: UInt32 = 2
    public var picOutput = true
    public var colourPlaneId: UInt8 = 0
    public var pocLsb: UInt32 = 0
    public var shortTermRefPicSetSpsFlag = false
    public var shortTermRefPicSet = ShortTermRefPicSet()
    public var shortTermRefPicSetIdx: UInt32 = 0
    public var numLongTermSps: UInt32 = 0
    public var numLongTermPics: UInt32 = 0
    public var longTermRefs: [LongTermRef] = []
    public var temporalMvpEnabled = false
    public var interLayerPredEnabled = false
    public var numInterLayerRefPicsMinus1: UInt32 = 0
    public var interLayerPredLayerIdc: [UInt32] = []
    public var saoLuma = false
    public var saoChroma = false
    public var numRefIdxActiveOverride = false
    public var numRefIdxL0ActiveMinus1: UInt32 = 0
    public var numRefIdxL1ActiveMinus1: UInt32 = 0
    public var refPicListModificationL0 = false
    public var listEntryL0: [UInt32] = []
    public var refPicListModificationL1 = false
    public var listEntryL1: [UInt32] = []
    public var mvdL1Zero = false
    public var cabacInit = false
    public var collocatedFromL0 = true
    public var collocatedRefIdx: UInt32 = 0
    /// `pred_weight_table()`, verbatim.
    public var predWeightTable = RawBits.empty
    public var fiveMinusMaxNumMergeCand: UInt32 = 0
    public var qpDelta: Int32 = 0
    public var cbQpOffset: Int32 = 0
    public var crQpOffset: Int32 = 0
    public var cuChromaQpOffsetEnabled = false
    public var deblockingFilterOverride = false
    public var deblockingFilterDisabled = false
    public var betaOffsetDiv2: Int32 = 0
    public var tcOffsetDiv2: Int32 = 0
    public var loopFilterAcrossSlicesEnabled = false
    public var offsetLenMinus1: UInt32 = 0
    public var entryPointOffsetMinus1: [UInt32] = []
    /// `slice_segment_header_extension_data_byte`s (present when the PPS enables the extension).
    public var headerExtension: [UInt8] = []
    /// The slice data (RBSP bytes after `byte_alignment()`), kept verbatim.
    public var sliceData: [UInt8] = []
    /// Bit length of the header before `byte_alignment()` as parsed.
    public private(set) var headerBitLength = 0

    public init(header: NALHeader) { self.header = header }

    public var sliceType: SliceType? { SliceType(rawValue: sliceTypeRaw) }
    public var isIntra: Bool { sliceTypeRaw == 2 }

    /// Reads `slice_pic_parameter_set_id` without the parameter sets.
    public static func peekPPSId(_ nal: NALUnit) throws(ParseError) -> UInt32 {
        var r = BitReader(
            EmulationPrevention.remove(nal.bytes[2..<min(nal.bytes.count, 40)]), baseOffset: nal.offset &+ 2)
        _ = try r.readFlag()
        if nal.type.rawValue >= 16 && nal.type.rawValue <= 23 { _ = try r.readFlag() }
        let id = try r.readUE()
        guard id <= 63 else {
            throw ParseError(.invalidValue, offset: nal.offset &+ 2, "slice_pic_parameter_set_id = \(id) (max 63)")
        }
        return id
    }

    /// Parses the slice segment header of a VCL NAL unit.
    public init(nal: NALUnit, context: SliceContext) throws(ParseError) {
        guard nal.type.isVCL else {
            throw ParseError(.invalidValue, offset: nal.offset, "not a VCL NAL unit (\(nal.type))")
        }
        self.init(header: nal.header)
        var c = RBSPReader(nal.rbsp, baseOffset: nal.offset &+ 2)
        try code(&c, context)
        headerBitLength = c.position
        var one = false
        try c.flag(&one)
        try c.require(one, "alignment_bit_equal_to_one is 0")
        while c.position & 7 != 0 {
            var z = false
            try c.flag(&z)
            try c.require(!z, "alignment_bit_equal_to_zero is 1")
        }
        sliceData = Array(c.r.bytes[(c.position >> 3)...])
    }

    /// Writes header, `byte_alignment()` and the kept slice data as a NAL unit (emulation prevention applied).
    public func emit(context: SliceContext) throws(ParseError) -> NALUnit {
        var w = RBSPWriter()
        var copy = self
        try copy.code(&w, context)
        w.w.writeRBSPTrailingBits()
        return NALUnit(header: header, rbsp: w.w.bytes + sliceData)
    }

    /// Applies `change` to a copy and emits it (for example a new PPS id, POC LSB or layer id).
    public func emit(context: SliceContext, changing change: (inout SliceSegmentHeader) -> Void) throws(ParseError)
        -> NALUnit
    {
        var copy = self
        change(&copy)
        return try copy.emit(context: context)
    }

    /// `NumPicTotalCurr` (§7.4.7.2 plus active inter-layer pictures).
    public func numPicTotalCurr(context: SliceContext) -> Int {
        var n = currentRPS(context: context)?.numUsedByCurr ?? 0
        for (i, lt) in longTermRefs.enumerated() {
            if i < Int(numLongTermSps) {
                let k = Int(lt.ltIdxSps)
                if k < context.sps.usedByCurrPicLtSps.count && context.sps.usedByCurrPicLtSps[k] { n += 1 }
            } else if lt.usedByCurrPicLt {
                n += 1
            }
        }
        return n + numActiveRefLayerPics(context: context)
    }

    /// The short-term RPS in effect (coded in the slice or selected from the SPS).
    public func currentRPS(context: SliceContext) -> ShortTermRefPicSet? {
        if header.type.isIDR { return nil }
        if !shortTermRefPicSetSpsFlag { return shortTermRefPicSet }
        let i = Int(shortTermRefPicSetIdx)
        return i < context.sps.shortTermRefPicSets.count ? context.sps.shortTermRefPicSets[i] : nil
    }

    /// `NumActiveRefLayerPics` (sub-layer limits assumed not to exclude any reference layer).
    public func numActiveRefLayerPics(context: SliceContext) -> Int {
        guard header.layerId > 0, let vps = context.vps, let e = vps.vpsExtension else { return 0 }
        let nDirect = vps.directReferenceLayers(of: header.layerId).count
        if nDirect == 0 { return 0 }
        if e.defaultRefLayersActive { return nDirect }
        if !interLayerPredEnabled { return 0 }
        if e.maxOneActiveRefLayer || nDirect == 1 { return 1 }
        return Int(numInterLayerRefPicsMinus1) + 1
    }

    mutating func code<C: BitCoder>(_ c: inout C, _ ctx: SliceContext) throws(ParseError) {
        let sps = ctx.sps, pps = ctx.pps
        let t = header.type.rawValue
        let layerId = header.layerId
        try c.flag(&firstSliceSegmentInPic)
        if t >= 16 && t <= 23 { try c.flag(&noOutputOfPriorPics) }
        try c.ue(&ppsId, max: 63, "slice_pic_parameter_set_id")
        if c.isReading {
            try c.require(ppsId == pps.ppsId, "slice refers to PPS \(ppsId), context has PPS \(pps.ppsId)")
        }
        if sps.sccExtensionFlag || sps.extension3DFlag || pps.sccExtensionFlag || pps.extension3DFlag {
            throw c.fail(.unsupported, "slice headers of 3D-HEVC/SCC streams are not supported")
        }
        if !firstSliceSegmentInPic {
            if pps.dependentSliceSegmentsEnabled { try c.flag(&dependentSliceSegment) }
            let ctbs = ctx.picSizeInCtbs(layerId: layerId)
            try c.u32(&sliceSegmentAddress, ceilLog2(ctbs))
            try c.require(
                Int(sliceSegmentAddress) < max(ctbs, 1),
                "slice_segment_address \(sliceSegmentAddress) ≥ PicSizeInCtbsY \(ctbs)")
        } else if c.isReading {
            dependentSliceSegment = false
        }
        if !dependentSliceSegment {
            try c.flags(&extraBits, count: Int(pps.numExtraSliceHeaderBits))
            try c.ue(&sliceTypeRaw, max: 2, "slice_type")
            if pps.outputFlagPresent { try c.flag(&picOutput) }
            if sps.separateColourPlane && !sps.isMultiLayerExtension { try c.u8(&colourPlaneId, 2) }
            let isIDR = header.type.isIDR
            let pocLsbPresent = (layerId > 0 && !(ctx.vps?.pocLsbNotPresent(layerId: layerId) ?? false)) || !isIDR
            let pocBits = sps.log2MaxPicOrderCntLsb
            if pocLsbPresent { try c.u32(&pocLsb, pocBits) } else if c.isReading { pocLsb = 0 }
            if !isIDR { try codeReferencePictures(&c, ctx, pocBits: pocBits) }
            try codeInterLayerReferences(&c, ctx)
            let chromaType = ctx.chromaArrayType(layerId: layerId)
            if sps.sampleAdaptiveOffsetEnabled {
                try c.flag(&saoLuma)
                if chromaType != 0 { try c.flag(&saoChroma) }
            }
            if sliceTypeRaw <= 1 { try codeReferenceLists(&c, ctx, chroma: chromaType != 0) }
            try codeQuantisationAndFilters(&c, ctx)
        }
        if pps.tilesEnabled || pps.entropyCodingSyncEnabled {
            var n = UInt32(entryPointOffsetMinus1.count)
            try c.ue(&n, max: UInt32(max(1, ctx.picSizeInCtbs(layerId: layerId))), "num_entry_point_offsets")
            if n > 0 {
                try c.ue(&offsetLenMinus1, max: 31, "offset_len_minus1")
                try c.us(&entryPointOffsetMinus1, count: Int(n), bits: Int(offsetLenMinus1) + 1)
            } else if c.isReading {
                entryPointOffsetMinus1 = []
            }
        }
        if pps.sliceSegmentHeaderExtensionPresent {
            var n = UInt32(headerExtension.count)
            try c.ue(&n, max: 256, "slice_segment_header_extension_length")
            try c.list(&headerExtension, count: Int(n), { 0 }) { (c: inout C, v: inout UInt8) throws(ParseError) in
                try c.u8(&v, 8)
            }
        }
    }

    /// short_term_ref_pic_set (coded or chosen from the SPS), the long-term pictures and
    /// slice_temporal_mvp_enabled_flag of a non-IDR slice.
    private mutating func codeReferencePictures<C: BitCoder>(_ c: inout C, _ ctx: SliceContext, pocBits: Int)
        throws(ParseError)
    {
        let sps = ctx.sps
        try c.flag(&shortTermRefPicSetSpsFlag)
        let numSets = sps.shortTermRefPicSets.count
        if !shortTermRefPicSetSpsFlag {
            try shortTermRefPicSet.code(&c, index: numSets, numSets: numSets, previous: sps.shortTermRefPicSets)
        } else if numSets > 1 {
            try c.u32(&shortTermRefPicSetIdx, ceilLog2(numSets))
            try c.require(Int(shortTermRefPicSetIdx) < numSets, "short_term_ref_pic_set_idx out of range")
        } else if c.isReading {
            shortTermRefPicSetIdx = 0
        }
        if c.isReading && shortTermRefPicSetSpsFlag {
            try c.require(numSets > 0, "short_term_ref_pic_set_sps_flag with no SPS sets")
        }
        if sps.longTermRefPicsPresent {
            let nSps = sps.ltRefPicPocLsbSps.count
            if nSps > 0 {
                try c.ue(&numLongTermSps, max: UInt32(nSps), "num_long_term_sps")
            } else if c.isReading {
                numLongTermSps = 0
            }
            try c.ue(&numLongTermPics, max: 32, "num_long_term_pics")
            try c.require(numLongTermSps + numLongTermPics <= 32, "too many long-term pictures")
            let nLtSps = Int(numLongTermSps)
            try c.listI(&longTermRefs, count: Int(numLongTermSps + numLongTermPics), { LongTermRef() }) {
                (c: inout C, i: Int, lt: inout LongTermRef) throws(ParseError) in
                if i < nLtSps {
                    if nSps > 1 {
                        try c.u32(&lt.ltIdxSps, ceilLog2(nSps))
                        try c.require(Int(lt.ltIdxSps) < nSps, "lt_idx_sps out of range")
                    }
                } else {
                    try c.u32(&lt.pocLsbLt, pocBits)
                    try c.flag(&lt.usedByCurrPicLt)
                }
                try c.flag(&lt.deltaPocMsbPresent)
                if lt.deltaPocMsbPresent { try c.ue(&lt.deltaPocMsbCycleLt) }
            }
        } else if c.isReading {
            longTermRefs = []
        }
        if sps.temporalMvpEnabled { try c.flag(&temporalMvpEnabled) }
    }

    /// inter_layer_pred_enabled_flag and the active reference layers (F.7.3.6.1).
    private mutating func codeInterLayerReferences<C: BitCoder>(_ c: inout C, _ ctx: SliceContext) throws(ParseError) {
        let layerId = header.layerId
        if layerId > 0, let vps = ctx.vps, let e = vps.vpsExtension, !e.defaultRefLayersActive {
            let nDirect = vps.directReferenceLayers(of: layerId).count
            if nDirect > 0 {
                try c.flag(&interLayerPredEnabled)
                if interLayerPredEnabled && nDirect > 1 {
                    if !e.maxOneActiveRefLayer {
                        try c.u32(&numInterLayerRefPicsMinus1, ceilLog2(nDirect))
                        try c.require(
                            Int(numInterLayerRefPicsMinus1) < nDirect, "num_inter_layer_ref_pics_minus1 out of range")
                    }
                    let nActive = numActiveRefLayerPics(context: ctx)
                    if nActive != nDirect {
                        try c.us(&interLayerPredLayerIdc, count: nActive, bits: ceilLog2(nDirect))
                    }
                }
            }
        }
    }

    /// Active reference counts, list modification, merge candidates and the weighted prediction table of a P or B
    /// slice.
    private mutating func codeReferenceLists<C: BitCoder>(_ c: inout C, _ ctx: SliceContext, chroma: Bool)
        throws(ParseError)
    {
        let pps = ctx.pps
        let isB = sliceTypeRaw == 0
        try c.flag(&numRefIdxActiveOverride)
        if numRefIdxActiveOverride {
            try c.ue(&numRefIdxL0ActiveMinus1, max: 14, "num_ref_idx_l0_active_minus1")
            if isB { try c.ue(&numRefIdxL1ActiveMinus1, max: 14, "num_ref_idx_l1_active_minus1") }
        } else if c.isReading {
            numRefIdxL0ActiveMinus1 = pps.numRefIdxL0DefaultActiveMinus1
            numRefIdxL1ActiveMinus1 = pps.numRefIdxL1DefaultActiveMinus1
        }
        let total = numPicTotalCurr(context: ctx)
        if pps.listsModificationPresent && total > 1 {
            let bits = ceilLog2(total)
            try c.flag(&refPicListModificationL0)
            if refPicListModificationL0 { try c.us(&listEntryL0, count: Int(numRefIdxL0ActiveMinus1) + 1, bits: bits) }
            if isB {
                try c.flag(&refPicListModificationL1)
                if refPicListModificationL1 {
                    try c.us(&listEntryL1, count: Int(numRefIdxL1ActiveMinus1) + 1, bits: bits)
                }
            }
        }
        if isB { try c.flag(&mvdL1Zero) }
        if pps.cabacInitPresent { try c.flag(&cabacInit) }
        if temporalMvpEnabled {
            if isB { try c.flag(&collocatedFromL0) } else if c.isReading { collocatedFromL0 = true }
            if (collocatedFromL0 && numRefIdxL0ActiveMinus1 > 0) || (!collocatedFromL0 && numRefIdxL1ActiveMinus1 > 0) {
                try c.ue(&collocatedRefIdx, max: 14, "collocated_ref_idx")
            }
        }
        if (pps.weightedPred && sliceTypeRaw == 1) || (pps.weightedBipred && isB) {
            let n0 = Int(numRefIdxL0ActiveMinus1) + 1, n1 = isB ? Int(numRefIdxL1ActiveMinus1) + 1 : 0
            try c.opaque(&predWeightTable) { (c: inout C) throws(ParseError) in
                try Self.skipPredWeightTable(&c, chroma: chroma, lists: [n0, n1])
            }
        }
        try c.ue(&fiveMinusMaxNumMergeCand, max: 4, "five_minus_max_num_merge_cand")
    }

    /// QP deltas, chroma QP offsets, deblocking and loop-filter-across-slices.
    private mutating func codeQuantisationAndFilters<C: BitCoder>(_ c: inout C, _ ctx: SliceContext) throws(ParseError)
    {
        let pps = ctx.pps
        try c.se(&qpDelta, min: -100, max: 100, "slice_qp_delta")
        if pps.sliceChromaQpOffsetsPresent {
            try c.se(&cbQpOffset, min: -12, max: 12, "slice_cb_qp_offset")
            try c.se(&crQpOffset, min: -12, max: 12, "slice_cr_qp_offset")
        }
        if pps.chromaQpOffsetListEnabled { try c.flag(&cuChromaQpOffsetEnabled) }
        if pps.deblockingFilterOverrideEnabled {
            try c.flag(&deblockingFilterOverride)
        } else if c.isReading {
            deblockingFilterOverride = false
        }
        if deblockingFilterOverride {
            try c.flag(&deblockingFilterDisabled)
            if !deblockingFilterDisabled {
                try c.se(&betaOffsetDiv2, min: -6, max: 6, "slice_beta_offset_div2")
                try c.se(&tcOffsetDiv2, min: -6, max: 6, "slice_tc_offset_div2")
            }
        } else if c.isReading {
            deblockingFilterDisabled = pps.deblockingFilterDisabled
            betaOffsetDiv2 = pps.betaOffsetDiv2; tcOffsetDiv2 = pps.tcOffsetDiv2
        }
        if pps.loopFilterAcrossSlicesEnabled && (saoLuma || saoChroma || !deblockingFilterDisabled) {
            try c.flag(&loopFilterAcrossSlicesEnabled)
        } else if c.isReading {
            loopFilterAcrossSlicesEnabled = pps.loopFilterAcrossSlicesEnabled
        }
    }

    static func skipPredWeightTable<C: BitCoder>(_ c: inout C, chroma: Bool, lists: [Int]) throws(ParseError) {
        var t: UInt32 = 0
        var s: Int32 = 0
        try c.ue(&t, max: 7, "luma_log2_weight_denom")
        if chroma { try c.se(&s, min: -7, max: 7, "delta_chroma_log2_weight_denom") }
        for n in lists where n > 0 {
            var luma: [Bool] = [], chromaFlags: [Bool] = []
            try c.flags(&luma, count: n)
            if chroma { try c.flags(&chromaFlags, count: n) } else { chromaFlags = Array(repeating: false, count: n) }
            for i in 0..<n {
                if luma[i] { try c.se(&s, min: -128, max: 127, "delta_luma_weight"); try c.se(&s) }
                if chromaFlags[i] {
                    for _ in 0..<2 { try c.se(&s, min: -128, max: 127, "delta_chroma_weight"); try c.se(&s) }
                }
            }
        }
    }
}
