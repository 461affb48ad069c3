#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Random access to the bytes of an input, without loading it whole.
///
/// Parsers read box headers and metadata boxes through a source; large payloads (`mdat`) are
/// only ever referenced by range, so inspecting a 10 GB movie reads its `moov` and nothing else.
public protocol ByteSource: Sendable {
    /// Total size in bytes.
    var size: UInt64 { get }
    /// Reads up to `count` bytes at `offset`; fewer only at the end of the input.
    func read(at offset: UInt64, count: Int) throws(ParseError) -> [UInt8]
}

/// An in-memory source.
public struct MemorySource: ByteSource {
    public let bytes: [UInt8]
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public var size: UInt64 { UInt64(bytes.count) }
    public func read(at offset: UInt64, count: Int) throws(ParseError) -> [UInt8] {
        guard count >= 0, offset <= size else {
            throw ParseError(.truncated, offset: offset, "read past the end of the input")
        }
        let start = Int(offset)
        let end = start + min(count, bytes.count - start)
        return Array(bytes[start..<end])
    }
}

/// A file read with positioned reads (`pread`); thread-safe, never reads more than asked.
public final class FileSource: ByteSource, @unchecked Sendable {
    public let path: String
    public let size: UInt64
    private let fd: Int32

    /// Opens `path` for reading. Directories, missing files and unreadable files throw
    /// ``ParseError/Code/io`` with a reason a person can act on.
    public init(path: String) throws(ParseError) {
        self.path = path
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw ParseError(.io, path: path, "cannot open: \(Self.errnoText())")
        }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            throw ParseError(.io, path: path, "is a directory, not a file")
        }
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw ParseError(.io, path: path, "cannot open: \(Self.errnoText())")
        }
        self.fd = fd
        self.size = UInt64(max(0, Int64(st.st_size)))
    }

    /// Takes ownership of an open descriptor (closed when the source goes away); `size` is what it holds now.
    /// `name` stands in for the path in errors.
    public init(adopting fd: Int32, name: String) throws(ParseError) {
        var st = stat()
        guard fd >= 0, fstat(fd, &st) == 0 else {
            throw ParseError(.io, path: name, "cannot read \(name): \(Self.errnoText())")
        }
        self.path = name
        self.fd = fd
        self.size = UInt64(max(0, Int64(st.st_size)))
    }
    deinit { close(fd) }

    static func errnoText() -> String { String(cString: strerror(errno)) }

    public func read(at offset: UInt64, count: Int) throws(ParseError) -> [UInt8] {
        guard count >= 0, offset <= size else {
            throw ParseError(.truncated, offset: offset, "read past the end of the file")
        }
        let n = Int(min(UInt64(count), size - offset))
        if n == 0 { return [] }
        var out = [UInt8](repeating: 0, count: n)
        var done = 0
        let fd = self.fd
        let failure: ParseError? = out.withUnsafeMutableBytes { buf -> ParseError? in
            guard let base = buf.baseAddress else { return nil }
            while done < n {
                let r = pread(fd, base + done, n - done, off_t(offset) + off_t(done))
                if r < 0 {
                    if errno == EINTR { continue }
                    return ParseError(.io, offset: offset + UInt64(done), "read failed: \(FileSource.errnoText())")
                }
                if r == 0 { break }
                done += r
            }
            return nil
        }
        if let failure { throw failure }
        if done < n { out.removeLast(n - done) }
        return out
    }
}

/// Whole-file reads for the codec entry points that take paths.
public enum FileBytes {
    /// Reads a file fully; errors name the file.
    public static func read(_ path: String, limits: Limits = .default) throws(ParseError) -> [UInt8] {
        let src = try FileSource(path: path)
        guard src.size <= limits.maxBoxInMemory else {
            throw ParseError(.limitExceeded, path: path, "file is \(src.size) bytes, over maxBoxInMemory")
        }
        do { return try src.read(at: 0, count: Int(src.size)) } catch { throw error.withPath(path) }
    }
}
