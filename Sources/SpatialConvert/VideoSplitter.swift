import BinaryIO
import HEVC
import ISOBMFF
import MediaDecode
import SpatialMedia
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What ``VideoSplitter`` writes.
public enum VideoSplitTarget: Sendable, Equatable {
    /// One frame with the left eye on the left and the right eye on the right.
    case sideBySide(String)
    /// One frame with the left eye on top (over-under, top-bottom).
    case overUnder(String)
    /// One file per eye; either may be nil.
    case eyes(left: String?, right: String?)

    /// Every output path.
    public var paths: [String] {
        switch self {
        case .sideBySide(let p), .overUnder(let p): return [p]
        case .eyes(let l, let r): return [l, r].compactMap { $0 }
        }
    }

    /// Google's `st3d` stereo mode of each output: 2 side by side, 1 top-bottom, 0 one eye.
    var googleStereoMode: UInt8 {
        switch self {
        case .sideBySide: return 2
        case .overUnder: return 1
        case .eyes: return 0
        }
    }
}

/// Options of `VideoSplitter.split(_:options:cancellation:progress:)`.
public struct VideoSplitOptions: Sendable {
    public var target: VideoSplitTarget
    /// Half-width SBS / half-height OU: each eye squeezed so the frame is the size of one eye.
    public var half = false
    /// No re-encoding: copy the coded pictures (both eyes of an independent-layer file, or the base-layer eye of
    /// any MV-HEVC file).
    public var copy = false
    /// x265 constant rate factor of the re-encode.
    public var crf: Double = VideoSplitOptions.defaultCRF
    /// x265 preset of the re-encode.
    public var preset = "medium"
    /// Carry the audio tracks over (copied: the source is MP4/QuickTime, whose audio every such output takes).
    public var audio = true
    /// FFmpeg to use (path or name); nil = ``/MediaDecode/FFmpeg/locate(_:override:)``.
    public var ffmpeg: String? = nil
    /// How a frame-packed source holds the eyes when its metadata does not say (`sbs`/`tb`; nil or `auto`: from the
    /// metadata only). Not used for MV-HEVC sources.
    public var layout: StereoLayout? = nil
    public var limits: Limits = .default
    public init(target: VideoSplitTarget) { self.target = target }

    /// CRF 18: the eyes come back within a fraction of a dB of a visually lossless encode (≥ 40 dB PSNR on the
    /// corpus and fixtures).
    public static let defaultCRF = 18.0
}

/// What a split found and did, for people (``lines``) and scripts.
public struct VideoSplitReport: Sendable {
    public var frames: Int
    /// Layer 1 is predicted from layer 0 (Apple, iPhone, x265 multiview) — decoding both needs FFmpeg ≥ 7.1.
    public var interLayerPrediction: Bool
    /// "layer 0 = left (SEI 176)" and the like.
    public var eyeOrder: String
    public var heroEye: String?
    /// Disparity adjustment of the source, in 1/10000 of the width.
    public var disparityAdjustment: Int32?
    /// How the pixels were produced ("re-encoded by x265 …", "copied").
    public var method: String
    public var outputs: [String]
    public var audioTracks: Int
    public var notes: [String]
    /// How a frame-packed source holds the eyes ("frame-packed side by side: left eye = left half (st3d 2)"); nil for
    /// MV-HEVC.
    public var packing: String? = nil

    public var lines: [String] {
        var l = [
            packing.map { "\(frames) frames per eye; \($0)" }
                ?? "\(frames) frames per eye; \(eyeOrder)"
                + (interLayerPrediction ? "; layer 1 predicted from layer 0" : "; layers independent")
        ]
        l.append("hero eye: \(heroEye ?? "not signalled")")
        if let d = disparityAdjustment {
            l.append(
                "disparity adjustment: \(NumberText.fixed(Double(d) / 100, places: 2)) % of the width (the source's window; frame-packed outputs carry no such field, so players show the eyes at zero shift)"
            )
        }
        l.append(method)
        l.append(audioTracks == 0 ? "audio: none" : "audio: \(audioTracks) track\(audioTracks == 1 ? "" : "s") copied")
        return l + notes + outputs.map { "wrote \($0)" }
    }
}

/// Turns a spatial video (two-layer MV-HEVC: Apple's, iPhone's, Vision Pro's, x265 multiview's or ours) or a
/// frame-packed 3D movie (side by side or top-bottom, flat or a VR180/360 sphere: ``FramePackedSource``) into
/// side-by-side, over-under or one file per eye.
///
/// Inter-layer-predicted files are decoded by FFmpeg ≥ 7.1 (both views by view id); files whose layers are
/// independent (ours) are split into two single-layer streams without decoding, and FFmpeg (any version) decodes
/// those. The re-encode is x265 through FFmpeg; `copy` keeps coded pictures untouched. Outputs are atomic.
public enum VideoSplitter {
    /// The facts a split needs (``/MediaDecode/SpatialVideoSource/inspect(_:limits:)``).
    public static func inspect(_ path: String, limits: Limits = .default) throws(ParseError) -> SpatialVideoSource {
        try SpatialVideoSource.inspect(path, limits: limits)
    }

    /// Splits `path`. On any error or cancellation no output is left behind.
    @discardableResult
    package static func split(
        _ path: String, options o: VideoSplitOptions, cancellation: ConversionCancellation? = nil,
        progress: ((VideoConversionProgress) -> Void)? = nil
    ) throws(ParseError) -> VideoSplitReport {
        let outputs = o.target.paths
        guard !outputs.isEmpty else {
            throw ParseError(
                .invalidArgument, "nothing to write: name an output (side by side, over-under, or left and/or right)")
        }
        if o.half, case .eyes = o.target {
            throw ParseError(
                .invalidArgument,
                "half resolution applies to side-by-side and over-under outputs, not to one file per eye")
        }
        // The output type follows the extension: a movie container, or raw HEVC for copies.
        for out in outputs {
            let ext =
                out.split(separator: "/").last?.split(separator: ".").dropFirst().last.map { $0.lowercased() } ?? ""
            let allowed = o.copy ? ["hevc", "265", "h265"] : ["mp4", "m4v", "mov", "qt", "mkv"]
            guard allowed.contains(ext) else {
                throw ParseError(
                    .invalidArgument, path: out,
                    o.copy
                        ? "copies are raw HEVC streams: name the output .hevc"
                        : "the output must be a movie (.mp4, .mov or .mkv), or .hevc with the copy option")
            }
        }
        // A movie whose video is not MV-HEVC, or another container (Matroska …), holds both eyes in one picture.
        var framePacked = FileProbe.kind(of: path) != .movie
        var metadata: StereoVideoMetadata?
        if !framePacked {
            let primary = try SpatialVideoReport(ISOFile.open(path: path, limits: o.limits)).primary
            framePacked = primary?.isMVHEVC == false
            metadata = primary?.metadata
        }
        if framePacked {
            let packed = try FramePackedSource.inspect(path, stated: o.layout, ffmpeg: o.ffmpeg, limits: o.limits)
            return try splitFramePacked(packed, options: o, cancellation: cancellation, progress: progress)
        }
        try ISOFile.open(path: path, limits: o.limits).requireIntact(limits: o.limits, operation: "split")
        let src = try inspect(path, limits: o.limits)
        var report = VideoSplitReport(
            frames: src.frames, interLayerPrediction: src.interLayerPrediction, eyeOrder: src.eyeOrder,
            heroEye: src.heroEye, disparityAdjustment: src.disparityAdjustment, method: "",
            outputs: outputs, audioTracks: 0, notes: [])
        if o.copy {
            try copyEyes(src, options: o, report: &report)
        } else {
            // An MV-HEVC sphere (APMP equi/hequ): its outputs say so in Google's form, never as a flat picture.
            let sphere = metadata.flatMap { $0.isSpherical ? FramePackedSource.googleSphere($0) : nil }
            try reencode(
                src, sphere: sphere.map { $0.box }, options: o, report: &report, cancellation: cancellation,
                progress: progress)
            if let sphere {
                report.notes.append(
                    sphere.box == nil
                        ? "the sphere's projection (\(sphere.text)) has no equirectangular Google form: the outputs carry no projection metadata"
                        : "sphere (\(sphere.text)): each output keeps the projection (Google st3d + sv3d)")
            }
        }
        return report
    }

    // MARK: - Copy

    static func copyEyes(_ src: SpatialVideoSource, options o: VideoSplitOptions, report: inout VideoSplitReport)
        throws(ParseError)
    {
        guard case .eyes(let left, let right) = o.target else {
            throw ParseError(
                .invalidArgument, path: src.path,
                "copying writes one stream per eye; a side-by-side or over-under frame needs re-encoding (leave out the copy option)"
            )
        }
        if o.half {
            throw ParseError(.invalidArgument, "half resolution needs re-encoding; it cannot be combined with copying")
        }
        let baseEye = src.baseIsLeft ? left : right
        let otherEye = src.baseIsLeft ? right : left
        if src.interLayerPrediction && otherEye != nil {
            let (base, other) = src.baseIsLeft ? ("left", "right") : ("right", "left")
            let file = src.baseIsLeft ? "L" : "R"
            throw ParseError(
                .unsupported, path: src.path,
                "the \(other) eye is predicted from the \(base) (inter-layer prediction), so it cannot be copied "
                    + "without decoding; what works: copy only the \(base) eye (`spatial-media split IN --copy --\(base) "
                    + "\(file).hevc`), or decode and re-encode both eyes (`spatial-media split IN --left L.mp4 --right R.mp4`, "
                    + "FFmpeg 7.1 or newer)")
        }
        let layers = try StreamSplitter.split(path: src.path, baseOnly: otherEye == nil, limits: o.limits)
        if let baseEye { try AtomicFile.write(path: baseEye, bytes: layers.base) }
        if let otherEye { try AtomicFile.write(path: otherEye, bytes: layers.second) }
        report.audioTracks = 0
        if src.audioTracks > 0 { report.notes.append("audio not written: raw HEVC streams hold video only") }
        report.method =
            src.interLayerPrediction
            ? "copied the base-layer eye without decoding (its coded pictures untouched)"
            : "copied both eyes without decoding (the layers are independent; each eye's coded pictures untouched)"
    }

    // MARK: - Re-encode

    /// `sphere`: the source is a sphere — its outputs are tagged with this Google `sv3d` (nil inside: no Google form,
    /// left untagged), never as a flat frame-packed picture.
    static func reencode(
        _ src: SpatialVideoSource, sphere: Box?? = nil, options o: VideoSplitOptions, report: inout VideoSplitReport,
        cancellation: ConversionCancellation?, progress: ((VideoConversionProgress) -> Void)?
    ) throws(ParseError) {
        let purpose =
            src.interLayerPrediction
            ? "decoding the second view of \(src.path) (inter-layer predicted)" : "re-encoding \(src.path)"
        let ff = try FFmpeg.require(src.interLayerPrediction ? .mvhevcViews : .any, for: purpose, override: o.ffmpeg)
        var args = ["-nostdin", "-hide_banner", "-v", "error", "-y"]
        let left: String, right: String
        var scratch: [ScratchCopy] = []
        defer { for s in scratch { s.remove() } }
        var audioInput = 0
        if ff.decodesMVHEVCViews {
            // Both views from the one movie, by view id (works with and without SEI 176).
            args += ["-i", src.path]
            left = "[0:v:0:view:\(src.leftViewId)]"
            right = "[0:v:0:view:\(src.rightViewId)]"
        } else {
            // An older FFmpeg sees only the base layer: give it the two layers as separate streams.
            let layers = try StreamSplitter.split(path: src.path, limits: o.limits)
            let l = try ScratchCopy(bytes: layers.left, near: o.target.paths[0])
            scratch.append(l)
            let r = try ScratchCopy(bytes: layers.right, near: o.target.paths[0])
            scratch.append(r)
            let rate = "\(src.fpsNum)/\(src.fpsDen)"
            args += ["-f", "hevc", "-r", rate, "-i", l.path, "-f", "hevc", "-r", rate, "-i", r.path, "-i", src.path]
            left = "[0:v:0]"; right = "[1:v:0]"
            audioInput = 2
        }
        let encode = x265Arguments(o, bitDepth: src.bitDepth, colour: src.colour)
        let audio = o.audio ? ["-map", "\(audioInput):a?", "-c:a", "copy"] : []
        switch o.target {
        case .sideBySide(let out), .overUnder(let out):
            let sbs: Bool
            if case .sideBySide = o.target { sbs = true } else { sbs = false }
            let squeeze = o.half ? (sbs ? "scale=iw/2:ih:flags=lanczos," : "scale=iw:ih/2:flags=lanczos,") : ""
            let stated = src.colour.map { "," + MediaProbe.ffmpegSetParams($0) } ?? ""
            let graph =
                "\(left)\(squeeze)setsar=1[l];\(right)\(squeeze)setsar=1[r];[l][r]\(sbs ? "hstack" : "vstack")\(stated)[v]"
            // Matroska carries the layout in StereoMode; MP4/MOV are tagged by us below (FramePackedOutput).
            let mkvStereo =
                muxer(out) == "matroska" ? ["-metadata:s:v:0", "stereo_mode=\(sbs ? "left_right" : "top_bottom")"] : []
            args +=
                ["-filter_complex", graph, "-map", "[v]"]
                + outputTail(out, encode: encode, tags: mkvStereo, audio: audio, sphere: sphere ?? nil) + ["OUTPUT0"]
        case .eyes(let l, let r):
            var graph: [String] = []
            var n = 0
            for (eye, out) in [(left, l), (right, r)] {
                guard let out else { continue }
                graph.append("\(eye)setsar=1[e\(n)]")
                args +=
                    ["-map", "[e\(n)]"]
                    + outputTail(out, encode: encode, tags: matroskaMono(out), audio: audio, sphere: sphere ?? nil) + [
                        "OUTPUT\(n)"
                    ]
                n += 1
            }
            args.insert(
                contentsOf: ["-filter_complex", graph.joined(separator: ";")],
                at: args.firstIndex(of: "-map") ?? args.count)
        }
        try runFFmpeg(
            ff.path, args, outputs: o.target.paths, cancellation: cancellation, frames: src.frames, progress: progress
        ) { (temps: [String]) throws(ParseError) in
            try tagOutputs(temps, source: src, sphere: sphere, options: o, tool: ff)
        }
        report.audioTracks = o.audio ? src.audioTracks : 0
        if sphere == nil, let note = carriedNote(src.stereo, target: o.target) { report.notes.append(note) }
        report.method =
            "decoded by FFmpeg \(ff.version)\(ff.decodesMVHEVCViews ? " (both views)" : " (layers split first)"), re-encoded by x265 (CRF \(NumberText.fixed(o.crf, places: 2, trimZeros: true)), preset \(o.preset))"
        if o.half {
            if case .sideBySide = o.target {
                report.notes.append("half-width side by side: each eye squeezed to half its width")
            } else {
                report.notes.append("half-height over-under: each eye squeezed to half its height")
            }
        }
    }

    /// Tags what FFmpeg wrote (`temps`, in the order of the target's paths) before the outputs are moved into place.
    private static func tagOutputs(
        _ temps: [String], source src: SpatialVideoSource, sphere: Box??,
        options o: VideoSplitOptions, tool ff: FFmpegTool
    ) throws(ParseError) {
        // FFmpeg copies the first view's stereo side data ("left eye only", and the field of view only in a .mov): say
        // what the picture is, with the source's hero eye and field of view in either container.
        if let sphere {
            // An APMP sphere packed again keeps its APMP form (prji, pack) and gains Google's; one eye, or a
            // sphere stated only in Google's form, carries Google's st3d + the source's sv3d.
            let apmp = src.projectionKind == "hequ" || src.projectionKind == "equi"
            for (temp, out) in zip(temps, o.target.paths) where muxer(out) == "matroska" {
                guard let box = sphere else { continue }
                try finishMatroskaSphere(
                    temp, output: out, stereoMode: o.target.googleStereoMode, sv3d: box, source: src.path,
                    audio: o.audio, tool: ff)
            }
            for (temp, out) in zip(temps, o.target.paths) where muxer(out) != "matroska" {
                switch o.target {
                case .sideBySide where apmp:
                    try FramePackedOutput.tag(
                        path: temp, packing: "side", heroEye: src.hero, projection: src.projectionKind)
                case .overUnder where apmp:
                    try FramePackedOutput.tag(
                        path: temp, packing: "over", heroEye: src.hero, projection: src.projectionKind)
                default:
                    guard let sphere else { return }
                    let mode: UInt8
                    switch o.target {
                    case .sideBySide: mode = 2;
                    case .overUnder: mode = 1;
                    case .eyes: mode = 0
                    }
                    try FramePackedOutput.tagGoogleSpherical(path: temp, stereoMode: mode, sv3d: sphere)
                }
            }
            return
        }
        if case .eyes = o.target {
            // One eye is one picture: FFmpeg's MOV muxer would leave the view's "left eye only" vexu in it.
            for (temp, out) in zip(temps, o.target.paths) where muxer(out) != "matroska" {
                try FramePackedOutput.clearStereo(path: temp)
            }
            try carryStereo(src.stereo, temps: temps, target: o.target)
            return
        }
        guard let temp = temps.first, muxer(o.target.paths[0]) != "matroska" else { return }
        switch o.target {
        case .sideBySide:
            try FramePackedOutput.tag(
                path: temp, packing: "side", heroEye: src.hero, hfovMillidegrees: src.hfovMillidegrees,
                projection: src.projectionKind)
        case .overUnder:
            try FramePackedOutput.tag(
                path: temp, packing: "over", heroEye: src.hero, hfovMillidegrees: src.hfovMillidegrees,
                projection: src.projectionKind)
        case .eyes: break
        }
    }

    /// Each MP4/MOV eye of `target` (written to `temps`, in the order of its paths) gets `stereo`, the source's values,
    /// in a top-level XMP `uuid` box (``/MediaDecode/EyeStereoXMP``), for a conversion of the eyes to read back.
    static func carryStereo(_ stereo: StereoParameters, temps: [String], target: VideoSplitTarget) throws(ParseError) {
        guard case .eyes(let l, let r) = target, !stereo.isEmpty else { return }
        let eyes = [l.map { ("left", $0) }, r.map { ("right", $0) }].compactMap { $0 }
        for ((eye, out), temp) in zip(eyes, temps) where muxer(out) != "matroska" {
            try EyeStereoXMP.appendToMovie(path: temp, packet: EyeStereoXMP.packet(eye: eye, stereo: stereo))
        }
    }

    /// The report's line for ``carryStereo(_:temps:target:)``: what each MP4/MOV eye carries, and that a Matroska
    /// eye carries nothing.
    static func carriedNote(_ stereo: StereoParameters, target: VideoSplitTarget) -> String? {
        guard case .eyes = target, !stereo.isEmpty else { return nil }
        let outs = target.paths
        let movies = outs.filter { muxer($0) != "matroska" }
        var note =
            movies.isEmpty
            ? ""
            : "stereo values carried in each MP4/MOV eye's XMP: \(EyeStereoXMP.summary(stereo))"
        if movies.count < outs.count { note += (note.isEmpty ? "" : "; ") + "a Matroska eye carries no stereo values" }
        return note
    }

    /// One eye written as Matroska says StereoMode "mono": FFmpeg would otherwise carry the source's stereo side data
    /// (a frame-packed source's "side by side", an MV-HEVC view's), and a reader would cut the eye in half again.
    static func matroskaMono(_ path: String) -> [String] {
        muxer(path) == "matroska" ? ["-metadata:s:v:0", "stereo_mode=mono"] : []
    }

    /// The arguments after an output's `-map` up to its path: the encoder, the container's tags, the audio and the
    /// muxer — except for a sphere's Matroska output (`sphere` its Google `sv3d`), which is first written as MP4
    /// without audio or tags and finished by ``finishMatroskaSphere(_:output:stereoMode:sv3d:source:audio:tool:)``.
    static func outputTail(_ out: String, encode: [String], tags: [String], audio: [String], sphere: Box?) -> [String] {
        if sphere != nil && muxer(out) == "matroska" { return encode + ["-f", "mp4"] }
        return encode + tags + audio + ["-f", muxer(out)]
    }

    /// A sphere's Matroska output, in two steps: FFmpeg writes Matroska's `Projection` only from a projection its
    /// demuxer reads — not out of an MV-HEVC movie's views, not for an APMP-only `hequ` (Matroska has no
    /// half-equirectangular type), and of a packed Google sphere split in two only into the first eye — so the picture
    /// is encoded into MP4 (`temp`), tagged with Google's `st3d` + `sv3d`, and remuxed (`-c copy`) into Matroska with
    /// the StereoMode and the source's audio. The result is read back through FFmpeg and refused if it does not say
    /// it is a sphere.
    static func finishMatroskaSphere(
        _ temp: String, output: String, stereoMode: UInt8, sv3d: Box, source: String,
        audio: Bool, tool: FFmpegTool
    ) throws(ParseError) {
        _ = try FramePackedOutput.tagGoogleSpherical(path: temp, stereoMode: stereoMode, sv3d: sv3d)
        let remuxed = try AtomicFile.scratchPath(near: output)
        defer { unlink(remuxed); Interruption.unregister(temporaryFile: remuxed) }
        let mode = ["mono", "top_bottom", "left_right"][Int(min(stereoMode, 2))]
        let inputs = audio ? ["-i", temp, "-i", source, "-map", "0:v", "-map", "1:a?"] : ["-i", temp, "-map", "0:v"]
        let child = try ChildProcess(
            executable: tool.path,
            arguments: ["-nostdin", "-hide_banner", "-v", "error", "-y"] + inputs
                + ["-c", "copy", "-metadata:s:v:0", "stereo_mode=\(mode)", "-f", "matroska", remuxed])
        _ = child.readToEnd(limit: 1 << 16)
        let status = child.wait()
        guard status == 0 else {
            throw ParseError(
                .unsupported, path: output,
                "FFmpeg could not remux the sphere into Matroska (exit status \(status)): \(child.errorText(max: 600))")
        }
        guard rename(remuxed, temp) == 0 else {
            throw ParseError(.io, path: output, "cannot replace \(temp): \(String(cString: strerror(errno)))")
        }
        guard let s = try MediaProbe.run(temp, tool: tool).spherical, s.isSphere else {
            throw ParseError(
                .unsupported, path: output,
                "\(output): FFmpeg wrote the sphere to Matroska without its projection; write .mp4 or .mov (Google st3d + sv3d) instead"
            )
        }
    }

    /// FFmpeg's muxer name for an output path.
    static func muxer(_ path: String) -> String {
        switch path.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
        case "mov", "qt": return "mov"
        case "mkv": return "matroska"
        default: return "mp4"
        }
    }

    /// Runs FFmpeg with `OUTPUTn` placeholders replaced by temporary files beside each output; the outputs appear
    /// (renamed) only when FFmpeg succeeds. Progress comes from `-progress`.
    static func runFFmpeg(
        _ exe: String, _ argsIn: [String], outputs: [String], cancellation: ConversionCancellation?,
        frames: Int, progress: ((VideoConversionProgress) -> Void)?,
        beforeCommit: (([String]) throws(ParseError) -> Void)? = nil
    ) throws(ParseError) {
        var temps: [(tmp: String, final: String)] = []
        var committed = false
        defer { if !committed { for t in temps { unlink(t.tmp) } } }
        for out in outputs {
            temps.append((try AtomicFile.scratchPath(near: out), out))
        }
        var args = argsIn.map { a -> String in
            if a.hasPrefix("OUTPUT"), let i = Int(a.dropFirst(6)), i < temps.count { return temps[i].tmp }
            return a
        }
        args = ["-progress", "pipe:1", "-nostats"] + args
        let child = try ChildProcess(executable: exe, arguments: args)
        let start = monotonicSeconds()
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if cancellation?.isCancelled == true {
                child.terminate()
                throw ParseError(.cancelled, "cancelled")
            }
            let n = chunk.withUnsafeMutableBytes { read(child.stdoutFD, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending += chunk[0..<n]
            while let nl = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<nl], as: UTF8.self)
                pending.removeSubrange(...nl)
                if line.hasPrefix("frame="), let f = Int(line.dropFirst(6)) {
                    progress?(
                        VideoConversionProgress(
                            frames: f, totalFrames: frames, elapsedSeconds: monotonicSeconds() - start))
                }
            }
        }
        let status = child.wait()
        guard status == 0 else {
            throw ParseError(
                .unsupported,
                "FFmpeg could not write the split (exit status \(status)): "
                    + StreamIntegrity.failureText(child.errorText(max: 1 << 15), status: status))
        }
        try beforeCommit?(temps.map(\.tmp))
        for t in temps { try AtomicFile.commit(scratch: t.tmp, to: t.final) }
        committed = true
    }

}

extension SpatialVideoSource {
    /// The source's baseline, field of view, disparity adjustment and hero eye (each nil when absent).
    var stereo: StereoParameters {
        StereoParameters(
            baselineMicrometres: baselineMicrometres, horizontalFieldOfViewMillidegrees: hfovMillidegrees,
            disparityAdjustment: disparityAdjustment, heroEye: hero)
    }

    /// The source's hero eye as a value (nil when it has none or a reserved one).
    var hero: HeroEye? {
        switch heroEye {
        case "left": return .left;
        case "right": return .right;
        default: return nil
        }
    }
}

/// A stream written to a scratch file beside an output (same file system, removed afterwards).
struct ScratchCopy {
    let path: String
    init(bytes: [UInt8], near output: String) throws(ParseError) {
        let tmp = try AtomicFile.scratchPath(near: output)
        path = tmp
        do throws(ParseError) { try AtomicFile.write(path: tmp, bytes: bytes) } catch {
            unlink(tmp)
            throw error
        }
    }
    func remove() { unlink(path) }
}
