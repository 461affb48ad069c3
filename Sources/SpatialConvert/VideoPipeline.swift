import BinaryIO
import MediaDecode
import SystemSupport

#if canImport(Dispatch)
    import Dispatch
#endif

// Small threading helpers for the video pipeline (no Foundation, like the rest of the package).

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
    func close() {
        monitor.withLock {
            closed = true; monitor.broadcast()
        }
    }
    var isAborted: Bool { monitor.withLock { aborted } }
    /// Drops everything and wakes both sides.
    func abort() {
        monitor.withLock {
            aborted = true; items.removeAll(); head = 0; monitor.broadcast()
        }
    }
}

/// Runs `body` on a new thread (GCD, overcommitting queue so a blocked worker never starves the other).
func startThread(_ label: String, _ body: @escaping @Sendable () -> Void) -> DispatchGroup {
    let g = DispatchGroup()
    let q = DispatchQueue(label: label)
    q.async(group: g, execute: body)
    return g
}
