import BinaryIO
import Foundation
import HEVC
import ISOBMFF
import SpatialConvert
import SpatialMedia
import TestSupport
import Testing

/// Field-by-field comparison of a converted spatial video with Apple's VideoToolbox file
/// (`corpus/spatial-video/stereo_spatial.mp4`): every field is equal, or differs for a stated reason (a property of
/// the content, of independent layers, or of our own name). Prints the table.
enum VideoFields {
    typealias Row = (field: String, value: String)

    static func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }
    static func raw(_ f: ISOFile, _ b: Box?) -> String {
        guard let b,
            let bytes = try? f.readBytes(
                at: b.header.offset + UInt64(b.header.length), count: Int(b.header.size) - b.header.length)
        else { return "absent" }
        return hex(bytes)
    }
    static func flags48(_ v: UInt64) -> String {
        String(v >> 44, radix: 2) + " (progressive, interlaced, non-packed, frame-only)"
    }

    static func extract(_ path: String) throws -> [Row] {
        var rows: [Row] = []
        func add(_ k: String, _ v: Any) { rows.append((k, "\(v)")) }
        let f = try ISOFile.open(path: path)
        let track = try #require(f.tracks.first { $0.handler == "vide" })
        let entry = try #require(track.sampleEntries.first)
        let stbl = try #require(track.sampleTable)
        add(
            "ftyp major brand",
            f.boxes.first { $0.type == "ftyp" }?.payload(FileTypeBox.self)?.majorBrand.description ?? "?")
        add("video tracks", f.tracks.filter { $0.handler == "vide" }.count)
        add("sample entry", entry.type)
        add("sample entry children", entry.children?.map(\.type.description).joined(separator: ",") ?? "")
        add("colr", entry.child("colr")?.payload(ColourInformationBox.self)?.summary ?? "absent")
        let hdlr = try #require(track.box.find("mdia", "hdlr")?.payload(HandlerBox.self))
        add("hdlr form", hdlr.preDefined == 0 ? "ISO (NUL-terminated)" : "QuickTime (Pascal string)")
        add("hdlr name", hdlr.name)
        add("stbl children", stbl.children?.map(\.type.description).joined(separator: ",") ?? "")
        add("sgpd sync", raw(f, stbl.child("sgpd")))
        add("sbgp sync maps IRAP samples", syncMapsIRAP(f, stbl))
        add("sdtp rule (IRAP 20, referenced 10, disposable 18)", try sdtpRule(f, track, stbl))
        let ctts = stbl.child("ctts")?.payload(CompositionOffsetBox.self)
        add("ctts version", ctts.map { "\($0.fullBox.version)" } ?? "absent")
        var firstOffset: Int64 = 0
        if let c = ctts, let e0 = c.entries.first { firstOffset = c.offset(e0) }
        add("first sample composition offset", firstOffset)
        let elst = track.box.find("edts", "elst")?.payload(EditListBox.self)
        add("elst media_time", elst?.entries.first.map { "\($0.mediaTime)" } ?? "absent")
        let vexu = entry.child("vexu")
        add(
            "vexu/eyes children",
            vexu?.find("eyes")?.children?.map(\.type.description).joined(separator: ",") ?? "absent")
        add("hfov", entry.child("hfov") != nil ? "present" : "absent")

        let hvcCBytes = try #require(entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record)
        let lhvCBytes = try #require(entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record)
        let hvcC = try HEVCDecoderConfigurationRecord(parsing: hvcCBytes)
        let lhvC = try LHEVCDecoderConfigurationRecord(parsing: lhvCBytes)
        add(
            "hvcC arrays",
            hvcC.arrays.map { "\($0.nalUnitType.rawValue)\($0.arrayCompleteness ? "c" : "")" }.joined(separator: ","))
        add("hvcC profile/compat", "\(hvcC.profileIdc) \(String(hvcC.compatibilityFlags, radix: 16))")
        add("hvcC constraint flags", flags48(hvcC.constraintIndicatorFlags))
        add("hvcC level", hvcC.levelIdc)
        add(
            "lhvC arrays",
            lhvC.arrays.map { "\($0.nalUnitType.rawValue)\($0.arrayCompleteness ? "c" : "")" }.joined(separator: ","))
        add("lhvC header", hex(Array(lhvCBytes.prefix(6))))

        let nals = hvcC.nalUnits() + lhvC.nalUnits()
        let vpsNAL = try #require(nals.first { $0.type == .vps })
        let v = try VideoParameterSet(nal: vpsNAL)
        let e = try #require(v.vpsExtension)
        add("VPS base_layer_internal/available", "\(v.baseLayerInternal)/\(v.baseLayerAvailable)")
        add("VPS max_layers_minus1 / max_layer_id", "\(v.maxLayersMinus1)/\(v.maxLayerId)")
        add("VPS max_sub_layers_minus1 / temporal_id_nesting", "\(v.maxSubLayersMinus1)/\(v.temporalIdNesting)")
        add(
            "VPS PTL profile/compat",
            "\(v.profileTierLevel.profileIdc) \(String(v.profileTierLevel.compatibilityFlags, radix: 16))")
        add("VPS PTL constraint flags", flags48(v.profileTierLevel.constraintFlags))
        add("VPS PTL level", v.profileTierLevel.levelIdc)
        add("VPS sub_layer_ordering_info_present", v.subLayerOrderingInfoPresent)
        add("VPS max_latency_increase_plus1", v.maxLatencyIncreasePlus1)
        add("VPS max_dec_pic_buffering_minus1 / num_reorder", "\(v.maxDecPicBufferingMinus1)/\(v.maxNumReorderPics)")
        add("VPS layer sets", "\(v.numLayerSetsMinus1) \(v.layerIdIncluded)")
        add("VPS timing_info_present", v.timingInfoPresent)
        add("VPS extension alignment bits", v.extensionAlignmentBits.bitCount)
        add("ext base PTL level", e.basePTL.levelIdc)
        add(
            "ext splitting / scalability mask",
            "\(e.splittingFlag) \(e.scalabilityMask.map { $0 ? "1" : "0" }.joined())")
        add("ext dimension_id_len_minus1", e.dimensionIdLenMinus1)
        add("ext nuh_layer_id_present / layer_id_in_nuh", "\(e.nuhLayerIdPresent) \(e.layerIdInNuh)")
        add("ext dimension_id", e.dimensionId)
        add("ext view_id_len / view_id_val", "\(e.viewIdLen) \(e.viewIdVal)")
        add("ext direct_dependency_flag", e.directDependency)
        add(
            "ext sub_layers_vps_max_minus1_present / max_tid_ref_present",
            "\(e.subLayersVpsMaxMinus1Present)/\(e.maxTidRefPresent)")
        add("ext default_ref_layers_active_flag", e.defaultRefLayersActive)
        add("ext vps_num_profile_tier_level_minus1", e.numProfileTierLevelMinus1)
        let mv = try #require(e.profileTierLevels.first)
        add("ext PTL#2 profile/compat", "\(mv.profileIdc) \(String(mv.compatibilityFlags, radix: 16))")
        add("ext PTL#2 constraint flags", String(mv.constraintFlags, radix: 16))
        add("ext PTL#2 level", mv.levelIdc)
        add("ext num_add_olss / default_output_layer_idc", "\(e.numAddOlss)/\(e.defaultOutputLayerIdc)")
        add("ext OLS profile_tier_level_idx", e.outputLayerSets.map(\.profileTierLevelIdx))
        add(
            "ext rep_formats (count, chroma, bit depths)",
            e.repFormats.map {
                "\($0.chromaAndBitDepthPresent) \($0.chromaFormatIdc) \($0.bitDepthLumaMinus8)/\($0.bitDepthChromaMinus8)"
            })
        add(
            "ext rep_format size + conformance window",
            e.repFormats.map { "\($0.picWidth)x\($0.picHeight) \($0.conformanceWindow)" })
        add("ext max_one_active_ref_layer_flag", e.maxOneActiveRefLayer)
        add("ext vps_poc_lsb_aligned_flag", e.pocLsbAligned)
        add("ext poc_lsb_not_present_flag", e.pocLsbNotPresent)
        add(
            "ext dpb_size (flag info, buffering, reorder, latency)",
            e.dpbSizes.map {
                "\($0.subLayerFlagInfoPresent) \($0.maxDecPicBufferingMinus1) \($0.maxNumReorderPics) \($0.maxLatencyIncreasePlus1)"
            })
        add("ext direct_dep_type_len_minus2", e.directDepTypeLenMinus2)
        add(
            "ext direct_dependency_all_layers_flag / type",
            "\(e.directDependencyAllLayers) \(e.directDependencyAllLayersType) \(e.directDependencyType)")
        add("ext vps_non_vui_extension_length", e.nonVuiExtensionData.count)
        add("ext vps_vui_present_flag", e.vuiPresent)
        if let u = v.vui {
            add(
                "VUI cross_layer_pic_type/irap/idr aligned",
                "\(u.crossLayerPicTypeAligned)/\(u.crossLayerIrapAligned)/\(u.allLayersIdrAligned)")
            add("VUI bit/pic rate present", "\(u.bitRatePresentVps)/\(u.picRatePresentVps)")
            add(
                "VUI video_signal_info_idx_present / count", "\(u.videoSignalInfoIdxPresent) \(u.videoSignalInfo.count)"
            )
            add(
                "VUI video signal (format, full range, primaries, transfer, matrix)",
                u.videoSignalInfo.map {
                    "\($0.videoVpsFormat) \($0.videoFullRange) \($0.colourPrimaries) \($0.transferCharacteristics) \($0.matrixCoeffs)"
                })
            add("VUI tiles (not in use, per layer)", "\(u.tilesNotInUse) \(u.tilesInUse) \(u.loopFilterNotAcrossTiles)")
            add("VUI wpp (not in use, per layer)", "\(u.wppNotInUse) \(u.wppInUse)")
            add(
                "VUI single_layer_for_non_irap / higher_layer_irap_skip / ilp_restricted",
                "\(u.singleLayerForNonIrap)/\(u.higherLayerIrapSkip)/\(u.ilpRestrictedRefLayers)")
            add(
                "VUI bsp_hrd / base_layer_parameter_set_compatibility",
                "\(u.bspHrdPresent) \(u.baseLayerParameterSetCompatibility)")
        } else {
            add("VUI", "absent")
        }
        add("VPS vps_extension2_flag", v.extension2Flag.map { "\($0)" } ?? "missing")
        add(
            "trailing bits of every VPS/SPS/PPS/SEI",
            nals.map { RBSPEndCheck.check($0, vps: v) }.allSatisfy { $0 == .ok || $0 == .notApplicable }
                ? "ok" : "wrong")

        let sps = try nals.filter { $0.type == .sps }.map { n throws(ParseError) in
            try SequenceParameterSet(nal: n, vps: v)
        }
        let base = try #require(sps.first { $0.header.layerId == 0 })
        let layer = try #require(sps.first { $0.header.layerId == 1 })
        add(
            "base SPS id / PTL profile",
            "\(base.spsId) \(base.profileTierLevel.profileIdc) \(String(base.profileTierLevel.compatibilityFlags, radix: 16))"
        )
        add("base SPS PTL constraint flags", flags48(base.profileTierLevel.constraintFlags))
        add("base SPS sub_layer_ordering_info_present", base.subLayerOrderingInfoPresent)
        add("base SPS max_latency_increase_plus1", base.maxLatencyIncreasePlus1)
        add(
            "base SPS coding tools (CTB, scaling lists, SAO, AMP, strong intra smoothing)",
            "\(base.ctbLog2SizeY) \(base.scalingListEnabled) \(base.sampleAdaptiveOffsetEnabled) \(base.ampEnabled) \(base.strongIntraSmoothingEnabled)"
        )
        add("base SPS log2_max_pic_order_cnt_lsb", base.log2MaxPicOrderCntLsb)
        add("base SPS VUI present / colour description", "\(base.vuiPresent) \(base.vui.colourDescriptionPresent)")
        add(
            "layer-1 SPS id / form",
            "\(layer.spsId) \(layer.isMultiLayerExtension ? "multilayer (7)" : "full") update_rep_format=\(layer.updateRepFormat)"
        )
        add("layer-1 SPS multilayer extension", "\(layer.multilayerExtensionFlag) \(layer.interViewMvVertConstraint)")
        let pps = try nals.filter { $0.type == .pps }.map { n throws(ParseError) in try PictureParameterSet(nal: n) }
        add("PPS ids (layer:id)", pps.map { "\($0.header.layerId):\($0.ppsId)" })
        add("PPS num_extra_slice_header_bits", pps.map(\.numExtraSliceHeaderBits))
        let sei = try nals.filter { $0.type == .prefixSEI }.map { n throws(ParseError) in try SEIMessageList(nal: n) }
        add("hvcC SEI messages", sei.flatMap(\.messages).map { "\($0.payloadType):\(hex($0.payload))" })
        // First access unit: NAL unit types per layer.
        let s0 = try #require(try track.samples(first: 1).first)
        let au = try LengthPrefixed.split(try f.readBytes(at: s0.offset, count: Int(s0.size)), lengthSize: 4)
        add(
            "first AU VCL types (layer:type)",
            au.filter { $0.type.isVCL }.map { "\($0.layerId):\($0.type.name)" }.reduce(into: [String]()) {
                if $0.last != $1 { $0.append($1) }
            })
        add(
            "first AU non-VCL SEI payload types",
            au.filter { $0.type == .prefixSEI }.compactMap { try? SEIMessageList(nal: $0) }.flatMap(\.messages).map(
                \.payloadType))
        return rows
    }

    static func syncMapsIRAP(_ f: ISOFile, _ stbl: Box) -> String {
        guard let b = stbl.child("sbgp"),
            let bytes = try? f.readBytes(at: b.header.offset + 8, count: Int(b.header.size) - 8), bytes.count >= 12
        else { return "absent" }
        var r = ByteReader(bytes)
        guard (try? r.readU32()) != nil, let type = try? r.readFourCC(), let n = try? r.readU32() else { return "bad" }
        var mapped: [Int] = []
        var i = 0
        for _ in 0..<min(Int(n), 10_000) {
            guard let c = try? r.readU32(), let g = try? r.readU32() else { return "bad" }
            if g != 0 { for k in 0..<Int(c) { mapped.append(i + k) } }
            i += Int(c)
        }
        let stss = stbl.child("stss")?.payload(SyncSampleBox.self)?.sampleNumbers.map { Int($0) - 1 }
        return "\(type) mapped=stss: \(stss.map { $0 == mapped } ?? (mapped.count == i))"
    }

    static func sdtpRule(_ f: ISOFile, _ t: Track, _ stbl: Box) throws -> String {
        guard let b = stbl.child("sdtp"),
            let bytes = try? f.readBytes(at: b.header.offset + 12, count: Int(b.header.size) - 12)
        else { return "absent" }
        let samples = try t.samples()
        guard bytes.count == samples.count else { return "count \(bytes.count) ≠ \(samples.count)" }
        for (s, flag) in zip(samples, bytes) {
            let nals = try LengthPrefixed.split(try f.readBytes(at: s.offset, count: Int(s.size)), lengthSize: 4).filter
            { $0.type.isVCL }
            let irap = nals.first.map { $0.type.isIRAP } ?? false
            let disposable = nals.allSatisfy { $0.type.isSubLayerNonReference }
            let want: UInt8 = irap ? 0x20 : (disposable ? 0x18 : 0x10)
            if flag != want { return "sample \(s.index): \(String(flag, radix: 16)) ≠ \(String(want, radix: 16))" }
        }
        return "followed"
    }
}

@Suite struct AppleParityVideoTests {
    /// Why a field of our converted file may differ from Apple's. Anything not listed must be equal.
    static let explained: [String: String] = [
        "ftyp major brand": "container choice: .mov is QuickTime ('qt  '); --mp4 gives mp42 as Apple's",
        "colr":
            "Apple's VideoToolbox file carries no colour description at all (no VUI colour, no colr); ours repeats the SPS VUI's colour description (nclc in .mov)",
        "sample entry children":
            "colr (see colr); Apple's fiel (progressive) and chrm (00 00) are QuickTime extensions we do not write; vexu/hfov equal",
        "hdlr form": "QuickTime form in .mov (Pascal string, 'mhlr'); Apple's file is an .mp4",
        "hdlr name": "our own name, not Apple's",
        "sgpd sync":
            "entry = NAL unit type of the layer-1 IRAP picture: Apple's is a CRA (21, inter-layer predicted P slice), ours an IDR (independent layer 1)",
        "first sample composition offset": "content: Apple's first sample has offset 0 as ours; listed for the version",
        "ctts version": "equal form (version 1, signed); listed for the first offset",
        "hvcC level": "content: picture size and rate",
        "VPS PTL level": "content: picture size and rate",
        "ext base PTL level": "content",
        "ext PTL#2 level": "content",
        "VPS max_dec_pic_buffering_minus1 / num_reorder": "content: encoder's GOP (B-frames)",
        "ext dpb_size (flag info, buffering, reorder, latency)": "content: encoder's GOP",
        "ext rep_format size + conformance window": "content: picture size",
        "VPS extension alignment bits": "content: follows from the bit length of the base VPS",
        "VUI video signal (format, full range, primaries, transfer, matrix)":
            "content: ours repeats the SPS VUI colour; Apple's stream describes none (all unspecified)",
        "ext default_ref_layers_active_flag":
            "independent layers: 0 lets every layer-1 slice switch inter-layer prediction off (Specs/formats.md §3.7, Specs/mv-hevc-assembly.md)",
        "base SPS coding tools (CTB, scaling lists, SAO, AMP, strong intra smoothing)":
            "encoder (x265 vs VideoToolbox) choices, not stream structure",
        "base SPS log2_max_pic_order_cnt_lsb":
            "encoder choice (x265 8, VideoToolbox 11); both layers equal in both files",
        "base SPS VUI present / colour description":
            "x265 writes a VUI with the colour description; VideoToolbox wrote none",
        "first AU VCL types (layer:type)":
            "independent layers: layer 1 starts with an IDR (I slices) instead of Apple's inter-layer-predicted CRA; base IDR_W_RADL vs IDR_N_LP is the encoder's",
        "sdtp rule (IRAP 20, referenced 10, disposable 18)":
            "same byte values; Apple also marks unreferenced TRAIL_R pictures disposable (its encoder knows which are referenced), we mark the sub-layer non-reference pictures (x265 codes its unreferenced B pictures as TRAIL_N)",
        "first AU non-VCL SEI payload types":
            "encoder-private user data: VideoToolbox puts two user_data_unregistered SEIs in each sample; x265 as the converter runs it writes none",
    ]

    @Test(.needs(.shared("corpus/spatial-video/stereo_spatial.mp4")))
    func convertedVideoMatchesAppleFieldByFieldAndDecodesBitExactly() throws {
        let ff = try TestPrograms.requireFFmpeg()
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        var o = VideoFixtures.fast()
        o.keepStreamsPrefix = d + "/eye"
        let out = d + "/out.mov"
        try VideoConverter.convert(.packed(VideoFixtures.sample), to: out, options: o)
        let apple = try VideoFields.extract(VideoFixtures.appleVideo)
        let ours = try VideoFields.extract(out)
        #expect(apple.map(\.field) == ours.map(\.field))
        var table = ["| field | Apple (stereo_spatial.mp4) | ours (converted .mov) | |", "|---|---|---|---|"]
        for (a, b) in zip(apple, ours) {
            let why = Self.explained[a.field]
            let verdict = a.value == b.value ? "equal" : (why.map { $0.isEmpty ? "same rule" : $0 } ?? "UNEXPLAINED")
            table.append("| \(a.field) | \(a.value) | \(b.value) | \(verdict) |")
            if a.value != b.value && (why == nil || why == "") {
                Issue.record("\(a.field): Apple \(a.value), ours \(b.value) — difference not explained")
            }
        }
        print(table.joined(separator: "\n"))

        // FFmpeg 9 decodes both views exactly as it decodes each eye's own x265 stream.
        func md5s(_ args: [String]) throws -> [String] {
            let (st, out) = try run(ff, ["-v", "error"] + args + ["-f", "framemd5", "-"])
            #expect(st == 0)
            return out.split(separator: "\n").filter { !$0.hasPrefix("#") }.map {
                String($0.split(separator: ",").last ?? "").trimmingCharacters(in: .whitespaces)
            }
        }
        for eye in ["left", "right"] {
            let view = try md5s(["-i", out, "-map", "0:v:0:vpos:\(eye)"])
            let single = try md5s(["-i", d + "/eye-\(eye).hevc"])
            #expect(view.count == 30 && view == single, "\(eye) view differs from the single-layer decode")
        }
    }
}
