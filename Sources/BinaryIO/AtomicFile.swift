import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

@inline(__always) func sysWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }

/// Writes a file so that the destination is either untouched or complete.
///
/// Data goes to a temporary file in the destination's directory; on success it is flushed to
/// disk (`fsync`) and renamed over the destination, which is atomic on POSIX file systems. On any
/// failure (disk full, an error thrown by the producer) the temporary file is removed and the
/// destination is left as it was.
public final class AtomicFile: @unchecked Sendable {
    let fd: Int32
    public let temporaryPath: String
    public private(set) var bytesWritten: UInt64 = 0

    init(fd: Int32, temporaryPath: String) { self.fd = fd; self.temporaryPath = temporaryPath }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Appends bytes; throws ``ParseError/Code/io`` on a write error (for example ENOSPC).
    public func write(_ bytes: [UInt8]) throws(ParseError) {
        var done = 0
        let fd = self.fd
        let err: ParseError? = bytes.withUnsafeBytes { buf -> ParseError? in
            guard let base = buf.baseAddress else { return nil }
            while done < buf.count {
                let r = sysWrite(fd, base + done, buf.count - done)
                if r < 0 {
                    if errno == EINTR { continue }
                    return ParseError(
                        .io, offset: bytesWritten + UInt64(done), "write failed: \(AtomicFile.errnoText())")
                }
                done += r
            }
            return nil
        }
        if let err { throw err }
        bytesWritten += UInt64(bytes.count)
    }

    /// Runs `body` with a temporary file and renames it to `path` when `body` succeeds.
    public static func write(path: String, _ body: (AtomicFile) throws(ParseError) -> Void) throws(ParseError) {
        let dir: String
        let name: String
        if let slash = path.lastIndex(of: "/") {
            dir = String(path[..<slash]).isEmpty ? "/" : String(path[..<slash])
            name = String(path[path.index(after: slash)...])
        } else {
            dir = "."; name = path
        }
        var st = stat()
        guard stat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ParseError(.io, path: path, "output directory '\(dir)' does not exist")
        }
        // An interrupted run removes it (SIGINT/SIGTERM; SIGKILL leaves a `.NAME.tmp-*` the next run ignores).
        let (fd, tmp, token) = try registeredTemporaryFile("\(dir)/.\(name).tmp-", path: path)
        defer { Interruption.unregister(token) }
        let file = AtomicFile(fd: fd, temporaryPath: tmp)
        var open = true
        do throws(ParseError) {
            try body(file)
            if fsync(fd) != 0 {
                throw ParseError(.io, offset: file.bytesWritten, path: path, "fsync failed: \(errnoText())")
            }
            // Keep the permissions of a file being replaced; otherwise use 0644.
            var old = stat()
            let mode: mode_t = stat(path, &old) == 0 ? (old.st_mode & 0o7777) : 0o644
            fchmod(fd, mode)
            close(fd)
            open = false
            // A run interrupted while it finished (SIGINT/SIGTERM seen, exit still pending) writes nothing.
            if Interruption.isRequested { throw ParseError(.cancelled, path: path, "interrupted; nothing was written") }
            if rename(tmp, path) != 0 {
                let text = errnoText()
                unlink(tmp)
                throw ParseError(.io, path: path, "cannot rename the temporary file into place: \(text)")
            }
        } catch {
            if open { close(fd) }
            unlink(tmp)
            var e = error
            if e.path.isEmpty { e.path = path }
            throw e
        }
    }

    /// Writes `bytes` to `path` atomically.
    public static func write(path: String, bytes: [UInt8]) throws(ParseError) {
        try write(path: path) { (f: AtomicFile) throws(ParseError) in try f.write(bytes) }
    }
}

extension AtomicFile {
    /// Creates an empty scratch file named like the temporary files of atomic outputs (`.NAME.tmp-XXXXXX`) in the
    /// directory of `output`, for a helper program that writes the output itself; the caller renames or removes it.
    public static func scratchPath(near output: String) throws(ParseError) -> String {
        let slash = output.lastIndex(of: "/")
        let dir = slash.map { String(output[..<$0]).isEmpty ? "/" : String(output[..<$0]) } ?? "."
        let name = slash.map { String(output[output.index(after: $0)...]) } ?? output
        // Removed if the process is interrupted before ``commit(scratch:to:)``.
        let (fd, tmp, _) = try registeredTemporaryFile("\(dir)/.\(name).tmp-", path: output)
        close(fd)
        return tmp
    }

    /// Finishes a file another program wrote at `scratch` (from ``scratchPath(near:)``): flushed to disk, given the
    /// permissions of the file it replaces (else 0644) and renamed to `path`. On failure the scratch file is removed.
    public static func commit(scratch: String, to path: String) throws(ParseError) {
        var old = stat()
        let mode: mode_t = stat(path, &old) == 0 ? (old.st_mode & 0o7777) : 0o644
        chmod(scratch, mode)
        let fd = open(scratch, O_RDONLY)
        if fd >= 0 { fsync(fd); close(fd) }
        defer { Interruption.unregister(temporaryFile: scratch) }
        if Interruption.isRequested {
            unlink(scratch)
            throw ParseError(.cancelled, path: path, "interrupted; nothing was written")
        }
        guard rename(scratch, path) == 0 else {
            let text = errnoText()
            unlink(scratch)
            throw ParseError(.io, path: path, "cannot move the finished file into place: \(text)")
        }
    }
}

/// Creates a file named `prefix` + six random characters (`mkstemp`); returns its descriptor and name.
/// A new temporary file (``makeTemporaryFile(_:path:)``) registered for removal on interruption in the same step
/// (``/SystemSupport/Interruption/registering(temporaryFile:)``); refused as cancelled once the process is exiting.
func registeredTemporaryFile(_ prefix: String, path: String) throws(ParseError) -> (Int32, String, Int) {
    let made = try Interruption.registering { () throws(ParseError) -> (Int32, String) in
        try makeTemporaryFile(prefix, path: path)
    }
    guard let made else { throw ParseError(.cancelled, path: path, "interrupted; nothing was written") }
    return (made.value, made.path, made.token)
}

func makeTemporaryFile(_ prefix: String, path: String) throws(ParseError) -> (Int32, String) {
    var template = Array("\(prefix)XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { p -> Int32 in
        guard let base = p.baseAddress else { return -1 }
        return mkstemp(base)
    }
    guard fd >= 0 else {
        throw ParseError(
            .io, path: path, "cannot create a temporary file '\(prefix)…': \(String(cString: strerror(errno)))")
    }
    return (fd, String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
}

/// Unbuffered writes to standard error (human messages; JSON goes to standard output).
public enum StandardError {
    public static func write(_ s: String) {
        let bytes = Array(s.utf8)
        bytes.withUnsafeBytes { buf in
            guard let base = buf.baseAddress else { return }
            _ = sysWrite(2, base, buf.count)
        }
    }
}

/// The one check that an operation never writes over one of its own inputs, nor twice to the same file.
public enum OutputPaths {
    /// Throws ``ParseError/Code/invalidArgument`` when an output is an input (the same file after following symbolic
    /// links; hard links compare by device and inode) or when two outputs are the same file. `"-"` (standard
    /// input or output) is never compared. Roles name the paths in the message ("output", "--left", "right_input").
    public static func check(outputs: [(role: String, path: String)], inputs: [(role: String, path: String)])
        throws(ParseError)
    {
        let outs = outputs.filter { $0.path != "-" && !$0.path.isEmpty }
        for (i, o) in outs.enumerated() {
            for input in inputs
            where input.path != "-" && !input.path.isEmpty && FileSystem.sameFile(o.path, input.path) {
                throw ParseError(
                    .invalidArgument, path: o.path,
                    "the \(o.role) \(o.path) is the \(input.role) \(input.path)\(o.path == input.path ? "" : " (the same file)"); write to another file"
                )
            }
            for other in outs[..<i] where FileSystem.sameFile(o.path, other.path) {
                throw ParseError(
                    .invalidArgument, path: o.path,
                    "the \(other.role) and the \(o.role) are the same file (\(other.path)\(o.path == other.path ? "" : ", \(o.path)")); give each output its own file"
                )
            }
        }
    }
}
