import Testing
import Foundation
import StereoVision
@testable import SpatialValidation

/// Compares our vertical-disparity measurement with OpenCV's ORB + ratio test + RANSAC fundamental matrix
/// (Tests/Oracles/stereo_oracle.py) on the same pairs. Runs only when `.venv-oracles/bin/python` has cv2.
@Suite("OpenCV oracle")
struct OracleComparisonTests {
    static let repo = #filePath.components(separatedBy: "/Tests/")[0]
    static let python = repo + "/.venv-oracles/bin/python"
    static let script = repo + "/Tests/Oracles/stereo_oracle.py"

    static var available: Bool {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        return (try? run(["-c", "import cv2"])) != nil
    }

    static func run(_ args: [String]) throws -> Data {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: python)
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let d = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw CocoaError(.fileReadUnknown) }
        return d
    }

    static func oracle(_ l: GrayImage, _ r: GrayImage) throws -> [String: Any] {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Temp.writePGM(l, dir + "/l.pgm"); try Temp.writePGM(r, dir + "/r.pgm")
        let d = try run([script, dir + "/l.pgm", dir + "/r.pgm"])
        return (try JSONSerialization.jsonObject(with: d) as? [String: Any]) ?? [:]
    }

    @Test(.enabled(if: OracleComparisonTests.available), arguments: [0.0, 3.0])
    func syntheticVerticalOffset(_ v: Double) throws {
        var s = SyntheticStereo()
        s.verticalOffsetPixels = v
        let (l, r) = s.render()
        let ours = try #require(StereoAnalyzer.analyze(left: l, right: r).measurement)
        let cv = try Self.oracle(l, r)
        let cvMedian = try #require(cv["median_dy"] as? Double), cvAbs = try #require(cv["median_abs_dy"] as? Double)
        print("offset \(v): ours median dy \(ours.medianDy) |dy| \(ours.medianAbsDy) (\(ours.matches.count) inliers); OpenCV median dy \(cvMedian) |dy| \(cvAbs) (\(cv["inliers"] ?? 0) inliers)")
        #expect(abs(ours.medianAbsDy - cvAbs) <= 0.25)
        #expect(abs(ours.medianDy - cvMedian) <= 0.25)
    }
}
