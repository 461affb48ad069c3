#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The machine's processor count, as the library's parallel paths see it.
public enum ProcessorInfo {
    /// Processors available to this process (at least 1).
    public static var activeCount: Int { max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))) }
}

