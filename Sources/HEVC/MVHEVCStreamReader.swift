import BinaryIO

/// What a stream with more than one layer is, from its VPS: the scalability dimensions of its extension
/// (H.265 Table F.1: index 0 depth, 1 multiview, 2 spatial/quality, 3 auxiliary) and its layer count.
/// Specs/conversion.md, "Raw MV-HEVC streams".
public struct MultiLayerStreamKind: Sendable, Equatable {
    /// Layers the VPS declares.
    public var layerCount: Int
    /// Two layers that are two views (MV-HEVC stereo): what a spatial video carries.
    public var isStereoMultiview: Bool
    /// What the stream is, in words (for reports and refusals).
    public var name: String

    public init(vps: VideoParameterSet) {
        layerCount = Int(vps.maxLayersMinus1) + 1
        guard let e = vps.vpsExtension, layerCount > 1, e.scalabilityMask.count == 16 else {
            isStereoMultiview = false
            name =
                "a stream whose VPS declares \(layerCount) layer(s) without a multilayer extension "
                + "(its second-layer NAL units are not described)"
            return
        }
        let m = e.scalabilityMask
        var dims: [String] = []
        if m[0] { dims.append("depth (3D-HEVC)") }
        if m[1] { dims.append("multiview") }
        if m[2] { dims.append("spatial or quality (SNR) scalability (SHVC)") }
        if m[3] { dims.append("auxiliary pictures (alpha or depth)") }
        if dims.isEmpty {
            dims.append("no scalability dimension we know (mask \(m.map { $0 ? "1" : "0" }.joined()))")
        }
        isStereoMultiview = m[1] && !m[0] && !m[2] && !m[3] && layerCount == 2
        if isStereoMultiview {
            name = "a two-view MV-HEVC stream"
        } else if m[2] && !m[1] {
            name =
                "an SHVC (scalable HEVC) stream of \(layerCount) layers: layer 1 enhances the same view "
                + "(\(dims.joined(separator: ", "))), it is not a second eye"
        } else {
            name = "a \(layerCount)-layer stream with \(dims.joined(separator: ", ")), not two views"
        }
    }
}

/// Reads a raw two-view MV-HEVC stream (Annex B, both layers interleaved, as a multiview encoder or `split --copy`
/// writes it) access unit by access unit, for muxing without re-encoding: the parameter sets of the first access
/// unit, the eye order its SEI states, and each access unit with its PicOrderCntVal (POC LSB plus the MSB carried
/// across pictures, reset at IDR/BLA and after an end of sequence). Memory is bounded by one access unit.
public struct MVHEVCAnnexBReader {
    var scanner: AnnexB.Scanner
    var grouper = AccessUnits.Grouper()
    var store = ParameterSetStore()
    var prevTid0: [UInt8: Int] = [:]
    var afterEndOfSequence = false
    var pending: [NALUnit]?
    public let path: String
    /// The VPS, SPS and PPS NAL units of the first access unit, as the stream has them.
    public let parameterSets: [NALUnit]
    public let vps: VideoParameterSet
    /// The eye of layer 0 as the stream's SEI states it (176 three-dimensional reference displays, else 180
    /// multiview view position), with the SEI named; nil when neither is present.
    public let statedBaseIsLeft: (isLeft: Bool, source: String)?
    /// `vps_num_units_in_tick` and `vps_time_scale` when the VPS carries timing information.
    public let vpsTiming: (unitsInTick: UInt32, timeScale: UInt32)?
    /// Access units read so far.
    public private(set) var count = 0

    /// Opens `path` and reads its first access unit. Throws ``/BinaryIO/ParseError/Code/unsupported`` naming what
    /// the stream is when it is not two views (SHVC, 3D-HEVC, auxiliary layers, more views).
    public init(path: String, limits: Limits = .default) throws(ParseError) {
        self.path = path
        scanner = AnnexB.Scanner(source: try FileSource(path: path), limits: limits)
        var first: [NALUnit]? = nil
        while first == nil, let nal = try scanner.next() { first = grouper.add(nal) }
        if first == nil { first = grouper.finish() }
        guard let au = first else {
            throw ParseError(.truncated, path: path, "no NAL units: an empty stream")
        }
        pending = au
        let sets = au.filter { $0.type == .vps || $0.type == .sps || $0.type == .pps }
        for n in sets { try store.add(n) }
        parameterSets = sets
        guard let v = store.vps.sorted(by: { $0.key < $1.key }).first?.value else {
            throw ParseError(
                .invalidValue, path: path,
                "the first access unit has no VPS: the stream's layers are not described")
        }
        vps = v
        let kind = MultiLayerStreamKind(vps: v)
        guard kind.isStereoMultiview else {
            throw ParseError(
                .unsupported, path: path,
                "\(kind.name); a spatial video holds two views (MV-HEVC), so it is not converted")
        }
        vpsTiming = Self.timing(v)
        statedBaseIsLeft = Self.eyeOrder(au, vps: v)
    }

    /// The next access unit in decoding order (parameter sets dropped: they go to the sample entry), or nil at the end.
    /// Throws when a later parameter set differs from the first access unit's, or an access unit lacks a picture of
    /// either layer.
    public mutating func next() throws(ParseError) -> MVHEVCAccessUnit? {
        var au = pending
        pending = nil
        if au == nil {
            while au == nil, let nal = try scanner.next() { au = grouper.add(nal) }
            if au == nil { au = grouper.finish() }
        }
        guard let nals = au else { return nil }
        var poc: Int? = nil
        for n in nals {
            if n.type == .vps || n.type == .sps || n.type == .pps {
                guard parameterSets.contains(where: { $0.bytes == n.bytes }) else {
                    throw ParseError(
                        .unsupported, offset: n.offset, path: path,
                        "access unit \(count) carries a \(n.type.name) of layer \(n.layerId) that differs "
                            + "from the first access unit's: a stream whose parameter sets change is not "
                            + "muxed into one sample entry")
                }
            } else if n.type == .eos {
                afterEndOfSequence = true
            } else if poc == nil, n.type.isVCL, n.type.rawValue <= 21, n.layerId == 0 {
                let ctx = try store.context(forSlice: n)
                let sh = try SliceSegmentHeader(nal: n, context: ctx)
                if afterEndOfSequence { prevTid0 = [:]; afterEndOfSequence = false }
                poc = StreamAnalysis.poc(sh, ctx, &prevTid0)
            }
        }
        guard let poc else {
            throw ParseError(
                .invalidValue, offset: nals.first?.offset ?? 0, path: path,
                "access unit \(count) has no base-layer (layer 0) picture")
        }
        let unit = try MVHEVCAccessUnit(encoderOutput: nals, poc: poc)
        count += 1
        return unit
    }

    /// The VPS timing (the first 64 bits after `vps_timing_info_present_flag`: units in tick, time scale).
    static func timing(_ v: VideoParameterSet) -> (unitsInTick: UInt32, timeScale: UInt32)? {
        let b = v.timingAndHRD.bytes
        guard v.timingInfoPresent, v.timingAndHRD.bitCount >= 64, b.count >= 8 else { return nil }
        func u32(_ i: Int) -> UInt32 { b[i..<(i + 4)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }
        let tick = u32(0), scale = u32(4)
        return tick > 0 && scale > 0 ? (tick, scale) : nil
    }

    /// Layer 0's eye from SEI 176 (the left view id against the VPS's view ids) or SEI 180 (view positions: the
    /// smaller is further left; view order 0 is layer 0).
    static func eyeOrder(_ au: [NALUnit], vps: VideoParameterSet) -> (isLeft: Bool, source: String)? {
        let messages = au.filter { $0.type == .prefixSEI }
            .flatMap { (try? SEIMessageList(nal: $0))?.messages ?? [] }
        if let d = messages.lazy.compactMap({ $0.threeDimensionalReferenceDisplays }).first,
            let first = d.displays.first
        {
            let v0 = vps.viewId(layerId: 0), v1 = vps.viewId(layerId: vps.layerIds.count > 1 ? vps.layerIds[1] : 1)
            if first.leftViewId == v0 && first.rightViewId == v1 {
                return (true, "SEI 176 of the stream: left view \(v0) = layer 0")
            }
            if first.leftViewId == v1 && first.rightViewId == v0 {
                return (false, "SEI 176 of the stream: left view \(v1) = layer 1")
            }
        }
        if let p = messages.first(where: { $0.payloadType == 180 }) {
            var r = BitReader(p.payload)
            if let n = try? r.readUE(), n >= 1, let a = try? r.readUE(), let b = try? r.readUE(), a != b {
                return (a < b, "SEI 180 of the stream: view positions \(a) (layer 0), \(b) (layer 1)")
            }
        }
        return nil
    }
}
