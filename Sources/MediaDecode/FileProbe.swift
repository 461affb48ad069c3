import BinaryIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What a file is, from its first bytes (never its name): the one file-type probe the commands use to route a file.
public enum FileProbe {
    public enum Kind: String, Sendable, Equatable {
        /// ISOBMFF with a HEIF brand (heic, heix, mif1, msf1 …): an image file.
        case heif
        /// ISOBMFF / QuickTime movie (ftyp with another brand, or moov/mdat/free/wide first).
        case movie
        case jpeg
        case png
        case y4m
        /// Raw HEVC Annex B (starts with a start code).
        case annexB
        /// Matroska / WebM (EBML header).
        case matroska
        /// Anything else (FFmpeg may still read it).
        case other
    }

    /// HEIF brands (ISO/IEC 23008-12): a file whose major brand is one of these is an image file.
    public static let heifBrands: Set<String> = [
        "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "mif2", "msf1", "avif", "avis", "jpeg", "avci", "j2ki",
        "lhv1",
    ]

    /// Reads the first bytes of `path`; nil when it cannot be opened or is empty.
    public static func kind(of path: String) -> Kind? {
        head(of: path).map { kind(head: $0) }
    }

    /// The first 32 bytes of `path` (fewer when the file is shorter); nil when it cannot be opened or is empty.
    public static func head(of path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: 32)
        let n = head.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return nil }
        return Array(head[0..<n])
    }

    /// Box types a file of the ISOBMFF family may start with: `ftyp`, or the top-level boxes of a movie, HEIF or
    /// segment written without one.
    public static let leadingBoxTypes: Set<String> = [
        "ftyp", "moov", "mdat", "free", "skip", "wide", "meta", "uuid", "styp", "pnot",
    ]

    /// HEIF major brands of the HEVC-coded images a stereo pair can be made of (validate pairs `NAME_L`/`NAME_R`).
    public static let hevcImageBrands: Set<String> = ["heic", "heix", "mif1", "msf1", "heim", "heis"]

    /// True for the files `validate` reads (a directory walk skips the rest): ISOBMFF movies and HEIF (any leading
    /// box of ``leadingBoxTypes``), JPEG/MPO, PNG, Y4M and raw HEVC streams. Matroska and other FFmpeg-only
    /// containers are not.
    public static func isMedia(_ path: String) -> Bool {
        guard let h = head(of: path) else { return false }
        switch kind(head: h) {
        case .jpeg, .png, .y4m, .annexB, .heif, .movie: return true
        case .matroska: return false
        case .other: return h.count >= 8 && leadingBoxTypes.contains(String(decoding: h[4..<8], as: UTF8.self))
        }
    }

    /// True for a still image one eye of a pair can be: JPEG/MPO, PNG, or HEIF with a brand of ``hevcImageBrands``.
    public static func isStillImage(_ path: String) -> Bool {
        guard let h = head(of: path) else { return false }
        switch kind(head: h) {
        case .jpeg, .png: return true
        case .heif: return h.count >= 12 && hevcImageBrands.contains(String(decoding: h[8..<12], as: UTF8.self))
        default: return false
        }
    }

    /// The kind of a file that starts with `head` (32 bytes are enough).
    public static func kind(head: [UInt8]) -> Kind {
        if head.starts(with: Array("YUV4MPEG2".utf8)) { return .y4m }
        if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF { return .jpeg }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return .matroska }
        if head.starts(with: [0, 0, 0, 1]) || head.starts(with: [0, 0, 1]) { return .annexB }
        guard head.count >= 8 else { return .other }
        let type = String(decoding: head[4..<8], as: UTF8.self)
        if type == "ftyp" {
            let major = head.count >= 12 ? String(decoding: head[8..<12], as: UTF8.self) : ""
            return heifBrands.contains(major) ? .heif : .movie
        }
        if ["moov", "mdat", "wide", "free", "skip", "pnot"].contains(type) { return .movie }
        return .other
    }
}
