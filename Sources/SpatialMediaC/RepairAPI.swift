// Exported functions: align a spatial photo, fix a movie. Each is a translation of the C arguments into the
// operations layer's request (AlignRequest, FixRequest: the keys of their name tables), the one run the command line
// makes, and its report's JSON delivered; every default, range and check is the layer's.
import BinaryIO
import SpatialOperations

/// `sm_align_photo` (see the header): ``AlignRequest`` from the options' keys, ``Operations/align(_:spelling:)``, its
/// report.
@_cdecl("sm_align_photo")
public func sm_align_photo(
    _ input: SMString, _ output: SMString, _ options: SMString,
    _ callback: SMProgressFn?, _ userData: SMUserData, _ cancel: SMCancelFlag,
    _ outReport: SMStringOut
) -> Int32 {
    jobEntry("sm_align_photo", callback, userData, cancel, outReport) {
        (progress: Progress) throws(ABIError) -> OperationReport in
        let paths = (input: try requiredPath(input, "input"), output: try requiredPath(output, "output"))
        var opts = try parseOptions(options)
        var r = AlignRequest(photo: paths.input, output: paths.output)
        r.autoDisparity = try opts.bool("auto_disparity") ?? false
        // The range is the layer's (its message names the key); here only "an integer".
        r.quality = try opts.int("quality", Int(Int32.min)...Int(Int32.max))
        try opts.finish("sm_align_photo")
        // No progress events of its own: the cancel flag and the callback are asked before the job starts.
        try progress.report(0, "align")
        return try lift { () throws(ParseError) in try Operations.align(r, spelling: .key) }
    }
}

/// `sm_fix_video` (see the header): ``FixRequest`` from the options' keys (output NULL: in place),
/// ``Operations/fix(_:spelling:)``.
@_cdecl("sm_fix_video")
public func sm_fix_video(
    _ input: SMString, _ output: SMString, _ options: SMString,
    _ callback: SMProgressFn?, _ userData: SMUserData, _ cancel: SMCancelFlag,
    _ outReport: SMStringOut
) -> Int32 {
    jobEntry("sm_fix_video", callback, userData, cancel, outReport) {
        (progress: Progress) throws(ABIError) -> OperationReport in
        let path = try requiredPath(input, "input"), out = try optionalString(output, "output")
        if out?.isEmpty == true { throw .argument("output is empty (pass NULL to repair the input in place)") }
        var opts = try parseOptions(options)
        let values = opts.takeAll().map { ($0.0, $0.1.requestValue) }
        let r = try lift { () throws(ParseError) in try FixRequest(path: path, output: out, values: values) }
        try progress.report(0, "fix")
        return try lift { () throws(ParseError) in try Operations.fix(r, spelling: .key) }
    }
}
