import BinaryIO
import HEVC

/// What `SpatialVideoMuxer.muxMultiview(stream:output:swapEyes:hero:mux:limits:)` wrote and decided.
public struct MultiviewStreamMuxResult: Sendable {
    public var mux: SpatialVideoMuxResult
    /// Access units of the stream (one sample each).
    public var accessUnits: Int
    /// Layer 0 is the left eye in the movie (its SEI 176 says so).
    public var baseIsLeft: Bool
    /// Where the eye order came from (the stream's SEI, or the default), and `--swap-eyes` when it applied.
    public var eyeSource: String
    /// The frame rate written and where it came from.
    public var fpsNum: UInt32
    public var fpsDen: UInt32
    public var fpsSource: String
    /// The hero eye written to `vexu`.
    public var hero: HeroEye
}

extension SpatialVideoMuxer {
    /// Muxes a raw two-view MV-HEVC stream (``/HEVC/MVHEVCAnnexBReader``) as a spatial video without re-encoding:
    /// the header is built from its VPS/SPS/PPS as for a multiview encode
    /// (``/HEVC/MVHEVCStream/init(encoderHeaders:baseIsLeft:)``, our SEI 176 naming the left view), each access
    /// unit keeps its coded pictures (inter-layer prediction included) and is written as it is read
    /// (``SpatialVideoStreamWriter``), so memory does not grow with the stream.
    ///
    /// Layer 0's eye is the one the stream's SEI 176 or 180 states, else left; `swapEyes` flips it. The frame rate is
    /// `mux.frameRateNum/Den` when given, else the base SPS's VUI timing, else the VPS timing; a stream without any is
    /// refused (no rate is invented). `hero` nil makes the base layer's eye the hero. Writes `output` (a scratch path
    /// the caller renames); throws ``/BinaryIO/ParseError/Code/unsupported`` for a stream that is not two views.
    package static func muxMultiview(
        stream path: String, output: String, swapEyes: Bool, hero: HeroEye?,
        mux: SpatialVideoMuxOptions,
        limits: Limits = .default
    ) throws(ParseError) -> MultiviewStreamMuxResult {
        var reader = try MVHEVCAnnexBReader(path: path, limits: limits)
        let stated = reader.statedBaseIsLeft
        let baseIsLeft = (stated?.isLeft ?? true) != swapEyes
        var eyeSource =
            stated?.source
            ?? "no SEI 176 or 180 in the stream names the eyes: layer 0 taken as the left eye"
        if swapEyes { eyeSource += "; swapped (--swap-eyes)" }
        let header = try MVHEVCStream(encoderHeaders: reader.parameterSets, baseIsLeft: baseIsLeft)
        var m = mux
        let fpsSource: String
        if m.frameRateNum != nil {
            fpsSource = "given"
        } else if let t = header.timing, t.unitsInTick > 0, t.timeScale > 0 {
            m.frameRateNum = t.timeScale; m.frameRateDen = t.unitsInTick
            fpsSource = "the stream's SPS VUI timing"
        } else if let t = reader.vpsTiming {
            m.frameRateNum = t.timeScale; m.frameRateDen = t.unitsInTick
            fpsSource = "the stream's VPS timing"
        } else {
            throw ParseError(
                .invalidArgument, path: path,
                "the stream states no frame rate (no timing in its SPS VUI or VPS): give it "
                    + "(convert --fps, e.g. 30 or 30000/1001; \"frame_rate\" in the C and Python APIs)")
        }
        let heroEye = hero ?? (baseIsLeft ? .left : .right)
        m.stereo.heroEye = heroEye
        let writer = try SpatialVideoStreamWriter(path: output, options: m)
        while let au = try reader.next() { try writer.add(au) }
        guard reader.count > 0 else {
            throw ParseError(.truncated, path: path, "the stream has no access units")
        }
        let result = try writer.finish(header: header)
        return MultiviewStreamMuxResult(
            mux: result, accessUnits: reader.count, baseIsLeft: baseIsLeft,
            eyeSource: eyeSource, fpsNum: m.frameRateNum ?? 0, fpsDen: m.frameRateDen,
            fpsSource: fpsSource, hero: heroEye)
    }
}
