import BinaryIO
import Codecs
import HEVC
import ISOBMFF
import MediaDecode
import SpatialConvert
import SpatialMedia
import SystemSupport

/// The x265 preset names a conversion or split accepts (the one list; x265's own names).
public enum X265Presets {
    public static let names = X265Preset.allCases.map(\.rawValue)
}

/// What a conversion's input is, from its first bytes (``/MediaDecode/FileProbe``), never from the output's name.
public enum ConvertRoute: String, Sendable, Equatable {
    /// A stereo image, an MPO or two images → a spatial photo.
    case photo
    /// A frame-packed 3D video or two video files → a spatial video, encoded by x265.
    case video
    /// Two raw single-layer HEVC streams → a spatial video, assembled without re-encoding.
    case hevcPair = "hevc-pair"
    /// One raw two-layer MV-HEVC stream → a spatial video, muxed as it is without re-encoding.
    case mvhevcStream = "mv-hevc-stream"

    /// The route of `request`'s inputs: standard input is Y4M video; Y4M, movies, Matroska and raw HEVC are videos
    /// (two raw HEVC streams are assembled), HEIF/JPEG/PNG are images; a file the probe does not know (or cannot
    /// open) is a video when FFmpeg would read it by its name.
    public static func of(_ request: ConvertRequest) -> ConvertRoute {
        let paths = request.input.map { [$0] } ?? [request.left, request.right].compactMap { $0 }
        if paths == ["-"] { return .video }
        let kinds = paths.map { FileProbe.kind(of: $0) }
        if request.input == nil, kinds.count == 2, kinds.allSatisfy({ $0 == .annexB }) { return .hevcPair }
        // A stream with a second layer is never decoded as 2D (FFmpeg would read its base layer, one eye): it is muxed
        // as what it is, or refused naming what it is (SHVC, 3D-HEVC, …).
        if let p = request.input, kinds == [.annexB], ((try? VideoInputs.secondLayerId(p)) ?? nil) != nil {
            return .mvhevcStream
        }
        func isVideo(_ path: String, _ kind: FileProbe.Kind?) -> Bool {
            switch kind {
            case .y4m?, .matroska?, .movie?, .annexB?: return true
            case .heif?, .jpeg?, .png?: return false
            case .other?, nil: return VideoInputs.isVideo(path)
            }
        }
        return !paths.isEmpty && zip(paths, kinds).allSatisfy { isVideo($0, $1) } ? .video : .photo
    }
}

/// A conversion with every default filled and every value checked: the library options of exactly one route.
/// Made only by ``make(_:spelling:)``; run by ``Operations/convert(_:events:cancellation:)``.
public struct ConvertPlan: Sendable {
    public enum Job: Sendable {
        case photo(PhotoConversionOptions, align: Bool, autoDisparity: Bool)
        case video(VideoConversionOptions, VideoInput)
        case hevcPair(MVHEVCAssemblyOptions, SpatialVideoMuxOptions)
        /// `hero` nil: the base layer's eye.
        case mvhevcStream(SpatialVideoMuxOptions, swapEyes: Bool, hero: HeroEye?)
    }

    public var request: ConvertRequest
    public var route: ConvertRoute
    public var job: Job
    /// Refuse the write when the source shows a geometry fault (``ConvertRequest/strict``).
    public var strict: Bool
    /// Every file the job writes (the output first).
    public var outputs: [String]

    /// Plans `request`: inputs and outputs named, the route probed, the options that apply to that route checked
    /// (range, combination), the output's name checked against what is written, and every default filled from the
    /// library's own option values. A refused option is ``/BinaryIO/ParseError/Code/invalidOption`` with the option
    /// named as `spelling` says; missing inputs and a wrong output are ``/BinaryIO/ParseError/Code/invalidArgument``.
    public static func make(_ request: ConvertRequest, spelling: OptionSpelling) throws(ParseError) -> ConvertPlan {
        let r = request
        func refuse(_ m: String) -> ParseError { ParseError(.invalidArgument, m) }
        if r.input == nil && (r.left == nil || r.right == nil) {
            throw refuse("give INPUT, or both left and right inputs")
        }
        if r.input != nil && (r.left != nil || r.right != nil) {
            throw refuse("give INPUT or left/right inputs, not both")
        }
        let keep = r.keepStreams
        let outputs = [r.output] + (keep.map { [$0 + "-left.hevc", $0 + "-right.hevc"] } ?? [])
        try OutputPaths.check(
            outputs: [(role: "output", path: r.output)]
                + (keep.map {
                    [
                        (role: "keep-streams left stream", path: $0 + "-left.hevc"),
                        (role: "keep-streams right stream", path: $0 + "-right.hevc"),
                    ]
                } ?? []),
            inputs: [
                ("input", r.input), ("left input", r.left), ("right input", r.right), ("audio-from input", r.audioFrom),
            ].compactMap { i in i.1.map { (role: i.0, path: $0) } })
        let route = r.route ?? ConvertRoute.of(r)
        let stereo = try stereoParameters(r, photo: route == .photo, spelling: spelling)
        let job: Job
        switch route {
        case .photo: job = try photoJob(r, stereo: stereo, spelling: spelling)
        case .video: job = try videoJob(r, stereo: stereo, spelling: spelling)
        case .hevcPair: job = try hevcPairJob(r, stereo: stereo, spelling: spelling)
        case .mvhevcStream: job = try mvhevcStreamJob(r, stereo: stereo, spelling: spelling)
        }
        return ConvertPlan(request: r, route: route, job: job, strict: r.strict ?? false, outputs: outputs)
    }

    /// The names of the options given that `route` does not take.
    static func misplaced(_ r: ConvertRequest, photo: Bool, _ spelling: OptionSpelling) -> [String] {
        ConvertRequest.table.filter { $0.applies == (photo ? .video : .photo) && r.isGiven($0.key) }.map {
            $0.name(spelling)
        }
    }

    static func stereoParameters(_ r: ConvertRequest, photo: Bool, spelling n: OptionSpelling) throws(ParseError)
        -> StereoParameters
    {
        func name(_ k: String) -> String { ConvertRequest.table.first { $0.key == k }?.name(n) ?? k }
        if r.autoDisparity == true && (r.values.disparityPercent != nil || r.values.disparity != nil) {
            throw ParseError(
                .invalidOption, "give \(name("disparity_percent")) or \(name("auto_disparity")), not both")
        }
        return try r.values.parameters(photo: photo, name: name)
    }

    static func photoJob(_ r: ConvertRequest, stereo: StereoParameters, spelling n: OptionSpelling) throws(ParseError)
        -> Job
    {
        func refuse(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        func name(_ k: String) -> String { ConvertRequest.table.first { $0.key == k }?.name(n) ?? k }
        let videoOnly = misplaced(r, photo: true, n)
        if !videoOnly.isEmpty {
            throw refuse(
                "\(videoOnly.joined(separator: ", ")) apply to videos only; \(r.input ?? r.left ?? "the input") is converted as a photo"
            )
        }
        var o = PhotoConversionOptions()
        if let l = r.layout {
            guard let layout = StereoLayout(rawValue: l.rawValue) else {
                throw refuse(
                    "\(name("layout")) must be sbs, tb or auto for a photo"
                        + " (squeezed eyes: \(name("half_resolution")) with \(name("layout")) sbs or tb)")
            }
            o.layout = layout
        }
        if let d = r.bitDepth {
            guard d == 8 || d == 10 else { throw refuse("\(name("bit_depth")) must be 8 or 10") }
            o.bitDepth = d
        }
        if let q = r.quality {
            o.quality = try ConvertRequest.row("quality").checkRange(q, n)
        }
        if let f = r.form { o.form = f }
        if let t = r.threads {
            guard (0...256).contains(t) else { throw refuse("\(name("threads")) must be 0…256 (0 = all cores)") }
            o.threads = t
        }
        o.halfResolution = r.halfResolution ?? false
        o.swapEyes = r.swapEyes ?? false
        o.force = r.force ?? false
        o.stereo = stereo
        try OutputKind.check(r.output, .heic)
        return .photo(o, align: r.align ?? false, autoDisparity: r.autoDisparity ?? false)
    }

    static func hevcPairJob(_ r: ConvertRequest, stereo: StereoParameters, spelling n: OptionSpelling)
        throws(ParseError) -> Job
    {
        func refuse(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        func name(_ k: String) -> String { ConvertRequest.table.first { $0.key == k }?.name(n) ?? k }
        let encodeOnly = [
            "layout", "crf", "bitrate", "qp", "eye_quality", "max_bitrate", "vbv_bufsize", "apple_preset",
            "encode_path", "segment",
            "preset", "keyint", "bframes", "audio", "audio_from", "decoder", "threads_per_eye",
            "keep_streams", "projection", "sdr",
        ].filter { r.isGiven($0) }
        let photoOnly = misplaced(r, photo: false, n)
        if !photoOnly.isEmpty || !encodeOnly.isEmpty || r.align == true || r.autoDisparity == true {
            let names =
                photoOnly
                + (encodeOnly + (r.align == true ? ["align"] : [])
                + (r.autoDisparity == true ? ["auto_disparity"] : [])).map(name)
            throw refuse(
                "\(names.joined(separator: ", ")) do not apply to two raw HEVC streams, which are assembled without re-encoding"
            )
        }
        var a = MVHEVCAssemblyOptions()
        var m = SpatialVideoMuxOptions()
        var s = stereo
        if let h = r.heroEye { s.heroEye = try heroEye(h, name("hero_eye"), allowNone: true) }
        if let b = r.baseEye {
            guard b == .left || b == .right else { throw refuse("\(name("base_eye")) must be left or right") }
            a.baseIsLeft = b == .left
        } else {
            a.baseIsLeft = (s.heroEye ?? StereoParameters.defaults.heroEye) != .right
        }
        if let f = r.layerSps { a.layerSPSForm = f }
        m.stereo = s.filled()
        if let f = r.frameRate {
            guard let rate = FrameRate.parse(f), let num = UInt32(exactly: rate.num),
                let den = UInt32(exactly: rate.den)
            else {
                throw refuse("\(name("frame_rate")) must be a positive number or NUM/DEN, e.g. 30 or 30000/1001")
            }
            m.frameRateNum = num; m.frameRateDen = den
        }
        m.container = try container(r, name("container"))
        m.faststart = r.faststart ?? false
        try OutputKind.check(r.output, m.container == .mp4 ? .mp4 : .movie, mp4Option: name("container"))
        return .hevcPair(a, m)
    }

    /// One raw two-layer MV-HEVC stream, muxed as it is: only the stereo values, the hero and eye order, the frame
    /// rate (used when the stream states none, or to override it) and the container apply.
    static func mvhevcStreamJob(
        _ r: ConvertRequest, stereo: StereoParameters,
        spelling n: OptionSpelling
    ) throws(ParseError) -> Job {
        func name(_ k: String) -> String { ConvertRequest.table.first { $0.key == k }?.name(n) ?? k }
        let encodeOnly = [
            "layout", "crf", "bitrate", "qp", "eye_quality", "max_bitrate", "vbv_bufsize", "apple_preset",
            "encode_path", "segment", "preset", "keyint", "bframes", "audio", "audio_from", "decoder",
            "threads_per_eye", "keep_streams", "projection", "base_eye", "layer_sps",
            "sdr",
        ].filter { r.isGiven($0) }
        let photoOnly = misplaced(r, photo: false, n)
        if !photoOnly.isEmpty || !encodeOnly.isEmpty || r.align == true || r.autoDisparity == true {
            let measured = (r.align == true ? ["align"] : []) + (r.autoDisparity == true ? ["auto_disparity"] : [])
            let names = photoOnly + (encodeOnly + measured).map(name)
            throw ParseError(
                .invalidOption,
                "\(names.joined(separator: ", ")) do not apply to a raw "
                    + "two-layer MV-HEVC stream, which is muxed as it is without re-encoding")
        }
        var m = SpatialVideoMuxOptions()
        m.stereo = stereo.filled()
        let hero = try r.heroEye.map { (h: HeroEye) throws(ParseError) -> HeroEye in
            try heroEye(h, name("hero_eye"), allowNone: true)
        }
        if let f = r.frameRate {
            guard let rate = FrameRate.parse(f), let num = UInt32(exactly: rate.num),
                let den = UInt32(exactly: rate.den)
            else {
                throw ParseError(
                    .invalidOption,
                    "\(name("frame_rate")) must be a positive number or NUM/DEN, e.g. 30 or 30000/1001")
            }
            m.frameRateNum = num; m.frameRateDen = den
        }
        m.container = try container(r, name("container"))
        m.faststart = r.faststart ?? false
        try OutputKind.check(r.output, m.container == .mp4 ? .mp4 : .movie, mp4Option: name("container"))
        return .mvhevcStream(m, swapEyes: r.swapEyes ?? false, hero: hero)
    }

    static func heroEye(_ h: HeroEye, _ name: String, allowNone: Bool) throws(ParseError) -> HeroEye {
        switch h {
        case .left, .right: return h
        case .none where allowNone: return h
        default: throw ParseError(.invalidOption, "\(name) must be left or right\(allowNone ? " (or none)" : "")")
        }
    }

    static func container(_ r: ConvertRequest, _ name: String) throws(ParseError) -> SpatialVideoMuxOptions.Container {
        r.container ?? VideoConversionOptions().container
    }
}

extension ConvertPlan {
    /// The video route: the command line's checks, in its order, and the library's option values as the defaults.
    static func videoJob(_ r: ConvertRequest, stereo: StereoParameters, spelling n: OptionSpelling) throws(ParseError)
        -> Job
    {
        func refuse(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        func name(_ k: String) -> String { ConvertRequest.table.first { $0.key == k }?.name(n) ?? k }
        let align = r.align ?? false, autoDisparity = r.autoDisparity ?? false
        if (align || autoDisparity) && r.input == "-" {
            throw refuse(
                "\(name("align")) and \(name("auto_disparity")) read the input twice (estimate, then convert): give a file, not standard input"
            )
        }
        if (align || autoDisparity) && r.segment != nil {
            throw refuse(
                "\(name("align")) and \(name("auto_disparity")) decide one crop and one disparity for the whole clip: convert it whole, not with \(name("segment"))"
            )
        }
        let photoOnly = misplaced(r, photo: false, n)
        if !photoOnly.isEmpty {
            throw refuse(
                "\(photoOnly.joined(separator: ", ")) apply to photos only"
                    + (r.halfResolution == true
                        ? "; for a video with squeezed eyes use \(name("layout")) half-sbs or half-tb" : "")
                    + (r.quality != nil ? "; video quality is \(name("crf")) or \(name("bitrate"))" : ""))
        }
        if r.baseEye != nil {
            throw refuse(
                "\(name("base_eye")) applies to two raw HEVC streams; an encoded video's base layer is the hero eye (\(name("hero_eye")))"
            )
        }
        var o = VideoConversionOptions()
        if let d = r.bitDepth {
            guard d == 8 || d == 10 else { throw refuse("\(name("bit_depth")) must be 8 or 10") }
            o.bitDepth = d
        }
        o.sdr = r.sdr ?? false
        if let l = r.layout { o.layout = l }
        if [r.crf != nil, r.bitrate != nil, r.qp != nil].filter({ $0 }).count > 1 {
            throw refuse("give one of \(name("crf")), \(name("bitrate")) and \(name("qp"))")
        }
        if let q = r.qp {
            o.rateControl = .qp(try ConvertRequest.row("qp").checkRange(q, n))
        }
        if let seg = r.segment {
            if r.input == "-" { throw refuse("\(name("segment")) needs an input file, not standard input") }
            o.segment = seg
        }
        if let c = r.crf {
            o.rateControl = .crf(try ConvertRequest.row("crf").checkRange(c, n))
        }
        if let b = r.bitrate {
            guard (2...480_000).contains(b) else {
                throw refuse("\(name("bitrate")) must be 2…480000 (kbit/s, both eyes together)")
            }
            o.rateControl = .bitrate(kbps: b)
        }
        if let e = r.eyeQuality { o.eyeQuality = e }
        try rateLimits(r, into: &o, name)
        try encoderChoices(r, into: &o, name)
        var s = stereo
        if let h = r.heroEye { s.heroEye = try heroEye(h, name("hero_eye"), allowNone: false) }
        o.stereo = s
        o.swapEyes = r.swapEyes ?? false
        o.align = align
        o.autoDisparity = autoDisparity
        o.container = try container(r, name("container"))
        o.faststart = r.faststart ?? false
        o.keepStreamsPrefix = r.keepStreams
        try sphereRoute(r, into: &o, name)
        statedLayout(r, into: &o)
        try OutputKind.check(
            r.output, o.container == .mp4 ? .mp4 : .movie, mp4Option: n == .flag ? "--mp4" : "\"container\": \"mp4\"")
        if r.input == nil, let l = r.left, let rr = r.right {
            readBack(&o, left: l, right: rr, heroGiven: r.heroEye != nil)
        }
        let input: VideoInput = r.input.map { .packed($0) } ?? .pair(left: r.left ?? "", right: r.right ?? "")
        return .video(o, input)
    }

    /// The stereo values `split` wrote into two MP4/MOV eyes (``/MediaDecode/EyeStereoXMP``) fill the values not
    /// given (the left eye's, else the right's; a measured disparity, `auto_disparity`, wins over a read one); the
    /// report names where each came from, and says when an eye is given as the other or the eyes disagree.
    static func readBack(_ o: inout VideoConversionOptions, left: String, right: String, heroGiven: Bool) {
        let a = EyeStereoXMP.read(path: left, limits: o.limits), b = EyeStereoXMP.read(path: right, limits: o.limits)
        for (v, path, eye) in [(a, left, "left"), (b, right, "right")] {
            guard let v else { continue }
            if let e = v.eye, e != eye {
                o.inputNotes.append("\(path) says it is the \(e) eye but is given as the \(eye)")
            }
            if !v.refused.isEmpty {
                let refused = v.refused.joined(separator: ", ")
                o.inputNotes.append("\(path): stereo values out of range not used: \(refused)")
            }
        }
        guard let s = (a ?? b)?.stereo, !s.isEmpty else { return }
        if let a, let b, a.stereo != b.stereo {
            o.inputNotes.append(
                "the eyes' XMP values differ (left: \(EyeStereoXMP.summary(a.stereo)); "
                    + "right: \(EyeStereoXMP.summary(b.stereo))): the left eye's are used")
        }
        let origin = "the eyes' XMP (written by split)"
        var used = StereoParameters()
        if o.stereo.baselineMicrometres == nil, let v = s.baselineMicrometres {
            o.stereo.baselineMicrometres = v; o.stereoSources.baseline = origin; used.baselineMicrometres = v
        }
        if o.stereo.horizontalFieldOfViewMillidegrees == nil, !o.isSphere, let v = s.horizontalFieldOfViewMillidegrees {
            o.stereo.horizontalFieldOfViewMillidegrees = v; o.stereoSources.hfov = origin
            used.horizontalFieldOfViewMillidegrees = v
        }
        if o.stereo.disparityAdjustment == nil, !o.autoDisparity, let v = s.disparityAdjustment {
            o.stereo.disparityAdjustment = v; o.stereoSources.disparity = origin; used.disparityAdjustment = v
        }
        if !heroGiven, let h = s.heroEye { o.stereo.heroEye = h; used.heroEye = h }
        if !used.isEmpty { o.inputNotes.append("read back from \(origin): \(EyeStereoXMP.summary(used))") }
    }

    /// The sphere route: a frame-packed 180°/360° input (its spherical metadata, or `projection` for an untagged one)
    /// is cut into its two views and written as MV-HEVC APMP; the projection and, unless given, the layout come from
    /// the file (``/SpatialMedia/StereoVideoMetadata/sphereSplit(width:height:projection:packing:)``, the one place
    /// that decides). A monoscopic or cropped sphere, a mesh without a stated projection, and a stated value the file
    /// contradicts are refused with the reason; a field of view and the rectilinear geometry options do not apply.
    static func sphereRoute(_ r: ConvertRequest, into o: inout VideoConversionOptions, _ name: (String) -> String)
        throws(ParseError)
    {
        func refuse(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        var stated: FourCC? = nil
        if let p = r.projection { stated = FourCC(p.rawValue) }
        let statedPacking: FramePacking? =
            r.layout == nil
            ? nil : [.sbs, .halfSBS].contains(o.layout) ? .sideBySide : .topBottom
        var split: SphereSplit? = stated.map {
            SphereSplit(projection: $0, packing: statedPacking ?? .sideBySide, source: "stated")
        }
        if let path = r.input, path != "-", FileProbe.kind(of: path) == .movie,
            let read = SpatialVideoReport.sphereSplit(
                path: path, limits: o.limits, projection: stated, packing: statedPacking)
        {
            switch read {
            case .success(let s): split = s
            case .failure(let e):
                throw ParseError(
                    .unsupported, path: path, "cannot cut this sphere into two views: \(e.reason)", remedy: e.remedy)
            }
        } else if let path = r.input, path != "-", FileProbe.kind(of: path) != .movie, VideoInputs.isVideo(path),
            FileProbe.kind(of: path) != .y4m,
            let ff = try? FFmpeg.require(.any, for: "reading \(path)", override: o.ffmpeg),
            let probe = try? MediaProbe.run(path, tool: ff)
        {
            // Matroska, WebM, …: the projection and stereo mode as FFmpeg reads them.
            switch probe.sphereSplit(projection: stated, packing: statedPacking) {
            case .success(let s?): split = s
            case .success(nil): break
            case .failure(let e):
                throw ParseError(.unsupported, path: path, "cannot cut this sphere into two views: \(e.reason)")
            }
        } else if stated != nil, r.input != nil, statedPacking == nil {
            throw refuse(
                "\(name("projection")) of an input whose metadata this tool does not read: give \(name("layout")) sbs or tb too"
            )
        }
        guard let s = split else { return }
        if r.values.hfovDegrees != nil || r.values.hfovMillidegrees != nil {
            throw refuse(
                "\(name("hfov_degrees")) describes a rectilinear camera; the sphere's field of view is its projection's ('\(s.projection)'), and APMP writes no hfov for it"
            )
        }
        if r.align == true || r.autoDisparity == true {
            throw refuse(
                "\(name("align")) and \(name("auto_disparity")) measure rectilinear pictures; a sphere ('\(s.projection)') is converted as it is"
            )
        }
        o.stereo.projectionKind = s.projection
        if statedPacking == nil { o.layout = s.packing == .sideBySide ? .sbs : .tb }
    }

    /// The layout of a rectilinear frame-packed input when none was given. An input that states its packing —
    /// `vexu/pack` or `st3d` in MP4/MOV, the Matroska StereoMode or stereo side data as FFmpeg reads it — is cut as it
    /// says (a movie tagged top-bottom was cut side by side, the default, into two nonsense half-width eyes). Otherwise
    /// the layout is recognised from the input's pixels when it is opened
    /// (``/SpatialConvert/VideoConversionOptions/recogniseLayout``: frames sampled across it, measured side by side and
    /// top-bottom); its shape never decides. A given layout wins, and a sphere's was decided by its route.
    static func statedLayout(_ r: ConvertRequest, into o: inout VideoConversionOptions) {
        guard r.layout == nil,
            o.stereo.projectionKind == nil || o.stereo.projectionKind == "rect",
            let path = r.input
        else { return }
        o.force = r.force ?? false
        var stated: FramePacking?
        var source = ""
        switch FileProbe.kind(of: path) {
        case .movie:
            if let f = try? ISOFile.open(path: path, limits: o.limits), let v = SpatialVideoReport(f).primary {
                let m = v.metadata
                stated = m.framePacking
                source =
                    "frame-packing metadata (\(m.viewPackingKind != nil ? "vexu/pack" : m.googleStereoMode != nil ? "st3d" : "spherical v1 XML"))"
            }
        case .matroska, .other:
            if path != "-", VideoInputs.isVideo(path),
                let ff = try? FFmpeg.require(.any, for: "reading \(path)", override: o.ffmpeg),
                let probe = try? MediaProbe.run(path, tool: ff)
            {
                stated = probe.stereoPacking
                source = "stereo mode (as FFmpeg reads it)"
            }
        default: break
        }
        if let packing = stated {
            o.layout = packing == .sideBySide ? .sbs : .tb
            o.layoutSource = "the input's \(source)"
        } else {
            o.recogniseLayout = true
        }
    }

    static func rateLimits(_ r: ConvertRequest, into o: inout VideoConversionOptions, _ name: (String) -> String)
        throws(ParseError)
    {
        func refuse(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        if let m = r.maxBitrate, m <= 0 { throw refuse("\(name("max_bitrate")) must be positive (kbit/s)") }
        if let b = r.vbvBufsize, b <= 0 { throw refuse("\(name("vbv_bufsize")) must be positive (kbit)") }
        if r.vbvBufsize != nil && r.maxBitrate == nil && r.applePreset == nil {
            throw refuse("\(name("vbv_bufsize")) needs \(name("max_bitrate"))")
        }
        if let b = r.bitrate, let m = r.maxBitrate, b > m {
            throw refuse("\(name("bitrate")) \(b) is above \(name("max_bitrate")) \(m)")
        }
        o.maxBitrateKbps = r.maxBitrate
        o.vbvBufferKbit = r.vbvBufsize
        if let p = r.applePreset { o.publishing = p }
    }

    static func encoderChoices(_ r: ConvertRequest, into o: inout VideoConversionOptions, _ name: (String) -> String)
        throws(ParseError)
    {
        func refuse(_ m: String) -> ParseError { ParseError(.invalidOption, m) }
        if let p = r.encodePath { o.encodePath = p }
        if let a = r.audio { o.audio = a }
        if r.noAudio == true { o.audio = .none }
        o.audioFrom = r.audioFrom
        o.force = r.force ?? false
        if let d = r.decoder { o.decoder = d }
        if let f = r.frameRate {
            guard let rate = FrameRate.parse(f) else {
                throw refuse("\(name("frame_rate")) must be a positive number or NUM/DEN, e.g. 30 or 30000/1001")
            }
            o.fps = rate
        }
        if let k = r.keyint {
            guard k >= 1 else { throw refuse("\(name("keyint")) must be at least 1") }
            o.keyint = k
        }
        if let b = r.bframes {
            guard (0...16).contains(b) else { throw refuse("\(name("bframes")) must be 0…16") }
            o.bframes = b
        }
        if let f = r.layerSps { o.layerSPSForm = f }
        if let t = r.threadsPerEye {
            guard (1...64).contains(t) else { throw refuse("\(name("threads_per_eye")) must be 1…64") }
            o.poolThreadsPerEye = t
        }
        if let p = r.preset { o.preset = p.rawValue }
    }
}
