import BinaryIO
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Looks `name` up on PATH; nil when not found.
package func findExecutable(_ name: String) -> String? {
    if name.contains("/") { return access(name, X_OK) == 0 ? name : nil }
    guard let p = getenv("PATH") else { return nil }
    for dir in String(cString: p).split(separator: ":") {
        let full = "\(dir)/\(name)"
        var st = stat()
        if stat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(full, X_OK) == 0 { return full }
    }
    return nil
}

/// A child process whose standard output we read (ffmpeg producing Y4M); standard error goes to an unnamed
/// temporary file (created in `$TMPDIR` or /tmp and unlinked at once, so nothing is left behind however the
/// process ends) so a failure can be reported with the child's own words.
///
/// Every child is registered with ``Interruption``: on SIGINT/SIGTERM it is stopped (SIGTERM, then SIGKILL),
/// which also ends any read of its output, so no reader ever waits for a child blocked on a full pipe.
/// ``terminate()`` does the same for one child: SIGTERM, a short grace period, SIGKILL, then reaping.
package final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    /// Read end of the child's standard output.
    package let stdoutFD: Int32
    /// Our descriptor of the (unlinked) file holding the child's standard error.
    let stderrFD: Int32
    private let token: Int
    private let lock = Lock()
    private var reaped = false
    private var status: Int32 = 0

    package init(executable: String, arguments: [String]) throws(ParseError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw ParseError(.io, "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        // Our end of the pipe is not inherited by this or any later child (a second child holding it would
        // keep the pipe open after we closed it).
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        var dir = FileSystem.environment("TMPDIR") ?? "/tmp"
        if dir.isEmpty || FileSystem.kind(dir) != .directory { dir = "/tmp" }
        var template = Array("\(dir)/spatial-media-ffmpeg-XXXXXX".utf8CString)
        // Created and registered in one step (a signal in between would leave it), then unlinked at once: only the
        // descriptor is used.
        let made = Interruption.registering { () -> (Int32, String) in
            let fd = template.withUnsafeMutableBufferPointer { p -> Int32 in p.baseAddress.map { mkstemp($0) } ?? -1 }
            return (
                fd,
                fd >= 0
                    ? String(decoding: template.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                    : ""
            )
        }
        guard let made, made.value >= 0 else {
            if let made { Interruption.unregister(made.token) }
            close(fds[0]); close(fds[1])
            throw ParseError(
                made == nil ? .cancelled : .io,
                "cannot create a temporary file: \(made == nil ? "interrupted" : String(cString: strerror(errno)))")
        }
        let errFD = made.value
        unlink(made.path)
        Interruption.unregister(made.token)
        _ = fcntl(errFD, F_SETFD, FD_CLOEXEC)
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
        posix_spawnattr_init(&attr)
        // The child gets default SIGINT/SIGTERM/SIGPIPE handling even if we ignore them (ignored signals
        // would otherwise be inherited across exec, and SIGTERM could not stop it).
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        sigaddset(&defaults, SIGINT)
        sigaddset(&defaults, SIGTERM)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGDEF))
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable, &actions, &attr, argv, environ)
        posix_spawn_file_actions_destroy(&actions)
        posix_spawnattr_destroy(&attr)
        close(fds[1])
        guard rc == 0 else {
            close(fds[0]); close(errFD)
            throw ParseError(.io, "cannot start \(executable): \(String(cString: strerror(rc)))")
        }
        pid = child
        stdoutFD = fds[0]
        stderrFD = errFD
        token = Interruption.register(child: child)
    }

    /// Reads the child's standard output to its end, or until more than `limit` bytes arrived
    /// (then `nil`, and the child is stopped). An interruption (``Interruption``) also stops it and gives `nil`.
    package func readToEnd(limit: Int) -> [UInt8]? {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            if Interruption.isRequested { terminate(); return nil }
            let n = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if out.count + n > limit { terminate(); return nil }
            out.append(contentsOf: chunk[0..<n])
        }
        if Interruption.isRequested { terminate(); return nil }
        return out
    }

    /// Waits for the child; returns its exit status (128 + signal when killed).
    package func wait() -> Int32 {
        reap(block: true) ?? status
    }

    /// Reaps the child if it has ended (or, with `block`, once it ends); nil while it still runs.
    private func reap(block: Bool) -> Int32? {
        if let done = lock.withLock({ reaped ? status : nil }) { return done }
        // Wait without reaping, unregister, then reap: the pid stays ours while Interruption may signal it.
        var info = siginfo_t()
        while true {
            let r = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG))
            if r == 0 { break }
            if errno == EINTR { continue }
            return lock.withLock {
                reaped = true; status = 255; return status
            }  // ECHILD: reaped elsewhere
        }
        if !block && childPID(info) == 0 { return nil }
        Interruption.unregister(token)
        var st: Int32 = 0
        while waitpid(pid, &st, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS by hand (macros are not imported).
        let sig = st & 0x7f
        let code = sig == 0 ? (st >> 8) & 0xff : 128 + sig
        return lock.withLock {
            reaped = true; status = code; return code
        }
    }

    private func childPID(_ info: siginfo_t) -> pid_t {
        #if canImport(Glibc)
            return info._sifields._sigchld.si_pid
        #else
            return info.si_pid
        #endif
    }

    /// Stops the child (it is ours) and reaps it: SIGTERM, up to ``Interruption/childGraceSeconds`` to end,
    /// then SIGKILL (a child blocked writing to a pipe nobody reads may ignore SIGTERM).
    package func terminate() {
        if lock.withLock({ reaped }) { return }
        kill(pid, SIGTERM)
        let steps = Int(Interruption.childGraceSeconds * 100)
        for _ in 0..<steps {
            if reap(block: false) != nil { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        _ = wait()
    }

    /// The last `max` bytes the child wrote to standard error.
    package func errorText(max: Int = 600) -> String {
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = buf.withUnsafeMutableBytes { pread(stderrFD, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return "" }
        let text = String(decoding: buf[0..<n], as: UTF8.self).split(separator: "\n").joined(separator: " | ")
        return String(text.suffix(max))
    }

    deinit {
        terminate()
        close(stdoutFD)
        close(stderrFD)
    }
}
