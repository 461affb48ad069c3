import BinaryIO

/// `rep_format()` of the VPS extension (§F.7.3.2.1.2).
public struct RepFormat: Hashable, Sendable {
    public var picWidth: UInt16 = 0
    public var picHeight: UInt16 = 0
    public var chromaAndBitDepthPresent = true
    public var chromaFormatIdc: UInt8 = 1
    public var separateColourPlane = false
    public var bitDepthLumaMinus8: UInt8 = 0
    public var bitDepthChromaMinus8: UInt8 = 0
    public var conformanceWindowPresent = false
    /// left, right, top, bottom.
    public var conformanceWindow: [UInt32] = [0, 0, 0, 0]
    public init() {}

    mutating func code<C: BitCoder>(_ c: inout C) throws(ParseError) {
        try c.u16(&picWidth, 16)
        try c.u16(&picHeight, 16)
        try c.flag(&chromaAndBitDepthPresent)
        if chromaAndBitDepthPresent {
            try c.u8(&chromaFormatIdc, 2)
            if chromaFormatIdc == 3 { try c.flag(&separateColourPlane) }
            try c.u8(&bitDepthLumaMinus8, 4)
            try c.u8(&bitDepthChromaMinus8, 4)
        }
        try c.flag(&conformanceWindowPresent)
        if conformanceWindowPresent { try c.ues(&conformanceWindow, count: 4, max: 65535, "conf_win_vps_offset") }
    }
}

/// One output layer set entry (index ≥ 1) of the VPS extension.
public struct OutputLayerSet: Hashable, Sendable {
    public var layerSetIdxForOlsMinus1: UInt32 = 0
    /// `output_layer_flag[i][j]` when coded; empty when inferred.
    public var outputLayerFlags: [Bool] = []
    /// `profile_tier_level_idx[i][j]`, one per layer of the set (0 where not coded).
    public var profileTierLevelIdx: [UInt32] = []
    public var altOutputLayer = false
    public init() {}
}

/// `dpb_size()` entry for one output layer set (index ≥ 1).
public struct DPBSize: Hashable, Sendable {
    public var subLayerFlagInfoPresent = false
    /// Per sub-layer: `sub_layer_dpb_info_present_flag` (true for sub-layer 0).
    public var subLayerDpbInfoPresent: [Bool] = []
    /// Per sub-layer, per coded layer: `max_vps_dec_pic_buffering_minus1`. These three arrays have one
    /// entry per sub-layer; a sub-layer whose values are not coded repeats the one below (as inferred).
    public var maxDecPicBufferingMinus1: [[UInt32]] = []
    public var maxNumReorderPics: [UInt32] = []
    public var maxLatencyIncreasePlus1: [UInt32] = []
    public init() {}
}

/// `vps_extension()` (§F.7.3.2.1.1), modelled up to `vps_vui_present_flag`; VPS VUI is kept raw.
public struct VPSExtension: Hashable, Sendable {
    /// PTL of the base layer without profile (present when there are several layers and the base is internal).
    public var basePTL = ProfileTierLevel()
    public var splittingFlag = false
    /// `scalability_mask_flag[0…15]` (index 1 = multiview, 2 = spatial/quality, 3 = auxiliary).
    public var scalabilityMask: [Bool] = Array(repeating: false, count: 16)
    public var dimensionIdLenMinus1: [UInt8] = []
    public var nuhLayerIdPresent = false
    /// `layer_id_in_nuh[i]` for i = 0…MaxLayersMinus1 (entry 0 is always 0).
    public var layerIdInNuh: [UInt8] = [0]
    /// `dimension_id[i][j]` for i = 0…MaxLayersMinus1 (row 0 is empty: inferred zeros).
    public var dimensionId: [[UInt32]] = [[]]
    public var viewIdLen: UInt8 = 0
    public var viewIdVal: [UInt32] = []
    /// `direct_dependency_flag[i][j]`, row i has i entries.
    public var directDependency: [[Bool]] = [[]]
    public var numAddLayerSets: UInt32 = 0
    public var highestLayerIdxPlus1: [[UInt32]] = []
    public var subLayersVpsMaxMinus1Present = false
    public var subLayersVpsMaxMinus1: [UInt8] = []
    public var maxTidRefPresent = false
    /// `max_tid_il_ref_pics_plus1[i][j]` in syntax order (only coded pairs).
    public var maxTidIlRefPicsPlus1: [UInt8] = []
    public var defaultRefLayersActive = false
    public var numProfileTierLevelMinus1: UInt32 = 0
    /// PTL entries from index (base internal ? 2 : 1) on, each with its `vps_profile_present_flag`.
    public var profileTierLevels: [ProfileTierLevel] = []
    public var numAddOlss: UInt32 = 0
    public var defaultOutputLayerIdc: UInt8 = 0
    /// Output layer sets 1…NumOutputLayerSets−1.
    public var outputLayerSets: [OutputLayerSet] = []
    public var repFormats: [RepFormat] = []
    public var repFormatIdxPresent = false
    public var repFormatIdx: [UInt32] = []
    public var maxOneActiveRefLayer = false
    public var pocLsbAligned = false
    /// `poc_lsb_not_present_flag[i]` for i = 0…MaxLayersMinus1 (false where not coded).
    public var pocLsbNotPresent: [Bool] = [false]
    /// Output layer sets 1…NumOutputLayerSets−1.
    public var dpbSizes: [DPBSize] = []
    public var directDepTypeLenMinus2: UInt32 = 0
    public var directDependencyAllLayers = false
    public var directDependencyAllLayersType: UInt32 = 0
    /// `direct_dependency_type[i][j]` in syntax order (only coded pairs).
    public var directDependencyType: [UInt32] = []
    public var nonVuiExtensionData: [UInt8] = []
    /// `vps_vui_present_flag`; the alignment bits and `vps_vui()` follow in the VPS's `extensionData`.
    public var vuiPresent = false
    public init() {}
}

/// Video parameter set (§7.3.2.1) with the multilayer extension.
public struct VideoParameterSet: Hashable, Sendable, RBSPSyntax, ParameterSetNAL {
    /// Largest number of layers the extension parser accepts.
    public static let maxSupportedLayers = 8

    public var header = NALHeader(type: .vps)
    public var vpsId: UInt8 = 0
    public var baseLayerInternal = true
    public var baseLayerAvailable = true
    public var maxLayersMinus1: UInt8 = 0
    public var maxSubLayersMinus1: UInt8 = 0
    public var temporalIdNesting = true
    public var reserved0xffff16: UInt16 = 0xFFFF
    public var profileTierLevel = ProfileTierLevel()
    public var subLayerOrderingInfoPresent = false
    public var maxDecPicBufferingMinus1: [UInt32] = [0]
    public var maxNumReorderPics: [UInt32] = [0]
    public var maxLatencyIncreasePlus1: [UInt32] = [0]
    public var maxLayerId: UInt8 = 0
    public var numLayerSetsMinus1: UInt32 = 0
    /// `layer_id_included_flag[i][j]` for layer sets 1…num_layer_sets_minus1 (row 0 empty).
    public var layerIdIncluded: [[Bool]] = [[]]
    public var timingInfoPresent = false
    /// Timing info and HRD parameters (everything after `vps_timing_info_present_flag`), verbatim.
    public var timingAndHRD = RawBits.empty
    public var extensionFlag = false
    /// `vps_extension_alignment_bit_equal_to_one` bits.
    public var extensionAlignmentBits = RawBits.empty
    public var vpsExtension: VPSExtension? = nil
    /// `vps_vui()` when the extension signals it and it parses (nil otherwise; then it stays in ``extensionData``).
    public var vui: VPSVUI? = nil
    /// `vps_extension2_flag`, coded after `vps_extension()`; nil when the RBSP ends before it (a stream that leaves it
    /// out ends its VPS one bit early: a strict parser reads the stop bit as this flag) or when it is not reached.
    public var extension2Flag: Bool? = nil
    /// Everything after the last modelled element up to the rbsp_stop_one_bit (`vps_extension_data_flag` bits,
    /// or an unmodelled VPS VUI and what follows it).
    public var extensionData = RawBits.empty
    public var trailingZeroBytes = 0

    public init() {}

    /// The NAL unit type that carries this structure.
    public static let nalType = NALUnitType.vps

    /// Parses a VPS from its RBSP.
    public init(rbsp: [UInt8], header: NALHeader, baseOffset: UInt64 = 0) throws(ParseError) {
        self = try Self.decoded(rbsp: rbsp, header: header, baseOffset: baseOffset)
    }
    /// The RBSP, re-encoded from the properties.
    public func rbsp() throws(ParseError) -> [UInt8] { try encodedRBSP() }

    mutating func code<C: BitCoder>(_ c: inout C) throws(ParseError) {
        try c.u8(&vpsId, 4)
        try c.flag(&baseLayerInternal)
        try c.flag(&baseLayerAvailable)
        try c.u8(&maxLayersMinus1, 6)
        try c.u8(&maxSubLayersMinus1, 3)
        try c.require(maxSubLayersMinus1 <= 6, "vps_max_sub_layers_minus1 = \(maxSubLayersMinus1) (max 6)")
        try c.flag(&temporalIdNesting)
        try c.u16(&reserved0xffff16, 16)
        try profileTierLevel.code(&c, profilePresent: true, maxSubLayersMinus1: Int(maxSubLayersMinus1))
        try c.flag(&subLayerOrderingInfoPresent)
        try c.subLayerOrdering(
            count: subLayerOrderingInfoPresent ? Int(maxSubLayersMinus1) + 1 : 1, &maxDecPicBufferingMinus1,
            &maxNumReorderPics, &maxLatencyIncreasePlus1, prefix: "vps")
        try c.u8(&maxLayerId, 6)
        try c.require(maxLayerId <= 62, "vps_max_layer_id = \(maxLayerId) (max 62)")
        try c.ue(&numLayerSetsMinus1, max: 1023, "vps_num_layer_sets_minus1")
        let cols = Int(maxLayerId) + 1
        try c.listI(&layerIdIncluded, count: Int(numLayerSetsMinus1) + 1, { [] }) {
            (c: inout C, i: Int, row: inout [Bool]) throws(ParseError) in
            if i > 0 { try c.flags(&row, count: cols) }
        }
        try c.flag(&timingInfoPresent)
        if timingInfoPresent {
            let msl = Int(maxSubLayersMinus1)
            try c.opaque(&timingAndHRD) { (c: inout C) throws(ParseError) in
                var t: UInt32 = 0
                var f = false
                try c.u32(&t, 32); try c.u32(&t, 32)
                try c.flag(&f)
                if f { try c.ue(&t) }
                var numHrd: UInt32 = 0
                try c.ue(&numHrd, max: 1024, "vps_num_hrd_parameters")
                for i in 0..<Int(numHrd) {
                    try c.ue(&t, max: 1023, "hrd_layer_set_idx")
                    var cprms = true
                    if i > 0 { try c.flag(&cprms) }
                    try HRD.skip(&c, commonInf: cprms, maxSubLayersMinus1: msl)
                }
            }
        }
        try c.flag(&extensionFlag)
        if extensionFlag {
            if c.isReading {
                let start = c.position
                while c.position & 7 != 0 {
                    var one = false
                    try c.flag(&one)
                    try c.require(one, "vps_extension_alignment_bit_equal_to_one is 0")
                }
                extensionAlignmentBits = c.captured(from: start)
            } else {
                try c.raw(&extensionAlignmentBits, count: extensionAlignmentBits.bitCount)
            }
            var ext = vpsExtension ?? VPSExtension()
            try codeExtension(&c, &ext)
            vpsExtension = ext
            try codeVUIAndExtension2(&c, ext)
        } else if c.isReading {
            vui = nil; extension2Flag = nil
        }
        try c.restBeforeStop(&extensionData)
    }

    /// The VPS VUI (when `vps_vui_present_flag`) and `vps_extension2_flag`. The reader tries the VUI on a copy
    /// of the coder and leaves it in ``extensionData`` when it does not parse (e.g. BSP HRD parameters).
    mutating func codeVUIAndExtension2<C: BitCoder>(_ c: inout C, _ ext: VPSExtension) throws(ParseError) {
        let lay = VPSLayout(vps: self, ext: ext, stage: .afterAddLayerSets)
        if ext.vuiPresent {
            if c.isReading {
                var trial = c
                var v = VPSVUI()
                do throws(ParseError) {
                    try v.code(&trial, vps: self, layout: lay)
                    try trial.require(trial.bitsBeforeStop >= 0, "VPS VUI runs past the rbsp_stop_one_bit")
                    c = trial
                    vui = v
                } catch {
                    vui = nil; extension2Flag = nil
                    return
                }
            } else if var v = vui {
                try v.code(&c, vps: self, layout: lay)
            } else {
                return
            }
        } else if c.isReading {
            vui = nil
        }
        if c.isReading {
            if c.bitsBeforeStop > 0 { var f = false; try c.flag(&f); extension2Flag = f } else { extension2Flag = nil }
        } else if var f = extension2Flag {
            try c.flag(&f)
        }
    }

    // MARK: Derived values (§F.7.4.3.1.1)

    /// `MaxLayersMinus1` = min(62, vps_max_layers_minus1).
    public var maxLayersMinus1Clamped: Int { min(62, Int(maxLayersMinus1)) }

    /// Layer ids of each layer set from `layer_id_included_flag` (set 0 is `[0]`).
    func baseLayerSets() -> [[UInt8]] {
        var sets: [[UInt8]] = [[0]]
        for i in 1..<max(1, layerIdIncluded.count) {
            var ids: [UInt8] = []
            for (j, f) in layerIdIncluded[i].enumerated() where f { ids.append(UInt8(truncatingIfNeeded: j)) }
            sets.append(ids)
        }
        return sets
    }

    /// `vps_extension()` (F.7.3.2.1.1), coded in the order of the syntax by one helper per part.
    mutating func codeExtension<C: BitCoder>(_ c: inout C, _ e: inout VPSExtension) throws(ParseError) {
        let maxL = maxLayersMinus1Clamped
        if maxL + 1 > Self.maxSupportedLayers {
            throw c.fail(
                .limitExceeded, "VPS extension with \(maxL + 1) layers: at most \(Self.maxSupportedLayers) supported")
        }
        if maxL > 0 && baseLayerInternal {
            try e.basePTL.code(&c, profilePresent: false, maxSubLayersMinus1: Int(maxSubLayersMinus1))
        }
        try codeLayerDimensions(&c, &e, maxL: maxL)
        try codeViewsAndDependencies(&c, &e, maxL: maxL)
        try codeLayerSetsAndLevels(&c, &e, maxL: maxL)
        let lay = VPSLayout(vps: self, ext: e, stage: .afterAddLayerSets)
        let ols = try codeOutputLayerSets(&c, &e, layout: lay)
        try codeRepFormats(&c, &e, maxL: maxL, layout: lay)
        try codeDPBSizes(&c, &e, ols)
        try codeDependencyTypes(&c, &e, maxL: maxL, layout: lay)
        var nonVuiLen = UInt32(e.nonVuiExtensionData.count)
        try c.ue(&nonVuiLen, max: 4096, "vps_non_vui_extension_length")
        try c.list(&e.nonVuiExtensionData, count: Int(nonVuiLen), { 0 }) {
            (c: inout C, v: inout UInt8) throws(ParseError) in try c.u8(&v, 8)
        }
        try c.flag(&e.vuiPresent)
    }

    /// What the output-layer-set and DPB-size loops share: the layer sets, how output layers are chosen and the
    /// number of output layer sets (F.7.4.3.1.1).
    struct OLSContext {
        let layout: VPSLayout
        let numLayerSets: Int, numOls: Int, defaultIdc: Int, baseSets: Int
        init(vps: VideoParameterSet, ext e: VPSExtension, layout: VPSLayout) {
            self.layout = layout
            numLayerSets = layout.layerSets.count
            numOls = Int(e.numAddOlss) + numLayerSets
            defaultIdc = min(Int(e.defaultOutputLayerIdc), 2)
            baseSets = Int(vps.numLayerSetsMinus1)
        }
        /// Layers of output layer set `i` (≥ 1), their output flags and which of them are necessary.
        func layers(ols i: Int, _ o: OutputLayerSet) -> (layers: [UInt8], output: [Bool], necessary: [Bool]) {
            let ls = i < numLayerSets ? i : Int(o.layerSetIdxForOlsMinus1) + 1
            let layers = ls < layout.layerSets.count ? layout.layerSets[ls] : []
            let output = layout.outputFlags(
                ols: i, layers: layers, coded: o.outputLayerFlags, defaultIdc: defaultIdc, baseSets: baseSets)
            return (layers, output, layout.necessary(layers: layers, output: output))
        }
    }

    /// splitting_flag … dimension_id: the scalability dimensions and `layer_id_in_nuh`.
    private func codeLayerDimensions<C: BitCoder>(_ c: inout C, _ e: inout VPSExtension, maxL: Int) throws(ParseError) {
        try c.flag(&e.splittingFlag)
        try c.flags(&e.scalabilityMask, count: 16)
        let numScal = e.scalabilityMask.filter { $0 }.count
        try c.list(&e.dimensionIdLenMinus1, count: numScal - (e.splittingFlag ? 1 : 0), { 0 }) {
            (c: inout C, v: inout UInt8) throws(ParseError) in
            try c.u8(&v, 3)
        }
        try c.flag(&e.nuhLayerIdPresent)
        if c.isReading { e.layerIdInNuh = [0]; e.dimensionId = [[]] }
        guard c.isReading || (e.layerIdInNuh.count == maxL + 1 && e.dimensionId.count == maxL + 1) else {
            throw c.fail(.unwritable, "layer arrays need \(maxL + 1) entries")
        }
        let lens = e.dimensionIdLenMinus1
        for i in stride(from: 1, through: maxL, by: 1) {
            var lid = c.isReading ? UInt8(i) : e.layerIdInNuh[i]
            if e.nuhLayerIdPresent { try c.u8(&lid, 6) }
            if c.isReading {
                try c.require(
                    lid > e.layerIdInNuh[i - 1] && lid <= 62,
                    "layer_id_in_nuh[\(i)] = \(lid): not increasing or above 62")
                e.layerIdInNuh.append(lid)
            }
            var dims = c.isReading ? [] : e.dimensionId[i]
            if !e.splittingFlag {
                try c.listI(&dims, count: numScal, { 0 }) { (c: inout C, j: Int, v: inout UInt32) throws(ParseError) in
                    try c.u32(&v, j < lens.count ? Int(lens[j]) + 1 : 1)
                }
            }
            if c.isReading { e.dimensionId.append(dims) }
        }
    }

    /// view_id_val and direct_dependency_flag.
    private func codeViewsAndDependencies<C: BitCoder>(_ c: inout C, _ e: inout VPSExtension, maxL: Int)
        throws(ParseError)
    {
        try c.u8(&e.viewIdLen, 4)
        let layout = VPSLayout(vps: self, ext: e, stage: .afterDimensions)
        if e.viewIdLen > 0 {
            try c.us(&e.viewIdVal, count: layout.numViews, bits: Int(e.viewIdLen))
        } else if c.isReading {
            e.viewIdVal = []
        }
        try c.listI(&e.directDependency, count: maxL + 1, { [] }) {
            (c: inout C, i: Int, row: inout [Bool]) throws(ParseError) in
            try c.flags(&row, count: i)
        }
    }

    /// Additional layer sets, sub-layer and temporal-id limits, profile/tier/level entries.
    private func codeLayerSetsAndLevels<C: BitCoder>(_ c: inout C, _ e: inout VPSExtension, maxL: Int)
        throws(ParseError)
    {
        let msl = Int(maxSubLayersMinus1)
        let lay = VPSLayout(vps: self, ext: e, stage: .afterDependencies)
        if lay.numIndependentLayers > 1 {
            try c.ue(&e.numAddLayerSets, max: 1023, "num_add_layer_sets")
        } else if c.isReading {
            e.numAddLayerSets = 0
        }
        let treeSizes = lay.treePartitions.map { $0.count }
        let nIndep = lay.numIndependentLayers
        try c.list(&e.highestLayerIdxPlus1, count: Int(e.numAddLayerSets), { [] }) {
            (c: inout C, row: inout [UInt32]) throws(ParseError) in
            try c.listI(&row, count: nIndep - 1, { 0 }) { (c: inout C, k: Int, v: inout UInt32) throws(ParseError) in
                let size = k + 1 < treeSizes.count ? treeSizes[k + 1] : 0
                try c.u32(&v, ceilLog2(size + 1))
                try c.require(Int(v) <= size, "highest_layer_idx_plus1 = \(v) > \(size)")
            }
        }
        try c.flag(&e.subLayersVpsMaxMinus1Present)
        if e.subLayersVpsMaxMinus1Present {
            try c.list(&e.subLayersVpsMaxMinus1, count: maxL + 1, { 0 }) {
                (c: inout C, v: inout UInt8) throws(ParseError) in try c.u8(&v, 3)
            }
        } else if c.isReading {
            e.subLayersVpsMaxMinus1 = []
        }
        try c.flag(&e.maxTidRefPresent)
        if e.maxTidRefPresent {
            var pairs = 0
            for i in 0..<max(0, maxL) { for j in (i + 1)...maxL where lay.direct(j, i) { pairs += 1 } }
            try c.list(&e.maxTidIlRefPicsPlus1, count: pairs, { 0 }) {
                (c: inout C, v: inout UInt8) throws(ParseError) in try c.u8(&v, 3)
            }
        } else if c.isReading {
            e.maxTidIlRefPicsPlus1 = []
        }
        try c.flag(&e.defaultRefLayersActive)
        try c.ue(&e.numProfileTierLevelMinus1, max: 63, "vps_num_profile_tier_level_minus1")
        let ptlStart = baseLayerInternal ? 2 : 1
        try c.list(&e.profileTierLevels, count: Int(e.numProfileTierLevelMinus1) - ptlStart + 1, { ProfileTierLevel() })
        { (c: inout C, p: inout ProfileTierLevel) throws(ParseError) in
            var present = p.profilePresent
            try c.flag(&present)
            try p.code(&c, profilePresent: present, maxSubLayersMinus1: msl)
        }
    }

    /// num_add_olss, default_output_layer_idc and the output layer sets.
    private func codeOutputLayerSets<C: BitCoder>(_ c: inout C, _ e: inout VPSExtension, layout lay: VPSLayout)
        throws(ParseError) -> OLSContext
    {
        let numLayerSets = lay.layerSets.count
        if numLayerSets > 1 {
            try c.ue(&e.numAddOlss, max: 1023, "num_add_olss")
            try c.u8(&e.defaultOutputLayerIdc, 2)
        } else if c.isReading {
            e.numAddOlss = 0; e.defaultOutputLayerIdc = 0
        }
        let ols = OLSContext(vps: self, ext: e, layout: lay)
        let ptlBits = ceilLog2(Int(e.numProfileTierLevelMinus1) + 1)
        let numPTLMinus1 = e.numProfileTierLevelMinus1
        try c.listI(&e.outputLayerSets, count: ols.numOls - 1, { OutputLayerSet() }) {
            (c: inout C, k: Int, o: inout OutputLayerSet) throws(ParseError) in
            let i = k + 1
            if numLayerSets > 2 && i >= numLayerSets {
                try c.u32(&o.layerSetIdxForOlsMinus1, ceilLog2(numLayerSets - 1))
                try c.require(
                    Int(o.layerSetIdxForOlsMinus1) + 1 < numLayerSets, "layer_set_idx_for_ols_minus1 out of range")
            }
            let layers = ols.layers(ols: i, o).layers
            if i > ols.baseSets || ols.defaultIdc == 2 {
                try c.flags(&o.outputLayerFlags, count: layers.count)
            } else if c.isReading {
                o.outputLayerFlags = []
            }
            let (_, output, necessary) = ols.layers(ols: i, o)
            try c.listI(&o.profileTierLevelIdx, count: layers.count, { 0 }) {
                (c: inout C, j: Int, v: inout UInt32) throws(ParseError) in
                if necessary[j] && numPTLMinus1 > 0 {
                    try c.u32(&v, ptlBits)
                    try c.require(v <= numPTLMinus1, "profile_tier_level_idx = \(v) out of range")
                }
            }
            let outIds = zip(layers, output).filter { $0.1 }.map { $0.0 }
            if outIds.count == 1, let highest = outIds.last, lay.numDirectRefLayers(layerId: highest) > 0 {
                try c.flag(&o.altOutputLayer)
            }
        }
        return ols
    }

    /// Representation formats, their per-layer index, and the POC LSB flags.
    private func codeRepFormats<C: BitCoder>(_ c: inout C, _ e: inout VPSExtension, maxL: Int, layout lay: VPSLayout)
        throws(ParseError)
    {
        var numRep = UInt32(max(0, e.repFormats.count - 1))
        try c.ue(&numRep, max: 255, "vps_num_rep_formats_minus1")
        try c.list(&e.repFormats, count: Int(numRep) + 1, { RepFormat() }) {
            (c: inout C, r: inout RepFormat) throws(ParseError) in try r.code(&c)
        }
        if numRep > 0 { try c.flag(&e.repFormatIdxPresent) } else if c.isReading { e.repFormatIdxPresent = false }
        if e.repFormatIdxPresent {
            let start = baseLayerInternal ? 1 : 0
            try c.list(&e.repFormatIdx, count: maxL - start + 1, { 0 }) {
                (c: inout C, v: inout UInt32) throws(ParseError) in
                try c.u32(&v, ceilLog2(Int(numRep) + 1))
                try c.require(v <= numRep, "vps_rep_format_idx = \(v) > \(numRep)")
            }
        } else if c.isReading {
            e.repFormatIdx = []
        }
        try c.flag(&e.maxOneActiveRefLayer)
        try c.flag(&e.pocLsbAligned)
        let ids = e.layerIdInNuh
        try c.listI(&e.pocLsbNotPresent, count: maxL + 1, { false }) {
            (c: inout C, i: Int, v: inout Bool) throws(ParseError) in
            if i > 0 && lay.numDirectRefLayers(layerId: ids[i]) == 0 { try c.flag(&v) }
        }
    }

    /// dpb_size(): per output layer set and sub-layer, the DPB size, reorder and latency limits.
    private func codeDPBSizes<C: BitCoder>(_ c: inout C, _ e: inout VPSExtension, _ ols: OLSContext) throws(ParseError)
    {
        let outputLayerSets = e.outputLayerSets
        let baseLayerInternal = baseLayerInternal
        try c.listI(&e.dpbSizes, count: ols.numOls - 1, { DPBSize() }) {
            (c: inout C, k: Int, d: inout DPBSize) throws(ParseError) in
            let olsEntry = k < outputLayerSets.count ? outputLayerSets[k] : OutputLayerSet()
            let (layers, _, necessary) = ols.layers(ols: k + 1, olsEntry)
            let maxSub = ols.layout.maxSubLayersInSetMinus1(layers)
            try c.flag(&d.subLayerFlagInfoPresent)
            let infoPresent = d.subLayerFlagInfoPresent
            if c.isReading {
                d.subLayerDpbInfoPresent = []; d.maxDecPicBufferingMinus1 = []; d.maxNumReorderPics = [];
                d.maxLatencyIncreasePlus1 = []
            }
            for j in 0...maxSub {
                var present =
                    c.isReading ? (j == 0) : (j < d.subLayerDpbInfoPresent.count ? d.subLayerDpbInfoPresent[j] : j == 0)
                if j == 0 { present = true } else if infoPresent { try c.flag(&present) } else { present = false }
                if c.isReading { d.subLayerDpbInfoPresent.append(present) }
                guard present else {
                    // Not coded: the values equal those of sub-layer j − 1 (F.7.4.3.1.1). Storing them keeps
                    // the arrays indexed by sub-layer, which the writer relies on.
                    if c.isReading {
                        d.maxDecPicBufferingMinus1.append(d.maxDecPicBufferingMinus1.last ?? [])
                        d.maxNumReorderPics.append(d.maxNumReorderPics.last ?? 0)
                        d.maxLatencyIncreasePlus1.append(d.maxLatencyIncreasePlus1.last ?? 0)
                    }
                    continue
                }
                var row: [UInt32] =
                    c.isReading ? [] : (j < d.maxDecPicBufferingMinus1.count ? d.maxDecPicBufferingMinus1[j] : [])
                var coded = 0
                for (kk, lid) in layers.enumerated() where necessary[kk] && (baseLayerInternal || lid != 0) {
                    coded += 1
                }
                try c.ues(&row, count: coded, max: 15, "max_vps_dec_pic_buffering_minus1")
                var r1: UInt32 = c.isReading ? 0 : (j < d.maxNumReorderPics.count ? d.maxNumReorderPics[j] : 0)
                var r2: UInt32 =
                    c.isReading ? 0 : (j < d.maxLatencyIncreasePlus1.count ? d.maxLatencyIncreasePlus1[j] : 0)
                try c.ue(&r1, max: 15, "max_vps_num_reorder_pics")
                try c.ue(&r2)
                if c.isReading {
                    d.maxDecPicBufferingMinus1.append(row); d.maxNumReorderPics.append(r1);
                    d.maxLatencyIncreasePlus1.append(r2)
                }
            }
        }
    }

    /// direct_dependency_type of every direct reference.
    private func codeDependencyTypes<C: BitCoder>(
        _ c: inout C, _ e: inout VPSExtension, maxL: Int, layout lay: VPSLayout
    ) throws(ParseError) {
        try c.ue(&e.directDepTypeLenMinus2, max: 30, "direct_dep_type_len_minus2")
        let typeBits = Int(e.directDepTypeLenMinus2) + 2
        try c.flag(&e.directDependencyAllLayers)
        if e.directDependencyAllLayers {
            try c.u32(&e.directDependencyAllLayersType, typeBits)
        } else {
            var pairs = 0
            let i0 = baseLayerInternal ? 1 : 2, j0 = baseLayerInternal ? 0 : 1
            if i0 <= maxL {
                for i in i0...maxL { for j in stride(from: j0, to: i, by: 1) where lay.direct(i, j) { pairs += 1 } }
            }
            try c.us(&e.directDependencyType, count: pairs, bits: typeBits)
        }
    }

    // MARK: Queries

    /// Layer ids in VPS order (`layer_id_in_nuh`); `[0]` without the extension.
    public var layerIds: [UInt8] { vpsExtension?.layerIdInNuh ?? [0] }
    /// Derived layer structure; nil without the multilayer extension.
    public var layout: VPSLayout? {
        guard let e = vpsExtension else { return nil }
        return VPSLayout(vps: self, ext: e, stage: .afterAddLayerSets)
    }
    /// `ViewId` of the layer with `nuh_layer_id == layerId` (0 when not signalled).
    public func viewId(layerId: UInt8) -> UInt32 {
        guard let e = vpsExtension, let lay = layout, let idx = e.layerIdInNuh.firstIndex(of: layerId) else { return 0 }
        let voi = lay.viewOrderIdx(layerIndex: idx)
        return voi < e.viewIdVal.count ? e.viewIdVal[voi] : 0
    }
    /// `nuh_layer_id` values of the direct reference layers of `layerId`.
    public func directReferenceLayers(of layerId: UInt8) -> [UInt8] {
        guard let lay = layout else { return [] }
        return lay.directRefLayerIds(layerId: layerId)
    }
    /// `poc_lsb_not_present_flag` of the layer (false when not signalled).
    public func pocLsbNotPresent(layerId: UInt8) -> Bool {
        guard let e = vpsExtension, let idx = e.layerIdInNuh.firstIndex(of: layerId), idx < e.pocLsbNotPresent.count
        else { return false }
        return e.pocLsbNotPresent[idx]
    }
    /// The rep_format that applies to `layerId` (§F.7.4.3.1.1), if the extension has one.
    /// The VPS VUI's video signal description (format, range, colour primaries/transfer/matrix) of the layer with
    /// `nuh_layer_id` `layerId` (§F.7.4.3.1.4: `vps_video_signal_info_idx`, inferred as the layer's index, or 0 when
    /// there is one description); nil without a VPS VUI that carries one.
    public func videoSignalInfo(layerId: UInt8) -> VPSVideoSignalInfo? {
        guard let u = vui, !u.videoSignalInfo.isEmpty else { return nil }
        if u.videoSignalInfo.count == 1 { return u.videoSignalInfo[0] }
        let layer = vpsExtension?.layerIdInNuh.firstIndex(of: layerId) ?? Int(layerId)
        let k = layer - (baseLayerInternal ? 0 : 1)
        let idx =
            u.videoSignalInfoIdx.isEmpty
            ? k : (k >= 0 && k < u.videoSignalInfoIdx.count ? Int(u.videoSignalInfoIdx[k]) : 0)
        return idx >= 0 && idx < u.videoSignalInfo.count ? u.videoSignalInfo[idx] : nil
    }

    public func repFormat(layerId: UInt8) -> RepFormat? {
        guard let e = vpsExtension, !e.repFormats.isEmpty else { return nil }
        guard let idx = e.layerIdInNuh.firstIndex(of: layerId) else { return e.repFormats.first }
        var rf = 0
        if e.repFormatIdxPresent {
            let k = idx - (baseLayerInternal ? 1 : 0)
            if k >= 0 && k < e.repFormatIdx.count { rf = Int(e.repFormatIdx[k]) }
        } else {
            rf = min(idx, e.repFormats.count - 1)
        }
        return rf < e.repFormats.count ? e.repFormats[rf] : nil
    }
    /// Profile-tier-level entry `index` of the VPS (0 = the base PTL, 1 = the extension's base-layer PTL).
    public func profileTierLevel(index: Int) -> ProfileTierLevel? {
        if index == 0 { return profileTierLevel }
        guard let e = vpsExtension else { return nil }
        let start = baseLayerInternal ? 2 : 1
        if index == 1 && baseLayerInternal { return e.basePTL }
        let k = index - start
        return k >= 0 && k < e.profileTierLevels.count ? e.profileTierLevels[k] : nil
    }
    /// The PTL index used for `layerId` in the first output layer set that contains it with a coded index.
    public func profileTierLevelIndex(layerId: UInt8) -> Int? {
        guard let e = vpsExtension, let lay = layout else { return nil }
        for (k, o) in e.outputLayerSets.enumerated() {
            let i = k + 1
            let ls = i < lay.layerSets.count ? i : Int(o.layerSetIdxForOlsMinus1) + 1
            guard ls < lay.layerSets.count, let j = lay.layerSets[ls].firstIndex(of: layerId),
                j < o.profileTierLevelIdx.count
            else { continue }
            if o.profileTierLevelIdx[j] > 0 || e.numProfileTierLevelMinus1 == 0 { return Int(o.profileTierLevelIdx[j]) }
        }
        return nil
    }
}

/// Layer structure derived from a VPS and its extension (§F.7.4.3.1.1).
public struct VPSLayout: Sendable {
    enum Stage { case afterDimensions, afterDependencies, afterAddLayerSets }
    /// `layer_id_in_nuh` for each VPS layer index.
    public let layerIds: [UInt8]
    /// `DependencyFlag[i][j]` (transitive) by layer index.
    public let dependency: [[Bool]]
    let directFlags: [[Bool]]
    /// ViewOrderIdx per layer index.
    public let viewOrder: [Int]
    /// `NumViews`.
    public let numViews: Int
    /// Tree partitions (layer ids), one per independent layer.
    public let treePartitions: [[UInt8]]
    /// Layer id lists of all layer sets (base ones, then additional ones).
    public let layerSets: [[UInt8]]
    let subLayersMax: [Int]

    public var numIndependentLayers: Int { treePartitions.count }

    init(vps: VideoParameterSet, ext e: VPSExtension, stage: Stage) {
        let maxL = min(vps.maxLayersMinus1Clamped, max(0, e.layerIdInNuh.count - 1))
        layerIds = Array(e.layerIdInNuh.prefix(maxL + 1))
        let n = layerIds.count
        // Dimension ids (explicit or split from the layer id bits) and view order.
        let numScal = e.scalabilityMask.filter { $0 }.count
        var multiviewSlot: Int? = nil
        var slot = 0
        for (sm, f) in e.scalabilityMask.enumerated() where f {
            if sm == 1 { multiviewSlot = slot }
            slot += 1
        }
        var offsets: [Int] = [0]
        for j in 0..<numScal {
            let len =
                j < e.dimensionIdLenMinus1.count ? Int(e.dimensionIdLenMinus1[j]) + 1 : max(0, 6 - (offsets.last ?? 0))
            offsets.append((offsets.last ?? 0) + len)
        }
        var vo: [Int] = []
        for i in 0..<n {
            var v = 0
            if let s = multiviewSlot, i > 0 {
                if e.splittingFlag {
                    let lid = Int(layerIds[i])
                    let lo = offsets[s], hi = min(offsets[s + 1], 62)
                    if hi > lo { v = (lid & ((1 << hi) - 1)) >> lo }
                } else if i < e.dimensionId.count, s < e.dimensionId[i].count {
                    v = Int(e.dimensionId[i][s])
                }
            }
            vo.append(v)
        }
        viewOrder = vo
        var views = 1
        for i in 1..<max(1, n) where !vo[0..<i].contains(vo[i]) { views += 1 }
        numViews = n == 0 ? 1 : views
        // Dependencies.
        var direct = Array(repeating: Array(repeating: false, count: n), count: n)
        if stage != .afterDimensions {
            for i in 0..<n where i < e.directDependency.count {
                for j in 0..<min(i, e.directDependency[i].count) { direct[i][j] = e.directDependency[i][j] }
            }
        }
        directFlags = direct
        var dep = direct
        for i in 0..<n {
            for j in 0..<n {
                for k in 0..<i where direct[i][k] && dep[k][j] { dep[i][j] = true }
            }
        }
        dependency = dep
        var trees: [[UInt8]] = []
        if stage != .afterDimensions {
            var inList = Set<UInt8>()
            for i in 0..<n where !direct[i].contains(true) {
                var t = [layerIds[i]]
                for j in (i + 1)..<max(i + 1, n) where dep[j][i] && !inList.contains(layerIds[j]) {
                    t.append(layerIds[j]); inList.insert(layerIds[j])
                }
                trees.append(t)
            }
        }
        treePartitions = trees
        var sets = vps.baseLayerSets()
        if stage == .afterAddLayerSets {
            for row in e.highestLayerIdxPlus1 {
                var ids: [UInt8] = []
                for (k, h) in row.enumerated() where k + 1 < trees.count {
                    ids += trees[k + 1].prefix(Int(h))
                }
                sets.append(ids)
            }
        }
        layerSets = sets
        subLayersMax = (0..<n).map { i in
            e.subLayersVpsMaxMinus1Present && i < e.subLayersVpsMaxMinus1.count
                ? Int(e.subLayersVpsMaxMinus1[i]) : Int(vps.maxSubLayersMinus1)
        }
    }

    func index(of layerId: UInt8) -> Int? { layerIds.firstIndex(of: layerId) }
    func direct(_ i: Int, _ j: Int) -> Bool {
        i >= 0 && i < directFlags.count && j >= 0 && j < directFlags[i].count && directFlags[i][j]
    }
    /// `NumDirectRefLayers[layerId]`.
    public func numDirectRefLayers(layerId: UInt8) -> Int { directRefLayerIds(layerId: layerId).count }
    /// `IdDirectRefLayer[layerId]`.
    public func directRefLayerIds(layerId: UInt8) -> [UInt8] {
        guard let i = index(of: layerId) else { return [] }
        return (0..<i).filter { direct(i, $0) }.map { layerIds[$0] }
    }
    /// ViewOrderIdx of a layer index.
    public func viewOrderIdx(layerIndex i: Int) -> Int { i >= 0 && i < viewOrder.count ? viewOrder[i] : 0 }

    func outputFlags(ols i: Int, layers: [UInt8], coded: [Bool], defaultIdc: Int, baseSets: Int) -> [Bool] {
        if i == 0 { return layers.map { _ in true } }
        if i > baseSets || defaultIdc == 2 {
            return layers.indices.map { $0 < coded.count ? coded[$0] : false }
        }
        if defaultIdc == 0 { return layers.map { _ in true } }
        return layers.indices.map { $0 == layers.count - 1 }
    }
    func necessary(layers: [UInt8], output: [Bool]) -> [Bool] {
        var nec = output
        for (j, isOut) in output.enumerated() where isOut {
            guard let a = index(of: layers[j]) else { continue }
            for k in layers.indices where !nec[k] {
                if let b = index(of: layers[k]), a < dependency.count, b < dependency[a].count, dependency[a][b] {
                    nec[k] = true
                }
            }
        }
        return nec
    }
    func maxSubLayersInSetMinus1(_ layers: [UInt8]) -> Int {
        var m = 0
        for lid in layers { if let i = index(of: lid), i < subLayersMax.count { m = max(m, subLayersMax[i]) } }
        return min(m, 6)
    }
}
