import BinaryIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct FileHelperError: Error { var message: String }

func directoryEntries(_ path: String) throws -> [String] {
    guard let d = opendir(path) else { throw FileHelperError(message: "cannot open \(path)") }
    defer { closedir(d) }
    var out: [String] = []
    while let e = readdir(d) {
        let name = withUnsafePointer(to: e.pointee.d_name) { p in
            p.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        if name != "." && name != ".." { out.append(name) }
    }
    return out
}

func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}

func readText(_ path: String) throws -> String {
    let src = try FileSource(path: path)
    return String(decoding: try src.read(at: 0, count: Int(src.size)), as: UTF8.self)
}

enum ProcessEnv {
    static func get(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
