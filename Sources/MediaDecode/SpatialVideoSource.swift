import BinaryIO
import HEVC
import ISOBMFF
import ImageFormats
import SpatialMedia
import SystemSupport

/// A spatial video (two-layer MV-HEVC movie) as the decode layer sees it: which layer is which eye, whether the second
/// layer is predicted from the first, and its timing — read from the configuration records and the first samples,
/// without decoding. ``sampledFrames(_:ffmpeg:)`` decodes chosen frames of both eyes.
public struct SpatialVideoSource: Sendable {
    public var path: String
    public var frames: Int
    public var interLayerPrediction: Bool
    /// `nuh_layer_id` 0 carries the left eye.
    public var baseIsLeft: Bool
    /// View ids of the left and right views (for FFmpeg's `view:` stream specifier).
    public var leftViewId: Int
    public var rightViewId: Int
    public var eyeOrder: String
    public var heroEye: String?
    public var disparityAdjustment: Int32?
    /// `hfov` in thousandths of a degree, nil when absent: each eye's field of view, which a frame-packed split keeps.
    public var hfovMillidegrees: UInt32?
    /// `vexu/eyes/cams/blin` in micrometres, nil when absent.
    public var baselineMicrometres: UInt32? = nil
    public var audioTracks: Int
    public var fpsNum: Int
    public var fpsDen: Int
    /// `vexu/proj/prji` as stored (nil when absent): an APMP sphere (`hequ`, `equi`) stays one when packed back.
    public var projectionKind: FourCC? = nil
    /// What the base layer states about its colour (VUI, HDR SEI of `hvcC`, `mdcv`/`clli`), nil when nothing.
    public var colour: VideoColour? = nil
    /// Bits per luma sample of the base layer (`hvcC`).
    public var bitDepth = 8
}

extension SpatialVideoSource {
    /// Reads the facts; errors say why a file is not a two-view video (not a movie, no HEVC, one layer).
    public static func inspect(_ path: String, limits: Limits = .default) throws(ParseError) -> SpatialVideoSource {
        let file = try ISOFile.open(path: path, limits: limits)
        let report = SpatialVideoReport(file)
        guard let v = report.primary, let track = file.tracks.first(where: { $0.trackID == v.trackID }) else {
            throw ParseError(.unsupported, path: path, "no video track: nothing to split")
        }
        guard v.isHEVC, let entry = track.sampleEntries.first,
            let hvcC = entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record
        else {
            throw ParseError(
                .unsupported, path: path,
                "the video is '\(v.sampleEntryType?.description ?? "?")', not MV-HEVC: not a two-view spatial video (a frame-packed 3D movie holds both eyes in one picture: `spatial-media split` cuts them apart)"
            )
        }
        guard let lhvC = entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record else {
            throw ParseError(
                .unsupported, path: path,
                "a single-layer (2D) HEVC video: there is only one view, so nothing to split")
        }
        var samples: [[UInt8]] = []
        if let list = try? track.samples(first: 3) {
            for s in list where s.size <= 8 << 20 {
                if let b = try? file.readBytes(at: s.offset, count: Int(s.size)) { samples.append(b) }
            }
        }
        let info = try HEVCStreamInfo(hvcC: hvcC, lhvC: lhvC, samples: samples)
        guard info.layerCount >= 2, info.layers.count >= 2 else {
            throw ParseError(.unsupported, path: path, "the stream has one layer: nothing to split")
        }
        let ilp = info.layers[1].usesInterLayerPrediction ?? !info.layers[1].directReferenceLayers.isEmpty
        let baseIsLeft: Bool
        let order: String
        if let l = info.leftLayerId {
            baseIsLeft = l == 0
            order = "layer 0 = \(baseIsLeft ? "left" : "right") eye (SEI 176)"
        } else {
            baseIsLeft = true
            order = "layer 0 = left eye (no SEI 176: the usual order assumed)"
        }
        let v0 = info.layers[0].viewId ?? 0, v1 = info.layers[1].viewId ?? 1
        let ts = Int(track.timescale)
        let d = (try? track.samples(first: 1))?.first.map { Int($0.duration) } ?? 0
        let (num, den) = ts > 0 && d > 0 ? reduced(ts, d) : (30, 1)
        let hero: String? = v.metadata.heroEye.map { "\($0)" }
        var source = SpatialVideoSource(
            path: path, frames: track.sampleCount, interLayerPrediction: ilp, baseIsLeft: baseIsLeft,
            leftViewId: baseIsLeft ? v0 : v1, rightViewId: baseIsLeft ? v1 : v0, eyeOrder: order,
            heroEye: hero, disparityAdjustment: v.metadata.disparityAdjustment,
            hfovMillidegrees: v.metadata.horizontalFieldOfViewMillidegrees,
            audioTracks: file.tracks.filter { $0.handler == "soun" }.count, fpsNum: num, fpsDen: den)
        source.projectionKind = v.metadata.projectionKind
        source.baselineMicrometres = v.metadata.baselineMicrometres
        source.colour = try? HEVCTrackProducer.statedColour(hvcC: hvcC, entry: entry, firstSample: [])
        if let rec = try? HEVCDecoderConfigurationRecord(parsing: hvcC) {
            source.bitDepth = Int(rec.bitDepthLumaMinus8) + 8
        }
        return source
    }

    /// Frames at `indices` (display order) of both eyes as 8-bit grey images, decoded by FFmpeg ≥ 7.1 with a seek to
    /// each: only the pictures from the keyframe before each index are decoded, not the whole clip.
    public func sampledFrames(_ indices: [Int], ffmpeg override: String? = nil) throws(ParseError) -> [(
        index: Int, left: Image, right: Image
    )] {
        var out: [(Int, Image, Image)] = []
        for i in indices {
            guard let f = try frameRun(start: i, count: 1, eyeWidth: nil, ffmpeg: override).first else {
                throw ParseError(.unsupported, path: path, "FFmpeg decoded no picture at frame \(i)")
            }
            out.append((i, f.left, f.right))
        }
        return out
    }

    /// `count` consecutive frames of both eyes from frame `start` (display order) as 8-bit grey images, each eye
    /// scaled to `eyeWidth` pixels wide (nil: full size): one FFmpeg ≥ 7.1 run with a seek, decoding only from the
    /// keyframe before `start` (for motion measurements such as the eyes' time offset). Fewer frames come back near
    /// the end of the clip.
    public func frameRun(start: Int, count: Int, eyeWidth: Int? = 160, ffmpeg override: String? = nil)
        throws(ParseError) -> [(left: Image, right: Image)]
    {
        let ff = try FFmpeg.require(.mvhevcViews, for: "decoding both views of \(path)", override: override)
        // Just before frame `start` starts: FFmpeg drops frames that start before the seek point, so it is the first
        // kept.
        let t = max(0, Double(start) * Double(fpsDen) / Double(max(1, fpsNum)) - 0.0001)
        let scale = eyeWidth.map { ",scale=\(max(2, min($0, 4096)) * 2):-2:flags=area" } ?? ""
        let graph = "[0:v:0:view:\(leftViewId)][0:v:0:view:\(rightViewId)]hstack\(scale)[v]"
        let run = try Self.greyPictures(
            ffmpeg: ff.path, path: path,
            [
                "-ss", NumberText.fixed(t, places: 6), "-i", path, "-filter_complex", graph, "-map", "[v]",
                "-frames:v", "\(max(1, min(count, 64)))",
            ])
        if let failure = run.failure {
            throw ParseError(
                .unsupported, path: path, "FFmpeg could not decode frame \(start)\(count > 1 ? "…" : "") (\(failure))")
        }
        var out: [(Image, Image)] = []
        for both in run.pictures where both.width >= 2 {
            let half = both.width / 2
            out.append(
                (
                    try ImageOps.crop(both, x: 0, y: 0, width: half, height: both.height),
                    try ImageOps.crop(both, x: half, y: 0, width: half, height: both.height)
                ))
        }
        return out
    }

    static func reduced(_ a: Int, _ b: Int) -> (Int, Int) {
        var x = a, y = b
        while y != 0 { (x, y) = (y, x % y) }
        return (a / x, b / x)
    }

    /// Runs FFmpeg (`ffmpeg`) with `arguments` (the input and what to take of it) and reads the 8-bit grey pictures
    /// it writes to a pipe as PGM; `failure` is FFmpeg's exit status and message when it did not end well.
    static func greyPictures(ffmpeg: String, path: String, _ arguments: [String]) throws(ParseError) -> (
        pictures: [Image], failure: String?
    ) {
        guard
            let child = try? ChildProcess(
                executable: ffmpeg,
                arguments: ["-nostdin", "-v", "error"] + arguments + [
                    "-pix_fmt", "gray", "-f", "image2pipe", "-c:v", "pgm", "-",
                ])
        else { throw ParseError(.io, path: path, "cannot start FFmpeg (\(ffmpeg))") }
        let data = child.readToEnd(limit: 1 << 28)
        let status = child.wait()
        guard status == 0, let data else {
            let message = child.errorText()
            return ([], "exit status \(status)\(message.isEmpty ? "" : ": " + message)")
        }
        return (parsePGMs(data), nil)
    }

    /// Concatenated binary PGM (P5) images.
    static func parsePGMs(_ b: [UInt8]) -> [Image] {
        var out: [Image] = []
        var i = 0
        func token() -> Int? {
            while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
            var v = 0, digits = 0
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39, digits < 9 {
                v = v * 10 + Int(b[i] - 0x30); i += 1; digits += 1
            }
            return digits > 0 ? v : nil
        }
        while i + 2 < b.count, b[i] == 0x50, b[i + 1] == 0x35 {
            i += 2
            guard let w = token(), let h = token(), let mx = token(), mx == 255, w > 0, h > 0, w <= 32768, h <= 32768
            else { break }
            i += 1
            guard i + w * h <= b.count,
                let g = try? Image(
                    width: w, height: h, bitDepth: 8, format: .gray, planes: .u8([Array(b[i..<(i + w * h)])]))
            else { break }
            out.append(g)
            i += w * h
        }
        return out
    }
}
