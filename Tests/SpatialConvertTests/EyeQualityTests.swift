import BinaryIO
import Codecs
import Foundation
import HEVC
import ImageFormats
import SpatialMedia
import TestSupport
import Testing

@testable import SpatialConvert

/// Issue 23: asymmetric quality of the non-hero eye, rate control for both eyes, VBV within the level, the Vision Pro
/// preset, and the multiview-encoder probe.
@Suite struct EyeQualityTests {
    /// 64-bit FNV-1a of a file (a fingerprint of "today's" output without CryptoKit).
    static func fnv(_ path: String) throws -> (Int, UInt64) {
        let d = try Data(contentsOf: URL(fileURLWithPath: path))
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in d { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return (d.count, h)
    }

    static var isX265_35: Bool { HEVCEncoder.version.hasPrefix("3.5") }

    /// Converts the bundled clip without audio; returns the report.
    static func convert(_ out: String, _ edit: (inout VideoConversionOptions) -> Void) throws -> VideoConversionReport {
        var o = VideoConversionOptions()
        o.audio = .none
        o.encodePath = .assembled  // what "today's output" and the per-eye streams refer to
        edit(&o)
        return try VideoConverter.convert(.packed(VideoFixtures.sample), to: out, options: o)
    }

    /// `.equal` writes exactly what the converter wrote before issue 23: sizes and FNV-1a fingerprints of
    /// `spatial-media convert Conformance/files/sample_sbs_320x96.y4m --no-audio [--preset ultrafast --keyint 10
    /// --bframes 2] [--hero right]` made at commit 9104008 (before this change) with Debian's x265 3.5+1-f0c1022b6.
    /// Another x265 makes other bytes, so the comparison runs only with 3.5.
    @Test(.needs(Requirement("fingerprints were recorded with libx265 3.5") { EyeQualityTests.isX265_35 }))
    func equalIsByteIdenticalToBefore() throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let cases: [(fast: Bool, heroLeft: Bool, size: Int, hash: UInt64)] = [
            // Re-recorded for issue 30: the layer-1 SPS no longer carries video_signal_type (4 bytes fewer; the coded
            // pictures are x265's, unchanged). Before: 89157/f53c61efe6ccbc19, 89158/7824ed732141a6b6,
            // 34154/5161289…546e.
            (true, true, 89153, 0x0ea5_af03_30a8_bc0d),
            (true, false, 89154, 0x39b3_ff68_7e73_afd2),
            (false, true, 34150, 0xdf7a_4cc3_c58f_a5fa),
        ]
        for (i, c) in cases.enumerated() {
            let out = d + "/equal-\(i).mov"
            _ = try Self.convert(out) { o in
                if c.fast { o.preset = "ultrafast"; o.keyint = 10; o.bframes = 2 }
                o.stereo.heroEye = c.heroLeft ? .left : .right
                o.eyeQuality = .equal
            }
            let (size, hash) = try Self.fnv(out)
            #expect(size == c.size && hash == c.hash, "case \(i): \(size) bytes, FNV \(String(hash, radix: 16))")
        }
    }

    /// The asymmetric default changes only the non-hero eye: the hero's coded stream is byte for byte the one the
    /// equal setting makes, for either hero eye; the other eye is smaller (≤ 0.7 of the hero's layer) and its PSNR
    /// stays within the floor of Specs/conversion.md.
    @Test(arguments: [true, false])
    func heroEyeIdenticalOtherEyeCheaper(heroLeft: Bool) throws {
        let d = VideoFixtures.dir()
        defer { try? FileManager.default.removeItem(atPath: d) }
        let eq = try Self.convert(d + "/eq.mov") { o in
            o.stereo.heroEye = heroLeft ? .left : .right; o.eyeQuality = .equal
        }
        let asym = try Self.convert(d + "/asym.mov") { o in o.stereo.heroEye = heroLeft ? .left : .right }
        #expect(VideoConversionOptions().eyeQuality == .standard)
        let a = try StreamSplitter.split(path: d + "/eq.mov"), b = try StreamSplitter.split(path: d + "/asym.mov")
        let (heroA, heroB) = heroLeft ? (a.left, b.left) : (a.right, b.right)
        let (otherA, otherB) = heroLeft ? (a.right, b.right) : (a.left, b.left)
        #expect(heroA == heroB, "the hero eye's stream changed")
        #expect(otherA != otherB && otherB.count < otherA.count)
        #expect(eq.layer0Bytes == asym.layer0Bytes)
        #expect(asym.layer1ToLayer0 <= 0.7, "layer 1 / layer 0 = \(asym.layer1ToLayer0)")
        #expect(eq.layer1ToLayer0 > 0.9, "equal: layer 1 / layer 0 = \(eq.layer1ToLayer0)")
        #expect(asym.encoder.contains("CRF 23") && asym.encoder.contains("CRF 28"), "\(asym.encoder)")
        // PSNR of every frame of each eye against the source eye.
        let src = try VideoFixtures.sampleFrames(30)
        func meanPSNR(_ stream: [UInt8], x: Int) throws -> Double {
            let frames = try HEVCDecoder.decode(annexB: stream)
            #expect(frames.count == 30)
            var sum = 0.0
            for (f, s) in zip(frames, src) {
                sum += try ImageOps.psnr(f, try ImageOps.crop(s, x: x, y: 0, width: 160, height: 96))
            }
            return sum / Double(frames.count)
        }
        let hero = try meanPSNR(heroB, x: heroLeft ? 0 : 160), other = try meanPSNR(otherB, x: heroLeft ? 160 : 0)
        #expect(hero - other <= 6 && other >= 32, "hero \(hero) dB, other eye \(other) dB")
        #expect(hero - other > 0.5, "the other eye should be measurably coarser: \(hero) vs \(other) dB")
    }

    @Test func ruleAndArguments() {
        #expect(EyeQuality(argument: "equal") == .equal)
        #expect(EyeQuality(argument: "asymmetric") == .asymmetric(crfOffset: 6))
        #expect(EyeQuality(argument: "asymmetric:3") == .asymmetric(crfOffset: 3))
        #expect(
            EyeQuality(argument: "asymmetric:7") == nil && EyeQuality(argument: "asym") == nil
                && EyeQuality(argument: "asymmetric:-1") == nil)
        let q = EyeQuality.standard
        #expect(q.nonHeroCRF(heroCRF: 18) == 24)  // the full offset at high rates
        #expect(q.nonHeroCRF(heroCRF: 23) == 28)
        #expect(q.nonHeroCRF(heroCRF: 26) == 28)  // the ceiling
        #expect(q.nonHeroCRF(heroCRF: 33) == 33)  // never better than the hero's, never coarser past the ceiling
        #expect(EyeQuality.equal.nonHeroCRF(heroCRF: 23) == 23 && EyeQuality.equal.nonHeroShare == 0.5)
        #expect(abs(q.nonHeroShare - 1.0 / 3) < 0.001)
    }

    static func settings(_ edit: (inout VideoConversionOptions) -> Void, eye: (Int, Int) = (1920, 1080), fps: Int = 30)
        throws -> EyeEncoding
    {
        var o = VideoConversionOptions()
        edit(&o)
        try VideoConverter.checkEyeOptions(o)
        let base = VideoConverter.encoderSettings(o, fpsNum: fps, fpsDen: 1)
        return try VideoConverter.eyeEncoding(base, options: o, eyeW: eye.0, eyeH: eye.1, fpsNum: fps, fpsDen: 1)
    }

    @Test func rateForBothEyesAndVBVWithinTheLevel() throws {
        // Equal, CRF: both eyes get today's settings untouched.
        let same = try Self.settings { $0.eyeQuality = .equal }
        #expect(
            same.hero == same.other
                && same.hero == VideoConverter.encoderSettings(VideoConversionOptions(), fpsNum: 30, fpsDen: 1))
        // A bitrate for both eyes: halves when equal, the asymmetric share otherwise.
        let eqRate = try Self.settings {
            $0.eyeQuality = .equal; $0.rateControl = .bitrate(kbps: 8000)
        }
        #expect(eqRate.hero.rateControl == .bitrate(kbps: 4000) && eqRate.other.rateControl == .bitrate(kbps: 4000))
        let asRate = try Self.settings { $0.rateControl = .bitrate(kbps: 8000) }
        #expect(
            asRate.hero.rateControl == .bitrate(kbps: 5333) && asRate.other.rateControl == .bitrate(kbps: 2667),
            "\(asRate.summary)")
        // VBV for both eyes, split the same way; 1080p30 is level 4 (12 Mbit/s, 12000 kbit per eye): no note.
        let vbv = try Self.settings {
            $0.maxBitrateKbps = 10000; $0.vbvBufferKbit = 15000
        }
        #expect(
            vbv.hero.extraOptions["vbv-maxrate"] == "6667" && vbv.other.extraOptions["vbv-maxrate"] == "3333",
            "\(vbv.summary)")
        #expect(vbv.hero.extraOptions["vbv-bufsize"] == "10000" && vbv.hero.extraOptions["high-tier"] == "0")
        #expect(vbv.hero.rateControl == .crf(23), "capped CRF keeps the hero's CRF")
        #expect(vbv.notes.isEmpty && vbv.summary.contains("level 4 Main tier"), "\(vbv.notes) \(vbv.summary)")
        // Above level 4's limits: the stream signals the level that holds the VBV (as x265 does), said in a note.
        let big = try Self.settings {
            $0.eyeQuality = .equal; $0.maxBitrateKbps = 60000
        }
        #expect(big.hero.extraOptions["vbv-maxrate"] == "30000" && big.other.extraOptions["vbv-maxrate"] == "30000")
        #expect(
            big.notes.contains { $0.contains("above level 4 Main tier") && $0.contains("signals level 5.1") },
            "\(big.notes)")
        // Above the highest level: clamped.
        let huge = try Self.settings {
            $0.eyeQuality = .equal; $0.maxBitrateKbps = 600_000
        }
        #expect(
            huge.hero.extraOptions["vbv-maxrate"] == "240000" && huge.notes.contains { $0.contains("clamped") },
            "\(huge.notes)")
        // Usage errors.
        #expect(throws: ParseError.self) { try Self.settings { $0.vbvBufferKbit = 1000 } }
        #expect(throws: ParseError.self) {
            try Self.settings {
                $0.rateControl = .bitrate(kbps: 9000); $0.maxBitrateKbps = 8000
            }
        }
        #expect(throws: ParseError.self) { try Self.settings { $0.eyeQuality = .asymmetric(crfOffset: 9) } }
    }

    @Test func visionProPreset() throws {
        // The peak is a cap: 4096² at 30 fps needs level 6 (60 Mbit/s per eye), so 120 of the 150 Mbit/s, level 6 kept.
        let p = try Self.settings(
            {
                $0.publishing = .visionPro; $0.eyeQuality = .equal
            }, eye: (4096, 4096))
        #expect(
            p.hero.extraOptions["vbv-maxrate"] == "60000" && p.other.extraOptions["vbv-maxrate"] == "60000",
            "\(p.summary) \(p.notes)")
        #expect(p.summary.contains("level 6 Main tier") && p.notes.isEmpty, "\(p.summary) \(p.notes)")
        // An explicit max rate up to the peak may raise the level (as x265 does), said in a note.
        let raised = try Self.settings(
            {
                $0.publishing = .visionPro; $0.eyeQuality = .equal; $0.maxBitrateKbps = 150_000
            }, eye: (4096, 4096))
        #expect(
            raised.hero.extraOptions["vbv-maxrate"] == "75000" && raised.summary.contains("level 6.1"),
            "\(raised.summary)")
        // 1080p per eye: level 4 (12 Mbit/s per eye).
        let hd = try Self.settings({ $0.publishing = .visionPro }, eye: (1920, 1080))
        #expect(
            hd.hero.extraOptions["vbv-maxrate"] == "12000" && hd.summary.contains("level 4 Main tier")
                && hd.notes.isEmpty, "\(hd.summary) \(hd.notes)")
        let lowered = try Self.settings {
            $0.publishing = .visionPro; $0.maxBitrateKbps = 400_000
        }
        #expect(lowered.notes.contains { $0.contains("lowered to 150000") })
        #expect(throws: ParseError.self) { try Self.settings({ $0.publishing = .visionPro }, eye: (4400, 2200)) }
        #expect(HEVCLevel.lowest(width: 1920, height: 1080, fps: 30)?.name == "4")
        #expect(HEVCLevel.lowest(width: 1920, height: 1080, fps: 60)?.name == "4.1")
        #expect(HEVCLevel.lowest(width: 4096, height: 4096, fps: 30)?.name == "6")
        #expect(HEVCLevel.lowest(width: 20000, height: 20000, fps: 30) == nil)
    }

    /// The probe of the libx265 this machine has, of a file that is not there, and of a library that is not x265.
    @Test func multiviewProbeAndFallback() throws {
        let system = X265MultiviewProbe.probe(path: nil)
        #expect(system.loaded, "\(system.summary)")
        if HEVCEncoder.version.hasPrefix("3."),
            ProcessInfo.processInfo.environment[X265MultiviewProbe.environmentVariable] == nil,
            !system.library.hasSuffix(X265MultiviewProbe.bindingName)
        {
            #expect(!system.multiview && system.summary.contains("no multiview support"), "\(system.summary)")
        }
        let bogus = X265MultiviewProbe.probe(path: "/nonexistent/libx265.so")
        #expect(!bogus.loaded && !bogus.multiview)
        #expect(
            bogus.summary.contains("SPATIAL_MEDIA_X265=/nonexistent/libx265.so cannot be loaded"), "\(bogus.summary)")
        // A library that is not x265 (libde265, which the decoder loads).
        for candidate in ["libde265.so.0", "/usr/lib/x86_64-linux-gnu/libde265.so.0"] {
            let other = X265MultiviewProbe.probe(path: candidate)
            if other.loaded || other.summary.contains("is not a libx265") {
                #expect(!other.loaded && other.summary.contains("is not a libx265"), "\(other.summary)")
                break
            }
        }
        // The conversion report names the path it used: the two-encode assembly, with the probe's finding (the
        // multiview path and its fallbacks: MultiviewEncodeTests).
        let text = VideoConverter.encodePathText(system, multiview: false)
        #expect(text.hasPrefix("two single-layer x265 encodes assembled as MV-HEVC"))
    }
}
