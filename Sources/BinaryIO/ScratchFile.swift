#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An unnamed temporary file for data too large to keep in memory (the coded samples of a conversion).
///
/// It is created in a given directory (the output's, so that it is on the same file system and the space
/// the user chose) and unlinked at once: nothing is left behind however the process ends, SIGKILL included.
/// Appends are buffered; ``source()`` reads the data back.
public final class ScratchFile: @unchecked Sendable {
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 20
    /// Bytes appended so far (buffered ones included).
    public private(set) var size: UInt64 = 0

    /// Creates the file in `directory`.
    public init(directory: String) throws(ParseError) {
        let (fd, name) = try makeTemporaryFile("\(directory)/.spatial-media-scratch-", path: directory)
        unlink(name)
        self.fd = fd
        buffer.reserveCapacity(bufferLimit)
    }

    deinit { close(fd) }

    /// Appends `bytes`.
    public func append(_ bytes: [UInt8]) throws(ParseError) {
        if buffer.count + bytes.count > bufferLimit { try flush() }
        if bytes.count >= bufferLimit {
            try writeAll(bytes)
        } else {
            buffer += bytes
        }
        size += UInt64(bytes.count)
    }

    /// Writes the buffered bytes to the file.
    public func flush() throws(ParseError) {
        if buffer.isEmpty { return }
        try writeAll(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: [UInt8]) throws(ParseError) {
        let fd = self.fd
        let written = size - UInt64(buffer.count)
        let err: ParseError? = bytes.withUnsafeBytes { raw -> ParseError? in
            guard let base = raw.baseAddress else { return nil }
            var done = 0
            while done < raw.count {
                let r = sysWrite(fd, base + done, raw.count - done)
                if r < 0 {
                    if errno == EINTR { continue }
                    return ParseError(
                        .io, offset: written, "cannot write temporary data: \(String(cString: strerror(errno)))")
                }
                done += r
            }
            return nil
        }
        if let err { throw err }
    }

    /// Flushes and returns a reader of everything appended so far.
    public func source() throws(ParseError) -> FileSource {
        try flush()
        return try FileSource(adopting: dup(fd), name: "temporary data")
    }
}
