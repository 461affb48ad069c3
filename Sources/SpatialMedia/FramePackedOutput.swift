import BinaryIO
import ISOBMFF

/// Tags a movie that another program (FFmpeg) has just written with two eyes packed in one picture, so that it
/// says what it is: Apple's frame-packed 3D signalling `vexu{eyes{stri 0x03[, hero]}, proj{prji 'rect'},
/// pack{pkin}}` (Specs/formats.md §8) and, in an MP4 (`ftyp` not `qt  `), also Google's `st3d` stereo mode, which
/// players that know only Google's boxes read (Specs/formats.md §5). Whatever stereo metadata the writer put there is
/// replaced: FFmpeg copies the first input view's stereo side data, which says "left eye only".
public enum FramePackedOutput {
    /// Rewrites the sample entry of every video track of `path` (in place when the layout allows, otherwise an
    /// atomic rewrite of the same path). `packing` is `side` or `over`; `heroEye` and `hfovMillidegrees` (each eye's
    /// field of view, `hfov`) are written when given, in an MP4 as in a QuickTime movie. `projection` `hequ` or `equi`
    /// (a sphere packed from an APMP MV-HEVC movie): `prji` says it instead of `rect`, no `hfov` is written, and
    /// Google's `st3d` + `sv3d` (``GoogleSphericalSignal``, what YouTube and Quest players read) go in either
    /// container; another kind (`fish`, `prim`) is kept in `prji`, with no Google form. Returns the change lines.
    @discardableResult
    public static func tag(
        path: String, packing: FourCC, heroEye: HeroEye?, hfovMillidegrees: UInt32? = nil,
        projection: FourCC? = nil
    ) throws(ParseError) -> [String] {
        guard packing == "side" || packing == "over" else {
            throw ParseError(.invalidArgument, path: path, "view packing must be 'side' or 'over' (got '\(packing)')")
        }
        var google: GoogleSphericalSignal? = nil
        if let p = projection, p == "hequ" || p == "equi" {
            var m = StereoVideoMetadata()
            m.projectionKind = p; m.viewPackingKind = packing
            if case .success(let g) = m.apmpToGoogle(isMVHEVC: false) { google = g }
        }
        return try rewriteVideoEntries(path: path) { (entry: inout Box, trackID: UInt32, isQuickTime: Bool) in
            _ =
                entry.removeChildren("vexu") + entry.removeChildren("st3d") + entry.removeChildren("sv3d")
                + entry.removeChildren("hfov")
            var edit = SpatialVideoEdit()
            edit.viewPacking = .set(packing)
            if let heroEye { edit.heroEye = .set(heroEye) }
            if let hfovMillidegrees, google == nil { edit.horizontalFieldOfViewMillidegrees = .set(hfovMillidegrees) }
            // Another kind than rect (fish, prim: no Google form) stays what it was in vexu/proj.
            if let projection, projection != "rect" { edit.projectionKind = .set(projection) }
            SpatialVideoEditor.editEntry(&entry, edit, stereo: true)
            let st3d: UInt8 = packing == "side" ? 2 : 1
            if !isQuickTime || google != nil {
                var kids = entry.children ?? []
                let at = kids.firstIndex { ["vexu", "pasp", "clap", "btrt"].contains($0.type) } ?? kids.count
                kids.insert(
                    contentsOf: google?.boxes ?? [
                        Box(Stereoscopic3DVideoBox(stereoMode: st3d), type: "st3d")
                    ], at: at)
                entry.children = kids
            }
            let extra =
                google.map { _ in ", proj/prji '\(projection?.description ?? "")', Google st3d \(st3d) + sv3d" }
                ?? (isQuickTime ? "" : ", st3d \(st3d)")
            return
                "track \(trackID): tagged frame-packed \(packing == "side" ? "side by side" : "over-under") (vexu/eyes/stri both eyes, pack/pkin '\(packing)'\(extra))"
        }
    }

    /// Tags a movie FFmpeg has just written from a sphere (VR180/360) with Google's spherical metadata: `st3d` with
    /// `stereoMode` (0 one eye, 1 top-bottom, 2 side by side) and the source's `sv3d` box (its projection and crop),
    /// in the sample entry of every video track; any `vexu`, `st3d` or `sv3d` the writer put there is replaced.
    @discardableResult
    public static func tagGoogleSpherical(path: String, stereoMode: UInt8, sv3d: Box) throws(ParseError) -> [String] {
        guard stereoMode <= 2, sv3d.type == "sv3d" else {
            throw ParseError(.invalidArgument, path: path, "st3d stereo mode must be 0, 1 or 2 with an sv3d box")
        }
        return try rewriteVideoEntries(path: path) { (entry: inout Box, trackID: UInt32, _: Bool) in
            _ = entry.removeChildren("vexu") + entry.removeChildren("st3d") + entry.removeChildren("sv3d")
            var kids = entry.children ?? []
            let at = kids.firstIndex { ["pasp", "clap", "btrt"].contains($0.type) } ?? kids.count
            kids.insert(
                contentsOf: [
                    Box(Stereoscopic3DVideoBox(stereoMode: UInt8(truncatingIfNeeded: stereoMode)), type: "st3d"), sv3d,
                ],
                at: at)
            entry.children = kids
            return
                "track \(trackID): tagged st3d \(stereoMode) (\(["one eye", "top-bottom", "side by side"][Int(stereoMode)])) with the source's sv3d projection"
        }
    }

    /// Makes a movie FFmpeg has just written from one eye say it is one picture: removes the `vexu` and `st3d` boxes
    /// from every visual sample entry. FFmpeg's MOV muxer copies the view's stereo side data into a `vexu` whose
    /// `stri` says "left eye only", which no single-eye movie states (and our validator refuses: SV-VIDEO-011).
    /// Returns the change lines (none when there was nothing to remove; the file is then left as it is).
    @discardableResult
    public static func clearStereo(path: String) throws(ParseError) -> [String] {
        let file = try ISOFile.open(path: path)
        let stated = file.tracks.contains { t in
            t.handler == "vide" && t.sampleEntries.contains { $0.child("vexu") != nil || $0.child("st3d") != nil }
        }
        guard stated else { return [] }
        return try rewriteVideoEntries(path: path) { (entry: inout Box, trackID: UInt32, _: Bool) in
            let removed = entry.removeChildren("vexu") + entry.removeChildren("st3d")
            let boxes = removed == 1 ? "box" : "boxes"
            return "track \(trackID): \(removed) stereo \(boxes) (vexu/st3d) removed: one eye is one picture"
        }
    }

    /// Google's `sv3d` box of an equirectangular sphere: `svhd` (metadata source "spatial-media"), `proj{prhd, equi}`
    /// with the initial pose (yaw, pitch, roll, 16.16 degrees) and the crop bounds (top, bottom, left, right, 0.32
    /// fractions of the full 360°×180° picture), as Specs/formats.md §5 lays them out.
    public static func sphericalBox(bounds: [UInt32], pose: [Int32] = [0, 0, 0]) -> Box {
        GoogleSphericalSignal(stereoMode: 0, bounds: bounds, pose: pose).sv3d
    }

    /// Rewrites every visual sample entry of every video track of `path` with `edit` (in place when the layout allows,
    /// otherwise an atomic rewrite of the same path); `edit` gets the track ID and whether the file is QuickTime, and
    /// returns its change line.
    static func rewriteVideoEntries(path: String, _ edit: (inout Box, UInt32, Bool) -> String) throws(ParseError)
        -> [String]
    {
        let file = try ISOFile.open(path: path)
        guard let moovIndex = file.boxes.firstIndex(where: { $0.type == "moov" }),
            var traks = file.boxes[moovIndex].children
        else {
            throw ParseError(.unsupported, path: path, "not a movie: no moov box")
        }
        let isQuickTime = file.box("ftyp")?.payload(FileTypeBox.self)?.majorBrand == "qt  "
        var changes: [String] = []
        for ti in traks.indices where traks[ti].type == "trak" {
            let track = Track(traks[ti])
            guard track.handler == "vide", var stbl = traks[ti].find("mdia", "minf", "stbl"),
                var stsd = stbl.child("stsd"),
                var entries = stsd.children, !entries.isEmpty
            else { continue }
            for ei in entries.indices where entries[ei].payload(SampleEntry.self)?.kind == .visual {
                changes.append(edit(&entries[ei], track.trackID, isQuickTime))
            }
            stsd.children = entries
            stbl.setChild(stsd)
            try SpatialVideoEditor.replace(&traks[ti], path: ["mdia", "minf", "stbl"], with: stbl)
        }
        guard !changes.isEmpty else { throw ParseError(.unsupported, path: path, "no video track to tag") }
        var moov = file.boxes[moovIndex]
        moov.children = traks
        if case .notPossible = try SpatialVideoEditor.writeInPlace(
            file: file, path: path, moovIndex: moovIndex, newMoov: moov)
        {
            _ = try SpatialVideoEditor.rewrite(
                file: file, moovIndex: moovIndex, newMoov: moov, to: path, faststart: false)
        }
        return changes
    }
}
