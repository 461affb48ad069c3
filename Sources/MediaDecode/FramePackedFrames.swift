import BinaryIO
import SystemSupport
import ImageFormats

/// Presented frames of a frame-packed movie (both eyes in one picture), decoded by FFmpeg and cut into the eyes.
public enum FramePackedFrames {
    /// Frames at `indices` (presentation order, at `fpsNum`/`fpsDen` frames per second) as 8-bit grey eyes: one FFmpeg
    /// run per frame with a seek to it, so only the pictures from the keyframe before it are decoded. `layout` `sbs`
    /// puts the left eye in the left half, `tb` on top (an odd middle row or column is dropped).
    public static func sample(_ path: String, indices: [Int], fpsNum: Int, fpsDen: Int, layout: StereoLayout,
                              ffmpeg override: String? = nil) throws(ParseError) -> [(index: Int, left: Image, right: Image)] {
        var out: [(Int, Image, Image)] = []
        for (i, frame) in try pictures(path, indices: indices, fpsNum: fpsNum, fpsDen: fpsDen, ffmpeg: override) {
            let eyes = try StereoImages.halves(frame, layout: layout)
            out.append((i, eyes.left, eyes.right))
        }
        return out
    }

    /// Whole frames at `indices` as 8-bit grey pictures, decoded as ``sample(_:indices:fpsNum:fpsDen:layout:ffmpeg:)``
    /// decodes them (FFmpeg applies the display matrix's rotation, as the conversion's FFmpeg reader does).
    public static func pictures(_ path: String, indices: [Int], fpsNum: Int, fpsDen: Int,
                                ffmpeg override: String? = nil) throws(ParseError) -> [(index: Int, picture: Image)] {
        let ff = try FFmpeg.require(.any, for: "decoding frames of \(path)", override: override)
        var out: [(Int, Image)] = []
        for i in indices {
            // Just before frame i starts: FFmpeg drops frames that start before the seek point, so it is the first kept.
            let t = max(0, Double(i) * Double(max(1, fpsDen)) / Double(max(1, fpsNum)) - 0.0001)
            guard let child = try? ChildProcess(executable: ff.path, arguments: [
                "-nostdin", "-v", "error", "-ss", NumberText.fixed(t, places: 6), "-i", path, "-map", "0:v:0", "-frames:v", "1",
                "-pix_fmt", "gray", "-f", "image2pipe", "-c:v", "pgm", "-",
            ]) else { throw ParseError(.io, offset: 0, path: path, "cannot start FFmpeg (\(ff.path))") }
            let data = child.readToEnd(limit: 1 << 28)
            let status = child.wait()
            guard status == 0, let data, let frame = SpatialVideoSource.parsePGMs(data).first else {
                throw ParseError(.unsupported, offset: 0, path: path, "FFmpeg could not decode frame \(i) (exit status \(status)): \(child.errorText())")
            }
            out.append((i, frame))
        }
        return out
    }
}
