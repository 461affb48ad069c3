import BinaryIO

/// `video_signal_info()` of the VPS VUI (§F.7.3.2.1.5).
public struct VPSVideoSignalInfo: Hashable, Sendable {
    public var videoVpsFormat: UInt8 = 5
    public var videoFullRange = false
    public var colourPrimaries: UInt8 = 2
    public var transferCharacteristics: UInt8 = 2
    public var matrixCoeffs: UInt8 = 2
    public init() {}
    mutating func code<C: BitCoder>(_ c: inout C) throws(ParseError) {
        try c.u8(&videoVpsFormat, 3)
        try c.flag(&videoFullRange)
        try c.u8(&colourPrimaries, 8)
        try c.u8(&transferCharacteristics, 8)
        try c.u8(&matrixCoeffs, 8)
    }
}

/// Bit-rate and picture-rate entry of the VPS VUI for one layer set and sub-layer.
public struct VPSRateInfo: Hashable, Sendable {
    public var bitRatePresent = false
    public var picRatePresent = false
    public var avgBitRate: UInt16 = 0
    public var maxBitRate: UInt16 = 0
    public var constantPicRateIdc: UInt8 = 0
    public var avgPicRate: UInt16 = 0
    public init() {}
}

/// `min_spatial_segment_offset_plus1` entry of the VPS VUI for one direct reference layer.
public struct VPSSpatialSegmentOffset: Hashable, Sendable {
    public var minSpatialSegmentOffsetPlus1: UInt32 = 0
    public var ctuBasedOffsetEnabled = false
    public var minHorizontalCtuOffsetPlus1: UInt32 = 0
    public init() {}
}

/// `vps_vui()` (§F.7.3.2.1.4) with the alignment bits before it. Every element is modelled except
/// `vps_vui_bsp_hrd_params()`: a VUI with `vps_vui_bsp_hrd_present_flag = 1` is not parsed (the VPS keeps it,
/// with what follows, in ``VideoParameterSet/extensionData``).
///
/// Arrays indexed by layer have one entry per VPS layer index (0…MaxLayersMinus1); entries whose flag is not
/// coded hold the inferred value. Arrays of pairs list the coded pairs in syntax order.
public struct VPSVUI: Hashable, Sendable {
    /// `vps_vui_alignment_bit_equal_to_one` bits before the VUI (as read; the writer derives them from its position).
    public var alignmentBits = RawBits.empty
    public var crossLayerPicTypeAligned = false
    /// Inferred 1 when `cross_layer_pic_type_aligned_flag` is 1.
    public var crossLayerIrapAligned = true
    public var allLayersIdrAligned = false
    public var bitRatePresentVps = false
    public var picRatePresentVps = false
    /// One entry per (layer set, sub-layer) pair in syntax order, when either present flag is set.
    public var rates: [VPSRateInfo] = []
    public var videoSignalInfoIdxPresent = false
    /// `vps_num_video_signal_info_minus1` (coded when the index is present, inferred otherwise).
    public var numVideoSignalInfoMinus1: UInt8 = 0
    public var videoSignalInfo: [VPSVideoSignalInfo] = []
    /// `vps_video_signal_info_idx[i]` for the coded layers (empty when not coded).
    public var videoSignalInfoIdx: [UInt8] = []
    public var tilesNotInUse = true
    public var tilesInUse: [Bool] = []
    public var loopFilterNotAcrossTiles: [Bool] = []
    public var tileBoundariesAligned: [Bool] = []
    public var wppNotInUse = true
    public var wppInUse: [Bool] = []
    public var singleLayerForNonIrap = false
    public var higherLayerIrapSkip = false
    public var ilpRestrictedRefLayers = false
    public var spatialSegmentOffsets: [VPSSpatialSegmentOffset] = []
    public var bspHrdPresent = false
    /// `base_layer_parameter_set_compatibility_flag[i]` per layer index (false where not coded).
    public var baseLayerParameterSetCompatibility: [Bool] = []
    public init() {}

    mutating func code<C: BitCoder>(_ c: inout C, vps: VideoParameterSet, layout lay: VPSLayout) throws(ParseError) {
        if c.isReading {
            let start = c.position
            while c.position & 7 != 0 {
                var one = false
                try c.flag(&one)
                try c.require(one, "vps_vui_alignment_bit_equal_to_one is 0")
            }
            alignmentBits = c.captured(from: start)
        } else {
            // The syntax fixes these bits (ones up to the byte boundary), so the writer derives them.
            let n = (8 - c.position % 8) % 8
            alignmentBits = RawBits(bytes: n == 0 ? [] : [UInt8(0xFF) << UInt8(8 - n)], bitCount: n)
            try c.raw(&alignmentBits, count: n)
        }
        let maxL = lay.layerIds.count - 1
        let first = vps.baseLayerInternal ? 0 : 1
        try c.flag(&crossLayerPicTypeAligned)
        if !crossLayerPicTypeAligned {
            try c.flag(&crossLayerIrapAligned)
        } else if c.isReading {
            crossLayerIrapAligned = true
        }
        if crossLayerIrapAligned {
            try c.flag(&allLayersIdrAligned)
        } else if c.isReading {
            allLayersIdrAligned = false
        }
        try c.flag(&bitRatePresentVps)
        try c.flag(&picRatePresentVps)
        var pairs = 0
        if bitRatePresentVps || picRatePresentVps {
            for i in first..<max(first, lay.layerSets.count) {
                pairs += lay.maxSubLayersInSetMinus1(lay.layerSets[i]) + 1
            }
        }
        let br = bitRatePresentVps, pr = picRatePresentVps
        try c.list(&rates, count: pairs, { VPSRateInfo() }) { (c: inout C, r: inout VPSRateInfo) throws(ParseError) in
            if br { try c.flag(&r.bitRatePresent) }
            if pr { try c.flag(&r.picRatePresent) }
            if r.bitRatePresent { try c.u16(&r.avgBitRate, 16); try c.u16(&r.maxBitRate, 16) }
            if r.picRatePresent { try c.u8(&r.constantPicRateIdc, 2); try c.u16(&r.avgPicRate, 16) }
        }
        try c.flag(&videoSignalInfoIdxPresent)
        if videoSignalInfoIdxPresent {
            try c.u8(&numVideoSignalInfoMinus1, 4)
        } else if c.isReading {
            numVideoSignalInfoMinus1 = UInt8(max(0, vps.baseLayerInternal ? maxL : maxL - 1))
        }
        try c.list(&videoSignalInfo, count: Int(numVideoSignalInfoMinus1) + 1, { VPSVideoSignalInfo() }) {
            (c: inout C, v: inout VPSVideoSignalInfo) throws(ParseError) in
            try v.code(&c)
        }
        let n = numVideoSignalInfoMinus1
        if videoSignalInfoIdxPresent && n > 0 {
            try c.list(&videoSignalInfoIdx, count: maxL - first + 1, { 0 }) {
                (c: inout C, v: inout UInt8) throws(ParseError) in
                try c.u8(&v, 4)
                try c.require(v <= n, "vps_video_signal_info_idx = \(v) > \(n)")
            }
        } else if c.isReading {
            videoSignalInfoIdx = []
        }
        try codeTiles(&c, vps: vps, layout: lay, maxL: maxL, first: first)
        try c.flag(&wppNotInUse)
        if !wppNotInUse {
            try c.list(&wppInUse, count: maxL - first + 1, { false }) {
                (c: inout C, v: inout Bool) throws(ParseError) in try c.flag(&v)
            }
        } else if c.isReading {
            wppInUse = []
        }
        try c.flag(&singleLayerForNonIrap)
        try c.flag(&higherLayerIrapSkip)
        try c.flag(&ilpRestrictedRefLayers)
        var segPairs = 0
        if ilpRestrictedRefLayers, maxL >= 1 {
            for i in 1...maxL { segPairs += lay.numDirectRefLayers(layerId: lay.layerIds[i]) }
        }
        try c.list(&spatialSegmentOffsets, count: segPairs, { VPSSpatialSegmentOffset() }) {
            (c: inout C, s: inout VPSSpatialSegmentOffset) throws(ParseError) in
            try c.ue(&s.minSpatialSegmentOffsetPlus1, max: 4096, "min_spatial_segment_offset_plus1")
            if s.minSpatialSegmentOffsetPlus1 > 0 {
                try c.flag(&s.ctuBasedOffsetEnabled)
                if s.ctuBasedOffsetEnabled {
                    try c.ue(&s.minHorizontalCtuOffsetPlus1, max: 4096, "min_horizontal_ctu_offset_plus1")
                }
            }
        }
        try c.flag(&bspHrdPresent)
        if bspHrdPresent { throw c.fail(.unsupported, "vps_vui_bsp_hrd_params() is not modelled") }
        try c.listI(&baseLayerParameterSetCompatibility, count: maxL + 1, { false }) {
            (c: inout C, i: Int, v: inout Bool) throws(ParseError) in
            if i >= 1 && lay.numDirectRefLayers(layerId: lay.layerIds[i]) == 0 { try c.flag(&v) }
        }
    }

    /// The tile flags per layer and the tile-boundary alignment per pair of a layer and its reference layer.
    private mutating func codeTiles<C: BitCoder>(
        _ c: inout C, vps: VideoParameterSet, layout lay: VPSLayout, maxL: Int,
        first: Int
    ) throws(ParseError) {
        try c.flag(&tilesNotInUse)
        if !tilesNotInUse {
            if c.isReading { tilesInUse = []; loopFilterNotAcrossTiles = [] }
            guard c.isReading || (tilesInUse.count == maxL + 1 && loopFilterNotAcrossTiles.count == maxL + 1) else {
                throw c.fail(.unwritable, "tile arrays need \(maxL + 1) entries")
            }
            for i in 0...maxL {
                var t = c.isReading ? false : tilesInUse[i]
                var l = c.isReading ? false : loopFilterNotAcrossTiles[i]
                if i >= first {
                    try c.flag(&t)
                    if t { try c.flag(&l) }
                }
                if c.isReading { tilesInUse.append(t); loopFilterNotAcrossTiles.append(l) }
            }
            var tilePairs = 0
            let firstDep = vps.baseLayerInternal ? 1 : 2
            let inUse = tilesInUse
            if firstDep <= maxL {
                for i in firstDep...maxL {
                    for ref in lay.directRefLayerIds(layerId: lay.layerIds[i]) {
                        if let k = lay.layerIds.firstIndex(of: ref), inUse[i] && inUse[k] { tilePairs += 1 }
                    }
                }
            }
            try c.flags(&tileBoundariesAligned, count: tilePairs)
        } else if c.isReading {
            tilesInUse = []; loopFilterNotAcrossTiles = []; tileBoundariesAligned = []
        }
    }
}
