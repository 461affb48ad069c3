import BinaryIO
import SystemSupport

// Plumbing of the C ABI: status codes, the thread-local last error (pthread keys, no Foundation),
// a pthread mutex, C string conversion and allocation of results the caller frees.
//
// Rules for this module: no `!`, `try!`, `as!`, `fatalError` or `precondition`; every exported
// function runs its body through `abiCall`, which turns any thrown error into a status + message.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The status values of `spatialmedia.h` (keep in sync with the header's enum).
public enum SMStatus {
    public static let ok: Int32 = 0
    public static let invalidArgument: Int32 = 1
    public static let invalidHandle: Int32 = 2
    public static let io: Int32 = 3
    public static let parse: Int32 = 4
    public static let notFound: Int32 = 5
    public static let notApplicable: Int32 = 6
    public static let unsupported: Int32 = 7
    public static let cancelled: Int32 = 8
    public static let limit: Int32 = 9
    public static let noMemory: Int32 = 10
    public static let `internal`: Int32 = 11
    public static let invalidOption: Int32 = 12

    static let names: [Int32: String] = [
        0: "SM_OK", 1: "SM_ERR_INVALID_ARGUMENT", 2: "SM_ERR_INVALID_HANDLE", 3: "SM_ERR_IO", 4: "SM_ERR_PARSE",
        5: "SM_ERR_NOT_FOUND", 6: "SM_ERR_NOT_APPLICABLE", 7: "SM_ERR_UNSUPPORTED", 8: "SM_ERR_CANCELLED",
        9: "SM_ERR_LIMIT", 10: "SM_ERR_NO_MEMORY", 11: "SM_ERR_INTERNAL", 12: "SM_ERR_INVALID_OPTION",
    ]
}

/// An error on its way to the C caller: a status and a message, and where in the input it was found
/// when it comes from reading a file (`sm_last_error_location`).
struct ABIError: Error {
    var status: Int32
    var message: String
    /// The `ParseError` code, its file offset and box path; nil/"" for errors of the arguments.
    var code: String = ""
    var offset: UInt64? = nil
    var boxPath: String = ""
    init(_ status: Int32, _ message: String) { self.status = status; self.message = message }

    static func argument(_ m: String) -> ABIError { ABIError(SMStatus.invalidArgument, m) }
    static func notFound(_ m: String) -> ABIError { ABIError(SMStatus.notFound, m) }

    /// Maps a library error to a status; the message keeps the code, offset and box path.
    init(_ e: ParseError) {
        switch e.code {
        case .io: status = SMStatus.io
        case .limitExceeded: status = SMStatus.limit
        case .unsupported, .unwritable: status = SMStatus.notApplicable
        case .invalidArgument: status = SMStatus.invalidArgument
        case .invalidOption: status = SMStatus.invalidOption
        case .cancelled: status = SMStatus.cancelled
        case .libraryMissing: status = SMStatus.unsupported
        default: status = SMStatus.parse
        }
        var where_ = "code \(e.code.rawValue)"
        if let offset = e.offset { where_ += ", offset \(offset)" }
        if !e.path.isEmpty { where_ += ", in \(e.path)" }
        message = "\(Self.abiWording(e)) (\(where_))"
        code = e.code.rawValue
        offset = e.offset
        boxPath = e.path
    }

    /// How a C caller applies a library error's remedy (library messages say it in plain words and name no
    /// interface); remedies only the command-line tool offers say so.
    static let remedyWording: [ParseError.Remedy: String] = [
        .decodeWithFFmpeg: "FFmpeg decoding: command-line tool only",
        .dropAudio: "option \"audio\": \"none\"",
        .giveFrameRate: "options \"frame_rate_num\" and \"frame_rate_den\"",
        .nameEyeItems: "the left and right item ids",
        .giveSplitOutputs: "left_output/right_output or option \"sbs_output\"",
        .giveProjection: "stating the projection: command-line tool only",
        .giveFramePacking: "frame packing: command-line tool only",
        .giveAudioSource: "option \"audio_from\" or \"audio\": \"none\"",
        .giveLayout: "option \"layout\": \"sbs\" or \"tb\"",
        .giveLayoutOrForce: "option \"layout\": \"sbs\" or \"tb\", or option \"force\": true",
        .swapEyesOrForce: "option \"swap_eyes\": true, or option \"force\": true",
    ]

    static func abiWording(_ e: ParseError) -> String {
        guard let r = e.remedy, let how = remedyWording[r] else { return e.message }
        return "\(e.message) [\(how)]"
    }
}

/// Runs a library call, mapping its `ParseError` to an `ABIError`.
@inline(__always)
func lift<T>(_ body: () throws(ParseError) -> T) throws(ABIError) -> T {
    do { return try body() } catch { throw ABIError(error) }
}

/// A C string argument: NUL-terminated UTF-8, or NULL.
public typealias SMString = UnsafePointer<CChar>?
/// Where a function stores a C string it allocated (the caller frees it with `sm_free`), or NULL.
public typealias SMStringOut = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
/// The caller's cancel flag (non-zero: stop), or NULL.
public typealias SMCancelFlag = UnsafePointer<Int32>?
/// The caller's pointer handed back to its progress callback.
public typealias SMUserData = UnsafeMutableRawPointer?

/// The body of every exported function that returns a status: sets the thread's last error to ""
/// on success and to "function: message" on failure.
@inline(__always)
func abiCall(_ function: StaticString, _ body: () throws(ABIError) -> Void) -> Int32 {
    do {
        try body()
        LastError.clear()
        return SMStatus.ok
    } catch {
        LastError.set("\(function): \(error.message)", code: error.code, offset: error.offset, boxPath: error.boxPath)
        return error.status
    }
}

// MARK: - Thread-local last error

/// The last error of each thread: its message, ParseError code and box path as malloc'd C strings, and its
/// file offset (stored as offset + 1, 0 meaning none), each under a pthread key whose destructor frees it
/// when the thread exits.
enum LastError {
    // One key per field; the destructor frees the string when the thread exits (the offset is no pointer).
    static let key: pthread_key_t? = {
        var k = pthread_key_t(); return pthread_key_create(&k, { free($0) }) == 0 ? k : nil
    }()
    static let codeKey: pthread_key_t? = {
        var k = pthread_key_t(); return pthread_key_create(&k, { free($0) }) == 0 ? k : nil
    }()
    static let pathKey: pthread_key_t? = {
        var k = pthread_key_t(); return pthread_key_create(&k, { free($0) }) == 0 ? k : nil
    }()
    static let offsetKey: pthread_key_t? = {
        var k = pthread_key_t(); return pthread_key_create(&k, nil) == 0 ? k : nil
    }()

    private static func store(_ key: pthread_key_t?, _ s: String) {
        guard let key else { return }
        free(pthread_getspecific(key))
        // nil (or out of memory) reads back as ""
        pthread_setspecific(key, s.isEmpty ? nil : s.withCString { strdup($0) })
    }

    static func set(_ message: String, code: String = "", offset: UInt64? = nil, boxPath: String = "") {
        store(key, message)
        store(codeKey, code)
        store(pathKey, boxPath)
        if let offsetKey {
            let encoded = offset.flatMap { $0 < UInt64(UInt.max) ? UInt($0) + 1 : nil } ?? 0
            pthread_setspecific(offsetKey, UnsafeRawPointer(bitPattern: encoded))
        }
    }

    static func clear() { set("") }

    private static func read(_ key: pthread_key_t?) -> UnsafePointer<CChar> {
        if let key, let p = pthread_getspecific(key) { return UnsafePointer(p.assumingMemoryBound(to: CChar.self)) }
        return StaticCString.empty
    }

    /// The current message; "" (a static string) when none.
    static var current: UnsafePointer<CChar> { read(key) }
    /// The ParseError code of the current error; "" when none.
    static var code: UnsafePointer<CChar> { read(codeKey) }
    /// The box path of the current error; "" when none.
    static var boxPath: UnsafePointer<CChar> { read(pathKey) }
    /// The file offset of the current error; -1 when it has none (or does not fit an Int64).
    static var offset: Int64 {
        guard let offsetKey, let p = pthread_getspecific(offsetKey) else { return -1 }
        return Int64(exactly: UInt(bitPattern: p) - 1) ?? -1
    }
}

// MARK: - Static C strings

/// Strings handed out as `const char *` that the library owns: allocated once, never freed.
enum StaticCString {
    private static let lock = Lock()
    nonisolated(unsafe) private static var table: [String: UnsafePointer<CChar>] = [:]

    /// A one-byte "" that lives forever.
    nonisolated(unsafe) static let empty: UnsafePointer<CChar> = {
        let p = UnsafeMutablePointer<CChar>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    /// An interned C copy of `s` (the set of strings passed here is small and fixed).
    static func get(_ s: String) -> UnsafePointer<CChar> {
        lock.withLock {
            if let p = table[s] { return p }
            guard let copy = s.withCString({ strdup($0) }) else { return empty }
            let p = UnsafePointer(copy)
            table[s] = p
            return p
        }
    }
}

// MARK: - Arguments and results

/// A required UTF-8 C string argument.
func requiredString(_ p: SMString, _ name: String) throws(ABIError) -> String {
    guard let p else { throw .argument("\(name) is NULL") }
    guard let s = String(validatingCString: p) else { throw .argument("\(name) is not valid UTF-8") }
    return s
}

/// A required path argument: non-NULL, valid UTF-8, not empty.
func requiredPath(_ p: SMString, _ name: String) throws(ABIError) -> String {
    let s = try requiredString(p, name)
    if s.isEmpty { throw .argument("\(name) is empty") }
    return s
}

/// A JSON array of non-empty path strings (`name` in errors), e.g. the inputs of a validation or the segments of a
/// join.
func pathList(_ p: SMString, _ name: String) throws(ABIError) -> [String] {
    let text = try requiredString(p, name)
    guard case .array(let items) = try OptionParser.parse(text) else {
        throw .argument("\(name) must be a JSON array of paths")
    }
    var list: [String] = []
    for item in items {
        guard case .string(let s) = item, !s.isEmpty else {
            throw .argument("\(name) must hold non-empty strings only")
        }
        list.append(s)
    }
    return list
}

/// The input path and the optional output of an edit (NULL or the input itself: in place; empty: an error).
func editPaths(_ path: SMString, _ output: SMString) throws(ABIError) -> (path: String, output: String?) {
    let p = try requiredPath(path, "path")
    let o = try optionalString(output, "output")
    if o?.isEmpty == true { throw .argument("output is empty (pass NULL to edit in place)") }
    return (p, o)
}

/// An optional string argument (NULL → nil); invalid UTF-8 is still an error.
func optionalString(_ p: SMString, _ name: String) throws(ABIError) -> String? {
    guard let p else { return nil }
    guard let s = String(validatingCString: p) else { throw .argument("\(name) is not valid UTF-8") }
    return s
}

/// Checks that only `allowed` bits are set.
func checkFlags(_ flags: UInt32, allowed: UInt32) throws(ABIError) {
    if flags & ~allowed != 0 { throw .argument("unknown flag bits 0x\(String(flags & ~allowed, radix: 16))") }
}

/// A malloc'd NUL-terminated copy of `s` (freed by `sm_string_free`). Embedded NULs cannot occur in
/// the JSON the library produces (control characters are escaped).
func mallocString(_ s: String) throws(ABIError) -> (UnsafeMutablePointer<CChar>, Int) {
    var utf8 = Array(s.utf8)
    let count = utf8.count
    utf8.append(0)
    guard let raw = malloc(utf8.count) else { throw ABIError(SMStatus.noMemory, "cannot allocate \(utf8.count) bytes") }
    let p = raw.bindMemory(to: CChar.self, capacity: utf8.count)
    utf8.withUnsafeBytes { src in
        if let base = src.baseAddress { memcpy(raw, base, src.count) }
    }
    return (p, count)
}

/// A malloc'd copy of `bytes` (freed by `sm_buffer_free`).
func mallocBytes(_ bytes: [UInt8]) throws(ABIError) -> UnsafeMutablePointer<UInt8> {
    guard let raw = malloc(max(bytes.count, 1)) else {
        throw ABIError(SMStatus.noMemory, "cannot allocate \(bytes.count) bytes")
    }
    bytes.withUnsafeBytes { src in
        if let base = src.baseAddress, src.count > 0 { memcpy(raw, base, src.count) }
    }
    return raw.bindMemory(to: UInt8.self, capacity: max(bytes.count, 1))
}

/// Writes a string result to an optional `char **` out parameter.
func deliver(_ s: String, to out: SMStringOut, length: UnsafeMutablePointer<Int>? = nil) throws(ABIError) {
    guard let out else { return }
    let (p, n) = try mallocString(s)
    out.pointee = p
    length?.pointee = n
}
