import BinaryIO
import Foundation
import HEVC
import ISOBMFF
import SpatialConvert
import TestSupport
import Testing

/// Issue 40: the MV-HEVC reference decoder (HTM-16.0, `../shared/tools/htm/`) aborted with `pps!=0` on a small 8-bit
/// default conversion. Cause: every layer-1 slice names PPS 1 (`nuh_layer_id` 1, on SPS 1), which an `hvc1` sample
/// entry carries in `lhvC` only (array_completeness 1: none in band; ISO/IEC 14496-15 §9), exactly as Apple's
/// VideoToolbox file does. An Annex B extraction that ignores `lhvC` (FFmpeg before 7.1, Debian's 5.1) leaves
/// layer 1 without its parameter sets, and HTM asserts instead of reporting the missing PPS. Extracted with the
/// `lhvC` arrays (FFmpeg ≥ 7.1), both encode paths decode in HTM cleanly and bit-identical to FFmpeg.
@Suite("HTM reference decoder")
struct ReferenceDecoderTests {
    /// HTM's decoder as `../shared/tools/htm/build.sh` builds it.
    static let htm: String? = {
        let env = ProcessInfo.processInfo.environment
        let cache = env["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.cache"
        let p = env["HTM_DEC"].flatMap { $0.isEmpty ? nil : $0 } ?? cache + "/htm/TAppDecoderStatic"
        return FileManager.default.isExecutableFile(atPath: p) ? p : nil
    }()
    static let needsHTM = Requirement("HTM reference decoder not built (bash ../shared/tools/htm/build.sh)") {
        htm != nil
    }
    static let needsMultiview = Requirement(
        "no multiview x265 in the tools directory (bash scripts/setup.sh builds one)"
    ) { MultiviewDefaultTests.installed }

    /// The example: FFmpeg's 320×240 test pattern at 24 fps for 0.5 s, the right eye shifted 8 px, side by
    /// side, converted with the default options (the multiview x265 path when set-up installed it).
    static func convert(_ d: String, path: EncodePath = .auto) throws -> String {
        let src = d + "/sbs.mp4"
        let pair = "testsrc2=size=320x240:rate=24,split[a][b];[b]crop=312:240:8:0,pad=320:240:0:0[c];[a][c]hstack"
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(),
            [
                "-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", pair, "-t", "0.5", "-pix_fmt", "yuv420p",
                "-c:v", "libx265", "-x265-params", "log-level=error:crf=16", src,
            ])
        #expect(r.status == 0, "ffmpeg: \(r.err)")
        var o = VideoConversionOptions()
        o.layout = .sbs
        o.audio = .none
        o.encodePath = path
        let out = d + "/out-\(path.rawValue).mov"
        _ = try VideoConverter.convert(.packed(src), to: out, options: o)
        return out
    }

    /// The sample entry's parameter sets (hvcC, lhvC) and the NAL units of every sample.
    static func stream(_ path: String) throws -> (hvcC: [NALUnit], lhvC: [NALUnit], samples: [[NALUnit]]) {
        let f = try ISOFile.open(path: path)
        let track = try #require(f.tracks.first { $0.handler == "vide" })
        let entry = try #require(track.sampleEntries.first)
        let hvcC = try #require(entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record)
        let lhvC = try #require(entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record)
        let h = try HEVCDecoderConfigurationRecord(parsing: hvcC)
        let l = try LHEVCDecoderConfigurationRecord(parsing: lhvC)
        var samples: [[NALUnit]] = []
        for s in try track.samples() {
            let bytes = try f.readBytes(at: s.offset, count: Int(s.size))
            samples.append(try LengthPrefixed.split(bytes, lengthSize: h.lengthSize))
        }
        return (h.nalUnits(), l.nalUnits(), samples)
    }

    /// The layer-1 slices name a PPS that only `lhvC` holds; without it (what an extractor that ignores `lhvC` gives
    /// a decoder) the reference is dangling, with it every slice of both layers resolves. Nothing is in band.
    @Test(.needs(needsMultiview))
    func layer1SlicesNameTheParameterSetsOfLhvC() throws {
        let d = try TestPaths.tempDir("htm-ps")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let s = try Self.stream(try Self.convert(d))
        #expect(s.samples.count == 12)
        #expect(
            !s.samples.joined().contains { [.vps, .sps, .pps].contains($0.type) },
            "hvc1: parameter sets out of band only")
        let lhvcPPS = try s.lhvC.filter { $0.type == .pps }.map { try PictureParameterSet(nal: $0) }
        #expect(s.lhvC.allSatisfy { $0.layerId == 1 } && lhvcPPS.map(\.ppsId) == [1])
        var baseOnly = ParameterSetStore(), both = ParameterSetStore()
        for n in s.hvcC { try baseOnly.add(n); try both.add(n) }
        for n in s.lhvC { try both.add(n) }
        var layer1Slices = 0
        for n in s.samples.joined() where n.type.isVCL {
            let ctx = try both.context(forSlice: n)
            #expect(ctx.pps.ppsId == (n.layerId == 0 ? 0 : 1) && ctx.sps.spsId == (n.layerId == 0 ? 0 : 1))
            if n.layerId == 1 {
                layer1Slices += 1
                #expect(throws: ParseError.self) { try baseOnly.context(forSlice: n) }
            } else {
                #expect(try baseOnly.context(forSlice: n).pps.ppsId == 0)
            }
        }
        #expect(layer1Slices == 12)
    }

    /// HTM decodes the Annex B stream FFmpeg ≥ 7.1 extracts (its `hevc_mp4toannexb` inserts the `lhvC` parameter
    /// sets) of both encode paths with no assertion and no conformance message, every layer bit-identical to FFmpeg's
    /// view; the same stream without layer 1's parameter sets (an extractor that ignores `lhvC`) makes HTM abort —
    /// the failure the issue saw.
    @Test(.needs(needsHTM, needsMultiview))
    func htmDecodesBothEncodePathsBitExactly() throws {
        let d = try TestPaths.tempDir("htm")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let ffmpeg = try TestPrograms.requireFFmpeg()
        for path in [EncodePath.multiview, .assembled] {
            let out = try Self.convert(d, path: path)
            let es = d + "/\(path.rawValue).hevc"
            let x = try Run.program(
                ffmpeg,
                [
                    "-nostdin", "-v", "error", "-y", "-i", out, "-map", "0:v:0",
                    "-c:v", "copy", "-bsf:v", "hevc_mp4toannexb", "-f", "hevc", es,
                ])
            #expect(x.status == 0, "\(x.err)")
            let h = try Self.runHTM(es, in: d + "/htm-\(path.rawValue)")
            #expect(h.status == 0 && !h.signalled, "\(path.rawValue): HTM status \(h.status): \(h.log.suffix(400))")
            #expect(
                !h.log.contains("Assertion") && !h.log.contains("HTM-CONFORMANCE") && !h.log.contains("Error"),
                "\(path.rawValue): \(h.log.suffix(400))")
            for layer in 0...1 {
                let htmOut = try Data(contentsOf: URL(fileURLWithPath: d + "/htm-\(path.rawValue)/htm_\(layer).yuv"))
                let ff = d + "/ff-\(path.rawValue)-\(layer).yuv"
                let v = try Run.program(
                    ffmpeg,
                    [
                        "-nostdin", "-v", "error", "-y", "-ignore_editlist", "1", "-i", out, "-map",
                        "0:v:0:vidx:\(layer)",
                        "-fps_mode", "passthrough", "-f", "rawvideo", "-pix_fmt", "yuv420p", ff,
                    ])
                #expect(v.status == 0, "\(v.err)")
                let ffOut = try Data(contentsOf: URL(fileURLWithPath: ff))
                #expect(
                    htmOut.count == 12 * 320 * 240 * 3 / 2,
                    "\(path.rawValue) layer \(layer): \(htmOut.count) bytes")
                #expect(htmOut == ffOut, "\(path.rawValue) layer \(layer): HTM and FFmpeg differ")
            }
            if path == .multiview {
                // The control: layer 1's SPS/PPS removed, as FFmpeg < 7.1's extraction leaves the stream.
                let nals = try AnnexB.split(Array(try Data(contentsOf: URL(fileURLWithPath: es))))
                let kept = nals.filter { !($0.layerId == 1 && ($0.type == .sps || $0.type == .pps)) }
                #expect(kept.count == nals.count - 2)
                let bare = d + "/no-lhvc.hevc"
                try Data(AccessUnitWriter.annexB(kept)).write(to: URL(fileURLWithPath: bare))
                let c = try Self.runHTM(bare, in: d + "/htm-bare")
                #expect(c.status != 0 && c.log.contains("pps!=0"), "HTM status \(c.status): \(c.log.suffix(300))")
            }
        }
    }

    /// Runs HTM on `stream` in `dir` (it writes `htm_<layer>.yuv` there).
    static func runHTM(_ stream: String, in dir: String) throws -> (status: Int32, signalled: Bool, log: String) {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let r = try Run.program(try #require(htm), ["-b", stream, "-o", "htm.yuv"], cwd: dir, timeout: 300)
        return (r.status, r.signalled, r.out + r.err)
    }
}
