import BinaryIO
import Foundation
import HEVC
import ISOBMFF
import SystemSupport
import TestSupport
import Testing

@testable import SpatialMedia

/// Small left/right HEVC pairs made with the x265 CLI (installed by scripts/setup.sh).
enum MuxClips {
    static var x265: String? { TestMedia.x265 }
    static var hasOracles: Bool { TestPaths.oraclePython != nil }
    static var python: String { TestPaths.oraclePython ?? "" }
    static func y4m(width: Int, height: Int, frames: Int, shift: Int) -> [UInt8] {
        TestMedia.y4m(width: width, height: height, frames: frames, shift: shift)
    }

    static func encode(_ y4m: [UInt8], dir: URL, name: String, extra: [String]) throws -> URL {
        URL(fileURLWithPath: try TestMedia.x265Encode(y4m, dir: dir.path, name: name, extra: extra))
    }

    /// 128×96, 10 frames, keyint 5, 2 B-frames: exercises ctts, the edit list and several sync samples.
    static func pair() throws -> (left: URL, right: URL, dir: URL) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("svmux-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let gop = ["--keyint", "5", "--min-keyint", "5", "--bframes", "2", "--b-adapt", "0", "--fps", "30"]
        let l = try encode(
            TestMedia.y4m(width: 128, height: 96, frames: 10, shift: 0), dir: dir, name: "left", extra: gop)
        let r = try encode(
            TestMedia.y4m(width: 128, height: 96, frames: 10, shift: 6), dir: dir, name: "right", extra: gop)
        return (l, r, dir)
    }

    static func bytes(_ u: URL) throws -> [UInt8] { [UInt8](try Data(contentsOf: u)) }

    /// Runs the oracle helper and decodes its JSON.
    static func oracle(_ movie: String, left: String, right: String) throws -> [String: Any] {
        try Oracle.object("Benchmarks/mvhevc_oracle.py", [movie, left, right])
    }
}

@Suite struct SpatialVideoMuxTests {
    func options() -> SpatialVideoMuxOptions {
        var o = SpatialVideoMuxOptions()
        o.stereo.baselineMicrometres = 64_000
        o.stereo.horizontalFieldOfViewMillidegrees = 63_500
        o.stereo.disparityAdjustment = 200
        o.stereo.heroEye = .left
        return o
    }

    @Test func writesAppleStyleSpatialVideo() throws {
        let (l, r, dir) = try MuxClips.pair()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stream = try MVHEVCAssembler.assemble(base: try MuxClips.bytes(l), second: try MuxClips.bytes(r))
        for (container, faststart) in [(SpatialVideoMuxOptions.Container.mov, false), (.mp4, true)] {
            var o = options()
            o.container = container
            o.faststart = faststart
            let path = dir.appendingPathComponent("out.\(container.rawValue)").path
            let result = try SpatialVideoMuxer.write(stream, to: path, options: o)
            #expect(result.samples == 10)
            #expect(result.syncSamples == 2)
            #expect(result.compositionDelay > 0)
            let file = try ISOFile.open(path: path)
            #expect(file.allDiagnostics.isEmpty, "\(file.allDiagnostics)")
            let top = file.boxes.map(\.type.description)
            #expect(top == (faststart ? ["ftyp", "moov", "mdat"] : ["ftyp", "mdat", "moov"]))
            let report = SpatialVideoReport(file)
            #expect(report.classification == .spatialVideo, "\(report.whyNotSpatial)")
            let track = try #require(file.tracks.first)
            let entry = try #require(track.sampleEntries.first)
            #expect(entry.type == "hvc1")
            #expect(entry.children?.map(\.type.description) == ["hvcC", "lhvC", "vexu", "hfov"])
            #expect(entry.find("vexu", "eyes")?.children?.map(\.type.description) == ["stri", "hero", "cams", "cmfy"])
            #expect(entry.find("vexu", "proj", "prji") != nil)
            let m = report.videoTracks[0].metadata
            #expect(
                m.baselineMicrometres == 64_000 && m.horizontalFieldOfViewMillidegrees == 63_500
                    && m.disparityAdjustment == 200 && m.heroEye == .left)
            // Samples, sync samples and timing as read back by the ISOBMFF reader.
            let samples = try track.samples()
            #expect(samples.count == 10)
            #expect(samples.filter(\.isSync).map(\.index) == [0, 5])
            let pts = samples.map(\.presentationTime)
            #expect(Set(pts).count == 10)
            // The stream inside: both layers, no inter-layer prediction, parameter sets only in the sample entry.
            let hvcC = try #require(entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record)
            let lhvC = try #require(entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record)
            let data = try samples.map { s throws(ParseError) in try file.readBytes(at: s.offset, count: Int(s.size)) }
            let info = try HEVCStreamInfo(hvcC: hvcC, lhvC: lhvC, samples: data)
            #expect(info.errors.isEmpty, "\(info.errors)")
            #expect(info.layerCount == 2 && info.accessUnitCount == 10)
            #expect(info.layers.first { $0.layerId == 1 }?.usesInterLayerPrediction == false)
            for d in data {
                let nals = try LengthPrefixed.split(d, lengthSize: 4)
                #expect(!nals.contains { [.vps, .sps, .pps].contains($0.type) })
                #expect(Set(nals.filter { $0.type.isVCL }.map(\.layerId)) == [0, 1])
            }
            let rec = try HEVCDecoderConfigurationRecord(parsing: hvcC)
            #expect(rec.arrays.map(\.nalUnitType.rawValue) == [32, 33, 34, 39])
            #expect(rec.arrays.allSatisfy { $0.arrayCompleteness })
            if container == .mp4 { #expect(file.box("ftyp")?.payload(FileTypeBox.self)?.majorBrand == "mp42") }
        }
    }

    @Test func badMuxOptionsAndUnwritableOutput() throws {
        let (l, r, dir) = try MuxClips.pair()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stream = try MVHEVCAssembler.assemble(base: try MuxClips.bytes(l), second: try MuxClips.bytes(r))
        var o = options()
        o.stereo.disparityAdjustment = 20_000
        #expect(throws: ParseError.self) {
            try SpatialVideoMuxer.write(stream, to: dir.appendingPathComponent("x.mov").path, options: o)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.mov").path))
        #expect(throws: ParseError.self) {
            try SpatialVideoMuxer.write(stream, to: "/nonexistent-dir/x.mov", options: options())
        }
    }

    /// The independent decoders: FFmpeg 9 (per view), PyAV / FFmpeg 8.1 (both views), libmediainfo.
    @Test(.needs(.oracles), arguments: LayerSPSForm.allCases)
    func oraclesDecodeBothViewsBitExactly(form: LayerSPSForm) throws {
        let (l, r, dir) = try MuxClips.pair()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("spatial.mov").path
        try MVHEVCAssembler.assemble(
            left: l.path, right: r.path, output: path,
            assembly: MVHEVCAssemblyOptions(layerSPSForm: form), mux: options())
        let o = try MuxClips.oracle(path, left: l.path, right: r.path)
        let single = try #require(o["single"] as? [String: Any])
        let leftMD5 = try #require(single["left"] as? [String]), rightMD5 = try #require(single["right"] as? [String])
        #expect(leftMD5.count == 10 && rightMD5.count == 10)
        #expect(Set(leftMD5) != Set(rightMD5))
        let ff = try #require(o["ffmpeg9"] as? [String: Any])
        #expect(ff["left"] as? [String] == leftMD5, "FFmpeg 9 left view: \(String(describing: ff["left"]))")
        #expect(ff["right"] as? [String] == rightMD5, "FFmpeg 9 right view: \(String(describing: ff["right"]))")
        let pyav = try #require(o["pyav"] as? [String: Any])
        #expect(pyav["base"] as? [String] == leftMD5, "PyAV base view: \(pyav)")
        #expect(pyav["second"] as? [String] == rightMD5, "PyAV second view: \(pyav)")
        let info = (o["ffmpeg_info"] as? [String] ?? []).joined(separator: "\n")
        #expect(info.contains("primary eye: left"), "\(info)")
        #expect(info.contains("baseline: 64000"), "\(info)")
        #expect(info.contains("horizontal_disparity_adjustment: 0.0200"), "\(info)")
        #expect(info.contains("horizontal_field_of_view: 63.500"), "\(info)")
        #expect(info.contains("Spherical Mapping: rectilinear"), "\(info)")
        let mi = try #require(o["mediainfo"] as? [String: Any])
        #expect((mi["format_profile"] as? String)?.hasPrefix("Multiview Main") == true, "\(mi)")
        #expect("\(mi["count_of_views"] ?? "")" == "2", "\(mi)")
        #expect(mi["codec_configuration_box"] as? String == "hvcC+lhvC", "\(mi)")
        print("oracles (\(form)):", info.replacingOccurrences(of: "\n", with: " | "), mi)
    }

    /// movie → split gives back both x265 inputs byte for byte; Apple's inter-layer-predicted file is refused.
    @Test func splitMovieRoundTrip() throws {
        let (l, r, dir) = try MuxClips.pair()
        defer { try? FileManager.default.removeItem(at: dir) }
        let movie = dir.appendingPathComponent("s.mov").path
        try MVHEVCAssembler.assemble(left: l.path, right: r.path, output: movie, mux: options())
        let outL = dir.appendingPathComponent("L.hevc").path, outR = dir.appendingPathComponent("R.hevc").path
        let layers = try StreamSplitter.write(path: movie, left: outL, right: outR)
        #expect(layers.accessUnits == 10)
        #expect(try MuxClips.bytes(URL(fileURLWithPath: outL)) == (try MuxClips.bytes(l)))
        #expect(try MuxClips.bytes(URL(fileURLWithPath: outR)) == (try MuxClips.bytes(r)))
        // Right eye as the base layer: the eye order is in SEI 176 inside hvcC only (the samples carry none),
        // and the split must still put each eye where it belongs.
        let heroRight = dir.appendingPathComponent("hero-right.mov").path
        var assembly = MVHEVCAssemblyOptions()
        assembly.baseIsLeft = false
        var o = options()
        o.stereo.heroEye = .right
        try MVHEVCAssembler.assemble(left: l.path, right: r.path, output: heroRight, assembly: assembly, mux: o)
        let swapped = try StreamSplitter.split(path: heroRight)
        #expect(!swapped.baseIsLeft)
        #expect(swapped.left == (try MuxClips.bytes(l)))
        #expect(swapped.right == (try MuxClips.bytes(r)))
        if Shared.exists(Shared.apple) {
            do {
                _ = try StreamSplitter.split(path: Shared.apple)
                Issue.record("Apple's file should be refused")
            } catch {
                #expect(error.code == .unsupported && error.message.contains("FFmpeg 7.1"))
            }
        }
    }
}
