import BinaryIO
import Codecs
import Foundation
import ISOBMFF
import ImageFormats
import MediaDecode
import SpatialConvert
import SpatialMedia
import SpatialValidation
import StereoVision
import TestSupport
import Testing

/// Issue 28, photo inputs taken for what they are: a spatial photo is its two eyes (never the halves of one),
/// an ordinary photo is not a stereo pair, and an MPO's placeholder baseline is not a measurement.
@Suite struct PhotoInputReadingTests {
    static let visionPro = sharedFile("corpus/spatial-photo/vision-pro.HEIC")
    static let arrow = sharedFile("corpus/heif-real-world/arrow.heic")
    static let frozenpond = sharedFile("corpus/mpo/frozenpond.mpo")

    /// A grey synthetic eye as an 8-bit RGB image.
    static func rgb(_ g: GrayImage) throws -> Image {
        var s: [UInt8] = []
        s.reserveCapacity(g.width * g.height * 3)
        for v in g.pixels { let b = UInt8(max(0, min(255, v.rounded()))); s += [b, b, b] }
        return try Image(width: g.width, height: g.height, bitDepth: 8, format: .rgb, planes: .u8([s]))
    }

    /// A side-by-side PNG of a left eye and a right eye; returns its path.
    static func sbsFile(_ name: String, left: GrayImage, right: GrayImage) throws -> String {
        let path = tempPath(name)
        try AtomicFile.write(path: path, bytes: try PNG.encode(try ImageOps.join(rgb(left), rgb(right))))
        return path
    }

    /// The error `body` throws, or nil (never the value it returns, which may be megabytes).
    static func refusal(_ body: () throws -> Void) -> ParseError? {
        do { try body(); return nil } catch { return (error as? ParseError) ?? ParseError(.io, offset: 0, "\(error)") }
    }

    static func options() -> PhotoConversionOptions { var o = PhotoConversionOptions(); o.threads = 2; return o }

    static func photo(_ bytes: [UInt8]) throws -> SpatialPhoto {
        var problems: [SpatialDiagnostic] = []
        return try #require(
            SpatialPhotoReader.read(try ISOFile.parse(source: MemorySource(bytes)), problems: &problems))
    }

    // MARK: a. a spatial photo is loaded as its two eyes with its calibration

    @Test(.needs(.shared("corpus/spatial-photo/vision-pro.HEIC")))
    func spatialPhotoIsLoadedAsItsTwoEyesWithItsCalibration() throws {
        let vp = try #require(Self.visionPro)
        let pair = try StereoImages.load(vp, packing: ImagePacking())
        // Before: the left eye (2560×2560) was cut into two 1280×2560 halves.
        #expect(pair.left.width == 2560 && pair.left.height == 2560 && pair.right.width == 2560)
        #expect(pair.packedLayout == nil)
        #expect(pair.sourceStereo.baselineMicrometres == 63_774)
        #expect(pair.sourceStereo.horizontalFieldOfViewMillidegrees == 80_000)
        #expect(pair.sourceStereo.disparityAdjustment == 293)
        let eyes = try StereoImages.decodeSpatialPhoto(vp)
        #expect(try ImageOps.psnr(pair.right, eyes.right) > 99, "the right eye is the photo's right eye")
        // Re-made at a quarter of the size (fast): the calibration comes along, named as the input's.
        var small = pair
        small.left = try ImageOps.resize(pair.left, width: 640, height: 640)
        small.right = try ImageOps.resize(pair.right, width: 640, height: 640)
        let (bytes, report) = try PhotoConverter.encode(small, options: Self.options())
        #expect(
            report.baselineSource == "the input spatial photo" && report.hfovSource == "the input spatial photo"
                && report.disparitySource == "the input spatial photo")
        let out = try Self.photo(bytes)
        #expect(abs((out.baselineMicrometres ?? 0) - 63_774) < 1)
        #expect(abs((out.horizontalFOVDegrees ?? 0) - 80) < 0.01)
        #expect(out.disparityAdjustment == 293)
    }

    @Test(.needs(.shared("corpus/spatial-photo/vision-pro.HEIC")))
    func validateAdvisesACommandThatWorksOnASpatialPhoto() throws {
        let vp = try #require(Self.visionPro)
        let report = Validator.validate(path: vp)
        let advice = report.findings.filter { $0.message.contains("spatial-media ") }
        #expect(!advice.isEmpty)
        for f in advice {
            #expect(
                !f.message.contains("spatial-media convert"),
                "\(f.ruleID) advises convert on a spatial photo: \(f.message)")
        }
        let window = try #require(report.findings.first { $0.ruleID == "SV-GEOM-017" })
        #expect(
            window.message.contains("spatial-media edit") && window.message.contains("--disparity"), "\(window.message)"
        )
    }

    // MARK: b. a picture with no measurable stereo pair is refused

    @Test(.needs(.shared("corpus/heif-real-world/arrow.heic")))
    func ordinaryPhotoIsRefusedUnlessForced() throws {
        let arrow = try #require(Self.arrow)
        let auto = try StereoImages.load(arrow, packing: ImagePacking())
        #expect(auto.layoutGuessed)
        let refused = Self.refusal { _ = try PhotoConverter.encode(auto, options: Self.options()) }
        #expect(
            refused?.code == .notRecognised && refused?.remedy == .giveLayoutOrForce, "\(String(describing: refused))")
        #expect(
            refused?.message.contains("no stereo pair found") == true
                && refused?.message.contains("matches agree") == true, "\(String(describing: refused))")
        // Forced side by side: its own measurement finds no agreeing matches → refused unless forced.
        var o = Self.options()
        o.layout = .sbs
        var forced = try StereoImages.load(arrow, packing: o.packing)
        #expect(!forced.layoutGuessed)
        let refusedForced = Self.refusal { _ = try PhotoConverter.encode(forced, options: o) }
        #expect(
            refusedForced?.remedy == .force && refusedForced?.message.contains("as told") == true,
            "\(String(describing: refusedForced))")
        o.force = true
        forced.left = try ImageOps.resize(forced.left, width: 256, height: 256)
        forced.right = try ImageOps.resize(forced.right, width: 256, height: 256)
        let written = try PhotoConverter.encode(forced, options: o)
        #expect(written.bytes.count > 0 && written.report.width == 256)
    }

    @Test func unrelatedHalvesAreRefusedAndARealPairIsNot() throws {
        var a = SyntheticStereo(), b = SyntheticStereo()
        a.seed = 3; b.seed = 11
        let sa = a.render(), sb = b.render()
        let unrelated = try Self.sbsFile("unrelated-sbs.png", left: sa.left, right: sb.left)
        let refused = Self.refusal {
            _ = try PhotoConverter.encode(
                try StereoImages.load(unrelated, packing: ImagePacking()), options: Self.options())
        }
        #expect(refused?.code == .notRecognised, "\(String(describing: refused))")
        let real = try Self.sbsFile("real-sbs.png", left: sa.left, right: sa.right)
        let (bytes, report) = try PhotoConverter.encode(
            try StereoImages.load(real, packing: ImagePacking()), options: Self.options())
        // Recognised side by side by measuring both ways (issue 38): a note says so, never that it could not be
        // checked.
        #expect(
            !report.notes.contains { $0.contains("could not be checked") }
                && report.notes.contains { $0.contains("layout side by side measured") },
            "\(report.notes)")
        #expect(try Self.photo(bytes).left.width == a.width, "the real pair is converted")
        // A flat picture cannot be measured either way: no stereo pair can be seen, so it is refused as a flat video
        // is; with its layout named it is converted, and the report says the pair was not checked.
        let flat = try Self.sbsFile(
            "flat-sbs.png", left: GrayImage(width: 96, height: 64, value: 90),
            right: GrayImage(width: 96, height: 64, value: 90))
        let flatRefused = Self.refusal {
            _ = try PhotoConverter.encode(try StereoImages.load(flat, packing: ImagePacking()), options: Self.options())
        }
        #expect(
            flatRefused?.remedy == .giveLayoutOrForce && flatRefused?.message.contains("nothing to measure") == true,
            "\(String(describing: flatRefused))")
        var told = Self.options()
        told.layout = .sbs
        let flatReport = try PhotoConverter.encode(try StereoImages.load(flat, packing: told.packing), options: told)
            .report
        #expect(flatReport.notes.contains { $0.contains("could not be checked") }, "\(flatReport.notes)")
    }

    // MARK: c. implausible camera values in an input fall back to defaults with a note

    @Test(.needs(.shared("corpus/mpo/frozenpond.mpo")))
    func placeholderMPOBaselineFallsBackToTheDefault() throws {
        let mpo = try #require(Self.frozenpond)
        let pair = try StereoImages.load(mpo, packing: ImagePacking())
        #expect(pair.sourceStereo.baselineMicrometres == nil)
        #expect(pair.notes.contains { $0.contains("1000.000 mm is not a plausible") }, "\(pair.notes)")
        let (bytes, report) = try PhotoConverter.encode(pair, options: Self.options())
        #expect(report.baselineMM == 64 && report.baselineSource == "default; not measured")
        #expect(report.notes.contains { $0.contains("not a plausible") })
        let out = tempPath("frozenpond.heic")
        try AtomicFile.write(path: out, bytes: bytes)
        var v = ValidationOptions(); v.pixels = false
        let findings = Validator.validate(path: out, options: v).findings
        #expect(
            !findings.contains { $0.ruleID == "SV-PHOTO-012" },
            "validate still flags the baseline: \(findings.map(\.message))")
        #expect(!findings.contains { $0.severity == .error }, "\(findings.map(\.message))")
    }

    // MARK: d. split → combine keeps the calibration

    @Test(.needs(.shared("corpus/spatial-photo/vision-pro.HEIC")))
    func splitThenCombineRestoresTheCalibration() throws {
        let vp = try #require(Self.visionPro)
        let (l, r, out) = (tempPath("vp-left.heic"), tempPath("vp-right.heic"), tempPath("vp-recombined.heic"))
        try PhotoSplitter.split(vp, left: l, right: r, sbs: nil)
        // What the command line does: values not given are kept from the eyes, else defaults.
        let (edit, kept) = SpatialPhotoEditor.fillingDefaults(StereoParameters(), combiningLeft: l, right: r)
        #expect(edit == StereoParameters(), "nothing defaulted: \(edit)")
        #expect(kept.count == 3, "\(kept)")
        _ = try SpatialPhotoEditor.combine(leftPath: l, rightPath: r, stereo: edit, output: out)
        let before = try SpatialPhoto(contentsOf: vp), after = try SpatialPhoto(contentsOf: out)
        // Before the fix: 60°, 64 mm, 0 %, and a right eye at (64000, 0, 0) µm.
        #expect(abs((after.horizontalFOVDegrees ?? 0) - 80) < 0.01)
        #expect(after.baselineMicrometres == 63_774)
        #expect(after.disparityAdjustment == 293)
        #expect(after.right.extrinsics == before.right.extrinsics && after.left.extrinsics == before.left.extrinsics)
        #expect(after.left.intrinsics == before.left.intrinsics && after.right.intrinsics == before.right.intrinsics)
        var v = ValidationOptions(); v.pixels = false
        let findings = Validator.validate(path: out, options: v).findings.filter { $0.severity >= .warning }
        #expect(findings.isEmpty, "\(findings.map(\.message))")
        // A value given replaces the eyes' own.
        let given = tempPath("vp-recombined-70.heic")
        _ = try SpatialPhotoEditor.combine(
            leftPath: l, rightPath: r, stereo: StereoParameters(baselineMicrometres: 70_000), output: given)
        let g = try SpatialPhoto(contentsOf: given)
        #expect(
            g.baselineMicrometres == 70_000 && abs((g.horizontalFOVDegrees ?? 0) - 80) < 0.01
                && g.disparityAdjustment == 293)
    }

    // MARK: e. combine refuses a layered-HEVC eye

    @Test(.needs(.shared("corpus/heif-conformance/multilayer001.heic")))
    func combineRefusesALayeredHEVCEye() throws {
        let ml = try #require(sharedFile("corpus/heif-conformance/multilayer001.heic"))
        let out = tempPath("ml.heic")
        let e = Self.refusal {
            _ = try SpatialPhotoEditor.combine(
                path: ml,
                stereo: StereoParameters(
                    baselineMicrometres: 64_000, horizontalFieldOfViewMillidegrees: 60_000, disparityAdjustment: 0),
                output: out)
        }
        #expect(
            e?.code == .unsupported && e?.message.contains("'lhv1'") == true && e?.path == "meta/iinf",
            "\(String(describing: e))")
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    // MARK: f. truncated photos are refused by every writing job

    @Test(.needs(.shared("corpus/spatial-photo/vision-pro.HEIC")))
    func truncatedPhotoIsRefusedWithOffsetAndBoxPath() throws {
        let vp = try #require(Self.visionPro)
        let bytes = try FileBytes.read(vp)
        let cut = tempPath("vp-cut.heic")
        try AtomicFile.write(path: cut, bytes: Array(bytes[0..<400_000]))
        let file = try ISOFile.open(path: cut)
        #expect(file.itemExtentsOutsideFile.count == 22)
        let out = tempPath("vp-cut-out.heic")
        let jobs: [(String, () throws -> Void)] = [
            (
                "edit",
                {
                    _ = try SpatialPhotoEditor.edit(
                        path: cut, output: out, stereo: StereoParameters(baselineMicrometres: 60_000))
                }
            ),
            ("combine", { _ = try SpatialPhotoEditor.combine(path: cut, stereo: StereoParameters(), output: out) }),
            ("split", { try PhotoSplitter.split(cut, left: out, right: tempPath("vp-cut-r.png"), sbs: nil) }),
            (
                "convert",
                {
                    _ = try PhotoConverter.encode(
                        try StereoImages.load(cut, packing: ImagePacking()), options: Self.options())
                }
            ),
            ("decode", { _ = try StereoImages.decodeSpatialPhoto(file: file) }),
        ]
        for (job, body) in jobs {
            let e = Self.refusal(body)
            #expect(e?.code == .sizePastParent, "\(job): \(String(describing: e))")
            #expect(
                e?.message.contains("(top level), offset 4423") == true && e?.message.contains("'mdat'") == true,
                "\(job): \(String(describing: e))")
            #expect(!FileManager.default.fileExists(atPath: out), "\(job) wrote \(out)")
        }
        // A file whose boxes are whole but whose item data lies past its end (the mdat header says 0 = to the end).
        var patched = Array(bytes[0..<400_000])
        patched[4423..<4427] = [0, 0, 0, 0]
        let cut2 = tempPath("vp-cut2.heic")
        try AtomicFile.write(path: cut2, bytes: patched)
        let e = Self.refusal {
            _ = try SpatialPhotoEditor.edit(
                path: cut2, output: out, stereo: StereoParameters(baselineMicrometres: 60_000))
        }
        #expect(e?.code == .truncated && e?.path == "meta/iloc" && e?.offset == 399_806, "\(String(describing: e))")
        #expect(e?.message.contains("22 of 56 items") == true, "\(String(describing: e))")
    }
}

/// Issue 28, reports that agree with the tool: what `--align` fixed is reported as fixed, one focal mismatch is one
/// number, a fault-free pair is left alone, and `align` refuses to write over its own input through a link.
@Suite struct PhotoConversionReportTests {
    /// A synthetic pair (grey, as RGB) with `fault` applied to the right camera.
    static func pair(
        width: Int = 480, height: Int = 320, seed: UInt64 = 5, _ fault: (inout SyntheticStereo) -> Void = { _ in }
    ) throws -> (left: Image, right: Image) {
        var s = SyntheticStereo()
        s.width = width; s.height = height; s.seed = seed; s.farWallMetres = 100; s.noise = 0
        fault(&s)
        let (l, r) = s.render()
        return (try PhotoInputReadingTests.rgb(l), try PhotoInputReadingTests.rgb(r))
    }

    // MARK: g. the report of --align shows what was written, and the input's faults as fixed

    @Test func alignReportsTheFaultsItFixedAsFixed() throws {
        let (l, r) = try Self.pair { $0.rollDegrees = 1.5 }
        let stereo = StereoParameters(baselineMicrometres: 64_000, horizontalFieldOfViewMillidegrees: 60_000)
        let before = GeometryDiagnosis.conversionFaults(
            left: l, right: r, stereo: stereo, align: true, autoDisparity: true)
        #expect(
            before.contains { $0.ruleID == "SV-GEOM-003" && $0.severity == .error && $0.fixedBy == ["--align"] },
            "\(before.map(\.line))")
        let p = try PairAligner.prepare(left: l, right: r, hfovDegrees: 60, align: true, autoDisparity: true)
        #expect(p.report.aligned)
        var written = stereo
        try written.setHorizontalFieldOfView(degrees: try #require(p.report.hfovDegrees))
        try written.setDisparity(percent: try #require(p.report.disparityPercent))
        let after = GeometryDiagnosis.conversionFaults(
            left: p.left, right: p.right, stereo: written, align: true, autoDisparity: true)
        let (remaining, fixed) = GeometryDiagnosis.faultsAfterFixes(before: before, after: after)
        #expect(
            !remaining.contains { $0.ruleID == "SV-GEOM-003" }, "the roll is still reported: \(remaining.map(\.line))")
        #expect(!remaining.contains { $0.severity == .error }, "\(remaining.map(\.line))")
        #expect(fixed.contains { $0.fault.ruleID == "SV-GEOM-003" && $0.by == "--align" }, "\(fixed.map(\.fault.line))")
    }

    @Test
    func convertAlignPrintsNoPreFixErrorAsCurrent() throws {
        let (l, r) = try Self.pair { $0.rollDegrees = 1.5 }
        let sbs = tempPath("roll-sbs.png"), out = tempPath("roll-aligned.heic")
        try AtomicFile.write(path: sbs, bytes: try PNG.encode(try ImageOps.join(l, r)))
        let run = try CLI.run(["convert", sbs, "-o", out, "--align", "--auto-disparity"])
        #expect(run.status == 0, "\(run.err)")
        // Messages of the operations layer come with the command's name in front.
        let prefix = "spatial-media convert: "
        let lines = run.err.split(separator: "\n").map {
            $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : String($0)
        }
        // Before: "ERROR SV-GEOM-003: roll …" printed as if the written photo still had it.
        #expect(!lines.contains { $0.hasPrefix("ERROR SV-GEOM-003") }, "\(run.err)")
        #expect(lines.contains { $0.hasPrefix("fixed by --align: ERROR SV-GEOM-003") }, "\(run.err)")
    }

    // MARK: h. one focal mismatch, one number

    @Test func convertAndValidateGiveOneFocalMismatchInTheSamePixels() throws {
        // Eyes wider than 2048 px: convert used to measure at half size and print half the pixels validate printed.
        let (l, r) = try Self.pair(width: 2400, height: 1000, seed: 9) { $0.focalRatio = 1.02 }
        let stereo = StereoParameters(baselineMicrometres: 64_000, horizontalFieldOfViewMillidegrees: 60_000)
        let convertSays = try #require(
            GeometryDiagnosis.conversionFaults(left: l, right: r, stereo: stereo, align: false, autoDisparity: false)
                .first { $0.ruleID == "SV-GEOM-004" }?.message)
        let sbs = tempPath("focal-sbs.png")
        try AtomicFile.write(path: sbs, bytes: try PNG.encode(try ImageOps.join(l, r)))
        var o = ValidationOptions(); o.layout = .sbs
        let validateSays = try #require(
            Validator.validate(path: sbs, options: o).findings.first { $0.ruleID == "SV-GEOM-004" }?.message)
        func pixels(_ m: String) -> Double? {
            guard let end = m.range(of: " px vertical error") else { return nil }
            return Double(m[..<end.lowerBound].split(separator: "(").last ?? "")
        }
        let a = try #require(pixels(convertSays)), b = try #require(pixels(validateSays))
        #expect(a == b, "convert: \(convertSays) — validate: \(validateSays)")
        // In the eyes' own pixels: a 2 % focal mismatch moves the top/bottom edges by ≈ 1 % of the 1000 px height.
        #expect(a > 7 && a < 13, "\(a) px")
    }

    @Test
    func convertCommandPrintsTheFocalMismatchValidatePrints() throws {
        let (l, r) = try Self.pair(width: 2400, height: 1000, seed: 9) { $0.focalRatio = 1.02 }
        let sbs = tempPath("focal-cli-sbs.png")
        try AtomicFile.write(path: sbs, bytes: try PNG.encode(try ImageOps.join(l, r)))
        let convert = try CLI.run(["convert", sbs, "-o", tempPath("focal-cli.heic"), "--quality", "10"])
        let validate = try CLI.run(["validate", "--layout", "sbs", sbs])
        func line(_ text: String) -> String? {
            guard let l = text.split(separator: "\n").map(String.init).first(where: { $0.contains("SV-GEOM-004") }),
                let r = l.range(of: "% larger (")
            else { return nil }
            return String(l[r.upperBound...].prefix { $0 != " " })
        }
        // Before: convert printed 5.00 px where validate printed 10.00 px.
        let a = try #require(line(convert.err), "\(convert.err)"),
            b = try #require(line(validate.out), "\(validate.out)")
        #expect(a == b && a.hasPrefix("10."), "convert \(a) px, validate \(b) px")
    }

    // MARK: i. --align leaves a fault-free pair untouched

    @Test func alignLeavesAFaultFreePairUntouched() throws {
        let (l, r) = try Self.pair()
        let p = try PairAligner.prepare(left: l, right: r, hfovDegrees: 60, align: true, autoDisparity: false)
        #expect(!p.report.aligned && p.report.hfovDegrees == nil)
        #expect(p.left.width == l.width && p.left.height == l.height && p.right.width == r.width)
        #expect(try ImageOps.psnr(p.right, r) > 99, "the right eye was warped")
        #expect(
            p.report.lines.contains { $0.contains("needs no alignment") && $0.contains("not warped or cropped") },
            "\(p.report.lines)")
        // A pair with a fault is still aligned (and cropped).
        let (fl, fr) = try Self.pair { $0.rollDegrees = 1.5 }
        let q = try PairAligner.prepare(left: fl, right: fr, hfovDegrees: 60, align: true, autoDisparity: false)
        #expect(q.report.aligned && q.left.width < fl.width, "\(q.report.lines)")
        #expect(q.report.lines.contains { $0.contains("fixes roll") }, "\(q.report.lines)")
    }

    // MARK: j. align refuses an output that is its own input through a symbolic link

    @Test
    func alignRefusesALinkToItsInput() throws {
        let (l, r) = try Self.pair()
        let photo = tempPath("align-input.heic"), link = tempPath("align-link.heic")
        let pair = StereoPair(
            left: l, right: r, exif: nil, exifInfo: ExifInfo(), sourceBaselineMM: nil, convergenceAngleDegrees: nil,
            sourceDescription: "test", notes: [])
        _ = try PhotoConverter.convert(pair, options: PhotoInputReadingTests.options(), to: photo)
        let original = try FileBytes.read(photo)
        try? FileManager.default.removeItem(atPath: link)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: photo)
        let run = try CLI.run(["align", photo, "-o", link])
        #expect(run.status == 64, "\(run.status): \(run.err)")
        #expect(run.err.contains("is the input"), "\(run.err)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == photo, "the link was replaced")
        #expect(try FileBytes.read(photo) == original, "the input changed")
    }
}
