// Codecs: the only module that calls C codec libraries.
import CDe265
@preconcurrency import CX265
import CTurboJPEG
@preconcurrency import CPNG

/// Versions of the codec libraries linked at run time.
public enum CodecVersions {
    public static var libde265: String { String(cString: de265_get_version()) }
    public static var x265: String { String(cString: x265_version_str) }
    public static var turbojpeg: String { "2.x" }
    public static var libpng: String { String(cString: png_get_libpng_ver(nil)) }
}
