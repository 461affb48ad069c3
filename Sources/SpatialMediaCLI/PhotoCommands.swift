import ArgumentParser
import BinaryIO
import Codecs
import Dispatch
import HEVC
import ImageFormats
import MediaDecode
import SpatialConvert
import SpatialMedia
import SpatialOperations
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `spatial-media convert`: side-by-side / top-bottom images, MPO files and left/right pairs → spatial photo;
/// SBS / top-bottom / two-file 3D video (Y4M, MP4/MOV, anything ffmpeg reads) → spatial video (MV-HEVC).
struct ConvertPhoto: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract:
            "Convert a stereo image to a spatial photo (stereo HEIC), or a 3D video to a spatial video (MV-HEVC .mov).",
        discussion: """
            Photos: SBS/TB JPEG, PNG or HEIC, an MPO file, or --left/--right image files → .heic. \
            Defaults, printed with every conversion so a guess is never mistaken for a measurement: \
            baseline = MPO BaselineLength when present, else 64 mm; horizontal field of view = from EXIF \
            (FocalLengthIn35mmFilm, or FocalLength with FocalPlaneXResolution) when present, else 60°; \
            disparity adjustment 0 %; layout auto = side-by-side when the image is at least as wide as tall; \
            quality 80 (x265 CRF 16). An odd SBS width drops the middle column. EXIF of the source is kept.

            Videos (INPUT .y4m, "-" for Y4M on standard input, .mp4/.mov/.mkv/…, or --left/--right video files) → \
            .mov (or .mp4 with --mp4): both eyes encoded at once by x265 with identical fixed GOPs (8-bit 4:2:0, \
            CRF 23, preset medium, IDR every 2 s, 3 B-frames unless told), assembled as MV-HEVC. Every audio track comes \
            along with its language: copied when Apple players play it (AAC, ALAC, AC-3, E-AC-3, PCM), else transcoded \
            to AAC; an input without audio gets a silent AAC track (--no-audio: none); subtitles, chapters and \
            attachments are dropped, with a note. Defaults: layout as the input states its packing, else measured (frames sampled across it, halves measured side by side and top-bottom; refused unless exactly one way is a stereo pair: a 2D video is refused), baseline 64 mm, field of view 60°, disparity 0 % \
            (printed as "default, not measured"). The source's colour (range, primaries, transfer, matrix, HDR mastering \
            display and content light level) is kept; 10-bit input gives 10-bit layers (--bit-depth 8: rounded to \
            8-bit Multiview Main); 4:2:2/4:4:4 Y4M is refused (use --decoder ffmpeg, which converts). Inputs other than Y4M \
            and HEVC MP4/MOV, and audio, need FFmpeg (SPATIAL_MEDIA_FFMPEG, the tools directory of scripts/setup.sh, \
            or PATH); rotation and sample aspect ratio are applied, a variable frame rate is made constant (note). \
            --align (videos): the clip is read twice; shots are found from the decoded frames, a few frames of each \
            are measured, and one warp per shot is applied to the non-hero eye, with one crop of both eyes for the \
            whole clip (field of view updated); a shot that cannot be measured reliably is left unwarped and that is \
            printed; --auto-disparity writes one disparity adjustment for the file. Not with standard input or --segment. \
            Spheres (VR180/360): a frame-packed 180°/360° stereo movie (Google spherical v1/v2, APMP, or untagged with \
            --projection hequ|equi) is cut per eye as its metadata says (layout, eye order) and written as MV-HEVC APMP \
            (vexu/proj 'hequ' or 'equi', no hfov; baseline and disparity only when given); a monoscopic or cropped sphere \
            is refused with the reason. The lossless option keeps it frame-packed: `spatial-media edit IN -o OUT --to-apmp`. \
            The way back: `spatial-media split VR.mov --sbs|--ou OUT.mp4` keeps the projection (APMP + Google st3d/sv3d). \
            Raw MV-HEVC: a two-view stream (.hevc/.265, as a multiview x265 writes it) is muxed as it is, without \
            re-encoding: layer 0's eye from its SEI 176/180 (else left; --swap-eyes flips it), the frame rate --fps, \
            else its VUI/VPS timing (refused without either); SHVC and other multilayer streams are refused. \
            Exit status 2 when an input cannot be read or used (no video stream, a layout its size cannot have, audio \
            that can be neither copied nor transcoded, FFmpeg missing) or the written file failed its own check, 64 for \
            a usage error, 130 when interrupted (the README's exit-code table). \
            Ctrl-C or an error leaves nothing at OUT.
            """
    )
    @Argument(help: "A stereo image holding both eyes, an MPO file, or a 3D video (\"-\" = Y4M on standard input).")
    var input: String?
    @Option(name: .shortAndLong, help: "Output .heic (photo) or .mov/.mp4 (video) file.") var output: String
    @Option(help: "Left-eye image or video (with --right, instead of INPUT).") var left: String?
    @Option(help: "Right-eye image or video.") var right: String?
    @OptionGroup var values: StereoValueOptions
    @Option(
        help:
            "Layout of INPUT: sbs, tb or auto (photos); sbs, tb, half-sbs or half-tb (videos) (default \(ConvertRequest.defaultText("layout"))). The halves of the picture (of frames sampled across a video) are measured side by side and top-bottom; a 2D input (or one that measures both ways) is refused."
    ) var layout: String?
    @Flag(
        help:
            "Photo: each eye is squeezed to half width (SBS) or half height (TB); stretch it back (videos: --layout half-sbs or half-tb)."
    ) var half = false
    @Flag(help: "The left half/top/first image is the right eye.") var swapEyes = false
    @Option(help: "Photo: HEVC quality 0…100 (default \(ConvertRequest.defaultText("quality"))).") var quality: Int?
    @Option(
        help:
            "Photo and video: coded bit depth, 8 or 10 (default \(ConvertRequest.defaultText("bit_depth"))). Video: 8 rounds a 10-bit source to 8-bit Multiview Main; colour tags are kept."
    ) var bitDepth: Int?
    @Option(
        help:
            "Photo: HDR gain map for the left input (a HEIC, e.g. from split --aux, kept byte-exact; or PNG/JPEG, encoded); replaces the input's own."
    ) var leftGainMap: String?
    @Option(help: "Photo: HDR gain map for the right input.") var rightGainMap: String?
    @Option(help: "Photo: depth map for the left input (HEIC kept byte-exact, or PNG/JPEG).") var leftDepth: String?
    @Option(help: "Photo: depth map for the right input.") var rightDepth: String?
    @Option(
        help:
            "Photo: camera property form, apple (uuid boxes), standard (cmin/cmex) or both (default \(ConvertRequest.defaultText("form")))."
    ) var form: String?
    @Flag(
        help:
            "Rectify one eye onto the other (vertical offset, roll, focal scale, keystone; one warp), crop both to the common area around the centre; prints before/after figures. Photos: the right eye. Videos: the non-hero eye, one warp per shot (estimated on sampled frames), one crop for the whole clip."
    ) var align = false
    @Flag(
        help:
            "Set the disparity adjustment from the measured disparity so the nearest content sits just behind the window (videos: one value for the clip)."
    ) var autoDisparity = false
    @Flag(help: "Print the report as JSON.") var json = false
    // Video options.
    @Option(
        help:
            "Video: x265 constant rate factor of the hero eye, 0…51 (default \(ConvertRequest.defaultText("crf"))); the other eye follows --eye-quality."
    )
    var crf: Double?
    @Option(
        help:
            "Video: average bitrate of both eyes together in kbit/s (instead of --crf), split between the eyes by --eye-quality."
    ) var bitrate: Int?
    @Option(
        help:
            "Video: auto (both eyes alike with inter-layer prediction when a multiview x265 is present, else asymmetric), asymmetric (the non-hero eye 6 CRF steps coarser, never above CRF 28; two single-layer encodes), asymmetric:N (N steps, 0…6), or equal (default \(ConvertRequest.defaultText("eye_quality")))."
    ) var eyeQuality: String?
    @Option(help: "Video: VBV max bitrate of both eyes together, kbit/s (kept within the HEVC level of the eye size).")
    var maxBitrate: Int?
    @Option(
        help: "Video: VBV buffer of both eyes together, kbit (default \(ConvertRequest.defaultText("vbv_bufsize"))).")
    var vbvBufsize: Int?
    @Option(help: "Video: publishing limits to apply: vision-pro (at most 4320×4320 per eye, peak 150 Mbit/s).")
    var applePreset: String?
    @Option(
        help:
            "Video: which encoder makes the layers: auto (a multiview libx265 when one is found, see SPATIAL_MEDIA_X265), assembled (two single-layer encodes), multiview (fail without one) (default \(ConvertRequest.defaultText("encode_path")))."
    ) var encodePath: String?
    @Option(
        help:
            "Video: constant quantizer per eye, 0…51 (instead of --crf; segments then join byte-identical to one conversion)."
    ) var qp: Int?
    @Option(
        help: "Video: encode only segment K of N (whole GOPs, no audio) to a segment file for `spatial-media concat`.")
    var segment: String?
    @Option(help: "Video: x265 preset (ultrafast … placebo; default \(ConvertRequest.defaultText("preset"))).")
    var preset: String?
    @Option(help: "Video: IDR interval in frames (default \(ConvertRequest.defaultText("keyint"))).") var keyint: Int?
    @Option(help: "Video: B-frames in the fixed pattern (default \(ConvertRequest.defaultText("bframes"))).")
    var bframes: Int?
    @Flag(
        help: ArgumentHelp(
            "Video: tone-map an HDR (PQ or HLG) source to BT.709 SDR through FFmpeg (zscale, "
                + "tonemap) and tag it BT.709; 8-bit unless --bit-depth 10 (otherwise HDR is kept as recorded)."))
    var sdr =
        false
    @Option(
        help:
            "Video: copy the input's audio tracks (copy) or drop them (none) (default \(ConvertRequest.defaultText("audio")))."
    ) var audio: String?
    @Option(help: "Video: take the audio tracks from this MP4/MOV instead.") var audioFrom: String?
    @Option(
        help:
            "Video: hero eye, also the base layer 2D players show: left or right (default \(ConvertRequest.defaultText("hero_eye")))."
    ) var hero: String?
    @Flag(help: "Video: no audio track at all (otherwise the input's audio, or a silent track).") var noAudio = false
    @Option(help: "Video: frame rate (e.g. 30, 29.97, 30000/1001), overriding the input's.") var fps: String?
    @Option(
        help:
            "Video: input decoder: auto (Y4M direct, HEVC MP4/MOV by libde265, others ffmpeg) or ffmpeg (default \(ConvertRequest.defaultText("decoder")))."
    )
    var decoder: String?
    @Option(
        help: "Video: x265 worker threads per eye (--pools; default \(ConvertRequest.defaultText("threads_per_eye"))).")
    var threadsPerEye: Int?
    @Option(
        help:
            "Video: layer-1 SPS form: multilayer (Apple's) or full (lossless split) (default \(ConvertRequest.defaultText("layer_sps")))."
    ) var spsForm: String?
    @Flag(help: "Video: write an MP4 (ftyp mp42) instead of QuickTime.") var mp4 = false
    @Flag(help: "Video: put moov before mdat.") var faststart = false
    @Option(help: "Video (debug): also write each eye's single-layer HEVC as PREFIX-left.hevc / PREFIX-right.hevc.")
    var keepStreams: String?
    @Option(
        help:
            "Video: the sphere an untagged frame-packed input is, hequ (180°) or equi (360°); tagged inputs (Google spherical v1/v2, APMP) are read from their metadata. Written as MV-HEVC APMP (vexu/proj, no hfov); the lossless option is `edit --to-apmp`."
    ) var projection: String?

    @Flag(
        help:
            "Refuse to write when the source shows a geometry fault (otherwise a warning naming the option that fixes it)."
    ) var strict = false
    @Flag(
        help: ArgumentHelp(
            "Go on where the input's evidence says stop: a frame-packed input in which no stereo pair "
                + "is measured (a photo: the layout given is vouched for; a video: the layout given, else side by side); a "
                + "damaged or truncated input (what was read is converted, and the report says what was missing)."))
    var force = false

    /// The request these flags make: a translation, nothing more (defaults, routing and checks are the library's,
    /// ``ConvertPlan``).
    func request() throws(ParseError) -> ConvertRequest {
        var r = ConvertRequest(input: input, left: left, right: right, output: output)
        r.layout = try ConvertRequest.layout(layout, .flag)
        r.halfResolution = half ? true : nil
        r.swapEyes = swapEyes ? true : nil
        r.values = values.inputs
        r.align = align ? true : nil
        r.autoDisparity = autoDisparity ? true : nil
        r.strict = strict ? true : nil
        r.force = force ? true : nil
        r.quality = quality; r.bitDepth = bitDepth; r.form = try ConvertRequest.choice("form", form, .flag)
        r.leftGainMap = leftGainMap; r.rightGainMap = rightGainMap; r.leftDepth = leftDepth; r.rightDepth = rightDepth
        r.crf = crf; r.bitrate = bitrate; r.eyeQuality = try ConvertRequest.choice("eye_quality", eyeQuality, .flag)
        r.maxBitrate = maxBitrate; r.vbvBufsize = vbvBufsize
        r.applePreset = try ConvertRequest.choice("apple_preset", applePreset, .flag)
        r.encodePath = try ConvertRequest.choice("encode_path", encodePath, .flag); r.qp = qp
        r.segment = try ConvertRequest.choice("segment", segment, .flag)
        r.preset = try ConvertRequest.choice("preset", preset, .flag)
        r.keyint = keyint; r.bframes = bframes; r.audio = try ConvertRequest.choice("audio", audio, .flag)
        r.audioFrom = audioFrom; r.heroEye = try ConvertRequest.choice("hero_eye", hero, .flag)
        r.noAudio = noAudio ? true : nil
        r.sdr = sdr ? true : nil
        r.frameRate = fps; r.decoder = try ConvertRequest.choice("decoder", decoder, .flag)
        r.threadsPerEye = threadsPerEye; r.layerSps = try ConvertRequest.choice("layer_sps", spsForm, .flag)
        r.container = mp4 ? .mp4 : nil
        r.faststart = faststart ? true : nil
        r.keepStreams = keepStreams
        r.projection = try ConvertRequest.choice("projection", projection, .flag)
        return r
    }

    func run() throws {
        let line = ProgressLine("converting")
        let events = OperationEvents(
            message: { printErr("spatial-media convert: \($0)") },
            progress: { p in
                if let frames = p.frames {
                    line.frames(
                        frames, of: p.totalFrames, fps: p.framesPerSecond ?? 0, eta: p.etaSeconds,
                        label: p.stage == "encode" ? nil : p.stage)
                }
            })
        try runAndPrint("spatial-media convert", file: input ?? left ?? "", outputs: [output], json: json) {
            () throws(ParseError) in
            defer { line.end() }
            return try Operations.convert(
                request(), spelling: .flag, events: events, cancellation: ConversionCancellation())
        }
    }
}

/// `spatial-media split`: any stereo photo or video → one file per eye, or one side-by-side / over-under file.
struct SplitPhoto: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract:
            "Split a stereo photo or video into its eyes: one file per eye, or one side-by-side / over-under file.",
        discussion: """
            Photos: .png, .jpg or .heic by extension; PNG keeps 10-bit sources as 16-bit; JPEG output is 8-bit (quality 95 \
            unless --quality). Videos (any MV-HEVC spatial video: Apple's, iPhone's, Vision Pro's, x265 multiview's, ours): \
            .mp4, .mov or .mkv re-encoded with x265 (--crf, --preset), audio carried over; --copy writes the coded \
            pictures untouched as raw .hevc streams (both eyes of an independent-layer file such as `spatial-media convert` \
            writes, or the base-layer eye of any MV-HEVC file). Inter-layer-predicted videos need FFmpeg 7.1 or newer \
            (`bash scripts/setup.sh` installs one). MPO and side-by-side / top-bottom JPEG, PNG or HEIC pictures (--layout): \
            a .jpg eye of an MPO is its JPEG copied, of a packed JPEG a lossless crop when the split line is on the JPEG's \
            MCU grid. Frame-packed movies (st3d, vexu/pack, Google spherical XML, Matroska StereoMode, or --layout) are \
            cropped and re-encoded per eye; a VR180/360 sphere's outputs keep its projection (Google st3d + sv3d; in \
            Matroska, its Projection).
            """
    )
    @Argument(help: "A spatial photo or video, an MPO, a side-by-side / top-bottom picture or a frame-packed movie.")
    var input: String
    @Option(help: "Left-eye output.") var left: String?
    @Option(help: "Right-eye output.") var right: String?
    @Option(help: "Side-by-side output (left eye on the left).") var sbs: String?
    @Option(help: "Over-under output (left eye on top).") var ou: String?
    @Flag(help: "Video: half-width SBS / half-height OU (the frame keeps the size of one eye).") var half = false
    @Flag(
        help:
            "Video: no re-encoding, raw .hevc per eye (independent layers, or the base-layer eye only); .hevc outputs imply it."
    ) var copy = false
    @Option(
        help: "Video: x265 constant rate factor of the re-encode (0…51, default \(SplitRequest.defaultText("crf"))).")
    var crf: Double?
    @Option(help: "Video: x265 preset (ultrafast … placebo, default \(SplitRequest.defaultText("preset"))).")
    var preset: String?
    @Flag(help: "Video: leave the audio out.") var noAudio = false
    @Option(help: "Photo: JPEG (1…100) or HEIC (0…100) quality.") var quality: Int?
    @Option(help: "How one picture holds the eyes: sbs, tb or auto (photos: by shape; movies: from their metadata).")
    var layout: String?
    @Option(
        help:
            "Photo: directory for each eye's auxiliary images (gain map, depth …) as EYE-KIND.heic (bytes unchanged) and EYE-KIND.png."
    ) var aux: String?
    @Flag(help: "Print the report as JSON (the report sm_split and Python's split return).") var json = false

    static let presets = X265Presets.names

    func run() throws {
        var r = SplitRequest(input: input)
        r.left = left; r.right = right; r.sbs = sbs; r.ou = ou
        r.half = half; r.copy = copy; r.crf = crf; r.noAudio = noAudio; r.quality = quality; r.aux = aux
        r.preset = try SplitRequest.choiceValue("preset", preset, .flag)
        r.layout = try SplitRequest.choiceValue("layout", layout, .flag)
        let line = ProgressLine("split")
        let events = OperationEvents(progress: { p in
            if let frames = p.frames {
                line.frames(frames, of: p.totalFrames, fps: p.framesPerSecond ?? 0, eta: p.etaSeconds)
            }
        })
        let outputs = [left, right, sbs, ou]
        try runAndPrint("spatial-media split", file: input, outputs: outputs, json: json) { () throws(ParseError) in
            defer { line.end() }
            return try Operations.split(r, spelling: .flag, events: events, cancellation: ConversionCancellation())
        }
    }
}
