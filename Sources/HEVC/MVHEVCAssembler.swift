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
    public init(baseIsLeft: Bool = true, layerSPSForm: LayerSPSForm = .full, repeatParameterSets: Bool = true) {
        self.baseIsLeft = baseIsLeft
        self.layerSPSForm = layerSPSForm
        self.repeatParameterSets = repeatParameterSets
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
    /// Assembles Annex B inputs. Throws ``ParseError`` (`invalidValue` / `unsupported`) with a message that
    /// names the first difference when the inputs cannot be paired; never returns a broken stream.
    public static func assemble(base: [UInt8], second: [UInt8], options: MVHEVCAssemblyOptions = MVHEVCAssemblyOptions()) throws(ParseError) -> MVHEVCStream {
        let a = try SingleLayerStream(annexB: base, name: "base (layer 0) stream")
        let b = try SingleLayerStream(annexB: second, name: "second (layer 1) stream")
        return try assemble(base: a, second: b, options: options)
    }

    static func fail(_ message: String, _ code: ParseError.Code = .invalidValue) -> ParseError {
        ParseError(code, offset: 0, message)
    }

    static func assemble(base a: SingleLayerStream, second b: SingleLayerStream, options: MVHEVCAssemblyOptions) throws(ParseError) -> MVHEVCStream {
        // Structure checks.
        guard a.pictures.count == b.pictures.count else {
            throw fail("the two streams have different frame counts: base \(a.pictures.count), second \(b.pictures.count)")
        }
        guard let sa = a.firstSPS, let sb = b.firstSPS, let va = a.firstVPS else {
            throw fail("a stream has no VPS/SPS")
        }
        for (name, s) in [("base", sa), ("second", sb)] {
            if s.chromaFormatIdc != 1 || s.separateColourPlane {
                throw fail("the \(name) stream is not 4:2:0 (chroma_format_idc \(s.chromaFormatIdc)); Multiview Main needs 8-bit 4:2:0", .unsupported)
            }
            if s.bitDepthLumaMinus8 != 0 || s.bitDepthChromaMinus8 != 0 {
                throw fail("the \(name) stream is \(s.bitDepthLumaMinus8 + 8)-bit; Multiview Main (the profile of Apple spatial video) is 8-bit only — encode both eyes with 8-bit 4:2:0", .unsupported)
            }
        }
        guard sa.picWidthInLumaSamples == sb.picWidthInLumaSamples, sa.picHeightInLumaSamples == sb.picHeightInLumaSamples,
              sa.croppedWidth == sb.croppedWidth, sa.croppedHeight == sb.croppedHeight else {
            throw fail("the two streams have different picture sizes: base \(sa.croppedWidth)x\(sa.croppedHeight) (coded \(sa.picWidthInLumaSamples)x\(sa.picHeightInLumaSamples)), second \(sb.croppedWidth)x\(sb.croppedHeight) (coded \(sb.picWidthInLumaSamples)x\(sb.picHeightInLumaSamples))")
        }
        guard sa.maxSubLayersMinus1OrExt == sb.maxSubLayersMinus1OrExt else {
            throw fail("the two streams have different numbers of temporal sub-layers (\(sa.maxSubLayersMinus1OrExt + 1) and \(sb.maxSubLayersMinus1OrExt + 1))")
        }
        if va.vpsExtension != nil || va.maxLayersMinus1 > 0 {
            throw fail("the base stream already has a multilayer VPS; both inputs must be single-layer HEVC", .unsupported)
        }
        for (i, (pa, pb)) in zip(a.pictures, b.pictures).enumerated() {
            if pa.type.isIRAP != pb.type.isIRAP || pa.type.isIDR != pb.type.isIDR {
                throw fail("frame \(i) (POC \(pa.poc)): random access points are not aligned (base \(pa.type.name), second \(pb.type.name)); use a fixed keyframe interval and no scene-cut in both encodes")
            }
            if pa.poc != pb.poc {
                throw fail("frame \(i): picture order counts differ (base POC \(pa.poc), second POC \(pb.poc)); encode both eyes with the same GOP (fixed keyint, no scene-cut, same B-frames)")
            }
            if pa.type.isRASL != pb.type.isRASL {
                throw fail("frame \(i) (POC \(pa.poc)): leading-picture types differ (base \(pa.type.name), second \(pb.type.name)); use closed GOPs in both encodes")
            }
        }
        // Ids: layer 1 gets SPS/PPS ids not used by the base stream, assigned in order of first appearance.
        let usedSPS = Set(a.spsOrder), usedPPS = Set(a.ppsOrder)
        var spsMap: [UInt32: UInt32] = [:], ppsMap: [UInt32: UInt32] = [:]
        var next: UInt32 = 0
        for id in b.spsOrder {
            while usedSPS.contains(next) { next += 1 }
            guard next <= 15 else { throw fail("no free SPS id for layer 1 (ids 0…15 taken)", .unsupported) }
            spsMap[id] = next; next += 1
        }
        next = 0
        for id in b.ppsOrder {
            while usedPPS.contains(next) { next += 1 }
            guard next <= 63 else { throw fail("no free PPS id for layer 1 (ids 0…63 taken)", .unsupported) }
            ppsMap[id] = next; next += 1
        }
        // The VPS.
        let vps = try makeVPS(base: va, baseSPS: sa, second: sb, secondStream: b)
        let vpsNAL = try vps.nalUnit()
        // Layer-1 parameter sets.
        var newSPS: [UInt32: SequenceParameterSet] = [:]
        var layerSPS: [NALUnit] = []
        for id in b.spsOrder {
            guard var s = b.store.sps[id], let nid = spsMap[id] else { continue }
            s.header.layerId = 1
            s.spsId = nid
            s.vpsId = vps.vpsId
            if options.layerSPSForm == .multilayer {
                s.maxSubLayersMinus1OrExt = 7
                s.updateRepFormat = false
                s.inferScalingList = false
            }
            let nal = try s.nalUnit(vps: vps)
            let back = try SequenceParameterSet(nal: nal, vps: vps)
            newSPS[id] = back
            layerSPS.append(nal)
        }
        var newPPS: [UInt32: PictureParameterSet] = [:]
        var layerPPS: [NALUnit] = []
        for id in b.ppsOrder {
            guard var p = b.store.pps[id], let nid = ppsMap[id], let ns = spsMap[p.spsId] else { continue }
            p.header.layerId = 1
            p.ppsId = nid
            p.spsId = ns
            let nal = try p.nalUnit()
            newPPS[id] = try PictureParameterSet(nal: nal)
            layerPPS.append(nal)
        }
        // SEI 176.
        var info = ThreeDimensionalReferenceDisplaysInfo()
        info.displays = [ThreeDimensionalReferenceDisplaysInfo.Display(leftViewId: options.baseIsLeft ? 0 : 1, rightViewId: options.baseIsLeft ? 1 : 0)]
        let sei = SEIMessageList(header: NALHeader(type: .prefixSEI), messages: [SEIMessage(payloadType: 176, payload: try info.payload())]).nalUnit()
        // Access units.
        var aus: [MVHEVCAccessUnit] = []
        aus.reserveCapacity(a.pictures.count)
        for (pa, pb) in zip(a.pictures, b.pictures) {
            var nals = pa.nonParameterSetNALs
            for nal in pb.nals {
                if nal.type == .prefixSEI || nal.type == .suffixSEI {
                    // The second stream's SEI messages move to layer 1 (header change only), except
                    // active_parameter_sets (129), whose SPS ids no longer hold.
                    let list = try? SEIMessageList(nal: nal)
                    if list?.messages.contains(where: { $0.payloadType == 129 }) ?? true { continue }
                    var h = nal.header
                    h.layerId = 1
                    var bytes = nal.bytes
                    let hb = h.bytes
                    bytes[0] = hb[0]; bytes[1] = hb[1]
                    nals.append(try NALUnit(bytes: bytes))
                    continue
                }
                // AUD, EOS, EOB and filler data exist once per access unit (layer 0); the second stream's are dropped.
                guard nal.type.isVCL else { continue }
                let ctx = try b.store.context(forSlice: nal)
                let sh = try SliceSegmentHeader(nal: nal, context: ctx)
                guard let s1 = newSPS[ctx.pps.spsId], let p1 = newPPS[ctx.pps.ppsId], let pid = ppsMap[ctx.pps.ppsId] else {
                    throw fail("a second-stream slice refers to a parameter set that was not mapped")
                }
                let newCtx = SliceContext(vps: vps, sps: s1, pps: p1)
                let pocLsb = UInt32(truncatingIfNeeded: pb.poc & ((1 << s1.log2MaxPicOrderCntLsb) - 1))
                let out = try sh.emit(context: newCtx) { h in
                    h.header.layerId = 1
                    h.ppsId = pid
                    h.interLayerPredEnabled = false
                    if h.header.type.isIDR { h.pocLsb = pocLsb }
                }
                nals.append(out)
            }
            aus.append(MVHEVCAccessUnit(nalUnits: nals, poc: pa.poc, isIRAP: pa.type.isIRAP, baseType: pa.type))
        }
        var timing: (UInt32, UInt32)? = nil
        if sa.vuiPresent && sa.vui.timingInfoPresent { timing = (sa.vui.numUnitsInTick, sa.vui.timeScale) }
        return MVHEVCStream(vps: vpsNAL, baseSPS: a.spsOrder.compactMap { a.spsNAL[$0] }, basePPS: a.ppsOrder.compactMap { a.ppsNAL[$0] },
                            layerSPS: layerSPS, layerPPS: layerPPS, sei: sei, accessUnits: aus, videoParameterSet: vps,
                            width: sa.croppedWidth, height: sa.croppedHeight, timing: timing,
                            maxNumReorderPics: Int(sa.maxNumReorderPics.last ?? 0))
    }

    /// The multilayer VPS: the base VPS with two layers, one layer set {0, 1}, and the extension.
    static func makeVPS(base va: VideoParameterSet, baseSPS sa: SequenceParameterSet, second sb: SequenceParameterSet,
                        secondStream b: SingleLayerStream) throws(ParseError) -> VideoParameterSet {
        var v = va
        v.maxLayersMinus1 = 1
        v.maxLayerId = 1
        v.numLayerSetsMinus1 = 1
        v.layerIdIncluded = [[], [true, true]]
        v.extensionFlag = false
        v.vpsExtension = nil
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
        e.directDependency = [[], [true]]
        e.defaultRefLayersActive = false
        // PTL #2: Multiview Main for layer 1 (constraint flags and level of the second stream).
        var mv = sb.profileTierLevel
        mv.profilePresent = true
        mv.profileSpace = 0
        mv.profileIdc = 6
        mv.compatibilityFlags = UInt32(1) << 25   // general_profile_compatibility_flag[6]
        // Source flags (progressive, interlaced, non-packed, frame-only) of the second stream, then the format-range
        // flags of an 8-bit 4:2:0 profile (max_12bit … max_420chroma = 1), as in Apple's Multiview Main PTL.
        mv.constraintFlags = (sb.profileTierLevel.constraintFlags & 0xF000_0000_0000) | 0x0F80_0000_0000
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
        e.pocLsbAligned = false
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
        e.directDepTypeLenMinus2 = 0
        e.directDependencyAllLayers = false
        e.directDependencyType = [2]
        e.vuiPresent = false
        v.vpsExtension = e
        // Round-trip check: our own parser must read back what we wrote.
        let nal = try v.nalUnit()
        let back = try VideoParameterSet(nal: nal)
        guard back.vpsExtension != nil, back.directReferenceLayers(of: 1) == [0] else { throw fail("internal: VPS did not round-trip") }
        return back
    }
}

/// A parsed single-layer Annex B stream, grouped into pictures (one per access unit).
struct SingleLayerStream {
    struct Picture {
        var nals: [NALUnit]
        var poc: Int
        var type: NALUnitType
        /// Everything except VPS/SPS/PPS (AUD, SEI, slices, EOS…).
        var nonParameterSetNALs: [NALUnit]
    }
    var store = ParameterSetStore()
    var pictures: [Picture] = []
    var spsOrder: [UInt32] = []
    var ppsOrder: [UInt32] = []
    var vpsOrder: [UInt8] = []
    var spsNAL: [UInt32: NALUnit] = [:]
    var ppsNAL: [UInt32: NALUnit] = [:]
    var firstVPS: VideoParameterSet? { vpsOrder.first.flatMap { store.vps[$0] } }
    var firstSPS: SequenceParameterSet? { spsOrder.first.flatMap { store.sps[$0] } }

    init(annexB: [UInt8], name: String) throws(ParseError) {
        let nals: [NALUnit]
        do { nals = try AnnexB.split(annexB) } catch { throw ParseError(error.code, offset: error.offset, "\(name): \(error.message)") }
        if nals.isEmpty { throw ParseError(.truncated, offset: 0, "\(name) is empty (no NAL units)") }
        var prevTid0: [UInt8: Int] = [:]
        var vpsBytes: [UInt8: [UInt8]] = [:]
        for au in AccessUnits.group(nals) {
            var pic = Picture(nals: [], poc: 0, type: .trailN, nonParameterSetNALs: [])
            var sawSlice = false
            for nal in au {
                if nal.layerId != 0 {
                    throw ParseError(.unsupported, offset: nal.offset, "\(name) has NAL units with nuh_layer_id \(nal.layerId): inputs must be single-layer HEVC")
                }
                switch nal.type {
                case .vps, .sps, .pps:
                    try record(nal, name: name, vpsBytes: &vpsBytes)
                    continue
                default: break
                }
                pic.nals.append(nal)
                pic.nonParameterSetNALs.append(nal)
                if nal.type.isVCL {
                    guard nal.type.rawValue <= 21 else {
                        throw ParseError(.unsupported, offset: nal.offset, "\(name): reserved VCL NAL unit type \(nal.type.rawValue)")
                    }
                    let ctx: SliceContext
                    let sh: SliceSegmentHeader
                    do throws(ParseError) {
                        ctx = try store.context(forSlice: nal)
                        sh = try SliceSegmentHeader(nal: nal, context: ctx)
                    } catch { throw ParseError(error.code, offset: error.offset, "\(name): \(error.message)") }
                    if sh.firstSliceSegmentInPic {
                        if sawSlice { throw ParseError(.invalidValue, offset: nal.offset, "\(name): two pictures in one access unit") }
                        sawSlice = true
                        pic.poc = StreamAnalysis.poc(sh, ctx, &prevTid0)
                        pic.type = nal.type
                    } else if !sawSlice {
                        throw ParseError(.invalidValue, offset: nal.offset, "\(name): access unit starts without a first slice segment")
                    }
                }
            }
            if sawSlice {
                pictures.append(pic)
            } else if !pic.nals.isEmpty, !pictures.isEmpty {
                // Trailing non-VCL units (EOS/EOB/suffix SEI) belong to the previous access unit.
                pictures[pictures.count - 1].nals += pic.nals
                pictures[pictures.count - 1].nonParameterSetNALs += pic.nonParameterSetNALs
            }
        }
        if pictures.isEmpty { throw ParseError(.truncated, offset: 0, "\(name) has no pictures") }
    }

    mutating func record(_ nal: NALUnit, name: String, vpsBytes: inout [UInt8: [UInt8]]) throws(ParseError) {
        do throws(ParseError) {
            switch nal.type {
            case .vps:
                let v = try VideoParameterSet(nal: nal)
                if let old = vpsBytes[v.vpsId] {
                    guard old == nal.bytes else { throw ParseError(.unsupported, offset: nal.offset, "VPS \(v.vpsId) changes mid-stream (not supported)") }
                    return
                }
                vpsBytes[v.vpsId] = nal.bytes
                vpsOrder.append(v.vpsId)
                try store.add(nal)
            case .sps:
                let v = SequenceParameterSet.referencedVPSId(in: nal).flatMap { store.vps[$0] }
                let s = try SequenceParameterSet(nal: nal, vps: v)
                if let old = spsNAL[s.spsId] {
                    guard old.bytes == nal.bytes else { throw ParseError(.unsupported, offset: nal.offset, "SPS \(s.spsId) changes mid-stream (not supported)") }
                    return
                }
                spsNAL[s.spsId] = nal
                spsOrder.append(s.spsId)
                try store.add(nal)
            case .pps:
                let p = try PictureParameterSet(nal: nal)
                if let old = ppsNAL[p.ppsId] {
                    guard old.bytes == nal.bytes else { throw ParseError(.unsupported, offset: nal.offset, "PPS \(p.ppsId) changes mid-stream (not supported)") }
                    return
                }
                ppsNAL[p.ppsId] = nal
                ppsOrder.append(p.ppsId)
                try store.add(nal)
            default: break
            }
        } catch { throw ParseError(error.code, offset: error.offset, "\(name): \(error.message)") }
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
