@preconcurrency import CX265
import SystemSupport

// Whether a multiview-capable libx265 (x265 4.0 or newer built with ENABLE_MULTIVIEW) can be used, through our own
// binding (issues 23, 30). Specs/conversion.md, "Multiview encoder detection".
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a probe for a multiview libx265 found: its version and whether both eyes can be encoded by it.
///
/// The encoder is driven through `libspatialmedia_x265mv.so`, our own small C binding (`scripts/x265mv`) that
/// `scripts/setup.sh` compiles against the very `x265.h` of the libx265 it installs (in the tools directory,
/// `x265-mv/lib/`), so no x265 structure layout is known to this program and any x265 API build works. The probe
/// looks, in order, at the file `SPATIAL_MEDIA_X265` names (the binding, or a libx265 with the binding beside it),
/// the binding in each tools directory (``/SystemSupport/ToolsDirectory``), and the libx265 the loader finds. A
/// libx265 is asked `x265_param_parse(param, "num-views", "2")` through its exported C functions only (0 means a
/// multiview build; x265 3.5 answers "unknown option"). It never encodes.
public struct X265MultiviewProbe: Sendable, Equatable {
    /// The file that was opened (or tried): the binding when one was found, else a libx265.
    public var library: String
    /// True when the file was opened and is a libx265 or our binding.
    public var loaded: Bool
    /// `x265_version_str`, when loaded.
    public var version: String?
    /// Both eyes can be encoded through ``library``: a multiview libx265 with our binding.
    public var multiview: Bool
    /// One sentence for a person: what was found, or why nothing was.
    public var summary: String
    /// `X265_BUILD` the binding was compiled against (nil without a binding).
    public var apiBuild: Int?
    /// True when the binding says its libx265 encodes frames in parallel deterministically (`smx_frame_parallel`: the
    /// library `scripts/setup.sh` builds with its rate-control ordering patch); false for an unpatched library, whose
    /// multiview output then depends on thread timing.
    public var frameParallel = false

    /// A probe result (tests and callers that probed by other means).
    public init(library: String, loaded: Bool, version: String?, multiview: Bool, summary: String, apiBuild: Int? = nil)
    {
        self.library = library; self.loaded = loaded; self.version = version; self.multiview = multiview;
        self.summary = summary
        self.apiBuild = apiBuild
    }

    /// The environment variable naming a file to probe instead of the tools directories and the loader's libx265.
    public static let environmentVariable = "SPATIAL_MEDIA_X265"
    /// File name of our binding (`scripts/x265mv/spatialmedia_x265mv.c`, compiled by `scripts/setup.sh`).
    public static let bindingName = "libspatialmedia_x265mv.so"
    /// `SMX_ABI` of `spatialmedia_x265mv.h` this program calls.
    static let bindingABI: Int32 = 1

    /// Probes `path` (the binding, or a libx265 with the binding beside it), or when nil the file named by
    /// `SPATIAL_MEDIA_X265`, or else the binding in the tools directories, or else the loader's libx265.
    public static func probe(path: String? = nil) -> X265MultiviewProbe {
        if let p = path ?? FileSystem.environment(environmentVariable), !p.isEmpty { return probe(named: p) }
        for dir in ToolsDirectory.all() {
            let binding = dir + "/x265-mv/lib/" + bindingName
            if FileSystem.kind(binding) != nil { return probeBinding(binding, label: binding) }
        }
        // The loader's libx265 (the single-layer encoder's): without our binding it cannot encode two views.
        var system = probeLibrary(
            files: SharedLibrary.candidates("libx265", version: String(SM_X265_SONAME_NUMBER)), label: nil)
        system.multiview = false
        return system
    }

    /// The probe of the environment, made once per process (what conversions and `--version` report).
    public static let current: X265MultiviewProbe = probe()

    /// One line for `--version`: the encoder each video path uses.
    public static var encodersLine: String {
        let p = current
        let mv =
            p.multiview
            ? "x265 \(p.version ?? "?") multiview, API build \(p.apiBuild.map(String.init) ?? "?") (\(p.library))"
            : "none (\(p.summary))"
        return
            "video encoders: multiview path (default when present): \(mv); assembled path: x265 \(HEVCEncoder.version) per eye (system libx265)"
    }

    private typealias ParamAlloc = @convention(c) () -> UnsafeMutableRawPointer?
    private typealias ParamFree = @convention(c) (UnsafeMutableRawPointer?) -> Void
    private typealias ParamParse =
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> Int32
    private typealias IntFn = @convention(c) () -> Int32
    private typealias StringFn = @convention(c) () -> UnsafePointer<CChar>?

    private static func probe(named p: String) -> X265MultiviewProbe {
        let label = "\(environmentVariable)=\(p)"
        if let h = dlopen(p, RTLD_NOW | RTLD_LOCAL), dlsym(h, "smx_abi") != nil { return probeBinding(p, label: label) }
        let lib = probeLibrary(files: [p], label: label)
        guard lib.multiview else { return lib }
        let beside = ToolsDirectory.parent(p) + "/" + bindingName
        if FileSystem.kind(beside) != nil { return probeBinding(beside, label: "\(beside) (beside \(label))") }
        var out = lib
        out.multiview = false
        out.summary =
            "\(label) (x265 \(lib.version ?? "?")) supports multiview, but our binding \(bindingName) is not beside it (scripts/setup.sh compiles it)"
        return out
    }

    /// Opens our binding and asks it for the library's version and multiview support.
    static func probeBinding(_ file: String, label: String) -> X265MultiviewProbe {
        guard let h = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown"
            return X265MultiviewProbe(
                library: file, loaded: false, version: nil, multiview: false,
                summary: "\(label) cannot be loaded (\(reason))")
        }
        // Kept open: a library is not unloaded under a process that may load it again.
        guard let a = dlsym(h, "smx_abi"), let b = dlsym(h, "smx_x265_build"), let v = dlsym(h, "smx_x265_version"),
            let m = dlsym(h, "smx_multiview")
        else {
            return X265MultiviewProbe(
                library: file, loaded: false, version: nil, multiview: false,
                summary: "\(label) is not spatial-media's x265 binding")
        }
        let abi = unsafeBitCast(a, to: IntFn.self)()
        guard abi == bindingABI else {
            return X265MultiviewProbe(
                library: file, loaded: true, version: nil, multiview: false,
                summary:
                    "\(label) is binding ABI \(abi), this program calls ABI \(bindingABI) (run scripts/setup.sh again)")
        }
        let build = Int(unsafeBitCast(b, to: IntFn.self)())
        guard let vs = unsafeBitCast(v, to: StringFn.self)() else {
            return X265MultiviewProbe(
                library: file, loaded: true, version: nil, multiview: false,
                summary: "\(label): its libx265 has no 8-bit encoder", apiBuild: build)
        }
        let version = String(cString: vs)
        let mv = unsafeBitCast(m, to: IntFn.self)() == 1
        // Older bindings have no smx_frame_parallel: their library is taken as unpatched.
        let parallel = dlsym(h, "smx_frame_parallel").map { unsafeBitCast($0, to: IntFn.self)() == 1 } ?? false
        var probe = X265MultiviewProbe(
            library: file, loaded: true, version: version, multiview: mv,
            summary: mv
                ? "\(label) (x265 \(version), API build \(build)) supports multiview (num-views 2)\(parallel ? ", frame-parallel" : "")"
                : "\(label) (x265 \(version)) has no multiview support", apiBuild: build)
        probe.frameParallel = parallel
        return probe
    }

    /// Opens a libx265 (the first of `files` that loads) and asks it whether it accepts two views (`multiview` is
    /// that answer; the callers clear it when no binding goes with the library).
    private static func probeLibrary(files: [String], label named: String?) -> X265MultiviewProbe {
        var reason = "not found"
        for file in files {
            guard let h = dlopen(file, RTLD_NOW | RTLD_LOCAL) else {
                if let e = dlerror() { reason = String(cString: e) }
                continue
            }
            let label = named ?? file
            guard let vs = dlsym(h, "x265_version_str"), let pa = dlsym(h, "x265_param_alloc"),
                let pf = dlsym(h, "x265_param_free"), let pd = dlsym(h, "x265_param_default"),
                let pp = dlsym(h, "x265_param_parse")
            else {
                return X265MultiviewProbe(
                    library: file, loaded: false, version: nil, multiview: false,
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
            let hint = named == nil ? "; scripts/setup.sh builds one into the tools directory" : ""
            return X265MultiviewProbe(
                library: file, loaded: true, version: version, multiview: multiview,
                summary: multiview
                    ? "\(label) (x265 \(version)) supports multiview, but our binding \(bindingName) was not found (scripts/setup.sh compiles it)"
                    : "\(label) (x265 \(version)) has no multiview support\(hint)")
        }
        let what = named ?? "libx265"
        return X265MultiviewProbe(
            library: files.first ?? "", loaded: false, version: nil, multiview: false,
            summary: "\(what) cannot be loaded (\(reason))")
    }
}
