#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(Dispatch)
import Dispatch
#endif
import BinaryIO

// Small threading helpers for the video pipeline (no Foundation, like the rest of the package).

/// A pthread mutex with a condition variable.
final class Monitor: @unchecked Sendable {
    private let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let c = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    init() {
        m.initialize(to: pthread_mutex_t()); pthread_mutex_init(m, nil)
        c.initialize(to: pthread_cond_t()); pthread_cond_init(c, nil)
    }
    deinit {
        pthread_cond_destroy(c); pthread_mutex_destroy(m)
        c.deallocate(); m.deallocate()
    }
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(m)
        defer { pthread_mutex_unlock(m) }
        return try body()
    }
    /// Call with the lock held.
    func wait() { pthread_cond_wait(c, m) }
    /// Call with the lock held.
    func broadcast() { pthread_cond_broadcast(c) }
}

/// Set by a signal handler or a caller to stop a conversion; checked between frames.
public final class ConversionCancellation: @unchecked Sendable {
    private let lock = Monitor()
    private var flag = false
    public init() {}
    public func cancel() { lock.withLock { flag = true } }
    public var isCancelled: Bool { lock.withLock { flag } }
}

/// A bounded FIFO between the reading thread and one encoder thread: `put` blocks while full, `take`
/// blocks while empty and returns nil once the queue is closed and drained (or aborted).
final class BoundedQueue<T>: @unchecked Sendable {
    private let monitor = Monitor()
    private var items: [T] = []
    private var head = 0
    private let capacity: Int
    private var closed = false
    private var aborted = false
    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Returns false when the queue was aborted (the consumer failed).
    func put(_ item: T) -> Bool {
        monitor.withLock {
            while items.count - head >= capacity && !aborted { monitor.wait() }
            if aborted { return false }
            items.append(item)
            monitor.broadcast()
            return true
        }
    }
    func take() -> T? {
        monitor.withLock {
            while head >= items.count && !closed && !aborted { monitor.wait() }
            if aborted || head >= items.count { return nil }
            let item = items[head]
            head += 1
            if head > 64 { items.removeFirst(head); head = 0 }
            monitor.broadcast()
            return item
        }
    }
    /// No more items will be put.
    func close() { monitor.withLock { closed = true; monitor.broadcast() } }
    var isAborted: Bool { monitor.withLock { aborted } }
    /// Drops everything and wakes both sides.
    func abort() { monitor.withLock { aborted = true; items.removeAll(); head = 0; monitor.broadcast() } }
}

/// Monotonic seconds.
func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU seconds (user + system) of the calling thread.
func threadCPUSeconds() -> Double {
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
func processCPUSeconds() -> Double {
    var ru = rusage()
    getrusage(rusageSelf, &ru)
    return Double(ru.ru_utime.tv_sec) + Double(ru.ru_utime.tv_usec) / 1e6 + Double(ru.ru_stime.tv_sec) + Double(ru.ru_stime.tv_usec) / 1e6
}

/// Peak resident set size of this process in bytes (Linux reports KiB, macOS bytes).
func peakRSSBytes() -> UInt64 {
    var ru = rusage()
    getrusage(rusageSelf, &ru)
    #if canImport(Darwin)
    return UInt64(max(0, ru.ru_maxrss))
    #else
    return UInt64(max(0, ru.ru_maxrss)) * 1024
    #endif
}

/// Runs `body` on a new thread (GCD, overcommitting queue so a blocked worker never starves the other).
func startThread(_ label: String, _ body: @escaping @Sendable () -> Void) -> DispatchGroup {
    let g = DispatchGroup()
    let q = DispatchQueue(label: label)
    q.async(group: g, execute: body)
    return g
}

/// Looks `name` up on PATH; nil when not found.
func findExecutable(_ name: String) -> String? {
    if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
    guard let p = getenv("PATH") else { return nil }
    for dir in String(cString: p).split(separator: ":") {
        let full = "\(dir)/\(name)"
        var st = stat()
        if stat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(full, X_OK) == 0 { return full }
    }
    return nil
}

/// A child process whose standard output we read (ffmpeg producing Y4M); standard error goes to a
/// temporary file so a failure can be reported with ffmpeg's own words.
package final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    /// Read end of the child's standard output.
    package let stdoutFD: Int32
    let stderrPath: String
    private var reaped = false
    private var status: Int32 = 0

    package init(executable: String, arguments: [String]) throws(ParseError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ParseError(.io, offset: 0, "cannot create a pipe: \(String(cString: strerror(errno)))") }
        var template = Array("/tmp/spatial-media-ffmpeg-XXXXXX".utf8CString)
        let errFD = template.withUnsafeMutableBufferPointer { p -> Int32 in p.baseAddress.map { mkstemp($0) } ?? -1 }
        guard errFD >= 0 else {
            close(fds[0]); close(fds[1])
            throw ParseError(.io, offset: 0, "cannot create a temporary file: \(String(cString: strerror(errno)))")
        }
        stderrPath = String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        var attr: posix_spawnattr_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        var attr = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errFD, 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawnattr_init(&attr)
        // The child gets default SIGINT/SIGPIPE handling even if we ignore them.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attr, argv, environ)
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attr)
        close(fds[1]); close(errFD)
        guard rc == 0 else {
            close(fds[0]); unlink(stderrPath)
            throw ParseError(.io, offset: 0, "cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdoutFD = fds[0]
    }

    /// Reads the child's standard output to its end, or until more than `limit` bytes arrived
    /// (then `nil`, and the child is stopped).
    package func readToEnd(limit: Int) -> [UInt8]? {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if out.count + n > limit { terminate(); return nil }
            out.append(contentsOf: chunk[0..<n])
        }
        return out
    }

    /// Waits for the child; returns its exit status (128 + signal when killed).
    package func wait() -> Int32 {
        if reaped { return status }
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0 && errno == EINTR {}
        reaped = true
        // WIFEXITED / WEXITSTATUS by hand (macros are not imported).
        let sig = st & 0x7f
        status = sig == 0 ? (st >> 8) & 0xff : 128 + sig
        return status
    }

    /// Stops the child (it is ours) and reaps it.
    package func terminate() {
        if !reaped { kill(pid, SIGTERM) }
        _ = wait()
    }

    /// The last `max` bytes ffmpeg wrote to standard error.
    func errorText(max: Int = 600) -> String {
        let fd = open(stderrPath, O_RDONLY)
        guard fd >= 0 else { return "" }
        defer { close(fd) }
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return "" }
        let text = String(decoding: buf[0..<n], as: UTF8.self).split(separator: "\n").joined(separator: " | ")
        return String(text.suffix(max))
    }

    deinit {
        terminate()
        close(stdoutFD)
        unlink(stderrPath)
    }
}
