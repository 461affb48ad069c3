import BinaryIO

/// What a job writes, checked against the output's name before any work, with one wording and one error code
/// (``/BinaryIO/ParseError/Code/invalidArgument``: exit 64) for every command and shell: a HEIC named `.png`, a
/// movie named `.jpg` are refused alike by convert, align, split and the C/Python calls.
public enum OutputKind: Sendable, Equatable {
    /// A spatial photo: `.heic` or `.heif`.
    case heic
    /// A QuickTime movie: `.mov`.
    case movie
    /// An MP4 movie: `.mp4` (asked for by `containerOption`).
    case mp4
    /// A still image one eye (or a side-by-side pair) is written as: `.png`, `.jpg`/`.jpeg` or `.heic`/`.heif`.
    case image
    /// A raw HEVC Annex B stream: `.hevc`, `.265` or `.h265`.
    case hevcStream
    /// A video a split writes: `.mp4`, `.mov` or `.mkv`.
    case video
    /// A spatial video whose container follows its inputs (a join of segments): `.mov` or `.mp4`.
    case movieOrMP4

    /// The lower-cased extension of `path` ("" when it has none).
    public static func fileExtension(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.contains(".") ? String(name.split(separator: ".").last ?? "").lowercased() : ""
    }

    /// Refuses `path` when its name says something else than `kind` is written. `mp4Option` is how the caller spells
    /// the MP4 choice in a message ("--mp4", "\"container\": \"mp4\"").
    public static func check(_ path: String, _ kind: OutputKind, mp4Option: String = "--mp4") throws(ParseError) {
        let ext = fileExtension(path)
        func refuse(_ m: String) -> ParseError { ParseError(.invalidArgument, path: path, m) }
        switch kind {
        case .heic:
            guard ["heic", "heif"].contains(ext) else {
                throw refuse(
                    "the output \(path) must be named .heic: a spatial photo is HEIC"
                        + (["mov", "mp4"].contains(ext)
                            ? " (the input is an image, so this is a photo conversion)" : ""))
            }
        case .movie:
            if ext == "mp4" {
                throw refuse(
                    "the output \(path) is .mp4 but without \(mp4Option) a QuickTime movie is written; add \(mp4Option) or name it .mov"
                )
            }
            guard ext == "mov" else {
                throw refuse(
                    "the output \(path) must be named .mov (or .mp4 with \(mp4Option)): a spatial video is a movie")
            }
        case .mp4:
            guard ext == "mp4" else { throw refuse("the output \(path) must be named .mp4 with \(mp4Option)") }
        case .image:
            guard ["png", "jpg", "jpeg", "heic", "heif"].contains(ext) else {
                throw refuse("the output \(path) must be named .png, .jpg or .heic: an eye of a photo is an image")
            }
        case .hevcStream:
            guard ["hevc", "265", "h265"].contains(ext) else {
                throw refuse("the output \(path) must be named .hevc: a raw HEVC stream is written")
            }
        case .movieOrMP4:
            guard ["mov", "mp4"].contains(ext) else {
                throw refuse("the output \(path) must be named .mov or .mp4: a spatial video is a movie")
            }
        case .video:
            guard ["mp4", "mov", "mkv"].contains(ext) else {
                throw refuse("the output \(path) must be named .mp4, .mov or .mkv: a video is written")
            }
        }
    }
}
