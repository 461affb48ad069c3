#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BinaryIO
import ISOBMFF
import HEVC
import SystemSupport

/// One field of an edit: leave it, set it, or remove its box.
public enum MetadataFieldEdit<Value: Sendable & Equatable>: Sendable, Equatable {
    case keep
    case set(Value)
    case remove
}

/// A change to the spatial metadata of every MV-HEVC video track, in stored units.
/// Build values from human units with ``SpatialUnits``.
public struct SpatialVideoEdit: Sendable, Equatable {
    /// `vexu/eyes/cams/blin`, micrometres.
    public var baselineMicrometres: MetadataFieldEdit<UInt32> = .keep
    /// `hfov`, millidegrees; must lie in 1…179 999.
    public var horizontalFieldOfViewMillidegrees: MetadataFieldEdit<UInt32> = .keep
    /// `vexu/eyes/cmfy/dadj`, 1/10000 of the image width; |value| ≤ 10 000.
    public var disparityAdjustment: MetadataFieldEdit<Int32> = .keep
    /// `vexu/eyes/hero`. `.set(.none)` writes indicator 0; `.remove` drops the box (absent also means none).
    public var heroEye: MetadataFieldEdit<HeroEye> = .keep
    /// `vexu/proj/prji` projection kind: `rect` (spatial and 3D video), `hequ`/`equi` (APMP 180°/360°),
    /// `fish`/`prim` (wide FOV; the lens collection is not authored).
    public var projectionKind: MetadataFieldEdit<FourCC> = .keep
    /// `vexu/pack/pkin` view packing of a frame-packed track: `side` (left eye on the left) or `over` (left eye on top).
    /// Setting it also declares both eyes (`vexu/eyes/stri` 0x03) when `stri` is absent.
    public var viewPacking: MetadataFieldEdit<FourCC> = .keep
    /// Convert Google spherical metadata to APMP or back (see ``SphericalConversion``).
    public var spherical: SphericalConversion? = nil
    /// Remove `vexu` and `hfov` from every video sample entry (applied before nothing else; the other fields are ignored).
    public var removeSpatial = false

    public init() {}

    /// An edit that sets every non-nil field of `stereo` and keeps the others.
    public init(setting stereo: StereoParameters) {
        self.init()
        set(stereo)
    }

    /// An edit that turns `old` into `new`: fields that differ are set, fields that became nil are removed.
    public init(from old: StereoParameters, to new: StereoParameters) {
        func change<T: Sendable & Equatable>(_ a: T?, _ b: T?) -> MetadataFieldEdit<T> {
            if a == b { return .keep }
            return b.map { .set($0) } ?? .remove
        }
        self.init()
        baselineMicrometres = change(old.baselineMicrometres, new.baselineMicrometres)
        horizontalFieldOfViewMillidegrees = change(old.horizontalFieldOfViewMillidegrees, new.horizontalFieldOfViewMillidegrees)
        disparityAdjustment = change(old.disparityAdjustment, new.disparityAdjustment)
        heroEye = change(old.heroEye, new.heroEye)
        projectionKind = change(old.projectionKind, new.projectionKind)
    }

    /// Sets every non-nil field of `stereo`; the other fields of the edit are left as they are.
    public mutating func set(_ stereo: StereoParameters) {
        if let b = stereo.baselineMicrometres { baselineMicrometres = .set(b) }
        if let f = stereo.horizontalFieldOfViewMillidegrees { horizontalFieldOfViewMillidegrees = .set(f) }
        if let d = stereo.disparityAdjustment { disparityAdjustment = .set(d) }
        if let h = stereo.heroEye { heroEye = .set(h) }
        if let p = stereo.projectionKind { projectionKind = .set(p) }
    }

    /// True when the edit changes nothing.
    public var isEmpty: Bool {
        !removeSpatial && baselineMicrometres == .keep && horizontalFieldOfViewMillidegrees == .keep && disparityAdjustment == .keep
            && heroEye == .keep && projectionKind == .keep && viewPacking == .keep && spherical == nil
    }

    static func isSet<T>(_ e: MetadataFieldEdit<T>) -> Bool { if case .set = e { return true }; return false }

    /// True when the edit adds or replaces a value.
    var setsSomething: Bool {
        !removeSpatial && (Self.isSet(baselineMicrometres) || Self.isSet(horizontalFieldOfViewMillidegrees) || Self.isSet(disparityAdjustment)
            || Self.isSet(heroEye) || Self.isSet(projectionKind) || Self.isSet(viewPacking))
    }

    /// True when the edit writes something inside `vexu/eyes` (which then needs `stri`).
    var touchesEyes: Bool {
        Self.isSet(baselineMicrometres) || Self.isSet(disparityAdjustment) || Self.isSet(heroEye) || Self.isSet(viewPacking)
    }

    /// True when the edit describes a frame-packed or projected picture rather than MV-HEVC spatial metadata.
    var framePackedOrProjected: Bool {
        if spherical != nil || Self.isSet(viewPacking) { return true }
        if case .set(let k) = projectionKind, k != "rect" { return true }
        return false
    }

    /// Checks ranges; returns warnings (a baseline above 1 m, an HFOV above 90°) for values that are still written.
    public func validate() throws(ParseError) -> [String] {
        var warnings: [String] = []
        if case .set(let f) = horizontalFieldOfViewMillidegrees, f == 0 || f >= 180_000 {
            throw ParseError(.invalidValue, offset: 0, "horizontal field of view must be greater than 0° and less than 180° (got \(f) m°)")
        }
        if case .set(let f) = horizontalFieldOfViewMillidegrees, f > 90_000 {
            warnings.append("horizontal field of view \(SpatialFormat.degrees(f))° is above the 90° Apple recommends for spatial video; written anyway")
        }
        if case .set(let d) = disparityAdjustment, d < -10_000 || d > 10_000 {
            throw ParseError(.invalidValue, offset: 0, "disparity adjustment must be within ±10000 (±100 %) of the image width (got \(d))")
        }
        if case .set(let b) = baselineMicrometres, b > SpatialUnits.implausibleBaselineMicrometres {
            warnings.append("baseline \(SpatialFormat.millimetres(b)) mm is more than 1 m; written anyway")
        }
        if case .set(let p) = projectionKind, !["rect", "equi", "hequ", "fish", "prim"].contains(p) {
            throw ParseError(.invalidValue, offset: 0, "projection '\(p)' is not one Apple documents (rect, equi, hequ, fish, prim)")
        }
        if case .set(let k) = viewPacking, k != "side" && k != "over" {
            throw ParseError(.invalidValue, offset: 0, "view packing must be 'side' or 'over' (got '\(k)')")
        }
        if case .set(let p) = projectionKind, p == "equi" || p == "hequ", case .set(let f) = horizontalFieldOfViewMillidegrees {
            warnings.append("hfov \(SpatialFormat.degrees(f))° with projection '\(p)', which covers \(p == "hequ" ? "180" : "360")° by definition; hfov describes a rectilinear picture — written anyway")
        }
        if spherical != nil && (removeSpatial || Self.isSet(baselineMicrometres) || Self.isSet(horizontalFieldOfViewMillidegrees)
                                || Self.isSet(disparityAdjustment) || projectionKind != .keep || viewPacking != .keep) {
            throw ParseError(.invalidValue, offset: 0, "a spherical conversion takes its values from the file; it combines only with a hero eye")
        }
        return warnings
    }
}

/// Conversion between Google spherical metadata (`st3d`/`sv3d`, v1 `uuid` XML) and the Apple Projected Media
/// Profile (`vexu{eyes{stri}, proj{prji}, pack{pkin}}`), sample data untouched.
public enum SphericalConversion: Sendable, Equatable {
    /// Writes APMP boxes that say exactly what the Google metadata says, keeping the Google boxes (players that
    /// read only them keep working). `assume` states the projection of a mesh (`hequ`/`equi`), which cannot be
    /// checked without decoding the mesh.
    case toAPMP(assume: FourCC?)
    /// Writes `st3d`/`sv3d` that say exactly what the APMP boxes say (unless equivalent Google metadata is
    /// already there) and removes `vexu` and `hfov`.
    case toGoogle
}

/// How an edit was written.
public enum SpatialEditStrategy: String, Sendable {
    /// `moov` was the last box: the new `moov` was appended and the old one turned into `free`.
    case inPlaceMoovAtEnd = "in-place (moov at end)"
    /// A `free` box after `moov` held the new `moov`; the old one was turned into `free`.
    case inPlaceFreeSpace = "in-place (free space after moov)"
    /// The new `moov` has the size of the old one and differs from it within one 512-byte sector: that
    /// sector's changed bytes were rewritten (one atomic write); the file did not grow.
    case inPlaceOverwrite = "in-place (moov updated within one sector)"
    /// A `free` box right before `moov` held the new `moov`; the rest of it and the old `moov` became one
    /// `free` box. The file did not grow.
    case inPlaceFreeBefore = "in-place (free space before moov)"
    /// A new file was written (temporary file + rename) with `mdat` streamed and chunk offsets patched.
    case rewrite = "rewrite"
    /// Nothing needed changing; nothing was written.
    case unchanged = "unchanged"
}

/// What an edit did.
public struct SpatialEditResult: Sendable {
    public var strategy: SpatialEditStrategy
    public var outputPath: String
    /// Bytes written to disk (file data, not counting metadata of the file system).
    public var bytesWritten: UInt64
    /// One line per changed field, e.g. `track 1: baseline 19.240 mm → 42.000 mm`.
    public var changes: [String]
    public var warnings: [String]
    /// Why in place was asked for but a rewrite was done.
    public var fallbackReason: String?
    /// Size of the output file.
    public var outputSize: UInt64

    /// Machine-readable form.
    public var json: JSON {
        var o: [(String, JSON)] = [("output", .string(outputPath)), ("strategy", .string(strategy.rawValue)), ("bytes_written", .uint(bytesWritten)),
                                   ("output_size", .uint(outputSize)), ("changes", .array(changes.map { .string($0) })),
                                   ("warnings", .array(warnings.map { .string($0) }))]
        if let f = fallbackReason { o.append(("fallback_reason", .string(f))) }
        return .object(o)
    }
}

/// Writes, replaces and removes spatial-video metadata without touching sample data.
public enum SpatialVideoEditor {
    /// Applies `edit` to the movie at `path`.
    ///
    /// - Parameters:
    ///   - output: where to write; nil (or the input path with `inPlace`) edits the input in place.
    ///   - inPlace: edit the input file itself, in place when its layout allows (see ``SpatialEditStrategy``),
    ///     otherwise by an atomic rewrite of the same path (the result says why).
    ///   - faststart: put `moov` before `mdat` (forces a rewrite).
    /// - Throws: ``ParseError`` with code `unsupported` for movies that cannot carry the edit (no video,
    ///   not HEVC, HEVC without `lhvC`, fragmented), `invalidValue` for out-of-range values, `io` for
    ///   unwritable destinations. The input is never modified when an error is thrown.
    ///   - progress: called with (bytes written, total) while a rewrite copies the file.
    public static func edit(path: String, output: String?, inPlace: Bool, edit: SpatialVideoEdit, faststart: Bool = false,
                            progress: ((UInt64, UInt64) -> Void)? = nil) throws(ParseError) -> SpatialEditResult {
        var warnings = try edit.validate()
        let file = try ISOFile.open(path: path)
        guard let moovIndex = file.boxes.firstIndex(where: { $0.type == "moov" }) else {
            throw ParseError(.unsupported, offset: 0, path: path, "not a movie: no moov box")
        }
        if file.isFragmented {
            throw ParseError(.unsupported, offset: file.boxes[moovIndex].header.offset, path: "moov",
                             "fragmented movies (moof/mvex) are not supported: editing the init segment would move every fragment")
        }
        var moov = file.boxes[moovIndex]
        let (changes, w2) = try apply(edit, to: &moov)
        warnings += w2
        let target = inPlace ? path : (output ?? path)
        if changes.isEmpty && inPlace {
            return SpatialEditResult(strategy: .unchanged, outputPath: target, bytesWritten: 0, changes: [], warnings: warnings + ["nothing to change"],
                                     fallbackReason: nil, outputSize: file.source.size)
        }
        var fallback: String? = nil
        if inPlace {
            if faststart {
                fallback = "--faststart moves moov before mdat, which needs a rewrite"
            } else {
                switch try writeInPlace(file: file, path: path, moovIndex: moovIndex, newMoov: moov) {
                case .done(let strategy, let written, let size):
                    return SpatialEditResult(strategy: strategy, outputPath: path, bytesWritten: written, changes: changes, warnings: warnings,
                                             fallbackReason: nil, outputSize: size)
                case .notPossible(let why):
                    fallback = why
                }
            }
        }
        let written = try rewrite(file: file, moovIndex: moovIndex, newMoov: moov, to: target, faststart: faststart, progress: progress)
        if let fallback { warnings.append("in-place edit not possible (\(fallback)); rewrote the file atomically instead") }
        return SpatialEditResult(strategy: .rewrite, outputPath: target, bytesWritten: written, changes: changes, warnings: warnings,
                                 fallbackReason: fallback, outputSize: written)
    }

    // MARK: Tree edit

    /// Applies `edit` to every video sample entry of `moov` that it concerns; returns the change lines and warnings.
    /// Throws `unsupported` when the movie cannot carry the values (no video, not HEVC, no `lhvC`).
    public static func apply(_ edit: SpatialVideoEdit, to moov: inout Box) throws(ParseError) -> (changes: [String], warnings: [String]) {
        var changes: [String] = []
        var warnings: [String] = []
        guard var traks = moov.children else { throw ParseError(.unsupported, offset: moov.header.offset, path: "moov", "moov is empty") }
        // Find video sample entries.
        var videoEntries: [(trak: Int, entry: Int, type: FourCC, mv: Bool, hevc: Bool, id: UInt32)] = []
        for (ti, trak) in traks.enumerated() where trak.type == "trak" {
            let t = Track(trak)
            guard t.handler == "vide" else { continue }
            for (ei, e) in t.sampleEntries.enumerated() where e.payload(SampleEntry.self)?.kind == .visual {
                let hevc = e.type == "hvc1" || e.type == "hev1"
                videoEntries.append((ti, ei, e.type, hevc && e.child("hvcC") != nil && e.child("lhvC") != nil, hevc, t.trackID))
            }
        }
        guard !videoEntries.isEmpty else {
            throw ParseError(.unsupported, offset: moov.header.offset, path: "moov", "the movie has no video track; spatial metadata belongs in a video sample entry")
        }
        let targets: [(trak: Int, entry: Int, type: FourCC, mv: Bool, hevc: Bool, id: UInt32)]
        let packedCodecs: Set<FourCC> = ["hvc1", "hev1", "avc1", "avc3", "av01"]
        func metadata(_ v: (trak: Int, entry: Int, type: FourCC, mv: Bool, hevc: Bool, id: UInt32)) -> StereoVideoMetadata {
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
                    throw ParseError(.unsupported, offset: moov.header.offset, path: "moov", "no video track carries an APMP projection (vexu/proj/prji 'equi' or 'hequ') to convert to Google spherical metadata")
                }
                throw ParseError(.unsupported, offset: moov.header.offset, path: "moov", "no video track carries Google spherical metadata (st3d/sv3d or the v1 uuid XML) to convert to APMP")
            }
            targets = wanted
        } else if edit.framePackedOrProjected && !videoEntries.contains(where: { $0.mv }) || SpatialVideoEdit.isSet(edit.viewPacking) {
            if SpatialVideoEdit.isSet(edit.viewPacking), let mv = videoEntries.first(where: { $0.mv }) {
                throw ParseError(.unsupported, offset: moov.header.offset, path: traks[mv.trak].path,
                    "track \(mv.id) is MV-HEVC: each eye is its own layer, so there is no frame packing to describe (--packing is for side-by-side or over-under pictures)")
            }
            let ok = videoEntries.filter { packedCodecs.contains($0.type) }
            guard !ok.isEmpty else {
                let types = Set(videoEntries.map { $0.type.description }).sorted().joined(separator: ", ")
                throw ParseError(.unsupported, offset: moov.header.offset, path: "moov",
                                 "the video sample entry is '\(types)'; frame-packed and projected tagging covers HEVC ('hvc1'/'hev1'), H.264 ('avc1'/'avc3') and AV1 ('av01')")
            }
            targets = ok
            for v in videoEntries where !packedCodecs.contains(v.type) { warnings.append("track \(v.id) ('\(v.type)') left unchanged: not HEVC, H.264 or AV1") }
        } else if !videoEntries.contains(where: { $0.mv }),
                  case let packed = videoEntries.filter({ v in packedCodecs.contains(v.type) && (metadata(v).framePacking != nil || metadata(v).isSpherical || metadata(v).viewFlags.map { $0.hasLeftEye && $0.hasRightEye } == true) }),
                  !packed.isEmpty {
            // Already frame-packed or projected: hfov, hero, baseline and disparity may be edited.
            targets = packed
        } else {
            let mv = videoEntries.filter { $0.mv }
            if mv.isEmpty {
                if let h = videoEntries.first(where: { $0.hevc }) {
                    throw ParseError(.unsupported, offset: moov.header.offset, path: traks[h.trak].path,
                        "track \(h.id) is HEVC ('\(h.type)') without an lhvC box: it carries a single layer, so there is no second eye view for spatial metadata to describe (MV-HEVC needs hvcC + lhvC; for a frame-packed picture give --packing side|over)")
                }
                let types = Set(videoEntries.map { $0.type.description }).sorted().joined(separator: ", ")
                throw ParseError(.unsupported, offset: moov.header.offset, path: "moov",
                                 "not an HEVC movie (video sample entry '\(types)'): spatial video metadata describes MV-HEVC ('hvc1'/'hev1' with hvcC + lhvC)")
            }
            targets = mv
            for v in videoEntries where !v.mv {
                warnings.append("track \(v.id) ('\(v.type)') left unchanged: not MV-HEVC (hvcC + lhvC)")
            }
        }
        for t in targets {
            guard var stbl = traks[t.trak].find("mdia", "minf", "stbl"), var stsd = stbl.child("stsd"), var entries = stsd.children,
                  entries.indices.contains(t.entry) else { continue }
            var entry = entries[t.entry]
            let before = StereoMetadataReader.read(sampleEntry: entry, track: traks[t.trak])
            if edit.removeSpatial {
                let n = entry.removeChildren("vexu") + entry.removeChildren("hfov")
                if n > 0 { changes.append("track \(t.id): removed vexu and hfov") }
            } else if let conv = edit.spherical {
                try convertSpherical(&entry, conv, metadata: before, isMVHEVC: t.mv, heroEye: edit.heroEye, trackID: t.id, path: traks[t.trak].path,
                                     changes: &changes, warnings: &warnings)
            } else {
                editEntry(&entry, edit, stereo: t.mv || edit.touchesEyes || before.viewFlags != nil)
            }
            if let h = entry.children?.firstIndex(where: { $0.type == "hvcC" }), let l = entry.children?.firstIndex(where: { $0.type == "lhvC" }), l < h,
               var kids = entry.children {
                let hv = kids.remove(at: h)
                kids.insert(hv, at: l)
                entry.children = kids
                changes.append("track \(t.id): moved hvcC before lhvC (FFmpeg ignores an lhvC that comes first)")
            }
            if !edit.removeSpatial {
                changes += describe(before: before, after: StereoMetadataReader.read(sampleEntry: entry, track: traks[t.trak]), track: t.id)
                if let w = heroWarning(edit.heroEye, baseLayerIsLeft: baseLayerIsLeft(sampleEntry: entry), track: t.id) { warnings.append(w) }
            }
            entries[t.entry] = entry
            stsd.children = entries
            stbl.setChild(stsd)
            try replace(&traks[t.trak], path: ["mdia", "minf", "stbl"], with: stbl)
        }
        moov.children = traks
        return (changes, warnings)
    }

    /// Which eye the base layer (layer 0) of an MV-HEVC sample entry carries, from the SEI 176 and VPS view ids in its
    /// `hvcC`: true left, false right, nil when not signalled. A file may carry the right eye in layer 0 (our
    /// `--hero right` conversions; Apple's media framework can write such files with no `hero` box).
    public static func baseLayerIsLeft(sampleEntry entry: Box) -> Bool? {
        guard let hvcC = entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record else { return nil }
        let lhvC = entry.child("lhvC")?.payload(HEVCConfigurationBox.self)?.record
        return (try? HEVCStreamInfo(hvcC: hvcC, lhvC: lhvC, samples: []))?.baseLayerIsLeft
    }

    /// A warning when a hero edit names the eye the base layer does not carry (or removes the box): players that decode
    /// only the base layer show the base layer's eye in 2D whatever the box says.
    static func heroWarning(_ e: MetadataFieldEdit<HeroEye>, baseLayerIsLeft: Bool?, track: UInt32) -> String? {
        guard let baseLeft = baseLayerIsLeft else { return nil }
        let base = baseLeft ? "left" : "right"
        switch e {
        case .set(let h) where (h == .left && !baseLeft) || (h == .right && baseLeft):
            return "track \(track): the base layer (layer 0) carries the \(base) eye (SEI 176 / VPS view ids); players that decode only the base layer show the \(base) eye in 2D whatever the hero box says"
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
    /// Apple's writer order inside `vexu` (formats.md §1.1, §8): `must` first when present, then eyes, proj, pack.
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

    static func fullBoxValue(_ type: FourCC, _ value: UInt32) -> Box { Box(SingleValueFullBox(kind: type, value: value), type: type) }

    /// Edits a container holding a single value box (`cams{blin}`, `cmfy{dadj}`), keeping other children.
    static func editNested(_ eyes: inout Box, container: FourCC, leaf: FourCC, value: UInt32?) {
        var c = eyes.child(container) ?? Box(type: container, children: [])
        if let value {
            put(fullBoxValue(leaf, value), type: leaf, in: &c, order: [leaf])
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
            put(Box(StereoViewInformationBox(left: true, right: true), type: "stri"), type: "stri", in: &eyes, order: eyesOrder)
        }
        switch edit.heroEye {
        case .keep: break
        case .set(let h): put(fullBoxValue("hero", UInt32(h.rawValue)), type: "hero", in: &eyes, order: eyesOrder)
        case .remove: put(nil, type: "hero", in: &eyes, order: eyesOrder)
        }
        switch edit.baselineMicrometres {
        case .keep: break
        case .set(let v): editNested(&eyes, container: "cams", leaf: "blin", value: v)
        case .remove: editNested(&eyes, container: "cams", leaf: "blin", value: nil)
        }
        switch edit.disparityAdjustment {
        case .keep: break
        case .set(let v): editNested(&eyes, container: "cmfy", leaf: "dadj", value: UInt32(bitPattern: v))
        case .remove: editNested(&eyes, container: "cmfy", leaf: "dadj", value: nil)
        }
        if !(eyes.children ?? []).isEmpty { put(eyes, type: "eyes", in: &vexu, order: vexuOrder) }
        switch edit.projectionKind {
        case .keep: break
        case .set(let k):
            var proj = vexu.child("proj") ?? Box(type: "proj", children: [])
            if proj.child("prji")?.payload(SingleValueFullBox.self)?.fourCC != k {
                // A kind box of another kind would contradict the new prji.
                proj.children = (proj.children ?? []).filter { !projectionKinds.contains($0.type) || $0.type == k }
            }
            put(fullBoxValue("prji", k.rawValue), type: "prji", in: &proj, order: ["prji"])
            put(proj, type: "proj", in: &vexu, order: vexuOrder)
        case .remove: put(nil, type: "proj", in: &vexu, order: vexuOrder)
        }
        if SpatialVideoEdit.isSet(edit.viewPacking), edit.projectionKind == .keep, vexu.child("proj") == nil {
            // A frame-packed tag without a projection is rectilinear 3D video (Apple's minimal signalling, formats.md §8).
            put(Box(type: "proj", children: [fullBoxValue("prji", FourCC("rect").rawValue)]), type: "proj", in: &vexu, order: vexuOrder)
        }
        switch edit.viewPacking {
        case .keep: break
        case .set(let k):
            var pack = vexu.child("pack") ?? Box(type: "pack", children: [])
            put(fullBoxValue("pkin", k.rawValue), type: "pkin", in: &pack, order: ["pkin"])
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
            let box = Box(U32FieldsBox(values: [v]), type: "hfov")
            var kids = entry.children ?? []
            if let i = kids.firstIndex(where: { $0.type == "hfov" }) { kids[i] = box }
            else { kids.insert(box, at: (kids.firstIndex { $0.type == "vexu" }).map { $0 + 1 } ?? kids.count) }
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
        line("horizontal field of view", b.horizontalFieldOfViewMillidegrees, a.horizontalFieldOfViewMillidegrees) { "\(SpatialFormat.degrees($0))°" }
        line("disparity adjustment", b.disparityAdjustment, a.disparityAdjustment) { "\(SpatialFormat.percent($0)) %" }
        line("projection box", b.projectionKind, a.projectionKind) { "'\($0)'" }
        line("view packing", b.viewPackingKind, a.viewPackingKind) { "'\($0)'" }
        line("st3d stereo mode", b.googleStereoMode, a.googleStereoMode) { "\($0) (\(SpatialFormat.st3dName($0)))" }
        line("sv3d projection", b.googleProjection, a.googleProjection) { "'\($0)'" }
        return out
    }

    /// Google spherical metadata ↔ APMP on one sample entry (see ``SphericalConversion``).
    static func convertSpherical(_ entry: inout Box, _ conv: SphericalConversion, metadata m: StereoVideoMetadata, isMVHEVC: Bool,
                                 heroEye: MetadataFieldEdit<HeroEye>, trackID: UInt32, path: String,
                                 changes: inout [String], warnings: inout [String]) throws(ParseError) {
        switch conv {
        case .toAPMP(let assume):
            let signal: APMPSignal
            switch m.googleToAPMP(assumeProjection: assume) {
            case .success(let s): signal = s
            case .failure(let e): throw ParseError(.unsupported, offset: entry.header.offset, path: path, "track \(trackID): cannot convert to APMP without changing the picture: \(e.reason)")
            }
            var e = SpatialVideoEdit()
            e.projectionKind = .set(signal.projection)
            if let p = signal.packing { e.viewPacking = .set(p) }
            e.heroEye = heroEye
            editEntry(&entry, e, stereo: signal.packing != nil || isMVHEVC)
            if m.hasHFOV { warnings.append("track \(trackID): an hfov box is present; it describes a rectilinear picture, not a sphere") }
        case .toGoogle:
            let signal: GoogleSphericalSignal
            switch m.apmpToGoogle(isMVHEVC: isMVHEVC) {
            case .success(let s): signal = s
            case .failure(let e): throw ParseError(.unsupported, offset: entry.header.offset, path: path, "track \(trackID): cannot convert to Google spherical metadata without changing the picture: \(e.reason)")
            }
            if m.hasGoogleSphere {
                // Equivalent Google metadata already present (e.g. this file was converted from it): keep it as it is.
                guard case .success(let back) = m.googleToAPMP(assumeProjection: m.googleProjection == "mshp" ? m.projectionKind : nil),
                      back.projection == m.projectionKind, back.packing == m.viewPackingKind else {
                    throw ParseError(.unsupported, offset: entry.header.offset, path: path,
                                     "track \(trackID): the Google spherical metadata already present disagrees with the APMP boxes; remove one of them first")
                }
                changes.append("track \(trackID): Google spherical metadata already present and equivalent; kept")
            } else {
                var kids = entry.children ?? []
                let at = kids.firstIndex { $0.type == "vexu" } ?? kids.firstIndex { ["pasp", "clap", "btrt"].contains($0.type) } ?? kids.count
                let st3d = Box(SingleValueFullBox(kind: "st3d", value: UInt32(signal.stereoMode)), type: "st3d")
                let proj = Box(type: "proj", children: [Box(FullBoxU32Fields(values: [0, 0, 0]), type: "prhd"),
                                                        Box(FullBoxU32Fields(values: signal.bounds), type: "equi")])
                let sv3d = Box(type: "sv3d", children: [Box(SphericalVideoHeaderBox(source: "spatial-media"), type: "svhd"), proj])
                kids.insert(contentsOf: [st3d, sv3d], at: at)
                entry.children = kids
            }
            let n = entry.removeChildren("vexu") + entry.removeChildren("hfov")
            if n > 0 { changes.append("track \(trackID): removed vexu" + (m.hasHFOV ? " and hfov" : "")) }
        }
    }

    // MARK: Rewrite

    /// Writes the whole movie to `path` (temporary file + rename) with `newMoov`, streaming every
    /// other box from the source and patching every chunk offset by how far its box moved.
    /// Returns the bytes written.
    static func rewrite(file: ISOFile, moovIndex: Int, newMoov: Box, to path: String, faststart: Bool,
                        progress: ((UInt64, UInt64) -> Void)? = nil) throws(ParseError) -> UInt64 {
        var order = Array(file.boxes.indices)
        if faststart, let firstMdat = file.boxes.firstIndex(where: { $0.type == "mdat" }), firstMdat < moovIndex {
            order.remove(at: moovIndex)
            order.insert(moovIndex, at: firstMdat)
        }
        if let s = firstSaio(newMoov) {
            throw ParseError(.unsupported, offset: s.header.offset, path: s.path, "saio (sample auxiliary information offsets) present: rewriting would need its absolute offsets patched, which is not supported")
        }
        let original = newMoov
        var moov = newMoov
        var forceCo64 = Set<String>()
        for _ in 0..<4 {
            // New offset of every original top-level box.
            var newOffsets = [UInt64](repeating: 0, count: file.boxes.count)
            var pos: UInt64 = 0
            for i in order {
                newOffsets[i] = pos
                pos = try Checked.add(pos, i == moovIndex ? moov.encodedSize() : file.boxes[i].encodedSize())
            }
            let mapper = OffsetMapper(boxes: file.boxes, newOffsets: newOffsets)
            var promoted = Set<String>()
            moov = original
            try patchOffsets(&moov, mapper: mapper, forceCo64: forceCo64, promoted: &promoted)
            if promoted.isSubset(of: forceCo64) {
                var boxes: [Box] = []
                for i in order {
                    if i == moovIndex { boxes.append(moov); continue }
                    var b = file.boxes[i]
                    if b.type == "meta" { try patchOffsets(&b, mapper: mapper, forceCo64: [], promoted: &promoted) }
                    boxes.append(b)
                }
                let out = ISOFile(boxes: boxes, tail: file.tail, diagnostics: [], source: file.source)
                try out.write(to: path, progress: progress)
                var total: UInt64 = 0
                for s in out.segments() {
                    switch s {
                    case .bytes(let b): total += UInt64(b.count)
                    case .range(_, let l): total += l
                    }
                }
                return total
            }
            forceCo64.formUnion(promoted)
        }
        throw ParseError(.unwritable, offset: 0, path: path, "chunk offset layout did not converge")
    }

    static func firstSaio(_ b: Box) -> Box? {
        if b.type == "saio" { return b }
        for c in b.children ?? [] { if let s = firstSaio(c) { return s } }
        return nil
    }

    /// Maps an old absolute file offset to its new one by the move of the top-level box containing it.
    struct OffsetMapper {
        var ranges: [(start: UInt64, end: UInt64, newStart: UInt64)]
        init(boxes: [Box], newOffsets: [UInt64]) {
            ranges = boxes.indices.map { (boxes[$0].header.offset, boxes[$0].header.offset &+ boxes[$0].header.size, newOffsets[$0]) }
        }
        func map(_ o: UInt64) throws(ParseError) -> UInt64 {
            for r in ranges where o >= r.start && o < r.end {
                return try Checked.add(r.newStart, o - r.start, offset: o)
            }
            // An offset outside every box (e.g. exactly at the end of the file for an empty chunk) is left as it is.
            return o
        }
    }

    /// Patches `stco`/`co64` in every track below `box` and `iloc` extents (construction method 0);
    /// promotes an `stco` to `co64` when an offset no longer fits 32 bits (or when its path is in `forceCo64`).
    static func patchOffsets(_ box: inout Box, mapper: OffsetMapper, forceCo64: Set<String>, promoted: inout Set<String>) throws(ParseError) {
        guard var kids = box.children else { return }
        for i in kids.indices {
            let k = kids[i]
            if k.type == "stco", let t = k.payload(U32TableBox.self) {
                var values: [UInt64] = []
                values.reserveCapacity(t.values.count)
                for v in t.values { values.append(try mapper.map(UInt64(v))) }
                if forceCo64.contains(k.path) || values.contains(where: { $0 > UInt64(UInt32.max) }) {
                    promoted.insert(k.path)
                    var nb = Box(ChunkLargeOffsetBox(offsets: values), type: "co64")
                    nb.path = k.path
                    kids[i] = nb
                } else {
                    var p = t
                    p.values = values.map { UInt32(truncatingIfNeeded: $0) }
                    kids[i].fields = .typed(p)
                }
            } else if k.type == "co64", var t = k.payload(ChunkLargeOffsetBox.self) {
                for j in t.offsets.indices { t.offsets[j] = try mapper.map(t.offsets[j]) }
                kids[i].fields = .typed(t)
            } else if k.type == "iloc", var t = k.payload(ItemLocationBox.self) {
                for j in t.items.indices where t.items[j].constructionMethod == 0 && t.items[j].dataReferenceIndex == 0 {
                    var item = t.items[j]
                    guard let first = item.extents.first else { continue }
                    let old = try Checked.add(item.baseOffset, first.offset)
                    let new = try mapper.map(old)
                    if item.baseOffset != 0 || t.baseOffsetSize > 0 {
                        item.baseOffset = try Checked.add(try Checked.sub(new, old), item.baseOffset)
                        if t.baseOffsetSize == 4 && item.baseOffset > UInt64(UInt32.max) { throw ParseError(.unwritable, offset: k.header.offset, path: k.path, "iloc base offset no longer fits 32 bits") }
                    } else {
                        for e in item.extents.indices {
                            item.extents[e].offset = try mapper.map(item.extents[e].offset)
                            if t.offsetSize == 4 && item.extents[e].offset > UInt64(UInt32.max) { throw ParseError(.unwritable, offset: k.header.offset, path: k.path, "iloc extent offset no longer fits 32 bits") }
                        }
                    }
                    t.items[j] = item
                }
                kids[i].fields = .typed(t)
            } else if k.children != nil {
                try patchOffsets(&kids[i], mapper: mapper, forceCo64: forceCo64, promoted: &promoted)
            }
        }
        box.children = kids
    }

    // MARK: In place

    enum InPlaceOutcome {
        case done(SpatialEditStrategy, written: UInt64, size: UInt64)
        case notPossible(String)
    }

    /// Edits `path` in place when its layout allows it without ever leaving a torn file.
    ///
    /// The new `moov` is first written where no reader looks (appended after the last box inside a
    /// `free` box, or into the payload of the `free` box that follows `moov`) and flushed. Then one
    /// 8-byte write turns the old `moov` header into a `free` header whose size also swallows the
    /// 8-byte header in front of the new `moov`, and that is flushed. Before that write the file is
    /// the old movie (plus ignorable `free` bytes); after it, the new movie. The 8 bytes lie in one
    /// 512-byte sector (checked; otherwise we fall back to a rewrite), which storage writes atomically.
    static func writeInPlace(file: ISOFile, path: String, moovIndex: Int, newMoov: Box) throws(ParseError) -> InPlaceOutcome {
        let old = file.boxes[moovIndex]
        guard old.header.form == .compact, old.header.userType == nil else { return .notPossible("moov has a 64-bit header") }
        if case .none = file.tail {} else { return .notPossible("bytes after the last box") }
        let newBytes = try newMoov.serialized(source: file.source)
        let fileSize = file.source.size
        // Same size, changes within one sector (a value edited again): rewrite those bytes, nothing else.
        if UInt64(newBytes.count) == old.header.size {
            let oldBytes = try file.source.read(at: old.header.offset, count: newBytes.count)
            if oldBytes == newBytes { return .done(.inPlaceOverwrite, written: 0, size: fileSize) }
            let changed = oldBytes.indices.filter { oldBytes[$0] != newBytes[$0] }
            if let lo = changed.first, let hi = changed.last,
               (old.header.offset + UInt64(lo)) / 512 == (old.header.offset + UInt64(hi)) / 512 {
                let f = try WritableFile(path: path)
                defer { f.close() }
                try f.write(Array(newBytes[lo...hi]), at: old.header.offset + UInt64(lo))
                try f.sync()
                return .done(.inPlaceOverwrite, written: UInt64(hi - lo + 1), size: fileSize)
            }
        }

        // A free box right before moov that holds the new moov: the new moov's body, then a free header covering
        // the rest of that box and the old moov, go into its payload (which readers skip); then one 8-byte write
        // turns the free header into the new moov's header. Before it the old movie, after it the new one.
        let compactHeader = newBytes.count >= 8 && newBytes[4..<8].elementsEqual(Array("moov".utf8))
            && newBytes.prefix(4).reduce(UInt64(0), { $0 << 8 | UInt64($1) }) == UInt64(newBytes.count)
        if moovIndex > 0, compactHeader {
            let prev = file.boxes[moovIndex - 1]
            let need = UInt64(newBytes.count) + 8
            if prev.type == "free" || prev.type == "skip", prev.header.form == .compact, prev.header.userType == nil,
               prev.header.offset + prev.header.size == old.header.offset, prev.header.offset % 512 <= 504,
               prev.header.size >= need, let tail = UInt32(exactly: prev.header.size - UInt64(newBytes.count) + old.header.size) {
                var body = ByteWriter(capacity: newBytes.count)
                body.write(Array(newBytes[8...]))
                body.writeU32(tail)
                body.writeFourCC("free")
                let f = try WritableFile(path: path)
                defer { f.close() }
                try f.write(body.bytes, at: prev.header.offset + 8)
                try f.sync()
                try f.write(Array(newBytes[0..<8]), at: prev.header.offset)
                try f.sync()
                return .done(.inPlaceFreeBefore, written: UInt64(body.count + 8), size: fileSize)
            }
        }

        // The retired region starts at the old moov, or at a free box right before it (so repeated
        // edits grow one free box instead of leaving a chain of them).
        var pivotOffset = old.header.offset
        var retired = old.header.size
        if moovIndex > 0 {
            let prev = file.boxes[moovIndex - 1]
            if prev.type == "free" || prev.type == "skip", prev.header.form == .compact, prev.header.userType == nil,
               prev.header.offset + prev.header.size == old.header.offset, prev.header.offset % 512 <= 504 {
                pivotOffset = prev.header.offset
                retired += prev.header.size
            }
        }
        guard pivotOffset % 512 <= 504 else { return .notPossible("the moov header straddles a 512-byte sector, so its rewrite would not be atomic") }
        guard let pivotSize = UInt32(exactly: retired + 8) else { return .notPossible("moov is too large") }
        var pivot = ByteWriter()
        pivot.writeU32(pivotSize)
        pivot.writeFourCC("free")


        if moovIndex == file.boxes.count - 1 {
            guard old.header.offset + old.header.size == fileSize else { return .notPossible("moov does not end at the end of the file") }
            guard let wrapSize = UInt32(exactly: UInt64(newBytes.count) + 8) else { return .notPossible("new moov is too large") }
            var region = ByteWriter(capacity: newBytes.count + 8)
            region.writeU32(wrapSize)
            region.writeFourCC("free")
            region.write(newBytes)
            let f = try WritableFile(path: path)
            defer { f.close() }
            do {
                try f.write(region.bytes, at: fileSize)
                try f.sync()
            } catch {
                f.truncate(fileSize)
                throw error
            }
            try f.write(pivot.bytes, at: pivotOffset)
            try f.sync()
            return .done(.inPlaceMoovAtEnd, written: UInt64(region.count + pivot.count), size: fileSize + UInt64(region.count))
        }

        let next = file.boxes[moovIndex + 1]
        guard next.type == "free" || next.type == "skip", next.header.form == .compact, next.header.userType == nil else {
            return .notPossible("moov is neither the last box nor followed by a free box")
        }
        // The new moov goes in the free box's payload, right after its header; the rest of the payload becomes a free box.
        let room = next.header.size - 8
        let need = UInt64(newBytes.count)
        guard room >= need, room - need == 0 || room - need >= 8 else {
            return .notPossible("the free box after moov (\(next.header.size) bytes) cannot hold the new moov (\(newBytes.count) bytes) plus a free header; in place would need to overwrite the live moov")
        }
        var region = ByteWriter(capacity: newBytes.count + 8)
        region.write(newBytes)
        let rest = room - need
        if rest > 0 {
            guard let r32 = UInt32(exactly: rest) else { return .notPossible("free box too large") }
            region.writeU32(r32)
            region.writeFourCC("free")
        }
        let f = try WritableFile(path: path)
        defer { f.close() }
        try f.write(region.bytes, at: next.header.offset + 8)
        try f.sync()
        try f.write(pivot.bytes, at: pivotOffset)
        try f.sync()
        return .done(.inPlaceFreeSpace, written: UInt64(region.count + pivot.count), size: fileSize)
    }
}

/// A file opened for positioned writes (in-place edits).
final class WritableFile {
    let fd: Int32
    let path: String
    init(path: String) throws(ParseError) {
        self.path = path
        let fd = open(path, O_RDWR)
        guard fd >= 0 else {
            throw ParseError(.io, offset: 0, path: path, "cannot open for writing: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
    }
    func write(_ bytes: [UInt8], at offset: UInt64) throws(ParseError) {
        var done = 0
        let fd = self.fd
        let err: ParseError? = bytes.withUnsafeBytes { buf -> ParseError? in
            guard let base = buf.baseAddress else { return nil }
            while done < buf.count {
                let r = pwrite(fd, base + done, buf.count - done, off_t(offset) + off_t(done))
                if r < 0 {
                    if errno == EINTR { continue }
                    return ParseError(.io, offset: offset + UInt64(done), path: path, "write failed: \(String(cString: strerror(errno)))")
                }
                done += r
            }
            return nil
        }
        if let err { throw err }
    }
    func sync() throws(ParseError) {
        if fsync(fd) != 0 { throw ParseError(.io, offset: 0, path: path, "fsync failed: \(String(cString: strerror(errno)))") }
    }
    func truncate(_ size: UInt64) {
        _ = ftruncate(fd, off_t(size))
        _ = fsync(fd)
    }
    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(fd)
        #elseif canImport(Musl)
        _ = Musl.close(fd)
        #else
        _ = Darwin.close(fd)
        #endif
    }
}
