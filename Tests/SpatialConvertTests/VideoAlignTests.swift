import BinaryIO
import Foundation
import ImageFormats
import MediaDecode
import SpatialMedia
import StereoVision
import TestSupport
import Testing

@testable import SpatialConvert

/// `convert --align` / `--auto-disparity` on videos: rendered clips with known camera faults (and one with a cut
/// between two shots with different faults) are converted, the output is decoded by FFmpeg and its vertical disparity
/// measured independently by OpenCV (`Benchmarks/stereo_cv.py residual`: sub-pixel corners, Lucas–Kanade, RANSAC).
@Suite("Video --align")
struct VideoAlignTests {
    static let cv = packageRoot + "/Benchmarks/stereo_cv.py"
    static var openCV: Bool { Requirement.oracles(importing: "cv2").isMet }

    /// One shot: a fault applied to the right camera, a texture seed, a length.
    struct Shot {
        var name: String
        var frames: Int
        var seed: UInt64
        var fault: @Sendable (inout SyntheticStereo) -> Void
    }

    static let width = 320, height = 240

    /// 8-bit 4:2:0 frame from grey samples, with fresh noise (±2 levels) so no two frames are identical.
    static func frame(_ g: GrayImage, noiseSeed: UInt64) throws -> Image {
        var s = noiseSeed &* 0x9E37_79B9_7F4A_7C15 | 1
        let y = g.pixels.map { v -> UInt8 in
            s ^= s << 13; s ^= s >> 7; s ^= s << 17
            return UInt8(min(255, max(0, (v + Float(Int(s % 5) - 2)).rounded())))
        }
        let c = [UInt8](repeating: 128, count: (g.width / 2) * (g.height / 2))
        return try Image(width: g.width, height: g.height, bitDepth: 8, format: .yuv420, planes: .u8([y, c, c]))
    }

    /// Writes DIR/left.y4m and DIR/right.y4m (2 fps, so a 2-second sampling gap is 4 frames).
    static func clip(_ shots: [Shot], in dir: String) throws -> (left: String, right: String) {
        var left: [Image] = [], right: [Image] = []
        var n: UInt64 = 0
        for shot in shots {
            var s = SyntheticStereo()
            s.width = width; s.height = height; s.seed = shot.seed; s.farWallMetres = 100; s.noise = 0
            shot.fault(&s)
            let (l, r) = s.render()
            for _ in 0..<shot.frames {
                n += 1
                left.append(try frame(l, noiseSeed: 2 * n)); right.append(try frame(r, noiseSeed: 2 * n + 1))
            }
        }
        let lp = dir + "/left.y4m", rp = dir + "/right.y4m"
        try Y4M.write(left, fpsNum: 2, to: lp); try Y4M.write(right, fpsNum: 2, to: rp)
        return (lp, rp)
    }

    static func options(align: Bool = true) -> VideoConversionOptions {
        var o = VideoFixtures.fast()
        o.rateControl = .qp(14)
        o.eyeQuality = .equal
        o.audio = .none
        o.align = align
        o.keyint = 4
        return o
    }

    /// OpenCV's residual of the first `count` frames of a spatial video (both views decoded by one FFmpeg 9 run,
    /// measured by one OpenCV run).
    static func residuals(_ movie: String, count: Int) throws -> [(median: Double, p95: Double, signed: Double)] {
        let ff = try TestPrograms.requireFFmpeg(), py = try #require(oraclePython)
        let src = try SpatialVideoSource.inspect(movie)
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let frames = try src.frameRun(start: 0, count: count, eyeWidth: nil, ffmpeg: ff)
        #expect(frames.count == count)
        for (i, f) in frames.enumerated() {
            let name = String(format: "%04d", i)
            try pgm(f.left, d + "/\(name)-L.pgm"); try pgm(f.right, d + "/\(name)-R.pgm")
        }
        let (status, text) = try run(py, [cv, "residual-json", d])
        #expect(status == 0)
        let j = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String: Any]])
        return try (0..<frames.count).map { i in
            let r = try #require(j[String(format: "%04d", i)])
            return (
                try #require(r["median_abs_dy"] as? Double), try #require(r["p95_abs_dy"] as? Double),
                try #require(r["median_dy"] as? Double)
            )
        }
    }

    /// OpenCV's residual of an input pair of Y4M files at a frame.
    static func inputResidual(_ pair: (left: String, right: String), frame: Int) throws -> (median: Double, p95: Double)
    {
        let py = try #require(oraclePython)
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        func nth(_ path: String) throws -> Image {
            let rd = try Y4M.Reader(path: path)
            for _ in 0..<frame { _ = try rd.next() }
            return try #require(try rd.next())
        }
        let l = try nth(pair.left), r = try nth(pair.right)
        try pgm(l, d + "/l.pgm"); try pgm(r, d + "/r.pgm")
        let (_, text) = try run(py, [cv, "residual", d + "/l.pgm", d + "/r.pgm"])
        let j = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return (try #require(j["median_abs_dy"] as? Double), try #require(j["p95_abs_dy"] as? Double))
    }

    static func pgm(_ img: Image, _ path: String) throws {
        guard case .u8(let p) = img.planes, let y = p.first else { throw CocoaError(.fileWriteUnknown) }
        var d = Data("P5\n\(img.width) \(img.height)\n255\n".utf8)
        let ch = img.format.interleavedChannels
        d.append(contentsOf: ch == 1 ? y : stride(from: 0, to: y.count, by: ch).map { y[$0] })
        try d.write(to: URL(fileURLWithPath: path))
    }

    static let faults: [Shot] = [
        Shot(name: "vertical offset 3 px", frames: 6, seed: 3) { $0.verticalOffsetPixels = 3 },
        Shot(name: "roll 1°", frames: 6, seed: 4) { $0.rollDegrees = 1 },
        Shot(name: "vertical scale 1.5 %", frames: 6, seed: 5) { $0.focalRatio = 1.015 },
        // The right eye is the hero: the left eye is warped (the inverse warp).
        Shot(name: "roll 0.7° and offset 2 px, hero right", frames: 6, seed: 6) {
            $0.rollDegrees = 0.7; $0.verticalOffsetPixels = 2
        },
    ]

    @Test(.needs(.oracles(importing: "cv2")), arguments: [0, 1, 2, 3])
    func faultRemoved(_ k: Int) throws {
        let shot = Self.faults[k]
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try Self.clip([shot], in: d)
        let out = d + "/out.mov"
        var o = Self.options()
        if k == 3 { o.stereo.heroEye = .right }
        let r = try VideoConverter.convert(.pair(left: input.left, right: input.right), to: out, options: o)
        let a = try #require(r.alignment)
        print("\(shot.name): " + a.lines.joined(separator: "\n  "))
        #expect(a.shots.count == 1)
        #expect(a.lines.contains { $0.contains(k == 3 ? "left (non-hero) eye warped" : "right (non-hero) eye warped") })
        #expect(a.shots.allSatisfy { $0.warped })
        #expect(r.eyeWidth == a.crop.width && r.eyeHeight == a.crop.height && r.eyeWidth < Self.width)
        #expect(r.hfovDegrees < 60)
        // Only sampled frames were measured while estimating: frames 1 and 5 of 6 (2 fps, one every 2 s).
        #expect(a.framesScanned == 6 && a.framesMeasured == 2)
        let before = try Self.inputResidual(input, frame: 3)
        let after = try Self.residuals(out, count: 6)
        print(
            "\(shot.name): OpenCV before |dy| median \(before.median) p95 \(before.p95); after \(after.map { "\($0.median)/\($0.p95)" })"
        )
        #expect(before.median > 0.5 || before.p95 > 1)
        for f in after {
            #expect(f.median <= 0.2, "\(shot.name): residual median \(f.median) px")
            #expect(f.p95 <= 0.5, "\(shot.name): residual p95 \(f.p95) px")
        }
        // Our own figures agree.
        let am = try #require(a.afterMedian), ap = try #require(a.afterP95)
        #expect(am <= 0.2 && ap <= 0.5)
    }

    @Test(.needs(.oracles(importing: "cv2")))
    func cutBetweenTwoShots() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let shots = [
            Shot(name: "offset", frames: 10, seed: 7) { $0.verticalOffsetPixels = 2.5 },
            Shot(name: "roll", frames: 6, seed: 8) { $0.rollDegrees = -0.8 },
        ]
        let input = try Self.clip(shots, in: d)
        let out = d + "/out.mov"
        var o = Self.options()
        o.autoDisparity = true
        let r = try VideoConverter.convert(.pair(left: input.left, right: input.right), to: out, options: o)
        let a = try #require(r.alignment)
        print(a.lines.joined(separator: "\n"))
        try #require(a.shots.count == 2)
        #expect(a.shots[1].firstFrame == 10)
        #expect(a.shots.allSatisfy { $0.warped })
        // Several samples per shot (frames 1, 5, 9 and 11, 15), combined into one warp each.
        #expect(a.shots[0].samples == 3 && a.shots[1].samples == 2)
        let m0 = try #require(a.shots[0].model), m1 = try #require(a.shots[1].model)
        #expect(abs(m0.centreVerticalOffset - 2.5) < 0.3)
        #expect(abs(m1.contentRotationDegrees - 0.8) < 0.1)
        #expect(a.shots[0].homography != a.shots[1].homography)
        // One crop and one disparity adjustment for the whole file.
        #expect(r.eyeWidth == a.crop.width)
        let p = try #require(a.disparityPercent)
        #expect(r.disparityPercent == p && p > 0)
        // The warp is constant within a shot: every frame of the output, measured by OpenCV, has the same residual.
        let all = try Self.residuals(out, count: 16)
        for (i, f) in all.enumerated() {
            #expect(f.median <= 0.2 && f.p95 <= 0.5, "frame \(i): residual \(f.median) / \(f.p95) px")
        }
        for shot in [0..<10, 10..<16] {
            let signed = shot.map { all[$0].signed }
            let spread = (signed.max() ?? 0) - (signed.min() ?? 0)
            #expect(spread <= 0.15, "signed vertical disparity varies by \(spread) px within a shot: \(signed)")
        }
    }

    @Test(.needs(.oracles(importing: "cv2")))
    func faultFreeClipNotMadeWorse() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let input = try Self.clip([Shot(name: "clean", frames: 6, seed: 9) { _ in }], in: d)
        let out = d + "/out.mov"
        let r = try VideoConverter.convert(
            .pair(left: input.left, right: input.right), to: out, options: Self.options())
        let a = try #require(r.alignment)
        print(a.lines.joined(separator: "\n"))
        let before = try Self.inputResidual(input, frame: 3)
        let after = try Self.residuals(out, count: 4)[3]
        print("clean: OpenCV before \(before), after \(after)")
        #expect(after.median <= max(0.2, before.median + 0.05) && after.p95 <= max(0.5, before.p95 + 0.1))
        // Nothing worth a warp: the clip keeps all its pixels and its field of view.
        #expect(a.shots.count == 1 && !a.shots[0].warped)
        #expect(r.eyeWidth == Self.width && r.eyeHeight == Self.height && r.hfovDegrees == 60)
    }

    /// Real spatial videos (the x265 multiview fixture, Apple's sample): their eyes converted again with --align are
    /// not made worse.
    @Test(
        .needs(
            .oracles(importing: "cv2"),
            .shared("fixtures/x265mv_320x240_30f_spatial.mov", "corpus/spatial-video/stereo_spatial.mp4")),
        arguments: ["fixtures/x265mv_320x240_30f_spatial.mov", "corpus/spatial-video/stereo_spatial.mp4"])
    func realClipsNotMadeWorse(_ rel: String) throws {
        let path = TestPaths.sharedPath(rel)
        let ff = try TestPrograms.requireFFmpeg()
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let src = try SpatialVideoSource.inspect(path)
        let eyes = try src.frameRun(start: 0, count: min(src.frames, 30), eyeWidth: nil, ffmpeg: ff)
        try #require(!eyes.isEmpty)
        func yuv(_ g: Image) throws -> Image {
            let w = g.width & ~1, h = g.height & ~1
            let e = try ImageOps.crop(g, x: 0, y: 0, width: w, height: h)
            guard case .u8(let p) = e.planes, let y = p.first else { throw CocoaError(.fileReadUnknown) }
            let c = [UInt8](repeating: 128, count: (w / 2) * (h / 2))
            return try Image(width: w, height: h, bitDepth: 8, format: .yuv420, planes: .u8([y, c, c]))
        }
        let input = (left: d + "/l.y4m", right: d + "/r.y4m")
        try Y4M.write(try eyes.map { try yuv($0.left) }, fpsNum: 30, to: input.left)
        try Y4M.write(try eyes.map { try yuv($0.right) }, fpsNum: 30, to: input.right)
        let out = d + "/out.mov"
        let r = try VideoConverter.convert(
            .pair(left: input.left, right: input.right), to: out, options: Self.options())
        let a = try #require(r.alignment)
        print("\(rel): " + a.lines.joined(separator: "\n  "))
        let k = min(eyes.count - 1, 5)
        let before = try Self.inputResidual(input, frame: k)
        let after = try Self.residuals(out, count: k + 1)[k]
        print(
            "\(rel): OpenCV before |dy| median \(before.median) p95 \(before.p95); after \(after.median) p95 \(after.p95)"
        )
        #expect(after.median <= before.median + 0.1, "\(rel): median |dy| \(before.median) → \(after.median)")
        #expect(after.p95 <= before.p95 + 0.25, "\(rel): p95 |dy| \(before.p95) → \(after.p95)")
    }

    @Test func standardInputAndSegmentsAreRefused() throws {
        var o = Self.options()
        o.segment = VideoSegment.parse("1/2")
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        #expect(throws: ParseError.self) {
            try VideoConverter.convert(.packed(VideoFixtures.sample), to: d + "/o.mov", options: o)
        }
        #expect(!FileManager.default.fileExists(atPath: d + "/o.mov"))
    }

    /// The shot-cut test reacts to a change of picture, not to noise or to motion it has been seeing.
    @Test func cutDetection() {
        #expect(!VideoAligner.isCut(3, recent: []))
        #expect(VideoAligner.isCut(20, recent: [0.3, 0.4]))
        #expect(!VideoAligner.isCut(20, recent: [9, 11, 10]))
        // A panning random texture cut to another one (measured: 4.3 levels a frame, 16 at the cut).
        #expect(VideoAligner.isCut(16.25, recent: [4.32, 4.44, 4.19, 4.26, 4.45, 4.17, 4.19, 4.47]))
        #expect(VideoAligner.weightedMedian([(1, 1), (5, 0.1), (2, 1), (100, 0.2)]) == 2)
    }
}
