// Exported functions: validate, convert photo/video, split, the option tables.
//
// Conversion and split are shells over the operations layer (SpatialOperations: ConvertRequest/ConvertPlan,
// SplitRequest): the C arguments and the options' keys become one request, the layer plans and runs it (every
// default, route and check is its), and its report's JSON is returned.
import BinaryIO
import HEVC
import ISOBMFF
import MediaDecode
import SpatialConvert
import SpatialMedia
import SpatialOperations
import SpatialValidation
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `sm_progress_fn` in Swift.
public typealias SMProgressFn = @convention(c) (UnsafeMutableRawPointer?, Double, SMString) -> Int32

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
func parseOptions(_ p: SMString) throws(ABIError) -> Options {
    try Options(try optionalString(p, "options_json"))
}

func notBuilt(_ what: String) -> ABIError {
    ABIError(
        SMStatus.unsupported,
        "not built into this version of libspatialmedia yet: \(what). Nothing was done (SM_ERR_UNSUPPORTED); see sm_capabilities()."
    )
}

/// Reads the options of `sm_validate` / `sm_validate_path` (see the header) into the request of `path` by the keys
/// of ``/SpatialOperations/ValidateRequest/table`` (types, ranges and choices are the request's): with "right_eye"
/// (`sm_validate_path` only) the pair `path` (left) and that image. Each call validates one input as given.
func validationRequest(_ path: String, _ options: SMString, _ function: String) throws(ABIError) -> ValidateRequest {
    var opts = try parseOptions(options)
    let values = opts.takeAll().map { ($0.0, $0.1.requestValue) }
    if function != "sm_validate_path", values.contains(where: { $0.0 == "right_eye" && $0.1 != .null }) {
        throw .argument("option \"right_eye\" is for sm_validate_path only")
    }
    var r = try lift { () throws(ParseError) in try ValidateRequest(path: path, values: values) }
    r.searchDirectories = false
    return r
}

/// Runs a validation request of one input through the operations layer; its one report.
func validateOne(_ r: ValidateRequest) throws(ABIError) -> ValidationReport {
    let run = try lift { () throws(ParseError) in try Operations.validate(r, spelling: .key) }
    guard let report = run.reports.first else { throw .argument("nothing to validate") }
    return report
}

@_cdecl("sm_validation_inputs")
public func sm_validation_inputs(_ paths: SMString, _ outJSON: SMStringOut) -> Int32 {
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
public func sm_validate_path(
    _ path: SMString, _ options: SMString, _ progress: SMProgressFn?,
    _ userData: SMUserData, _ cancel: SMCancelFlag,
    _ outReport: SMStringOut
) -> Int32 {
    outReport?.pointee = nil
    return abiCall("sm_validate_path") { () throws(ABIError) in
        let p = try requiredPath(path, "path")
        let request = try validationRequest(p, options, "sm_validate_path")
        let progress = Progress(callback: progress, userData: userData, cancel: cancel)
        try progress.report(0, "validate")
        let report = try validateOne(request)
        try progress.report(1, "done")
        try deliver(report.json.serialized(), to: outReport)
    }
}

@_cdecl("sm_validate")
public func sm_validate(
    _ file: OpaquePointer?, _ options: SMString, _ progress: SMProgressFn?,
    _ userData: SMUserData,
    _ cancel: SMCancelFlag, _ outReport: SMStringOut
) -> Int32 {
    outReport?.pointee = nil
    return abiCall("sm_validate") { () throws(ABIError) in
        let f = try fileObject(file)
        let request = try validationRequest(f.path ?? "", options, "sm_validate")
        let progress = Progress(callback: progress, userData: userData, cancel: cancel)
        try progress.report(0, "validate")
        // The validator reads files; a handle opened from memory is validated from a private temporary copy.
        var path = f.path
        var temporary: String? = nil
        if path == nil {
            guard case .iso(let iso) = f.content else {
                throw ABIError(
                    SMStatus.notApplicable,
                    "a raw HEVC stream opened from memory cannot be validated; open it from a file")
            }
            let bytes = try lift { () throws(ParseError) in try iso.serialized() }
            let tmp = "/tmp/sm-validate-\(UInt64.random(in: 0...UInt64.max)).bin"
            try lift { () throws(ParseError) in try AtomicFile.write(path: tmp, bytes: bytes) }
            path = tmp
            temporary = tmp
        }
        defer { if let t = temporary { _ = unlink(t) } }
        var r = request
        r.inputs = [path ?? ""]
        let report = try validateOne(r)
        try progress.report(1, "done")
        try deliver(report.json.serialized(), to: outReport)
    }
}

/// Refuses an output that is an input or another output (``OutputPaths``): an argument error.
func checkOutputs(_ outputs: [(String, String)], inputs: [(String, String)]) throws(ABIError) {
    do throws(ParseError) {
        try OutputPaths.check(
            outputs: outputs.map { (role: $0.0, path: $0.1) }, inputs: inputs.map { (role: $0.0, path: $0.1) })
    } catch {
        throw .argument(error.message)
    }
}

/// The body of the conversion entry points: a translation of the C arguments into a ``ConvertRequest`` (the left eye
/// is `input` when "right_input" is given; the first release's "frame_rate_num"/"frame_rate_den" become "frame_rate"),
/// then the operations layer's one plan and run, and its report's JSON delivered. `expect` is the route an entry
/// point is for (nil: any); the library decides the route from the input itself.
func conversionEntry(
    _ function: StaticString, expect: ConvertRoute?, _ input: SMString, _ output: SMString,
    _ options: SMString, _ callback: SMProgressFn?, _ userData: SMUserData,
    _ cancel: SMCancelFlag, _ outReport: SMStringOut
) -> Int32 {
    jobEntry(function, callback, userData, cancel, outReport) {
        (progress: Progress) throws(ABIError) -> OperationReport in
        let i = try requiredPath(input, "input")
        let o = try requiredPath(output, "output")
        var opts = try parseOptions(options)
        let right = try opts.string("right_input")
        if right?.isEmpty == true { throw .argument("option \"right_input\" is empty") }
        let num = try opts.double("frame_rate_num"), den = try opts.double("frame_rate_den")
        var values = opts.takeAll().map { ($0.0, $0.1.requestValue) }
        if let num { values.append(("frame_rate", .array([.number(num), .number(den ?? 1)]))) }
        let request = try lift { () throws(ParseError) in
            try ConvertRequest(
                input: right == nil ? i : nil, left: right == nil ? nil : i, right: right, output: o, values: values)
        }
        try progress.checkCancelled()
        let plan = try lift { () throws(ParseError) in try ConvertPlan.make(request, spelling: .key) }
        if let expect, plan.route != expect, !(expect == .video && [.hevcPair, .mvhevcStream].contains(plan.route)) {
            throw .argument(
                "\(i) is converted as a \(plan.route == .photo ? "photo" : "video") (by its content): call sm_convert or sm_convert_\(plan.route == .photo ? "photo" : "video")"
            )
        }
        let cancellation = ConversionCancellation()
        let events = OperationEvents(progress: { p in
            let fraction: Double =
                p.fraction.map { min(0.99, $0) }
                ?? (p.stage == "encode" && p.frames == nil ? 0.2 : p.stage == "write" ? 0.9 : 0)
            do { try progress.report(fraction, p.stage) } catch { cancellation.cancel() }
        })
        if plan.route != .photo {
            try progress.report(
                0, plan.route == .hevcPair ? "assemble" : plan.route == .mvhevcStream ? "mux" : "convert")
        }
        do throws(ABIError) {
            return try lift { () throws(ParseError) in
                try Operations.convert(plan, events: events, cancellation: cancellation)
            }
        } catch {
            if cancellation.isCancelled {
                throw ABIError(SMStatus.cancelled, "cancelled during the conversion; nothing was written")
            }
            throw error
        }
    }
}

/// The frame of every entry point that runs one job of the operations layer: the report cleared, the job run inside
/// ``abiCall`` (errors to status codes) with a ``Progress`` of the caller's callback and cancel flag, the callback
/// told "done", and the report's JSON delivered.
func jobEntry(
    _ function: StaticString, _ callback: SMProgressFn?, _ userData: SMUserData,
    _ cancel: SMCancelFlag,
    _ outReport: SMStringOut,
    _ job: (Progress) throws(ABIError) -> OperationReport
) -> Int32 {
    outReport?.pointee = nil
    return abiCall(function) { () throws(ABIError) in
        let progress = Progress(callback: callback, userData: userData, cancel: cancel)
        let report = try job(progress)
        try progress.report(1, "done")
        try deliver(report.json.serialized(), to: outReport)
    }
}

@_cdecl("sm_convert")
public func sm_convert(
    _ input: SMString, _ output: SMString, _ options: SMString,
    _ progress: SMProgressFn?, _ userData: SMUserData, _ cancel: SMCancelFlag,
    _ outReport: SMStringOut
) -> Int32 {
    conversionEntry("sm_convert", expect: nil, input, output, options, progress, userData, cancel, outReport)
}

@_cdecl("sm_convert_photo")
public func sm_convert_photo(
    _ input: SMString, _ output: SMString, _ options: SMString,
    _ progress: SMProgressFn?, _ userData: SMUserData, _ cancel: SMCancelFlag,
    _ outReport: SMStringOut
) -> Int32 {
    conversionEntry("sm_convert_photo", expect: .photo, input, output, options, progress, userData, cancel, outReport)
}

@_cdecl("sm_convert_video")
public func sm_convert_video(
    _ input: SMString, _ output: SMString, _ options: SMString,
    _ progress: SMProgressFn?, _ userData: SMUserData, _ cancel: SMCancelFlag,
    _ outReport: SMStringOut
) -> Int32 {
    conversionEntry("sm_convert_video", expect: .video, input, output, options, progress, userData, cancel, outReport)
}

/// The name table of a job's request (``ConvertRequest/table``) as JSON: what a binding (Python) checks its keywords
/// against.
@_cdecl("sm_option_table")
public func sm_option_table(_ job: SMString, _ outJSON: SMStringOut) -> Int32 {
    outJSON?.pointee = nil
    return abiCall("sm_option_table") { () throws(ABIError) in
        let name = try requiredPath(job, "job")
        let tables = [
            ("convert", ConvertRequest.table), ("align", AlignRequest.table), ("fix", FixRequest.table),
            ("split", SplitRequest.table), ("validate", ValidateRequest.table), ("combine", CombineRequest.table),
            ("edit", EditRequest.table), ("concat", ConcatRequest.table), ("info", InfoRequest.table),
        ]
        guard let table = tables.first(where: { $0.0 == name })?.1 else {
            throw .argument("no option table for \"\(name)\" (known: \(tables.map(\.0).joined(separator: ", ")))")
        }
        try deliver(JSON.array(table.map(\.json)).serialized(), to: outJSON)
    }
}

@_cdecl("sm_concat_video")
public func sm_concat_video(
    _ segments: SMString, _ output: SMString, _ options: SMString,
    _ progress: SMProgressFn?, _ userData: SMUserData, _ cancel: SMCancelFlag,
    _ outReport: SMStringOut
) -> Int32 {
    jobEntry("sm_concat_video", progress, userData, cancel, outReport) {
        (progress: Progress) throws(ABIError) -> OperationReport in
        let list = try pathList(segments, "segments_json")
        if list.isEmpty { throw .argument("segments_json is empty: give the segment files") }
        let out = try requiredPath(output, "output")
        var opts = try parseOptions(options)
        // "audio": "none" (the first release's spelling) is "no_audio": true; the rest are the request's rows.
        let audio = try opts.choice("audio", ["copy", "none"])
        let values =
            opts.takeAll().map { ($0.0, $0.1.requestValue) } + (audio == "none" ? [("no_audio", .bool(true))] : [])
        let r = try lift { () throws(ParseError) in
            try ConcatRequest(segments: list, output: out, values: values)
        }
        try progress.report(0, "join")
        let cancellation = ConversionCancellation()
        do throws(ABIError) {
            return try lift { () throws(ParseError) in
                try Operations.concat(
                    r, spelling: .key,
                    progress: { done, total in
                        do { try progress.report(min(0.99, Double(done) / Double(max(1, total))), "join") } catch {
                            cancellation.cancel()
                        }
                    }, cancellation: cancellation)
            }
        } catch {
            if cancellation.isCancelled {
                throw ABIError(SMStatus.cancelled, "cancelled while joining; nothing was written")
            }
            throw error
        }
    }
}

/// `sm_split` (see the header): one ``SplitRequest`` from the arguments (`left_output`, `right_output`) and the
/// options' keys (the rows of its name table), ``Operations/split(_:spelling:events:cancellation:)``, its report. Kept
/// from the first release: "sbs_output" or "ou_output" beside the eyes is the same request run a second time for that
/// file alone, after the eyes; the report then names it.
@_cdecl("sm_split")
public func sm_split(
    _ input: SMString, _ leftOutput: SMString, _ rightOutput: SMString,
    _ options: SMString, _ callback: SMProgressFn?, _ userData: SMUserData,
    _ cancel: SMCancelFlag, _ outReport: SMStringOut
) -> Int32 {
    jobEntry("sm_split", callback, userData, cancel, outReport) {
        (progress: Progress) throws(ABIError) -> OperationReport in
        let i = try requiredPath(input, "input")
        let eyes = [
            ("left_output", try optionalString(leftOutput, "left_output")),
            ("right_output", try optionalString(rightOutput, "right_output")),
        ]
        var opts = try parseOptions(options)
        let values =
            eyes.compactMap { e in e.1.map { (e.0, RequestValue.string($0)) } }
            + opts.takeAll().map { ($0.0, $0.1.requestValue) }
        var request = try lift { () throws(ParseError) in try SplitRequest(input: i, values: values) }
        var packed: SplitRequest?
        if request.left != nil || request.right != nil, (request.sbs == nil) != (request.ou == nil) {
            try checkOutputs(request.outputs.map { ($0.key, $0.path) }, inputs: [("input", i)])
            packed = request
            packed?.left = nil; packed?.right = nil; packed?.aux = nil
            request.sbs = nil; request.ou = nil
        }
        var report = try splitRun(request, progress, from: 0, to: packed == nil ? 0.99 : 0.5)
        if let packed {
            _ = try splitRun(packed, progress, from: 0.5, to: 0.99)
            report.outputs += packed.outputs.map(\.path)
            report.fields += packed.outputs.map { ($0.key, .string($0.path)) }
        }
        return report
    }
}

/// One run of the operations layer's split for ``sm_split``: its progress events scaled into `from`…`to` of the
/// caller's callback; the cancel flag (or a callback returning non-zero) cancels the run.
func splitRun(_ r: SplitRequest, _ progress: Progress, from: Double, to: Double) throws(ABIError) -> OperationReport {
    let cancellation = ConversionCancellation()
    let events = OperationEvents(progress: { p in
        do { try progress.report(from + (to - from) * (p.fraction ?? 0), p.stage) } catch { cancellation.cancel() }
    })
    try progress.report(from, "split")
    do throws(ABIError) {
        return try lift { () throws(ParseError) in
            try Operations.split(r, spelling: .key, events: events, cancellation: cancellation)
        }
    } catch {
        if cancellation.isCancelled {
            throw ABIError(SMStatus.cancelled, "cancelled during the split; its outputs were not written")
        }
        throw error
    }
}
