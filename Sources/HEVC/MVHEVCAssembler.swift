import BinaryIO

/// How the layer-1 SPS is written by ``MVHEVCAssembler``.
public enum LayerSPSForm: String, Sendable, Codable, CaseIterable {
    /// The second stream's SPS kept whole (profile-tier-level, picture size, bit depths, sub-layer ordering,
    /// VUI) with only `nuh_layer_id`, `sps_seq_parameter_set_id` and `sps_video_parameter_set_id` changed.
    /// Lossless: splitting the file restores the original SPS bit for bit.
    case full
    /// The multilayer form Apple writes (`sps_ext_or_max_sub_layers_minus1 = 7`, `update_rep_format_flag = 0`):
    /// no PTL, size, bit depth or sub-layer ordering; those come from the VPS (rep_format, dpb_size).
    case multilayer
}

/// Options of ``MVHEVCAssembler/assemble(base:second:options:)``.
public struct MVHEVCAssemblyOptions: Sendable {
    /// True when the base stream (layer 0) is the left eye (Apple's choice); false makes layer 0 the right eye.
    public var baseIsLeft = true
    /// Form of the layer-1 SPS (see ``LayerSPSForm``).
    public var layerSPSForm: LayerSPSForm = .full
    /// Repeat VPS/SPS/PPS/SEI 176 before every base-layer IRAP access unit in the Annex B output
    /// (the MP4 muxer always stores them once, in `hvcC`/`lhvC`).
    public var repeatParameterSets = true
    /// Rewrite the encoders' VPS/SPS where Apple's encoder makes a different free choice:
    /// `general_non_packed_constraint_flag` = 1 (the streams carry no frame-packing SEI),
    /// `*_max_latency_increase_plus1` = 0 (no latency limit) and, with one temporal sub-layer,
    /// `*_sub_layer_ordering_info_present_flag` = 0. Off by default because the base stream then no longer matches its
    /// input bit for bit (a split is no longer byte-exact); conversion, which controls its encoder, turns it on.
    /// Refused when a stream carries frame-packing or segmented-rectangular-packing SEI (45, 135).
    public var matchAppleChoices = false
    public init(
        baseIsLeft: Bool = true, layerSPSForm: LayerSPSForm = .full, repeatParameterSets: Bool = true,
        matchAppleChoices: Bool = false
    ) {
        self.baseIsLeft = baseIsLeft
        self.layerSPSForm = layerSPSForm
        self.repeatParameterSets = repeatParameterSets
        self.matchAppleChoices = matchAppleChoices
    }
}

/// One access unit of an assembled stream: base-layer NAL units then layer-1 NAL units, without parameter sets.
public struct MVHEVCAccessUnit: Sendable, Equatable {
    public var nalUnits: [NALUnit]
    /// PicOrderCntVal shared by both pictures.
    public var poc: Int
    /// The base-layer picture is an IRAP picture (a sync sample).
    public var isIRAP: Bool
    /// The base-layer NAL unit type of the first slice.
    public var baseType: NALUnitType
    public init(nalUnits: [NALUnit], poc: Int, isIRAP: Bool, baseType: NALUnitType) {
        self.nalUnits = nalUnits; self.poc = poc; self.isIRAP = isIRAP; self.baseType = baseType
    }
}

/// A two-layer (stereo) MV-HEVC stream built by ``MVHEVCAssembler``.
public struct MVHEVCStream: Sendable {
    /// The multilayer VPS (layer 0).
    public var vps: NALUnit
    /// Base-layer SPS and PPS NAL units (unchanged from the base stream).
    public var baseSPS: [NALUnit]
    public var basePPS: [NALUnit]
    /// Layer-1 SPS and PPS NAL units (`nuh_layer_id` 1, ids distinct from the base layer's).
    public var layerSPS: [NALUnit]
    public var layerPPS: [NALUnit]
    /// Prefix SEI (layer 0) with payload 176, naming the left and right view ids.
    public var sei: NALUnit
    public var accessUnits: [MVHEVCAccessUnit]
    /// Decoded parameter sets (for muxers and reports).
    public var videoParameterSet: VideoParameterSet
    public var width: Int
    public var height: Int
    /// Frame rate from the base SPS VUI timing, if signalled (num_units_in_tick, time_scale).
    public var timing: (unitsInTick: UInt32, timeScale: UInt32)?
    /// `sps_max_num_reorder_pics` of the base layer (0 means decode order equals output order).
    public var maxNumReorderPics: Int

    /// Parameter sets and SEI that open the stream, in the order x265 and FFmpeg use.
    public var headerNALUnits: [NALUnit] { [vps] + baseSPS + layerSPS + basePPS + layerPPS + [sei] }

    /// The whole stream as Annex B (4-byte start codes), parameter sets first (and before every IRAP
    /// access unit when `repeatParameterSets`).
    public func annexB(repeatParameterSets: Bool = true) -> [UInt8] {
        var out: [UInt8] = []
        for (i, au) in accessUnits.enumerated() {
            var nals = au.nalUnits
            if i == 0 || (repeatParameterSets && au.isIRAP) {
                // An access unit delimiter, when present, must stay first.
                let aud = nals.first.map { $0.type == .aud && $0.layerId == 0 } ?? false
                let lead = aud ? [nals[0]] : []
                nals = lead + headerNALUnits + Array(nals.dropFirst(aud ? 1 : 0))
            }
            out += AccessUnitWriter.annexB(nals)
        }
        return out
    }
}

/// Builds a two-layer MV-HEVC stream from two single-layer HEVC streams with the same GOP structure.
///
/// The second stream becomes `nuh_layer_id` 1. The VPS declares layer 1 as depending on layer 0 (like Apple's
/// files) but with `default_ref_layers_active_flag = 0`, and every layer-1 slice carries
/// `inter_layer_pred_enabled_flag = 0`: no inter-layer picture enters any reference list, so each layer decodes
/// exactly as its single-layer encode did. See Specs/mv-hevc-assembly.md.
public enum MVHEVCAssembler {
    /// Assembles Annex B inputs. Throws ``/BinaryIO/ParseError`` (`invalidValue` / `unsupported`) with a message that
    /// names the first difference when the inputs cannot be paired; never returns a broken stream.
    public static func assemble(
        base: [UInt8], second: [UInt8], options: MVHEVCAssemblyOptions = MVHEVCAssemblyOptions()
    ) throws(ParseError) -> MVHEVCStream {
        let a = try SingleLayerReader.read(annexB: base, name: "base (layer 0) stream")
        let b = try SingleLayerReader.read(annexB: second, name: "second (layer 1) stream")
        guard a.pictures.count == b.pictures.count else {
            throw fail(
                "the two streams have different frame counts: base \(a.pictures.count), second \(b.pictures.count)")
        }
        var session = try MVHEVCAssembler.Session(base: a.reader, second: b.reader, options: options)
        var stream = session.header
        stream.accessUnits.reserveCapacity(a.pictures.count)
        for (pa, pb) in zip(a.pictures, b.pictures) {
            stream.accessUnits.append(try session.accessUnit(base: pa, second: pb))
        }
        return stream
    }

    static func fail(_ message: String, _ code: ParseError.Code = .invalidValue) -> ParseError {
        ParseError(code, message)
    }

    /// Removes `video_signal_type_present_flag` (and the colour description under it) from a layer-1 SPS's VUI.
    static func dropVideoSignalType(_ s: inout SequenceParameterSet) {
        guard s.vuiPresent else { return }
        s.vui.videoSignalTypePresent = false
        s.vui.colourDescriptionPresent = false
        s.vui.videoFormat = 5
        s.vui.videoFullRange = false
        s.vui.colourPrimaries = 2; s.vui.transferCharacteristics = 2; s.vui.matrixCoeffs = 2
    }

    /// Puts the VPS VUI's description of layer 1 back into a layer-1 SPS that has a VUI without one (a single-layer
    /// stream states its colours in its SPS).
    static func restoreVideoSignalType(_ s: inout SequenceParameterSet, vps: VideoParameterSet) {
        guard s.vuiPresent, !s.vui.videoSignalTypePresent, let v = vps.videoSignalInfo(layerId: 1) else { return }
        // The VPS always holds a description (5, limited, 2/2/2 = nothing said); a stream that said nothing stays so.
        guard v != VPSVideoSignalInfo() else { return }
        s.vui.videoSignalTypePresent = true
        s.vui.videoFormat = v.videoVpsFormat
        s.vui.videoFullRange = v.videoFullRange
        // "Unspecified" (2) for all three is what an absent colour description means; x265 writes it only when set.
        s.vui.colourDescriptionPresent =
            !(v.colourPrimaries == 2 && v.transferCharacteristics == 2 && v.matrixCoeffs == 2)
        s.vui.colourPrimaries = v.colourPrimaries
        s.vui.transferCharacteristics = v.transferCharacteristics
        s.vui.matrixCoeffs = v.matrixCoeffs
    }

    /// The VPS VUI Apple's encoder writes for two layers: nothing claimed about IRAP alignment, rates or tiles/WPP
    /// beyond "not in use" per layer, one video signal description. The description is the base SPS VUI's when it has
    /// one (a property of the content), else Apple's "unspecified" (format 5, primaries/transfer/matrix 2).
    static func appleVPSVUI(baseSPS s: SequenceParameterSet) -> VPSVUI {
        var u = VPSVUI()
        u.crossLayerPicTypeAligned = false
        u.crossLayerIrapAligned = false
        u.allLayersIdrAligned = false
        u.videoSignalInfoIdxPresent = true
        u.numVideoSignalInfoMinus1 = 0
        var info = VPSVideoSignalInfo()
        if s.vuiPresent && s.vui.videoSignalTypePresent {
            info.videoVpsFormat = UInt8(truncatingIfNeeded: s.vui.videoFormat)
            info.videoFullRange = s.vui.videoFullRange
            if s.vui.colourDescriptionPresent {
                info.colourPrimaries = UInt8(truncatingIfNeeded: s.vui.colourPrimaries)
                info.transferCharacteristics = UInt8(truncatingIfNeeded: s.vui.transferCharacteristics)
                info.matrixCoeffs = UInt8(truncatingIfNeeded: s.vui.matrixCoeffs)
            }
        }
        u.videoSignalInfo = [info]
        u.tilesNotInUse = false
        u.tilesInUse = [false, false]
        u.loopFilterNotAcrossTiles = [false, false]
        u.wppNotInUse = false
        u.wppInUse = [false, false]
        u.baseLayerParameterSetCompatibility = [false, false]
        return u
    }

    /// `general_non_packed_constraint_flag` in ``ProfileTierLevel/constraintFlags``.
    static let nonPackedConstraintBit: UInt64 = 1 << 45

    /// Apple's free choices applied to a single-layer VPS or SPS PTL and sub-layer ordering (see
    /// ``MVHEVCAssemblyOptions/matchAppleChoices``).
    static func appleChoices(
        _ ptl: inout ProfileTierLevel, _ orderingPresent: inout Bool, maxSubLayersMinus1: Int,
        _ dpb: inout [UInt32], _ reorder: inout [UInt32], _ latency: inout [UInt32]
    ) {
        if ptl.profilePresent { ptl.constraintFlags |= nonPackedConstraintBit }
        latency = latency.map { _ in 0 }
        if maxSubLayersMinus1 == 0 && orderingPresent && dpb.count == 1 {
            orderingPresent = false
        }
    }
    static func appleChoices(_ v: inout VideoParameterSet) {
        appleChoices(
            &v.profileTierLevel, &v.subLayerOrderingInfoPresent, maxSubLayersMinus1: Int(v.maxSubLayersMinus1),
            &v.maxDecPicBufferingMinus1, &v.maxNumReorderPics, &v.maxLatencyIncreasePlus1)
    }
    static func appleChoices(_ s: inout SequenceParameterSet) {
        guard !s.isMultiLayerExtension else { return }
        appleChoices(
            &s.profileTierLevel, &s.subLayerOrderingInfoPresent, maxSubLayersMinus1: Int(s.maxSubLayersMinus1OrExt),
            &s.maxDecPicBufferingMinus1, &s.maxNumReorderPics, &s.maxLatencyIncreasePlus1)
    }

    /// The multilayer VPS: the base VPS with two layers, one layer set {0, 1}, and the extension. Layer 1 of 8-bit
    /// streams is declared dependent on layer 0 and signalled Multiview Main (Apple's form). Streams of more than 8
    /// bits (`independent`) have no 8-bit multiview profile to name: layer 1 is declared an independent layer (no
    /// direct reference layer; the assembly never predicts between the layers) and signalled with its own single-layer
    /// profile (Main 10) in the output layer set, as the JVET MV-HEVC conformance stream Q (simulcast) signals its
    /// independently coded layer 1 (Specs/mv-hevc-assembly.md, "10-bit").
    static func makeVPS(
        base va: VideoParameterSet, baseSPS sa: SequenceParameterSet, second sb: SequenceParameterSet,
        independent: Bool = false
    ) throws(ParseError) -> VideoParameterSet {
        var v = va
        v.maxLayersMinus1 = 1
        v.maxLayerId = 1
        v.numLayerSetsMinus1 = 1
        v.layerIdIncluded = [[], [true, true]]
        v.extensionFlag = false
        v.vpsExtension = nil
        v.vui = nil
        v.extension2Flag = nil
        v.extensionData = .empty
        v.extensionAlignmentBits = .empty
        // Position after vps_extension_flag: the stop bit of the extension-less RBSP.
        let plain = try v.rbsp()
        guard let last = plain.lastIndex(where: { $0 != 0 }) else { throw fail("VPS re-encoding failed") }
        let stopBit = last * 8 + 7 - plain[last].trailingZeroBitCount
        let pad = (8 - stopBit % 8) % 8
        v.extensionFlag = true
        v.extensionAlignmentBits = RawBits(bytes: pad == 0 ? [] : [UInt8(0xFF) << UInt8(8 - pad)], bitCount: pad)

        var e = VPSExtension()
        let msl = Int(v.maxSubLayersMinus1)
        // Base-layer PTL without profile: level of the base layer, sub-layer layout copied from the VPS PTL.
        var basePTL = va.profileTierLevel
        basePTL.profilePresent = false
        e.basePTL = basePTL
        e.splittingFlag = false
        var mask = Array(repeating: false, count: 16)
        mask[1] = true
        e.scalabilityMask = mask
        e.dimensionIdLenMinus1 = [2]
        e.nuhLayerIdPresent = true
        e.layerIdInNuh = [0, 1]
        e.dimensionId = [[], [1]]
        e.viewIdLen = 1
        e.viewIdVal = [0, 1]
        e.directDependency = [[], [!independent]]
        e.defaultRefLayersActive = false
        // PTL #2: Multiview Main for layer 1 (constraint flags and level of the second stream).
        var mv = sb.profileTierLevel
        mv.profilePresent = true
        if !independent {
            mv.profileSpace = 0
            mv.profileIdc = 6
            mv.compatibilityFlags = UInt32(1) << 25  // general_profile_compatibility_flag[6]
            // Source flags (progressive, interlaced, non-packed, frame-only) of the second stream, then the
            // format-range flags of an 8-bit 4:2:0 profile (max_12bit … max_420chroma = 1), as in Apple's Multiview
            // Main PTL.
            mv.constraintFlags = (sb.profileTierLevel.constraintFlags & 0xF000_0000_0000) | 0x0F80_0000_0000
        }
        e.numProfileTierLevelMinus1 = 2
        e.profileTierLevels = [mv]
        var ols = OutputLayerSet()
        ols.profileTierLevelIdx = [1, 2]
        e.outputLayerSets = [ols]
        var rf = RepFormat()
        rf.picWidth = UInt16(truncatingIfNeeded: sb.picWidthInLumaSamples)
        rf.picHeight = UInt16(truncatingIfNeeded: sb.picHeightInLumaSamples)
        rf.chromaAndBitDepthPresent = true
        rf.chromaFormatIdc = UInt8(truncatingIfNeeded: sb.chromaFormatIdc)
        rf.bitDepthLumaMinus8 = UInt8(truncatingIfNeeded: sb.bitDepthLumaMinus8)
        rf.bitDepthChromaMinus8 = UInt8(truncatingIfNeeded: sb.bitDepthChromaMinus8)
        rf.conformanceWindowPresent = sb.conformanceWindowPresent
        rf.conformanceWindow = sb.conformanceWindow.count == 4 ? sb.conformanceWindow : [0, 0, 0, 0]
        e.repFormats = [rf]
        e.maxOneActiveRefLayer = true
        // Both layers carry the same POC in every access unit (the session checks it); the LSBs are equal too when
        // both SPSs use the same MaxPicOrderCntLsb. Apple sets the flag.
        e.pocLsbAligned = sa.log2MaxPicOrderCntLsbMinus4 == sb.log2MaxPicOrderCntLsbMinus4
        e.pocLsbNotPresent = [false, false]
        // dpb_size of OLS 1: the larger of the two layers' needs (highest sub-layer).
        func top(_ a: [UInt32]) -> UInt32 { a.last ?? 0 }
        var d = DPBSize()
        d.subLayerFlagInfoPresent = false
        d.subLayerDpbInfoPresent = [true] + Array(repeating: false, count: msl)
        let buf = max(top(sa.maxDecPicBufferingMinus1), top(sb.maxDecPicBufferingMinus1))
        d.maxDecPicBufferingMinus1 = [[top(sa.maxDecPicBufferingMinus1), top(sb.maxDecPicBufferingMinus1)]]
        _ = buf
        d.maxNumReorderPics = [max(top(sa.maxNumReorderPics), top(sb.maxNumReorderPics))]
        d.maxLatencyIncreasePlus1 = [max(top(sa.maxLatencyIncreasePlus1), top(sb.maxLatencyIncreasePlus1))]
        e.dpbSizes = [d]
        // Dependency type 2 (sample and motion prediction) for all layers in one flag, as Apple writes it.
        e.directDepTypeLenMinus2 = 0
        e.directDependencyAllLayers = true
        e.directDependencyAllLayersType = 2
        e.directDependencyType = []
        e.vuiPresent = true
        v.vpsExtension = e
        v.vui = appleVPSVUI(baseSPS: sa)
        // vps_extension2_flag = 0 after the extension, as Apple writes it (without it the stop bit would be read as
        // this flag and the trailing bits would be wrong).
        v.extension2Flag = false
        // Round-trip check: our own parser must read back what we wrote.
        let nal = try v.nalUnit()
        let back = try VideoParameterSet(nal: nal)
        guard back.vpsExtension != nil, back.directReferenceLayers(of: 1) == (independent ? [] : [0]) else {
            throw fail("internal: VPS did not round-trip")
        }
        return back
    }
}

/// Annex B writing with the start-code lengths x265 (and most encoders) use: the 4-byte form (zero_byte +
/// start code) for VPS/SPS/PPS/AUD, the first NAL unit of an access unit and the first slice segment of each
/// picture; the 3-byte form otherwise. With this rule a split reproduces x265's streams byte for byte.
public enum AccessUnitWriter {
    public static func annexB(_ accessUnit: [NALUnit]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, n) in accessUnit.enumerated() {
            let t = n.type
            let firstSlice = t.isVCL && n.bytes.count > 2 && n.bytes[2] & 0x80 != 0
            if i == 0 || t == .vps || t == .sps || t == .pps || t == .aud || firstSlice { out.append(0) }
            out += [0, 0, 1]
            out += n.bytes
        }
        return out
    }
}
