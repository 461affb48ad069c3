import BinaryIO
import ImageFormats
import MediaDecode
import SpatialConvert
import SpatialMedia
import SystemSupport

/// Matroska / WebM files (Specs/validation.md, SV-MKV-*): read through FFmpeg, since Matroska is not a box format.
/// Such a file can never be spatial (Apple's stereo metadata are QuickTime/MP4 boxes), but it can be a readable
/// frame-packed 3D movie, which `split` and `convert` take and `split` writes.
extension Validator {
    static func validateMatroska(path: String, options: ValidationOptions, into r: inout ValidationReport) {
        validateThroughFFmpeg(path: path, matroska: true, options: options, into: &r)
    }

    /// A Matroska file (SV-MKV-*), or any other video file `convert` reads through FFmpeg (MPEG-TS, AVI, …:
    /// SV-FFMPEG-*): its streams, stated stereo packing and projection as FFmpeg reads them, and the pixel check of a
    /// frame-packed one, the same reading `info` and `convert` make of it.
    static func validateThroughFFmpeg(
        path: String, matroska: Bool, options: ValidationOptions, into r: inout ValidationReport
    ) {
        r.kind = matroska ? "matroska" : "ffmpeg-video"
        r.spatial = false
        r.whyNotSpatial = [
            matroska
                ? "Matroska cannot carry Apple's spatial metadata (vexu, hfov and the second layer's lhvC are QuickTime/MP4 boxes)"
                : "only MP4/MOV can carry Apple's spatial metadata (vexu, hfov and the second layer's lhvC are QuickTime/MP4 boxes)"
        ]
        let probe: MediaProbe
        let ff: FFmpegTool
        do throws(ParseError) {
            ff = try FFmpeg.require(.any, for: "reading \(matroska ? "the Matroska file " : "")\(path)")
            probe = try MediaProbe.run(path, tool: ff)
        } catch {
            // Neither our parsers nor FFmpeg read it (or no FFmpeg to read it): unreadable, as for any other file.
            r.kind = "unreadable"
            unreadable(error, &r)
            return
        }
        streamIntegrity(path: path, tool: ff, probe: probe, into: &r)
        guard let video = probe.video else {
            r.findings.append(
                Finding(
                    matroska ? "SV-MKV-002" : "SV-FFMPEG-002", .error,
                    "the \(matroska ? "Matroska file" : "file") has no video stream FFmpeg can read"))
            r.unreadable = true
            return
        }
        var packing = options.layout.map { $0 == .tb ? FramePacking.topBottom : .sideBySide } ?? probe.stereoPacking
        var s =
            matroska
            ? "Matroska read through FFmpeg: video \(video.codec)"
            : "read through FFmpeg (\(probe.format ?? "unnamed") container): video \(video.codec)"
        if !probe.audio.isEmpty { s += ", \(probe.audio.count) audio stream\(probe.audio.count == 1 ? "" : "s")" }
        let stated = probe.stereoPacking.map { $0 == .sideBySide ? "side by side" : "top-bottom" }
        s +=
            matroska
            ? stated.map { ", StereoMode \($0)" } ?? ", no StereoMode"
            : stated.map { ", stereo packing \($0) (stated)" } ?? ", no stereo packing stated"
        if let sph = probe.spherical, sph.isSphere { s += ", projection \(sph.projection)" }
        s += "; it cannot be spatial: convert it with `spatial-media convert IN -o OUT.mov`"
        if packing != nil { s += ", or split its eyes with `spatial-media split IN --left L.mp4 --right R.mp4`" }
        r.findings.append(Finding(matroska ? "SV-MKV-001" : "SV-FFMPEG-001", .info, s))
        guard options.pixels, !r.damaged else { return }
        if packing == nil, probe.spherical?.isSphere != true {
            // Nothing states the packing: measured as `convert` measures it (SV-PAIR-008/009).
            do throws(ParseError) {
                let sampled = try PairRecognition.sampledFrames(path, limits: options.limits)
                guard
                    let l = recogniseLayout(sampled.map(\.picture), frames: sampled.map(\.index), video: true, into: &r)
                else { return }
                packing = l == .tb ? .topBottom : .sideBySide
            } catch {
                r.findings.append(
                    Finding.pixelsNotChecked(error.message))
                return
            }
        }
        guard let packing else { return }
        matroskaPixels(path: path, probe: probe, packing: packing, options: options, into: &r)
    }

    /// SV-FILE-002 for an input FFmpeg reads: every packet of its video stream read (not decoded), against its
    /// container's framing and stated duration, with FFmpeg's errors (``/MediaDecode/StreamIntegrity``).
    static func streamIntegrity(path: String, tool: FFmpegTool, probe: MediaProbe, into r: inout ValidationReport) {
        do throws(ParseError) {
            guard let why = try StreamIntegrity.scan(path: path, tool: tool, probe: probe) else { return }
            r.findings.append(Finding("SV-FILE-002", .error, why))
            r.damaged = true
            r.spatial = false
            if !r.whyNotSpatial.contains(damagedReason) { r.whyNotSpatial.append(damagedReason) }
        } catch {
            r.findings.append(
                Finding(
                    "SV-FILE-002", .warning,
                    "not checked for damage or truncation: \(error.message)"))
        }
    }

    /// Measures a few presented frames of a frame-packed Matroska movie, cut by its StereoMode (or `--layout`).
    static func matroskaPixels(
        path: String, probe: MediaProbe, packing: FramePacking, options: ValidationOptions,
        into r: inout ValidationReport
    ) {
        let fps = probe.frameRate ?? (30, 1)
        let total = Int(((probe.durationSeconds ?? 1) * Double(fps.num) / Double(max(1, fps.den))).rounded(.down))
        let picks = PixelSource.pickFrames(total: max(1, total), count: options.frames)
        let pairs: [(index: Int, left: Image, right: Image)]
        do throws(ParseError) {
            pairs = try FramePackedFrames.sample(
                path, indices: picks, fpsNum: fps.num, fpsDen: fps.den, layout: packing == .topBottom ? .tb : .sbs)
        } catch {
            r.findings.append(
                Finding.pixelsNotChecked(error.message))
            return
        }
        // A sphere is measured in its centre (FramePackedPixels), with the projection FFmpeg reads.
        var span: Double?
        if let sph = probe.spherical, sph.isSphere {
            switch probe.sphereSplit(projection: nil, packing: packing) {
            case .success(let split?): span = split.projection == "hequ" ? 180 : 360
            default:
                r.findings.append(
                    Finding(
                        "SV-GEOM-015", .info,
                        "pixels not checked: the sphere's projection (\(sph.projection)) is neither equirectangular 360° nor 180°, whose centre is measured"
                    ))
                return
            }
        }
        var region: String?
        for p in pairs {
            do throws(ParseError) {
                let how =
                    "frame-packed \(packing == .sideBySide ? "side by side" : "top-bottom") picture decoded by FFmpeg and cut in half"
                region =
                    try measurePair(
                        p.left, p.right, span: span, notes: ["\(how) (frame \(p.index))"], label: "frame \(p.index)",
                        facts: StereoFacts(), fromOnePicture: true, options: options, into: &r) ?? region
            } catch {
                r.findings.append(
                    Finding("SV-GEOM-022", .info, "frame \(p.index) could not be measured: \(error.message)"))
            }
        }
        if let region { r.findings.append(Finding("SV-GEOM-022", .info, region)) }
    }
}
