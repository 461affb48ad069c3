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

/// Monotonic seconds.
public func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds (user + system) of the calling thread.
public func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

#if canImport(Glibc)
    let rusageSelf = __rusage_who_t(RUSAGE_SELF.rawValue)
#else
    let rusageSelf = RUSAGE_SELF
#endif

/// CPU seconds (user + system) of the whole process so far.
public func processCPUSeconds() -> Double {
    var ru = rusage()
    getrusage(rusageSelf, &ru)
    return Double(ru.ru_utime.tv_sec) + Double(ru.ru_utime.tv_usec) / 1e6 + Double(ru.ru_stime.tv_sec) + Double(
        ru.ru_stime.tv_usec) / 1e6
}

/// Peak resident set size of this process in bytes (Linux reports KiB, macOS bytes).
public func peakRSSBytes() -> UInt64 {
    var ru = rusage()
    getrusage(rusageSelf, &ru)
    #if canImport(Darwin)
        return UInt64(max(0, ru.ru_maxrss))
    #else
        return UInt64(max(0, ru.ru_maxrss)) * 1024
    #endif
}
