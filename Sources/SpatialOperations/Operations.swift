import BinaryIO
import HEVC
import MediaDecode
import SpatialConvert
import SpatialMedia
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one run of every job. Each write goes to a scratch file beside the output, is read back through the
/// validator's rules (``OutputCheck``), and is renamed into place only when it passes: a refused output leaves
/// nothing at the output path.
public enum Operations {
    /// Plans and runs a conversion (``ConvertPlan/make(_:spelling:)``, then ``convert(_:events:cancellation:)``).
    public static func convert(
        _ request: ConvertRequest, spelling: OptionSpelling, events: OperationEvents = OperationEvents(),
        cancellation: ConversionCancellation? = nil
    ) throws(ParseError) -> OperationReport {
        try convert(try ConvertPlan.make(request, spelling: spelling), events: events, cancellation: cancellation)
    }

    /// Runs a planned conversion.
    public static func convert(
        _ plan: ConvertPlan, events: OperationEvents = OperationEvents(),
        cancellation: ConversionCancellation? = nil
    ) throws(ParseError) -> OperationReport {
        let r = plan.request
        let inputs = [r.input, r.left, r.right].compactMap { $0 }
        let scratch = try AtomicFile.scratchPath(near: r.output)
        do throws(ParseError) {
            var report: OperationReport
            switch plan.job {
            case .photo(let o, let align, let autoDisparity):
                report = try convertPhoto(
                    r, o, align: align, autoDisparity: autoDisparity, strict: plan.strict, scratch: scratch,
                    events: events,
                    cancellation: cancellation)
            case .video(let o, let input):
                report = try convertVideo(r, o, input, scratch: scratch, events: events, cancellation: cancellation)
            case .hevcPair(let a, let m):
                report = try assemble(r, a, m, scratch: scratch)
            case .mvhevcStream(let m, let swap, let hero):
                report = try muxStream(r, m, swapEyes: swap, hero: hero, scratch: scratch)
            }
            report.outputs = plan.outputs
            try stopIfCancelled(cancellation)
            try finish(&report, scratch: scratch, output: r.output, inputs: inputs, strict: plan.strict)
            return report
        } catch {
            discard(scratch)
            throw error
        }
    }

    /// The end of every write: the read-back check, the `strict` refusal of source faults, then the rename.
    static func finish(_ report: inout OperationReport, scratch: String, output: String, inputs: [String], strict: Bool)
        throws(ParseError)
    {
        report.check = OutputCheck.run(written: scratch, output: output, inputs: inputs)
        if !report.check.passed { throw report.check.refusal }
        if strict, !report.warnings.isEmpty {
            throw ParseError(
                .outputCheckFailed, path: output,
                "refused (strict): the source has geometry faults: "
                    + report.warnings.map { "\($0.warning.ruleID) \($0.warning.message)" }.joined(separator: "; ")
                    + (VideoGeometryWarning.fixes(report.warnings.map(\.warning)).isEmpty
                        ? ""
                        : " (fixed by \(VideoGeometryWarning.fixes(report.warnings.map(\.warning)).joined(separator: " ")))")
            )
        }
        try AtomicFile.commit(scratch: scratch, to: output)
    }

    /// Throws ``/BinaryIO/ParseError/Code/cancelled`` once the caller has asked to stop.
    static func stopIfCancelled(_ c: ConversionCancellation?) throws(ParseError) {
        if c?.isCancelled == true { throw ParseError(.cancelled, "cancelled; nothing was written") }
    }

    /// Removes a scratch file that will not become the output.
    static func discard(_ scratch: String) {
        unlink(scratch)
        Interruption.unregister(temporaryFile: scratch)
    }

    static func convertPhoto(
        _ r: ConvertRequest, _ options: PhotoConversionOptions, align: Bool, autoDisparity: Bool, strict: Bool,
        scratch: String, events: OperationEvents, cancellation: ConversionCancellation?
    ) throws(ParseError) -> OperationReport {
        var o = options
        events.progress?(OperationProgress(stage: "load"))
        try stopIfCancelled(cancellation)
        var pair: StereoPair
        if let input = r.input {
            pair = try StereoImages.load(input, packing: o.packing)
        } else {
            pair = try StereoImages.load(
                left: r.left ?? "", right: r.right ?? "", limits: o.limits, acceptDamage: o.force)
        }
        // Gain and depth maps given for a pair made elsewhere belong to the input they are named with (before any
        // swap).
        let given: [(Int, AuxiliaryKind, String?)] = [
            (0, .gainMap, r.leftGainMap), (1, .gainMap, r.rightGainMap), (0, .depth, r.leftDepth),
            (1, .depth, r.rightDepth),
        ]
        for case (let eye, let kind, let path?) in given {
            try AuxiliaryCarry.attach(
                file: path, kind: kind, toEye: eye, of: &pair, quality: o.quality, limits: o.limits)
        }
        // What the input is comes first: its layout measured (and eye order, unless swapped on request) before any
        // geometry is measured or fixed on halves that may be cut the wrong way.
        if let note = try PairRecognition.check(&pair, options: o) { pair.notes.append(note) }
        if o.swapEyes { pair.swapEyes(); pair.notes.append("eyes swapped (--swap-eyes)"); o.swapEyes = false }
        let faults = try ConversionGeometry.prepare(
            &pair, options: &o, align: align, autoDisparity: autoDisparity, message: events.message)
        if strict, !faults.isEmpty {
            throw ParseError(
                .outputCheckFailed, path: r.output,
                "refused (strict): the source has geometry faults: "
                    + faults.map { "\($0.ruleID) \($0.message)" }.joined(separator: "; "))
        }
        events.progress?(OperationProgress(stage: "encode"))
        try stopIfCancelled(cancellation)
        let p = try PhotoConverter.convert(pair, options: o, to: scratch)
        events.progress?(OperationProgress(stage: "write"))
        return OperationReport(
            job: "convert", route: ConvertRoute.photo.rawValue, outputs: [r.output],
            headline: "\(r.output): spatial photo from \(pair.sourceDescription), \(p.bytes) bytes", lines: p.lines,
            fields: [
                ("output", .string(r.output)), ("source", .string(pair.sourceDescription)),
                ("width", .uint(UInt64(p.width))), ("height", .uint(UInt64(p.height))),
                ("baseline_mm", .double(p.baselineMM)), ("baseline_source", .string(p.baselineSource)),
                ("hfov_degrees", .double(p.hfovDegrees)), ("hfov_source", .string(p.hfovSource)),
                ("disparity_percent", .double(p.disparityPercent)), ("disparity_source", .string(p.disparitySource)),
                ("quality", .uint(UInt64(p.quality))), ("bytes", .uint(UInt64(p.bytes))),
                ("notes", .array(p.notes.map { .string($0) })),
            ],
            warnings: faults.map { GeometryFault($0) }, check: OutputCheckResult(file: r.output))
    }

    static func convertVideo(
        _ r: ConvertRequest, _ options: VideoConversionOptions, _ input: VideoInput, scratch: String,
        events: OperationEvents, cancellation: ConversionCancellation?
    ) throws(ParseError) -> OperationReport {
        var o = options
        // A sphere's pictures are not rectilinear: the geometry check's measurements do not apply to them.
        if !o.align && !o.autoDisparity && !o.isSphere {
            var onePicture = false
            if case .packed = input { onePicture = true }
            o.geometryCheck = ConversionGeometry.video(o, fromOnePicture: onePicture, message: events.message)
        }
        var v = try VideoConverter.convert(input, to: scratch, options: o, cancellation: cancellation) { p in
            events.progress?(
                OperationProgress(
                    stage: p.estimating ? "estimating geometry (--align)" : "encode", frames: p.frames,
                    totalFrames: p.totalFrames,
                    framesPerSecond: p.framesPerSecond, etaSeconds: p.etaSeconds))
        }
        v.output = r.output
        v.notes = v.notes.map { $0.replacing(scratch, with: r.output) }
        let faults = (v.geometryCheck?.warnings ?? []).map { GeometryFault($0.warning, frames: $0.frames) }
        let lines = v.lines.map { $0.replacing(scratch, with: r.output) }
        return OperationReport(
            job: "convert", route: ConvertRoute.video.rawValue, outputs: [r.output],
            headline:
                "\(r.output): \(v.sphere.map { "MV-HEVC APMP \($0.projection == "hequ" ? "180°" : "360°") ('\($0.projection)')" } ?? "spatial video"), \(lines.first ?? "")",
            lines: Array(lines.dropFirst()) + (v.sphere.map { [sphereAlternative(for: r.input, sphere: $0)] } ?? []),
            fields: videoFields(v), warnings: faults, check: OutputCheckResult(file: r.output))
    }

    /// The lossless alternative to the sphere route, named in its report: `edit --to-apmp` on an MP4/MOV whose
    /// projection its metadata states; a movie only FFmpeg reads (Matroska, …) is remuxed first (FFmpeg writes its
    /// projection as Google `st3d`/`sv3d` only with `-strict unofficial`); a projection that was only stated is stated
    /// to `edit` as well.
    static func sphereAlternative(for input: String?, sphere: SphereSplit) -> String {
        let note = "(vexu/pack; H.264 frame-packed video was reported to stutter on visionOS 26)"
        let remux = input.map { $0 != "-" && FileProbe.kind(of: $0) != .movie } ?? false
        if sphere.source.hasPrefix("stated") {
            let edit =
                "`spatial-media edit IN -o OUT --packing \(sphere.packing == .sideBySide ? "side" : "over") --projection \(sphere.projection)` tags the frame-packed file as APMP without re-encoding \(note)"
            return "lossless alternative: " + (remux ? "remux it to MP4 (`ffmpeg -i IN -c copy IN.mp4`), then " : "")
                + edit
        }
        let tag =
            "`spatial-media edit IN -o OUT --to-apmp` tags the frame-packed file as APMP without re-encoding \(note)"
        return "lossless alternative: "
            + (remux
                ? "remux it to MP4 keeping its projection (`ffmpeg -i IN -c copy -strict unofficial IN.mp4`), then "
                : "") + tag
    }

    /// The JSON facts of a video conversion (the keys `convert --json` has always printed).
    static func videoFields(_ r: VideoConversionReport) -> [(String, JSON)] {
        [
            ("output", .string(r.output)), ("source", .string(r.source)), ("frames", .uint(UInt64(r.frames))),
            ("eye_width", .uint(UInt64(r.eyeWidth))), ("eye_height", .uint(UInt64(r.eyeHeight))),
            ("fps", .string("\(r.fpsNum)/\(r.fpsDen)")), ("bytes", .uint(r.bytes)), ("bytes_written", .uint(r.bytes)),
            ("layer0_bytes", .uint(UInt64(r.layer0Bytes))), ("layer1_bytes", .uint(UInt64(r.layer1Bytes))),
            ("baseline_mm", .double(r.baselineMM)), ("baseline_source", .string(r.baselineSource)),
            ("hfov_degrees", .double(r.hfovDegrees)), ("hfov_source", .string(r.hfovSource)),
            ("disparity_percent", .double(r.disparityPercent)), ("disparity_source", .string(r.disparitySource)),
            ("hero", .string(r.heroIsLeft ? "left" : "right")), ("audio", .array(r.audioTracks.map { .string($0) })),
            ("encoder", .string(r.encoder)), ("encode_path", .string(r.encodePath)), ("seconds", .double(r.seconds)),
            ("own_cpu_seconds", .double(r.ownCPUSeconds)),
            ("process_cpu_seconds", .double(r.processCPUSeconds)), ("peak_rss_bytes", .uint(r.peakRSSBytes)),
            ("notes", .array(r.notes.map { .string($0) })),
            ("projection", .string(r.stereo.projectionKind?.description ?? "rect")),
            (
                "alignment",
                r.alignment.map { a in
                    JSON.object([
                        ("shots", .uint(UInt64(a.shots.count))),
                        ("warped_shots", .uint(UInt64(a.shots.filter(\.warped).count))),
                        ("crop_width", .uint(UInt64(a.crop.width))), ("crop_height", .uint(UInt64(a.crop.height))),
                        ("before_median_abs_dy", a.beforeMedian.map { .double($0) } ?? .null),
                        ("before_p95_abs_dy", a.beforeP95.map { .double($0) } ?? .null),
                        ("after_median_abs_dy", a.afterMedian.map { .double($0) } ?? .null),
                        ("after_p95_abs_dy", a.afterP95.map { .double($0) } ?? .null),
                        ("lines", .array(a.lines.map { .string($0) })),
                    ])
                } ?? .null
            ),
            (
                "geometry_check",
                r.geometryCheck.map { g in
                    JSON.object([
                        ("frames", .array(g.frames.map { .uint(UInt64($0)) })),
                        ("faults", .array(g.warnings.map { GeometryFault($0.warning, frames: $0.frames).json })),
                        ("fixes", .array(g.fixes.map { .string($0) })), ("cpu_seconds", .double(g.cpuSeconds)),
                    ])
                } ?? .null
            ),
        ]
    }

    static func assemble(_ r: ConvertRequest, _ a: MVHEVCAssemblyOptions, _ m: SpatialVideoMuxOptions, scratch: String)
        throws(ParseError) -> OperationReport
    {
        let left = r.left ?? "", right = r.right ?? ""
        let x = try MVHEVCAssembler.assemble(left: left, right: right, output: scratch, assembly: a, mux: m)
        return OperationReport(
            job: "convert", route: ConvertRoute.hevcPair.rawValue, outputs: [r.output],
            headline:
                "\(r.output): spatial video assembled from \(left) and \(right) without re-encoding, \(x.bytesWritten) bytes",
            lines: [
                "\(x.samples) samples, \(x.syncSamples) sync samples, timescale \(x.timescale), frame duration \(x.frameDuration)",
                "layer 0: the \(a.baseIsLeft ? "left" : "right") eye; layer-1 SPS: \(a.layerSPSForm.rawValue)",
            ],
            fields: [
                ("output", .string(r.output)), ("bytes_written", .uint(x.bytesWritten)),
                ("samples", .int(Int64(x.samples))),
                ("sync_samples", .int(Int64(x.syncSamples))), ("timescale", .uint(UInt64(x.timescale))),
                ("frame_duration", .uint(UInt64(x.frameDuration))),
            ],
            warnings: [], check: OutputCheckResult(file: r.output))
    }
}

extension Operations {
    /// A raw two-view MV-HEVC stream muxed as it is
    /// (`SpatialVideoMuxer.muxMultiview(stream:output:swapEyes:hero:mux:limits:)`).
    static func muxStream(
        _ r: ConvertRequest, _ m: SpatialVideoMuxOptions, swapEyes: Bool, hero: HeroEye?,
        scratch: String
    ) throws(ParseError) -> OperationReport {
        let input = r.input ?? ""
        let x = try SpatialVideoMuxer.muxMultiview(
            stream: input, output: scratch, swapEyes: swapEyes, hero: hero,
            mux: m)
        let eye = x.baseIsLeft ? "left" : "right", mux = x.mux
        let timing =
            "\(x.fpsNum)/\(x.fpsDen) fps (\(x.fpsSource)), timescale \(mux.timescale), "
            + "frame duration \(mux.frameDuration)"
        return OperationReport(
            job: "convert", route: ConvertRoute.mvhevcStream.rawValue, outputs: [r.output],
            headline: "\(r.output): spatial video muxed from the two-view MV-HEVC stream \(input) without re-encoding, "
                + "\(mux.bytesWritten) bytes",
            lines: [
                "\(x.accessUnits) access units → \(mux.samples) samples, \(mux.syncSamples) sync samples, \(timing)",
                "layer 0: the \(eye) eye (\(x.eyeSource)); hero eye: \(x.hero)"
                    + (hero == nil ? " (the base layer's)" : ""),
                "coded pictures of both layers copied as they are (inter-layer prediction kept)",
            ],
            fields: [
                ("output", .string(r.output)), ("source", .string(input)), ("bytes_written", .uint(mux.bytesWritten)),
                ("frames", .int(Int64(x.accessUnits))), ("samples", .int(Int64(mux.samples))),
                ("sync_samples", .int(Int64(mux.syncSamples))), ("fps", .string("\(x.fpsNum)/\(x.fpsDen)")),
                ("fps_source", .string(x.fpsSource)), ("timescale", .uint(UInt64(mux.timescale))),
                ("frame_duration", .uint(UInt64(mux.frameDuration))), ("base_eye", .string(eye)),
                ("eye_source", .string(x.eyeSource)), ("hero", .string("\(x.hero)")),
            ],
            warnings: [], check: OutputCheckResult(file: r.output))
    }

    /// Runs `write` on a scratch file beside `output`, reads the result back (``OutputCheck``) against `inputs` and
    /// keeps it only when it passes: the end every write of the layer shares, for the jobs whose library call takes
    /// its options already filled (`align`, `combine`).
    static func checkedWrite<T>(
        to output: String, inputs: [String], expect: OutputExpectation = .spatial,
        _ write: (_ scratch: String) throws(ParseError) -> T
    ) throws(ParseError) -> (T, OutputCheckResult) {
        let scratch = try AtomicFile.scratchPath(near: output)
        do throws(ParseError) {
            let value = try write(scratch)
            let check = OutputCheck.run(written: scratch, output: output, inputs: inputs, expect: expect)
            if !check.passed { throw check.refusal }
            try AtomicFile.commit(scratch: scratch, to: output)
            return (value, check)
        } catch {
            discard(scratch)
            throw error
        }
    }
}
