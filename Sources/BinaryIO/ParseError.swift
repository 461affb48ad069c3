/// A failure to read untrusted input.
///
/// Every error names a machine-readable ``Code``, the absolute byte offset in the input where the
/// problem was found, the path of the structure being read (for boxes: `moov/trak[0]/mdia/…`), and a
/// human-readable reason. Two errors compare equal when their codes are equal, so tests can match
/// on the kind of failure without depending on wording.
public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    /// An open set of error codes. New codes can be added without breaking clients.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The input ended before a structure did.
        public static let truncated = Code(rawValue: "truncated")
        /// A box declares a size smaller than its own header.
        public static let sizeTooSmall = Code(rawValue: "size-too-small")
        /// A box or structure extends past its parent or the end of the file.
        public static let sizePastParent = Code(rawValue: "size-past-parent")
        /// A box below the top level declares size 0 ("to end of file").
        public static let sizeZeroNotTopLevel = Code(rawValue: "size-zero-not-top-level")
        /// An arithmetic operation on values read from the input overflowed.
        public static let arithmeticOverflow = Code(rawValue: "arithmetic-overflow")
        /// A ``Limits`` value was exceeded; the message names the limit.
        public static let limitExceeded = Code(rawValue: "limit-exceeded")
        /// A value is outside the range its syntax allows.
        public static let invalidValue = Code(rawValue: "invalid-value")
        /// A version of a structure that is not supported.
        public static let unsupportedVersion = Code(rawValue: "unsupported-version")
        /// A reference (item id, track id, extent) points at nothing or back at itself.
        public static let danglingReference = Code(rawValue: "dangling-reference")
        /// A reference cycle (for example between `iref` entries).
        public static let cyclicReference = Code(rawValue: "cyclic-reference")
        /// An Exp-Golomb code with more leading zeros than the syntax allows.
        public static let expGolombOverflow = Code(rawValue: "exp-golomb-overflow")
        /// The input is not the kind of file expected.
        public static let notRecognised = Code(rawValue: "not-recognised")
        /// The input could not be opened or read (permissions, directory, I/O error).
        public static let io = Code(rawValue: "io")
        /// A structure could not be written (for example a value that no longer fits its field).
        public static let unwritable = Code(rawValue: "unwritable")
        /// An operation the caller asked for is not possible on this input.
        public static let unsupported = Code(rawValue: "unsupported")
        /// The caller's request itself is wrong, whatever the input: a value out of range, options that contradict
        /// each other, an output that is one of the inputs or another output, an output type the operation does
        /// not write. (The command-line tool exits with 64 for these.)
        public static let invalidArgument = Code(rawValue: "invalid-argument")
        /// An option of the caller's request is refused: a name the request does not know, one given twice, a
        /// value of the wrong type, a value not among those allowed or out of its range, or options that do not
        /// apply or contradict each other. The message names the option as the caller's interface spells it. (The
        /// command-line tool exits with 64 for these too; the C ABI returns `SM_ERR_INVALID_OPTION`.)
        public static let invalidOption = Code(rawValue: "invalid-option")
        /// The work was cancelled (a signal or the caller's cancel flag); nothing was written.
        public static let cancelled = Code(rawValue: "cancelled")
        /// A shared library or program the operation needs (libde265, x265, libjpeg-turbo, libpng, libheif, FFmpeg)
        /// is not installed, cannot be loaded, or lacks a function this library calls. Nothing was written.
        public static let libraryMissing = Code(rawValue: "library-missing")

        /// True for the caller's own mistakes (``invalidArgument``, ``invalidOption``): wrong whatever the input.
        public var isRequestError: Bool { self == .invalidArgument || self == .invalidOption }
    }

    public var code: Code
    /// Absolute byte offset in the input (file offset), or the bit offset divided by 8 for bit readers; nil when
    /// the error has no place in an input (a refused option, a missing program, a cancelled job).
    public var offset: UInt64?
    /// Path of the structure being read, e.g. `moov/trak[0]/mdia/minf/stbl/stsz`. Empty when unknown.
    public var path: String
    public var message: String
    /// What the caller can change to get past the error, when there is one thing to do. The message says it in
    /// plain words; each interface adds its own spelling (the command line its flag, the C ABI its option), so
    /// library messages never name a flag.
    public var remedy: Remedy?

    /// A change the caller can make, named independently of any interface.
    public struct Remedy: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        /// Decode the input with FFmpeg instead of the built-in decoder.
        public static let decodeWithFFmpeg = Remedy(rawValue: "decode-with-ffmpeg")
        /// Convert without audio.
        public static let dropAudio = Remedy(rawValue: "drop-audio")
        /// State the input's frame rate.
        public static let giveFrameRate = Remedy(rawValue: "give-frame-rate")
        /// Name the left and right image items of a HEIF.
        public static let nameEyeItems = Remedy(rawValue: "name-eye-items")
        /// Name the movie whose audio a join of segments carries, or join without audio.
        public static let giveAudioSource = Remedy(rawValue: "give-audio-source")
        /// Give the outputs of a split: one per eye, or one side-by-side file.
        public static let giveSplitOutputs = Remedy(rawValue: "give-split-outputs")
        /// State the projection kind (half-equirectangular or equirectangular).
        public static let giveProjection = Remedy(rawValue: "give-projection")
        /// Describe the frame packing (side by side or over-under) of a single-layer picture.
        public static let giveFramePacking = Remedy(rawValue: "give-frame-packing")
        /// Name the layout of a frame-packed picture (side by side or top-bottom) instead of letting it be guessed.
        public static let giveLayout = Remedy(rawValue: "give-layout")
        /// Convert anyway: the caller vouches that the input is the stereo pair the options describe.
        public static let force = Remedy(rawValue: "force")
        /// Name the layout of a frame-packed input, or convert it anyway as the default layout: nothing in it shows
        /// which, if any, packing holds a stereo pair.
        public static let giveLayoutOrForce = Remedy(rawValue: "give-layout-or-force")
        /// Exchange the eyes of an input whose pixels show its first half is the right eye, or convert it anyway as it
        /// is: nothing in it states the eye order.
        public static let swapEyesOrForce = Remedy(rawValue: "swap-eyes-or-force")
    }

    public init(_ code: Code, offset: UInt64? = nil, path: String = "", _ message: String, remedy: Remedy? = nil) {
        self.code = code
        self.offset = offset
        self.path = path
        self.message = message
        self.remedy = remedy
    }

    public static func == (lhs: ParseError, rhs: ParseError) -> Bool { lhs.code == rhs.code }

    public var description: String {
        let where_ = path.isEmpty ? "" : " in \(path)"
        let at = offset.map { " at offset \($0)" } ?? ""
        return "\(code)\(at)\(where_): \(message)"
    }

    /// Returns a copy whose path is `prefix` when the error has no path yet.
    public func withPath(_ prefix: String) -> ParseError {
        var copy = self
        if copy.path.isEmpty { copy.path = prefix }
        return copy
    }
}
