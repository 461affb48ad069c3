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
import MediaDecode
import SystemSupport

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

/// Set by a caller to stop a conversion; checked between frames. A process-wide interruption
/// (``/SystemSupport/Interruption``: SIGINT/SIGTERM once the handlers are installed) cancels every conversion too.
public final class ConversionCancellation: @unchecked Sendable {
    private let lock = Monitor()
    private var flag = false
    public init() {}
    public func cancel() { lock.withLock { flag = true } }
    public var isCancelled: Bool { lock.withLock { flag } || Interruption.isRequested }
}

/// A bounded FIFO between the reading thread and one encoder thread: `put` blocks while full, `take`
/// blocks while empty and returns nil once the queue is closed and drained (or aborted).
final class BoundedQueue<T>: @unchecked Sendable {
    private let monitor = Monitor()
    /// Taken items are cleared at once (a consumed frame must not stay alive until the array is compacted).
    private var items: [T?] = []
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
            items[head] = nil
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
