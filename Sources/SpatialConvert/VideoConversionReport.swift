import SpatialMedia
import SystemSupport

/// What a video conversion produced and measured.
public struct VideoConversionReport: Sendable, StereoValuesReport {
    public var output: String
    public var source: String
    public var frames: Int
    public var eyeWidth: Int
    public var eyeHeight: Int
    public var fpsNum: Int
    public var fpsDen: Int
    public var bytes: UInt64
    /// Bytes of layer-0 and layer-1 NAL units (payload of the samples).
    public var layer0Bytes: Int
    public var layer1Bytes: Int
    /// The stereo parameters written (every field set).
    public var stereo: StereoParameters
    public var baselineSource: String
    public var hfovSource: String
    public var disparitySource: String
    /// The hero eye (and base layer) is the left eye.
    public var heroIsLeft: Bool { stereo.heroEye != .right }
    public var audioTracks: [String]
    public var encoder: String
    /// How the two layers were encoded, and whether a multiview libx265 was found.
    public var encodePath: String
    /// Things done to the input a person should know about (dropped columns, 10-bit → 8-bit, …).
    public var notes: [String]
    /// Wall-clock seconds, total and per phase.
    public var seconds: Double
    /// CPU seconds of our own work outside x265: reading/decoding input, splitting, queueing (reader thread),
    /// Annex B packing (encoder threads), assembly, muxing and writing.
    public var ownCPUSeconds: Double
    /// CPU seconds of the whole process (x265 included).
    public var processCPUSeconds: Double
    public var peakRSSBytes: UInt64
    /// What `--align` / `--auto-disparity` measured and did (nil when neither was asked).
    public var alignment: VideoAlignmentReport? = nil
    /// What the conversion-time geometry check found (nil when none was asked or `--align` measured instead).
    public var geometryCheck: VideoGeometryCheckReport? = nil
    /// The sphere cut into the two views (the APMP route), nil for rectilinear video.
    public var sphere: SphereSplit? = nil

    public var layer1ToLayer0: Double { layer0Bytes > 0 ? Double(layer1Bytes) / Double(layer0Bytes) : 0 }
    public var kbps: (layer0: Double, layer1: Double) {
        let d = Double(frames) * Double(fpsDen) / Double(max(1, fpsNum))
        guard d > 0 else { return (0, 0) }
        return (Double(layer0Bytes) * 8 / d / 1000, Double(layer1Bytes) * 8 / d / 1000)
    }

    /// Human-readable lines (the CLI prints them).
    public var lines: [String] {
        var l =
            [
                "\(frames) frames, \(eyeWidth)×\(eyeHeight) per eye, \(fpsNum)/\(fpsDen) fps, \(bytes) bytes, from \(source)",
                "encoder: \(encoder)",
                "encode path: \(encodePath)",
                "layer 0 (\(heroIsLeft ? "left" : "right")): \(Int(kbps.layer0.rounded())) kbit/s, layer 1: \(Int(kbps.layer1.rounded())) kbit/s (layer 1 / layer 0 = \(fmt((layer1ToLayer0 * 100).rounded() / 100)))",
            ] + stereoLines + [
                "hero eye: \(heroIsLeft ? "left" : "right") (base layer)",
                "audio: " + (audioTracks.isEmpty ? "none" : audioTracks.joined(separator: "; ")),
                "time: \(fmt(seconds)) s (\(fmt(Double(frames) / max(seconds, 1e-9))) fps); work outside x265: \(fmt(ownCPUSeconds)) of \(fmt(processCPUSeconds)) CPU s",
            ]
        if let a = alignment { l += a.lines }
        if let g = geometryCheck { l += g.lines }
        for n in notes { l.append("note: \(n)") }
        return l
    }

    /// The stereo values written: baseline, field of view and disparity; for a sphere its projection instead of a
    /// field of view, and only the values given.
    var stereoLines: [String] {
        guard let s = sphere else {
            return [
                "baseline: \(fmt(baselineMM)) mm (\(baselineSource))",
                "horizontal field of view: \(fmt(hfovDegrees))° (\(hfovSource))",
                "disparity adjustment: \(fmt(disparityPercent)) % (\(disparitySource))",
            ]
        }
        return [
            "projection: \(s.projectionText) from \(s.source); source \(s.packing == .sideBySide ? "side by side" : "over-under")\(s.firstIsRight ? ", right eye first (stri eye_views_reversed)" : ""); MV-HEVC APMP, no hfov (only rectilinear video carries one)",
            stereo.baselineMicrometres.map {
                "baseline: \(fmt(SpatialUnits.millimetres(fromMicrometres: $0))) mm (\(baselineSource))"
            } ?? "baseline: not written (not known; --baseline sets it)",
            stereo.disparityAdjustment.map {
                "disparity adjustment: \(fmt(SpatialUnits.percent(fromDisparityUnits: $0))) % (\(disparitySource))"
            } ?? "disparity adjustment: not written",
        ]
    }
}

func fmt(_ v: Double) -> String { NumberText.fixed(v, places: 3, trimZeros: true) }

extension VideoConverter {
    static func report(
        _ plan: Plan, _ e: Encoded, audio: [String], output: String, options o: VideoConversionOptions,
        seconds: Double, processCPU: Double
    ) -> VideoConversionReport {
        // A sphere carries only the values given (none is a default there).
        let absent = plan.sphere == nil ? "default, not measured" : "not written"
        return VideoConversionReport(
            output: output, source: plan.sourceName, frames: e.frames, eyeWidth: plan.eyeW, eyeHeight: plan.eyeH,
            fpsNum: plan.fpsNum, fpsDen: plan.fpsDen, bytes: FileSystem.size(output) ?? 0,
            layer0Bytes: e.writer.layer0Bytes, layer1Bytes: e.writer.layer1Bytes,
            stereo: plan.mux.stereo,
            baselineSource: o.stereo.baselineMicrometres == nil ? absent : o.stereoSources.baseline ?? "--baseline",
            hfovSource: plan.sphere != nil
                ? "not written: a sphere's field of view is its projection's"
                : o.stereo.horizontalFieldOfViewMillidegrees == nil ? absent : o.stereoSources.hfov ?? "--hfov",
            disparitySource: o.stereo.disparityAdjustment == nil ? absent : o.stereoSources.disparity ?? "--disparity",
            audioTracks: audio, encoder: e.encoderText, encodePath: e.pathText,
            notes: o.inputNotes + plan.notes + e.eyes.notes, seconds: seconds,
            ownCPUSeconds: e.ownCPU, processCPUSeconds: processCPU, peakRSSBytes: peakRSSBytes())
    }
}
