// Codecs: the only module that calls C codec libraries (bound at first use, see Libraries.swift).

/// Versions of the codec libraries loaded at run time ("not available" when one cannot be loaded).
public enum CodecVersions {
    public static var libde265: String {
        guard let l = try? De265.library(), let v = l.get_version() else { return "not available" }
        return String(cString: v)
    }
    public static var x265: String { (try? X265.library())?.version ?? "not available" }
    public static var turbojpeg: String { (try? TurboJPEG.library()) == nil ? "not available" : "2.x" }
    public static var libpng: String {
        guard let l = try? LibPNG.library(), let v = l.get_libpng_ver(nil) else { return "not available" }
        return String(cString: v)
    }
}
