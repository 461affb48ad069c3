import BinaryIO
import Foundation
import ImageFormats
import MediaDecode
import SpatialConvert
import StereoVision
import TestSupport
import Testing

@testable import SpatialValidation

/// SV-GEOM-019: a time offset between the eyes of a video, found from the eyes' block motion signals.
@Suite("Eye sync (time offset between the eyes)")
struct EyeSyncTests {
    /// A smooth random texture panned horizontally with jerky speed, plus a square that jumps about: frame `t`, seen
    /// with the horizontal shift `disparity` (the other eye). `still` keeps everything in place.
    struct Scene {
        let width: Int, height: Int
        let still: Bool
        var cells: [Double] = []
        var offsets: [Double] = []
        let cell = 8
        /// A steady pan at this speed (px/frame) instead of the jerky one; `object` adds a square that moves about.
        var pan: Double? = nil
        var object = true
        init(width: Int, height: Int, frames: Int, still: Bool = false, pan: Double? = nil, object: Bool = true) {
            self.width = width; self.height = height; self.still = still; self.pan = pan; self.object = object
            var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
            func next() -> Double {
                seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407;
                return Double(seed >> 33) / Double(1 << 31)
            }
            cells = (0..<(64 * 64)).map { _ in 30 + 200 * next() }
            var p = 0.0
            for _ in 0..<frames { offsets.append(p); p += still ? 0 : pan ?? (next() < 0.3 ? 0 : 1 + 7 * next()) }
        }
        func texture(_ x: Double, _ y: Double) -> Double {
            let gx = x / Double(cell), gy = y / Double(cell)
            let x0 = Int(floor(gx)), y0 = Int(floor(gy)), fx = gx - floor(gx), fy = gy - floor(gy)
            func c(_ i: Int, _ j: Int) -> Double { cells[((j % 64 + 64) % 64) * 64 + ((i % 64 + 64) % 64)] }
            return (c(x0, y0) * (1 - fx) + c(x0 + 1, y0) * fx) * (1 - fy)
                + (c(x0, y0 + 1) * (1 - fx) + c(x0 + 1, y0 + 1) * fx) * fy
        }
        func luma(_ t: Int, disparity: Double) -> [UInt8] {
            let p = offsets[t]
            let sq =
                still
                ? (x: 40, y: 30)
                : pan != nil
                    ? (x: (t * t * 5) % (width - 20), y: (t * 37) % (height - 20))
                    : (x: Int(offsets[t] * 3) % (width - 20), y: (t * 37) % (height - 20))
            var out = [UInt8](repeating: 0, count: width * height)
            for y in 0..<height {
                for x in 0..<width {
                    var v = texture(Double(x) + p + disparity, Double(y))
                    if object, x >= sq.x, x < sq.x + 16, y >= sq.y, y < sq.y + 16 { v = 250 }
                    out[y * width + x] = UInt8(max(0, min(255, v.rounded())))
                }
            }
            return out
        }
        func gray(_ t: Int, disparity: Double) -> GrayImage? {
            GrayImage(width: width, height: height, bytes: luma(t, disparity: disparity))
        }
    }

    /// Runs of `n` frames whose right eye is `late` frames behind the left (negative: ahead).
    static func run(_ scene: Scene, late: Int, n: Int = EyeSync.runLength, disparity: Double = 3) -> EyeSync.Run {
        let base = 4
        return (
            (0..<n).compactMap { scene.gray(base + $0, disparity: 0) },
            (0..<n).compactMap { scene.gray(base + $0 - late, disparity: disparity) }
        )
    }

    /// A steady horizontal pan (4 px disparity at the measuring width) carries no timing evidence: whether in sync or
    /// not, it is never reported out of sync (before the fix an in-sync pan at 3 px/frame read "1 frame early").
    @Test(arguments: [1.0, 2, 3, 6])
    func steadyPanIsNeverJudged(speed: Double) throws {
        for late in [-1, 0, 1, 2] {
            let scene = Scene(width: 160, height: 96, frames: 24, pan: speed, object: false)
            let m = try #require(EyeSync.measure(runs: [Self.run(scene, late: late, disparity: 4)]))
            let f = EyeSync.finding(m, frames: 24)
            #expect(!m.outOfSync && f.severity == .info, "speed \(speed) late \(late): \(f.message)")
            #expect(f.message.contains("cannot be measured"), "speed \(speed) late \(late): \(f.message)")
        }
    }

    /// The same pans with a square moving about (motion disparity does not shift): the exact lag and sign.
    @Test(arguments: [1.0, 2, 3, 6])
    func panWithMovingObjectGivesExactLag(speed: Double) throws {
        for late in [-1, 0, 1, 2] {
            let scene = Scene(width: 160, height: 96, frames: 24, pan: speed, object: true)
            let m = try #require(EyeSync.measure(runs: [Self.run(scene, late: late, disparity: 4)]))
            #expect(m.lag == late && m.outOfSync == (late != 0), "speed \(speed) late \(late): \(m)")
            let f = EyeSync.finding(m, frames: 24)
            #expect(f.severity == (late == 0 ? .info : .warning), "speed \(speed) late \(late): \(f.message)")
        }
    }

    @Test(arguments: [-3, -2, -1, 0, 1, 2, 3])
    func lagAndSignFromFrames(late: Int) throws {
        let scene = Scene(width: 320, height: 180, frames: 24)
        let m = try #require(EyeSync.measure(runs: [Self.run(scene, late: late)]))
        #expect(m.reliable, "\(m)")
        #expect(m.lag == late, "\(m)")
        #expect(m.outOfSync == (late != 0), "\(m)")
        let f = EyeSync.finding(m, frames: 24)
        #expect(f.severity == (late == 0 ? .info : .warning), "\(f.message)")
        if late < 0 {
            #expect(f.message.contains("right eye is \(-late) frame\(late == -1 ? "" : "s") early"), "\(f.message)")
        }
        if late > 0 {
            #expect(f.message.contains("right eye is \(late) frame\(late == 1 ? "" : "s") late"), "\(f.message)")
        }
    }

    @Test func staticSceneCannotBeMeasured() throws {
        let scene = Scene(width: 160, height: 96, frames: 24, still: true)
        let m = try #require(EyeSync.measure(runs: [Self.run(scene, late: 2)]))
        #expect(!m.reliable && !m.outOfSync && m.motion < EyeSync.minMotion, "\(m)")
        let f = EyeSync.finding(m, frames: 24)
        #expect(f.severity == .info && f.message.contains("cannot be measured"), "\(f.message)")
    }

    @Test func tooShortRunIsNotMeasured() {
        let scene = Scene(width: 160, height: 96, frames: 24)
        #expect(EyeSync.measure(runs: [Self.run(scene, late: 1, n: 5)]) == nil)
        #expect(EyeSync.finding(nil, frames: 5).message.contains("not measured"))
    }

    // MARK: end to end: SBS clip → spatial video (our converter) → validate

    static func spatialClip(
        late: Int, still: Bool = false, frames: Int = 36, pan: Double? = nil, object: Bool = true, disparity: Double = 3
    ) throws -> String {
        let w = 160, h = 96
        let scene = Scene(width: w, height: h, frames: frames + 8, still: still, pan: pan, object: object)
        var images: [Image] = []
        for t in 0..<frames {
            let l = scene.luma(t + 4, disparity: 0), r = scene.luma(t + 4 - late, disparity: disparity)
            var y = [UInt8](repeating: 0, count: 2 * w * h)
            for row in 0..<h {
                y.replaceSubrange((row * 2 * w)..<(row * 2 * w + w), with: l[(row * w)..<(row * w + w)])
                y.replaceSubrange((row * 2 * w + w)..<(row * 2 * w + 2 * w), with: r[(row * w)..<(row * w + w)])
            }
            let c = [UInt8](repeating: 128, count: w * h / 2)
            images.append(try Image(width: 2 * w, height: h, bitDepth: 8, format: .yuv420, planes: .u8([y, c, c])))
        }
        let dir = Temp.dir()
        let y4m = dir + "/sbs.y4m", out = dir + "/spatial.mov"
        try Y4M.write(images, to: y4m)
        try Self.convert(y4m, to: out)
        return out
    }

    /// Converts an SBS clip to a spatial video (64 mm, 60°).
    /// FFmpeg as the product finds it (the name predates the test support: it once meant the oracle venv's).
    static var oracleFFmpeg: String? { TestPrograms.ffmpeg }

    static func convert(_ input: String, to out: String) throws {
        var o = VideoConversionOptions()
        o.stereo.baselineMicrometres = 64_000
        o.stereo.horizontalFieldOfViewMillidegrees = 60_000
        _ = try VideoConverter.convert(.packed(input), to: out, options: o)
    }

    static func sync(_ path: String) -> Finding? {
        var o = ValidationOptions()
        o.frames = 1
        return Validator.validate(path: path, options: o).findings.first { $0.ruleID == "SV-GEOM-019" }
    }

    @Test func convertedClipsOutOfSyncAreCaught() throws {
        for late in [-2, -1, 0, 1, 2] {
            let path = try Self.spatialClip(late: late)
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            let f = try #require(Self.sync(path), "late \(late)")
            print("SV-GEOM-019 late \(late): \(f.severity) \(f.message)")
            #expect(f.severity == (late == 0 ? .info : .warning), "late \(late): \(f.message)")
            #expect(f.message.contains("lag \(late),"), "late \(late): \(f.message)")
        }
    }

    /// Converted and validated: an in-sync steady pan (3 px/frame, 4 px disparity) gets no warning; one frame late
    /// with a square moving about gets lag 1.
    @Test func convertedPans() throws {
        for (late, object) in [(0, false), (1, false), (0, true), (1, true)] {
            let path = try Self.spatialClip(late: late, pan: 3, object: object, disparity: 4)
            defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
            let f = try #require(Self.sync(path))
            print("SV-GEOM-019 pan late \(late) object \(object): \(f.severity) \(f.message)")
            if object {
                #expect(
                    f.severity == (late == 0 ? .info : .warning) && f.message.contains("lag \(late),"), "\(f.message)")
            } else {
                #expect(f.severity == .info && f.message.contains("cannot be measured"), "\(f.message)")
            }
        }
    }

    @Test func convertedStaticClipIsNotJudged() throws {
        let path = try Self.spatialClip(late: 2, still: true)
        defer { try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent) }
        let f = try #require(Self.sync(path))
        #expect(f.severity == .info && f.message.contains("cannot be measured"), "\(f.message)")
    }

    /// An SBS clip made by FFmpeg from its moving `testsrc2` pattern, the right eye cut `ahead` frames earlier (it
    /// starts `ahead` frames later in the source: the right eye is early), converted to a spatial video.
    @Test(arguments: [0, 2])
    func ffmpegMadeClip(ahead: Int) throws {
        let ff = try TestPrograms.requireFFmpeg()
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sbs = dir + "/sbs.mp4", out = dir + "/spatial.mov"
        let made = try Run.program(
            ff,
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=30", "-filter_complex",
                "[0]split[a][b];[b]trim=start_frame=\(ahead),setpts=PTS-STARTPTS[c];[a][c]hstack", "-frames:v", "40",
                sbs,
            ])
        try #require(made.status == 0, "\(made.err)")
        try Self.convert(sbs, to: out)
        let f = try #require(Self.sync(out))
        print("SV-GEOM-019 testsrc2 right eye \(ahead) early: \(f.severity) \(f.message)")
        #expect(f.severity == (ahead == 0 ? .info : .warning), "\(f.message)")
        #expect(f.message.contains("lag \(-ahead),"), "\(f.message)")
    }

    /// No false alarm on the bundled sample (converted) nor on Apple's spatial video.
    @Test func noFalseOffsetOnRealClips() throws {
        let dir = Temp.dir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let root = ConvertedVideoTests.root
        let sample = dir + "/sample.mov"
        try Self.convert(root + "/Conformance/files/sample_sbs_320x96.y4m", to: sample)
        var paths = [sample]
        if Corpus.exists(Corpus.appleVideo) && FFmpeg.locate(.mvhevcViews) != nil { paths.append(Corpus.appleVideo) }
        for p in paths {
            let f = try #require(Self.sync(p), "\(p)")
            print("SV-GEOM-019 \(p): \(f.severity) \(f.message)")
            #expect(f.severity == .info, "\(p): \(f.message)")
        }
    }
}
