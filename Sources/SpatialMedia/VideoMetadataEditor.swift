import BinaryIO
import HEVC
import ISOBMFF
import SystemSupport

/// Writes, replaces and removes spatial-video metadata without touching sample data.
public enum SpatialVideoEditor {
    /// Applies `edit` to the movie at `path`.
    ///
    /// - Parameters:
    ///   - path: the movie to edit.
    ///   - output: where to write; nil (or the input path with `inPlace`) edits the input in place.
    ///   - inPlace: edit the input file itself, in place when its layout allows (see ``SpatialEditStrategy``),
    ///     otherwise by an atomic rewrite of the same path (the result says why).
    ///   - edit: the metadata changes.
    ///   - faststart: put `moov` before `mdat` (forces a rewrite).
    ///   - progress: called with (bytes written, total) while a rewrite copies the file.
    /// - Throws: ``/BinaryIO/ParseError`` with code `unsupported` for movies that cannot carry the edit (no video,
    ///   not HEVC, HEVC without `lhvC`, fragmented), `invalidValue` for out-of-range values, `io` for
    ///   unwritable destinations. The input is never modified when an error is thrown.
    package static func edit(
        path: String, output: String?, inPlace: Bool, edit: SpatialVideoEdit, faststart: Bool = false,
        progress: ((UInt64, UInt64) -> Void)? = nil
    ) throws(ParseError) -> SpatialEditResult {
        var warnings = try edit.validate()
        let file = try ISOFile.open(path: path)
        try file.requireIntact(operation: "edit")
        let moovIndex = try file.unfragmentedMovieIndex(
            path: path, fragmented: "editing the init segment would move every fragment")
        var moov = file.boxes[moovIndex]
        // An empty edit with `faststart` only moves moov (any movie, whatever its codec).
        var (changes, w2) = edit.isEmpty && faststart ? ([], []) : try apply(edit, to: &moov)
        warnings += w2
        if faststart, let firstMdat = file.boxes.firstIndex(where: { $0.type == "mdat" }), firstMdat < moovIndex {
            changes.append("moved moov before mdat (faststart)")
        }
        let target = inPlace ? path : (output ?? path)
        if changes.isEmpty && inPlace {
            return SpatialEditResult(
                strategy: .unchanged, outputPath: target, bytesWritten: 0, changes: [],
                warnings: warnings + ["nothing to change"],
                fallbackReason: nil, outputSize: file.source.size)
        }
        var fallback: String? = nil
        if inPlace {
            if faststart {
                fallback = "--faststart moves moov before mdat, which needs a rewrite"
            } else {
                switch try writeInPlace(file: file, path: path, moovIndex: moovIndex, newMoov: moov) {
                case .done(let strategy, let written, let size):
                    return SpatialEditResult(
                        strategy: strategy, outputPath: path, bytesWritten: written, changes: changes,
                        warnings: warnings,
                        fallbackReason: nil, outputSize: size)
                case .notPossible(let why):
                    fallback = why
                }
            }
        }
        let written = try rewrite(
            file: file, moovIndex: moovIndex, newMoov: moov, to: target, faststart: faststart, progress: progress)
        if let fallback {
            warnings.append("in-place edit not possible (\(fallback)); rewrote the file atomically instead")
        }
        return SpatialEditResult(
            strategy: .rewrite, outputPath: target, bytesWritten: written, changes: changes, warnings: warnings,
            fallbackReason: fallback, outputSize: written)
    }

    // MARK: Tree edit

    /// Applies `edit` to every video sample entry of `moov` that it concerns; returns the change lines and warnings.
    /// Throws `unsupported` when the movie cannot carry the values (no video, not HEVC, no `lhvC`).
    public static func apply(_ edit: SpatialVideoEdit, to moov: inout Box) throws(ParseError) -> (
        changes: [String], warnings: [String]
    ) {
        var changes: [String] = []
        var warnings: [String] = []
        guard var traks = moov.children else {
            throw ParseError(.unsupported, offset: moov.header.offset, path: "moov", "moov is empty")
        }
        // Find video sample entries.
        var videoEntries: [VideoEntryRef] = []
        for (ti, trak) in traks.enumerated() where trak.type == "trak" {
            let t = Track(trak)
            guard t.handler == "vide" else { continue }
            for (ei, e) in t.sampleEntries.enumerated() where e.payload(SampleEntry.self)?.kind == .visual {
                let hevc = e.type == "hvc1" || e.type == "hev1"
                videoEntries.append(
                    (ti, ei, e.type, hevc && e.child("hvcC") != nil && e.child("lhvC") != nil, hevc, t.trackID))
            }
        }
        guard !videoEntries.isEmpty else {
            throw ParseError(
                .unsupported, offset: moov.header.offset, path: "moov",
                "the movie has no video track; spatial metadata belongs in a video sample entry")
        }
        let targets = try entriesToEdit(edit, among: videoEntries, traks: traks, moov: moov, warnings: &warnings)
        for t in targets {
            guard var stbl = traks[t.trak].find("mdia", "minf", "stbl"), var stsd = stbl.child("stsd"),
                var entries = stsd.children,
                entries.indices.contains(t.entry)
            else { continue }
            var entry = entries[t.entry]
            let before = StereoMetadataReader.read(sampleEntry: entry, track: traks[t.trak])
            if edit.removeSpatial {
                let n = entry.removeChildren("vexu") + entry.removeChildren("hfov")
                if n > 0 { changes.append("track \(t.id): removed vexu and hfov") }
            } else if let conv = edit.spherical {
                try convertSpherical(
                    &entry, conv, metadata: before, isMVHEVC: t.mv, heroEye: edit.heroEye, trackID: t.id,
                    path: traks[t.trak].path,
                    changes: &changes, warnings: &warnings)
            } else {
                editEntry(&entry, edit, stereo: t.mv || edit.touchesEyes || before.viewFlags != nil)
            }
            if let h = entry.children?.firstIndex(where: { $0.type == "hvcC" }),
                let l = entry.children?.firstIndex(where: { $0.type == "lhvC" }), l < h,
                var kids = entry.children
            {
                let hv = kids.remove(at: h)
                kids.insert(hv, at: l)
                entry.children = kids
                changes.append("track \(t.id): moved hvcC before lhvC (FFmpeg ignores an lhvC that comes first)")
            }
            if !edit.removeSpatial {
                changes += describe(
                    before: before, after: StereoMetadataReader.read(sampleEntry: entry, track: traks[t.trak]),
                    track: t.id)
                if let w = heroWarning(edit.heroEye, baseLayerIsLeft: baseLayerIsLeft(sampleEntry: entry), track: t.id)
                {
                    warnings.append(w)
                }
            }
            entries[t.entry] = entry
            stsd.children = entries
            stbl.setChild(stsd)
            try replace(&traks[t.trak], path: ["mdia", "minf", "stbl"], with: stbl)
        }
        moov.children = traks
        return (changes, warnings)
    }

    /// A video sample entry of the movie: trak and entry index, type, MV-HEVC or not, HEVC or not, track ID.
    typealias VideoEntryRef = (trak: Int, entry: Int, type: FourCC, mv: Bool, hevc: Bool, id: UInt32)

    /// The sample entries `edit` concerns: all for a removal, the projected ones for a sphere conversion, the packed
    /// ones for frame-packed tagging, else the MV-HEVC ones; throws when none can carry the values.
    private static func entriesToEdit(
        _ edit: SpatialVideoEdit, among videoEntries: [VideoEntryRef], traks: [Box],
        moov: Box, warnings: inout [String]
    ) throws(ParseError) -> [VideoEntryRef] {
        let targets: [VideoEntryRef]
        let packedCodecs: Set<FourCC> = ["hvc1", "hev1", "avc1", "avc3", "av01"]
        func metadata(_ v: VideoEntryRef) -> StereoVideoMetadata {
            let entries = Track(traks[v.trak]).sampleEntries
            guard entries.indices.contains(v.entry) else { return StereoVideoMetadata() }
            return StereoMetadataReader.read(sampleEntry: entries[v.entry], track: traks[v.trak])
        }
        if edit.removeSpatial {
            targets = videoEntries
        } else if let conv = edit.spherical {
            let wanted = videoEntries.filter { v in
                let m = metadata(v)
                if case .toGoogle = conv { return m.projectionKind != nil && m.projectionKind != "rect" }
                return m.hasGoogleSphere
            }
            guard !wanted.isEmpty else {
                if case .toGoogle = conv {
                    throw ParseError(
                        .unsupported, offset: moov.header.offset, path: "moov",
                        "no video track carries an APMP projection (vexu/proj/prji 'equi' or 'hequ') to convert to Google spherical metadata"
                    )
                }
                throw ParseError(
                    .unsupported, offset: moov.header.offset, path: "moov",
                    "no video track carries Google spherical metadata (st3d/sv3d or the v1 uuid XML) to convert to APMP"
                )
            }
            targets = wanted
        } else if edit.framePackedOrProjected && !videoEntries.contains(where: { $0.mv })
            || SpatialVideoEdit.isSet(edit.viewPacking)
        {
            if SpatialVideoEdit.isSet(edit.viewPacking), let mv = videoEntries.first(where: { $0.mv }) {
                throw ParseError(
                    .unsupported, offset: moov.header.offset, path: traks[mv.trak].path,
                    "track \(mv.id) is MV-HEVC: each eye is its own layer, so there is no frame packing to describe (frame packing describes side-by-side or over-under pictures)"
                )
            }
            let ok = videoEntries.filter { packedCodecs.contains($0.type) }
            guard !ok.isEmpty else {
                let types = Set(videoEntries.map { $0.type.description }).sorted().joined(separator: ", ")
                throw ParseError(
                    .unsupported, offset: moov.header.offset, path: "moov",
                    "the video sample entry is '\(types)'; frame-packed and projected tagging covers HEVC ('hvc1'/'hev1'), H.264 ('avc1'/'avc3') and AV1 ('av01')"
                )
            }
            targets = ok
            for v in videoEntries where !packedCodecs.contains(v.type) {
                warnings.append("track \(v.id) ('\(v.type)') left unchanged: not HEVC, H.264 or AV1")
            }
        } else if !videoEntries.contains(where: { $0.mv }),
            case let packed = videoEntries.filter({ v in
                packedCodecs.contains(v.type)
                    && (metadata(v).framePacking != nil || metadata(v).isSpherical
                        || metadata(v).viewFlags.map { $0.hasLeftEye && $0.hasRightEye } == true)
            }),
            !packed.isEmpty
        {
            // Already frame-packed or projected: hfov, hero, baseline and disparity may be edited.
            targets = packed
        } else {
            let mv = videoEntries.filter { $0.mv }
            if mv.isEmpty {
                if let h = videoEntries.first(where: { $0.hevc }) {
                    throw ParseError(
                        .unsupported, offset: moov.header.offset, path: traks[h.trak].path,
                        "track \(h.id) is HEVC ('\(h.type)') without an lhvC box: it carries a single layer, so there is no second eye view for spatial metadata to describe (MV-HEVC needs hvcC + lhvC; a frame-packed picture needs its frame packing, side or over)",
                        remedy: .giveFramePacking)
                }
                let types = Set(videoEntries.map { $0.type.description }).sorted().joined(separator: ", ")
                throw ParseError(
                    .unsupported, offset: moov.header.offset, path: "moov",
                    "not an HEVC movie (video sample entry '\(types)'): spatial video metadata describes MV-HEVC ('hvc1'/'hev1' with hvcC + lhvC)"
                )
            }
            targets = mv
            for v in videoEntries where !v.mv {
                warnings.append("track \(v.id) ('\(v.type)') left unchanged: not MV-HEVC (hvcC + lhvC)")
            }
        }
        return targets
    }

    /// Which eye the base layer (layer 0) of an MV-HEVC sample entry carries, from the SEI 176 and VPS view ids in its
    /// `hvcC`: true left, false right, nil when not signalled. A file may carry the right eye in layer 0 (our
    /// `--hero right` conversions; Apple's media framework can write such files with no `hero` box).
    public static func baseLayerIsLeft(sampleEntry entry: Box) -> Bool? {
        guard let hvcC = entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record else { return nil }
        let lhvC = entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record
        return (try? HEVCStreamInfo(hvcC: hvcC, lhvC: lhvC, samples: []))?.baseLayerIsLeft
    }

    /// A warning when a hero edit names the eye the base layer does not carry (or removes the box): players that decode
    /// only the base layer show the base layer's eye in 2D whatever the box says.
    static func heroWarning(_ e: MetadataFieldEdit<HeroEye>, baseLayerIsLeft: Bool?, track: UInt32) -> String? {
        guard let baseLeft = baseLayerIsLeft else { return nil }
        let base = baseLeft ? "left" : "right"
        switch e {
        case .set(let h) where (h == .left && !baseLeft) || (h == .right && baseLeft):
            return
                "track \(track): the base layer (layer 0) carries the \(base) eye (SEI 176 / VPS view ids); players that decode only the base layer show the \(base) eye in 2D whatever the hero box says"
        case .remove, .set(.none):
            return "track \(track): without a hero eye, 2D presentation shows the base layer's eye, the \(base) eye"
        default:
            return nil
        }
    }

    /// Replaces the box at `path` below `box` (first matches) with `newBox`.
    static func replace(_ box: inout Box, path: [FourCC], with newBox: Box) throws(ParseError) {
        guard let first = path.first else { box = newBox; return }
        guard var kids = box.children, let i = kids.firstIndex(where: { $0.type == first }) else {
            throw ParseError(.invalidValue, offset: box.header.offset, path: box.path, "missing \(first)")
        }
        try replace(&kids[i], path: Array(path.dropFirst()), with: newBox)
        box.children = kids
    }

    static let eyesOrder: [FourCC] = ["stri", "hero", "cams", "cmfy"]
    /// Apple's writer order inside `vexu` (Specs/formats.md §1.1, §8): `must` first when present, then eyes, proj,
    /// pack.
    static let vexuOrder: [FourCC] = ["must", "eyes", "proj", "pack", "lnsc"]
    static let projectionKinds: Set<FourCC> = ["rect", "equi", "hequ", "fish", "prim"]

    /// Inserts `child` into `parent`, after the last existing child that precedes it in `order`.
    static func insert(_ child: Box, into parent: inout Box, order: [FourCC]) {
        var kids = parent.children ?? []
        let rank = order.firstIndex(of: child.type) ?? order.count
        var at = 0
        for (i, k) in kids.enumerated() {
            if let r = order.firstIndex(of: k.type), r < rank { at = i + 1 }
        }
        kids.insert(child, at: at)
        parent.children = kids
    }

    /// Sets (replacing, or inserting in canonical order) or removes a direct child.
    static func put(_ child: Box?, type: FourCC, in parent: inout Box, order: [FourCC]) {
        var kids = parent.children ?? []
        if let child {
            if let i = kids.firstIndex(where: { $0.type == type }) {
                kids[i] = child
                parent.children = kids
            } else {
                insert(child, into: &parent, order: order)
            }
        } else {
            kids.removeAll { $0.type == type }
            parent.children = kids
        }
    }

    static func prji(_ kind: FourCC) -> Box { Box(ProjectionInformationBox(projectionKind: kind), type: "prji") }

    /// Edits a container holding a single value box (`cams{blin}`, `cmfy{dadj}`), keeping other children.
    static func editNested(_ eyes: inout Box, container: FourCC, leaf: FourCC, value: (any BoxPayload)?) {
        var c = eyes.child(container) ?? Box(type: container, children: [])
        if let value {
            put(Box(value, type: leaf), type: leaf, in: &c, order: [leaf])
            put(c, type: container, in: &eyes, order: eyesOrder)
        } else {
            guard eyes.child(container) != nil else { return }
            put(nil, type: leaf, in: &c, order: [leaf])
            put((c.children ?? []).isEmpty ? nil : c, type: container, in: &eyes, order: eyesOrder)
        }
    }

    /// Edits one sample entry. `stereo`: the picture holds two eyes (MV-HEVC, a frame packing being set, or a
    /// `stri` already there), so `vexu/eyes/stri` is written; a mono APMP edit writes `vexu{proj}` only.
    static func editEntry(_ entry: inout Box, _ edit: SpatialVideoEdit, stereo: Bool = true) {
        // Removals alone never create a vexu.
        if entry.child("vexu") == nil && !edit.setsSomething {
            if edit.horizontalFieldOfViewMillidegrees == .remove { entry.removeChildren("hfov") }
            return
        }
        var vexu = entry.child("vexu") ?? Box(type: "vexu", children: [])
        var eyes = vexu.child("eyes") ?? Box(type: "eyes", children: [])
        if eyes.child("stri") == nil && (stereo || edit.touchesEyes) {
            put(
                Box(StereoViewInformationBox(left: true, right: true), type: "stri"), type: "stri", in: &eyes,
                order: eyesOrder)
        }
        switch edit.heroEye {
        case .keep: break
        case .set(let h):
            put(
                Box(HeroStereoEyeDescriptionBox(heroEye: h.rawValue), type: "hero"), type: "hero", in: &eyes,
                order: eyesOrder)
        case .remove: put(nil, type: "hero", in: &eyes, order: eyesOrder)
        }
        switch edit.baselineMicrometres {
        case .keep: break
        case .set(let v):
            editNested(&eyes, container: "cams", leaf: "blin", value: StereoCameraSystemBaselineBox(baseline: v))
        case .remove: editNested(&eyes, container: "cams", leaf: "blin", value: nil)
        }
        switch edit.disparityAdjustment {
        case .keep: break
        case .set(let v):
            editNested(
                &eyes, container: "cmfy", leaf: "dadj",
                value: StereoComfortDisparityAdjustmentBox(disparityAdjustment: v))
        case .remove: editNested(&eyes, container: "cmfy", leaf: "dadj", value: nil)
        }
        if !(eyes.children ?? []).isEmpty { put(eyes, type: "eyes", in: &vexu, order: vexuOrder) }
        switch edit.projectionKind {
        case .keep: break
        case .set(let k):
            var proj = vexu.child("proj") ?? Box(type: "proj", children: [])
            if proj.child("prji")?.payload(ProjectionInformationBox.self)?.projectionKind != k {
                // A kind box of another kind would contradict the new prji.
                proj.children = (proj.children ?? []).filter { !projectionKinds.contains($0.type) || $0.type == k }
            }
            put(prji(k), type: "prji", in: &proj, order: ["prji"])
            put(proj, type: "proj", in: &vexu, order: vexuOrder)
        case .remove: put(nil, type: "proj", in: &vexu, order: vexuOrder)
        }
        if SpatialVideoEdit.isSet(edit.viewPacking), edit.projectionKind == .keep, vexu.child("proj") == nil {
            // A frame-packed tag without a projection is rectilinear 3D video (Apple's minimal signalling,
            // Specs/formats.md §8).
            put(
                Box(type: "proj", children: [prji("rect")]), type: "proj", in: &vexu,
                order: vexuOrder)
        }
        switch edit.viewPacking {
        case .keep: break
        case .set(let k):
            var pack = vexu.child("pack") ?? Box(type: "pack", children: [])
            put(Box(ViewPackingInformationBox(packingKind: k), type: "pkin"), type: "pkin", in: &pack, order: ["pkin"])
            put(pack, type: "pack", in: &vexu, order: vexuOrder)
        case .remove: put(nil, type: "pack", in: &vexu, order: vexuOrder)
        }
        // vexu goes before an existing hfov, else at the end of the sample entry (Apple's order).
        if let i = entry.children?.firstIndex(where: { $0.type == "vexu" }), var kids = entry.children {
            kids[i] = vexu
            entry.children = kids
        } else {
            var kids = entry.children ?? []
            kids.insert(vexu, at: kids.firstIndex { $0.type == "hfov" } ?? kids.count)
            entry.children = kids
        }
        switch edit.horizontalFieldOfViewMillidegrees {
        case .keep: break
        case .set(let v):
            let box = Box(HorizontalFieldOfViewBox(fieldOfView: v), type: "hfov")
            var kids = entry.children ?? []
            if let i = kids.firstIndex(where: { $0.type == "hfov" }) {
                kids[i] = box
            } else {
                kids.insert(box, at: (kids.firstIndex { $0.type == "vexu" }).map { $0 + 1 } ?? kids.count)
            }
            entry.children = kids
        case .remove: entry.removeChildren("hfov")
        }
    }

    static func describe(before b: StereoVideoMetadata, after a: StereoVideoMetadata, track: UInt32) -> [String] {
        var out: [String] = []
        func line<T: Equatable>(_ name: String, _ x: T?, _ y: T?, _ f: (T) -> String) {
            guard x != y else { return }
            out.append("track \(track): \(name) \(x.map(f) ?? "absent") → \(y.map(f) ?? "absent")")
        }
        line("stri flags", b.viewFlags?.rawValue, a.viewFlags?.rawValue) { "0x" + String($0, radix: 16) }
        line("hero eye", b.heroEye, a.heroEye) { $0.description }
        line("baseline", b.baselineMicrometres, a.baselineMicrometres) { "\(SpatialFormat.millimetres($0)) mm" }
        line("horizontal field of view", b.horizontalFieldOfViewMillidegrees, a.horizontalFieldOfViewMillidegrees) {
            "\(SpatialFormat.degrees($0))°"
        }
        line("disparity adjustment", b.disparityAdjustment, a.disparityAdjustment) { "\(SpatialFormat.percent($0)) %" }
        line("projection box", b.projectionKind, a.projectionKind) { "'\($0)'" }
        line("view packing", b.viewPackingKind, a.viewPackingKind) { "'\($0)'" }
        line("st3d stereo mode", b.googleStereoMode, a.googleStereoMode) { "\($0) (\(SpatialFormat.st3dName($0)))" }
        line("sv3d projection", b.googleProjection, a.googleProjection) { "'\($0)'" }
        return out
    }

    /// Google spherical metadata ↔ APMP on one sample entry (see ``SphericalConversion``).
    static func convertSpherical(
        _ entry: inout Box, _ conv: SphericalConversion, metadata m: StereoVideoMetadata, isMVHEVC: Bool,
        heroEye: MetadataFieldEdit<HeroEye>, trackID: UInt32, path: String,
        changes: inout [String], warnings: inout [String]
    ) throws(ParseError) {
        switch conv {
        case .toAPMP(let assume):
            let signal: APMPSignal
            switch m.googleToAPMP(assumeProjection: assume) {
            case .success(let s): signal = s
            case .failure(let e):
                throw ParseError(
                    .unsupported, offset: entry.header.offset, path: path,
                    "track \(trackID): cannot convert to APMP without changing the picture: \(e.reason)",
                    remedy: e.remedy)
            }
            var e = SpatialVideoEdit()
            e.projectionKind = .set(signal.projection)
            if let p = signal.packing { e.viewPacking = .set(p) }
            e.heroEye = heroEye
            editEntry(&entry, e, stereo: signal.packing != nil || isMVHEVC)
            if m.presentBoxes.contains("sv3d"), m.googleProjection == "mshp" {
                // The caller stated the projection of a mesh; APMP has no field for a smaller coverage, so say what was
                // assumed.
                warnings.append(
                    "track \(trackID): the projection is a camera mesh (sv3d/proj/mshp) whose coverage was not checked: '\(signal.projection)' declares \(signal.projection == "hequ" ? "a 180°×180° half sphere" : "the whole 360°×180° sphere"), as you stated; a VR180 camera's picture that covers less (e.g. 137°×96°) is stretched over it by players"
                )
            }
            if m.hasHFOV {
                warnings.append(
                    "track \(trackID): an hfov box is present; it describes a rectilinear picture, not a sphere")
            }
        case .toGoogle:
            let signal: GoogleSphericalSignal
            switch m.apmpToGoogle(isMVHEVC: isMVHEVC) {
            case .success(let s): signal = s
            case .failure(let e):
                throw ParseError(
                    .unsupported, offset: entry.header.offset, path: path,
                    "track \(trackID): cannot convert to Google spherical metadata without changing the picture: \(e.reason)"
                )
            }
            if m.hasGoogleSphere {
                // Equivalent Google metadata already present (e.g. this file was converted from it): keep it as it is.
                guard
                    case .success(let back) = m.googleToAPMP(
                        assumeProjection: m.googleProjection == "mshp" ? m.projectionKind : nil),
                    back.projection == m.projectionKind, back.packing == m.viewPackingKind
                else {
                    throw ParseError(
                        .unsupported, offset: entry.header.offset, path: path,
                        "track \(trackID): the Google spherical metadata already present disagrees with the APMP boxes; remove one of them first"
                    )
                }
                changes.append("track \(trackID): Google spherical metadata already present and equivalent; kept")
            } else {
                var kids = entry.children ?? []
                let at =
                    kids.firstIndex { $0.type == "vexu" } ?? kids.firstIndex {
                        ["pasp", "clap", "btrt"].contains($0.type)
                    } ?? kids.count
                kids.insert(contentsOf: signal.boxes, at: at)
                entry.children = kids
            }
            let n = entry.removeChildren("vexu") + entry.removeChildren("hfov")
            if n > 0 { changes.append("track \(trackID): removed vexu" + (m.hasHFOV ? " and hfov" : "")) }
        }
    }
}
