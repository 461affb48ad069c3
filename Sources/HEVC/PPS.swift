import BinaryIO

/// Picture parameter set (§7.3.2.3) with the range and multilayer extensions.
///
/// 3D and SCC extensions, colour mapping tables and extension data are kept in ``extensionData``.
public struct PictureParameterSet: Hashable, Sendable, RBSPSyntax, ParameterSetNAL {
    public var header = NALHeader(type: .pps)
    public var ppsId: UInt32 = 0
    public var spsId: UInt32 = 0
    public var dependentSliceSegmentsEnabled = false
    public var outputFlagPresent = false
    /// `num_extra_slice_header_bits` (0…7).
    public var numExtraSliceHeaderBits: UInt8 = 0
    public var signDataHidingEnabled = false
    public var cabacInitPresent = false
    public var numRefIdxL0DefaultActiveMinus1: UInt32 = 0
    public var numRefIdxL1DefaultActiveMinus1: UInt32 = 0
    public var initQpMinus26: Int32 = 0
    public var constrainedIntraPred = false
    public var transformSkipEnabled = false
    public var cuQpDeltaEnabled = false
    public var diffCuQpDeltaDepth: UInt32 = 0
    public var cbQpOffset: Int32 = 0
    public var crQpOffset: Int32 = 0
    public var sliceChromaQpOffsetsPresent = false
    public var weightedPred = false
    public var weightedBipred = false
    public var transquantBypassEnabled = false
    public var tilesEnabled = false
    public var entropyCodingSyncEnabled = false
    public var numTileColumnsMinus1: UInt32 = 0
    public var numTileRowsMinus1: UInt32 = 0
    public var uniformSpacing = true
    public var columnWidthMinus1: [UInt32] = []
    public var rowHeightMinus1: [UInt32] = []
    public var loopFilterAcrossTilesEnabled = true
    public var loopFilterAcrossSlicesEnabled = false
    public var deblockingFilterControlPresent = false
    public var deblockingFilterOverrideEnabled = false
    public var deblockingFilterDisabled = false
    public var betaOffsetDiv2: Int32 = 0
    public var tcOffsetDiv2: Int32 = 0
    public var scalingListDataPresent = false
    /// `scaling_list_data()`, verbatim.
    public var scalingListData = RawBits.empty
    public var listsModificationPresent = false
    public var log2ParallelMergeLevelMinus2: UInt32 = 0
    public var sliceSegmentHeaderExtensionPresent = false
    public var extensionPresent = false
    public var rangeExtensionFlag = false
    public var multilayerExtensionFlag = false
    public var extension3DFlag = false
    public var sccExtensionFlag = false
    public var extension4Bits: UInt8 = 0
    // pps_range_extension()
    public var log2MaxTransformSkipBlockSizeMinus2: UInt32 = 0
    public var crossComponentPredictionEnabled = false
    public var chromaQpOffsetListEnabled = false
    public var diffCuChromaQpOffsetDepth: UInt32 = 0
    public var cbQpOffsetList: [Int32] = []
    public var crQpOffsetList: [Int32] = []
    public var log2SaoOffsetScaleLuma: UInt32 = 0
    public var log2SaoOffsetScaleChroma: UInt32 = 0
    // pps_multilayer_extension()
    public var pocResetInfoPresent = false
    public var inferScalingList = false
    public var scalingListRefLayerId: UInt8 = 0
    /// `num_ref_loc_offsets` entries, each verbatim (layer id, offsets, phases).
    public var refLocOffsets: [RawBits] = []
    public var colourMappingEnabled = false
    /// Everything after the last modelled element up to the rbsp_stop_one_bit.
    public var extensionData = RawBits.empty
    public var trailingZeroBytes = 0

    public init() {}

    /// The NAL unit type that carries this structure.
    public static let nalType = NALUnitType.pps

    /// Parses a PPS from its RBSP.
    public init(rbsp: [UInt8], header: NALHeader, baseOffset: UInt64 = 0) throws(ParseError) {
        self = try Self.decoded(rbsp: rbsp, header: header, baseOffset: baseOffset)
    }
    /// The RBSP, re-encoded from the properties.
    public func rbsp() throws(ParseError) -> [UInt8] { try encodedRBSP() }

    mutating func code<C: BitCoder>(_ c: inout C) throws(ParseError) {
        try c.ue(&ppsId, max: 63, "pps_pic_parameter_set_id")
        try c.ue(&spsId, max: 15, "pps_seq_parameter_set_id")
        try c.flag(&dependentSliceSegmentsEnabled)
        try c.flag(&outputFlagPresent)
        try c.u8(&numExtraSliceHeaderBits, 3)
        try c.flag(&signDataHidingEnabled)
        try c.flag(&cabacInitPresent)
        try c.ue(&numRefIdxL0DefaultActiveMinus1, max: 14, "num_ref_idx_l0_default_active_minus1")
        try c.ue(&numRefIdxL1DefaultActiveMinus1, max: 14, "num_ref_idx_l1_default_active_minus1")
        try c.se(&initQpMinus26, min: -(26 + 6 * 8), max: 25, "init_qp_minus26")
        try c.flag(&constrainedIntraPred)
        try c.flag(&transformSkipEnabled)
        try c.flag(&cuQpDeltaEnabled)
        if cuQpDeltaEnabled { try c.ue(&diffCuQpDeltaDepth, max: 6, "diff_cu_qp_delta_depth") }
        try c.se(&cbQpOffset, min: -12, max: 12, "pps_cb_qp_offset")
        try c.se(&crQpOffset, min: -12, max: 12, "pps_cr_qp_offset")
        try c.flag(&sliceChromaQpOffsetsPresent)
        try c.flag(&weightedPred)
        try c.flag(&weightedBipred)
        try c.flag(&transquantBypassEnabled)
        try c.flag(&tilesEnabled)
        try c.flag(&entropyCodingSyncEnabled)
        if tilesEnabled {
            try c.ue(&numTileColumnsMinus1, max: 1023, "num_tile_columns_minus1")
            try c.ue(&numTileRowsMinus1, max: 1023, "num_tile_rows_minus1")
            try c.flag(&uniformSpacing)
            if !uniformSpacing {
                try c.ues(&columnWidthMinus1, count: Int(numTileColumnsMinus1), max: 65535, "column_width_minus1")
                try c.ues(&rowHeightMinus1, count: Int(numTileRowsMinus1), max: 65535, "row_height_minus1")
            }
            try c.flag(&loopFilterAcrossTilesEnabled)
        }
        try c.flag(&loopFilterAcrossSlicesEnabled)
        try c.flag(&deblockingFilterControlPresent)
        if deblockingFilterControlPresent {
            try c.flag(&deblockingFilterOverrideEnabled)
            try c.flag(&deblockingFilterDisabled)
            if !deblockingFilterDisabled {
                try c.se(&betaOffsetDiv2, min: -6, max: 6, "pps_beta_offset_div2")
                try c.se(&tcOffsetDiv2, min: -6, max: 6, "pps_tc_offset_div2")
            }
        }
        try c.flag(&scalingListDataPresent)
        if scalingListDataPresent {
            try c.opaque(&scalingListData) { (c: inout C) throws(ParseError) in try ScalingList.skip(&c) }
        }
        try c.flag(&listsModificationPresent)
        try c.ue(&log2ParallelMergeLevelMinus2, max: 4, "log2_parallel_merge_level_minus2")
        try c.flag(&sliceSegmentHeaderExtensionPresent)
        try c.flag(&extensionPresent)
        if extensionPresent {
            try c.flag(&rangeExtensionFlag); try c.flag(&multilayerExtensionFlag)
            try c.flag(&extension3DFlag); try c.flag(&sccExtensionFlag)
            try c.u8(&extension4Bits, 4)
            if rangeExtensionFlag {
                if transformSkipEnabled {
                    try c.ue(&log2MaxTransformSkipBlockSizeMinus2, max: 3, "log2_max_transform_skip_block_size_minus2")
                }
                try c.flag(&crossComponentPredictionEnabled)
                try c.flag(&chromaQpOffsetListEnabled)
                if chromaQpOffsetListEnabled {
                    try c.ue(&diffCuChromaQpOffsetDepth, max: 6, "diff_cu_chroma_qp_offset_depth")
                    var len = UInt32(max(0, cbQpOffsetList.count - 1))
                    try c.ue(&len, max: 5, "chroma_qp_offset_list_len_minus1")
                    if c.isReading { cbQpOffsetList = []; crQpOffsetList = [] }
                    guard c.isReading || (cbQpOffsetList.count == Int(len) + 1 && crQpOffsetList.count == Int(len) + 1)
                    else {
                        throw c.fail(.unwritable, "chroma QP offset lists differ in size")
                    }
                    for i in 0...Int(len) {
                        var a = c.isReading ? 0 : cbQpOffsetList[i]
                        var b = c.isReading ? 0 : crQpOffsetList[i]
                        try c.se(&a, min: -12, max: 12, "cb_qp_offset_list");
                        try c.se(&b, min: -12, max: 12, "cr_qp_offset_list")
                        if c.isReading { cbQpOffsetList.append(a); crQpOffsetList.append(b) }
                    }
                }
                try c.ue(&log2SaoOffsetScaleLuma, max: 6, "log2_sao_offset_scale_luma")
                try c.ue(&log2SaoOffsetScaleChroma, max: 6, "log2_sao_offset_scale_chroma")
            }
            if multilayerExtensionFlag {
                try c.flag(&pocResetInfoPresent)
                try c.flag(&inferScalingList)
                if inferScalingList { try c.u8(&scalingListRefLayerId, 6) }
                var n = UInt32(refLocOffsets.count)
                try c.ue(&n, max: 63, "num_ref_loc_offsets")
                try c.list(&refLocOffsets, count: Int(n), { RawBits.empty }) {
                    (c: inout C, e: inout RawBits) throws(ParseError) in
                    try c.opaque(&e) { (c: inout C) throws(ParseError) in
                        var t: UInt32 = 0
                        var s: Int32 = 0
                        var f = false
                        try c.u32(&t, 6)
                        try c.flag(&f)
                        if f { for _ in 0..<4 { try c.se(&s) } }
                        try c.flag(&f)
                        if f { for _ in 0..<4 { try c.se(&s) } }
                        try c.flag(&f)
                        if f { for _ in 0..<4 { try c.ue(&t) } }
                    }
                }
                try c.flag(&colourMappingEnabled)
                // colour_mapping_table() and later extensions stay in extensionData.
            }
        }
        try c.restBeforeStop(&extensionData)
    }
}
