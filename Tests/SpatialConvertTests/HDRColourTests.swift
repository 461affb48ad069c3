import BinaryIO
import Foundation
import HEVC
import ISOBMFF
import MediaDecode
import SpatialConvert
import SpatialMedia
import SpatialValidation
import TestSupport
import Testing

/// Issue 38 item 4 and issue 40: a video's colour reaches the spatial video as the source states it. A full-range
/// source stays full range (its RGB mean kept), a 10-bit HLG or PQ (HDR10) side-by-side source becomes a 10-bit
/// spatial video whose two views FFmpeg 9 decodes as yuv420p10le with the source's colour tags, mastering display and
/// content light level — and so do its eyes after `split`, to two files and to SBS.
@Suite("HDR and colour as recorded")
struct HDRColourTests {
    static let oracle = packageRoot + "/Tests/Oracles/hdr_oracle.py"
    /// Left eye = the test pattern, right eye = the same shifted 20 px: a stereo pair FFmpeg makes.
    static let pair = "testsrc2=size=320x240:rate=24,split[a][b];[b]crop=300:240:20:0,pad=320:240:0:0[c];[a][c]hstack"
    static let masterDisplay = "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)"

    static func ffmpeg(_ args: [String]) throws {
        let r = try Run.program(try TestPrograms.requireFFmpeg(), ["-nostdin", "-v", "error", "-y"] + args)
        #expect(r.status == 0, "ffmpeg \(args.joined(separator: " ")): \(r.err)")
    }

    /// A 12-frame 640×240 SBS source with these colour tags, coded by FFmpeg's libx265 (Main 10 for `pixFmt` 10-bit).
    static func source(
        _ name: String, pixFmt: String, primaries: String, trc: String, matrix: String, range: String = "tv",
        x265: String = ""
    ) throws -> String {
        let path = tempPath(name)
        try ffmpeg([
            "-f", "lavfi", "-i", pair, "-frames:v", "12",
            "-vf", "setparams=color_primaries=\(primaries):color_trc=\(trc):colorspace=\(matrix):range=\(range)",
            "-pix_fmt", pixFmt, "-c:v", "libx265", "-x265-params", "log-level=error:crf=16" + x265, path,
        ])
        return path
    }

    static func oracleLines(_ args: [String]) throws -> [String] {
        let r = try Run.program(try #require(oraclePython), [oracle] + args)
        #expect(r.status == 0, "hdr_oracle \(args): \(r.err)")
        return r.out.split(separator: "\n").map(String.init)
    }

    static func options(crf: Double = 18) -> VideoConversionOptions {
        var o = VideoConversionOptions()
        o.layout = .sbs
        o.rateControl = .crf(crf)
        o.audio = .none
        return o
    }

    /// What the oracle says of each view: its pixel format, PSNR-Y against the source eye, tags and side data — and
    /// that they are the source's.
    static func expectViews(
        _ lines: [String], names: [String], minPSNR: Double = 40, pixFmt: String = "yuv420p10le",
        sideData: Bool
    ) {
        let srcTags = lines.first { $0.hasPrefix("tags SRC ") }.map { String($0.dropFirst("tags SRC ".count)) }
        let srcSide = lines.filter { $0.hasPrefix("side SRC ") }.map { String($0.dropFirst("side SRC ".count)) }
        #expect(srcTags != nil)
        #expect(srcSide.count == (sideData ? 2 : 0), "\(lines)")
        for n in names {
            let eye = lines.first { $0.hasPrefix("eye \(n) ") }
            let f = eye?.split(separator: " ").map(String.init) ?? []
            #expect(f.count >= 6 && f[3] == pixFmt, "\(n): \(eye ?? "missing")")
            let psnr = f.count >= 6 ? Double(f[5]) ?? 0 : 0
            #expect(psnr >= minPSNR, "\(n): PSNR-Y \(psnr) dB")
            #expect(lines.contains("tags \(n) \(srcTags ?? "?")"), "\(n): \(lines.filter { $0.hasPrefix("tags") })")
            let side = lines.filter { $0.hasPrefix("side \(n) ") }.map { String($0.dropFirst("side \(n) ".count)) }
            #expect(side == srcSide, "\(n): \(side) vs \(srcSide)")
        }
    }

    /// The sample entry's `colr`, `mdcv`, `clli` and the base and layer-1 colour the VPS VUI gives.
    static func container(_ path: String) throws -> (
        colr: ColourInformationBox?, mdcv: Bool, clli: Bool, sps: SequenceParameterSet,
        vps: VideoParameterSet
    ) {
        let f = try ISOFile.open(path: path)
        let entry = try #require(f.tracks.first { $0.handler == "vide" }?.sampleEntries.first)
        let hvcC = try HEVCDecoderConfigurationRecord(
            parsing: try #require(entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record))
        let units = try hvcC.arrays.flatMap(\.nalUnits).map { b throws(ParseError) in try NALUnit(bytes: b) }
        let vps = try VideoParameterSet(nal: try #require(units.first { $0.type == .vps }))
        let sps = try SequenceParameterSet(nal: try #require(units.first { $0.type == .sps }))
        return (
            entry.child("colr")?.payload(ColourInformationBox.self), entry.child("mdcv") != nil,
            entry.child("clli") != nil, sps, vps
        )
    }

    @Test(.needs(.oracles))
    func hlg10BitSBSBecomes10BitSpatialVideoWithItsTags() throws {
        let src = try Self.source(
            "hlg.mp4", pixFmt: "yuv420p10le", primaries: "bt2020", trc: "arib-std-b67", matrix: "bt2020nc")
        let out = tempPath("hlg-out.mov")
        let r = try VideoConverter.convert(.packed(src), to: out, options: Self.options())
        #expect(r.notes.contains { $0.contains("BT.2020/HLG/BT.2020 NCL, limited range") }, "\(r.notes)")
        let c = try Self.container(out)
        #expect(c.sps.bitDepthLumaMinus8 == 2 && c.sps.profileTierLevel.profileIdc == 2, "Main 10 base layer")
        #expect(
            c.sps.vui.colourPrimaries == 9 && c.sps.vui.transferCharacteristics == 18 && c.sps.vui.matrixCoeffs == 9)
        let layer1 = try #require(c.vps.videoSignalInfo(layerId: 1), "the VPS VUI states layer 1's colour")
        #expect(
            layer1.colourPrimaries == 9 && layer1.transferCharacteristics == 18 && layer1.matrixCoeffs == 9
                && !layer1.videoFullRange)
        #expect(
            c.colr?.colourPrimaries == 9 && c.colr?.transferCharacteristics == 18 && c.colr?.matrixCoefficients == 9)
        #expect(!c.mdcv && !c.clli, "HLG without mastering metadata: none invented")
        let lines = try Self.oracleLines(["views", out, src])
        Self.expectViews(lines, names: ["left", "right"], sideData: false)
        try Self.splitBack(out, src: src, sideData: false)
    }

    @Test(.needs(.oracles))
    func pq10BitKeepsMasteringDisplayAndContentLight() throws {
        let src = try Self.source(
            "pq.mkv", pixFmt: "yuv420p10le", primaries: "bt2020", trc: "smpte2084", matrix: "bt2020nc",
            x265: ":hdr10=1:master-display=\(Self.masterDisplay):max-cll=1000,400")
        let out = tempPath("pq-out.mov")
        let r = try VideoConverter.convert(.packed(src), to: out, options: Self.options())
        #expect(r.notes.contains { $0.contains("MaxCLL 1000 cd/m², MaxFALL 400 cd/m²") }, "\(r.notes)")
        let c = try Self.container(out)
        #expect(c.mdcv && c.clli)
        #expect(c.sps.vui.transferCharacteristics == 16)
        let lines = try Self.oracleLines(["views", out, src])
        Self.expectViews(lines, names: ["left", "right"], sideData: true)
        try Self.splitBack(out, src: src, sideData: true)
    }

    /// validate checks HDR: our HDR10 output is consistent (no SV-HDR finding) and spatial; a PQ movie without
    /// mastering metadata gets SV-HDR-003; a stripped `mdcv` while the SEI still states it gets SV-HDR-002.
    @Test(.needs(.oracles))
    func validateChecksHDRConsistency() throws {
        var meta = ValidationOptions()
        meta.pixels = false
        let hdr10 = try Self.source(
            "pq-v.mp4", pixFmt: "yuv420p10le", primaries: "bt2020", trc: "smpte2084", matrix: "bt2020nc",
            x265: ":hdr10=1:master-display=\(Self.masterDisplay):max-cll=1000,400")
        let out = tempPath("pq-v.mov")
        _ = try VideoConverter.convert(.packed(hdr10), to: out, options: Self.options(crf: 28))
        let good = Validator.validate(path: out, options: meta)
        #expect(
            !good.findings.contains { $0.ruleID.hasPrefix("SV-HDR") },
            "\(good.findings.filter { $0.ruleID.hasPrefix("SV-HDR") })")
        #expect(
            SpatialVideoReport(try ISOFile.open(path: out)).classification == .spatialVideo,
            "10-bit spatial video is spatial")
        // The same bytes with the mdcv box renamed (a 'free'-like unknown box): the SEI still states it.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: out)))
        let mdcv = Array("mdcv".utf8)
        let at = try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == mdcv })
        bytes.replaceSubrange(at..<(at + 4), with: Array("mdcx".utf8))
        let stripped = tempPath("pq-v-stripped.mov")
        try Data(bytes).write(to: URL(fileURLWithPath: stripped))
        #expect(Validator.validate(path: stripped, options: meta).fired("SV-HDR-002"))
        let bare = try Self.source(
            "pq-bare.mp4", pixFmt: "yuv420p10le", primaries: "bt2020", trc: "smpte2084", matrix: "bt2020nc")
        let bareOut = tempPath("pq-bare.mov")
        let r = try VideoConverter.convert(.packed(bare), to: bareOut, options: Self.options(crf: 28))
        #expect(r.notes.contains { $0.contains("PQ source without mastering display metadata") }, "\(r.notes)")
        #expect(Validator.validate(path: bareOut, options: meta).fired("SV-HDR-003"))
    }

    /// `split` back to two files and to SBS: 10-bit, the same tags and side data, the eyes still the source's.
    static func splitBack(_ out: String, src: String, sideData: Bool) throws {
        let l = tempPath("back-\(sideData)-L.mp4"), rr = tempPath("back-\(sideData)-R.mp4"),
            sbs = tempPath("back-\(sideData)-SBS.mp4")
        var o = VideoSplitOptions(target: .eyes(left: l, right: rr))
        o.crf = 12; o.audio = false
        _ = try VideoSplitter.split(out, options: o)
        expectViews(try oracleLines(["eyes", l, rr, src]), names: ["left", "right"], sideData: sideData)
        var s = VideoSplitOptions(target: .sideBySide(sbs))
        s.crf = 12; s.audio = false
        _ = try VideoSplitter.split(out, options: s)
        expectViews(try oracleLines(["packed", sbs, src]), names: ["packed"], sideData: sideData)
    }

    @Test(.needs(.oracles))
    func bitDepth8KeepsTheColourTagsOn8BitMultiviewMain() throws {
        let src = try Self.source(
            "hlg8.mp4", pixFmt: "yuv420p10le", primaries: "bt2020", trc: "arib-std-b67", matrix: "bt2020nc")
        let out = tempPath("hlg8-out.mov")
        var o = Self.options()
        o.bitDepth = 8
        let r = try VideoConverter.convert(.packed(src), to: out, options: o)
        #expect(
            r.notes.contains { $0.contains("rounded to 8 bits (--bit-depth 8)") && $0.contains("HLG") }, "\(r.notes)")
        let c = try Self.container(out)
        #expect(
            c.sps.bitDepthLumaMinus8 == 0 && c.sps.vui.transferCharacteristics == 18 && c.colr?.colourPrimaries == 9)
        let lines = try Self.oracleLines(["views", out, src])
        Self.expectViews(lines, names: ["left", "right"], minPSNR: 35, pixFmt: "yuv420p", sideData: false)
    }

    /// Full-range sources (MJPEG `yuvj420p` through FFmpeg, a full-range HEVC MP4 through libde265, a Y4M stating
    /// XCOLORRANGE=FULL) stay full range: FFmpeg's RGB of the left view is the source's within 1 %.
    @Test(.needs(.oracles))
    func fullRangeSourcesKeepTheirRGBMean() throws {
        let mjpeg = tempPath("full.mkv"), hevc = tempPath("full-hevc.mp4"), y4m = tempPath("full.y4m")
        try Self.ffmpeg([
            "-f", "lavfi", "-i", Self.pair, "-frames:v", "12", "-pix_fmt", "yuvj420p", "-c:v", "mjpeg", "-q:v", "2",
            mjpeg,
        ])
        try Self.ffmpeg([
            "-f", "lavfi", "-i", Self.pair, "-frames:v", "12", "-vf",
            "setparams=range=pc:colorspace=bt709:color_primaries=bt709:color_trc=bt709",
            "-pix_fmt", "yuv420p", "-c:v", "libx265", "-x265-params", "log-level=error", hevc,
        ])
        try Self.ffmpeg(["-i", mjpeg, "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", y4m])
        for src in [mjpeg, hevc, y4m] {
            let out = tempPath("full-out-\((src as NSString).lastPathComponent).mov")
            let r = try VideoConverter.convert(.packed(src), to: out, options: Self.options())
            #expect(r.notes.contains { $0.contains("kept full range") }, "\(src): \(r.notes)")
            let c = try Self.container(out)
            #expect(c.sps.vui.videoFullRange, "\(src): VUI video_full_range_flag")
            #expect(c.vps.videoSignalInfo(layerId: 1)?.videoFullRange == true, "\(src): VPS VUI of layer 1")
            #expect(
                c.colr?.colourType == "nclx" && (c.colr?.rangeByte ?? 0) & 0x80 != 0, "\(src): colr nclx full range")
            // The Y4M states no matrix: it is compared with the MJPEG it was made from.
            let lines = try Self.oracleLines(["rgbmean", out, src == y4m ? mjpeg : src])
            let ours =
                lines.first { $0.hasPrefix("rgb OUT ") }?.split(separator: " ").dropFirst(2).compactMap { Double($0) }
                ?? []
            let theirs =
                lines.first { $0.hasPrefix("rgb SRC ") }?.split(separator: " ").dropFirst(2).compactMap { Double($0) }
                ?? []
            #expect(ours.count == 3 && theirs.count == 3, "\(lines)")
            for (a, b) in zip(ours, theirs) {
                #expect(abs(a - b) <= 0.01 * b, "\(src): RGB mean \(ours) vs source \(theirs)")
            }
        }
    }

    /// FFmpeg's listing of a stream's pixel format and colour, and of a picture's HDR side data, read as stated.
    @Test func ffmpegColourListingsParse() {
        let hlg = MediaProbe.parse(
            "  Stream #0:0[0x1](und): Video: hevc (Main 10) (hev1 / 0x31766568), yuv420p10le(tv, bt2020nc/bt2020/arib-std-b67, progressive), 640x240 [SAR 1:1 DAR 8:3], 961 kb/s, 24 fps, 24 tbr, 12288 tbn (default)"
        )
        #expect(hlg.pixelFormat == "yuv420p10le" && hlg.sourceBitDepth == 10)
        #expect(hlg.colour == VideoColour(primaries: 9, transfer: 18, matrix: 9, fullRange: false))
        let jpeg = MediaProbe.parse(
            "  Stream #0:0: Video: mjpeg (Baseline), yuvj420p(pc, bt470bg/unknown/unknown, progressive), 640x240, 24 fps"
        )
        #expect(
            jpeg.sourceBitDepth == 8
                && jpeg.colour == VideoColour(primaries: 2, transfer: 2, matrix: 5, fullRange: true))
        let sdr = MediaProbe.parse(
            "  Stream #0:0: Video: h264 (High), yuv420p(tv, bt709, progressive), 1920x1080, 30 fps")
        #expect(sdr.colour == VideoColour(primaries: 1, transfer: 1, matrix: 1, fullRange: false))
        let none = MediaProbe.parse("  Stream #0:0: Video: h264 (High), yuv420p(progressive), 1920x1080, 30 fps")
        #expect(none.colour == nil)
        let md = MediaProbe.parseHDRMetadata(
            """
              Mastering display metadata: has_primaries:1 has_luminance:1 r(0.6800,0.3200) g(0.2650,0.6900) b(0.1500 0.0600) wp(0.3127, 0.3290) min_luminance=0.000100, max_luminance=1000.000000
              Content light level metadata: MaxCLL=1000, MaxFALL=400
            """)
        // G(13250,34500) B(7500,3000) R(34000,16000) WP(15635,16450) L(10000000,1), big-endian.
        #expect(
            md.masteringDisplay == [
                0x33, 0xC2, 0x86, 0xC4, 0x1D, 0x4C, 0x0B, 0xB8, 0x84, 0xD0, 0x3E, 0x80, 0x3D, 0x13, 0x40, 0x42,
                0x00, 0x98, 0x96, 0x80, 0x00, 0x00, 0x00, 0x01,
            ])
        #expect(md.contentLightLevel == [0x03, 0xE8, 0x01, 0x90])
    }
}
