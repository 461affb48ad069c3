import BinaryIO
import Foundation
import ISOBMFF
import MediaDecode
import SpatialMedia
import SpatialOperations
import SystemSupport
import TestSupport
import Testing

/// Issue 41 (build 7): `split` then `convert` of the eyes wrote 64 mm / 60° / 0 % in place of the source's values. The
/// eyes now carry them (PNG `iTXt` / JPEG APP1 XMP, MP4/MOV XMP `uuid` box, Specs/formats.md §9) and a conversion of
/// the two eyes reads them back; values given explicitly win.
@Suite struct EyeStereoRoundTripTests {
    /// Not the defaults in any field: an iPhone-like baseline, field of view and disparity, right hero eye.
    static let given = StereoValueInputs(baselineMillimetres: 19.271, hfovDegrees: 63.4, disparityPercent: 1.5)

    static func field(_ r: OperationReport, _ key: String) -> JSON? { r.fields.first { $0.0 == key }?.1 }
    static func text(_ r: OperationReport, _ key: String) -> String {
        if case .string(let s)? = field(r, key) { return s }
        return ""
    }

    static func videoStereo(_ path: String) throws -> StereoParameters {
        let m = try #require(SpatialVideoReport(try ISOFile.open(path: path)).primary).metadata
        return StereoParameters(
            baselineMicrometres: m.baselineMicrometres,
            horizontalFieldOfViewMillidegrees: m.horizontalFieldOfViewMillidegrees,
            disparityAdjustment: m.disparityAdjustment, heroEye: m.heroEye)
    }

    static func photoStereo(_ path: String) throws -> StereoParameters {
        var problems: [SpatialDiagnostic] = []
        let p = try #require(SpatialPhotoReader.read(try ISOFile.open(path: path), problems: &problems))
        return StereoParameters(
            baselineMicrometres: p.stereo.baselineMicrometres,
            horizontalFieldOfViewMillidegrees: p.stereo.horizontalFieldOfViewMillidegrees,
            disparityAdjustment: p.stereo.disparityAdjustment)
    }

    @Test func videoEyesCarryTheSourceValuesBack() throws {
        _ = try TestPrograms.requireFFmpeg()
        let d = try Shells.tempDir("eye-xmp-video")
        defer { try? FileManager.default.removeItem(atPath: d) }
        var make = ConvertRequest(input: Shells.sample, output: d + "/src.mov")
        make.values = Self.given
        make.heroEye = .right
        make.preset = .ultrafast
        try Operations.convert(make, spelling: .key)
        let source = try Self.videoStereo(d + "/src.mov")
        #expect(
            source.baselineMicrometres == 19_271 && source.horizontalFieldOfViewMillidegrees == 63_400
                && source.disparityAdjustment == 150 && source.heroEye == .right, "\(source)")

        var split = SplitRequest(input: d + "/src.mov")
        split.left = d + "/l.mov"; split.right = d + "/r.mp4"; split.preset = .ultrafast
        let s = try Operations.split(split, spelling: .key)
        #expect(s.lines.contains { $0.contains("carried in each MP4/MOV eye's XMP") }, "\(s.lines)")
        for (path, eye) in [(d + "/l.mov", "left"), (d + "/r.mp4", "right")] {
            let v = try #require(EyeStereoXMP.read(path: path), "\(path) carries no stereo values")
            #expect(v.eye == eye && v.stereo == source, "\(path): \(v)")
            // The eye is still one picture: no vexu for a reader to take as stereo.
            #expect(SpatialVideoReport(try ISOFile.open(path: path)).primary?.metadata.viewFlags == nil)
        }

        var back = ConvertRequest(left: d + "/l.mov", right: d + "/r.mp4", output: d + "/back.mov")
        back.preset = .ultrafast
        let r = try Operations.convert(back, spelling: .key)
        #expect(try Self.videoStereo(d + "/back.mov") == source)
        for key in ["baseline_source", "hfov_source", "disparity_source"] {
            #expect(Self.text(r, key) == "the eyes' XMP (written by split)", "\(key): \(Self.text(r, key))")
        }

        // A value given on the command line wins; the others still come from the eyes.
        back.output = d + "/given.mov"
        back.values = StereoValueInputs(hfovDegrees: 50)
        back.heroEye = .left
        let g = try Operations.convert(back, spelling: .key)
        var expected = source
        expected.horizontalFieldOfViewMillidegrees = 50_000
        expected.heroEye = .left
        #expect(try Self.videoStereo(d + "/given.mov") == expected)
        #expect(
            Self.text(g, "hfov_source") == "--hfov"
                && Self.text(g, "baseline_source") == "the eyes' XMP (written by split)")
    }

    /// Apple's own spatial video (AVFoundation, inter-layer predicted: FFmpeg ≥ 7.1 decodes both views): its eyes split
    /// and converted back keep 19.24 mm, 63.4°, 2 % and the left hero eye.
    @Test(.needs(.shared("corpus/spatial-video/stereo_spatial.mp4")))
    func appleVideoEyesCarryItsValuesBack() throws {
        _ = try TestPrograms.requireFFmpeg()
        let src = TestPaths.sharedPath("corpus/spatial-video/stereo_spatial.mp4")
        let d = try Shells.tempDir("eye-xmp-apple")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let source = try Self.videoStereo(src)
        var split = SplitRequest(input: src)
        split.left = d + "/l.mp4"; split.right = d + "/r.mov"; split.preset = .ultrafast
        try Operations.split(split, spelling: .key)
        var back = ConvertRequest(left: d + "/l.mp4", right: d + "/r.mov", output: d + "/back.mov")
        back.preset = .ultrafast
        let r = try Operations.convert(back, spelling: .key)
        #expect(try Self.videoStereo(d + "/back.mov") == source, "\(r.lines)")
        let after = try Self.videoStereo(d + "/back.mov")
        print("Apple spatial video: \(source) → split → convert --left/--right: \(after)")
    }

    @Test(arguments: ["png", "jpg", "heic"])
    func photoEyesCarryTheSourceValuesBack(_ ext: String) throws {
        let d = try Shells.tempDir("eye-xmp-photo-\(ext)")
        defer { try? FileManager.default.removeItem(atPath: d) }
        try Shells.sbsPNG(d + "/in.png")
        var make = ConvertRequest(input: d + "/in.png", output: d + "/src.heic")
        make.values = Self.given
        try Operations.convert(make, spelling: .key)
        let source = try Self.photoStereo(d + "/src.heic")
        #expect(source.baselineMicrometres == 19_271 && source.disparityAdjustment == 150, "\(source)")
        #expect(source.horizontalFieldOfViewMillidegrees.map { abs(Int($0) - 63_400) <= 1 } == true, "\(source)")

        var split = SplitRequest(input: d + "/src.heic")
        split.left = d + "/l.\(ext)"; split.right = d + "/r.\(ext)"
        let s = try Operations.split(split, spelling: .key)
        // PNG/JPEG eyes carry the values in their XMP; HEIC eyes keep each eye's camera properties (issue 28).
        let origin = ext == "heic" ? "the eyes' camera properties" : "the eyes' XMP (written by split)"
        #expect(ext == "heic" || s.lines.contains { $0.contains("carried in each PNG/JPEG eye's XMP") }, "\(s.lines)")
        for (path, eye) in [(split.left ?? "", "left"), (split.right ?? "", "right")] where ext != "heic" {
            let v = try #require(EyeStereoXMP.read(path: path), "\(path) carries no stereo values")
            #expect(v.eye == eye && v.stereo == source, "\(path): \(v)")
        }

        let back = ConvertRequest(left: d + "/l.\(ext)", right: d + "/r.\(ext)", output: d + "/back.heic")
        let r = try Operations.convert(back, spelling: .key)
        #expect(try Self.photoStereo(d + "/back.heic") == source)
        for key in ["baseline_source", "hfov_source", "disparity_source"] {
            #expect(Self.text(r, key) == origin, "\(key): \(Self.text(r, key))")
        }

        var given = ConvertRequest(left: d + "/l.\(ext)", right: d + "/r.\(ext)", output: d + "/given.heic")
        given.values = StereoValueInputs(baselineMillimetres: 30)
        let g = try Operations.convert(given, spelling: .key)
        let out = try Self.photoStereo(d + "/given.heic")
        #expect(
            out.baselineMicrometres == 30_000
                && out.horizontalFieldOfViewMillidegrees == source.horizontalFieldOfViewMillidegrees
                && out.disparityAdjustment == source.disparityAdjustment, "\(out)")
        #expect(
            Self.text(g, "baseline_source") == "--baseline"
                && Self.text(g, "hfov_source") == origin)
    }

    /// The packet merges into an eye's own XMP (Apple writes one per eye), replaces ours on a second write, and a
    /// value out of range is left out, named.
    @Test func packetMergesAndRefusesOutOfRange() throws {
        let apple = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description rdf:about="" xmlns:xmp="http://ns.adobe.com/xap/1.0/">
            <xmp:CreatorTool>visionOS</xmp:CreatorTool></rdf:Description>
            </rdf:RDF></x:xmpmeta>
            """.utf8)
        let s = StereoParameters(
            baselineMicrometres: 63_774, horizontalFieldOfViewMillidegrees: 80_000, disparityAdjustment: 293)
        let once = EyeStereoXMP.packet(eye: "right", stereo: s, mergedInto: apple)
        let twice = EyeStereoXMP.packet(eye: "right", stereo: s, mergedInto: once)
        let text = String(decoding: twice, as: UTF8.self)
        #expect(text.contains("visionOS") && text.components(separatedBy: EyeStereoXMP.namespace).count == 2, "\(text)")
        #expect(EyeStereoXMP.values(xmp: twice) == EyeStereoXMP.Values(eye: "right", stereo: s))
        let bad = Array(
            String(decoding: EyeStereoXMP.packet(eye: "left", stereo: s), as: UTF8.self)
                .replacingOccurrences(of: "\"80000\"", with: "\"180000\"").utf8)
        let v = try #require(EyeStereoXMP.values(xmp: bad))
        #expect(v.stereo.horizontalFieldOfViewMillidegrees == nil && v.stereo.baselineMicrometres == 63_774)
        #expect(v.refused == ["HorizontalFieldOfViewMillidegrees \"180000\""])
        // Without our namespace bound, nothing is read.
        #expect(EyeStereoXMP.values(xmp: apple) == nil)
    }
}
