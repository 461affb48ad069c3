import BinaryIO

/// The parameter sets seen so far in a stream, by id (ids are shared across layers).
public struct ParameterSetStore: Sendable {
    public var vps: [UInt8: VideoParameterSet] = [:]
    public var sps: [UInt32: SequenceParameterSet] = [:]
    public var pps: [UInt32: PictureParameterSet] = [:]
    public init() {}

    /// Parses and stores a VPS, SPS or PPS NAL unit. Returns false for other NAL unit types.
    @discardableResult
    public mutating func add(_ nal: NALUnit) throws(ParseError) -> Bool {
        switch nal.type {
        case .vps:
            let v = try VideoParameterSet(nal: nal); vps[v.vpsId] = v
        case .sps:
            let v = SequenceParameterSet.referencedVPSId(in: nal).flatMap { vps[$0] }
            let s = try SequenceParameterSet(nal: nal, vps: v); sps[s.spsId] = s
        case .pps:
            let p = try PictureParameterSet(nal: nal); pps[p.ppsId] = p
        default:
            return false
        }
        return true
    }

    /// The parameter sets a slice NAL unit refers to; a missing one is ``/BinaryIO/ParseError/Code/danglingReference``.
    public func context(forSlice nal: NALUnit) throws(ParseError) -> SliceContext {
        let id = try SliceSegmentHeader.peekPPSId(nal)
        guard let p = pps[id] else {
            throw ParseError(.danglingReference, offset: nal.offset, "slice refers to missing PPS \(id)")
        }
        guard let s = sps[p.spsId] else {
            throw ParseError(.danglingReference, offset: nal.offset, "PPS \(id) refers to missing SPS \(p.spsId)")
        }
        return SliceContext(vps: vps[s.vpsId], sps: s, pps: p)
    }

    /// Parses the slice segment header of `nal` against the stored parameter sets.
    public func sliceHeader(_ nal: NALUnit) throws(ParseError) -> SliceSegmentHeader {
        try SliceSegmentHeader(nal: nal, context: try context(forSlice: nal))
    }
}

/// Grouping NAL units into access units.
public enum AccessUnits {
    /// Splits a NAL unit sequence (an Annex B stream) into access units (§7.4.2.4.4, §F.7.4.2.4.4): after a
    /// picture has started, a new access unit begins at a base-layer AUD/VPS/SPS/PPS/prefix SEI/reserved
    /// 41…44/48…55 NAL unit, or at a first slice segment of a layer that already has a picture in the unit.
    public static func group(_ nals: [NALUnit]) -> [[NALUnit]] {
        var grouper = Grouper()
        var out: [[NALUnit]] = []
        for nal in nals { if let au = grouper.add(nal) { out.append(au) } }
        if let au = grouper.finish() { out.append(au) }
        return out
    }

    /// The same grouping one NAL unit at a time, for streams read piece by piece.
    public struct Grouper: Sendable {
        var current: [NALUnit] = []
        var layersWithPicture = Set<UInt8>()

        public init() {}

        /// Adds the next NAL unit; returns the access unit it completed, if any.
        public mutating func add(_ nal: NALUnit) -> [NALUnit]? {
            let t = nal.type.rawValue
            var startsNew = false
            if nal.type.isVCL {
                let first = nal.bytes.count > 2 && nal.bytes[2] & 0x80 != 0
                if first && layersWithPicture.contains(nal.layerId) { startsNew = true }
            } else if !layersWithPicture.isEmpty && nal.layerId == 0 {
                if t == 35 || t == 32 || t == 33 || t == 34 || t == 39 || (41...44).contains(t) || (48...55).contains(t)
                {
                    startsNew = true
                }
            }
            var completed: [NALUnit]? = nil
            if startsNew && !current.isEmpty {
                completed = current
                current = []
                layersWithPicture = []
            }
            current.append(nal)
            if nal.type.isVCL { layersWithPicture.insert(nal.layerId) }
            return completed
        }

        /// The last access unit, if any NAL units are pending.
        public mutating func finish() -> [NALUnit]? {
            defer { current = []; layersWithPicture = [] }
            return current.isEmpty ? nil : current
        }
    }
}

/// One NAL unit as described by ``StreamAnalysis``.
public struct NALRecord: Sendable, Codable {
    public var accessUnit: Int
    public var offset: UInt64
    public var type: UInt8
    public var typeName: String
    public var layerId: UInt8
    public var temporalId: Int
    public var size: Int
    public var sliceType: String?
    public var pocLsb: UInt32?
    public var poc: Int?
    public var firstSliceInPicture: Bool?
    /// A parse problem with this NAL unit, if any.
    public var error: String?
}

/// Walks access units once: keeps parameter sets, parses slice headers and SEI, derives POCs.
public struct StreamAnalysis: Sendable {
    public private(set) var records: [NALRecord] = []
    public private(set) var accessUnitCount = 0
    public private(set) var store = ParameterSetStore()
    public private(set) var seiMessages: [SEIMessage] = []
    /// Per layer: number of P/B slices whose reference lists contain inter-layer pictures.
    public private(set) var interLayerPredictedSlices: [UInt8: Int] = [:]
    /// Per layer: number of slices that code `inter_layer_pred_enabled_flag`, and how many set it.
    public private(set) var interLayerFlagCoded: [UInt8: (coded: Int, set: Int)] = [:]
    public private(set) var pictureCount: [UInt8: Int] = [:]
    /// Base-layer picture type per access unit, e.g. "IDR_W_RADL I" (the first 100 unless all details are kept).
    public private(set) var frameTypes: [String] = []
    public private(set) var errors: [String] = []

    /// Per-NAL records and SEI messages are kept only for the first `detailLimit` access units when
    /// `keepAllDetails` is false (a summary of a long stream needs the counts, not a line per NAL unit).
    let keepAllDetails: Bool
    static let detailLimit = 100
    var prevTid0: [UInt8: Int] = [:]

    /// Analyses NAL units already grouped into access units.
    public init(accessUnits: [[NALUnit]]) {
        self.init(keepAllDetails: true)
        for au in accessUnits { add(accessUnit: au) }
    }

    /// An empty analysis to feed with ``add(accessUnit:)``.
    public init(keepAllDetails: Bool) {
        self.keepAllDetails = keepAllDetails
    }

    /// Analyses the next access unit.
    public mutating func add(accessUnit au: [NALUnit]) {
        let auIndex = accessUnitCount
        let detailed = keepAllDetails || auIndex < Self.detailLimit
        var frameType: String? = nil
        var pocByLayer: [UInt8: Int] = [:]
        for nal in au {
            let h = nal.header
            var rec = NALRecord(
                accessUnit: auIndex, offset: nal.offset, type: h.type.rawValue, typeName: h.type.name,
                layerId: h.layerId, temporalId: h.temporalId, size: nal.size)
            do {
                if try store.add(nal) {
                } else if h.type == .prefixSEI || h.type == .suffixSEI {
                    if detailed || !seiMessages.contains(where: { $0.threeDimensionalReferenceDisplays != nil }) {
                        seiMessages += try SEIMessageList(nal: nal).messages
                    }
                } else if h.type.isVCL && h.type.rawValue <= 21 {
                    let ctx = try store.context(forSlice: nal)
                    let sh = try SliceSegmentHeader(nal: nal, context: ctx)
                    rec.firstSliceInPicture = sh.firstSliceSegmentInPic
                    if !sh.dependentSliceSegment { rec.sliceType = sh.sliceType?.letter }
                    if sh.firstSliceSegmentInPic {
                        pictureCount[h.layerId, default: 0] += 1
                        let poc = Self.poc(sh, ctx, &prevTid0)
                        pocByLayer[h.layerId] = poc
                        if h.layerId == 0 && frameType == nil {
                            frameType = "\(h.type.name) \(sh.sliceType?.letter ?? "?")"
                        }
                    }
                    rec.pocLsb = sh.pocLsb
                    rec.poc = pocByLayer[h.layerId]
                    if h.layerId > 0 {
                        if let e = ctx.vps?.vpsExtension, !e.defaultRefLayersActive,
                            !(ctx.vps?.directReferenceLayers(of: h.layerId).isEmpty ?? true), !sh.dependentSliceSegment
                        {
                            var v = interLayerFlagCoded[h.layerId] ?? (0, 0)
                            v.coded += 1
                            if sh.interLayerPredEnabled { v.set += 1 }
                            interLayerFlagCoded[h.layerId] = v
                        }
                        if !sh.isIntra && !sh.dependentSliceSegment && sh.numActiveRefLayerPics(context: ctx) > 0 {
                            interLayerPredictedSlices[h.layerId, default: 0] += 1
                        }
                    }
                }
            } catch {
                rec.error = error.description
                if errors.count < 100 {
                    errors.append("AU \(auIndex) \(h.type.name) at \(nal.offset): \(error.description)")
                }
            }
            if detailed { records.append(rec) }
        }
        if detailed { frameTypes.append(frameType ?? "-") }
        accessUnitCount += 1
    }

    /// Reads an Annex B stream from `source` with ``AnnexB/Scanner`` and analyses every access unit.
    public static func scanning(_ source: any ByteSource, keepAllDetails: Bool, limits: Limits = .default)
        throws(ParseError) -> StreamAnalysis
    {
        var scanner = AnnexB.Scanner(source: source, limits: limits)
        var grouper = AccessUnits.Grouper()
        var analysis = StreamAnalysis(keepAllDetails: keepAllDetails)
        while let nal = try scanner.next() {
            if let au = grouper.add(nal) { analysis.add(accessUnit: au) }
        }
        if let au = grouper.finish() { analysis.add(accessUnit: au) }
        return analysis
    }

    static func poc(_ sh: SliceSegmentHeader, _ ctx: SliceContext, _ prevTid0: inout [UInt8: Int]) -> Int {
        let t = sh.header.type
        let maxLsb = 1 << ctx.sps.log2MaxPicOrderCntLsb
        let lsb = Int(sh.pocLsb)
        var msb = 0
        let layer = sh.header.layerId
        if t.isIRAP && (t.isIDR || t.rawValue <= 18 || prevTid0[layer] == nil) {
            msb = 0
        } else if let prev = prevTid0[layer] {
            let prevLsb = ((prev % maxLsb) + maxLsb) % maxLsb
            let prevMsb = prev - prevLsb
            if lsb < prevLsb && prevLsb - lsb >= maxLsb / 2 {
                msb = prevMsb + maxLsb
            } else if lsb > prevLsb && lsb - prevLsb > maxLsb / 2 {
                msb = prevMsb - maxLsb
            } else {
                msb = prevMsb
            }
        }
        let poc = msb + lsb
        if sh.header.temporalId == 0 && !t.isRASL && !t.isRADL && !t.isSubLayerNonReference { prevTid0[layer] = poc }
        return poc
    }
}

/// A stream-level summary for `info`: codec parameters, layers, views and access units.
public struct HEVCStreamInfo: Sendable, Codable, Equatable {
    /// Per-layer facts.
    public struct Layer: Sendable, Codable, Equatable {
        public var layerId: Int
        public var viewId: Int?
        public var profileIdc: Int?
        public var profileName: String?
        public var levelIdc: Int?
        public var width: Int?
        public var height: Int?
        public var bitDepthLuma: Int?
        public var bitDepthChroma: Int?
        public var chromaFormat: String?
        /// `nuh_layer_id`s of the direct reference layers (direct_dependency_flag).
        public var directReferenceLayers: [Int]
        /// Whether slices of this layer use inter-layer prediction (nil for layers without reference layers).
        public var usesInterLayerPrediction: Bool?
        /// How inter-layer prediction is signalled: `default_ref_layers_active_flag` or
        /// `inter_layer_pred_enabled_flag`.
        public var interLayerSignalling: String?
        public var pictureCount: Int
        /// The colour this layer's pictures are stated in: its SPS VUI, else (a layer > 0) the VPS VUI's
        /// video_signal_info; nil when neither states one.
        public var colour: String? = nil
        /// The same colour as code points, and where it is stated ("sps_vui" or "vps_vui"), for `info --json`.
        public var colourDescription: VideoColour? = nil
        public var colourSource: String? = nil
    }
    public var profileIdc: Int?
    public var profileName: String?
    public var tier: String?
    public var levelIdc: Int?
    /// Level as a number, e.g. 3.1.
    public var level: Double?
    public var width: Int?
    public var height: Int?
    public var bitDepthLuma: Int?
    public var bitDepthChroma: Int?
    public var chromaFormat: String?
    public var layerCount: Int
    public var layers: [Layer]
    /// View ids of the left and right views from SEI 176 (three-dimensional reference displays).
    public var leftViewId: Int?
    public var rightViewId: Int?
    /// `nuh_layer_id` of the layers carrying the left and right views.
    public var leftLayerId: Int?
    public var rightLayerId: Int?
    public var isMultiview: Bool
    /// Which eye layer 0 (the base layer, the only one single-layer decoders show) carries, from SEI 176 and the
    /// VPS view ids: `true` left, `false` right, nil when not signalled.
    public var baseLayerIsLeft: Bool? {
        if leftLayerId == 0 { return true }
        if rightLayerId == 0 { return false }
        return nil
    }
    public var accessUnitCount: Int
    /// Base-layer picture type of each access unit, e.g. `IDR_W_RADL I`.
    public var frameTypes: [String]
    /// Problems met while analysing (first 100).
    public var errors: [String]
    /// The mastering display (SEI 137) and content light level (SEI 144) the stream states, in words.
    public var hdrMetadata: String? = nil

    /// Summarises an Annex B stream.
    public init(annexB: [UInt8]) throws(ParseError) {
        let nals = try AnnexB.split(annexB)
        self.init(accessUnits: AccessUnits.group(nals))
    }

    /// Summarises an Annex B stream read piece by piece from `source` (memory bounded by the largest
    /// access unit, whatever the stream's length). Every access unit is counted and analysed; picture types
    /// are kept for the first 100.
    public init(scanning source: any ByteSource, limits: Limits = .default) throws(ParseError) {
        self.init(analysis: try StreamAnalysis.scanning(source, keepAllDetails: false, limits: limits))
    }

    /// Summarises an MP4/QuickTime track from its `hvcC` (and `lhvC`) payloads and its samples
    /// (length-prefixed NAL units, one access unit per sample).
    public init(hvcC: [UInt8], lhvC: [UInt8]? = nil, samples: [[UInt8]]) throws(ParseError) {
        let h = try HEVCDecoderConfigurationRecord(parsing: hvcC)
        var header = h.nalUnits()
        if let lhvC { header += try LHEVCDecoderConfigurationRecord(parsing: lhvC).nalUnits() }
        var aus: [[NALUnit]] = []
        for (i, s) in samples.enumerated() {
            var nals = try LengthPrefixed.split(s, lengthSize: h.lengthSize)
            if i == 0 { nals = header + nals }
            aus.append(nals)
        }
        if aus.isEmpty { aus = [header] }
        self.init(accessUnits: aus)
    }

    /// Summarises NAL units grouped into access units.
    public init(accessUnits: [[NALUnit]]) {
        self.init(analysis: StreamAnalysis(accessUnits: accessUnits))
    }

    /// Summarises a finished analysis.
    public init(analysis a: StreamAnalysis) {
        let store = a.store
        let vps = store.vps.sorted { $0.key < $1.key }.first?.value
        let baseSPS =
            store.sps.values.filter { $0.header.layerId == 0 }.sorted { $0.spsId < $1.spsId }.first
            ?? store.sps.values.sorted { $0.spsId < $1.spsId }.first
        let ptl =
            baseSPS.map {
                $0.isMultiLayerExtension ? (vps?.profileTierLevel ?? $0.profileTierLevel) : $0.profileTierLevel
            } ?? vps?.profileTierLevel
        profileIdc = ptl.map { Int($0.profileIdc) }
        profileName = ptl.map { HEVCStreamInfo.profileName(Int($0.profileIdc)) }
        tier = ptl.map { $0.tierFlag ? "High" : "Main" }
        levelIdc = ptl.map { Int($0.levelIdc) }
        level = ptl.map { Double($0.levelIdc) / 30.0 }.map { ($0 * 10).rounded() / 10 }
        width = baseSPS?.croppedWidth
        height = baseSPS?.croppedHeight
        bitDepthLuma = baseSPS.map { Int($0.bitDepthLumaMinus8) + 8 }
        bitDepthChroma = baseSPS.map { Int($0.bitDepthChromaMinus8) + 8 }
        chromaFormat = baseSPS.map { HEVCStreamInfo.chromaName(Int($0.chromaFormatIdc)) }
        let ids: [UInt8] = vps?.layerIds ?? [0]
        var layerList: [Layer] = []
        for lid in ids {
            let sps = store.sps.values.filter { $0.header.layerId == lid }.sorted { $0.spsId < $1.spsId }.first
            var l = Layer(
                layerId: Int(lid), viewId: vps?.vpsExtension != nil ? Int(vps?.viewId(layerId: lid) ?? 0) : nil,
                directReferenceLayers: (vps?.directReferenceLayers(of: lid) ?? []).map { Int($0) },
                pictureCount: a.pictureCount[lid] ?? 0)
            var lptl: ProfileTierLevel? = nil
            if lid == 0 {
                lptl = ptl
            } else if let v = vps, let idx = v.profileTierLevelIndex(layerId: lid) {
                lptl = v.profileTierLevel(index: idx)
            }
            if let sps, !sps.isMultiLayerExtension, lid > 0 { lptl = sps.profileTierLevel }
            l.profileIdc = lptl.map { Int($0.profileIdc) }
            l.profileName = lptl.map { HEVCStreamInfo.profileName(Int($0.profileIdc)) }
            l.levelIdc = lptl.map { Int($0.levelIdc) }
            if let sps, !sps.isMultiLayerExtension {
                l.width = sps.croppedWidth; l.height = sps.croppedHeight
                l.bitDepthLuma = Int(sps.bitDepthLumaMinus8) + 8; l.bitDepthChroma = Int(sps.bitDepthChromaMinus8) + 8
                l.chromaFormat = HEVCStreamInfo.chromaName(Int(sps.chromaFormatIdc))
            } else if let rf = (sps?.updateRepFormat ?? false)
                ? vps?.vpsExtension.flatMap({ e in
                    Int(sps?.repFormatIdx ?? 0) < e.repFormats.count ? e.repFormats[Int(sps?.repFormatIdx ?? 0)] : nil
                }) : vps?.repFormat(layerId: lid)
            {
                let cw =
                    rf.conformanceWindow.count == 4 && rf.conformanceWindowPresent
                    ? rf.conformanceWindow.map { Int($0) } : [0, 0, 0, 0]
                let subW = rf.chromaFormatIdc == 1 || rf.chromaFormatIdc == 2 ? 2 : 1,
                    subH = rf.chromaFormatIdc == 1 ? 2 : 1
                l.width = max(0, Int(rf.picWidth) - subW * (cw[0] + cw[1]));
                l.height = max(0, Int(rf.picHeight) - subH * (cw[2] + cw[3]))
                l.bitDepthLuma = Int(rf.bitDepthLumaMinus8) + 8; l.bitDepthChroma = Int(rf.bitDepthChromaMinus8) + 8
                l.chromaFormat = HEVCStreamInfo.chromaName(Int(rf.chromaFormatIdc))
            }
            if let sps, let c = VideoColour(vui: sps.vui, present: sps.vuiPresent) {
                l.colour = c.text + " (SPS VUI)"
                l.colourDescription = c; l.colourSource = "sps_vui"
            } else if lid > 0, let v = vps?.videoSignalInfo(layerId: lid) {
                let c = VideoColour(
                    primaries: Int(v.colourPrimaries), transfer: Int(v.transferCharacteristics),
                    matrix: Int(v.matrixCoeffs), fullRange: v.videoFullRange)
                l.colour = c.text + " (VPS VUI)"
                l.colourDescription = c; l.colourSource = "vps_vui"
            }
            if !l.directReferenceLayers.isEmpty, let e = vps?.vpsExtension {
                if e.defaultRefLayersActive {
                    l.interLayerSignalling = "default_ref_layers_active_flag"
                    l.usesInterLayerPrediction = (a.interLayerPredictedSlices[lid] ?? 0) > 0
                } else {
                    l.interLayerSignalling = "inter_layer_pred_enabled_flag"
                    l.usesInterLayerPrediction =
                        (a.interLayerFlagCoded[lid]?.set ?? 0) > 0 && (a.interLayerPredictedSlices[lid] ?? 0) > 0
                }
            }
            layerList.append(l)
        }
        layers = layerList
        layerCount = layerList.count
        isMultiview = vps?.vpsExtension?.scalabilityMask.count == 16 && (vps?.vpsExtension?.scalabilityMask[1] ?? false)
        if let d = a.seiMessages.lazy.compactMap({ $0.threeDimensionalReferenceDisplays }).first,
            let first = d.displays.first
        {
            leftViewId = Int(first.leftViewId); rightViewId = Int(first.rightViewId)
            leftLayerId = layerList.first { $0.viewId == Int(first.leftViewId) }?.layerId
            rightLayerId = layerList.first { $0.viewId == Int(first.rightViewId) }?.layerId
        }
        var hdr = VideoColour(primaries: 2, transfer: 2, matrix: 2, fullRange: false)
        for m in a.seiMessages {
            if m.payloadType == 137, m.payload.count == 24, hdr.masteringDisplay == nil {
                hdr.masteringDisplay = m.payload
            }
            if m.payloadType == 144, m.payload.count == 4, hdr.contentLightLevel == nil {
                hdr.contentLightLevel = m.payload
            }
        }
        hdrMetadata = hdr.hdrMetadataText
        accessUnitCount = a.accessUnitCount
        frameTypes = a.frameTypes
        errors = a.errors
    }

    /// Name of a `general_profile_idc`.
    public static func profileName(_ idc: Int) -> String {
        switch idc {
        case 1: return "Main"
        case 2: return "Main 10"
        case 3: return "Main Still Picture"
        case 4: return "Format Range Extensions"
        case 5: return "High Throughput"
        case 6: return "Multiview Main"
        case 7: return "Scalable Main"
        case 8: return "3D Main"
        case 9: return "Screen Content Coding"
        case 10: return "Scalable Format Range Extensions"
        case 11: return "High Throughput Screen Content Coding"
        default: return "profile \(idc)"
        }
    }
    /// `4:0:0`, `4:2:0`, `4:2:2` or `4:4:4`.
    public static func chromaName(_ idc: Int) -> String {
        ["4:0:0", "4:2:0", "4:2:2", "4:4:4"][min(max(idc, 0), 3)]
    }

    /// Key/value lines for a human-readable `info`.
    public func descriptionLines() -> [String] {
        var out: [String] = []
        out.append(
            "codec: HEVC \(profileName ?? "?") profile, \(tier ?? "?") tier, level \(level.map { String($0) } ?? "?")")
        out.append("size: \(width.map(String.init) ?? "?")x\(height.map(String.init) ?? "?")")
        out.append(
            "bit depth: \(bitDepthLuma.map(String.init) ?? "?") (chroma \(bitDepthChroma.map(String.init) ?? "?")), chroma \(chromaFormat ?? "?")"
        )
        out.append("layers: \(layerCount)\(isMultiview ? " (MV-HEVC)" : "")")
        for l in layers {
            var s = "  layer \(l.layerId):"
            if let v = l.viewId { s += " view \(v)" }
            if let p = l.profileName { s += ", profile \(p)" }
            if !l.directReferenceLayers.isEmpty {
                s += ", depends on \(l.directReferenceLayers.map(String.init).joined(separator: ","))"
            }
            if let u = l.usesInterLayerPrediction {
                s += ", inter-layer prediction \(u ? "used" : "not used") (\(l.interLayerSignalling ?? ""))"
            }
            if let b = l.bitDepthLuma { s += ", \(b)-bit \(l.chromaFormat ?? "")" }
            s += ", \(l.pictureCount) pictures"
            out.append(s)
            if let c = l.colour { out.append("    colour: \(c)") }
        }
        if let h = hdrMetadata { out.append("HDR metadata (SEI): \(h)") }
        if let l = leftViewId, let r = rightViewId { out.append("views: left \(l), right \(r) (SEI 176)") }
        out.append("access units: \(accessUnitCount)")
        return out
    }
}

/// Text for `dump --nal`.
public enum HEVCDump {
    /// One line per access unit followed by one indented line per NAL unit:
    /// type name and number, layer, temporal id, size, and for slices the slice type, POC LSB and POC.
    public static func nalLines(_ analysis: StreamAnalysis) -> [String] {
        var out: [String] = []
        var lastAU = -1
        for r in analysis.records {
            if r.accessUnit != lastAU {
                lastAU = r.accessUnit
                out.append("AU \(r.accessUnit)")
            }
            var s = "  \(r.typeName)(\(r.type)) layer=\(r.layerId) tid=\(r.temporalId) size=\(r.size)"
            if let t = r.sliceType { s += " slice=\(t)" }
            if let l = r.pocLsb { s += " poc_lsb=\(l)" }
            if let p = r.poc { s += " poc=\(p)" }
            if let e = r.error { s += " error=\"\(e)\"" }
            out.append(s)
        }
        return out
    }
    /// Dump lines for an Annex B stream.
    public static func nalLines(annexB: [UInt8]) throws(ParseError) -> [String] {
        nalLines(StreamAnalysis(accessUnits: AccessUnits.group(try AnnexB.split(annexB))))
    }

    /// Dump lines for an Annex B stream read piece by piece from `source`.
    public static func nalLines(scanning source: any ByteSource, limits: Limits = .default) throws(ParseError)
        -> [String]
    {
        nalLines(try StreamAnalysis.scanning(source, keepAllDetails: true, limits: limits))
    }
}
