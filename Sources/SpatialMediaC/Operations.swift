// Exported functions: validate, convert photo/video, split.
//
// Photo conversion and photo split go to SpatialConvert (PhotoConverter, PhotoSplitter); video
// "conversion" is the assembly of two single-layer HEVC streams into a spatial video and video split
// its inverse (SpatialMedia: SpatialVideoAssembler, StreamSplitter). Validation (no module yet) and
// converting a frame-packed video (no decode+encode pipeline yet) check their arguments exactly as they
// will then, and return SM_ERR_UNSUPPORTED with a message saying what is not built — never a made-up
// report, and no output file. sm_capabilities() leaves SM_CAP_VALIDATE clear.
import BinaryIO
import ISOBMFF
import HEVC
import SpatialConvert
import SpatialValidation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SpatialMedia
import SystemSupport
import MediaDecode

/// `sm_progress_fn` in Swift.
public typealias SMProgressFn = @convention(c) (UnsafeMutableRawPointer?, Double, UnsafePointer<CChar>?) -> Int32

/// Progress reporting and cancellation for a long operation.
struct Progress {
    var callback: SMProgressFn?
    var userData: UnsafeMutableRawPointer?
    var cancel: UnsafePointer<Int32>?

    /// Reports progress; throws `SM_ERR_CANCELLED` when the callback or the flag asks to stop.
    func report(_ fraction: Double, _ stage: String) throws(ABIError) {
        try checkCancelled()
        if let callback {
            let stop = stage.withCString { callback(userData, min(max(fraction, 0), 1), $0) }
            if stop != 0 { throw ABIError(SMStatus.cancelled, "cancelled by the progress callback during \(stage)") }
        }
    }

    func checkCancelled() throws(ABIError) {
        if let cancel, UnsafeRawPointer(cancel).load(as: Int32.self) != 0 {
            throw ABIError(SMStatus.cancelled, "cancelled (the cancel flag is set)")
        }
    }
}

/// Parses `options_json` (NULL = no options).
func parseOptions(_ p: UnsafePointer<CChar>?) throws(ABIError) -> Options {
    try Options(try optionalString(p, "options_json"))
}

func notBuilt(_ what: String) -> ABIError {
    ABIError(SMStatus.unsupported, "not built into this version of libspatialmedia yet: \(what). Nothing was done (SM_ERR_UNSUPPORTED); see sm_capabilities().")
}

/// Reads the options of `sm_validate` / `sm_validate_path` (see the header).
func validationOptions(_ options: UnsafePointer<CChar>?, _ function: String) throws(ABIError) -> ValidationOptions {
    var opts = try parseOptions(options)
    var v = ValidationOptions()
    if let p = try opts.bool("pixels") { v.pixels = p }
    if let l = try opts.choice("layout", ["sbs", "tb"]), let layout = StereoLayout(rawValue: l) { v.layout = layout }
    if let n = try opts.int("frames", 1...100) { v.frames = n }
    if let r = try opts.string("right_eye") {
        guard function == "sm_validate_path" else { throw .argument("option \"right_eye\" is for sm_validate_path only") }
        guard !r.isEmpty else { throw .argument("option \"right_eye\" is empty") }
        v.rightEye = r
    }
    try opts.finish(function)
    return v
}

@_cdecl("sm_validation_inputs")
public func sm_validation_inputs(_ paths: UnsafePointer<CChar>?, _ outJSON: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outJSON?.pointee = nil
    return abiCall("sm_validation_inputs") { () throws(ABIError) in
        let list = try pathList(paths, "paths_json")
        let plan = BatchValidator.plan(list)
        let json = JSON.object([
            ("files", .array(plan.files.map { .string($0) })),
            ("pairs", .array(plan.pairs.map { .object([("left", .string($0.left)), ("right", .string($0.right))]) })),
            ("skipped", .array(plan.skipped.map { .string($0) })),
            ("directories_without_media", .array(plan.directoriesWithoutMedia.map { .string($0) })),
        ])
        try deliver(json.serialized(), to: outJSON)
    }
}

@_cdecl("sm_validate_path")
public func sm_validate_path(_ path: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?, _ progress: SMProgressFn?,
                             _ userData: UnsafeMutableRawPointer?, _ cancel: UnsafePointer<Int32>?,
                             _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outReport?.pointee = nil
    return abiCall("sm_validate_path") { () throws(ABIError) in
        let p = try requiredPath(path, "path")
        let v = try validationOptions(options, "sm_validate_path")
        let progress = Progress(callback: progress, userData: userData, cancel: cancel)
        try progress.report(0, "validate")
        let report = Validator.validate(path: p, options: v)
        try progress.report(1, "done")
        try deliver(report.json.serialized(), to: outReport)
    }
}

@_cdecl("sm_validate")
public func sm_validate(_ file: OpaquePointer?, _ options: UnsafePointer<CChar>?, _ progress: SMProgressFn?, _ userData: UnsafeMutableRawPointer?,
                        _ cancel: UnsafePointer<Int32>?, _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outReport?.pointee = nil
    return abiCall("sm_validate") { () throws(ABIError) in
        let f = try fileObject(file)
        let v = try validationOptions(options, "sm_validate")
        let progress = Progress(callback: progress, userData: userData, cancel: cancel)
        try progress.report(0, "validate")
        // The validator reads files; a handle opened from memory is validated from a private temporary copy.
        var path = f.path
        var temporary: String? = nil
        if path == nil {
            guard case .iso(let iso) = f.content else { throw ABIError(SMStatus.notApplicable, "a raw HEVC stream opened from memory cannot be validated; open it from a file") }
            let bytes = try lift { () throws(ParseError) in try iso.serialized() }
            let tmp = "/tmp/sm-validate-\(UInt64.random(in: 0...UInt64.max)).bin"
            try lift { () throws(ParseError) in try AtomicFile.write(path: tmp, bytes: bytes) }
            path = tmp
            temporary = tmp
        }
        defer { if let t = temporary { _ = unlink(t) } }
        let report = Validator.validate(path: path ?? "", options: v)
        try progress.report(1, "done")
        try deliver(report.json.serialized(), to: outReport)
    }
}

/// Refuses an output that is an input or another output (``OutputPaths``): an argument error.
func checkOutputs(_ outputs: [(String, String)], inputs: [(String, String)]) throws(ABIError) {
    do throws(ParseError) {
        try OutputPaths.check(outputs: outputs.map { (role: $0.0, path: $0.1) }, inputs: inputs.map { (role: $0.0, path: $0.1) })
    } catch {
        throw .argument(error.message)
    }
}

func convertArguments(_ input: UnsafePointer<CChar>?, _ output: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?,
                      _ progress: Progress) throws(ABIError) -> (input: String, output: String, options: Options) {
    let i = try requiredPath(input, "input")
    let o = try requiredPath(output, "output")
    try checkOutputs([("output", o)], inputs: [("input", i)])
    let opts = try parseOptions(options)
    try progress.checkCancelled()
    return (i, o, opts)
}

/// The body of the conversion entry points: the report cleared, input, output and options checked
/// (``convertArguments``), the conversion's own options read by `parse` (with the second input, if any), the output
/// checked against both inputs, then `run` done and the report it returns delivered.
func conversionEntry<Parsed>(_ function: StaticString, _ input: UnsafePointer<CChar>?, _ output: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?,
                             _ callback: SMProgressFn?, _ userData: UnsafeMutableRawPointer?, _ cancel: UnsafePointer<Int32>?,
                             _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                             parse: (inout Options) throws(ABIError) -> (Parsed, String?),
                             _ run: (_ input: String, _ output: String, _ right: String?, Parsed, Progress) throws(ABIError) -> JSON) -> Int32 {
    outReport?.pointee = nil
    return abiCall(function) { () throws(ABIError) in
        let progress = Progress(callback: callback, userData: userData, cancel: cancel)
        let (i, o, given) = try convertArguments(input, output, options, progress)
        var opts = given
        let (parsed, right) = try parse(&opts)
        try checkOutputs([("output", o)], inputs: [("input", i), ("right_input", right ?? "")])
        try deliver(try run(i, o, right, parsed, progress).serialized(), to: outReport)
    }
}

/// The stereo parameters of a conversion's options, under either name of each value: the stored units
/// (`baseline_um`, `hfov_millidegrees`, `disparity` — the documented names) or human units (`baseline_mm`,
/// `hfov_degrees`, `disparity_percent`, which photos took first). Giving both names of one value is an error. Human
/// values go through the checked initialiser of ``StereoParameters`` (rounded, never truncated). A photo's baseline
/// must be above 0 and fit its signed 32-bit camera position.
func stereoOptions(_ o: inout Options, photo: Bool) throws(ABIError) -> StereoParameters {
    let maxUM = photo ? Int(Int32.max) : Int(UInt32.max)
    let um = try o.int("baseline_um", (photo ? 1 : 0)...maxUM)
    let mm = photo ? try o.double("baseline_mm", above: 0, atMost: Double(Int32.max) / 1000, "mm")
                   : try o.double("baseline_mm", from: 0, atMost: Double(UInt32.max) / 1000, "mm")
    let md = try o.int("hfov_millidegrees", 1...179_999)
    let deg = try o.double("hfov_degrees", above: 0, below: 180, "degrees")
    let units = try o.int("disparity", -10_000...10_000)
    let percent = try o.double("disparity_percent", from: -100, atMost: 100, "% of the width")
    for (a, b, x, y) in [("baseline_um", "baseline_mm", um != nil, mm != nil), ("hfov_millidegrees", "hfov_degrees", md != nil, deg != nil),
                         ("disparity", "disparity_percent", units != nil, percent != nil)] where x && y {
        throw .argument("give option \"\(a)\" or \"\(b)\", not both")
    }
    var s = try lift { () throws(ParseError) in
        try StereoParameters(baselineMillimetres: mm, horizontalFieldOfViewDegrees: deg, disparityPercent: percent)
    }
    if let um { s.baselineMicrometres = UInt32(truncatingIfNeeded: um) }   // range-checked above
    if let md { s.horizontalFieldOfViewMillidegrees = UInt32(truncatingIfNeeded: md) }
    if let units { s.disparityAdjustment = Int32(truncatingIfNeeded: units) }
    if photo, s.baselineMicrometres == 0 { throw .argument("option \"baseline_mm\" must be above 0 mm (it rounds to 0 µm)") }
    return s
}

/// Reads the photo conversion options (see the header).
func photoConversionOptions(_ o: inout Options) throws(ABIError) -> (PhotoConversionOptions, rightInput: String?) {
    var c = PhotoConversionOptions()
    if let l = try o.choice("layout", ["sbs", "tb", "auto"]), let layout = StereoLayout(rawValue: l) { c.layout = layout }
    if let h = try o.bool("half_resolution") { c.halfResolution = h }
    if let s = try o.bool("swap_eyes") { c.swapEyes = s }
    // Range-checked here, before anything is decoded, so that no value can wrap when it is stored in the
    // photo's 32-bit fields (µm in a signed position, millidegrees, 1/10000 of the width).
    c.stereo = try stereoOptions(&o, photo: true)
    if let q = try o.int("quality", 0...100) { c.quality = q }
    if let f = try o.choice("form", ["apple", "standard", "both"]), let form = CameraPropertyForm(rawValue: f) { c.form = form }
    if let d = try o.int("bit_depth", 8...10) {
        guard d == 8 || d == 10 else { throw .argument("option \"bit_depth\" must be 8 or 10") }
        c.bitDepth = d
    }
    if let t = try o.int("threads", 0...256) { c.threads = t }
    let right = try o.string("right_input")
    if right?.isEmpty == true { throw .argument("option \"right_input\" is empty") }
    try o.finish("sm_convert_photo")
    return (c, right)
}

func photoConversionJSON(_ r: PhotoConversionReport, output: String) -> JSON {
    .object([("output", .string(output)), ("width", .int(Int64(r.width))), ("height", .int(Int64(r.height))),
             ("baseline_mm", .double(r.baselineMM)), ("baseline_source", .string(r.baselineSource)),
             ("hfov_degrees", .double(r.hfovDegrees)), ("hfov_source", .string(r.hfovSource)),
             ("disparity_percent", .double(r.disparityPercent)), ("disparity_source", .string(r.disparitySource)),
             ("quality", .int(Int64(r.quality))), ("bytes", .int(Int64(r.bytes))), ("notes", .array(r.notes.map { .string($0) }))])
}

@_cdecl("sm_convert_photo")
public func sm_convert_photo(_ input: UnsafePointer<CChar>?, _ output: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?,
                             _ progress: SMProgressFn?, _ userData: UnsafeMutableRawPointer?, _ cancel: UnsafePointer<Int32>?,
                             _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    conversionEntry("sm_convert_photo", input, output, options, progress, userData, cancel, outReport,
                    parse: { (o: inout Options) throws(ABIError) in try photoConversionOptions(&o) }) { (input, output, right, options, progress) throws(ABIError) in
        try progress.report(0, "load")
        let pair = try lift { () throws(ParseError) -> StereoPair in
            if let right { return try StereoImages.load(left: input, right: right, limits: options.limits) }
            return try StereoImages.load(input, packing: options.packing)
        }
        try progress.report(0.2, "encode")
        let (bytes, report) = try lift { () throws(ParseError) in try PhotoConverter.encode(pair, options: options) }
        // Last chance to cancel: nothing has been written yet.
        try progress.report(0.9, "write")
        try lift { () throws(ParseError) in try AtomicFile.write(path: output, bytes: bytes) }
        try progress.report(1, "done")
        return photoConversionJSON(report, output: output)
    }
}

/// Reads the video conversion options (see the header).
func videoConversionOptions(_ o: inout Options) throws(ABIError) -> (String?, MVHEVCAssemblyOptions, SpatialVideoMuxOptions, VideoConversionOptions) {
    let right = try o.string("right_input")
    // Options of the encode path (frame-packed or two-file video in): layout, rate control, preset, audio.
    var v = VideoConversionOptions()
    if let l = try o.choice("layout", StereoVideoLayout.allCases.map(\.rawValue)), let layout = StereoVideoLayout(rawValue: l) { v.layout = layout }
    let crf = try o.int("crf", 0...51), qp = try o.int("qp", 0...51)
    if crf != nil && qp != nil { throw .argument("give \"crf\" or \"qp\", not both") }
    if let c = crf { v.rateControl = .crf(Double(c)) }
    if let q = qp { v.rateControl = .qp(q) }
    v.keyint = try o.int("keyint", 1...100_000)
    if let b = try o.int("bframes", 0...16) { v.bframes = b }
    if let s = try o.string("segment") {
        guard let seg = VideoSegment.parse(s) else { throw .argument("option \"segment\" must be \"K/N\" with 1 ≤ K ≤ N (got \"\(s)\")") }
        v.segment = seg
    }
    if let q = try o.string("eye_quality") {
        guard let e = EyeQuality(argument: q) else {
            throw ABIError.argument("eye_quality must be \"asymmetric\", \"asymmetric:N\" (N 0…6) or \"equal\" (got \"\(q)\")")
        }
        v.eyeQuality = e
    }
    if let e = try o.choice("encode_path", EncodePath.allCases.map(\.rawValue)), let path = EncodePath(rawValue: e) { v.encodePath = path }
    if let p = try o.choice("preset", ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]) { v.preset = p }
    if let a = try o.choice("audio", ["copy", "none"]), let audio = VideoConversionOptions.Audio(rawValue: a) { v.audio = audio }
    var a = MVHEVCAssemblyOptions()
    var m = SpatialVideoMuxOptions()
    if let e = try o.choice("base_eye", ["left", "right"]) { a.baseIsLeft = e == "left" }
    if let f = try o.choice("layer_sps", LayerSPSForm.allCases.map(\.rawValue)), let form = LayerSPSForm(rawValue: f) { a.layerSPSForm = form }
    var given = try stereoOptions(&o, photo: false)
    if let h = try o.choice("hero_eye", ["none", "left", "right"]) { given.heroEye = h == "left" ? .left : (h == "right" ? .right : HeroEye.none) }
    m.stereo = given.filled()
    if let c = try o.choice("container", ["mov", "mp4"]), let container = SpatialVideoMuxOptions.Container(rawValue: c) { m.container = container }
    if let f = try o.bool("faststart") { m.faststart = f }
    if let n = try o.int("frame_rate_num", 1...1_000_000) { m.frameRateNum = UInt32(truncatingIfNeeded: n) }
    if let d = try o.int("frame_rate_den", 1...1_000_000) { m.frameRateDen = UInt32(truncatingIfNeeded: d) }
    try o.finish("sm_convert_video")
    v.stereo = given
    v.stereo.heroEye = a.baseIsLeft ? .left : .right
    v.container = m.container
    v.faststart = m.faststart
    v.layerSPSForm = a.layerSPSForm
    return (right, a, m, v)
}

/// True for raw single-layer HEVC streams (assembled without re-encoding).
func isRawHEVC(_ path: String) -> Bool {
    let lower = path.lowercased()
    return lower.hasSuffix(".hevc") || lower.hasSuffix(".265") || lower.hasSuffix(".h265")
}

@_cdecl("sm_convert_video")
public func sm_convert_video(_ input: UnsafePointer<CChar>?, _ output: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?,
                             _ progress: SMProgressFn?, _ userData: UnsafeMutableRawPointer?, _ cancel: UnsafePointer<Int32>?,
                             _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    conversionEntry("sm_convert_video", input, output, options, progress, userData, cancel, outReport,
                    parse: { (o: inout Options) throws(ABIError) in
                        let (right, assembly, mux, video) = try videoConversionOptions(&o)
                        return ((assembly, mux, video), right)
                    }) { (input, output, right, parsed, progress) throws(ABIError) in
        let (assembly, mux, video) = parsed
        guard let right, !right.isEmpty, isRawHEVC(input), isRawHEVC(right) else {
            // Decode, split, encode both eyes with x265 and assemble (frame-packed input, or two video files).
            let source: VideoInput = right.map { .pair(left: input, right: $0) } ?? .packed(input)
            let cancellation = ConversionCancellation()
            try progress.report(0, "convert")
            let report: VideoConversionReport
            do throws(ABIError) {
                report = try lift { () throws(ParseError) in
                    try VideoConverter.convert(source, to: output, options: video, cancellation: cancellation) { p in
                        let fraction = p.totalFrames.map { $0 > 0 ? Double(p.frames) / Double($0) : 0 } ?? 0
                        do { try progress.report(min(0.99, fraction), "encode") } catch { cancellation.cancel() }
                    }
                }
            } catch {
                if cancellation.isCancelled { throw ABIError(SMStatus.cancelled, "cancelled during encoding; nothing was written") }
                throw error
            }
            try progress.report(1, "done")
            let json: JSON = .object([("output", .string(report.output)), ("bytes_written", .uint(report.bytes)), ("frames", .int(Int64(report.frames))),
                                      ("eye_width", .int(Int64(report.eyeWidth))), ("eye_height", .int(Int64(report.eyeHeight))),
                                      ("layer0_bytes", .int(Int64(report.layer0Bytes))), ("layer1_bytes", .int(Int64(report.layer1Bytes))),
                                      ("encoder", .string(report.encoder)), ("encode_path", .string(report.encodePath)), ("seconds", .double(report.seconds)),
                                      ("audio", .array(report.audioTracks.map { .string($0) })), ("notes", .array(report.notes.map { .string($0) }))])
            return json
        }
        try progress.report(0, "assemble")
        let result = try lift { () throws(ParseError) in
            try SpatialVideoAssembler.assemble(left: input, right: right, output: output, assembly: assembly, mux: mux)
        }
        try progress.report(1, "done")
        let report: JSON = .object([("output", .string(result.path)), ("bytes_written", .uint(result.bytesWritten)),
                                    ("samples", .int(Int64(result.samples))), ("sync_samples", .int(Int64(result.syncSamples))),
                                    ("timescale", .uint(UInt64(result.timescale))), ("frame_duration", .uint(UInt64(result.frameDuration)))])
        return report
    }
}

@_cdecl("sm_concat_video")
public func sm_concat_video(_ segments: UnsafePointer<CChar>?, _ output: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?,
                            _ progress: SMProgressFn?, _ userData: UnsafeMutableRawPointer?, _ cancel: UnsafePointer<Int32>?,
                            _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outReport?.pointee = nil
    return abiCall("sm_concat_video") { () throws(ABIError) in
        let list = try pathList(segments, "segments_json")
        if list.isEmpty { throw .argument("segments_json is empty: give the segment files") }
        let out = try requiredPath(output, "output")
        var opts = try parseOptions(options)
        var j = VideoJoinOptions()
        j.audioFrom = try opts.string("audio_from")
        if let a = try opts.choice("audio", ["copy", "none"]) { j.noAudio = a == "none" }
        try opts.finish("sm_concat_video")
        if j.audioFrom?.isEmpty == true { throw .argument("option \"audio_from\" is empty") }
        try checkOutputs([("output", out)], inputs: list.map { ("segment", $0) } + (j.audioFrom.map { [("audio_from", $0)] } ?? []))
        let progress = Progress(callback: progress, userData: userData, cancel: cancel)
        try progress.report(0, "join")
        let cancellation = ConversionCancellation()
        let report: VideoJoinReport
        do throws(ABIError) {
            report = try lift { () throws(ParseError) in
                try VideoSegmentJoiner.join(list, to: out, options: j, cancellation: cancellation) { done, total in
                    do { try progress.report(min(0.99, Double(done) / Double(max(1, total))), "join") } catch { cancellation.cancel() }
                }
            }
        } catch {
            if cancellation.isCancelled { throw ABIError(SMStatus.cancelled, "cancelled while joining; nothing was written") }
            throw error
        }
        try progress.report(1, "done")
        let json: JSON = .object([("output", .string(report.output)), ("bytes_written", .uint(report.bytes)), ("frames", .int(Int64(report.frames))),
                                  ("segments", .int(Int64(report.segments))), ("audio", .array(report.audioTracks.map { .string($0) })),
                                  ("seconds", .double(report.seconds)), ("notes", .array(report.notes.map { .string($0) }))])
        try deliver(json.serialized(), to: outReport)
    }
}

@_cdecl("sm_split")
public func sm_split(_ input: UnsafePointer<CChar>?, _ leftOutput: UnsafePointer<CChar>?, _ rightOutput: UnsafePointer<CChar>?,
                     _ options: UnsafePointer<CChar>?, _ progress: SMProgressFn?, _ userData: UnsafeMutableRawPointer?,
                     _ cancel: UnsafePointer<Int32>?, _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outReport?.pointee = nil
    return abiCall("sm_split") { () throws(ABIError) in
        let i = try requiredPath(input, "input")
        let l = try requiredPath(leftOutput, "left_output")
        let r = try requiredPath(rightOutput, "right_output")
        var opts = try parseOptions(options)
        let quality = try opts.int("quality", 0...100)
        let sbs = try opts.string("sbs_output")
        if sbs?.isEmpty == true { throw .argument("option \"sbs_output\" is empty") }
        try checkOutputs([("left_output", l), ("right_output", r), ("sbs_output", sbs ?? "")], inputs: [("input", i)])
        try opts.finish("sm_split")
        let progress = Progress(callback: progress, userData: userData, cancel: cancel)
        try progress.checkCancelled()
        guard SpatialPhotoEditor.isHEIF(path: i) else {
            // A movie or raw MV-HEVC stream: each layer to a single-layer HEVC Annex B stream, without decoding.
            if quality != nil || sbs != nil { throw .argument("options \"quality\" and \"sbs_output\" apply to photos only") }
            try progress.report(0, "split")
            let layers = try lift { () throws(ParseError) in try StreamSplitter.split(path: i) }
            try progress.report(0.9, "write")
            try lift { () throws(ParseError) in
                try AtomicFile.write(path: l, bytes: layers.baseIsLeft ? layers.base : layers.second)
                try AtomicFile.write(path: r, bytes: layers.baseIsLeft ? layers.second : layers.base)
            }
            try progress.report(1, "done")
            let report: JSON = .object([("input", .string(i)), ("left_output", .string(l)), ("right_output", .string(r)),
                                        ("access_units", .int(Int64(layers.accessUnits)))])
            try deliver(report.serialized(), to: outReport)
            return
        }
        try progress.report(0, "decode")
        try lift { () throws(ParseError) in try PhotoSplitter.split(i, left: l, right: r, sbs: sbs, quality: quality) }
        try progress.report(1, "done")
        var report: [(String, JSON)] = [("input", .string(i)), ("left_output", .string(l)), ("right_output", .string(r))]
        if let sbs { report.append(("sbs_output", .string(sbs))) }
        try deliver(JSON.object(report).serialized(), to: outReport)
    }
}
