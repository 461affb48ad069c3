import BinaryIO
import ImageFormats
import MediaDecode
import SpatialMedia
import SystemSupport

/// What `info` is asked: one file. `info` has no options (its name table is empty), so every shell reads a file the
/// same way; the command line, C's `sm_info_path` and Python's `spatialmedia.info` make one request per file.
public struct InfoRequest: Sendable, Equatable {
    public var path: String
    public var limits: Limits

    public init(path: String, limits: Limits = .default) { self.path = path; self.limits = limits }

    /// The name table: no options.
    public static var table: [OptionSpec] { [] }
}

extension Operations {
    /// ``info(path:limits:)`` of the request's file.
    public static func info(_ r: InfoRequest) throws(ParseError) -> MediaInfo {
        try info(path: r.path, limits: r.limits)
    }

    /// What one file is, read the way `convert` and `validate` read it: the one routing of `info` for every shell (the
    /// CLI's `info`, C's `sm_info_path`, Python's `spatialmedia.info`).
    ///
    /// JPEG, MPO and PNG files are described from their markers and chunks (a cut or damaged picture is marked
    /// damaged, as every reader says it); files only FFmpeg reads (Matroska, MPEG-TS, AVI, …) through FFmpeg, with the
    /// integrity reading `convert` makes; everything else (ISOBMFF movies and images, raw HEVC streams) through our
    /// own parsers. A file that cannot be read at all throws.
    public static func info(path: String, limits: Limits = .default) throws(ParseError) -> MediaInfo {
        if let image = try imageInfo(path, limits: limits) { return image }
        if FFmpegInfo.reads(path) { return try FFmpegInfo.inspect(path: path) }
        return try MediaInfo.inspect(path: path)
    }

    /// JPEG, MPO and PNG files; nil for other files.
    static func imageInfo(_ path: String, limits: Limits) throws(ParseError) -> MediaInfo? {
        let src = try FileSource(path: path)
        let kind = FileProbe.kind(head: try src.read(at: 0, count: Int(min(src.size, 8))))
        guard kind == .jpeg || kind == .png else { return nil }
        do {
            let d = try ImageInfo.describe(try FileBytes.read(path))
            // A cut or damaged picture is said with the words and exit status every reader uses.
            var loaded: LoadedImage?
            var damage: ParseError?
            do throws(ParseError) { loaded = try ImageFiles.load(path, limits: limits) } catch {
                if error.code == .truncated { damage = error }
            }
            guard let damage else {
                var json = d.json
                var lines = d.lines
                // An MPO always; another picture when it states a field of view (an ordinary photo gets no line).
                if let loaded,
                    let pair = try? StereoImages.pair(from: loaded, name: path, packing: ImagePacking(limits: limits)),
                    pair.packedLayout == nil || !pair.fieldOfView.assumed
                {
                    let (line, fields) = pairFacts(pair)
                    lines.append(line)
                    if case .object(var o) = json { o.append(("stereo_pair", .object(fields))); json = .object(o) }
                }
                return MediaInfo(lines: lines, json: json, hasProblems: false)
            }
            var json = d.json
            if case .object(var fields) = json {
                fields.append(("damaged", .string(damage.message)))
                json = .object(fields)
            }
            return MediaInfo(
                lines: d.lines + ["damaged or truncated: \(damage.message)"], json: json, hasProblems: true,
                isDamaged: true)
        } catch { throw error.withPath(path) }
    }

    /// What `convert` and `validate` take a JPEG, MPO or PNG for when read as a stereo pair with no layout given (an
    /// MPO's two pictures; else the two halves its shape gives, side by side when at least as wide as tall): the eyes'
    /// size and the field of view the pair is judged and converted at (``/MediaDecode/StereoPair/fieldOfView``).
    static func pairFacts(_ pair: StereoPair) -> (line: String, fields: [(String, JSON)]) {
        let f = pair.fieldOfView
        let layout = pair.packedLayout.map { $0 == .tb ? "tb" : "sbs" } ?? "mpo"
        let cut =
            pair.packedLayout == nil
            ? "its two pictures"
            : layout == "tb" ? "the top and bottom halves" : "the left and right halves"
        let line =
            "as a stereo pair (\(cut), eyes \(pair.left.width)x\(pair.left.height)): horizontal field of view "
            + "\(NumberText.fixed(f.degrees, places: 2))° (\(f.source))"
        return (
            line,
            [
                ("layout", .string(layout)), ("eye_width", .int(Int64(pair.left.width))),
                ("eye_height", .int(Int64(pair.left.height))), ("hfov_degrees", .double(f.degrees)),
                ("hfov_source", .string(f.source)), ("hfov_assumed", .bool(f.assumed)),
            ]
        )
    }

    /// The `info --json` object of the request's file: `"file"` first, then what ``info(path:limits:)`` found; a file
    /// that cannot be read gives `"error"` with its code, offset and message (the CLI's `info --json` and C's
    /// `sm_info_path`).
    public static func infoJSON(_ r: InfoRequest) -> (json: JSON, info: MediaInfo?, error: ParseError?) {
        let path = r.path
        do throws(ParseError) {
            let info = try info(r)
            var o: [(String, JSON)] = [("file", .string(path))]
            if case .object(let fields) = info.json { o += fields }
            return (.object(o), info, nil)
        } catch {
            let at: [(String, JSON)] = error.offset.map { [("offset", .uint($0))] } ?? []
            let e: JSON = .object([("code", .string(error.code.rawValue))] + at + [("message", .string(error.message))])
            return (.object([("file", .string(path)), ("error", e)]), nil, error)
        }
    }
}
