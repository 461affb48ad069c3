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

/// Process-wide handling of SIGINT and SIGTERM: the one place that knows which helper processes and
/// temporary files are alive, so that an interrupted run never hangs and never leaves anything behind.
///
/// After ``install()`` (the command-line tool calls it once at start-up) the first SIGINT or SIGTERM:
/// sets ``isRequested`` (long loops poll it: `ChildProcess`-based readers, the video pipeline);
/// asks every registered child process to stop (SIGTERM, then SIGKILL after ``childGraceSeconds``); and,
/// when no cooperative section (``beginCooperative()``) is running, removes the registered temporary files
/// and exits at once with 128 + the signal number. A cooperative section has ``forcedExitSeconds`` to unwind
/// by itself before the same clean-up and exit are forced; a second signal forces them immediately.
/// Without ``install()`` (library use) nothing here changes signal handling, and registration is cheap.
public enum Interruption {
    /// Seconds a child gets between SIGTERM and SIGKILL.
    public static let childGraceSeconds = 0.3
    /// Seconds a cooperative section gets to unwind after the first signal before the process exits anyway.
    public static let forcedExitSeconds = 1.5

    private static let state = State()

    final class State: @unchecked Sendable {
        let lock = Lock()
        var signal: Int32 = 0
        var nextToken = 1
        var children: [Int: pid_t] = [:]
        var files: [Int: String] = [:]
        var cooperative = 0
        var installed = false
        /// Set by ``forceExit()`` under the lock as it takes the files to remove: nothing is created after that.
        var exiting = false
        #if canImport(Dispatch)
            var sources: [DispatchSourceSignal] = []
        #endif
    }

    /// True once SIGINT or SIGTERM arrived (or ``request(signal:)`` was called).
    public static var isRequested: Bool { state.lock.withLock { state.signal != 0 } }

    /// The signal that was received (SIGINT, SIGTERM), or 0.
    public static var signalNumber: Int32 { state.lock.withLock { state.signal } }

    /// The exit status for an interrupted run: 130 after SIGINT, 143 after SIGTERM.
    public static var exitStatus: Int32 { let s = signalNumber; return s == 0 ? 130 : 128 + s }

    /// Installs the handlers for SIGINT and SIGTERM (idempotent).
    public static func install() {
        #if canImport(Dispatch)
            let first = state.lock.withLock { () -> Bool in
                if state.installed { return false }
                state.installed = true
                return true
            }
            guard first else { return }
            var sources: [DispatchSourceSignal] = []
            for sig in [SIGINT, SIGTERM] {
                signal(sig, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: sig, queue: DispatchQueue.global())
                source.setEventHandler { received(sig) }
                source.resume()
                sources.append(source)
            }
            state.lock.withLock { state.sources = sources }
        #endif
    }

    /// Acts as if `signal` had been received (tests, embedding programs).
    public static func request(signal: Int32) { received(signal) }

    static func received(_ sig: Int32) {
        let (again, cooperative) = state.lock.withLock { () -> (Bool, Bool) in
            let again = state.signal != 0
            if !again { state.signal = sig }
            return (again, state.cooperative > 0)
        }
        if again { forceExit() }
        StandardErrorLine.emit("\nspatial-media: interrupted; stopping (nothing will be written)\n")
        if !cooperative { forceExit() }
        stopChildren()
        #if canImport(Dispatch)
            DispatchQueue.global().asyncAfter(deadline: .now() + forcedExitSeconds) { forceExit() }
        #endif
    }

    /// Stops every registered child (SIGTERM now, SIGKILL after the grace period) — they are ours.
    static func stopChildren() {
        let pids = state.lock.withLock { Array(state.children.values) }
        for p in pids { kill(p, SIGTERM) }
        #if canImport(Dispatch)
            DispatchQueue.global().asyncAfter(deadline: .now() + childGraceSeconds) {
                // Only children still registered (not reaped yet): their pids cannot have been reused.
                state.lock.withLock { for p in state.children.values { kill(p, SIGKILL) } }
            }
        #endif
    }

    /// Removes the registered temporary files, kills the registered children and exits with 128 + signal.
    static func forceExit() -> Never {
        let (pids, files, sig) = state.lock.withLock { () -> ([pid_t], [String], Int32) in
            state.exiting = true
            return (Array(state.children.values), Array(state.files.values), state.signal)
        }
        for p in pids { kill(p, SIGKILL) }
        for f in files { unlink(f) }
        reap(pids)
        _exit(sig == 0 ? 130 : 128 + sig)
    }

    /// Waits (at most ``childGraceSeconds``) until each killed child is reaped, so that none is left a zombie when the
    /// process exits. A child another thread already reaped makes `waitpid` fail with ECHILD, which ends its wait.
    static func reap(_ pids: [pid_t]) {
        var left = pids
        let deadline = monotonicSeconds() + childGraceSeconds
        while !left.isEmpty {
            left = left.filter { p in
                let r = waitpid(p, nil, WNOHANG)
                return r == 0 || (r < 0 && errno == EINTR)
            }
            if left.isEmpty || monotonicSeconds() > deadline { return }
            usleep(2_000)
        }
    }

    private static func monotonicSeconds() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    /// Marks a section that polls ``isRequested`` and unwinds by itself (the video pipeline).
    public static func beginCooperative() { state.lock.withLock { state.cooperative += 1 } }
    /// Ends a section begun with ``beginCooperative()``.
    public static func endCooperative() { state.lock.withLock { state.cooperative = max(0, state.cooperative - 1) } }

    /// Registers a live child process; returns a token for ``unregister(_:)``. The child is signalled at once
    /// when an interruption is already under way.
    public static func register(child pid: pid_t) -> Int {
        let (token, late) = state.lock.withLock { () -> (Int, Bool) in
            let t = state.nextToken
            state.nextToken += 1
            state.children[t] = pid
            return (t, state.signal != 0)
        }
        if late { kill(pid, SIGTERM) }
        return token
    }

    /// Registers a temporary file removed if the process is interrupted; returns a token for ``unregister(_:)``.
    public static func register(temporaryFile path: String) -> Int {
        state.lock.withLock {
            let t = state.nextToken
            state.nextToken += 1
            state.files[t] = path
            return t
        }
    }

    /// Creates a temporary file with `make` (which returns a value, such as its descriptor, and the file's path) and
    /// registers it in the same step, under the lock a forced exit takes to list the files it removes: a signal can no
    /// longer end the process between the file's creation and its registration, which left the file behind. Returns
    /// nil, creating nothing, once the process is exiting. `make` must not call into ``Interruption``.
    public static func registering<T, E: Error>(temporaryFile make: () throws(E) -> (T, String)) throws(E)
        -> (value: T, path: String, token: Int)?
    {
        try state.lock.withLock { () throws(E) -> (value: T, path: String, token: Int)? in
            if state.exiting { return nil }
            let (value, path) = try make()
            let t = state.nextToken
            state.nextToken += 1
            state.files[t] = path
            return (value, path, t)
        }
    }

    /// Forgets a temporary file registered by path (once renamed or removed).
    public static func unregister(temporaryFile path: String) {
        state.lock.withLock { state.files = state.files.filter { $0.value != path } }
    }

    /// Forgets a registered child (before it is reaped) or temporary file (once renamed or removed).
    public static func unregister(_ token: Int) {
        state.lock.withLock {
            state.children[token] = nil
            state.files[token] = nil
        }
    }
}

/// Unbuffered writes to standard error (SystemSupport's own, for the interruption notice).
enum StandardErrorLine {
    static func emit(_ s: String) {
        let bytes = Array(s.utf8)
        bytes.withUnsafeBytes { buf in
            guard let base = buf.baseAddress else { return }
            _ = write(2, base, buf.count)
        }
    }
}
