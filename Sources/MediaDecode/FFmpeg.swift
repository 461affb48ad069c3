import BinaryIO
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An FFmpeg program found on this machine, with its version and the abilities we rely on.
///
/// FFmpeg is the engine for every input our own decoders do not cover (other codecs and containers, audio,
/// and both views of inter-layer-predicted MV-HEVC). Decoding the second view of MV-HEVC needs FFmpeg 7.1 or
/// newer; Debian 12 ships 5.1, so `scripts/setup.sh` installs a newer build into the project's tools directory.
public struct FFmpegTool: Sendable, Equatable, CustomStringConvertible {
    /// Where it was found.
    public enum Origin: String, Sendable, Equatable {
        /// `SPATIAL_MEDIA_FFMPEG`.
        case environment
        /// The tools directory `scripts/setup.sh` fills (`.tools/bin` of the project, or the user's data directory).
        case toolsDirectory = "tools directory"
        /// `ffmpeg` on `PATH`.
        case path = "PATH"
        /// Named by the caller (an option or API argument).
        case explicit
    }

    /// Absolute (or caller-given) path of the program.
    public let path: String
    /// The version as FFmpeg prints it ("9.0.2", "5.1.9-0+deb12u1", "n7.1-12-g…").
    public let version: String
    /// Major and minor release (from the version, else from libavcodec's version for git builds).
    public let major: Int
    public let minor: Int
    public let origin: Origin

    /// FFmpeg 7.1 added MV-HEVC decoding with view selection (`-map 0:v:0:vpos:left|right`).
    public var decodesMVHEVCViews: Bool { (major, minor) >= (7, 1) }

    public var description: String {
        "FFmpeg \(version) (\(path), from \(origin.rawValue); MV-HEVC views: \(decodesMVHEVCViews ? "yes" : "no, needs 7.1 or newer"))"
    }

    /// What a caller needs from FFmpeg.
    public enum Requirement: Sendable, Equatable {
        /// Any FFmpeg: decode other codecs and containers, carry audio.
        case any
        /// Both views of MV-HEVC (FFmpeg ≥ 7.1).
        case mvhevcViews
        /// Carrying audio through FFmpeg (copied or transcoded into the spatial video): FFmpeg ≥ 7.1, because 5.1
        /// drops the priming (first packet's start trim) and the last packet of Matroska audio on the way to MOV.
        case audio

        func satisfied(by t: FFmpegTool) -> Bool {
            switch self {
            case .any: return true
            case .mvhevcViews, .audio: return (t.major, t.minor) >= (7, 1)
            }
        }
    }
}

/// Finds and probes FFmpeg: `SPATIAL_MEDIA_FFMPEG` (when set, the only one tried), else the tools directory that
/// `scripts/setup.sh` fills, then `ffmpeg` on `PATH`. Each program is probed once per process (`ffmpeg -version`).
public enum FFmpeg {
    /// The first FFmpeg that meets `requirement`, or nil. `override` (an option's value: a path or a name on PATH)
    /// replaces the search.
    public static func locate(_ requirement: FFmpegTool.Requirement = .any, override: String? = nil) -> FFmpegTool? {
        // Probed lazily, in order: the first that qualifies ends the search (each probe starts a program).
        for (path, origin) in places(override: override) {
            if let t = probe(path, origin: origin), requirement.satisfied(by: t) { return t }
        }
        return nil
    }

    /// Like ``locate(_:override:)``, but failing with an error that says what was found and what to do.
    public static func require(_ requirement: FFmpegTool.Requirement, for purpose: String, override: String? = nil)
        throws(ParseError) -> FFmpegTool
    {
        if let t = locate(requirement, override: override) { return t }
        let found = candidates(override: override)
        let need = requirement == .any ? "FFmpeg" : "FFmpeg 7.1 or newer"
        let pinned = override ?? FileSystem.environment("SPATIAL_MEDIA_FFMPEG").flatMap { $0.isEmpty ? nil : $0 }
        let origin = override != nil ? "the FFmpeg named" : "SPATIAL_MEDIA_FFMPEG"
        let have =
            found.isEmpty
            ? (pinned.map { "\(origin) (\($0)) is not a working FFmpeg" } ?? "no FFmpeg was found")
            : "found only " + found.map { "FFmpeg \($0.version) (\($0.path))" }.joined(separator: ", ")
        throw ParseError(
            .libraryMissing,
            "\(purpose) needs \(need), and \(have); run `bash scripts/setup.sh` (installs FFmpeg ≥ 7.1 into the project's tools directory) or set SPATIAL_MEDIA_FFMPEG to one"
        )
    }

    /// Every FFmpeg found, in search order, probed (programs that fail to run are left out). `override`, or else
    /// `SPATIAL_MEDIA_FFMPEG`, names the only candidate.
    public static func candidates(override: String? = nil) -> [FFmpegTool] {
        places(override: override).compactMap { probe($0.path, origin: $0.origin) }
    }

    /// The programs to try, in search order, without running them.
    static func places(override: String?) -> [(path: String, origin: FFmpegTool.Origin)] {
        var out: [(path: String, origin: FFmpegTool.Origin)] = []
        func add(_ path: String?, _ origin: FFmpegTool.Origin) {
            guard let path, !out.contains(where: { $0.path == path }) else { return }
            out.append((path, origin))
        }
        if let o = override {
            add(findExecutable(o), .explicit)
            return out
        }
        // A program named in the environment is the only one used (so a user or a test can pin it).
        if let e = FileSystem.environment("SPATIAL_MEDIA_FFMPEG"), !e.isEmpty {
            add(findExecutable(e), .environment)
            return out
        }
        for dir in toolsDirectories() { add(executable(in: dir), .toolsDirectory) }
        add(findExecutable("ffmpeg"), .path)
        return out
    }

    /// One line for `--version` and `info`: the FFmpeg each job would use.
    public static var summary: String {
        let all = candidates()
        guard let first = all.first else {
            return
                "FFmpeg: not found (other codecs, audio and MV-HEVC second views unavailable; run `bash scripts/setup.sh`)"
        }
        var line = "FFmpeg: \(first)"
        if !first.decodesMVHEVCViews, let mv = all.first(where: { $0.decodesMVHEVCViews }) {
            line += "; MV-HEVC views via FFmpeg \(mv.version) (\(mv.path))"
        }
        return line
    }

    /// Directories searched for `bin/ffmpeg`: the tools directories `scripts/setup.sh` fills
    /// (``/SystemSupport/ToolsDirectory``).
    public static func toolsDirectories() -> [String] { ToolsDirectory.all() }

    // MARK: - Probing

    private static let lock = Lock()
    nonisolated(unsafe) private static var probed: [String: FFmpegTool?] = [:]

    /// Runs `path -version` once and parses the version; nil when it does not run or is not FFmpeg.
    static func probe(_ path: String, origin: FFmpegTool.Origin) -> FFmpegTool? {
        if let cached = lock.withLock({ probed[path] }) {
            return cached.map {
                FFmpegTool(path: $0.path, version: $0.version, major: $0.major, minor: $0.minor, origin: origin)
            }
        }
        var tool: FFmpegTool? = nil
        if let child = try? ChildProcess(executable: path, arguments: ["-hide_banner", "-version"]),
            let out = child.readToEnd(limit: 1 << 16), child.wait() == 0
        {
            let text = String(decoding: out, as: UTF8.self)
            if let v = parseVersion(text) {
                tool = FFmpegTool(path: path, version: v.text, major: v.major, minor: v.minor, origin: origin)
            }
        }
        lock.withLock { probed[path] = .some(tool) }
        return tool
    }

    /// Version from `ffmpeg -version` output: "ffmpeg version 5.1.9-0+deb12u1", "ffmpeg version n9.0.2-17-g…";
    /// git builds ("N-117000-g…") fall back to libavcodec's version (61.19 = FFmpeg 7.1, 62 = 8.0).
    static func parseVersion(_ text: String) -> (text: String, major: Int, minor: Int)? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ffmpeg version ") }) else {
            return nil
        }
        let rest = line.dropFirst("ffmpeg version ".count)
        let word = String(rest.prefix { $0 != " " })
        var digits = Substring(word)
        if digits.first == "n" { digits = digits.dropFirst() }
        let parts = digits.split(whereSeparator: { !$0.isNumber }).prefix(2).compactMap { Int($0) }
        if digits.first?.isNumber == true, parts.count >= 1 {
            return (word, parts[0], parts.count > 1 ? parts[1] : 0)
        }
        // Git build: map libavcodec's major.minor to a release.
        guard let lav = text.split(separator: "\n").first(where: { $0.trimmingPrefix(" ").hasPrefix("libavcodec") })
        else { return nil }
        let nums = lav.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        guard nums.count >= 2 else { return nil }
        let (m, n) = (nums[0], nums[1])
        let release: (Int, Int) = m >= 62 ? (8, 0) : (m == 61 && n >= 19 ? (7, 1) : (m == 61 ? (7, 0) : (6, 0)))
        return (word, release.0, release.1)
    }

    // MARK: - Filters

    nonisolated(unsafe) private static var filterLists: [String: Set<String>] = [:]

    /// The names of the filters `tool` has (`ffmpeg -filters`, run once per program); empty when it does not run.
    public static func filters(of tool: FFmpegTool) -> Set<String> {
        if let known = lock.withLock({ filterLists[tool.path] }) { return known }
        var names = Set<String>()
        if let child = try? ChildProcess(executable: tool.path, arguments: ["-hide_banner", "-filters"]),
            let out = child.readToEnd(limit: 1 << 20), child.wait() == 0
        {
            // Lines: " TSC zscale            V->V       Apply …" — flags, name, pads, description.
            for line in String(decoding: out, as: UTF8.self).split(separator: "\n") {
                let words = line.split(separator: " ", omittingEmptySubsequences: true)
                if words.count >= 3, words[2].contains("->") { names.insert(String(words[1])) }
            }
        }
        lock.withLock { filterLists[tool.path] = names }
        return names
    }

    // MARK: - Paths

    static func executable(in dir: String) -> String? {
        let p = dir + "/bin/ffmpeg"
        return FileSystem.isExecutableFile(p) ? p : nil
    }
}

extension Substring {
    fileprivate func trimmingPrefix(_ s: String) -> Substring {
        var x = self
        while x.hasPrefix(s) { x = x.dropFirst(s.count) }
        return x
    }
}
