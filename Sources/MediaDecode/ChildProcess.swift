#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BinaryIO

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
    package func errorText(max: Int = 600) -> String {
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
