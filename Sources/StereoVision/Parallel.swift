import Dispatch

/// Carries values the caller guarantees are used safely across threads (each worker writes its own slot,
/// the body only reads shared immutable data).
struct UncheckedSendable<V>: @unchecked Sendable { let value: V }

/// Runs `body(i)` for i in 0..<n on all cores and returns the results in order.
func parallelMap<T>(_ n: Int, _ body: (Int) -> T) -> [T] {
    guard n > 1 else { return n == 1 ? [body(0)] : [] }
    let out = UnsafeMutablePointer<T>.allocate(capacity: n)
    withoutActuallyEscaping(body) { esc in
        let box = UncheckedSendable(value: (out, esc))
        DispatchQueue.concurrentPerform(iterations: n) { i in
            let (o, b) = box.value
            (o + i).initialize(to: b(i))
        }
    }
    let result = Array(UnsafeBufferPointer(start: out, count: n))
    out.deinitialize(count: n)
    out.deallocate()
    return result
}

/// Number of chunks per-item work is split into (at least the two cores of the machine).
let workerCount = 4
