import BinaryIO
import Codecs
import ImageFormats
import MediaDecode
import SpatialConvert
import SpatialMedia
import SpatialValidation
import StereoVision
import TestSupport
import Testing

/// Issue 41 (3): one field of view per file. `validate` of a raw pair assumed 60° where `convert` used the EXIF's
/// 35 mm-equivalent focal length (a 68 mm-equivalent MPO: divergence 1.29° in validate, 0.38° in convert); raw pairs
/// are judged at a given `--hfov` / `--disparity` / `--baseline`.
@Suite struct OneFieldOfViewTests {
    /// A TIFF block (big-endian) whose Exif IFD holds FocalLengthIn35mmFilm = `mm`.
    static func exif35(_ mm: UInt16) -> [UInt8] {
        var t: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8]
        // IFD0: one entry, ExifIFDPointer (0x8769, LONG) → offset 26; next IFD 0.
        t += [0, 1, 0x87, 0x69, 0, 4, 0, 0, 0, 1, 0, 0, 0, 26, 0, 0, 0, 0]
        // Exif IFD: FocalLengthIn35mmFilm (0xA405, SHORT) = mm.
        t += [0, 1, 0xA4, 0x05, 0, 3, 0, 0, 0, 1, UInt8(mm >> 8), UInt8(mm & 0xFF), 0, 0, 0, 0, 0, 0]
        return t
    }

    /// `png` with an `eXIf` chunk holding `tiff` right after `IHDR`.
    static func withExif(_ tiff: [UInt8], _ png: [UInt8]) -> [UInt8] {
        func be(_ v: UInt32) -> [UInt8] {
            [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
        }
        let body = Array("eXIf".utf8) + tiff
        return Array(png[0..<33]) + be(UInt32(tiff.count)) + body + be(CRC32.checksum(body)) + Array(png[33...])
    }

    static func sbs() throws -> String {
        let (l, r) = try PhotoConversionReportTests.pair(width: 480, height: 320, seed: 11) {
            $0.horizontalShiftPixels = 12
        }
        let path = tempPath("hfov68-sbs.png")
        try AtomicFile.write(path: path, bytes: withExif(exif35(68), try PNG.encode(try ImageOps.join(l, r))))
        return path
    }

    @Test func validateAndConvertReadOneFieldOfView() throws {
        let path = try Self.sbs()
        let pair = try StereoImages.load(path, packing: ImagePacking(layout: .sbs))
        let convert = PhotoConverter.fieldOfView(pair, options: PhotoConversionOptions())
        // 68 mm on a 36×24 frame mapped to a 3:2 eye: 2·atan(36 / 136) ≈ 29.6°.
        #expect(abs(convert.degrees - 29.65) < 0.2 && convert.source.contains("68"), "\(convert)")
        var o = ValidationOptions(); o.layout = .sbs
        let v = Validator.validate(path: path, options: o)
        let h = try #require(v.facts.stereo.horizontalFieldOfViewDegrees, "\(v.findings.map(\.message))")
        // Before: validate judged at 60° (its facts had no field of view).
        #expect(abs(h - convert.degrees) < 0.01, "validate \(h)°, convert \(convert.degrees)°")
        #expect(
            v.findings.contains { $0.ruleID == "SV-PAIR-007" && $0.message.contains("EXIF FocalLengthIn35mmFilm 68") },
            "\(v.findings.map(\.message))")
        #expect(!v.findings.contains { $0.message.contains("angles assume a 60°") }, "\(v.findings.map(\.message))")
    }

    @Test func validateJudgesARawPairAtTheGivenValues() throws {
        let path = try Self.sbs()
        var o = ValidationOptions(); o.layout = .sbs
        o.stated = try StereoParameters(baselineMillimetres: 30, horizontalFieldOfViewDegrees: 50, disparityPercent: 2)
        let v = Validator.validate(path: path, options: o)
        #expect(v.facts.stereo.horizontalFieldOfViewDegrees.map { abs($0 - 50) < 0.01 } == true)
        #expect(
            v.facts.stereo.disparityAdjustment == 200
                && v.facts.stereo.baselineMillimetres.map { abs($0 - 30) < 0.01 } == true)
        #expect(
            v.findings.contains {
                $0.ruleID == "SV-PAIR-007" && $0.message.contains("(--hfov)") && $0.message.contains("(--disparity)")
            })
        // The window rules read the given adjustment (2 % of 480 px = 9.6 px).
        #expect(
            v.findings.contains { $0.ruleID == "SV-GEOM-014" && $0.message.contains("zero-parallax plane) at 9.6 px") },
            "\(v.findings.map(\.message))")
    }

    @Test func validateCommandTakesTheValues() throws {
        let path = try Self.sbs()
        let run = try CLI.run([
            "validate", "--layout", "sbs", "--hfov", "50", "--disparity", "2", "--baseline", "30", path,
        ])
        #expect(
            run.out.contains(
                "judged at field of view 50.00° (--hfov), disparity adjustment 2.00% (--disparity), baseline 30.0 mm (--baseline)"
            ), "\(run.out)")
    }
}
