#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BinaryIO

/// The machine's processor count, as the library's parallel paths see it.
public enum ProcessorInfo {
    /// Processors available to this process (at least 1).
    public static var activeCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

/// Whole-file reads for the codec entry points that take paths.
public enum FileBytes {
    /// Reads a file fully; errors name the file.
    public static func read(_ path: String, limits: Limits = .default) throws(ParseError) -> [UInt8] {
        let src = try FileSource(path: path)
        guard src.size <= limits.maxBoxInMemory else {
            throw ParseError(.limitExceeded, offset: 0, path: path, "file is \(src.size) bytes, over maxBoxInMemory")
        }
        do { return try src.read(at: 0, count: Int(src.size)) }
        catch { throw error.withPath(path) }
    }
}
