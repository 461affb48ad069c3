import BinaryIO
import HEVC
import SpatialMedia
import SystemSupport

/// What FFmpeg says about a media file's streams (`ffmpeg -hide_banner -i FILE`): enough to plan decoding
/// (frame rate, sample aspect ratio, rotation) and audio (codec, channels, language per track), and to say what a
/// conversion leaves out (subtitles, attachments, data streams, chapters).
public struct MediaProbe: Sendable {
    /// One stream as FFmpeg lists it.
    public struct Stream: Sendable {
        public enum Kind: String, Sendable { case video, audio, subtitle, attachment, data }
        /// FFmpeg's index of the stream in the file (`-map 0:INDEX`).
        public var index: Int
        public var kind: Kind
        /// FFmpeg's codec name ("h264", "ac3", "aac", "dts"); "none" when FFmpeg has no decoder for it.
        public var codec: String
        /// ISO 639-2 language when the file names one ("und" is kept as nil).
        public var language: String?
        /// Audio channels, from the channel layout ("5.1(side)" = 6).
        public var channels: Int?
        /// A cover image stored as a video stream.
        public var isAttachedPicture: Bool
        /// The whole line, for messages.
        public var line: String
    }

    public var streams: [Stream]
    /// The container as FFmpeg's demuxer names it ("mpegts", "matroska,webm", "avi"), when listed.
    public var format: String?
    /// Chapter marks in the file.
    public var chapters: Int
    /// Duration of the file in seconds, when known.
    public var durationSeconds: Double?
    /// The video stream's own stated duration (Matroska's per-track `DURATION` tag), when the file states one.
    public var videoDurationSeconds: Double?
    /// Frame rate of the first (non-cover) video stream, snapped to the usual rates (30000/1001 …).
    public var frameRate: (num: Int, den: Int)?
    /// Sample aspect ratio of that stream, when FFmpeg reports one other than 1:1.
    public var sampleAspect: (num: Int, den: Int)?
    /// Rotation of that stream's display matrix in degrees (FFmpeg applies it when decoding).
    public var rotationDegrees: Double?
    /// The frame packing of that stream's stereo side data ("Stereo 3D: side by side" / "top and bottom"), from any
    /// container FFmpeg reads (Matroska StereoMode, MP4 `st3d`).
    public var stereoPacking: FramePacking?
    /// That stream's spherical side data ("Spherical Mapping: …"), from any container FFmpeg reads (Matroska
    /// Projection, MP4 `sv3d`, APMP `prji`).
    public var spherical: Spherical?
    /// Width and height of that stream's coded picture.
    public var videoSize: (width: Int, height: Int)?
    /// That stream's pixel format as FFmpeg names it ("yuv420p10le", "yuvj420p").
    public var pixelFormat: String?
    /// What that stream states about its colour ("yuv420p10le(tv, bt2020nc/bt2020/arib-std-b67)"), nil when nothing.
    public var colour: VideoColour?
    /// Bits per sample of that stream's pixel format (10 for "yuv420p10le", "p010le"), 8 when the name has no number.
    public var sourceBitDepth: Int {
        guard let f = pixelFormat else { return 8 }
        var name = Substring(f)
        if name.hasSuffix("le") || name.hasSuffix("be") { name = name.dropLast(2) }
        let digits = name.reversed().prefix { $0.isNumber }
        guard let d = Int(String(digits.reversed())), (9...16).contains(d) else { return 8 }
        return d
    }

    /// A projection as FFmpeg names it, with the pixel bounds it prints for a tiled (cropped) equirectangular picture.
    public struct Spherical: Sendable, Equatable {
        /// FFmpeg's name: "equirectangular", "tiled equirectangular", "half equirectangular", "cubemap", "fisheye",
        /// "rectilinear", "parametric immersive", …
        public var projection: String
        /// For "tiled equirectangular": the columns and rows cut off the full picture (left, top, right, bottom), in
        /// pixels of the coded picture's scale.
        public var tileBounds: [Int]?
        public init(projection: String, tileBounds: [Int]? = nil) {
            self.projection = projection; self.tileBounds = tileBounds
        }
        /// True for the projections of a sphere (everything but "rectilinear").
        public var isSphere: Bool { projection != "rectilinear" }
    }

    public var audio: [Stream] { streams.filter { $0.kind == .audio } }
    /// The stream decoded as the picture: the first video stream that is not a cover image.
    public var video: Stream? { streams.first { $0.kind == .video && !$0.isAttachedPicture } }

    /// Runs `ffmpeg -hide_banner -i path` and reads what it prints (FFmpeg exits 1 there: no output was given).
    public static func run(_ path: String, tool: FFmpegTool) throws(ParseError) -> MediaProbe {
        let child = try ChildProcess(executable: tool.path, arguments: ["-nostdin", "-hide_banner", "-i", path])
        _ = child.readToEnd(limit: 1 << 16)
        _ = child.wait()
        let text = child.errorText(max: 1 << 16).replacingBars()
        let probe = parse(text)
        if probe.streams.isEmpty {
            let why = text.split(separator: "\n").last.map(String.init) ?? "no output"
            throw ParseError(.unsupported, path: path, "FFmpeg (\(tool.path)) cannot read it: \(why)")
        }
        return probe
    }

    /// Parses FFmpeg's listing of one input (the lines after "Input #0").
    public static func parse(_ text: String) -> MediaProbe {
        var p = MediaProbe(streams: [], chapters: 0)
        var inVideo = false
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingSpaces()
            if line.hasPrefix("Input #0, "), let from = line.firstRange(of: ", from ") {
                p.format = String(line[line.index(line.startIndex, offsetBy: "Input #0, ".count)..<from.lowerBound])
                continue
            }
            if line.hasPrefix("Chapter #") { p.chapters += 1; continue }
            if line.hasPrefix("Duration:") {
                p.durationSeconds = parseClock(line.dropFirst("Duration:".count).trimmingSpaces().prefix { $0 != "," })
                continue
            }
            if line.hasPrefix("Stream #"), let s = parseStream(line) {
                inVideo = s.kind == .video && !s.isAttachedPicture && p.video == nil
                p.streams.append(s)
                if inVideo { videoDetails(line, into: &p) }
                continue
            }
            if inVideo, line.hasPrefix("Stereo 3D:") {
                if line.contains("side by side") {
                    p.stereoPacking = .sideBySide
                } else if line.contains("top and bottom") {
                    p.stereoPacking = .topBottom
                }
            }
            if inVideo, line.hasPrefix("DURATION"), let colon = line.firstIndex(of: ":") {
                p.videoDurationSeconds = parseClock(line[line.index(after: colon)...].trimmingSpaces())
            }
            if inVideo, line.hasPrefix("Spherical Mapping:") {
                p.spherical = parseSpherical(line.dropFirst("Spherical Mapping:".count))
            }
            if inVideo, let r = line.firstRange(of: "rotation of ") {
                let num = line[r.upperBound...].prefix { $0 == "-" || $0 == "." || $0.isNumber }
                p.rotationDegrees = Double(num)
            }
        }
        return p
    }

    /// " tiled equirectangular [1081, 0, 1079, 0] " → the projection name and its bounds.
    static func parseSpherical(_ text: Substring) -> Spherical {
        let t = text.trimmingSpaces()
        guard let open = t.firstIndex(of: "["), let close = t.lastIndex(of: "]"), open < close else {
            return Spherical(projection: String(t.prefix { $0 != "," }.trimmingSpaces()))
        }
        let bounds = t[t.index(after: open)..<close].split(separator: ",").compactMap { Int($0.trimmingSpaces()) }
        return Spherical(projection: String(t[..<open].trimmingSpaces()), tileBounds: bounds.count == 4 ? bounds : nil)
    }

    static func parseStream(_ line: Substring) -> Stream? {
        // Stream #0:1[0x2](eng): Audio: ac3 (ac-3 / 0x332D6361), 48000 Hz, 5.1(side), fltp, 384 kb/s (default)
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let afterFile = line[line.index(after: colon)...]
        let index = Int(afterFile.prefix { $0.isNumber }) ?? -1
        guard index >= 0, let sep = afterFile.firstRange(of: ": ") else { return nil }
        let head = afterFile[..<sep.lowerBound]
        var language: String? = nil
        if let open = head.lastIndex(of: "("), let close = head.lastIndex(of: ")"), open < close {
            let l = String(head[head.index(after: open)..<close])
            if l != "und", l.count == 3 { language = l }
        }
        let rest = afterFile[sep.upperBound...]
        guard let kindEnd = rest.firstRange(of: ": ") else { return nil }
        let kind: Stream.Kind
        switch rest[..<kindEnd.lowerBound] {
        case "Video": kind = .video
        case "Audio": kind = .audio
        case "Subtitle": kind = .subtitle
        case "Attachment": kind = .attachment
        default: kind = .data
        }
        let body = rest[kindEnd.upperBound...]
        let codec = String(body.prefix { $0 != " " && $0 != "," })
        var channels: Int? = nil
        if kind == .audio {
            for field in body.split(separator: ",").map({ $0.trimmingSpaces() }) {
                if let c = channelCount(field) { channels = c; break }
            }
        }
        return Stream(
            index: index, kind: kind, codec: codec, language: language, channels: channels,
            isAttachedPicture: line.contains("(attached pic)"), line: String(line))
    }

    static func channelCount(_ field: Substring) -> Int? {
        let layout = field.prefix { $0 != "(" }
        switch layout {
        case "mono": return 1
        case "stereo", "downmix": return 2
        case "2.1", "3.0": return 3
        case "quad", "4.0", "3.1": return 4
        case "5.0", "4.1": return 5
        case "5.1", "6.0": return 6
        case "6.1", "7.0": return 7
        case "7.1": return 8
        default:
            if layout.hasSuffix(" channels"), let n = Int(layout.prefix { $0.isNumber }) { return n }
            return nil
        }
    }

    static func videoDetails(_ line: Substring, into p: inout MediaProbe) {
        var fps: Double? = nil, tbr: Double? = nil
        (p.pixelFormat, p.colour) = pixelFormatAndColour(line)
        for field in line.split(separator: ",").map({ $0.trimmingSpaces() }) {
            if p.videoSize == nil {
                let dims = field.prefix { $0 != " " }.split(separator: "x")
                if dims.count == 2, let w = Int(dims[0]), let h = Int(dims[1]), w > 0, h > 0 { p.videoSize = (w, h) }
            }
            if field.hasSuffix(" fps") { fps = parseRate(field.dropLast(4)) }
            if field.hasSuffix(" tbr") { tbr = parseRate(field.dropLast(4)) }
            if let r = field.firstRange(of: "[SAR ") {
                let ratio = field[r.upperBound...].prefix { $0 != " " && $0 != "]" }.split(separator: ":").compactMap {
                    Int($0)
                }
                if ratio.count == 2, ratio[0] > 0, ratio[1] > 0, ratio[0] != ratio[1] {
                    p.sampleAspect = (ratio[0], ratio[1])
                }
            }
        }
        var rate: (num: Int, den: Int)? = nil
        for r in [fps, tbr] {
            if let r, let s = FrameRate.nearestUsual(r) { rate = s; break }
        }
        if rate == nil, let r = fps ?? tbr { rate = FrameRate.fraction(r) }
        p.frameRate = rate
    }

    /// FFmpeg's pixel format and its parenthesised colour: "yuv420p10le(tv, bt2020nc/bt2020/arib-std-b67,
    /// progressive)", "yuv420p(tv, bt709)" (all three the same), "yuvj420p(pc, progressive)" (a `j` format is full
    /// range).
    static func pixelFormatAndColour(_ line: Substring) -> (String?, VideoColour?) {
        guard let video = line.firstRange(of: "Video: ") else { return (nil, nil) }
        // The field after the codec's: the first comma-separated field that starts with a pixel format name.
        var depth = 0, fields: [Substring] = [], start = video.upperBound
        var i = start
        while i < line.endIndex {
            let c = line[i]
            if c == "(" {
                depth += 1
            } else if c == ")" {
                depth = max(0, depth - 1)
            } else if c == ",", depth == 0 {
                fields.append(line[start..<i]); start = line.index(after: i)
            }
            i = line.index(after: i)
        }
        fields.append(line[start...])
        guard fields.count >= 2 else { return (nil, nil) }
        let field = fields[1].trimmingSpaces()
        let name = String(field.prefix { $0 != "(" && $0 != " " })
        guard !name.isEmpty, name.first?.isLetter == true else { return (nil, nil) }
        var range: Bool? = name.hasPrefix("yuvj") ? true : nil
        var codes: (Int, Int, Int)? = nil
        if let open = field.firstIndex(of: "("), let close = field.lastIndex(of: ")"), open < close {
            for part in field[field.index(after: open)..<close].split(separator: ",").map({ $0.trimmingSpaces() }) {
                if part == "pc" { range = true } else if part == "tv" { range = false }
                let names = part.split(separator: "/").map(String.init)
                if names.count == 3 {
                    codes = (code(names[1], primariesNames), code(names[2], transferNames), code(names[0], matrixNames))
                } else if names.count == 1, let m = matrixNames.firstIndex(of: names[0]), m != 2 {
                    codes = (code(names[0], primariesNames), code(names[0], transferNames), m)
                }
            }
        }
        guard range != nil || codes != nil else { return (name, nil) }
        let c = codes ?? (2, 2, 2)
        return (name, VideoColour(primaries: c.0, transfer: c.1, matrix: c.2, fullRange: range ?? false))
    }

    /// FFmpeg's output options that state `c` (`-color_primaries`, `-color_trc`, `-colorspace`, `-color_range`), for
    /// the code points FFmpeg names.
    public static func ffmpegColourArguments(_ c: VideoColour) -> [String] {
        var out: [String] = []
        if c.primaries > 0, c.primaries < primariesNames.count {
            out += ["-color_primaries", primariesNames[c.primaries]]
        }
        if c.transfer > 0, c.transfer < transferNames.count { out += ["-color_trc", transferNames[c.transfer]] }
        if c.matrix >= 0, c.matrix < matrixNames.count { out += ["-colorspace", matrixNames[c.matrix]] }
        return out + ["-color_range", c.fullRange ? "pc" : "tv"]
    }

    /// An FFmpeg `setparams` filter that states `c` on every picture (filters such as hstack drop the description).
    public static func ffmpegSetParams(_ c: VideoColour) -> String {
        var p: [String] = []
        if c.primaries > 0, c.primaries < primariesNames.count {
            p.append("color_primaries=\(primariesNames[c.primaries])")
        }
        if c.transfer > 0, c.transfer < transferNames.count { p.append("color_trc=\(transferNames[c.transfer])") }
        if c.matrix >= 0, c.matrix < matrixNames.count { p.append("colorspace=\(matrixNames[c.matrix])") }
        p.append("range=\(c.fullRange ? "pc" : "tv")")
        return "setparams=" + p.joined(separator: ":")
    }

    static func code(_ name: String, _ table: [String]) -> Int {
        table.firstIndex(of: name) ?? 2
    }
    /// FFmpeg's names of the H.273 code points, indexed by code.
    static let primariesNames = [
        "reserved0", "bt709", "unknown", "reserved", "bt470m", "bt470bg", "smpte170m", "smpte240m",
        "film", "bt2020", "smpte428", "smpte431", "smpte432",
    ]
    static let transferNames = [
        "reserved0", "bt709", "unknown", "reserved", "bt470m", "bt470bg", "smpte170m", "smpte240m",
        "linear", "log100", "log316", "iec61966-2-4", "bt1361e", "iec61966-2-1", "bt2020-10",
        "bt2020-12", "smpte2084", "smpte428", "arib-std-b67",
    ]
    static let matrixNames = [
        "gbr", "bt709", "unknown", "reserved", "fcc", "bt470bg", "smpte170m", "smpte240m", "ycgco",
        "bt2020nc", "bt2020c", "smpte2085",
    ]

    /// The mastering display and content light level FFmpeg reports for the first decoded picture of `stream`
    /// (`ffmpeg -i FILE -map STREAM -frames:v 1 -f null -`: the side data of that picture, from SEI or container).
    public static func hdrMetadata(_ path: String, stream: String, tool: FFmpegTool) -> (
        masteringDisplay: [UInt8]?, contentLightLevel: [UInt8]?
    ) {
        guard
            let child = try? ChildProcess(
                executable: tool.path,
                arguments: [
                    "-nostdin", "-hide_banner", "-i", path, "-map", stream,
                    "-frames:v", "1", "-f", "null", "-",
                ])
        else { return (nil, nil) }
        _ = child.readToEnd(limit: 1 << 16)
        _ = child.wait()
        return parseHDRMetadata(child.errorText(max: 1 << 16).replacingBars())
    }

    /// "Mastering display metadata: … r(0.6800,0.3200) g(…) b(…) wp(…) min_luminance=0.000100, max_luminance=1000.0"
    /// and "Content light level metadata: MaxCLL=1000, MaxFALL=400" → the `mdcv` and `clli` payloads.
    public static func parseHDRMetadata(_ text: String) -> (masteringDisplay: [UInt8]?, contentLightLevel: [UInt8]?) {
        var md: [UInt8]? = nil, cll: [UInt8]? = nil
        for raw in text.split(separator: "\n") {
            let line = raw.lowercased()
            if md == nil, line.contains("mastering display metadata") {
                func pair(_ key: String) -> (Double, Double)? {
                    guard let r = line.firstRange(of: " " + key + "(") else { return nil }
                    let inner = line[r.upperBound...].prefix { $0 != ")" }
                    let v = inner.split(whereSeparator: { $0 == "," || $0 == " " }).compactMap { Double($0) }
                    return v.count == 2 ? (v[0], v[1]) : nil
                }
                func value(_ key: String) -> Double? {
                    guard let r = line.firstRange(of: key + "=") else { return nil }
                    return Double(line[r.upperBound...].prefix { $0.isNumber || $0 == "." })
                }
                guard let g = pair("g"), let b = pair("b"), let r = pair("r"), let w = pair("wp"),
                    let maxL = value("max_luminance"), let minL = value("min_luminance")
                else { continue }
                var out: [UInt8] = []
                func u16(_ v: Double) {
                    let x = UInt16(clamping: Int((v / 0.00002).rounded())); out += [UInt8(x >> 8), UInt8(x & 0xFF)]
                }
                func u32(_ v: Double) {
                    let x = UInt32(clamping: Int64((v * 10000).rounded()))
                    out += [UInt8(x >> 24), UInt8((x >> 16) & 0xFF), UInt8((x >> 8) & 0xFF), UInt8(x & 0xFF)]
                }
                for p in [g, b, r, w] { u16(p.0); u16(p.1) }
                u32(maxL); u32(minL)
                md = out
            }
            if cll == nil, line.contains("content light level metadata"),
                let a = line.firstRange(of: "maxcll="), let f = line.firstRange(of: "maxfall=")
            {
                let c = UInt16(clamping: Int(line[a.upperBound...].prefix { $0.isNumber }) ?? 0)
                let fa = UInt16(clamping: Int(line[f.upperBound...].prefix { $0.isNumber }) ?? 0)
                cll = [UInt8(c >> 8), UInt8(c & 0xFF), UInt8(fa >> 8), UInt8(fa & 0xFF)]
            }
        }
        return (md, cll)
    }

    /// "30", "29.97", "1k", "90k" → a number.
    static func parseRate(_ s: Substring) -> Double? {
        if s.hasSuffix("k") { return Double(s.dropLast()).map { $0 * 1000 } }
        return Double(s)
    }

    /// "01:02:03.45" → seconds.
    static func parseClock(_ s: Substring) -> Double? {
        let parts = s.split(separator: ":").compactMap { Double($0) }
        guard parts.count == 3 else { return nil }
        return parts[0] * 3600 + parts[1] * 60 + parts[2]
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while s.first == " " || s.first == "\t" || s.first == "\r" { s = s.dropFirst() }
        while s.last == " " || s.last == "\t" || s.last == "\r" { s = s.dropLast() }
        return s
    }
}

extension String {
    /// `ChildProcess.errorText` joins lines with " | ": back to lines.
    fileprivate func replacingBars() -> String {
        split(separator: " | ", omittingEmptySubsequences: false).joined(separator: "\n")
    }
}
