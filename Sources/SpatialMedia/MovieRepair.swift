import BinaryIO
import HEVC
import ISOBMFF
import SystemSupport

/// What `fix` may add when it is missing.
public struct RepairOptions: Sendable {
    /// `hfov` to add to a rectilinear stereo track that has none (millidegrees); nil: report it missing.
    public var horizontalFieldOfViewMillidegrees: UInt32?
    /// Hero eye to add to a stereo track whose `vexu/eyes` has none; nil: the eye the base layer carries (SEI 176 /
    /// VPS view ids in `hvcC`), left when that is not signalled. Players that decode only the base layer show that
    /// eye in 2D, so a hero naming the other eye contradicts them.
    public var heroEye: HeroEye? = nil
    public init() {}
}

/// What a repair did.
public struct RepairResult: Sendable {
    public var outputPath: String
    /// One line per repair made.
    public var repairs: [String]
    /// Problems of the same kinds that could not be repaired, with the reason.
    public var notRepaired: [String]
    /// Bytes written (0 when nothing needed repairing and nothing was written).
    public var bytesWritten: UInt64
    /// Facts kept as they are that a reader of the report should know (frames an edit list hides).
    public var notes: [String] = []

    public var json: JSON {
        .object([
            ("output", .string(outputPath)), ("repairs", .array(repairs.map { .string($0) })),
            ("not_repaired", .array(notRepaired.map { .string($0) })), ("notes", .array(notes.map { .string($0) })),
            ("bytes_written", .uint(bytesWritten)),
        ])
    }
}

/// Safe repairs of the commonest breakages, each listed, nothing else touched (Specs/spatial-video.md "Repairs"):
///
/// * `hev1` → `hvc1`: when every parameter set (VPS/SPS/PPS) found in the samples has one value per
///   type and layer for the whole stream and either is already in `hvcC`/`lhvC` or the record has none of
///   that type and layer, the parameter sets are put in the records (array_completeness 1), removed from
///   the samples, and the sample entry renamed. A sample that loses bytes is written shorter at its own offset
///   (no second copy is left in the file) and the track's chunk table becomes one sample per chunk; every other
///   sample keeps its bytes where they were.
/// * `moov` after `mdat`: moved in front (chunk offsets patched).
/// * a stereo track without a hero eye: `vexu/eyes/hero` added (the base layer's eye unless told otherwise); a
///   rectilinear stereo track without `hfov`: added when a value is given, otherwise reported. An MV-HEVC track
///   without `vexu` gets one only when a hero or hfov is given; a given value no track takes is refused.
public enum MovieRepair {
    /// Repairs the movie at `path`, writing `output` (or `path` itself with `inPlace`, atomically).
    package static func fix(
        path: String, output: String?, inPlace: Bool, options: RepairOptions = RepairOptions(),
        limits: Limits = .default
    ) throws(ParseError) -> RepairResult {
        let file = try ISOFile.open(path: path, limits: limits)
        try file.requireIntact(limits: limits, operation: "repair")
        let moovIndex = try file.unfragmentedMovieIndex(path: path)
        let target = inPlace ? path : (output ?? path)
        var moov = file.boxes[moovIndex]
        var repairs: [String] = []
        var notRepaired: [String] = []
        // Samples that lose their parameter sets are rewritten where they are (old-file offset → new bytes).
        var patches: [UInt64: [UInt8]] = [:]
        var usedHero = false, usedHFOV = false
        guard var traks = moov.children else {
            throw ParseError(.unsupported, offset: moov.header.offset, path: "moov", "moov is empty")
        }

        var notes: [String] = []
        for ti in traks.indices where traks[ti].type == "trak" {
            let track = Track(traks[ti])
            guard track.handler == "vide", let entry = track.sampleEntries.first else { continue }
            // The same presented frames as info and validate (SV-VIDEO-037): the edit list is kept, and said.
            if let p = track.presentedSamples(movieTimescale: file.movieTimescale, limits: limits),
                p.shown.contains(false)
            {
                notes.append(
                    "track \(track.trackID): the edit list presents \(p.shown.filter { $0 }.count) of \(p.shown.count) frames (kept as it is)"
                )
            }
            var e = entry
            if entry.type == "hev1" {
                if track.sampleEntries.count != 1 {
                    notRepaired.append(
                        "track \(track.trackID): 'hev1' with \(track.sampleEntries.count) sample entries; only single-entry tracks are converted"
                    )
                } else {
                    switch try hev1ToHvc1(file: file, track: track, entry: entry, limits: limits) {
                    case .failure(let why):
                        notRepaired.append("track \(track.trackID): 'hev1' kept: \(why)")
                    case .success(let plan):
                        e = plan.entry
                        if !plan.changedSamples.isEmpty {
                            try rewriteTables(&traks[ti], track: track, plan: plan, patches: &patches)
                        }
                        repairs.append(
                            "track \(track.trackID): sample entry 'hev1' → 'hvc1'"
                                + (plan.movedParameterSets.isEmpty
                                    ? " (parameter sets were already only in the configuration records)"
                                    : "; \(plan.movedParameterSets.joined(separator: ", ")) moved from \(plan.changedSamples.count) sample(s) into the configuration records")
                        )
                    }
                }
            }
            // Hero eye and hfov for stereo tracks made by other tools.
            let used = addStereoTags(
                &e, track: track, trak: traks[ti], options: options, repairs: &repairs,
                notRepaired: &notRepaired)
            usedHero = usedHero || used.hero
            usedHFOV = usedHFOV || used.hfov
            if e.type != entry.type || (try? e.serialized()) != (try? entry.serialized()) {
                guard var stbl = traks[ti].find("mdia", "minf", "stbl"), var stsd = stbl.child("stsd"),
                    var kids = stsd.children, !kids.isEmpty
                else { continue }
                kids[0] = e
                stsd.children = kids
                stbl.setChild(stsd)
                try SpatialVideoEditor.replace(&traks[ti], path: ["mdia", "minf", "stbl"], with: stbl)
            }
        }
        moov.children = traks
        // A value the caller gave that no track took is an error, not a silent no-op.
        var unused: [String] = []
        if let h = options.heroEye, !usedHero { unused.append("hero eye \(h)") }
        if let f = options.horizontalFieldOfViewMillidegrees, !usedHFOV {
            unused.append("hfov \(SpatialFormat.degrees(f))°")
        }
        if !unused.isEmpty {
            throw ParseError(
                .invalidArgument, path: path,
                "\(unused.joined(separator: " and ")) given but no track takes it: fix adds them only to a stereo track (MV-HEVC, or one whose vexu says both eyes) that lacks them; use `spatial-media edit` to change values that are present"
            )
        }
        let firstMdat = file.boxes.firstIndex { $0.type == "mdat" }
        let moveMoov = firstMdat.map { $0 < moovIndex } ?? false
        if moveMoov { repairs.append("moved moov before mdat (players can start before reading the end of the file)") }
        guard !repairs.isEmpty else {
            return RepairResult(
                outputPath: target, repairs: [], notRepaired: notRepaired, bytesWritten: 0, notes: notes)
        }
        let written = try SpatialVideoEditor.rewrite(
            file: file, moovIndex: moovIndex, newMoov: moov, to: target, faststart: moveMoov, patches: patches)
        return RepairResult(
            outputPath: target, repairs: repairs, notRepaired: notRepaired, bytesWritten: written, notes: notes)
    }

    /// Adds the hero eye and the field of view a stereo track made by another tool lacks (the given values, or the
    /// base layer's eye for the hero); says which given values a track took.
    private static func addStereoTags(
        _ e: inout Box, track: Track, trak: Box, options: RepairOptions,
        repairs: inout [String], notRepaired: inout [String]
    ) -> (hero: Bool, hfov: Bool) {
        var used = (hero: false, hfov: false)
        let m = StereoMetadataReader.read(sampleEntry: e, track: trak)
        let isMV = (e.type == "hvc1" || e.type == "hev1") && e.child("hvcC") != nil && e.child("lhvC") != nil
        let stereo = isMV || m.framePacking != nil || (m.viewFlags.map { $0.hasLeftEye && $0.hasRightEye } ?? false)
        // A stereo track without vexu gets one only when the caller gave a value for it (MV-HEVC: the eyes
        // are the layers, so vexu/eyes/stri can say both).
        let tagged = m.hasVexu || (isMV && (options.heroEye != nil || options.horizontalFieldOfViewMillidegrees != nil))
        if stereo && tagged && m.heroEye == nil {
            let baseLeft = isMV ? SpatialVideoEditor.baseLayerIsLeft(sampleEntry: e) : nil
            let hero = options.heroEye ?? (baseLeft == false ? .right : .left)
            var edit = SpatialVideoEdit()
            edit.heroEye = .set(hero)
            SpatialVideoEditor.editEntry(&e, edit)
            used.hero = true
            let why =
                options.heroEye != nil
                ? ""
                : baseLeft == nil
                    ? " (the layer → eye mapping is not signalled; left, as Apple's writer)"
                    : " (the eye of the base layer, SEI 176)"
            let warning =
                SpatialVideoEditor.heroWarning(.set(hero), baseLayerIsLeft: baseLeft, track: track.trackID).map {
                    " — note: \($0)"
                } ?? ""
            repairs.append("track \(track.trackID): added hero eye \(hero) (vexu/eyes/hero)\(why)\(warning)")
        }
        let rectilinear = (m.projectionKind ?? "rect") == "rect" && !m.hasGoogleSphere
        if stereo && rectilinear && tagged && !m.hasHFOV {
            if let f = options.horizontalFieldOfViewMillidegrees {
                var edit = SpatialVideoEdit()
                edit.horizontalFieldOfViewMillidegrees = .set(f)
                SpatialVideoEditor.editEntry(&e, edit)
                used.hfov = true
                repairs.append("track \(track.trackID): added hfov \(SpatialFormat.degrees(f))°")
            } else {
                notRepaired.append(
                    "track \(track.trackID): no hfov (horizontal field of view); give --hfov DEG to add it (it cannot be guessed)"
                )
            }
        }
        return used
    }

    struct Hev1Plan {
        var entry: Box
        /// Sample index → new bytes (parameter sets removed).
        var changedSamples: [Int: [UInt8]]
        var movedParameterSets: [String]
    }

    /// Plans `hev1` → `hvc1` for one track, or says why it is not safe.
    static func hev1ToHvc1(file: ISOFile, track: Track, entry: Box, limits: Limits) throws(ParseError) -> Result<
        Hev1Plan, RepairRefusal
    > {
        guard let hvcCBox = entry.child("hvcC")?.payload(HEVCConfigurationBox.self) else {
            return .failure(.init("no hvcC"))
        }
        var hvcC: HEVCDecoderConfigurationRecord
        do { hvcC = try HEVCDecoderConfigurationRecord(parsing: hvcCBox.record) } catch {
            return .failure(.init("hvcC cannot be read (\(error.message))"))
        }
        var lhvC: LHEVCDecoderConfigurationRecord?
        if let l = entry.child("lhvC")?.payload(LHEVCConfigurationBox.self) {
            do { lhvC = try LHEVCDecoderConfigurationRecord(parsing: l.record) } catch {
                return .failure(.init("lhvC cannot be read (\(error.message))"))
            }
        }
        let lengthSize = hvcC.lengthSize
        let samples = try track.samples(limits: limits)
        struct Key: Hashable { var type: UInt8; var layer: UInt8 }
        var inBand: [Key: Set<[UInt8]>] = [:]
        var withPS: [Int] = []
        var budget = limits.maxBoxInMemory
        for s in samples {
            let bytes = try file.readBytes(at: s.offset, count: Int(s.size))
            let nals: [NALUnit]
            do {
                nals = try LengthPrefixed.split(bytes, lengthSize: lengthSize, baseOffset: s.offset, limits: limits)
            } catch {
                return .failure(.init("sample \(s.index + 1) cannot be split into NAL units (\(error.message))"))
            }
            var found = false
            for n in nals where n.type == .vps || n.type == .sps || n.type == .pps {
                inBand[Key(type: n.type.rawValue, layer: n.header.layerId), default: []].insert(n.bytes)
                found = true
            }
            if found {
                withPS.append(s.index)
                guard budget >= UInt64(bytes.count) else {
                    return .failure(
                        .init(
                            "the samples holding parameter sets exceed the in-memory limit (\(limits.maxBoxInMemory) bytes)"
                        ))
                }
                budget -= UInt64(bytes.count)
            }
        }
        func recordNALs(_ k: Key) -> [[UInt8]] {
            let arrays = k.layer == 0 ? hvcC.arrays : (lhvC?.arrays ?? [])
            return arrays.filter { $0.nalUnitType.rawValue == k.type }.flatMap(\.nalUnits).filter {
                $0.count >= 2 && ((($0[0] & 1) << 5) | ($0[1] >> 3)) == k.layer
            }
        }
        var moved: [String] = []
        let names: [UInt8: String] = [32: "VPS", 33: "SPS", 34: "PPS"]
        for (k, set) in inBand.sorted(by: { ($0.key.layer, $0.key.type) < ($1.key.layer, $1.key.type) }) {
            let inRecord = Set(recordNALs(k))
            let name = "\(names[k.type] ?? "?")\(k.layer > 0 ? " (layer \(k.layer))" : "")"
            if set.isSubset(of: inRecord) { moved.append(name); continue }
            guard set.count == 1, inRecord.isEmpty, let nal = set.first else {
                return .failure(
                    .init(
                        set.count > 1
                            ? "the \(name) changes within the stream (\(set.count) versions), so it must stay in the samples"
                            : "the \(name) in the samples differs from the one in the configuration record"))
            }
            if k.layer == 0 {
                append(nal, type: k.type, to: &hvcC.arrays)
            } else {
                guard var l = lhvC else {
                    return .failure(.init("a \(name) for layer \(k.layer) is in the samples but the entry has no lhvC"))
                }
                append(nal, type: k.type, to: &l.arrays)
                lhvC = l
            }
            moved.append(name)
        }
        // hvc1: every parameter-set array is complete.
        for i in hvcC.arrays.indices where [32, 33, 34].contains(hvcC.arrays[i].nalUnitType.rawValue) {
            hvcC.arrays[i].arrayCompleteness = true
        }
        if var l = lhvC {
            for i in l.arrays.indices where [32, 33, 34].contains(l.arrays[i].nalUnitType.rawValue) {
                l.arrays[i].arrayCompleteness = true
            }
            lhvC = l
        }
        var e = entry
        e.header.type = "hvc1"
        do {
            e.setChild(Box(HEVCConfigurationBox(record: try hvcC.serialized()), type: "hvcC"))
            if let l = lhvC {
                e.setChild(Box(LHEVCConfigurationBox(record: try l.serialized()), type: "lhvC"))
            }
        } catch { return .failure(.init("the configuration records cannot be written (\(error.message))")) }
        var changed: [Int: [UInt8]] = [:]
        for i in withPS {
            let s = samples[i]
            let bytes = try file.readBytes(at: s.offset, count: Int(s.size))
            let nals = try LengthPrefixed.split(bytes, lengthSize: lengthSize, baseOffset: s.offset, limits: limits)
            let kept = nals.filter { !($0.type == .vps || $0.type == .sps || $0.type == .pps) }
            guard !kept.isEmpty else { return .failure(.init("sample \(i + 1) holds only parameter sets")) }
            changed[i] = try LengthPrefixed.join(kept, lengthSize: lengthSize)
        }
        return .success(Hev1Plan(entry: e, changedSamples: changed, movedParameterSets: moved))
    }

    static func append(_ nal: [UInt8], type: UInt8, to arrays: inout [NALUnitArray]) {
        if let i = arrays.firstIndex(where: { $0.nalUnitType.rawValue == type }) {
            arrays[i].nalUnits.append(nal); return
        }
        // Keep VPS, SPS, PPS order.
        let at = arrays.firstIndex { $0.nalUnitType.rawValue > type } ?? arrays.count
        arrays.insert(NALUnitArray(arrayCompleteness: true, nalUnitType: NALUnitType(type), nalUnits: [nal]), at: at)
    }

    /// One sample per chunk for the repaired track: every sample stays where it is; a changed sample's shorter bytes
    /// are written at its old offset (a patch applied while the file is copied), so no second copy of it is left
    /// behind — only the removed parameter-set bytes remain, unreferenced, after it. `stsz` gets the new sizes.
    static func rewriteTables(_ trak: inout Box, track: Track, plan: Hev1Plan, patches: inout [UInt64: [UInt8]])
        throws(ParseError)
    {
        let samples = try track.samples()
        guard var stbl = trak.find("mdia", "minf", "stbl") else { return }
        var offsets: [UInt64] = []
        var sizes: [UInt32] = []
        offsets.reserveCapacity(samples.count)
        for s in samples {
            offsets.append(s.offset)
            if let b = plan.changedSamples[s.index], b.count <= Int(s.size) {
                patches[s.offset] = b
                sizes.append(UInt32(truncatingIfNeeded: b.count))
            } else {
                sizes.append(s.size)
            }
        }
        stbl.setChild(Box(SampleSizeBox(sizes: sizes), type: "stsz"))
        stbl.removeChildren("stz2")
        stbl.setChild(
            Box(
                SampleToChunkBox(entries: [.init(firstChunk: 1, samplesPerChunk: 1, sampleDescriptionIndex: 1)]),
                type: "stsc"))
        let table =
            offsets.contains(where: { $0 > UInt64(UInt32.max) })
            ? Box(ChunkLargeOffsetBox(offsets: offsets), type: "co64")
            : Box(ChunkOffsetBox(chunkOffsets: offsets.map { UInt32(truncatingIfNeeded: $0) }), type: "stco")
        // The new chunk-offset table takes the old one's place among the sample-table boxes.
        var kids = stbl.children ?? []
        if let i = kids.firstIndex(where: { $0.type == "stco" || $0.type == "co64" }) {
            kids[i] = table
        } else {
            kids.append(table)
        }
        stbl.children = kids
        try SpatialVideoEditor.replace(&trak, path: ["mdia", "minf", "stbl"], with: stbl)
    }
}

/// Why a repair was not made.
public struct RepairRefusal: Error, Sendable {
    public var reason: String
    init(_ reason: String) { self.reason = reason }
}

extension RepairRefusal: CustomStringConvertible { public var description: String { reason } }

extension ISOFile {
    /// The index of the top-level `moov` of a movie that is not fragmented; `fragmented` says, when it is, what
    /// fragments would do to the job.
    func unfragmentedMovieIndex(path: String, fragmented: String? = nil) throws(ParseError) -> Int {
        guard let moovIndex = boxes.firstIndex(where: { $0.type == "moov" }) else {
            throw ParseError(.unsupported, path: path, "not a movie: no moov box")
        }
        if isFragmented {
            throw ParseError(
                .unsupported, offset: boxes[moovIndex].header.offset, path: "moov",
                "fragmented movies (moof/mvex) are not supported" + (fragmented.map { ": " + $0 } ?? ""))
        }
        return moovIndex
    }
}
