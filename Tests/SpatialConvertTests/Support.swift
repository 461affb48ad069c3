import BinaryIO
import Codecs
import Foundation
import ImageFormats
import TestSupport

/// The conversion tests' names for the shared test support (Tests/TestSupport).
let packageRoot = TestPaths.packageRoot
/// The shared test media (`../shared`, or `SPATIAL_MEDIA_SHARED`), or nil when absent.
let sharedDir = TestPaths.sharedDir
func sharedFile(_ rel: String) -> String? { TestPaths.shared(rel) }
let oraclePython = TestPaths.oraclePython
func which(_ tool: String) -> String? { TestPaths.which(tool) }

/// Runs a program; returns (exit status, stdout).
@discardableResult
func run(_ exe: String, _ args: [String]) throws -> (Int32, String) { try Run.status(exe, args) }

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
    return (try? Image(width: width, height: height, bitDepth: 8, format: .rgb, planes: .u8([s])))
        ?? { fatalError("test setup") }()
}

func rgbBytes(_ img: Image) -> [UInt8] {
    guard case .u8(let p) = img.planes else { return [] }
    return p[0]
}
