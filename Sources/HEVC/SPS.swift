import BinaryIO

/// Sequence parameter set (§7.3.2.2 and the multilayer form of §F.7.3.2.2.1).
///
/// Parsing keeps every bit: modelled fields are properties, unmodelled extension payloads are in
/// ``extensionData``; `rbsp()` / `nalUnit()` re-emit the exact original bits when nothing was changed.
public struct SequenceParameterSet: Hashable, Sendable {
    /// The NAL unit header (its `layerId` selects the single-layer or multilayer syntax).
    public var header = NALHeader(type: .sps)
    public var vpsId: UInt8 = 0
    /// `sps_max_sub_layers_minus1`, or `sps_ext_or_max_sub_layers_minus1` when `nuh_layer_id > 0`.
    public var maxSubLayersMinus1OrExt: UInt8 = 0
    public var temporalIdNesting = false
    /// Present unless ``isMultiLayerExtension``.
    public var profileTierLevel = ProfileTierLevel()
    public var spsId: UInt32 = 0
    // Multilayer form.
    public var updateRepFormat = false
    public var repFormatIdx: UInt8 = 0
    // Single-layer form (or multilayer with update_rep_format_flag, reduced).
    public var chromaFormatIdc: UInt32 = 1
    public var separateColourPlane = false
    public var picWidthInLumaSamples: UInt32 = 0
    public var picHeightInLumaSamples: UInt32 = 0
    public var conformanceWindowPresent = false
    /// left, right, top, bottom offsets in chroma units.
    public var conformanceWindow: [UInt32] = [0, 0, 0, 0]
    public var bitDepthLumaMinus8: UInt32 = 0
    public var bitDepthChromaMinus8: UInt32 = 0
    public var log2MaxPicOrderCntLsbMinus4: UInt32 = 0
    public var subLayerOrderingInfoPresent = false
    public var maxDecPicBufferingMinus1: [UInt32] = []
    public var maxNumReorderPics: [UInt32] = []
    public var maxLatencyIncreasePlus1: [UInt32] = []
    public var log2MinLumaCodingBlockSizeMinus3: UInt32 = 0
    public var log2DiffMaxMinLumaCodingBlockSize: UInt32 = 0
    public var log2MinLumaTransformBlockSizeMinus2: UInt32 = 0
    public var log2DiffMaxMinLumaTransformBlockSize: UInt32 = 0
    public var maxTransformHierarchyDepthInter: UInt32 = 0
    public var maxTransformHierarchyDepthIntra: UInt32 = 0
    public var scalingListEnabled = false
    public var inferScalingList = false
    public var scalingListRefLayerId: UInt8 = 0
    public var scalingListDataPresent = false
    /// `scaling_list_data()`, verbatim.
    public var scalingListData = RawBits.empty
    public var ampEnabled = false
    public var sampleAdaptiveOffsetEnabled = false
    public var pcmEnabled = false
    public var pcmSampleBitDepthLumaMinus1: UInt8 = 0
    public var pcmSampleBitDepthChromaMinus1: UInt8 = 0
    public var log2MinPcmLumaCodingBlockSizeMinus3: UInt32 = 0
    public var log2DiffMaxMinPcmLumaCodingBlockSize: UInt32 = 0
    public var pcmLoopFilterDisabled = false
    public var shortTermRefPicSets: [ShortTermRefPicSet] = []
    public var longTermRefPicsPresent = false
    public var ltRefPicPocLsbSps: [UInt32] = []
    public var usedByCurrPicLtSps: [Bool] = []
    public var temporalMvpEnabled = false
    public var strongIntraSmoothingEnabled = false
    public var vuiPresent = false
    public var vui = VUIParameters()
    public var extensionPresent = false
    public var rangeExtensionFlag = false
    public var multilayerExtensionFlag = false
    public var extension3DFlag = false
    public var sccExtensionFlag = false
    public var extension4Bits: UInt8 = 0
    /// `sps_range_extension()` flags in syntax order (9 flags).
    public var rangeExtension: [Bool] = []
    /// `inter_view_mv_vert_constraint_flag` of `sps_multilayer_extension()`.
    public var interViewMvVertConstraint = false
    /// Everything after the last modelled element up to the rbsp_stop_one_bit (3D/SCC/extension data).
    public var extensionData = RawBits.empty
    /// Zero bytes after the rbsp_trailing_bits (cabac_zero_words-like padding), kept for exactness.
    public var trailingZeroBytes = 0

    public init() {}

    /// The `sps_video_parameter_set_id` of an SPS NAL unit, read without parsing the rest.
    public static func referencedVPSId(in nal: NALUnit) -> UInt8? {
        guard nal.type == .sps, nal.bytes.count > 2 else { return nil }
        return nal.bytes[2] >> 4
    }
    /// True for the multilayer form (`nuh_layer_id > 0` and `sps_ext_or_max_sub_layers_minus1 == 7`).
    public var isMultiLayerExtension: Bool { header.layerId > 0 && maxSubLayersMinus1OrExt == 7 }
    /// `sps_max_sub_layers_minus1` (for the multilayer form, the VPS value when known, else 0).
    public func maxSubLayersMinus1(vps: VideoParameterSet? = nil) -> Int {
        isMultiLayerExtension ? Int(vps?.maxSubLayersMinus1 ?? 0) : Int(maxSubLayersMinus1OrExt)
    }
    public var log2MaxPicOrderCntLsb: Int { Int(log2MaxPicOrderCntLsbMinus4) + 4 }
    public var ctbLog2SizeY: Int { Int(log2MinLumaCodingBlockSizeMinus3) + 3 + Int(log2DiffMaxMinLumaCodingBlockSize) }

    /// Parses an SPS NAL unit. `vps` is needed only for a multilayer-form SPS with HRD parameters.
    public init(nal: NALUnit, vps: VideoParameterSet? = nil) throws(ParseError) {
        guard nal.type == .sps else {
            throw ParseError(.invalidValue, offset: nal.offset, "not an SPS NAL unit (\(nal.type))")
        }
        try self.init(rbsp: nal.rbsp, header: nal.header, baseOffset: nal.offset &+ 2, vps: vps)
    }
    /// Parses an SPS from its RBSP.
    public init(rbsp: [UInt8], header: NALHeader, baseOffset: UInt64 = 0, vps: VideoParameterSet? = nil)
        throws(ParseError)
    {
        self.header = header
        var me = self
        let r = try RBSPCoding.read(rbsp, baseOffset: baseOffset) { (c: inout RBSPReader) throws(ParseError) in
            try me.code(&c, vps: vps)
        }
        me.trailingZeroBytes = r.trailingZeroBytes
        self = me
    }
    /// The RBSP (header excluded), re-encoded from the properties.
    public func rbsp(vps: VideoParameterSet? = nil) throws(ParseError) -> [UInt8] {
        var w = RBSPWriter()
        var copy = self
        try copy.code(&w, vps: vps)
        return w.finish(zeroBytes: trailingZeroBytes)
    }
    /// The complete NAL unit with emulation prevention.
    public func nalUnit(vps: VideoParameterSet? = nil) throws(ParseError) -> NALUnit {
        NALUnit(header: header, rbsp: try rbsp(vps: vps))
    }

    mutating func code<C: BitCoder>(_ c: inout C, vps: VideoParameterSet?) throws(ParseError) {
        try c.u8(&vpsId, 4)
        try c.u8(&maxSubLayersMinus1OrExt, 3)
        let multi = isMultiLayerExtension
        if !multi {
            try c.require(
                maxSubLayersMinus1OrExt <= 6, "sps_max_sub_layers_minus1 = \(maxSubLayersMinus1OrExt) (max 6)")
            try c.flag(&temporalIdNesting)
            try profileTierLevel.code(&c, profilePresent: true, maxSubLayersMinus1: Int(maxSubLayersMinus1OrExt))
        }
        try c.ue(&spsId, max: 15, "sps_seq_parameter_set_id")
        if multi {
            try c.flag(&updateRepFormat)
            if updateRepFormat { try c.u8(&repFormatIdx, 8) }
        } else {
            try c.ue(&chromaFormatIdc, max: 3, "chroma_format_idc")
            if chromaFormatIdc == 3 { try c.flag(&separateColourPlane) }
            try c.ue(&picWidthInLumaSamples, max: 65535, "pic_width_in_luma_samples")
            try c.ue(&picHeightInLumaSamples, max: 65535, "pic_height_in_luma_samples")
            try c.flag(&conformanceWindowPresent)
            if conformanceWindowPresent { try c.ues(&conformanceWindow, count: 4, max: 65535, "conf_win_offset") }
            try c.ue(&bitDepthLumaMinus8, max: 8, "bit_depth_luma_minus8")
            try c.ue(&bitDepthChromaMinus8, max: 8, "bit_depth_chroma_minus8")
        }
        try c.ue(&log2MaxPicOrderCntLsbMinus4, max: 12, "log2_max_pic_order_cnt_lsb_minus4")
        if !multi {
            try c.flag(&subLayerOrderingInfoPresent)
            try c.subLayerOrdering(
                count: subLayerOrderingInfoPresent ? Int(maxSubLayersMinus1OrExt) + 1 : 1, &maxDecPicBufferingMinus1,
                &maxNumReorderPics, &maxLatencyIncreasePlus1, prefix: "sps")
        }
        try c.ue(&log2MinLumaCodingBlockSizeMinus3, max: 3, "log2_min_luma_coding_block_size_minus3")
        try c.ue(&log2DiffMaxMinLumaCodingBlockSize, max: 3, "log2_diff_max_min_luma_coding_block_size")
        try c.ue(&log2MinLumaTransformBlockSizeMinus2, max: 3, "log2_min_luma_transform_block_size_minus2")
        try c.ue(&log2DiffMaxMinLumaTransformBlockSize, max: 3, "log2_diff_max_min_luma_transform_block_size")
        try c.ue(&maxTransformHierarchyDepthInter, max: 6, "max_transform_hierarchy_depth_inter")
        try c.ue(&maxTransformHierarchyDepthIntra, max: 6, "max_transform_hierarchy_depth_intra")
        try c.flag(&scalingListEnabled)
        if scalingListEnabled {
            if multi { try c.flag(&inferScalingList) } else if c.isReading { inferScalingList = false }
            if inferScalingList {
                try c.u8(&scalingListRefLayerId, 6)
            } else {
                try c.flag(&scalingListDataPresent)
                if scalingListDataPresent {
                    try c.opaque(&scalingListData) { (c: inout C) throws(ParseError) in try ScalingList.skip(&c) }
                }
            }
        }
        try c.flag(&ampEnabled)
        try c.flag(&sampleAdaptiveOffsetEnabled)
        try c.flag(&pcmEnabled)
        if pcmEnabled {
            try c.u8(&pcmSampleBitDepthLumaMinus1, 4)
            try c.u8(&pcmSampleBitDepthChromaMinus1, 4)
            try c.ue(&log2MinPcmLumaCodingBlockSizeMinus3, max: 2, "log2_min_pcm_luma_coding_block_size_minus3")
            try c.ue(&log2DiffMaxMinPcmLumaCodingBlockSize, max: 2, "log2_diff_max_min_pcm_luma_coding_block_size")
            try c.flag(&pcmLoopFilterDisabled)
        }
        var numSets = UInt32(shortTermRefPicSets.count)
        try c.ue(&numSets, max: 64, "num_short_term_ref_pic_sets")
        let ns = Int(numSets)
        if c.isReading { shortTermRefPicSets = [] }
        for i in 0..<ns {
            var s = c.isReading ? ShortTermRefPicSet() : shortTermRefPicSets[i]
            let prev = Array(shortTermRefPicSets.prefix(i))
            try s.code(&c, index: i, numSets: ns, previous: prev)
            if c.isReading { shortTermRefPicSets.append(s) }
        }
        try c.flag(&longTermRefPicsPresent)
        if longTermRefPicsPresent {
            var n = UInt32(ltRefPicPocLsbSps.count)
            try c.ue(&n, max: 32, "num_long_term_ref_pics_sps")
            if c.isReading { ltRefPicPocLsbSps = []; usedByCurrPicLtSps = [] }
            guard c.isReading || usedByCurrPicLtSps.count == Int(n) else {
                throw c.fail(.unwritable, "long-term arrays differ in size")
            }
            for i in 0..<Int(n) {
                var v = c.isReading ? 0 : ltRefPicPocLsbSps[i]
                var u = c.isReading ? false : usedByCurrPicLtSps[i]
                try c.u32(&v, log2MaxPicOrderCntLsb); try c.flag(&u)
                if c.isReading { ltRefPicPocLsbSps.append(v); usedByCurrPicLtSps.append(u) }
            }
        }
        try c.flag(&temporalMvpEnabled)
        try c.flag(&strongIntraSmoothingEnabled)
        try c.flag(&vuiPresent)
        if vuiPresent {
            let msl: Int
            if multi {
                guard let vps else {
                    if c.isReading { throw c.fail(.unsupported, "multilayer SPS with VUI needs its VPS") }
                    throw c.fail(.unwritable, "multilayer SPS with VUI needs its VPS")
                }
                msl = Int(vps.maxSubLayersMinus1)
            } else {
                msl = Int(maxSubLayersMinus1OrExt)
            }
            try vui.code(&c, maxSubLayersMinus1: msl)
        }
        try c.flag(&extensionPresent)
        if extensionPresent {
            try c.flag(&rangeExtensionFlag); try c.flag(&multilayerExtensionFlag)
            try c.flag(&extension3DFlag); try c.flag(&sccExtensionFlag)
            try c.u8(&extension4Bits, 4)
            if rangeExtensionFlag { try c.flags(&rangeExtension, count: 9) }
            if multilayerExtensionFlag { try c.flag(&interViewMvVertConstraint) }
        }
        try c.restBeforeStop(&extensionData)
    }

    /// Picture width after applying the conformance window (single-layer form).
    public var croppedWidth: Int {
        let sub = (chromaFormatIdc == 1 || chromaFormatIdc == 2) && !separateColourPlane ? 2 : 1
        let cw = conformanceWindow.count == 4 ? conformanceWindow : [0, 0, 0, 0]
        let w =
            conformanceWindowPresent
            ? Int(picWidthInLumaSamples) - sub * (Int(cw[0]) + Int(cw[1])) : Int(picWidthInLumaSamples)
        return max(0, w)
    }
    /// Picture height after applying the conformance window (single-layer form).
    public var croppedHeight: Int {
        let sub = chromaFormatIdc == 1 && !separateColourPlane ? 2 : 1
        let cw = conformanceWindow.count == 4 ? conformanceWindow : [0, 0, 0, 0]
        let h =
            conformanceWindowPresent
            ? Int(picHeightInLumaSamples) - sub * (Int(cw[2]) + Int(cw[3])) : Int(picHeightInLumaSamples)
        return max(0, h)
    }
}
