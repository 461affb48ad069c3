import Foundation
import StereoVision
import TestSupport
import Testing

@testable import SpatialValidation

/// Compares our vertical-disparity measurement with OpenCV's ORB + ratio test + RANSAC fundamental matrix
/// (Tests/Oracles/stereo_oracle.py) on the same pairs. Runs only when `.venv-oracles/bin/python` has cv2.
@Suite("OpenCV oracle")
struct OracleComparisonTests {
    static var available: Bool { Requirement.oracles(importing: "cv2").isMet }

    static func oracle(_ l: GrayImage, _ r: GrayImage) throws -> [String: Any] {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Temp.writePGM(l, dir + "/l.pgm"); try Temp.writePGM(r, dir + "/r.pgm")
        return try Oracle.object("Tests/Oracles/stereo_oracle.py", [dir + "/l.pgm", dir + "/r.pgm"])
    }

    @Test(.needs(.oracles(importing: "cv2")), arguments: [0.0, 3.0])
    func syntheticVerticalOffset(_ v: Double) throws {
        var s = SyntheticStereo()
        s.verticalOffsetPixels = v
        let (l, r) = s.render()
        let ours = try #require(StereoAnalyzer.analyze(left: l, right: r).measurement)
        let cv = try Self.oracle(l, r)
        let cvMedian = try #require(cv["median_dy"] as? Double), cvAbs = try #require(cv["median_abs_dy"] as? Double)
        print(
            "offset \(v): ours median dy \(ours.medianDy) |dy| \(ours.medianAbsDy) (\(ours.matches.count) inliers); OpenCV median dy \(cvMedian) |dy| \(cvAbs) (\(cv["inliers"] ?? 0) inliers)"
        )
        #expect(abs(ours.medianAbsDy - cvAbs) <= 0.25)
        #expect(abs(ours.medianDy - cvMedian) <= 0.25)
    }
}
