import BinaryIO
import Codecs
import Foundation
import HEVC
import SpatialMedia
import SystemSupport
import TestSupport
import Testing

@testable import SpatialConvert

/// Issue 30: set-up's multiview x265 is found by itself (tools directory, through our binding), the default
/// conversion then predicts layer 1 from layer 0 at equal quality, and the inter-view search reaches 5 % of the width.
@Suite struct MultiviewDefaultTests {
    /// The binding `scripts/setup.sh` compiles, when a tools directory holds it.
    static let toolsBinding: String? = ToolsDirectory.all().map {
        $0 + "/x265-mv/lib/" + X265MultiviewProbe.bindingName
    }
    .first { FileManager.default.fileExists(atPath: $0) }
    static var installed: Bool {
        toolsBinding != nil && ProcessInfo.processInfo.environment[X265MultiviewProbe.environmentVariable] == nil
    }

    @Test(
        .needs(
            Requirement("no multiview x265 in the tools directory (bash scripts/setup.sh builds one)") {
                MultiviewDefaultTests.installed
            }))
    func probeFindsSetUpsLibrary() throws {
        let p = X265MultiviewProbe.current
        #expect(p.multiview && p.loaded, "\(p.summary)")
        #expect(p.library == Self.toolsBinding)
        // Not tied to one API build: x265 4.1 is 215, 4.2 is 216; the binding says which it was compiled against.
        let build = try #require(p.apiBuild)
        #expect(build >= 210, "\(p.summary)")
        #expect(
            X265MultiviewProbe.encodersLine.contains("multiview path (default when present): x265 \(p.version ?? "")"))
        #expect(X265MultiviewProbe.encodersLine.contains("API build \(build)"))
    }

    /// The default conversion of the bundled clip: one multiview encode, equal quality, inter-layer prediction, layer 1
    /// under layer 0 (two independent encodes at equal quality give ≈ 0.98; this synthetic clip's eyes differ by more
    /// than a shift, so it gains least of the harness clips: Benchmarks/RESULTS.md).
    @Test(
        .needs(
            Requirement("no multiview x265 in the tools directory (bash scripts/setup.sh builds one)") {
                MultiviewDefaultTests.installed
            }))
    func defaultConversionUsesInterLayerPrediction() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        var o = VideoConversionOptions()
        o.audio = .none
        #expect(o.eyeQuality == .automatic && o.encodePath == .auto)
        let out = d + "/default.mov"
        let r = try VideoConverter.convert(.packed(VideoFixtures.sample), to: out, options: o)
        #expect(r.encodePath.hasPrefix("multiview x265 encode"), "\(r.encodePath)")
        #expect(r.layer1ToLayer0 < 0.95, "layer 1 / layer 0 = \(r.layer1ToLayer0)")
        #expect(!r.notes.contains { $0.contains("multiview libx265 not used") }, "\(r.notes)")
        let text = try MediaInfo.inspect(path: out).lines.joined(separator: "\n")
        #expect(text.contains("inter-layer prediction used"), "\(text)")
        // An explicit asymmetric rule needs two encoders: the assembly, saying why.
        o.eyeQuality = EyeQuality(argument: "asymmetric") ?? .equal
        let a = try VideoConverter.convert(.packed(VideoFixtures.sample), to: d + "/asym.mov", options: o)
        #expect(a.encodePath.hasPrefix("two single-layer x265 encodes"), "\(a.encodePath)")
        #expect(
            a.notes.contains { $0.contains("multiview libx265 not used") && $0.contains("asymmetric") }, "\(a.notes)")
    }

    /// The default worker pool scales with the machine (half the processors per eye, at least one) — and the number
    /// of workers never changes the bytes, so the default can differ between machines without the files differing:
    /// 1 and 3 workers per eye write the same file through both encode paths.
    @Test(
        .needs(
            Requirement("no multiview x265 in the tools directory (bash scripts/setup.sh builds one)") {
                MultiviewDefaultTests.installed
            }))
    func workerThreadsNeverChangeTheBytes() throws {
        #expect(VideoConversionOptions.defaultPoolThreadsPerEye == max(1, ProcessorInfo.activeCount / 2))
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        for path in [EncodePath.multiview, .assembled] {
            var files: [[UInt8]] = []
            for workers in [1, 3] {
                var o = VideoConversionOptions()
                o.audio = .none; o.encodePath = path; o.preset = "fast"; o.poolThreadsPerEye = workers
                let out = d + "/\(path.rawValue)-\(workers).mov"
                let r = try VideoConverter.convert(.packed(VideoFixtures.sample), to: out, options: o)
                #expect(r.encoder.contains("pools \(path == .multiview ? 2 * workers : workers)"), "\(r.encoder)")
                files.append(Array(try Data(contentsOf: URL(fileURLWithPath: out))))
            }
            #expect(files[0] == files[1], "\(path.rawValue): 1 and 3 workers per eye wrote different files")
        }
    }

    /// x265 writes the video signal type into its layer-1 SPS and no VPS VUI; we move it to the VPS VUI (HTM asserts a
    /// layer > 0 SPS has none; Benchmarks/RESULTS.md has HTM's verdict on both paths).
    @Test(
        .needs(
            Requirement("no multiview x265 in the tools directory (bash scripts/setup.sh builds one)") {
                MultiviewDefaultTests.installed
            }))
    func layer1SPSLeavesColoursToTheVPS() throws {
        let settings = VideoConverter.encoderSettings(VideoConversionOptions(), fpsNum: 30, fpsDen: 1)
        let encoder = try X265MultiviewEncoder(
            library: try #require(Self.toolsBinding), width: 64, height: 48, settings: settings)
        let raw = try encoder.headers().map { (b: [UInt8]) throws -> NALUnit in try NALUnit(bytes: b) }
        let x265SPS = try #require(raw.first { $0.type == .sps && $0.layerId == 1 })
        let x265VPS = try VideoParameterSet(nal: try #require(raw.first { $0.type == .vps }))
        #expect(
            try SequenceParameterSet(nal: x265SPS, vps: x265VPS).vui.videoSignalTypePresent,
            "x265 4.1 writes it (what the fix removes)")
        let header = try MVHEVCStream(encoderHeaders: raw, baseIsLeft: true)
        let vps = header.videoParameterSet
        let sps = try SequenceParameterSet(nal: try #require(header.layerSPS.first), vps: vps)
        #expect(sps.vuiPresent && !sps.vui.videoSignalTypePresent)
        let info = try #require(vps.videoSignalInfo(layerId: 1))
        #expect(info.colourPrimaries == 1 && info.transferCharacteristics == 1 && info.matrixCoeffs == 1)
    }

    /// The motion range covers 5 % of the eye width (x265's default 57 px is the floor); the only other stereo option
    /// is one reference more than the preset's, so layer 1 keeps the preset's temporal references beside the
    /// inter-view one (issue 39: at ultrafast, `ref` 1 left layer 1 with the inter-view reference only).
    @Test func interViewSearchRangeAndReferences() {
        func option(_ name: String, _ w: Int, _ preset: String = "medium") -> String? {
            VideoConverter.stereoOptions(eyeWidth: w, preset: preset).first { $0.0 == name }?.1
        }
        #expect(option("merange", 160) == "57")
        #expect(option("merange", 1920) == "96")
        #expect(option("merange", 3840) == "192")
        #expect(option("ref", 1920, "ultrafast") == "2")
        #expect(option("ref", 1920, "superfast") == "2")
        #expect(option("ref", 1920, "fast") == "4")
        #expect(option("ref", 1920, "medium") == "4")
        #expect(option("ref", 1920, "slow") == "5")
        #expect(option("ref", 1920, "placebo") == "6")
        // Partitions (rect, amp) are left to the preset, so medium costs what x265's medium costs.
        #expect(VideoConverter.stereoOptions(eyeWidth: 320, preset: "medium").map(\.0) == ["merange", "ref"])
        // A preset x265 does not name: its own refusal comes from x265; no guess here.
        #expect(VideoConverter.stereoOptions(eyeWidth: 320, preset: "7").map(\.0) == ["merange"])
    }

    /// `auto` is the default and parses; `asymmetric` is the explicit rule (not the default any more).
    @Test func eyeQualityArguments() {
        #expect(VideoConversionOptions().eyeQuality == .standard && EyeQuality.standard == .automatic)
        #expect(EyeQuality(argument: "auto") == .automatic)
        #expect(EyeQuality(argument: "asymmetric") == .asymmetric(crfOffset: EyeQuality.defaultCRFOffset))
        // On the assembly, auto is the asymmetric rule: min(c + 6, 28).
        #expect(EyeQuality.automatic.nonHeroCRF(heroCRF: 23) == 28)
        #expect(EyeQuality.automatic.assembled == .asymmetric(crfOffset: 6))
    }
}
