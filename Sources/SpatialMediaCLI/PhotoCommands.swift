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
        baseline = MPO BaselineLength when present, else 64 mm; horizontal field of view = from EXIF \
        (FocalLengthIn35mmFilm, or FocalLength with FocalPlaneXResolution) when present, else 60°; \
        disparity adjustment 0 %; layout auto = side-by-side when the image is at least as wide as tall; \
        quality 80 (x265 CRF 16). An odd SBS width drops the middle column. EXIF of the source is kept.

        Videos (INPUT .y4m, "-" for Y4M on standard input, .mp4/.mov/.mkv/…, or --left/--right video files) → \
        .mov (or .mp4 with --mp4): both eyes encoded at once by x265 with identical fixed GOPs (8-bit 4:2:0, \
        CRF 23, preset medium, IDR every 2 s, 3 B-frames unless told), assembled as MV-HEVC, audio tracks copied \
        without re-encoding. Defaults: layout sbs, baseline 64 mm, field of view 60°, disparity 0 % (printed as \
        "default, not measured"). 10-bit input is converted to 8 bits (rounded) with a note; 4:2:2/4:4:4 Y4M is \
        refused (convert with ffmpeg -pix_fmt yuv420p, or use --decoder ffmpeg). Inputs other than Y4M and HEVC \
        MP4/MOV need ffmpeg (PATH, or SPATIAL_MEDIA_FFMPEG). Ctrl-C or an error leaves nothing at OUT.
        """
    )
    @Argument(help: "A stereo image holding both eyes, an MPO file, or a 3D video (\"-\" = Y4M on standard input).") var input: String?
    @Option(name: .shortAndLong, help: "Output .heic (photo) or .mov/.mp4 (video) file.") var output: String
    @Option(help: "Left-eye image or video (with --right, instead of INPUT).") var left: String?
    @Option(help: "Right-eye image or video.") var right: String?
    @Option(help: "Camera baseline in millimetres.") var baseline: Double?
    @Option(help: "Horizontal field of view in degrees.") var hfov: Double?
    @Option(help: "Horizontal disparity adjustment in percent of the image width (e.g. 2.93).") var disparity: Double?
    @Option(help: "Layout of INPUT: sbs, tb or auto (photos); sbs, tb, half-sbs or half-tb (videos, default sbs).") var layout: String = "auto"
    @Flag(help: "Each eye is squeezed to half width (SBS) or half height (TB); stretch it back.") var half = false
    @Flag(help: "The left half/top/first image is the right eye.") var swapEyes = false
    @Option(help: "HEVC quality 0…100 (default 80).") var quality: Int = PhotoEncoding.defaultQuality
    @Option(help: "Coded bit depth: 8 (default) or 10.") var bitDepth: Int = 8
    @Option(help: "Camera property form: apple (uuid boxes), standard (cmin/cmex) or both.") var form: String = "apple"
    @Flag(help: "Photos: rectify the right eye onto the left (vertical offset, roll, focal scale, keystone; one warp), crop both to the common area around the centre; prints before/after figures.") var align = false
    @Flag(help: "Photos: set the disparity adjustment from the measured disparity so the nearest content sits just behind the window.") var autoDisparity = false
    @Flag(help: "Print the report as JSON.") var json = false
    // Video options.
    @Option(help: "Video: x265 constant rate factor per eye, 0…51 (default 23).") var crf: Double?
    @Option(help: "Video: average bitrate per eye in kbit/s (instead of --crf).") var bitrate: Int?
    @Option(help: "Video: x265 preset (ultrafast … placebo, default medium).") var preset: String = "medium"
    @Option(help: "Video: IDR interval in frames (default 2 s of frames).") var keyint: Int?
    @Option(help: "Video: B-frames in the fixed pattern (default 3).") var bframes: Int = 3
    @Option(help: "Video: copy the input's audio tracks (copy, default) or drop them (none).") var audio: String = "copy"
    @Option(help: "Video: take the audio tracks from this MP4/MOV instead.") var audioFrom: String?
    @Option(help: "Video: hero eye, also the base layer 2D players show: left (default) or right.") var hero: String = "left"
    @Option(help: "Video: frame rate (e.g. 30, 29.97, 30000/1001), overriding the input's.") var fps: String?
    @Option(help: "Video: input decoder: auto (Y4M direct, HEVC MP4/MOV by libde265, others ffmpeg) or ffmpeg.") var decoder: String = "auto"
    @Option(help: "Video: x265 threads per eye (--pools; default 1: one encoder per core).") var threadsPerEye: Int?
    @Option(help: "Video: layer-1 SPS form: multilayer (Apple's, default) or full (lossless split).") var spsForm: String = "multilayer"
    @Flag(help: "Video: write an MP4 (ftyp mp42) instead of QuickTime.") var mp4 = false
    @Flag(help: "Video: put moov before mdat.") var faststart = false
    @Option(help: "Video (debug): also write each eye's single-layer HEVC as PREFIX-left.hevc / PREFIX-right.hevc.") var keepStreams: String?

    var isVideo: Bool {
        if let input { return VideoInputs.isVideo(input) }
        if let left, let right { return VideoInputs.isVideo(left) && VideoInputs.isVideo(right) }
        return false
    }

    func validate() throws {
        if input == nil && (left == nil || right == nil) { throw ValidationError("give INPUT, or both --left and --right") }
        if input != nil && (left != nil || right != nil) { throw ValidationError("give INPUT or --left/--right, not both") }
        if isVideo {
            if align || autoDisparity { throw ValidationError("--align and --auto-disparity are implemented for photos only so far; for a video, measure it with `spatial-media validate` and set --disparity") }
            if layout != "auto" && StereoVideoLayout(rawValue: layout) == nil { throw ValidationError("--layout must be sbs, tb, half-sbs or half-tb for a video") }
            if crf != nil && bitrate != nil { throw ValidationError("give --crf or --bitrate, not both") }
            if let c = crf, !(0...51).contains(c) { throw ValidationError("--crf must be between 0 and 51") }
            if let b = bitrate, b <= 0 { throw ValidationError("--bitrate must be positive (kbit/s)") }
            if !["copy", "none"].contains(audio) { throw ValidationError("--audio must be copy or none") }
            if !["left", "right"].contains(hero) { throw ValidationError("--hero must be left or right") }
            if VideoConversionOptions.Decoder(rawValue: decoder) == nil { throw ValidationError("--decoder must be auto or ffmpeg") }
            if let f = fps, FrameRate.parse(f) == nil { throw ValidationError("--fps must be a positive number or NUM/DEN, e.g. 30 or 30000/1001") }
            if let k = keyint, k < 1 { throw ValidationError("--keyint must be at least 1") }
            if !(0...16).contains(bframes) { throw ValidationError("--bframes must be 0…16") }
            if LayerSPSForm(rawValue: spsForm) == nil { throw ValidationError("--sps-form must be multilayer or full") }
            if let t = threadsPerEye, !(1...64).contains(t) { throw ValidationError("--threads-per-eye must be 1…64") }
            return
        }
        if StereoLayout(rawValue: layout) == nil { throw ValidationError("--layout must be sbs, tb or auto") }
        if autoDisparity && disparity != nil { throw ValidationError("give --disparity or --auto-disparity, not both") }
        if bitDepth != 8 && bitDepth != 10 { throw ValidationError("--bit-depth must be 8 or 10") }
        if !(0...100).contains(quality) { throw ValidationError("--quality must be between 0 and 100") }
        if CameraPropertyForm(rawValue: form) == nil { throw ValidationError("--form must be one of \(CameraPropertyForm.allCases.map(\.rawValue).joined(separator: ", "))") }
    }

    func run() throws {
        if isVideo { try runVideo(); return }
        var o = PhotoConversionOptions()
        o.layout = StereoLayout(rawValue: layout) ?? .auto
        o.halfResolution = half
        o.swapEyes = swapEyes
        o.baselineMM = baseline; o.hfovDegrees = hfov; o.disparityPercent = disparity
        o.quality = quality
        o.bitDepth = bitDepth
        o.form = CameraPropertyForm(rawValue: form) ?? .apple
        if let e = perform(o) {
            printErr(errorLine("spatial-media", file: input ?? left ?? "", e))
            throw ExitCode(Exit.unreadable)
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
        if let b = bitrate { o.rateControl = .bitrate(kbps: b) } else { o.rateControl = .crf(crf ?? VideoConversionOptions.defaultCRF) }
        o.preset = preset
        o.keyint = keyint
        o.bframes = bframes
        o.baselineMM = baseline; o.hfovDegrees = hfov; o.disparityPercent = disparity
        o.heroIsLeft = hero != "right"
        o.audio = audio == "none" ? .none : .copy
        o.audioFrom = audioFrom
        o.fps = fps.flatMap(FrameRate.parse)
        o.decoder = VideoConversionOptions.Decoder(rawValue: decoder) ?? .auto
        o.poolThreadsPerEye = threadsPerEye
        o.container = mp4 ? .mp4 : .mov
        o.faststart = faststart
        o.keepStreamsPrefix = keepStreams
        o.layerSPSForm = LayerSPSForm(rawValue: spsForm) ?? .multilayer
        let videoInput: VideoInput = input.map { .packed($0) } ?? .pair(left: left ?? "", right: right ?? "")
        let cancel = ConversionCancellation()
        let signals = InterruptHandler(cancel)
        defer { signals.restore() }
        let tty = isatty(2) != 0
        var shown = false
        let result: Result<VideoConversionReport, ParseError>
        do throws(ParseError) {
            let r = try VideoConverter.convert(videoInput, to: output, options: o, cancellation: cancel) { p in
                guard tty else { return }
                shown = true
                var line = "\r\u{1B}[Kframe \(p.frames)" + (p.totalFrames.map { "/\($0)" } ?? "") + ", \(Int(p.framesPerSecond.rounded())) fps"
                if let eta = p.etaSeconds { line += ", ETA \(Int(eta.rounded())) s" }
                StandardError.write(line)
            }
            result = .success(r)
        } catch { result = .failure(error) }
        if shown { StandardError.write("\r\u{1B}[K") }
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
                    ("encoder", .string(r.encoder)), ("seconds", .double(r.seconds)), ("own_cpu_seconds", .double(r.ownCPUSeconds)),
                    ("process_cpu_seconds", .double(r.processCPUSeconds)), ("peak_rss_bytes", .uint(r.peakRSSBytes)),
                    ("notes", .array(r.notes.map { .string($0) })),
                ])
                print(j.serialized(pretty: true))
            } else {
                print("\(output): spatial video, \(r.lines[0])")
                for l in r.lines.dropFirst() { print("  \(l)") }
            }
        case .failure(let e):
            printErr(errorLine("spatial-media convert", file: input ?? left ?? "", e))
            throw ExitCode(cancel.isCancelled ? 130 : (e.code == .io || e.code == .unsupported ? Exit.unreadable : Exit.problems))
        }
    }
}

/// Ctrl-C during a video conversion: the first SIGINT cancels cleanly (encoders stopped, helper processes
/// ended, nothing written at OUT); a second one exits at once.
final class InterruptHandler {
    let source: DispatchSourceSignal
    init(_ cancel: ConversionCancellation) {
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue.global())
        let term = DispatchSource.makeSignalSource(signal: SIGTERM, queue: DispatchQueue.global())
        let handler: @Sendable () -> Void = {
            if cancel.isCancelled { _exit(130) }
            StandardError.write("\nspatial-media: interrupted; stopping (nothing will be written)\n")
            cancel.cancel()
        }
        source.setEventHandler(handler: handler)
        term.setEventHandler(handler: handler)
        source.resume(); term.resume()
        extra = term
    }
    var extra: DispatchSourceSignal?
    func restore() {
        source.cancel(); extra?.cancel()
        signal(SIGINT, SIG_DFL); signal(SIGTERM, SIG_DFL)
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
            printErr(errorLine("spatial-media", file: input, e))
            throw ExitCode(Exit.unreadable)
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
            result = .success(try VideoSplitter.split(input, options: o) { p in line.frames(p.frames, of: p.totalFrames, elapsed: p.elapsedSeconds) })
        } catch { result = .failure(error) }
        line.end()
        switch result {
        case .success(let r):
            for l in r.lines { print(l) }
        case .failure(let e):
            printErr(errorLine("spatial-media split", file: input, e))
            throw ExitCode(e.code == .invalidArgument ? Exit.usage : (e.code == .io ? Exit.unreadable : Exit.unreadable))
        }
    }
}
