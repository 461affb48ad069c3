// Whether a multiview-capable libx265 (x265 4.0 or newer built with ENABLE_MULTIVIEW) is present (issue 23).
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import SystemSupport
@preconcurrency import CX265

/// What a probe of a libx265 found: its version and whether it encodes two views (MV-HEVC) itself.
///
/// The probe opens the library on its own (`dlopen`, local symbols), reads `x265_version_str` and asks
/// `x265_param_parse(param, "num-views", "2")` on a parameter set from `x265_param_alloc` + `x265_param_default`: 0 means the build accepts two
/// views (x265 ≥ 4.0 with `ENABLE_MULTIVIEW`); x265 3.5 answers "unknown option". Only those four exported C
/// functions and the version string are touched, through opaque pointers, so a library of another API build than
/// this program's x265 headers can be probed safely. It never encodes.
public struct X265MultiviewProbe: Sendable, Equatable {
    /// The file or name that was opened (or tried).
    public var library: String
    /// True when the library was opened and is a libx265.
    public var loaded: Bool
    /// `x265_version_str`, when loaded.
    public var version: String?
    /// The library accepts `num-views 2`.
    public var multiview: Bool
    /// One sentence for a person: what was found, or why nothing was.
    public var summary: String

    /// A probe result (tests and callers that probed by other means).
    public init(library: String, loaded: Bool, version: String?, multiview: Bool, summary: String) {
        self.library = library; self.loaded = loaded; self.version = version; self.multiview = multiview; self.summary = summary
    }

    /// The environment variable naming a libx265 file to probe instead of the one the loader finds.
    public static let environmentVariable = "SPATIAL_MEDIA_X265"

    /// Probes `path` (a libx265 shared library file), or when nil the file named by `SPATIAL_MEDIA_X265`, or else the
    /// libx265 the dynamic loader finds (the one ``HEVCEncoder`` uses).
    public static func probe(path: String? = nil) -> X265MultiviewProbe {
        if let p = path ?? FileSystem.environment(environmentVariable), !p.isEmpty { return probe(files: [p], named: true) }
        return probe(files: SharedLibrary.candidates("libx265", version: String(SM_X265_SONAME_NUMBER)), named: false)
    }

    /// The probe of the environment's libx265, made once per process (what conversions report).
    public static let current: X265MultiviewProbe = probe()

    private typealias ParamAlloc = @convention(c) () -> UnsafeMutableRawPointer?
    private typealias ParamFree = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private typealias ParamParse = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32

    private static func probe(files: [String], named: Bool) -> X265MultiviewProbe {
        var reason = "not found"
        for file in files {
            guard let h = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
                if let e = dlerror() { reason = String(cString: e) }
                continue
            }
            // Kept open: a library is not unloaded under a process that may load it again.
            let label = named ? "\(environmentVariable)=\(file)" : file
            guard let vs = dlsym(h, "x265_version_str"), let pa = dlsym(h, "x265_param_alloc"),
                  let pf = dlsym(h, "x265_param_free"), let pd = dlsym(h, "x265_param_default"),
                  let pp = dlsym(h, "x265_param_parse") else {
                return X265MultiviewProbe(library: file, loaded: false, version: nil, multiview: false,
                                          summary: "\(label) is not a libx265 (no x265_version_str / x265_param_* symbols)")
            }
            let version = vs.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? "unknown"
            let alloc = unsafeBitCast(pa, to: ParamAlloc.self), free = unsafeBitCast(pf, to: ParamFree.self)
            let parse = unsafeBitCast(pp, to: ParamParse.self), setDefaults = unsafeBitCast(pd, to: ParamFree.self)
            var multiview = false
            if let param = alloc() {
                setDefaults(param)  // x265_param_alloc's memory is uninitialised; x265_param_free reads the zones
                multiview = parse(param, "num-views", "2") == 0
                free(param)
            }
            return X265MultiviewProbe(library: file, loaded: true, version: version, multiview: multiview,
                                      summary: multiview ? "\(label) (x265 \(version)) supports multiview (num-views 2)"
                                                         : "\(label) (x265 \(version)) has no multiview support")
        }
        let what = named ? "\(environmentVariable)=\(files.first ?? "")" : "libx265"
        return X265MultiviewProbe(library: files.first ?? "", loaded: false, version: nil, multiview: false,
                                  summary: "\(what) cannot be loaded (\(reason))")
    }
}
