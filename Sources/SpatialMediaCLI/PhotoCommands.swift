#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import ArgumentParser
import BinaryIO
import Codecs
import SpatialConvert
import HEVC
import SpatialMedia
import SystemSupport
import ImageFormats
import MediaDecode

/// `spatial-media convert`: side-by-side / top-bottom images, MPO files and left/right pairs → spatial photo;
/// SBS / top-bottom / two-file 3D video (Y4M, MP4/MOV, anything ffmpeg reads) → spatial video (MV-HEVC).
struct ConvertPhoto: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a stereo image to a spatial photo (stereo HEIC), or a 3D video to a spatial video (MV-HEVC .mov).",
        discussion: """
        Photos: SBS/TB JPEG, PNG or HEIC, an MPO file, or --left/--right image files → .heic. \
        Defaults, printed with every conversion so a guess is never mistaken for a measurement: \
        baseline = MPO BaselineLength when plausible (10–100 mm), else 64 mm; horizontal field of view = from EXIF \
        (FocalLengthIn35mmFilm, or FocalLength with FocalPlaneXResolution) when present, else 60°; \
        disparity adjustment 0 %; layout auto = side-by-side when the image is at least as wide as tall; \
        quality 80 (x265 CRF 16). A picture whose halves do not measure as a stereo pair is refused (--force \
        converts it anyway); a spatial photo is read as its two eyes with its calibration. An odd SBS width drops the middle column. EXIF of the source is kept.

        Videos (INPUT .y4m, "-" for Y4M on standard input, .mp4/.mov/.mkv/…, or --left/--right video files) → \
        .mov (or .mp4 with --mp4): both eyes encoded at once by x265 with identical fixed GOPs (8-bit 4:2:0, \
        CRF 23, preset medium, IDR every 2 s, 3 B-frames unless told), assembled as MV-HEVC. Every audio track comes \
        along with its language: copied when Apple players play it (AAC, ALAC, AC-3, E-AC-3, PCM), else transcoded \
        to AAC; an input without audio gets a silent AAC track (--no-audio: none); subtitles, chapters and \
        attachments are dropped, with a note. Defaults: layout sbs, baseline 64 mm, field of view 60°, disparity 0 % \
        (printed as "default, not measured"). 10-bit input is converted to 8 bits (rounded) with a note (Multiview \
        Main is 8-bit); 4:2:2/4:4:4 Y4M is refused (use --decoder ffmpeg, which converts). Inputs other than Y4M \
        and HEVC MP4/MOV, and audio, need FFmpeg (SPATIAL_MEDIA_FFMPEG, the tools directory of scripts/setup.sh, \
        or PATH); rotation and sample aspect ratio are applied, a variable frame rate is made constant (note). \
        --align (videos): the clip is read twice; shots are found from the decoded frames, a few frames of each \
        are measured, and one warp per shot is applied to the non-hero eye, with one crop of both eyes for the \
        whole clip (field of view updated); a shot that cannot be measured reliably is left unwarped and that is \
        printed; --auto-disparity writes one disparity adjustment for the file. Not with standard input or --segment. \
        Exit status 2 when an input cannot be read or used (no video stream, a layout its size cannot have, audio \
        that can be neither copied nor transcoded, FFmpeg missing), 1 for other failures, 130 when interrupted. \
        Ctrl-C or an error leaves nothing at OUT.
        """
    )
    @Argument(help: "A stereo image holding both eyes, an MPO file, or a 3D video (\"-\" = Y4M on standard input).") var input: String?
    @Option(name: .shortAndLong, help: "Output .heic (photo) or .mov/.mp4 (video) file.") var output: String
    @Option(help: "Left-eye image or video (with --right, instead of INPUT).") var left: String?
    @Option(help: "Right-eye image or video.") var right: String?
    @OptionGroup var values: StereoValueOptions
    @Option(help: "Layout of INPUT: sbs, tb or auto (photos); sbs, tb, half-sbs or half-tb (videos, default sbs).") var layout: String = "auto"
    @Flag(help: "Photo: each eye is squeezed to half width (SBS) or half height (TB); stretch it back (videos: --layout half-sbs or half-tb).") var half = false
    @Flag(help: "The left half/top/first image is the right eye.") var swapEyes = false
    @Option(help: "Photo: HEVC quality 0…100 (default 80).") var quality: Int?
    @Option(help: "Photo: coded bit depth, 8 (default) or 10. Spatial video is always 8-bit.") var bitDepth: Int?
    @Option(help: "Photo: camera property form, apple (uuid boxes, default), standard (cmin/cmex) or both.") var form: String?
    @Flag(help: "Rectify one eye onto the other (vertical offset, roll, focal scale, keystone; one warp), crop both to the common area around the centre; prints before/after figures. Photos: the right eye. Videos: the non-hero eye, one warp per shot (estimated on sampled frames), one crop for the whole clip.") var align = false
    @Flag(help: "Set the disparity adjustment from the measured disparity so the nearest content sits just behind the window (videos: one value for the clip).") var autoDisparity = false
    @Flag(help: "Print the report as JSON.") var json = false
    @Flag(help: "Photo: convert a frame-packed picture even when no stereo pair is measured in it (the layout is vouched for).") var force = false
    // Video options.
    @Option(help: "Video: x265 constant rate factor of the hero eye, 0…51 (default 23); the other eye follows --eye-quality.") var crf: Double?
    @Option(help: "Video: average bitrate of both eyes together in kbit/s (instead of --crf), split between the eyes by --eye-quality.") var bitrate: Int?
    @Option(help: "Video: auto (default: both eyes alike with inter-layer prediction when a multiview x265 is present, else asymmetric), asymmetric (the non-hero eye 6 CRF steps coarser, never above CRF 28; two single-layer encodes), asymmetric:N (N steps, 0…6), or equal.") var eyeQuality: String?
    @Option(help: "Video: VBV max bitrate of both eyes together, kbit/s (kept within the HEVC level of the eye size).") var maxBitrate: Int?
    @Option(help: "Video: VBV buffer of both eyes together, kbit (default: 1 s of --max-bitrate).") var vbvBufsize: Int?
    @Option(help: "Video: publishing limits to apply: vision-pro (at most 4320×4320 per eye, peak 150 Mbit/s).") var applePreset: String?
    @Option(help: "Video: which encoder makes the layers: auto (a multiview libx265 when one is found, see SPATIAL_MEDIA_X265; default), assembled (two single-layer encodes), multiview (fail without one).") var encodePath: String?
    @Option(help: "Video: constant quantizer per eye, 0…51 (instead of --crf; segments then join byte-identical to one conversion).") var qp: Int?
    @Option(help: "Video: encode only segment K of N (whole GOPs, no audio) to a segment file for `spatial-media concat`.") var segment: String?
    @Option(help: "Video: x265 preset (ultrafast … placebo, default medium).") var preset: String?
    @Option(help: "Video: IDR interval in frames (default 2 s of frames).") var keyint: Int?
    @Option(help: "Video: B-frames in the fixed pattern (default 3).") var bframes: Int?
    @Option(help: "Video: copy the input's audio tracks (copy, default) or drop them (none).") var audio: String?
    @Option(help: "Video: take the audio tracks from this MP4/MOV instead.") var audioFrom: String?
    @Option(help: "Video: hero eye, also the base layer 2D players show: left (default) or right.") var hero: String?
    @Flag(help: "Video: no audio track at all (by default the input's audio, or a silent track).") var noAudio = false
    @Option(help: "Video: frame rate (e.g. 30, 29.97, 30000/1001), overriding the input's.") var fps: String?
    @Option(help: "Video: input decoder: auto (Y4M direct, HEVC MP4/MOV by libde265, others ffmpeg) or ffmpeg.") var decoder: String?
    @Option(help: "Video: x265 threads per eye (--pools; default 1: one encoder per core).") var threadsPerEye: Int?
    @Option(help: "Video: layer-1 SPS form: multilayer (Apple's, default) or full (lossless split).") var spsForm: String?
    @Flag(help: "Video: write an MP4 (ftyp mp42) instead of QuickTime.") var mp4 = false
    @Flag(help: "Video: put moov before mdat.") var faststart = false
    @Option(help: "Video (debug): also write each eye's single-layer HEVC as PREFIX-left.hevc / PREFIX-right.hevc.") var keepStreams: String?

    var isVideo: Bool {
        if let input { return VideoInputs.isVideo(input) }
        if let left, let right { return VideoInputs.isVideo(left) && VideoInputs.isVideo(right) }
        return false
    }

    /// Options given that only videos take, and those only photos take (flag spelling).
    var videoOnlyOptions: [String] {
        var o: [String] = []
        if crf != nil { o.append("--crf") }
        if bitrate != nil { o.append("--bitrate") }
        if qp != nil { o.append("--qp") }
        if segment != nil { o.append("--segment") }
        if eyeQuality != nil { o.append("--eye-quality") }
        if maxBitrate != nil { o.append("--max-bitrate") }
        if vbvBufsize != nil { o.append("--vbv-bufsize") }
        if applePreset != nil { o.append("--apple-preset") }
        if encodePath != nil { o.append("--encode-path") }
        if preset != nil { o.append("--preset") }
        if keyint != nil { o.append("--keyint") }
        if bframes != nil { o.append("--bframes") }
        if audio != nil { o.append("--audio") }
        if audioFrom != nil { o.append("--audio-from") }
        if noAudio { o.append("--no-audio") }
        if hero != nil { o.append("--hero") }
        if fps != nil { o.append("--fps") }
        if decoder != nil { o.append("--decoder") }
        if threadsPerEye != nil { o.append("--threads-per-eye") }
        if spsForm != nil { o.append("--sps-form") }
        if mp4 { o.append("--mp4") }
        if faststart { o.append("--faststart") }
        if keepStreams != nil { o.append("--keep-streams") }
        return o
    }
    var photoOnlyOptions: [String] {
        var o: [String] = []
        if quality != nil { o.append("--quality") }
        if bitDepth != nil { o.append("--bit-depth") }
        if form != nil { o.append("--form") }
        if half { o.append("--half") }
        if force { o.append("--force") }
        return o
    }

    func validate() throws {
        if input == nil && (left == nil || right == nil) { throw ValidationError("give INPUT, or both --left and --right") }
        if input != nil && (left != nil || right != nil) { throw ValidationError("give INPUT or --left/--right, not both") }
        if isVideo {
            if (align || autoDisparity) && input == "-" { throw ValidationError("--align and --auto-disparity read the input twice (estimate, then convert): give a file, not standard input") }
            if (align || autoDisparity) && segment != nil { throw ValidationError("--align and --auto-disparity decide one crop and one disparity for the whole clip: convert it whole, not with --segment") }
            if autoDisparity && values.disparity != nil { throw ValidationError("give --disparity or --auto-disparity, not both") }
            let photoOnly = photoOnlyOptions
            if !photoOnly.isEmpty {
                throw ValidationError("\(photoOnly.joined(separator: ", ")) apply to photos only" + (half ? "; for a video with squeezed eyes use --layout half-sbs or half-tb" : "")
                                      + (bitDepth != nil ? "; spatial video (Multiview Main) is always 8-bit" : "") + (quality != nil ? "; video quality is --crf or --bitrate" : ""))
            }
            if layout != "auto" && StereoVideoLayout(rawValue: layout) == nil { throw ValidationError("--layout must be sbs, tb, half-sbs or half-tb for a video") }
            if [crf != nil, bitrate != nil, qp != nil].filter({ $0 }).count > 1 { throw ValidationError("give one of --crf, --bitrate and --qp") }
            if let q = qp, !(0...51).contains(q) { throw ValidationError("--qp must be between 0 and 51") }
            if let s = segment, VideoSegment.parse(s) == nil { throw ValidationError("--segment must be K/N with 1 ≤ K ≤ N, e.g. 2/4") }
            if segment != nil && input == "-" { throw ValidationError("--segment needs an input file, not standard input") }
            if let c = crf, !(0...51).contains(c) { throw ValidationError("--crf must be between 0 and 51") }
            if let b = bitrate, !(2...480_000).contains(b) { throw ValidationError("--bitrate must be 2…480000 (kbit/s, both eyes together)") }
            if let q = eyeQuality, EyeQuality(argument: q) == nil { throw ValidationError("--eye-quality must be auto, asymmetric, asymmetric:N (N 0…\(NumberText.fixed(EyeQuality.maximumCRFOffset, places: 0)) CRF steps) or equal") }
            if let m = maxBitrate, m <= 0 { throw ValidationError("--max-bitrate must be positive (kbit/s)") }
            if let b = vbvBufsize, b <= 0 { throw ValidationError("--vbv-bufsize must be positive (kbit)") }
            if vbvBufsize != nil && maxBitrate == nil && applePreset == nil { throw ValidationError("--vbv-bufsize needs --max-bitrate") }
            if let b = bitrate, let m = maxBitrate, b > m { throw ValidationError("--bitrate \(b) is above --max-bitrate \(m)") }
            if let e = encodePath, EncodePath(rawValue: e) == nil { throw ValidationError("--encode-path must be one of \(EncodePath.allCases.map(\.rawValue).joined(separator: ", "))") }
            if let a = applePreset, PublishingPreset(rawValue: a) == nil { throw ValidationError("--apple-preset must be one of \(PublishingPreset.allCases.map(\.rawValue).joined(separator: ", "))") }
            if let a = audio, !["copy", "none"].contains(a) { throw ValidationError("--audio must be copy or none") }
            if let h = hero, !["left", "right"].contains(h) { throw ValidationError("--hero must be left or right") }
            if let d = decoder, VideoConversionOptions.Decoder(rawValue: d) == nil { throw ValidationError("--decoder must be auto or ffmpeg") }
            if let f = fps, FrameRate.parse(f) == nil { throw ValidationError("--fps must be a positive number or NUM/DEN, e.g. 30 or 30000/1001") }
            if let k = keyint, k < 1 { throw ValidationError("--keyint must be at least 1") }
            if let b = bframes, !(0...16).contains(b) { throw ValidationError("--bframes must be 0…16") }
            if let f = spsForm, LayerSPSForm(rawValue: f) == nil { throw ValidationError("--sps-form must be multilayer or full") }
            if let t = threadsPerEye, !(1...64).contains(t) { throw ValidationError("--threads-per-eye must be 1…64") }
            if let p = preset, !SplitPhoto.presets.contains(p) { throw ValidationError("--preset must be one of \(SplitPhoto.presets.joined(separator: ", "))") }
            try OutputKind.check(output, expected: mp4 ? .mp4 : .movie, flag: mp4 ? "--mp4" : nil)
            return
        }
        let videoOnly = videoOnlyOptions
        if !videoOnly.isEmpty { throw ValidationError("\(videoOnly.joined(separator: ", ")) apply to videos only; \(input ?? left ?? "the input") is converted as a photo") }
        if StereoLayout(rawValue: layout) == nil {
            throw ValidationError("--layout must be sbs, tb or auto for a photo" + (layout.hasPrefix("half-") ? " (squeezed eyes: --half with --layout sbs or tb)" : ""))
        }
        if let d = bitDepth, d != 8 && d != 10 { throw ValidationError("--bit-depth must be 8 or 10") }
        if let q = quality, !(0...100).contains(q) { throw ValidationError("--quality must be between 0 and 100") }
        if let f = form, CameraPropertyForm(rawValue: f) == nil { throw ValidationError("--form must be one of \(CameraPropertyForm.allCases.map(\.rawValue).joined(separator: ", "))") }
        try OutputKind.check(output, expected: .heic, flag: nil)
        if autoDisparity && values.disparity != nil { throw ValidationError("give --disparity or --auto-disparity, not both") }
    }


    func run() throws {
        try Exit.checkOutputs("spatial-media convert", outputs: [("output", output), ("--keep-streams left stream", keepStreams.map { $0 + "-left.hevc" }), ("--keep-streams right stream", keepStreams.map { $0 + "-right.hevc" })],
                              inputs: [("input", input), ("--left input", left), ("--right input", right), ("--audio-from input", audioFrom)])
        if isVideo { try runVideo(); return }
        var o = PhotoConversionOptions()
        o.layout = StereoLayout(rawValue: layout) ?? .auto
        o.halfResolution = half
        o.swapEyes = swapEyes
        o.stereo = try values.parameters("convert")
        o.quality = quality ?? PhotoEncoding.defaultQuality
        o.bitDepth = bitDepth ?? 8
        o.form = form.flatMap { CameraPropertyForm(rawValue: $0) } ?? .apple
        o.force = force
        if let e = perform(o) {
            throw failure("spatial-media convert", file: input ?? left ?? "", e, outputs: [output])
        }
    }

    func perform(_ o: PhotoConversionOptions) -> ParseError? {
        do throws(ParseError) {
            var pair: StereoPair
            if let input { pair = try StereoImages.load(input, packing: o.packing) }
            else { pair = try StereoImages.load(left: left ?? "", right: right ?? "", limits: o.limits) }
            var o = o
            if o.swapEyes { swap(&pair.left, &pair.right); pair.notes.append("eyes swapped (--swap-eyes)"); o.swapEyes = false }
            try GeometryCheck.prepare(&pair, options: &o, align: align, autoDisparity: autoDisparity, json: json)
            let report = try PhotoConverter.convert(pair, options: o, to: output)
            if json {
                let j = JSON.object([
                    ("output", .string(output)), ("source", .string(pair.sourceDescription)),
                    ("width", .uint(UInt64(report.width))), ("height", .uint(UInt64(report.height))),
                    ("baseline_mm", .double(report.baselineMM)), ("baseline_source", .string(report.baselineSource)),
                    ("hfov_degrees", .double(report.hfovDegrees)), ("hfov_source", .string(report.hfovSource)),
                    ("disparity_percent", .double(report.disparityPercent)), ("disparity_source", .string(report.disparitySource)),
                    ("quality", .uint(UInt64(report.quality))), ("bytes", .uint(UInt64(report.bytes))),
                    ("notes", .array(report.notes.map { .string($0) })),
                ])
                print(j.serialized(pretty: true))
            } else {
                print("\(output): spatial photo from \(pair.sourceDescription), \(report.bytes) bytes")
                for l in report.lines { print("  \(l)") }
            }
            return nil
        } catch {
            return error
        }
    }
}

extension ConvertPhoto {
    func runVideo() throws {
        var o = VideoConversionOptions()
        o.layout = StereoVideoLayout(rawValue: layout) ?? .sbs
        o.swapEyes = swapEyes
        if let b = bitrate { o.rateControl = .bitrate(kbps: b) } else if let q = qp { o.rateControl = .qp(q) } else { o.rateControl = .crf(crf ?? VideoConversionOptions.defaultCRF) }
        o.eyeQuality = eyeQuality.flatMap { EyeQuality(argument: $0) } ?? .standard
        o.maxBitrateKbps = maxBitrate
        o.vbvBufferKbit = vbvBufsize
        o.publishing = applePreset.flatMap { PublishingPreset(rawValue: $0) }
        o.encodePath = encodePath.flatMap { EncodePath(rawValue: $0) } ?? .auto
        o.segment = segment.flatMap(VideoSegment.parse)
        o.preset = preset ?? "medium"
        o.keyint = keyint
        o.bframes = bframes ?? 3
        o.stereo = try values.parameters("convert", hero: hero == "right" ? .right : .left)
        o.audio = audio == "none" || noAudio ? .none : .copy
        o.audioFrom = audioFrom
        o.fps = fps.flatMap(FrameRate.parse)
        o.decoder = decoder.flatMap { VideoConversionOptions.Decoder(rawValue: $0) } ?? .auto
        o.poolThreadsPerEye = threadsPerEye
        o.container = mp4 ? .mp4 : .mov
        o.faststart = faststart
        o.keepStreamsPrefix = keepStreams
        o.layerSPSForm = spsForm.flatMap { LayerSPSForm(rawValue: $0) } ?? .multilayer
        o.align = align
        o.autoDisparity = autoDisparity
        if !align && !autoDisparity { o.geometryCheck = GeometryCheck.video(o) }
        let videoInput: VideoInput = input.map { .packed($0) } ?? .pair(left: left ?? "", right: right ?? "")
        let cancel = ConversionCancellation()
        let line = ProgressLine("converting")
        let result: Result<VideoConversionReport, ParseError>
        do throws(ParseError) {
            let r = try VideoConverter.convert(videoInput, to: output, options: o, cancellation: cancel) { p in
                line.frames(p.frames, of: p.totalFrames, fps: p.framesPerSecond, eta: p.etaSeconds, label: p.estimating ? "estimating geometry (--align)" : nil)
            }
            result = .success(r)
        } catch { result = .failure(error) }
        line.end()
        switch result {
        case .success(let r):
            if json {
                let j = JSON.object([
                    ("output", .string(r.output)), ("source", .string(r.source)), ("frames", .uint(UInt64(r.frames))),
                    ("eye_width", .uint(UInt64(r.eyeWidth))), ("eye_height", .uint(UInt64(r.eyeHeight))),
                    ("fps", .string("\(r.fpsNum)/\(r.fpsDen)")), ("bytes", .uint(r.bytes)),
                    ("layer0_bytes", .uint(UInt64(r.layer0Bytes))), ("layer1_bytes", .uint(UInt64(r.layer1Bytes))),
                    ("baseline_mm", .double(r.baselineMM)), ("baseline_source", .string(r.baselineSource)),
                    ("hfov_degrees", .double(r.hfovDegrees)), ("hfov_source", .string(r.hfovSource)),
                    ("disparity_percent", .double(r.disparityPercent)), ("disparity_source", .string(r.disparitySource)),
                    ("hero", .string(r.heroIsLeft ? "left" : "right")), ("audio", .array(r.audioTracks.map { .string($0) })),
                    ("encoder", .string(r.encoder)), ("encode_path", .string(r.encodePath)), ("seconds", .double(r.seconds)), ("own_cpu_seconds", .double(r.ownCPUSeconds)),
                    ("process_cpu_seconds", .double(r.processCPUSeconds)), ("peak_rss_bytes", .uint(r.peakRSSBytes)),
                    ("notes", .array(r.notes.map { .string($0) })),
                    ("alignment", r.alignment.map { a in JSON.object([
                        ("shots", .uint(UInt64(a.shots.count))), ("warped_shots", .uint(UInt64(a.shots.filter(\.warped).count))),
                        ("crop_width", .uint(UInt64(a.crop.width))), ("crop_height", .uint(UInt64(a.crop.height))),
                        ("before_median_abs_dy", a.beforeMedian.map { .double($0) } ?? .null), ("before_p95_abs_dy", a.beforeP95.map { .double($0) } ?? .null),
                        ("after_median_abs_dy", a.afterMedian.map { .double($0) } ?? .null), ("after_p95_abs_dy", a.afterP95.map { .double($0) } ?? .null),
                        ("lines", .array(a.lines.map { .string($0) })),
                    ]) } ?? .null),
                    ("geometry_check", r.geometryCheck.map { g in JSON.object([
                        ("frames", .array(g.frames.map { .uint(UInt64($0)) })),
                        ("faults", .array(g.warnings.map { w in JSON.object([
                            ("rule", .string(w.warning.ruleID)), ("severity", .string(w.warning.severity)), ("message", .string(w.warning.message)),
                            ("frames", .array(w.frames.map { .uint(UInt64($0)) })), ("fixes", .array(w.warning.fixes.map { .string($0) })),
                        ]) })),
                        ("fixes", .array(g.fixes.map { .string($0) })), ("cpu_seconds", .double(g.cpuSeconds)),
                    ]) } ?? .null),
                ])
                print(j.serialized(pretty: true))
            } else {
                print("\(output): spatial video, \(r.lines[0])")
                for l in r.lines.dropFirst() { print("  \(l)") }
            }
        case .failure(let e):
            throw failure("spatial-media convert", file: input ?? left ?? "", e, outputs: [output, keepStreams.map { $0 + "-left.hevc" }, keepStreams.map { $0 + "-right.hevc" }])
        }
    }
}

/// `spatial-media split`: a spatial photo → two images or one side-by-side image.
struct SplitPhoto: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Split a spatial photo or spatial video into its eyes: one file per eye, or one side-by-side / over-under file.",
        discussion: """
        Photos: .png, .jpg or .heic by extension; PNG keeps 10-bit sources as 16-bit; JPEG output is 8-bit (quality 95 \
        unless --quality). Videos (any MV-HEVC spatial video: Apple's, iPhone's, Vision Pro's, x265 multiview's, ours): \
        .mp4, .mov or .mkv re-encoded with x265 (--crf, --preset), audio carried over; --copy writes the coded \
        pictures untouched as raw .hevc streams (both eyes of an independent-layer file such as `spatial-media convert` \
        writes, or the base-layer eye of any MV-HEVC file). Inter-layer-predicted videos need FFmpeg 7.1 or newer \
        (`bash scripts/setup.sh` installs one).
        """
    )
    @Argument(help: "A spatial photo (stereo HEIC) or a spatial video (MV-HEVC .mov/.mp4).") var input: String
    @Option(help: "Left-eye output.") var left: String?
    @Option(help: "Right-eye output.") var right: String?
    @Option(help: "Side-by-side output (left eye on the left).") var sbs: String?
    @Option(help: "Over-under output (left eye on top; video only).") var ou: String?
    @Flag(help: "Video: half-width SBS / half-height OU (the frame keeps the size of one eye).") var half = false
    @Flag(help: "Video: no re-encoding, raw .hevc per eye (independent layers, or the base-layer eye only).") var copy = false
    @Option(help: "Video: x265 constant rate factor of the re-encode (0…51, default 18).") var crf: Double?
    @Option(help: "Video: x265 preset (ultrafast … placebo, default medium).") var preset: String?
    @Flag(help: "Video: leave the audio out.") var noAudio = false
    @Option(help: "Photo: JPEG (1…100) or HEIC (0…100) quality.") var quality: Int?

    func validate() throws {
        if left == nil && right == nil && sbs == nil && ou == nil { throw ValidationError("give --left/--right, --sbs or --ou") }
        if [sbs != nil, ou != nil, left != nil || right != nil].filter({ $0 }).count > 1 {
            throw ValidationError("give one of --sbs, --ou, or --left/--right")
        }
        if let c = crf, !(0...51).contains(c) { throw ValidationError("--crf must be between 0 and 51") }
        if let p = preset, !Self.presets.contains(p) { throw ValidationError("--preset must be one of \(Self.presets.joined(separator: ", "))") }
        if copy && (crf != nil || preset != nil) { throw ValidationError("--copy does not re-encode: leave out --crf and --preset") }
    }

    static let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]

    func run() throws {
        try Exit.checkOutputs("spatial-media split", outputs: [("--left output", left), ("--right output", right), ("--sbs output", sbs), ("--ou output", ou)], inputs: [("input", input)])
        if FileProbe.kind(of: input) == .movie { try runVideo(); return }
        let videoOnly = [ou != nil ? "--ou" : nil, half ? "--half" : nil, copy ? "--copy" : nil, crf != nil ? "--crf" : nil,
                         preset != nil ? "--preset" : nil, noAudio ? "--no-audio" : nil].compactMap { $0 }
        if !videoOnly.isEmpty {
            printErr("spatial-media split: \(input): \(videoOnly.joined(separator: ", ")) apply to videos only; this is a photo")
            throw ExitCode(Exit.usage)
        }
        let result: ParseError?
        do throws(ParseError) {
            try PhotoSplitter.split(input, left: left, right: right, sbs: sbs, quality: quality)
            result = nil
        } catch { result = error }
        if let e = result {
            throw failure("spatial-media split", file: input, e, outputs: [left, right, sbs])
        }
        for p in [left, right, sbs].compactMap({ $0 }) { print("wrote \(p)") }
    }

    func runVideo() throws {
        if quality != nil {
            printErr("spatial-media split: \(input): --quality applies to photos; for videos use --crf")
            throw ExitCode(Exit.usage)
        }
        let target: VideoSplitTarget = sbs.map { .sideBySide($0) } ?? ou.map { .overUnder($0) } ?? .eyes(left: left, right: right)
        var o = VideoSplitOptions(target: target)
        o.half = half
        o.copy = copy
        if let c = crf { o.crf = c }
        if let p = preset { o.preset = p }
        o.audio = !noAudio
        let line = ProgressLine("split")
        let result: Result<VideoSplitReport, ParseError>
        do throws(ParseError) {
            result = .success(try VideoSplitter.split(input, options: o) { p in line.frames(p.frames, of: p.totalFrames, fps: p.framesPerSecond, eta: p.etaSeconds) })
        } catch { result = .failure(error) }
        line.end()
        switch result {
        case .success(let r):
            for l in r.lines { print(l) }
        case .failure(let e):
            throw failure("spatial-media split", file: input, e, outputs: [left, right, sbs, ou])
        }
    }
}
