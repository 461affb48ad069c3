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

/// A frame-packed 3D movie (both eyes in one picture) as ``VideoSplitter`` reads it.
public struct FramePackedSource: Sendable {
    public var path: String
    /// `sbs` (left eye in the left half) or `tb` (left eye on top).
    public var layout: StereoLayout
    /// Where the layout comes from ("st3d 1", "vexu/pack 'side'", "Google spherical v1 XML", "stated").
    public var layoutOrigin: String
    /// The source's Google projection as an `sv3d` box for each eye's movie (equirectangular with its crop), when the
    /// source is a sphere whose projection has one.
    public var sphere: Box?
    /// What the sphere is, for the report ("180° equirectangular (hequ)").
    public var sphereText: String?
    public var heroEye: HeroEye?
    public var hfovMillidegrees: UInt32?
    public var audioTracks: Int
    public var frames: Int
    public var notes: [String] = []

    /// The values each eye carries: the field of view and hero eye the movie states (a frame-packed movie has no
    /// baseline or disparity field).
    var stereo: StereoParameters {
        StereoParameters(
            horizontalFieldOfViewMillidegrees: hfovMillidegrees,
            heroEye: heroEye == .left || heroEye == .right ? heroEye : nil)
    }
}

extension FramePackedSource {
    /// Reads the packing and projection of `path` (an MP4/QuickTime movie read by us, any other container through
    /// FFmpeg's listing); `stated` is the layout the caller gives (`sbs`/`tb`), which must agree with the metadata.
    public static func inspect(_ path: String, stated: StereoLayout?, ffmpeg: String? = nil, limits: Limits = .default)
        throws(ParseError) -> FramePackedSource
    {
        var signalled: (StereoLayout, String)?
        var src = FramePackedSource(path: path, layout: .sbs, layoutOrigin: "stated", audioTracks: 0, frames: 0)
        if FileProbe.kind(of: path) == .movie {
            let file = try ISOFile.open(path: path, limits: limits)
            try file.requireIntact(limits: limits, operation: "split")
            let report = SpatialVideoReport(file)
            guard let v = report.primary else {
                throw ParseError(.unsupported, path: path, "no video track: nothing to split")
            }
            let m = v.metadata
            if let p = m.framePacking {
                let origin =
                    m.viewPackingKind != nil
                    ? "vexu/pack '\(m.viewPackingKind?.description ?? "")'"
                    : m.googleStereoMode != nil
                        ? "st3d \(m.googleStereoMode ?? 0)" : "Google spherical v1 XML StereoMode"
                signalled = (p == .sideBySide ? .sbs : .tb, origin)
            }
            src.heroEye = m.heroEye
            src.hfovMillidegrees = m.horizontalFieldOfViewMillidegrees
            src.audioTracks = file.tracks.filter { $0.handler == "soun" }.count
            src.frames = file.tracks.first { $0.trackID == v.trackID }?.sampleCount ?? 0
            if m.isSpherical { sphere(m, into: &src) }
        } else {
            let tool = try FFmpeg.require(.any, for: "reading \(path)", override: ffmpeg)
            let probe = try MediaProbe.run(path, tool: tool)
            // A damaged or truncated input is refused before anything is written, as a cut movie is (SV-FILE-002).
            if let damage = try StreamIntegrity.scan(path: path, tool: tool, probe: probe) {
                throw ParseError(.truncated, path: path, "\(damage); refusing to split it (nothing written)")
            }
            src.audioTracks = probe.audio.count
            if let d = probe.durationSeconds, let r = probe.frameRate {
                src.frames = Int((d * Double(r.num) / Double(r.den)).rounded())
            }
            if let p = probe.stereoPacking {
                signalled = (p == .sideBySide ? .sbs : .tb, "the container's stereo mode (as FFmpeg reads it)")
            }
            if let sph = probe.spherical, sph.isSphere {
                // A Matroska sphere: MP4/MOV outputs get its projection as Google's sv3d (FFmpeg copies the side data
                // into Matroska outputs itself).
                let given: FramePacking? = stated == .sbs ? .sideBySide : stated == .tb ? .topBottom : nil
                if case .success(let s?) = probe.sphereSplit(projection: nil, packing: given) {
                    src.sphere = FramePackedOutput.sphericalBox(
                        bounds: s.projection == "hequ" ? [0, 0, 0x4000_0000, 0x4000_0000] : [0, 0, 0, 0])
                    src.sphereText = "\(s.projectionText), as FFmpeg reads it (\(sph.projection))"
                } else {
                    src.notes.append(
                        "the sphere's projection (\(sph.projection), as FFmpeg reads it) is not a full equirectangular 180° or 360° picture: MP4/MOV outputs carry no projection metadata"
                    )
                }
            }
        }
        switch (signalled, stated) {
        case (let s?, let t?) where t != .auto && t != s.0:
            throw ParseError(
                .invalidArgument, path: path,
                "the movie says its eyes are \(s.0 == .sbs ? "side by side" : "top-bottom") (\(s.1)), not \(t == .sbs ? "side by side" : "top-bottom") as given; leave out the layout or give \(s.0.rawValue)"
            )
        case (let s?, _):
            src.layout = s.0; src.layoutOrigin = s.1
        case (nil, let t?) where t != .auto:
            src.layout = t; src.layoutOrigin = "stated"
        default:
            throw ParseError(
                .invalidArgument, path: path,
                "as far as its metadata says (no vexu/pack, st3d or Google spherical XML), the movie holds one view: if its picture holds both eyes, state the layout, side by side or top-bottom",
                remedy: .giveLayout)
        }
        return src
    }

    /// The `sv3d` each eye's movie carries: the source's equirectangular projection and crop (Google v2 as stored;
    /// v1 XML and APMP `equi`/`hequ` through their Google form).
    static func sphere(_ m: StereoVideoMetadata, into src: inout FramePackedSource) {
        let g = googleSphere(m)
        src.sphere = g.box
        src.sphereText = g.box == nil ? nil : g.text
        if g.box == nil {
            src.notes.append(
                "the sphere's projection (\(g.text)) has no equirectangular Google form: each eye's movie carries no projection metadata"
            )
        }
    }

    /// Google's `sv3d` for a sphere's outputs (nil when its projection has no equirectangular Google form) and the
    /// text of every projection statement of `m`.
    static func googleSphere(_ m: StereoVideoMetadata) -> (box: Box?, text: String) {
        var bounds: [UInt32]?
        var pose: [Int32] = [0, 0, 0]
        if m.presentBoxes.contains("sv3d") {
            if m.googleProjection == "equi" {
                bounds = m.googleEquirectBounds ?? [0, 0, 0, 0]
                pose = m.googlePose ?? pose
            }
        } else if case .success(let s) = m.googleToAPMP() {
            bounds = s.projection == "hequ" ? [0, 0, 0x4000_0000, 0x4000_0000] : [0, 0, 0, 0]
        } else if case .success(let g) = m.apmpToGoogle(isMVHEVC: false) {
            bounds = g.bounds
        }
        let forms = m.projectionForms.map { "\($0.source): \($0.text)" }.joined(separator: "; ")
        guard let bounds, bounds.count == 4, pose.count == 3 else { return (nil, forms) }
        return (FramePackedOutput.sphericalBox(bounds: bounds, pose: pose), forms)
    }
}

extension VideoSplitter {
    /// Splits a frame-packed movie: FFmpeg decodes it, crops each half (``FramePackedSource/layout``) and x265 encodes
    /// each eye (or both eyes in the other packing); the audio is copied. A sphere's eyes keep its projection
    /// (Google `st3d` 0 and `sv3d`); a re-packed sphere is tagged `st3d` 1/2 with the `sv3d`, a re-packed flat movie
    /// with Apple's frame-packing boxes and Google's `st3d` (``/SpatialMedia/FramePackedOutput``).
    static func splitFramePacked(
        _ src: FramePackedSource, options o: VideoSplitOptions, cancellation: ConversionCancellation?,
        progress: ((VideoConversionProgress) -> Void)?
    ) throws(ParseError) -> VideoSplitReport {
        if o.copy {
            throw ParseError(
                .invalidArgument, path: src.path,
                "a frame-packed picture holds both eyes: cutting it needs re-encoding (leave out the copy option)")
        }
        let sbsIn = src.layout == .sbs
        switch o.target {
        case .sideBySide where sbsIn, .overUnder where !sbsIn:
            throw ParseError(
                .invalidArgument, path: src.path,
                "the movie is already \(sbsIn ? "side by side" : "over-under"): write the eyes or the other packing")
        default: break
        }
        let ff = try FFmpeg.require(.any, for: "splitting \(src.path)", override: o.ffmpeg)
        let halves = sbsIn ? ["crop=iw/2:ih:0:0", "crop=iw/2:ih:iw/2:0"] : ["crop=iw:ih/2:0:0", "crop=iw:ih/2:0:ih/2"]
        var args = ["-nostdin", "-hide_banner", "-v", "error", "-y", "-i", src.path]
        let audio = o.audio ? ["-map", "0:a?", "-c:a", "copy"] : []
        // One eye is one picture: the source's stereo side data ("side by side") must not reach it, or FFmpeg's MOV
        // muxer writes vexu/eyes without pack (a 2D-showing half-tagged file) and Matroska a packed StereoMode.
        var eyes = false
        if case .eyes = o.target { eyes = true }
        let strip = eyes ? ",sidedata=mode=delete:type=STEREO3D" : ""
        var graph = "[0:v:0]split=2[a][b];[a]\(halves[0])\(strip),setsar=1[l];[b]\(halves[1])\(strip),setsar=1[r]"
        switch o.target {
        case .sideBySide(let out), .overUnder(let out):
            let sbs: Bool
            if case .sideBySide = o.target { sbs = true } else { sbs = false }
            let squeeze = o.half ? (sbs ? "scale=iw/2:ih:flags=lanczos," : "scale=iw:ih/2:flags=lanczos,") : ""
            graph += ";[l]\(squeeze)setsar=1[l2];[r]\(squeeze)setsar=1[r2];[l2][r2]\(sbs ? "hstack" : "vstack")[v]"
            let mkvStereo =
                muxer(out) == "matroska" ? ["-metadata:s:v:0", "stereo_mode=\(sbs ? "left_right" : "top_bottom")"] : []
            args +=
                ["-filter_complex", graph, "-map", "[v]"]
                + outputTail(out, encode: x265Arguments(o), tags: mkvStereo, audio: audio, sphere: src.sphere) + [
                    "OUTPUT0"
                ]
        case .eyes(let l, let r):
            args += ["-filter_complex", graph]
            var n = 0
            for (label, out) in [("[l]", l), ("[r]", r)] {
                guard let out else {
                    args += ["-map", label, "-f", "null", "-"]
                    continue
                }
                args +=
                    ["-map", label]
                    + outputTail(
                        out, encode: x265Arguments(o), tags: matroskaMono(out), audio: audio, sphere: src.sphere) + [
                        "OUTPUT\(n)"
                    ]
                n += 1
            }
        }
        try runFFmpeg(
            ff.path, args, outputs: o.target.paths, cancellation: cancellation, frames: src.frames, progress: progress
        ) { (temps: [String]) throws(ParseError) in
            if let sphere = src.sphere {
                for (temp, out) in zip(temps, o.target.paths) where muxer(out) == "matroska" {
                    try finishMatroskaSphere(
                        temp, output: out, stereoMode: o.target.googleStereoMode, sv3d: sphere, source: src.path,
                        audio: o.audio, tool: ff)
                }
            }
            for (temp, out) in zip(temps, o.target.paths) where muxer(out) != "matroska" {
                switch o.target {
                case .sideBySide, .overUnder:
                    let side: Bool
                    if case .sideBySide = o.target { side = true } else { side = false }
                    if let sphere = src.sphere {
                        try FramePackedOutput.tagGoogleSpherical(path: temp, stereoMode: side ? 2 : 1, sv3d: sphere)
                    } else {
                        try FramePackedOutput.tag(
                            path: temp, packing: side ? "side" : "over", heroEye: src.heroEye,
                            hfovMillidegrees: src.hfovMillidegrees)
                    }
                case .eyes:
                    if let sphere = src.sphere {
                        try FramePackedOutput.tagGoogleSpherical(path: temp, stereoMode: 0, sv3d: sphere)
                    }
                }
            }
            if src.sphere == nil { try carryStereo(src.stereo, temps: temps, target: o.target) }
        }
        var report = VideoSplitReport(
            frames: src.frames, interLayerPrediction: false, eyeOrder: "", heroEye: src.heroEye.map { "\($0)" },
            disparityAdjustment: nil, method: "", outputs: o.target.paths, audioTracks: o.audio ? src.audioTracks : 0,
            notes: src.notes)
        report.packing =
            "frame-packed \(sbsIn ? "side by side: left eye = left half" : "top-bottom: left eye = top half") (\(src.layoutOrigin))"
        report.method =
            "decoded by FFmpeg \(ff.version), each half cropped, re-encoded by x265 (CRF \(NumberText.fixed(o.crf, places: 2, trimZeros: true)), preset \(o.preset))"
        if let s = src.sphereText {
            report.notes.append("sphere (\(s)): each output keeps the projection (Google st3d + sv3d)")
        }
        if src.sphere == nil, let note = carriedNote(src.stereo, target: o.target) { report.notes.append(note) }
        if o.half {
            report.notes.append(
                sbsIn
                    ? "half-height over-under: each eye squeezed to half its height"
                    : "half-width side by side: each eye squeezed to half its width")
        }
        return report
    }

    /// FFmpeg's x265 arguments of a split's re-encode: 10-bit for a source of more than 8 bits, and the source's HDR
    /// static metadata written by x265 into every eye (FFmpeg passes the colour description on by itself, but the
    /// mastering display only with the pictures that carry it: not the second view's).
    static func x265Arguments(_ o: VideoSplitOptions, bitDepth: Int = 8, colour: VideoColour? = nil) -> [String] {
        var params = ["log-level=error"]
        if let m = colour?.masteringDisplay, m.count == 24 {
            func u16(_ i: Int) -> Int { Int(m[i]) << 8 | Int(m[i + 1]) }
            func u32(_ i: Int) -> Int { u16(i) << 16 | u16(i + 2) }
            let primaries = "G(\(u16(0)),\(u16(2)))B(\(u16(4)),\(u16(6)))R(\(u16(8)),\(u16(10)))"
            params.append("master-display=\(primaries)WP(\(u16(12)),\(u16(14)))L(\(u32(16)),\(u32(20)))")
        }
        if let c = colour?.contentLightLevel, c.count == 4 {
            params.append("max-cll=\(Int(c[0]) << 8 | Int(c[1])),\(Int(c[2]) << 8 | Int(c[3]))")
        }
        return [
            "-c:v", "libx265", "-crf", NumberText.fixed(o.crf, places: 2, trimZeros: true), "-preset", o.preset,
            "-pix_fmt", bitDepth > 8 ? "yuv420p10le" : "yuv420p", "-tag:v", "hvc1",
            "-x265-params", params.joined(separator: ":"),
        ]
            + (colour.map { MediaProbe.ffmpegColourArguments($0) } ?? [])
    }
}
