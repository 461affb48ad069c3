// Exported functions: align a spatial photo, fix a movie. Each is a translation of the C arguments into the
// operations layer's request (AlignRequest, FixRequest: the keys of their name tables), the one run the command line
// makes, and its report's JSON delivered; every default, range and check is the layer's.
import BinaryIO
import SpatialOperations

/// Runs a job without progress events of its own: the cancel flag and the callback are asked before ("stage"),
/// and the callback told "done" after.
func reportedRun(_ stage: String, _ progress: Progress, _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                 _ run: () throws(ParseError) -> OperationReport) throws(ABIError) {
    try progress.report(0, stage)
    let report = try lift { () throws(ParseError) in try run() }
    try progress.report(1, "done")
    try deliver(report.json.serialized(), to: outReport)
}

/// `sm_align_photo` (see the header): ``AlignRequest`` from the options' keys, ``Operations/align(_:spelling:)``, its report.
@_cdecl("sm_align_photo")
public func sm_align_photo(_ input: UnsafePointer<CChar>?, _ output: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?,
                           _ callback: SMProgressFn?, _ userData: UnsafeMutableRawPointer?, _ cancel: UnsafePointer<Int32>?,
                           _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outReport?.pointee = nil
    return abiCall("sm_align_photo") { () throws(ABIError) in
        var r = AlignRequest(photo: try requiredPath(input, "input"), output: try requiredPath(output, "output"))
        var opts = try parseOptions(options)
        r.autoDisparity = try opts.bool("auto_disparity") ?? false
        // The range is the layer's (its message names the key); here only "an integer".
        r.quality = try opts.int("quality", Int(Int32.min)...Int(Int32.max))
        try opts.finish("sm_align_photo")
        try reportedRun("align", Progress(callback: callback, userData: userData, cancel: cancel), outReport) { () throws(ParseError) in
            try Operations.align(r, spelling: .key)
        }
    }
}

/// `sm_fix_video` (see the header): ``FixRequest`` from the options' keys (output NULL: in place), ``Operations/fix(_:spelling:)``.
@_cdecl("sm_fix_video")
public func sm_fix_video(_ input: UnsafePointer<CChar>?, _ output: UnsafePointer<CChar>?, _ options: UnsafePointer<CChar>?,
                         _ callback: SMProgressFn?, _ userData: UnsafeMutableRawPointer?, _ cancel: UnsafePointer<Int32>?,
                         _ outReport: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    outReport?.pointee = nil
    return abiCall("sm_fix_video") { () throws(ABIError) in
        let o = try optionalString(output, "output")
        if o?.isEmpty == true { throw .argument("output is empty (pass NULL to repair the input in place)") }
        var r = FixRequest(path: try requiredPath(input, "input"), output: o)
        var opts = try parseOptions(options)
        r.hfovDegrees = try opts.double("hfov_degrees")
        r.heroEye = try opts.string("hero_eye")
        try opts.finish("sm_fix_video")
        try reportedRun("fix", Progress(callback: callback, userData: userData, cancel: cancel), outReport) { () throws(ParseError) in
            try Operations.fix(r, spelling: .key)
        }
    }
}
