import BinaryIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file opened for positioned writes (in-place edits).
package final class WritableFile {
    let fd: Int32
    let path: String
    package init(path: String) throws(ParseError) {
        self.path = path
        let fd = open(path, O_RDWR)
        guard fd >= 0 else {
            throw ParseError(.io, path: path, "cannot open for writing: \(String(cString: strerror(errno)))")
        }
        self.fd = fd
    }
    package func write(_ bytes: [UInt8], at offset: UInt64) throws(ParseError) {
        var done = 0
        let fd = self.fd
        let err: ParseError? = bytes.withUnsafeBytes { buf -> ParseError? in
            guard let base = buf.baseAddress else { return nil }
            while done < buf.count {
                let r = pwrite(fd, base + done, buf.count - done, off_t(offset) + off_t(done))
                if r < 0 {
                    if errno == EINTR { continue }
                    return ParseError(
                        .io, offset: offset + UInt64(done), path: path,
                        "write failed: \(String(cString: strerror(errno)))")
                }
                done += r
            }
            return nil
        }
        if let err { throw err }
    }
    package func sync() throws(ParseError) {
        if fsync(fd) != 0 { throw ParseError(.io, path: path, "fsync failed: \(String(cString: strerror(errno)))") }
    }
    func truncate(_ size: UInt64) {
        _ = ftruncate(fd, off_t(size))
        _ = fsync(fd)
    }
    package func close() {
        #if canImport(Glibc)
            _ = Glibc.close(fd)
        #elseif canImport(Musl)
            _ = Musl.close(fd)
        #else
            _ = Darwin.close(fd)
        #endif
    }
}
