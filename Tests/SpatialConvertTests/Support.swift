import Foundation
import BinaryIO
import Codecs
import ImageFormats

/// Package root, derived from this file's path.
let packageRoot: String = {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/SpatialConvertTests/Support.swift
    return parts.joined(separator: "/")
}()
/// The shared workplace directory (`../shared`), or nil when absent.
let sharedDir: String? = {
    let p = packageRoot + "/../shared"
    return FileManager.default.fileExists(atPath: p) ? p : nil
}()
func sharedFile(_ rel: String) -> String? {
    guard let s = sharedDir else { return nil }
    let p = s + "/" + rel
    return FileManager.default.fileExists(atPath: p) ? p : nil
}
let oraclePython: String? = {
    let p = packageRoot + "/.venv-oracles/bin/python"
    return FileManager.default.isExecutableFile(atPath: p) ? p : nil
}()
func which(_ tool: String) -> String? {
    for d in ["/usr/bin", "/usr/local/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: d + "/" + tool) { return d + "/" + tool }
    return nil
}

/// Runs a program; returns (exit status, stdout).
@discardableResult
func run(_ exe: String, _ args: [String]) throws -> (Int32, String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: exe)
    p.arguments = args
    let out = Pipe()
    p.standardOutput = out
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = out.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return (p.terminationStatus, String(decoding: data, as: UTF8.self))
}

func tempPath(_ name: String) -> String {
    let dir = NSTemporaryDirectory() + "spatialconvert-tests-\(getpid())"
    try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    return dir + "/" + name
}

/// A smooth synthetic RGB picture with a horizontal shift per eye (`shift` pixels).
func scene(width: Int, height: Int, shift: Int = 0) -> Image {
    var s: [UInt8] = []
    s.reserveCapacity(width * height * 3)
    for y in 0..<height {
        for x in 0..<width {
            let fx = Double(x + shift) / Double(width), fy = Double(y) / Double(height)
            let dx = fx - 0.5, dy = fy - 0.5
            let disc = max(0, 1 - (dx * dx + dy * dy) * 10)
            s.append(UInt8(min(255, 40 + 150 * fx + 60 * disc)))
            s.append(UInt8(min(255, 60 + 120 * fy + 50 * disc)))
            s.append(UInt8(min(255, 200 - 120 * fx * fy)))
        }
    }
    return (try? Image(width: width, height: height, bitDepth: 8, format: .rgb, planes: .u8([s]))) ?? { fatalError("test setup") }()
}

func rgbBytes(_ img: Image) -> [UInt8] {
    guard case .u8(let p) = img.planes else { return [] }
    return p[0]
}
