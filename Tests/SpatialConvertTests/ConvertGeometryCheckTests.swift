import BinaryIO
import Foundation
import ImageFormats
import SpatialConvert
import SpatialMedia
import StereoVision
import Testing

@testable import SpatialValidation

/// `convert` of a video without `--align`: a few frames are measured on their way to the encoders, with the
/// validator's rules, and faults are reported (with the option that fixes them) before the file is written.
@Suite("Convert warns before writing a bad video")
struct ConvertGeometryCheckTests {
    /// Left and right Y4M clips at 2 fps of rendered shots: the clips the video alignment tests render.
    static func clip(
        _ shots: [(frames: Int, seed: UInt64, fault: @Sendable (inout SyntheticStereo) -> Void)], in dir: String
    ) throws -> VideoInput {
        let p = try VideoAlignTests.clip(
            shots.map { .init(name: "", frames: $0.frames, seed: $0.seed, fault: $0.fault) }, in: dir)
        return .pair(left: p.left, right: p.right)
    }

    final class Seen: @unchecked Sendable {
        let lock = NSLock()
        var first: [(Int, VideoGeometryWarning)] = []
        var inspected: [Int] = []
    }

    /// Converts with the conversion-time check (the validator's rules, as the CLI wires them).
    static func convert(_ input: VideoInput, in dir: String, disparity: Double? = nil, seen: Seen) throws
        -> VideoConversionReport
    {
        var o = VideoConversionOptions()
        o.preset = "ultrafast"; o.keyint = 4; o.bframes = 0; o.audio = .none
        o.stereo.baselineMicrometres = 64_000
        o.stereo.horizontalFieldOfViewMillidegrees = 60_000
        if let disparity { try o.stereo.setDisparity(percent: disparity) }
        let stereo = o.stereo
        o.geometryCheck = VideoGeometryCheck(
            inspect: { frame, l, r in
                seen.lock.lock(); seen.inspected.append(frame); seen.lock.unlock()
                guard let a = PairAligner.luma(l), let b = PairAligner.luma(r) else { return [] }
                return GeometryDiagnosis.conversionFaults(
                    left: a.gray, right: b.gray, stereo: stereo, align: false, autoDisparity: false
                )
                .map {
                    VideoGeometryWarning(ruleID: $0.ruleID, severity: $0.severity, message: $0.message, fixes: $0.fixes)
                }
            },
            onFirstWarning: { frame, w in
                seen.lock.lock(); seen.first.append((frame, w)); seen.lock.unlock()
            })
        return try VideoConverter.convert(input, to: dir + "/out.mov", options: o)
    }

    static func dir() -> String {
        let d = NSTemporaryDirectory() + "geomcheck-\(getpid())-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }

    @Test func verticalOffsetIsReportedWithAlign() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try Self.clip([(12, 7, { $0.verticalOffsetPixels = 3 })], in: d)
        let seen = Seen()
        let r = try Self.convert(input, in: d, disparity: 4.5, seen: seen)
        let g = try #require(r.geometryCheck)
        print(g.lines.joined(separator: "\n"), "\ncheck CPU \(g.cpuSeconds) s of \(r.ownCPUSeconds) s own CPU")
        // Frames 1, then 2 s and 4 s later at 2 fps (3, 7): nothing decoded twice, every sample measured once.
        #expect(g.frames == [1, 3, 7] && seen.inspected == g.frames, "\(g.frames) \(seen.inspected)")
        let offset = try #require(g.warnings.first { $0.warning.ruleID == "SV-GEOM-001" })
        #expect(offset.frames == g.frames && offset.warning.fixes == ["--align"], "\(offset)")
        #expect(
            offset.warning.message.contains("3.0") || offset.warning.message.contains("2.9"),
            "\(offset.warning.message)")
        // Printed as soon as measured: once per rule, at the first frame showing it.
        #expect(seen.first.filter { $0.1.ruleID == "SV-GEOM-001" }.map(\.0) == [1])
        #expect(g.fixes.first == "--align" && r.lines.contains { $0.contains("convert again with --align") })
    }

    @Test func faultFreeClipGetsNoWarning() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try Self.clip([(6, 9, { _ in })], in: d)
        let seen = Seen()
        let r = try Self.convert(input, in: d, disparity: 4.5, seen: seen)
        let g = try #require(r.geometryCheck)
        print(g.lines.joined(separator: "\n"))
        #expect(g.frames == [1, 3] && g.warnings.isEmpty && seen.first.isEmpty, "\(g.lines)")
        #expect(r.lines.contains { $0.contains("no fault found on the 2 frames") })
    }

    /// A cut starts a new shot, whose second frame is measured too.
    @Test func eachShotIsSampled() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try Self.clip([(10, 7, { _ in }), (6, 8, { $0.rollDegrees = -0.8 })], in: d)
        let seen = Seen()
        let r = try Self.convert(input, in: d, disparity: 4.5, seen: seen)
        let g = try #require(r.geometryCheck)
        print(g.lines.joined(separator: "\n"))
        #expect(g.frames == [1, 3, 7, 11, 13], "\(g.frames)")
        let roll = try #require(g.warnings.first { $0.warning.ruleID == "SV-GEOM-003" }, "\(g.lines)")
        #expect(roll.frames == [11, 13] && roll.warning.fixes == ["--align"] && g.warnings.count == 1, "\(g.lines)")
    }

    /// With `--align` the clip is measured per shot by the aligner instead: no second check.
    @Test func notRunWithAlign() throws {
        let d = Self.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try Self.clip([(4, 7, { $0.verticalOffsetPixels = 3 })], in: d)
        let seen = Seen()
        var o = VideoConversionOptions()
        o.preset = "ultrafast"; o.keyint = 4; o.bframes = 0; o.audio = .none; o.align = true
        o.geometryCheck = VideoGeometryCheck(inspect: { f, _, _ in
            seen.lock.lock(); seen.inspected.append(f); seen.lock.unlock(); return []
        })
        let r = try VideoConverter.convert(input, to: d + "/out.mov", options: o)
        #expect(r.geometryCheck == nil && seen.inspected.isEmpty && r.alignment != nil)
    }
}
