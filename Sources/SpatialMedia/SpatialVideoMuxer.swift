import BinaryIO
import HEVC
import ISOBMFF

/// Spatial metadata and container choices for ``SpatialVideoMuxer``.
public struct SpatialVideoMuxOptions: Sendable {
    public enum Container: String, Sendable { case mov, mp4 }
    /// The stereo parameters written (`vexu/eyes/cams/blin`, `hfov`, `vexu/eyes/cmfy/dadj`, `vexu/eyes/hero`,
    /// `vexu/proj/prji`); a nil field is not written. Starts from the one table of defaults,
    /// ``StereoParameters/defaults`` (64 mm, 60°, 0, left, `rect`).
    public var stereo: StereoParameters = .defaults
    /// Frame rate as a fraction (frames per `frameRateDen` seconds); nil takes the stream's VUI timing, else 30.
    public var frameRateNum: UInt32? = nil
    public var frameRateDen: UInt32 = 1
    public var container: Container = .mov
    /// Put `moov` before `mdat`.
    public var faststart = false
    /// Samples per chunk.
    public var samplesPerChunk = 30
    /// Boxes written in a `moov/udta` box (none: no `udta`), e.g. the frame range of a conversion segment.
    public var movieUserData: [Box] = []
    public init() {}
}

/// What ``SpatialVideoMuxer/write(_:to:options:)`` produced.
public struct SpatialVideoMuxResult: Sendable {
    public var path: String
    public var bytesWritten: UInt64
    public var samples: Int
    public var syncSamples: Int
    public var timescale: UInt32
    public var frameDuration: UInt32
    /// Pictures of reordering delay (B-frames). Composition offsets are signed (`ctts` version 1, Apple's form) so the
    /// first picture is presented at time 0 without an edit-list shift.
    public var compositionDelay: Int
}

/// Writes an assembled MV-HEVC stream as an Apple-style spatial video: one `hvc1` track with `hvcC` + `lhvC`
/// + `vexu` + `hfov`, one sample per access unit. See Specs/mv-hevc-assembly.md.
public enum SpatialVideoMuxer {
    /// Writes the movie atomically (a temporary file renamed into place; nothing is left at `path` on failure).
    @discardableResult
    public static func write(
        _ stream: MVHEVCStream, to path: String, options: SpatialVideoMuxOptions = SpatialVideoMuxOptions()
    ) throws(ParseError) -> SpatialVideoMuxResult {
        let (file, result) = try build(stream, options: options)
        try file.write(to: path)
        var r = result
        r.path = path
        return r
    }

    /// Builds the file in memory (boxes with their sample data).
    public static func build(_ stream: MVHEVCStream, options: SpatialVideoMuxOptions = SpatialVideoMuxOptions())
        throws(ParseError) -> (ISOFile, SpatialVideoMuxResult)
    {
        guard !stream.accessUnits.isEmpty else { throw ParseError(.invalidValue, "the stream has no access units") }
        try validate(options)
        var samples: [VideoSample] = []
        samples.reserveCapacity(stream.accessUnits.count)
        var payload: [UInt8] = []
        for au in stream.accessUnits {
            let s = try LengthPrefixed.join(au.nalUnits, lengthSize: 4)
            samples.append(try VideoSample(au, size: s.count))
            payload += s
        }
        return try movie(
            header: stream, samples: samples, mdat: .raw(payload), mdatPayloadLength: UInt64(payload.count),
            source: MemorySource([]), options: options)
    }

    /// What the sample tables need to know of one access unit.
    struct VideoSample: Sendable {
        var size: UInt32
        var poc: Int
        var isIRAP: Bool
        var baseType: NALUnitType
        /// Every picture of the access unit is a sub-layer non-reference picture (nothing depends on the sample).
        var disposable: Bool
        /// NAL unit type of the highest layer's first slice (the `sync` sample group entry of an IRAP sample).
        var topLayerType: NALUnitType
        init(_ au: MVHEVCAccessUnit, size: Int) throws(ParseError) {
            guard let s = UInt32(exactly: size) else {
                throw ParseError(.unwritable, "an access unit of \(size) bytes does not fit stsz")
            }
            self.size = s; poc = au.poc; isIRAP = au.isIRAP; baseType = au.baseType
            let vcl = au.nalUnits.filter { $0.type.isVCL }
            disposable = !vcl.isEmpty && vcl.allSatisfy { $0.type.isSubLayerNonReference }
            let top = vcl.map(\.layerId).max() ?? 0
            topLayerType = vcl.first { $0.layerId == top }?.type ?? au.baseType
        }
        /// The `sdtp` byte as Apple writes it: is_leading 0; sample_depends_on 2 for an IRAP sample, else 1;
        /// sample_is_depended_on 2 for a disposable sample, else 0 (unknown); has_redundancy 0.
        var dependencyFlags: UInt8 {
            if isIRAP { return 0x20 }
            return disposable ? 0x18 : 0x10
        }
    }

    /// The movie around video samples stored contiguously at the start of `mdat`'s payload (`mdat` holds
    /// `mdatPayloadLength` bytes: in memory, or a range of `source`). Shared by the in-memory and streaming writers.
    static func movie(
        header stream: MVHEVCStream, samples: [VideoSample], mdat mdatFields: BoxFields,
        mdatPayloadLength total: UInt64,
        source: any ByteSource, options: SpatialVideoMuxOptions
    ) throws(ParseError) -> (ISOFile, SpatialVideoMuxResult) {
        let n = samples.count
        guard n > 0 else { throw ParseError(.invalidValue, "the stream has no access units") }
        // Timing: timescale and frame duration.
        var num: UInt32 = 30, den: UInt32 = 1
        if let f = options.frameRateNum {
            num = f; den = options.frameRateDen
        } else if let t = stream.timing, t.unitsInTick > 0, t.timeScale > 0 {
            num = t.timeScale; den = t.unitsInTick
        }
        guard num > 0, den > 0 else { throw ParseError(.invalidValue, "frame rate \(num)/\(den) is not positive") }
        var timescale = num, duration = den
        // Keep timescales readable: 25 fps → 25 × 1000 ticks when the fraction is integral.
        if den == 1, num <= 1000 { timescale = num * 1000; duration = 1000 }
        // Presentation order from POC within each coded video sequence (a new one at each IDR/BLA).
        var keys: [(Int, Int, Int)] = []
        keys.reserveCapacity(n)
        var cvs = 0
        for (i, s) in samples.enumerated() {
            if i > 0 && s.isIRAP && s.baseType.rawValue <= 20 { cvs += 1 }
            keys.append((cvs, s.poc, i))
        }
        let order = keys.sorted { ($0.0, $0.1, $0.2) < ($1.0, $1.1, $1.2) }
        var rank = Array(repeating: 0, count: n)
        for (r, k) in order.enumerated() { rank[k.2] = r }
        var delay = 0
        for i in 0..<n { delay = max(delay, i - rank[i]) }
        // Signed offsets in frames: composition time = presentation rank, so the first picture shown is at 0.
        let offsets = (0..<n).map { rank[$0] - $0 }
        let mediaDuration = try Checked.mul(UInt64(n), UInt64(duration))
        let sync = samples.enumerated().filter { $0.element.isIRAP }.map { UInt32($0.offset + 1) }

        // Sample entry.
        let entry = try sampleEntry(stream, options: options)
        // Chunks.
        let perChunk = max(1, min(options.samplesPerChunk, 1000))
        var chunkSizes: [UInt64] = []
        var i = 0
        while i < n {
            let end = min(n, i + perChunk)
            var sz: UInt64 = 0
            for k in i..<end { sz += UInt64(samples[k].size) }
            chunkSizes.append(sz)
            i = end
        }
        let ftyp = ftypBox(options.container)
        let largeMdat = total + 8 > UInt64(UInt32.max)
        var mdatHeader = BoxHeader(type: "mdat", form: largeMdat ? .large : .compact)
        mdatHeader.size = 0
        let mdatHeaderLength = UInt64(largeMdat ? 16 : 8)
        let useCo64 = total + (1 << 24) > UInt64(UInt32.max)
        func makeMoov(dataStart: UInt64) throws(ParseError) -> Box {
            var chunkOffsets: [UInt64] = []
            var off = dataStart
            for c in chunkSizes { chunkOffsets.append(off); off += c }
            var moov = try moovBox(
                entry: entry, samples: samples, timescale: timescale, frameDuration: duration,
                mediaDuration: mediaDuration,
                offsets: offsets, sync: sync.count == n ? nil : sync, perChunk: perChunk,
                chunkOffsets: chunkOffsets, co64: useCo64, width: stream.width, height: stream.height,
                container: options.container)
            if !options.movieUserData.isEmpty {
                moov.children?.append(Box(type: "udta", children: options.movieUserData))
            }
            return moov
        }
        let ftypSize = ftyp.encodedSize()
        var mdat = Box(type: "mdat", fields: mdatFields)
        mdat.header = mdatHeader
        let boxes: [Box]
        if options.faststart {
            let probe = try makeMoov(dataStart: 0)
            let start = ftypSize + probe.encodedSize() + mdatHeaderLength
            boxes = [ftyp, try makeMoov(dataStart: start), mdat]
        } else {
            boxes = [ftyp, mdat, try makeMoov(dataStart: ftypSize + mdatHeaderLength)]
        }
        let file = ISOFile(boxes: boxes, source: source)
        let result = SpatialVideoMuxResult(
            path: "", bytesWritten: boxes.reduce(0) { $0 + $1.encodedSize() }, samples: n, syncSamples: sync.count,
            timescale: timescale, frameDuration: duration, compositionDelay: delay)
        return (file, result)
    }

    static func validate(_ o: SpatialVideoMuxOptions) throws(ParseError) {
        try o.stereo.validate()
    }

    // MARK: Boxes

    static func raw(_ type: FourCC, _ body: (inout ByteWriter) -> Void, children: [Box]? = nil) -> Box {
        var w = ByteWriter()
        body(&w)
        return Box(type: type, fields: .raw(w.take()), children: children)
    }

    static func ftypBox(_ c: SpatialVideoMuxOptions.Container) -> Box {
        switch c {
        case .mov:
            return Box(FileTypeBox(majorBrand: "qt  ", minorVersion: 0, compatibleBrands: ["qt  "]), type: "ftyp")
        case .mp4:
            return Box(
                FileTypeBox(majorBrand: "mp42", minorVersion: 1, compatibleBrands: ["isom", "mp41", "mp42"]),
                type: "ftyp")
        }
    }

    /// The `hvc1` sample entry: hvcC, lhvC, then vexu and hfov built by the metadata editor.
    static func sampleEntry(_ s: MVHEVCStream, options o: SpatialVideoMuxOptions) throws(ParseError) -> Box {
        guard s.width > 0, s.width <= 65535, s.height > 0, s.height <= 65535 else {
            throw ParseError(.invalidValue, "picture size \(s.width)x\(s.height) does not fit a sample entry")
        }
        let hvcC = try HEVCDecoderConfigurationRecord(vps: [s.vps], sps: s.baseSPS, pps: s.basePPS, sei: [s.sei])
        let baseSPS = try s.baseSPS.first.map { (n: NALUnit) throws(ParseError) -> SequenceParameterSet in
            try SequenceParameterSet(nal: n)
        }
        // temporalIdNested 0 as Apple writes it in lhvC (it claims nothing; Apple's base SPS also sets nesting).
        let lhvC = try LHEVCDecoderConfigurationRecord(
            sps: s.layerSPS, pps: s.layerPPS, numTemporalLayers: hvcC.numTemporalLayers,
            temporalIdNested: false)
        var fixed = ByteWriter()
        fixed.writeU16(0); fixed.writeU16(0)  // pre_defined, reserved
        fixed.write([UInt8](repeating: 0, count: 12))  // pre_defined[3]
        fixed.writeU16(UInt16(s.width)); fixed.writeU16(UInt16(s.height))
        fixed.writeU32(0x0048_0000); fixed.writeU32(0x0048_0000)  // 72 dpi
        fixed.writeU32(0)  // reserved
        fixed.writeU16(1)  // frame_count
        let name = Array("HEVC".utf8)
        fixed.writeU8(UInt8(name.count)); fixed.write(name); fixed.write([UInt8](repeating: 0, count: 31 - name.count))
        fixed.writeU16(0x0018)  // depth
        fixed.writeI16(-1)  // pre_defined
        var children = [
            Box(HEVCConfigurationBox(record: try hvcC.serialized()), type: "hvcC"),
            Box(LHEVCConfigurationBox(record: try lhvC.serialized()), type: "lhvC"),
        ]
        if let sps = baseSPS, let c = colr(sps, container: o.container) { children.append(c) }
        children += hdrBoxes(sei: s.sei)
        var entry = Box(
            SampleEntry(kind: .visual, dataReferenceIndex: 1, fixed: fixed.take()), type: "hvc1", children: children)
        SpatialVideoEditor.editEntry(&entry, SpatialVideoEdit(setting: o.stereo))
        return entry
    }

    /// `colr` for the sample entry from the base SPS VUI colour description: `nclc` in QuickTime, `nclx` (with the
    /// full-range flag) in MP4 and for full-range video in QuickTime too (`nclc` cannot state the range). nil when the
    /// VUI describes no colour (nothing to repeat).
    static func colr(_ s: SequenceParameterSet, container: SpatialVideoMuxOptions.Container) -> Box? {
        guard s.vuiPresent, s.vui.videoSignalTypePresent, s.vui.colourDescriptionPresent else { return nil }
        let type: FourCC = container == .mov && !s.vui.videoFullRange ? "nclc" : "nclx"
        let c = ColourInformationBox(
            colourType: type, colourPrimaries: UInt16(s.vui.colourPrimaries),
            transferCharacteristics: UInt16(s.vui.transferCharacteristics),
            matrixCoefficients: UInt16(s.vui.matrixCoeffs), fullRange: s.vui.videoFullRange)
        return Box(c, type: "colr")
    }

    /// `mdcv` and `clli` (ISO/IEC 14496-12 / 23001-8: the payloads of SEI 137 and 144) for the HDR static metadata the
    /// stream's header SEI carries, so that a player reading the container sees what the bitstream states.
    static func hdrBoxes(sei: NALUnit) -> [Box] {
        guard let list = try? SEIMessageList(nal: sei) else { return [] }
        var out: [Box] = []
        if let m = list.messages.first(where: { $0.payloadType == 137 && $0.payload.count == 24 }) {
            out.append(Box(type: "mdcv", fields: .raw(m.payload)))
        }
        if let c = list.messages.first(where: { $0.payloadType == 144 && $0.payload.count == 4 }) {
            out.append(Box(type: "clli", fields: .raw(c.payload)))
        }
        return out
    }

    /// The handler name we write (our own, not Apple's "Core Media Video").
    static let handlerName = "spatial-media video"

    static func runLength(_ values: [UInt32]) -> [(UInt32, UInt32)] {
        var out: [(UInt32, UInt32)] = []
        for v in values {
            if let last = out.last, last.1 == v { out[out.count - 1].0 += 1 } else { out.append((1, v)) }
        }
        return out
    }

    /// `sgpd` (version 1, default_length 1) and `sbgp` of grouping type `sync`, as Apple writes them: one entry per NAL
    /// unit type found in the highest layer of the IRAP samples (Apple: 0x15, the layer-1 CRA of its first sample),
    /// each IRAP sample mapped to its entry, the others to 0. Empty when there is no IRAP sample.
    static func syncSampleGroup(_ samples: [VideoSample]) -> [Box] {
        var types: [UInt8] = []
        var index: [UInt32] = []
        index.reserveCapacity(samples.count)
        for s in samples {
            guard s.isIRAP else { index.append(0); continue }
            let t = s.topLayerType.rawValue & 0x3F
            if let k = types.firstIndex(of: t) {
                index.append(UInt32(k + 1))
            } else {
                types.append(t); index.append(UInt32(types.count))
            }
        }
        guard !types.isEmpty else { return [] }
        let sgpd = raw("sgpd") { w in
            w.writeU8(1); w.writeU24(0); w.writeFourCC("sync"); w.writeU32(1); w.writeU32(UInt32(types.count))
            for t in types { w.writeU8(t) }
        }
        let runs = runLength(index)
        let sbgp = raw("sbgp") { w in
            w.writeU8(0); w.writeU24(0); w.writeFourCC("sync"); w.writeU32(UInt32(runs.count))
            for r in runs { w.writeU32(r.0); w.writeU32(r.1) }
        }
        return [sgpd, sbgp]
    }

    static func moovBox(
        entry: Box, samples: [VideoSample], timescale: UInt32, frameDuration: UInt32, mediaDuration: UInt64,
        offsets: [Int], sync: [UInt32]?, perChunk: Int, chunkOffsets: [UInt64], co64: Bool,
        width: Int, height: Int, container: SpatialVideoMuxOptions.Container
    ) throws(ParseError) -> Box {
        let n = samples.count
        let count = try Checked.u32(n)
        // One video track (id 1) presented from its first sample for the whole media duration.
        let mvhd = Box(MovieHeaderBox(timescale: timescale, duration: mediaDuration, nextTrackID: 2), type: "mvhd")
        let tkhd = Box(TrackHeaderBox(trackID: 1, duration: mediaDuration, width: width, height: height), type: "tkhd")
        // media_time 0: signed composition offsets already start the presentation at 0 (no shift).
        let elst = Box(EditListBox(entries: [.init(segmentDuration: mediaDuration, mediaTime: 0)]), type: "elst")
        let mdhd = Box(MediaHeaderBox(timescale: timescale, duration: mediaDuration), type: "mdhd")
        var hdlrPayload = HandlerBox(handlerType: "vide", name: handlerName)
        if container == .mov {
            // QuickTime: component type 'mhlr' and the name as a Pascal string (length byte, no terminator).
            let mhlr: FourCC = "mhlr"
            hdlrPayload.preDefined = mhlr.rawValue
            let name = Array(handlerName.utf8)
            hdlrPayload.nameBytes = [UInt8(name.count)] + name
        }
        let vmhd = Box(VideoMediaHeaderBox(), type: "vmhd")
        let stsd = Box.sampleDescription([entry])
        let stts = Box(TimeToSampleBox(entries: [(count, frameDuration)]), type: "stts")
        // Apple's order: sgpd/sbgp 'sync', stts, ctts, stss, sdtp, stsc, stsz, stco.
        var stblKids: [Box] = [stsd]
        stblKids += syncSampleGroup(samples)
        stblKids.append(stts)
        if offsets.contains(where: { $0 != 0 }) {
            var ticks: [UInt32] = []
            ticks.reserveCapacity(n)
            for o in offsets {
                let t = try Checked.mul(o, Int(frameDuration))
                guard let v = Int32(exactly: t) else {
                    throw ParseError(.unwritable, "composition offset \(t) does not fit ctts")
                }
                ticks.append(UInt32(bitPattern: v))
            }
            let runs = runLength(ticks)
            stblKids.append(
                Box(CompositionOffsetBox(version: 1, entries: runs.map { (count: $0.0, offset: $0.1) }), type: "ctts"))
        }
        if let sync {
            stblKids.append(Box(SyncSampleBox(sampleNumbers: sync), type: "stss"))
        }
        stblKids.append(
            raw("sdtp") { w in
                w.writeU8(0); w.writeU24(0)
                for s in samples { w.writeU8(s.dependencyFlags) }
            })
        let fullChunks = n / perChunk, rest = n % perChunk
        var chunkEntries: [SampleToChunkBox.Entry] = []
        if fullChunks > 0 {
            chunkEntries.append(
                .init(firstChunk: 1, samplesPerChunk: try Checked.u32(perChunk), sampleDescriptionIndex: 1))
        }
        if rest > 0 {
            chunkEntries.append(
                .init(
                    firstChunk: try Checked.u32(fullChunks + 1), samplesPerChunk: try Checked.u32(rest),
                    sampleDescriptionIndex: 1))
        }
        stblKids.append(Box(SampleToChunkBox(entries: chunkEntries), type: "stsc"))
        stblKids.append(Box(SampleSizeBox(sizes: samples.map(\.size)), type: "stsz"))
        stblKids.append(try ChunkOffsets.box(chunkOffsets, large: co64))
        let minf = Box(
            type: "minf", children: [vmhd, Box.selfContainedDataInformation(), Box(type: "stbl", children: stblKids)])
        let mdia = Box(type: "mdia", children: [mdhd, Box(hdlrPayload, type: "hdlr"), minf])
        let trak = Box(type: "trak", children: [tkhd, Box(type: "edts", children: [elst]), mdia])
        return Box(type: "moov", children: [mvhd, trak])
    }
}

/// The assembler's file-level entry (SpatialMedia): two single-layer HEVC Annex B files in, one spatial video out.
extension MVHEVCAssembler {
    /// Reads `left` and `right` (raw HEVC), assembles them (layer 0 = `options.baseIsLeft ? left : right`) and writes
    /// the movie atomically to `output`.
    ///
    /// The streams are read, paired and written picture by picture (``/HEVC/AnnexBPictureReader``,
    /// ``/HEVC/MVHEVCAssembler/Session``, ``SpatialVideoStreamWriter``), so memory does not grow with their length. A
    /// stream that introduces a new parameter set after its first picture is assembled whole in memory instead
    /// (up to ``/BinaryIO/Limits/maxBoxInMemory``), which gives the same file.
    @discardableResult
    package static func assemble(
        left: String, right: String, output: String, assembly: MVHEVCAssemblyOptions = MVHEVCAssemblyOptions(),
        mux: SpatialVideoMuxOptions = SpatialVideoMuxOptions(), limits: Limits = .default
    ) throws(ParseError) -> SpatialVideoMuxResult {
        let basePath = assembly.baseIsLeft ? left : right, secondPath = assembly.baseIsLeft ? right : left
        if let r = try streaming(
            base: basePath, second: secondPath, output: output, assembly: assembly, mux: mux, limits: limits)
        {
            return r
        }
        let l = try readWhole(left, limits: limits), r = try readWhole(right, limits: limits)
        let stream = try MVHEVCAssembler.assemble(
            base: assembly.baseIsLeft ? l : r, second: assembly.baseIsLeft ? r : l, options: assembly)
        return try SpatialVideoMuxer.write(stream, to: output, options: mux)
    }

    /// The streaming path; `nil` when a stream needs the whole-stream path (late parameter sets).
    static func streaming(
        base: String, second: String, output: String, assembly: MVHEVCAssemblyOptions,
        mux: SpatialVideoMuxOptions, limits: Limits
    ) throws(ParseError) -> SpatialVideoMuxResult? {
        var a = AnnexBPictureReader(source: try FileSource(path: base), name: "base (layer 0) stream", limits: limits)
        var b = AnnexBPictureReader(
            source: try FileSource(path: second), name: "second (layer 1) stream", limits: limits)
        var pa = try a.next(), pb = try b.next()
        guard pa != nil else { throw ParseError(.truncated, path: base, "\(a.reader.name) has no pictures") }
        guard pb != nil else { throw ParseError(.truncated, path: second, "\(b.reader.name) has no pictures") }
        var session = try MVHEVCAssembler.Session(base: a.reader, second: b.reader, options: assembly)
        let writer = try SpatialVideoStreamWriter(path: output, options: mux)
        while true {
            if a.reader.newParameterSetAfterFirstPicture || b.reader.newParameterSetAfterFirstPicture { return nil }
            // Different lengths are the likelier cause of a mismatch near the end (a shorter last GOP): count the rest
            // of both streams and report that first, as the whole-stream path does.
            func countsDiffer() throws(ParseError) -> ParseError? {
                var na = session.count + (pa == nil ? 0 : 1), nb = session.count + (pb == nil ? 0 : 1)
                while try a.next() != nil { na += 1 }
                while try b.next() != nil { nb += 1 }
                return na == nb
                    ? nil
                    : ParseError(.invalidValue, "the two streams have different frame counts: base \(na), second \(nb)")
            }
            switch (pa, pb) {
            case (let x?, let y?):
                let au: MVHEVCAccessUnit
                do throws(ParseError) { au = try session.accessUnit(base: x, second: y) } catch {
                    let cause = (try? countsDiffer()).flatMap { $0 }
                    throw cause ?? error
                }
                try writer.add(au)
                pa = try a.next(); pb = try b.next()
            case (nil, nil):
                return try writer.finish(header: session.header)
            default:
                throw try countsDiffer() ?? ParseError(.invalidValue, "the two streams have different frame counts")
            }
        }
    }

    static func readWhole(_ path: String, limits: Limits) throws(ParseError) -> [UInt8] {
        let s = try FileSource(path: path)
        guard s.size <= limits.maxBoxInMemory else {
            throw ParseError(
                .limitExceeded, path: path,
                "\(path): \(s.size) bytes is over the in-memory limit (maxBoxInMemory \(limits.maxBoxInMemory))")
        }
        let b = try s.read(at: 0, count: try Checked.int(s.size))
        guard UInt64(b.count) == s.size else { throw ParseError(.truncated, path: path, "\(path): short read") }
        return b
    }
}
