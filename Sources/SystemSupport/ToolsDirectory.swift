// Where `scripts/setup.sh` puts the programs and libraries spatial-media uses (FFmpeg, the multiview x265).
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The tools directories: where the product looks for what `scripts/setup.sh` installed (`bin/ffmpeg`,
/// `x265-mv/lib/…`), one locator for every tool.
public enum ToolsDirectory {
    /// In order: the project's `.tools` beside (or up to six levels above) the running program or library, then
    /// `$XDG_DATA_HOME/spatial-media` (default `~/.local/share/spatial-media`). Only existing `.tools` directories are
    /// listed; the user directory is listed whether or not it exists.
    public static func all() -> [String] {
        var dirs: [String] = []
        for image in [runningImagePath(), executablePath()].compactMap({ $0 }) {
            var dir = parent(image)
            for _ in 0..<6 {
                let candidate = dir + "/.tools"
                if FileSystem.kind(candidate) == .directory, !dirs.contains(candidate) { dirs.append(candidate) }
                let up = parent(dir)
                if up == dir { break }
                dir = up
            }
        }
        let data =
            FileSystem.environment("XDG_DATA_HOME").flatMap { $0.isEmpty ? nil : $0 }
            ?? FileSystem.environment("HOME").map { $0 + "/.local/share" }
        if let data { dirs.append(data + "/spatial-media") }
        return dirs
    }

    /// The directory part of a path ("." without a slash, "/" for a file at the root).
    public static func parent(_ p: String) -> String {
        guard let slash = p.lastIndex(of: "/") else { return "." }
        return slash == p.startIndex ? "/" : String(p[..<slash])
    }

    /// The file this code was loaded from (the executable, or libspatialmedia.so when linked as a library).
    static func runningImagePath() -> String? {
        #if canImport(Darwin)
            var info = Dl_info()
            guard dladdr(#dsohandle, &info) != 0, let name = info.dli_fname else { return nil }
            return realPath(String(cString: name))
        #else
            // Linux: the mapping of /proc/self/maps that holds this image's header.
            let address = UInt(bitPattern: #dsohandle)
            guard let maps = FileSystem.contents(of: "/proc/self/maps") else { return nil }
            for line in String(decoding: maps, as: UTF8.self).split(separator: "\n") {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                guard fields.count >= 6, let dash = fields[0].firstIndex(of: "-"),
                    let lo = UInt(fields[0][..<dash], radix: 16),
                    let hi = UInt(fields[0][fields[0].index(after: dash)...], radix: 16),
                    lo <= address, address < hi
                else { continue }
                let path = fields[5...].joined(separator: " ")
                return path.hasPrefix("/") ? realPath(path) : nil
            }
            return nil
        #endif
    }

    /// The running program (`/proc/self/exe` on Linux).
    static func executablePath() -> String? {
        #if os(Linux)
            return realPath("/proc/self/exe")
        #else
            return nil
        #endif
    }

    static func realPath(_ p: String) -> String? {
        guard let r = realpath(p, nil) else { return nil }
        defer { free(r) }
        return String(cString: r)
    }
}
