#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Small operating-system helpers shared by the modules, so that none of them needs Foundation
// (linking Foundation statically into the command-line tool costs start-up time on every run).

/// A mutex (pthread). `Synchronization.Mutex` needs macOS 15; the package supports macOS 13.
public final class Lock: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    public init() {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the mutex held.
    public func withLock<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }
}

/// One result slot per index, for work spread over threads (`concurrentPerform`): each worker fills its
/// own slots, and the caller reads them after the workers have finished. Every access takes the lock.
public final class Slots<Value>: @unchecked Sendable {
    private var values: [Value?]
    private let lock = Lock()
    public init(count: Int) { values = Array(repeating: nil, count: max(0, count)) }
    public func set(_ i: Int, _ v: Value) { lock.withLock { values[i] = v } }
    public func get(_ i: Int) -> Value? { lock.withLock { values[i] } }
    /// All slots in index order (`nil` where nothing was set).
    public var all: [Value?] { lock.withLock { values } }
}

/// A pthread mutex with a condition variable (the video pipeline's bounded queues wait on it).
public final class Monitor: @unchecked Sendable {
    private let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let c = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    public init() {
        m.initialize(to: pthread_mutex_t()); pthread_mutex_init(m, nil)
        c.initialize(to: pthread_cond_t()); pthread_cond_init(c, nil)
    }
    deinit {
        pthread_cond_destroy(c); pthread_mutex_destroy(m)
        c.deallocate(); m.deallocate()
    }
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(m)
        defer { pthread_mutex_unlock(m) }
        return try body()
    }
    /// Call with the lock held.
    public func wait() { pthread_cond_wait(c, m) }
    /// Call with the lock held.
    public func broadcast() { pthread_cond_broadcast(c) }
}

/// File-system queries without Foundation.
public enum FileSystem {
    /// What a path names, following symbolic links; `nil` when it does not exist or cannot be read.
    public enum Kind: Sendable { case regular, directory, other }

    public static func kind(_ path: String) -> Kind? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        switch st.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    /// The device and inode a path names after following links; `nil` when it does not exist.
    public static func identity(_ path: String) -> (device: UInt64, inode: UInt64)? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return (UInt64(truncatingIfNeeded: st.st_dev), UInt64(truncatingIfNeeded: st.st_ino))
    }

    /// A canonical spelling of a path that may not exist yet: its directory resolved (links, `.`, `..`)
    /// plus its last component; `nil` when the directory does not exist.
    public static func canonicalPath(_ path: String) -> String? {
        let dir: String, name: String
        if let slash = path.lastIndex(of: "/") {
            dir = String(path[..<slash]).isEmpty ? "/" : String(path[..<slash])
            name = String(path[path.index(after: slash)...])
        } else {
            dir = "."; name = path
        }
        guard let resolved = realpath(dir, nil) else { return nil }
        defer { free(resolved) }
        let d = String(cString: resolved)
        if name.isEmpty || name == "." { return d }
        return d == "/" ? "/" + name : d + "/" + name
    }

    /// True when two paths name the same file: the same device and inode (symbolic and hard links
    /// included) when both exist, else the same canonical path.
    public static func sameFile(_ a: String, _ b: String) -> Bool {
        if let x = identity(a), let y = identity(b) { return x.device == y.device && x.inode == y.inode }
        if identity(a) != nil || identity(b) != nil { return false }
        guard let ca = canonicalPath(a), let cb = canonicalPath(b) else { return a == b }
        return ca == cb
    }

    /// The size in bytes of the file a path names; `nil` when it does not exist or cannot be read.
    public static func size(_ path: String) -> UInt64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return UInt64(truncatingIfNeeded: st.st_size)
    }

    /// True when this process may create files in the directory `path`.
    public static func isWritableDirectory(_ path: String) -> Bool {
        kind(path) == .directory && access(path, W_OK) == 0
    }

    /// True when `path` is a regular file this process may execute.
    public static func isExecutableFile(_ path: String) -> Bool {
        kind(path) == .regular && access(path, X_OK) == 0
    }

    /// The names in a directory (without `.` and `..`), unsorted; empty when it cannot be read.
    public static func names(inDirectory path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var out: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
                let bytes = raw.bindMemory(to: UInt8.self)
                let end = bytes.firstIndex(of: 0) ?? bytes.count
                return String(decoding: bytes[0..<end], as: UTF8.self)
            }
            if name != "." && name != ".." { out.append(name) }
        }
        return out
    }

    /// The whole content of a small file read to its end (works for `/proc` files, whose size reads as 0),
    /// or `nil` when it cannot be read or holds more than `limit` bytes.
    public static func contents(of path: String, limit: Int = 1 << 22) -> [UInt8]? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { return nil }
            if n == 0 { return out }
            if out.count + n > limit { return nil }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// The current working directory, or `nil`.
    public static func currentDirectory() -> String? {
        guard let p = getcwd(nil, 0) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// An environment variable, or `nil`.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

/// Decimal text for measured values, without Foundation's formatters (locale-free, stable for tests).
public enum NumberText {
    /// `value` rounded to `places` decimals ("63.774", "-0.20"); with `trimZeros`, trailing zeros and a bare
    /// point are dropped ("80", "1.5"). Values too large for exact fixed-point text (and NaN, ±∞) use Swift's
    /// own description.
    public static func fixed(_ value: Double, places: Int, trimZeros: Bool = false) -> String {
        let places = max(0, min(places, 15))
        var p = 1.0
        for _ in 0..<places { p *= 10 }
        let scaled = (value * p).rounded()
        guard scaled.isFinite, abs(scaled) < 9.0e15 else { return "\(value)" }
        var digits = String(Int64(abs(scaled)))
        while digits.count <= places { digits = "0" + digits }
        let point = digits.index(digits.endIndex, offsetBy: -places)
        var out = places > 0 ? String(digits[..<point]) + "." + String(digits[point...]) : digits
        if trimZeros && places > 0 {
            while out.hasSuffix("0") { out.removeLast() }
            if out.hasSuffix(".") { out.removeLast() }
        }
        return (scaled < 0 ? "-" : "") + out
    }
}

extension String {
    /// Pads with `pad` on the left to `width` characters.
    public func leftPadded(_ width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}

/// Frame rates as people write them, to the exact fraction players use: the one parser for every command and API.
public enum FrameRate {
    /// "30" → 30/1, "29.97" → 30000/1001, "23.976" → 24000/1001, "30000/1001" as given, "12.5" → 12500/1000;
    /// nil unless the rate is positive and at most 1000 frames per second.
    public static func parse(_ text: String) -> (num: Int, den: Int)? {
        let parts = text.split(separator: "/")
        if parts.count == 2 {
            guard let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0, n <= 1000 * d else { return nil }
            return (n, d)
        }
        guard parts.count == 1, let f = Double(text) else { return nil }
        return fraction(f)
    }

    /// The fraction for a rate given as a number: whole rates exactly, NTSC-style rates as N×1000/1001, others to
    /// 1/1000.
    public static func fraction(_ f: Double) -> (num: Int, den: Int)? {
        guard f > 0, f <= 1000 else { return nil }
        if f == f.rounded() { return (Int(f), 1) }
        let ntsc = f * 1001 / 1000
        if abs(ntsc - ntsc.rounded()) < 1e-3 { return (Int(ntsc.rounded()) * 1000, 1001) }
        return (Int((f * 1000).rounded()), 1000)
    }

    /// The usual frame rate nearest to `r`, within 0.2 % (FFmpeg prints rates with two decimals; its probe uses this),
    /// as a fraction.
    public static func nearestUsual(_ r: Double) -> (num: Int, den: Int)? {
        let usual: [(Int, Int)] = [
            (24000, 1001), (24, 1), (25, 1), (30000, 1001), (30, 1), (48, 1), (50, 1),
            (60000, 1001), (60, 1), (90, 1), (100, 1), (120000, 1001), (120, 1),
        ]
        var best: (num: Int, den: Int)? = nil
        var bestError = 0.002 * r
        for (n, d) in usual {
            let e = abs(Double(n) / Double(d) - r)
            if e <= bestError { best = (n, d); bestError = e }
        }
        return best
    }
}
