import BinaryIO
import ImageFormats
import SystemSupport

/// Presented frames of a frame-packed movie (both eyes in one picture), decoded by FFmpeg and cut into the eyes.
public enum FramePackedFrames {
    /// Frames at `indices` (presentation order, at `fpsNum`/`fpsDen` frames per second) as 8-bit grey eyes: one FFmpeg
    /// run per frame with a seek to it, so only the pictures from the keyframe before it are decoded. `layout` `sbs`
    /// puts the left eye in the left half, `tb` on top (an odd middle row or column is dropped).
    public static func sample(
        _ path: String, indices: [Int], fpsNum: Int, fpsDen: Int, layout: StereoLayout,
        ffmpeg override: String? = nil
    ) throws(ParseError) -> [(index: Int, left: Image, right: Image)] {
        var out: [(Int, Image, Image)] = []
        for (i, frame) in try pictures(path, indices: indices, fpsNum: fpsNum, fpsDen: fpsDen, ffmpeg: override) {
            let eyes = try StereoImages.halves(frame, layout: layout)
            out.append((i, eyes.left, eyes.right))
        }
        return out
    }

    /// Whole frames at `indices` as 8-bit grey pictures, decoded as ``sample(_:indices:fpsNum:fpsDen:layout:ffmpeg:)``
    /// decodes them (FFmpeg applies the display matrix's rotation, as the conversion's FFmpeg reader does). The frames
    /// a seek does not find (an MPEG-TS whose one keyframe opens it) are decoded from the start in one run
    /// (``selected(_:indices:ffmpeg:)``); a frame neither finds is an error.
    public static func pictures(
        _ path: String, indices: [Int], fpsNum: Int, fpsDen: Int,
        ffmpeg override: String? = nil
    ) throws(ParseError) -> [(index: Int, picture: Image)] {
        let ff = try FFmpeg.require(.any, for: "decoding frames of \(path)", override: override)
        var out: [(index: Int, picture: Image)] = [], missing: [Int] = []
        var why = ""
        for i in indices {
            // Just before frame i starts: FFmpeg drops frames that start before the seek point, so it is the first
            // kept.
            let t = max(0, Double(i) * Double(max(1, fpsDen)) / Double(max(1, fpsNum)) - 0.0001)
            let run = try SpatialVideoSource.greyPictures(
                ffmpeg: ff.path, path: path,
                ["-ss", NumberText.fixed(t, places: 6), "-i", path, "-map", "0:v:0", "-frames:v", "1"])
            if run.failure == nil, let frame = run.pictures.first {
                out.append((i, frame)); continue
            }
            missing.append(i)
            why = run.failure ?? "no picture"
        }
        guard !missing.isEmpty else { return out }
        let found = try selected(path, indices: missing, ffmpeg: override)
        if let lost = missing.first(where: { i in !found.contains { $0.index == i } }) {
            throw ParseError(.unsupported, path: path, "FFmpeg could not decode frame \(lost) (\(why))")
        }
        return (out + found).sorted { $0.index < $1.index }
    }

    /// Whole frames at `indices` (display order) as 8-bit grey pictures from one FFmpeg run that decodes the stream
    /// from its start and keeps only those frames (a `select` filter): for inputs where seeking to a frame finds none
    /// (an MPEG-TS whose only keyframe opens it). Frames past the end are missing from the result.
    public static func selected(_ path: String, indices: [Int], ffmpeg override: String? = nil) throws(ParseError) -> [(
        index: Int, picture: Image
    )] {
        let wanted = Array(Set(indices.filter { $0 >= 0 })).sorted()
        guard !wanted.isEmpty else { return [] }
        let ff = try FFmpeg.require(.any, for: "decoding frames of \(path)", override: override)
        let select = "select=" + wanted.map { "eq(n\\,\($0))" }.joined(separator: "+")
        let vsync: [String] = (ff.major, ff.minor) >= (5, 1) ? ["-fps_mode", "passthrough"] : ["-vsync", "0"]
        let run = try SpatialVideoSource.greyPictures(
            ffmpeg: ff.path, path: path, ["-i", path, "-map", "0:v:0", "-vf", select] + vsync)
        if let failure = run.failure {
            throw ParseError(.unsupported, path: path, "FFmpeg could not decode frames \(wanted) (\(failure))")
        }
        return Array(zip(wanted, run.pictures))
    }
}
