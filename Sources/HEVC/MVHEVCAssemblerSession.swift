import BinaryIO

/// A single-layer HEVC stream read one access unit at a time: parameter sets are recorded (a repeat must be
/// identical), and each picture's type and PicOrderCntVal are derived. Used whole by
/// ``MVHEVCAssembler/assemble(base:second:options:)`` and piece by piece while encoders are still producing
/// (``MVHEVCAssembler/Session``).
public struct SingleLayerReader: Sendable {
    /// One coded picture with the non-parameter-set NAL units of its access unit.
    public struct Picture: Sendable {
        public var nals: [NALUnit]
        /// PicOrderCntVal.
        public var poc: Int
        /// NAL unit type of the first slice segment.
        public var type: NALUnitType
        /// Everything except VPS/SPS/PPS (AUD, SEI, slices, EOS…).
        public var nonParameterSetNALs: [NALUnit]
    }

    /// Named in error messages ("base (layer 0) stream").
    public let name: String
    var store = ParameterSetStore()
    var spsOrder: [UInt32] = []
    var ppsOrder: [UInt32] = []
    var vpsOrder: [UInt8] = []
    var spsNAL: [UInt32: NALUnit] = [:]
    var ppsNAL: [UInt32: NALUnit] = [:]
    var vpsBytes: [UInt8: [UInt8]] = [:]
    var prevTid0: [UInt8: Int] = [:]
    /// The last picture, held back until the next one arrives: trailing non-VCL access units (EOS, EOB,
    /// suffix SEI) belong to it.
    var pending: Picture?
    /// Pictures returned so far (including the pending one).
    public private(set) var pictureCount = 0
    /// True once a parameter set with a new id appeared after the first picture.
    public private(set) var newParameterSetAfterFirstPicture = false

    var firstVPS: VideoParameterSet? { vpsOrder.first.flatMap { store.vps[$0] } }
    var firstSPS: SequenceParameterSet? { spsOrder.first.flatMap { store.sps[$0] } }

    public init(name: String) { self.name = name }

    /// Reads a whole Annex B stream: the reader (parameter sets) and every picture.
    public static func read(annexB: [UInt8], name: String) throws(ParseError) -> (
        reader: SingleLayerReader, pictures: [Picture]
    ) {
        let nals: [NALUnit]
        do { nals = try AnnexB.split(annexB) } catch {
            throw ParseError(error.code, offset: error.offset, "\(name): \(error.message)")
        }
        if nals.isEmpty { throw ParseError(.truncated, "\(name) is empty (no NAL units)") }
        var reader = SingleLayerReader(name: name)
        var pictures: [Picture] = []
        for au in AccessUnits.group(nals) {
            if let p = try reader.add(accessUnit: au) { pictures.append(p) }
        }
        if let p = reader.finish() { pictures.append(p) }
        if pictures.isEmpty { throw ParseError(.truncated, "\(name) has no pictures") }
        return (reader, pictures)
    }

    /// Adds the NAL units of one access unit. Returns the previous picture once it is complete (a picture is
    /// held until the next one starts; ``finish()`` returns the last).
    public mutating func add(accessUnit au: [NALUnit]) throws(ParseError) -> Picture? {
        var pic = Picture(nals: [], poc: 0, type: .trailN, nonParameterSetNALs: [])
        var sawSlice = false
        for nal in au {
            if nal.layerId != 0 {
                throw ParseError(
                    .unsupported, offset: nal.offset,
                    "\(name) has NAL units with nuh_layer_id \(nal.layerId): inputs must be single-layer HEVC")
            }
            switch nal.type {
            case .vps, .sps, .pps:
                try record(nal)
                continue
            default: break
            }
            pic.nals.append(nal)
            pic.nonParameterSetNALs.append(nal)
            if nal.type.isVCL {
                guard nal.type.rawValue <= 21 else {
                    throw ParseError(
                        .unsupported, offset: nal.offset, "\(name): reserved VCL NAL unit type \(nal.type.rawValue)")
                }
                let ctx: SliceContext
                let sh: SliceSegmentHeader
                do throws(ParseError) {
                    ctx = try store.context(forSlice: nal)
                    sh = try SliceSegmentHeader(nal: nal, context: ctx)
                } catch { throw ParseError(error.code, offset: error.offset, "\(name): \(error.message)") }
                if sh.firstSliceSegmentInPic {
                    if sawSlice {
                        throw ParseError(.invalidValue, offset: nal.offset, "\(name): two pictures in one access unit")
                    }
                    sawSlice = true
                    pic.poc = StreamAnalysis.poc(sh, ctx, &prevTid0)
                    pic.type = nal.type
                } else if !sawSlice {
                    throw ParseError(
                        .invalidValue, offset: nal.offset, "\(name): access unit starts without a first slice segment")
                }
            }
        }
        if sawSlice {
            let done = pending
            pending = pic
            pictureCount += 1
            return done
        }
        if !pic.nals.isEmpty, pending != nil {
            pending?.nals += pic.nals
            pending?.nonParameterSetNALs += pic.nonParameterSetNALs
        }
        return nil
    }

    /// The last picture, if any is held back.
    public mutating func finish() -> Picture? {
        defer { pending = nil }
        return pending
    }

    /// Keeps the first parameter set of each id, in order of appearance: false when `id` is known with the same
    /// bytes (a repeat), an error when its bytes differ (a parameter set that changes mid-stream).
    static func isNew<ID: Hashable, V>(
        _ kind: String, _ id: ID, _ nal: NALUnit, in table: inout [ID: V], order: inout [ID], storing value: V,
        bytes: (V) -> [UInt8]
    ) throws(ParseError) -> Bool {
        if let old = table[id] {
            guard bytes(old) == nal.bytes else {
                throw ParseError(.unsupported, offset: nal.offset, "\(kind) \(id) changes mid-stream (not supported)")
            }
            return false
        }
        table[id] = value
        order.append(id)
        return true
    }

    mutating func record(_ nal: NALUnit) throws(ParseError) {
        do throws(ParseError) {
            switch nal.type {
            case .vps:
                let v = try VideoParameterSet(nal: nal)
                guard
                    try Self.isNew(
                        "VPS", v.vpsId, nal, in: &vpsBytes, order: &vpsOrder, storing: nal.bytes, bytes: { $0 })
                else { return }
                try store.add(nal)
            case .sps:
                let v = SequenceParameterSet.referencedVPSId(in: nal).flatMap { store.vps[$0] }
                let s = try SequenceParameterSet(nal: nal, vps: v)
                guard try Self.isNew("SPS", s.spsId, nal, in: &spsNAL, order: &spsOrder, storing: nal, bytes: \.bytes)
                else { return }
                try store.add(nal)
            case .pps:
                let p = try PictureParameterSet(nal: nal)
                guard try Self.isNew("PPS", p.ppsId, nal, in: &ppsNAL, order: &ppsOrder, storing: nal, bytes: \.bytes)
                else { return }
                try store.add(nal)
            default: return
            }
            if pictureCount > 0 { newParameterSetAfterFirstPicture = true }
        } catch { throw ParseError(error.code, offset: error.offset, "\(name): \(error.message)") }
    }
}

extension MVHEVCAssembler {
    /// Builds a two-layer MV-HEVC stream one access unit at a time from two single-layer streams with the same
    /// GOP structure (see ``MVHEVCAssembler``): created from the two streams' parameter sets, then fed picture
    /// pairs in decoding order. ``MVHEVCAssembler/assemble(base:second:options:)`` is this session run over two
    /// whole streams; conversion runs it while the two encoders are still producing, so the coded streams are
    /// never held whole.
    public struct Session: Sendable {
        /// The stream's parameter sets, SEI and facts, with no access units (they are returned one at a time).
        public let header: MVHEVCStream
        let second: ParameterSetStore
        let newSPS: [UInt32: SequenceParameterSet]
        let newPPS: [UInt32: PictureParameterSet]
        let ppsMap: [UInt32: UInt32]
        let vps: VideoParameterSet
        /// Access units assembled so far.
        public private(set) var count = 0

        static func fail(_ message: String, _ code: ParseError.Code = .invalidValue) -> ParseError {
            ParseError(code, message)
        }

        /// Checks that the streams can be paired (both 8-bit 4:2:0, same size and sub-layers, single-layer base)
        /// and builds the multilayer VPS, the layer-1 SPS/PPS (fresh ids) and SEI 176 from the parameter sets the
        /// readers have seen. Parameter sets must all be known here.
        public init(base a: SingleLayerReader, second b: SingleLayerReader, options: MVHEVCAssemblyOptions)
            throws(ParseError)
        {
            guard var sa = a.firstSPS, var sb = b.firstSPS, var va = a.firstVPS else {
                throw Self.fail("a stream has no VPS/SPS")
            }
            var baseSPS = a.spsOrder.compactMap { a.spsNAL[$0] }
            if options.matchAppleChoices {
                MVHEVCAssembler.appleChoices(&va)
                MVHEVCAssembler.appleChoices(&sa)
                MVHEVCAssembler.appleChoices(&sb)
                baseSPS = []
                for id in a.spsOrder {
                    guard var s = a.store.sps[id] else { continue }
                    MVHEVCAssembler.appleChoices(&s)
                    baseSPS.append(try s.nalUnit())
                }
            }
            try Self.checkPairable(base: sa, second: sb, baseVPS: va)
            let (spsMap, ppsMap) = try Self.layerOneIDs(base: a, second: b)
            let vps = try MVHEVCAssembler.makeVPS(
                base: va, baseSPS: sa, second: sb, independent: sa.bitDepthLumaMinus8 > 0)
            let vpsNAL = try vps.nalUnit()
            // Layer-1 parameter sets.
            var newSPS: [UInt32: SequenceParameterSet] = [:]
            var layerSPS: [NALUnit] = []
            for id in b.spsOrder {
                guard var s = b.store.sps[id], let nid = spsMap[id] else { continue }
                if options.matchAppleChoices { MVHEVCAssembler.appleChoices(&s) }
                s.header.layerId = 1
                s.spsId = nid
                s.vpsId = vps.vpsId
                // A layer > 0 SPS carries no video signal type: the VPS VUI describes every layer (F.7.4.3.2.1; HTM
                // asserts it), as in Apple's and x265's layer-1 SPS. The splitter restores it from the VPS.
                MVHEVCAssembler.dropVideoSignalType(&s)
                if options.layerSPSForm == .multilayer {
                    s.maxSubLayersMinus1OrExt = 7
                    s.updateRepFormat = false
                    s.inferScalingList = false
                    if options.matchAppleChoices && !s.extensionPresent {
                        // Apple's layer-1 SPS carries an empty sps_multilayer_extension
                        // (inter_view_mv_vert_constraint_flag 0).
                        s.extensionPresent = true
                        s.multilayerExtensionFlag = true
                        s.interViewMvVertConstraint = false
                    }
                }
                let nal = try s.nalUnit(vps: vps)
                newSPS[id] = try SequenceParameterSet(nal: nal, vps: vps)
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
            let sei = try MVHEVCStream.viewSEI(baseIsLeft: options.baseIsLeft)
            var timing: (UInt32, UInt32)? = nil
            if sa.vuiPresent && sa.vui.timingInfoPresent { timing = (sa.vui.numUnitsInTick, sa.vui.timeScale) }
            header = MVHEVCStream(
                vps: vpsNAL, baseSPS: baseSPS, basePPS: a.ppsOrder.compactMap { a.ppsNAL[$0] },
                layerSPS: layerSPS, layerPPS: layerPPS, sei: sei, accessUnits: [], videoParameterSet: vps,
                width: sa.croppedWidth, height: sa.croppedHeight, timing: timing,
                maxNumReorderPics: Int(sa.maxNumReorderPics.last ?? 0))
            self.second = b.store
            self.newSPS = newSPS
            self.newPPS = newPPS
            self.ppsMap = ppsMap
            self.vps = vps
            self.refuseFramePacking = options.matchAppleChoices
        }
        /// The two streams can be paired: 8- or 10-bit 4:2:0 at one bit depth, one size, the same sub-layers, and a
        /// single-layer base.
        static func checkPairable(
            base sa: SequenceParameterSet, second sb: SequenceParameterSet,
            baseVPS va: VideoParameterSet
        ) throws(ParseError) {
            for (name, s) in [("base", sa), ("second", sb)] {
                if s.chromaFormatIdc != 1 || s.separateColourPlane {
                    throw Self.fail(
                        "the \(name) stream is not 4:2:0 (chroma_format_idc \(s.chromaFormatIdc)); Multiview Main needs 8-bit 4:2:0",
                        .unsupported)
                }
                if !(s.bitDepthLumaMinus8 == 0 || s.bitDepthLumaMinus8 == 2)
                    || s.bitDepthChromaMinus8 != s.bitDepthLumaMinus8
                {
                    throw Self.fail(
                        "the \(name) stream is \(s.bitDepthLumaMinus8 + 8)-bit (chroma \(s.bitDepthChromaMinus8 + 8)-bit); two layers are assembled from 8-bit or 10-bit 4:2:0 streams",
                        .unsupported)
                }
            }
            guard sa.bitDepthLumaMinus8 == sb.bitDepthLumaMinus8 else {
                throw Self.fail(
                    "the two streams have different bit depths (\(sa.bitDepthLumaMinus8 + 8) and \(sb.bitDepthLumaMinus8 + 8))",
                    .unsupported)
            }
            guard sa.picWidthInLumaSamples == sb.picWidthInLumaSamples,
                sa.picHeightInLumaSamples == sb.picHeightInLumaSamples,
                sa.croppedWidth == sb.croppedWidth, sa.croppedHeight == sb.croppedHeight
            else {
                throw Self.fail(
                    "the two streams have different picture sizes: base \(sa.croppedWidth)x\(sa.croppedHeight) (coded \(sa.picWidthInLumaSamples)x\(sa.picHeightInLumaSamples)), second \(sb.croppedWidth)x\(sb.croppedHeight) (coded \(sb.picWidthInLumaSamples)x\(sb.picHeightInLumaSamples))"
                )
            }
            guard sa.maxSubLayersMinus1OrExt == sb.maxSubLayersMinus1OrExt else {
                throw Self.fail(
                    "the two streams have different numbers of temporal sub-layers (\(sa.maxSubLayersMinus1OrExt + 1) and \(sb.maxSubLayersMinus1OrExt + 1))"
                )
            }
            if va.vpsExtension != nil || va.maxLayersMinus1 > 0 {
                throw Self.fail(
                    "the base stream already has a multilayer VPS; both inputs must be single-layer HEVC", .unsupported)
            }
        }

        /// Layer 1's SPS/PPS ids: ones the base stream does not use, assigned in order of first appearance.
        static func layerOneIDs(
            base a: SingleLayerReader,
            second b: SingleLayerReader
        ) throws(ParseError) -> (sps: [UInt32: UInt32], pps: [UInt32: UInt32]) {
            let usedSPS = Set(a.spsOrder), usedPPS = Set(a.ppsOrder)
            var spsMap: [UInt32: UInt32] = [:], ppsMap: [UInt32: UInt32] = [:]
            var next: UInt32 = 0
            for id in b.spsOrder {
                while usedSPS.contains(next) { next += 1 }
                guard next <= 15 else { throw Self.fail("no free SPS id for layer 1 (ids 0…15 taken)", .unsupported) }
                spsMap[id] = next; next += 1
            }
            next = 0
            for id in b.ppsOrder {
                while usedPPS.contains(next) { next += 1 }
                guard next <= 63 else { throw Self.fail("no free PPS id for layer 1 (ids 0…63 taken)", .unsupported) }
                ppsMap[id] = next; next += 1
            }
            return (spsMap, ppsMap)
        }

        /// With ``MVHEVCAssemblyOptions/matchAppleChoices`` the PTL claims no frame packing: a picture with a
        /// frame-packing SEI is refused.
        let refuseFramePacking: Bool

        /// Pairs the next base picture with the next second-stream picture: checks that they line up (random access
        /// points, POC, leading-picture types) and returns the access unit (base NAL units, then the second
        /// picture's slices rewritten for layer 1 and its SEI moved to layer 1).
        public mutating func accessUnit(base pa: SingleLayerReader.Picture, second pb: SingleLayerReader.Picture)
            throws(ParseError) -> MVHEVCAccessUnit
        {
            let i = count
            if pa.type.isIRAP != pb.type.isIRAP || pa.type.isIDR != pb.type.isIDR {
                throw Self.fail(
                    "frame \(i) (POC \(pa.poc)): random access points are not aligned (base \(pa.type.name), second \(pb.type.name)); use a fixed keyframe interval and no scene-cut in both encodes"
                )
            }
            if pa.poc != pb.poc {
                throw Self.fail(
                    "frame \(i): picture order counts differ (base POC \(pa.poc), second POC \(pb.poc)); encode both eyes with the same GOP (fixed keyint, no scene-cut, same B-frames)"
                )
            }
            if pa.type.isRASL != pb.type.isRASL {
                throw Self.fail(
                    "frame \(i) (POC \(pa.poc)): leading-picture types differ (base \(pa.type.name), second \(pb.type.name)); use closed GOPs in both encodes"
                )
            }
            if refuseFramePacking {
                for nal in pa.nals + pb.nals where nal.type == .prefixSEI || nal.type == .suffixSEI {
                    if let list = try? SEIMessageList(nal: nal),
                        list.messages.contains(where: { $0.payloadType == 45 || $0.payloadType == 135 })
                    {
                        throw Self.fail(
                            "frame \(i): a stream carries a frame-packing SEI, but the parameter sets were rewritten to claim general_non_packed_constraint_flag = 1",
                            .unsupported)
                    }
                }
            }
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
                let ctx = try second.context(forSlice: nal)
                let sh = try SliceSegmentHeader(nal: nal, context: ctx)
                guard let s1 = newSPS[ctx.pps.spsId], let p1 = newPPS[ctx.pps.ppsId], let pid = ppsMap[ctx.pps.ppsId]
                else {
                    throw Self.fail("a second-stream slice refers to a parameter set that was not mapped")
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
            count += 1
            return MVHEVCAccessUnit(nalUnits: nals, poc: pa.poc, isIRAP: pa.type.isIRAP, baseType: pa.type)
        }
    }
}

/// The pictures of an Annex B stream read piece by piece from a ``/BinaryIO/ByteSource`` (``AnnexB/Scanner`` →
/// ``AccessUnits/Grouper`` → ``SingleLayerReader``): memory is bounded by a few access units.
public struct AnnexBPictureReader {
    var scanner: AnnexB.Scanner
    var grouper = AccessUnits.Grouper()
    /// The parameter sets seen so far.
    public private(set) var reader: SingleLayerReader
    var ended = false

    public init(source: any ByteSource, name: String, limits: Limits = .default) {
        scanner = AnnexB.Scanner(source: source, limits: limits)
        reader = SingleLayerReader(name: name)
    }

    /// The next picture in decoding order, or `nil` at the end of the stream.
    public mutating func next() throws(ParseError) -> SingleLayerReader.Picture? {
        while !ended {
            let nal: NALUnit?
            do { nal = try scanner.next() } catch {
                throw ParseError(error.code, offset: error.offset, "\(reader.name): \(error.message)")
            }
            if let nal {
                if let au = grouper.add(nal), let p = try reader.add(accessUnit: au) { return p }
                continue
            }
            ended = true
            if let au = grouper.finish(), let p = try reader.add(accessUnit: au) { return p }
        }
        return reader.finish()
    }
}
