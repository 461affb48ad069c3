import BinaryIO
import Foundation
import HEVC
import ISOBMFF
import SpatialConvert
import TestSupport
import Testing

/// Issue 40 item 1: `--sdr` tone-maps an HDR source (PQ, HLG) through FFmpeg to BT.709 SDR, 8-bit, tagged BT.709 in
/// the VUI and `colr`, with no mastering display or content light level left, and a report line naming what was
/// converted; the picture stays plausible (mean luma near the SDR test pattern's, not clipped or crushed). An FFmpeg
/// without the filters is refused, a source that is not HDR is written as it states.
@Suite("SDR tone mapping")
struct SDRToneMapTests {
    static func ffmpeg(_ args: [String]) throws {
        let r = try Run.program(try TestPrograms.requireFFmpeg(), ["-nostdin", "-v", "error", "-y"] + args)
        #expect(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.err)")
    }

    /// A 12-frame 640×240 SBS test pattern, coded by FFmpeg's libx265 with these tags (10-bit for HDR).
    static func source(_ d: String, _ name: String, trc: String?, masterDisplay: Bool = false) throws -> String {
        let out = d + "/" + name
        var args = ["-f", "lavfi", "-i", HDRColourTests.pair, "-frames:v", "12"]
        var x265 = "log-level=error:crf=16"
        if let trc {
            args += [
                "-vf", "setparams=color_primaries=bt2020:color_trc=\(trc):colorspace=bt2020nc:range=tv",
                "-pix_fmt", "yuv420p10le",
            ]
            if masterDisplay { x265 += ":master-display=\(HDRColourTests.masterDisplay):max-cll=1000,400" }
        } else {
            args += ["-pix_fmt", "yuv420p"]
        }
        try ffmpeg(args + ["-c:v", "libx265", "-x265-params", x265, out])
        return out
    }

    /// Mean 8-bit luma and the fractions at or above 235 (white) and at or below 16 (black) of a view (or of the
    /// 320×240 at column `x` of a single-view file), as FFmpeg decodes it.
    static func luma(_ file: String, view: Int?, x: Int = 0) throws -> (mean: Double, white: Double, black: Double) {
        let d = try TestPaths.tempDir("sdr-luma")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let map = view.map { "0:v:0:vidx:\($0)" } ?? "0:v:0"
        try ffmpeg([
            "-i", file, "-map", map, "-vf", "crop=320:240:\(x):0", "-f", "rawvideo", "-pix_fmt", "gray",
            d + "/y",
        ])
        let y = [UInt8](try Data(contentsOf: URL(fileURLWithPath: d + "/y")))
        #expect(!y.isEmpty)
        let n = Double(max(1, y.count))
        return (
            Double(y.reduce(0) { $0 + Int($1) }) / n, Double(y.filter { $0 >= 235 }.count) / n,
            Double(y.filter { $0 <= 16 }.count) / n
        )
    }

    static func options() -> VideoConversionOptions {
        var o = HDRColourTests.options()
        o.sdr = true
        return o
    }

    /// The written stream's base-layer SPS, the VPS's colour of layer 1, and the sample entry's colour boxes.
    static func written(_ out: String) throws -> (
        sps: SequenceParameterSet, layer1: VPSVideoSignalInfo?,
        colr: ColourInformationBox?, mdcv: Bool, clli: Bool
    ) {
        let c = try HDRColourTests.container(out)
        return (c.sps, c.vps.videoSignalInfo(layerId: 1), c.colr, c.mdcv, c.clli)
    }

    @Test(arguments: ["smpte2084", "arib-std-b67"])
    func hdrSourceBecomesBT709SDR(trc: String) throws {
        let d = try TestPaths.tempDir("sdr")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let src = try Self.source(d, "hdr.mp4", trc: trc, masterDisplay: trc == "smpte2084")
        let out = d + "/sdr.mov"
        let r = try VideoConverter.convert(.packed(src), to: out, options: Self.options())
        let name = trc == "smpte2084" ? "PQ" : "HLG"
        let line = "--sdr: BT.2020/\(name)/BT.2020 NCL, limited range tone-mapped to BT.709 SDR, 8-bit"
        #expect(r.notes.contains { $0.hasPrefix(line) }, "\(r.notes)")
        let w = try Self.written(out)
        #expect(w.sps.bitDepthLumaMinus8 == 0 && w.sps.profileTierLevel.profileIdc == 1, "8-bit Main base layer")
        #expect(w.sps.vui.colourPrimaries == 1 && w.sps.vui.transferCharacteristics == 1 && w.sps.vui.matrixCoeffs == 1)
        let l1 = try #require(w.layer1)
        #expect(l1.colourPrimaries == 1 && l1.transferCharacteristics == 1 && l1.matrixCoeffs == 1)
        #expect(!l1.videoFullRange)
        #expect(w.colr?.colourPrimaries == 1 && w.colr?.transferCharacteristics == 1 && w.colr?.matrixCoefficients == 1)
        #expect(!w.mdcv && !w.clli, "no HDR metadata on an SDR picture")
        let listing = try Run.program(try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", out]).err
        #expect(listing.contains("yuv420p(tv, bt709"), "\(listing)")
        // Plausible: the SDR pattern's mean within ±40 %, at most 5 points more white or black than it has (each
        // eye against the same eye of the pattern: the right one has a black band where it was shifted).
        let plain = try Self.source(d, "sdr.mp4", trc: nil)
        for v in 0...1 {
            let sdr = try Self.luma(plain, view: nil, x: 320 * v)
            let m = try Self.luma(out, view: v)
            #expect(m.mean > sdr.mean * 0.6 && m.mean < sdr.mean * 1.4, "view \(v): mean \(m.mean) vs SDR \(sdr.mean)")
            // The pattern's code values are what the HDR source holds: a relabelled copy would keep its mean (±1).
            #expect(abs(m.mean - sdr.mean) > 3, "view \(v): mean \(m.mean) vs \(sdr.mean): converted, not relabelled")
            #expect(
                m.white <= sdr.white + 0.05 && m.black <= sdr.black + 0.05,
                "view \(v): white \(m.white) black \(m.black) vs SDR \(sdr.white) \(sdr.black)")
        }
    }

    /// `--sdr --bit-depth 10`: the tone-mapped picture in 10 bits, tagged BT.709.
    @Test func tenBitSDRWhenAsked() throws {
        let d = try TestPaths.tempDir("sdr10")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let src = try Self.source(d, "pq.mp4", trc: "smpte2084")
        var o = Self.options()
        o.bitDepth = 10
        let out = d + "/sdr10.mov"
        let r = try VideoConverter.convert(.packed(src), to: out, options: o)
        #expect(r.notes.contains { $0.contains("tone-mapped to BT.709 SDR, 10-bit") }, "\(r.notes)")
        let w = try Self.written(out)
        #expect(w.sps.bitDepthLumaMinus8 == 2 && w.sps.vui.transferCharacteristics == 1)
        #expect(w.colr?.transferCharacteristics == 1)
    }

    /// A source that is not HDR: nothing converted, said so; its colour kept.
    @Test func sdrSourceIsLeftAsItIs() throws {
        let d = try TestPaths.tempDir("sdr-plain")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let src = try Self.source(d, "sdr.mp4", trc: nil)
        let r = try VideoConverter.convert(.packed(src), to: d + "/out.mov", options: Self.options())
        #expect(r.notes.contains { $0.hasPrefix("--sdr: the source is not HDR") }, "\(r.notes)")
    }

    /// An FFmpeg without `zscale` (here the product's FFmpeg behind a wrapper that hides it from `-filters`) is
    /// refused with the reason, before anything is written.
    @Test func refusedWithoutTheFilters() throws {
        let d = try TestPaths.tempDir("sdr-nofilter")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let src = try Self.source(d, "hlg.mp4", trc: "arib-std-b67")
        let real = try TestPrograms.requireFFmpeg()
        let wrapper = d + "/ffmpeg"
        let script =
            "#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = -filters ] && "
            + "{ \"\(real)\" \"$@\" | grep -v ' zscale '; exit 0; }; done\nexec \"\(real)\" \"$@\"\n"
        try script.write(toFile: wrapper, atomically: true, encoding: .utf8)
        #expect(chmod(wrapper, 0o755) == 0)
        var o = Self.options()
        o.ffmpeg = wrapper
        let out = d + "/out.mov"
        let e = #expect(throws: ParseError.self) { try VideoConverter.convert(.packed(src), to: out, options: o) }
        #expect(
            e?.message.contains("tone mapping HDR to SDR") == true && e?.message.contains("zscale") == true,
            "\(String(describing: e))")
        #expect(!FileManager.default.fileExists(atPath: out))
    }
}
