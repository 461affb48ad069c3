import BinaryIO
import Codecs
import HEVC
import ISOBMFF
import ImageFormats
import SystemSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One decoded view stream, read frame by frame (never the whole clip).
public protocol VideoFrameProducer: AnyObject {
    var width: Int { get }
    var height: Int { get }
    var fpsNum: Int { get }
    var fpsDen: Int { get }
    var format: PixelFormat { get }
    var bitDepth: Int { get }
    /// Frames expected, when known (for progress and ETA).
    var frameCountHint: Int? { get }
    /// What was opened, for reports ("Y4M file", "HEVC track decoded by libde265", "ffmpeg (h264)").
    var kind: String { get }
    /// The next frame in display order, or nil at the end.
    func next() throws(ParseError) -> Image?
    /// Called after the last frame: reports a failure of a helper process.
    func finish() throws(ParseError)
    /// Stops helper processes (cancellation / failure).
    func abort()
    /// What the input states about its colour (range, description, HDR metadata); nil when it states nothing.
    var colour: VideoColour? { get }
}

extension VideoFrameProducer {
    public var colour: VideoColour? { nil }
}

/// A producer that reads YUV4MPEG2 (a file, standard input, or FFmpeg's pipe): its size, rate and pixel format
/// are those of the stream header.
public protocol Y4MFrameProducer: VideoFrameProducer {
    /// The stream header read when the producer opened.
    var y4mHeader: Y4M.Header { get }
}

extension Y4MFrameProducer {
    public var width: Int { y4mHeader.width }
    public var height: Int { y4mHeader.height }
    public var fpsNum: Int { y4mHeader.fpsNum }
    public var fpsDen: Int { y4mHeader.fpsDen }
    public var format: PixelFormat { y4mHeader.format }
    public var bitDepth: Int { y4mHeader.bitDepth }
}

extension Y4MProducer {
    /// A Y4M stream states only its range (`XCOLORRANGE`), which the frames carry; nothing else.
    public var colour: VideoColour? {
        y4mHeader.fullRange.map { VideoColour(primaries: 2, transfer: 2, matrix: 2, fullRange: $0) }
    }
}

/// Y4M from a file or standard input ("-").
public final class Y4MProducer: Y4MFrameProducer {
    let reader: Y4M.Reader
    public let kind: String
    public let frameCountHint: Int?
    public init(path: String, limits: Limits) throws(ParseError) {
        reader = try Y4M.Reader(path: path, limits: limits)
        kind = path == "-" ? "Y4M on standard input" : "Y4M file"
        var hint: Int? = nil
        var st = stat()
        if path != "-", stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, reader.header.frameBytes > 0 {
            hint = Int(st.st_size) / (reader.header.frameBytes + 6)
        }
        frameCountHint = hint
    }
    public var y4mHeader: Y4M.Header { reader.header }
    /// Go on with a file cut short (`--force`): the frames before the cut are the input, and ``damage`` says where it
    /// ends; otherwise the cut is an error (SV-FILE-002, exit 2).
    public var acceptDamage = false
    /// Why the file is cut short, once a cut frame was met with ``acceptDamage``; nil when it is whole.
    public private(set) var damage: String?
    /// Whole frames read so far.
    public private(set) var framesRead = 0
    public func next() throws(ParseError) -> Image? {
        guard damage == nil else { return nil }
        do throws(ParseError) {
            let img = try reader.next()
            if img != nil { framesRead += 1 }
            return img
        } catch {
            guard acceptDamage, error.code == .truncated else {
                var e = error
                if e.code == .truncated { e.remedy = e.remedy ?? .force }
                throw e
            }
            damage =
                error.message.hasPrefix("the Y4M stream")
                ? error.message : "the Y4M stream is damaged or truncated: \(error.message)"
            return nil
        }
    }
    public func finish() throws(ParseError) {}
    public func abort() {}
}

/// Any input FFmpeg can read, converted by FFmpeg to 8-bit 4:2:0 Y4M on a pipe.
///
/// Timing: the first frame is time 0 whatever the other streams do (`setpts=PTS-STARTPTS`: an audio stream that
/// starts 21 ms early no longer makes FFmpeg repeat the first picture), and the output is constant-rate at the
/// stream's own frame rate (from ``MediaProbe``), so a constant-rate input passes frame for frame and a
/// variable-rate one is made constant (FFmpeg repeats or drops pictures; ``repeatedFrames``/``droppedFrames``).
/// Rotation (display matrix) is applied by FFmpeg; a sample aspect ratio other than 1:1 is scaled to square
/// pixels (horizontally).
public final class FFmpegProducer: Y4MFrameProducer {
    let child: ChildProcess
    let reader: Y4M.Reader
    public let kind: String
    public let frameCountHint: Int?
    let input: String
    let executable: String
    /// Pictures FFmpeg repeated or dropped to make the rate constant (known after ``finish()``).
    public private(set) var repeatedFrames = 0
    public private(set) var droppedFrames = 0
    /// Go on with a damaged or truncated input (`--force`): ``finish()`` then records ``damage`` instead of throwing.
    public var acceptDamage = false
    /// Why the input is damaged or truncated (``StreamIntegrity``), known after ``finish()``; nil when it is whole.
    public private(set) var damage: String?
    /// Frames read so far, and the frames the input states (from its duration and rate; nil when the caller gave
    /// a count of its own, which its own reader checks).
    public private(set) var framesRead = 0
    let framesStated: Int?
    /// The child has been waited for (its pid may belong to another process now).
    private var reaped = false

    /// `probe` (from ``MediaProbe/run(_:tool:)``) gives the stream, rate and aspect; nil = FFmpeg's own guesses.
    /// `sdrDepth` (`--sdr`): an HDR (PQ or HLG) source is tone-mapped by FFmpeg to BT.709 SDR with that many bits
    /// (``toneMapped`` says what was converted); a source that is not HDR is decoded as it is.
    public init(
        path: String, tool: FFmpegTool, probe: MediaProbe?, frameCountHint: Int?, limits: Limits,
        sdrDepth: Int? = nil
    ) throws(ParseError) {
        self.input = path
        self.executable = tool.path
        var hint = frameCountHint
        let stated = frameCountHint == nil ? probe.flatMap { StreamIntegrity.statedFrames($0) } : nil
        if hint == nil { hint = stated }
        self.frameCountHint = hint
        self.framesStated = stated
        var filters: [String] = ["setpts=PTS-STARTPTS"]
        if probe?.sampleAspect != nil { filters.append("scale=trunc(iw*sar/2)*2:ih,setsar=1") }
        // A source of more than 8 bits is decoded to 10-bit 4:2:0 (the converter keeps 10 bits or rounds to 8 as
        // asked).
        var depth = (probe?.sourceBitDepth ?? 8) > 8 ? 10 : 8
        var toneMapped: String? = nil
        if let sdr = sdrDepth, let c = probe?.colour, c.isHDR {
            try Self.requireToneMapFilters(tool, path: path)
            filters += Self.toneMapFilters(sdrDepth: sdr)
            depth = sdr
            toneMapped =
                "\(c.text) tone-mapped to BT.709 SDR, \(sdr)-bit, by FFmpeg (zscale to linear light at "
                + "100 cd/m², tonemap hable, zscale to BT.709)"
        }
        self.toneMapped = toneMapped
        var stream = "0:v:0"
        if let v = probe?.video { stream = "0:\(v.index)" }
        var args: [String] = [
            "-nostdin", "-hide_banner", "-v", "error", "-stats", "-stats_period", "86400", "-i", path,
        ]
        args += ["-map", stream, "-an", "-sn", "-dn", "-vf", filters.joined(separator: ",")]
        let fpsMode: [String] = (tool.major, tool.minor) >= (5, 1) ? ["-fps_mode", "cfr"] : ["-vsync", "cfr"]
        args += fpsMode
        if let r = probe?.frameRate { args += ["-r", "\(r.num)/\(r.den)"] }
        // FFmpeg writes a 10-bit Y4M (C420p10) only when told that non-"official" formats are fine.
        args +=
            ["-pix_fmt", depth == 10 ? "yuv420p10le" : "yuv420p"] + (depth == 10 ? ["-strict", "-1"] : []) + [
                "-f", "yuv4mpegpipe", "-",
            ]
        var colour = probe?.colour
        if toneMapped != nil {
            colour = VideoColour(primaries: 1, transfer: 1, matrix: 1, fullRange: false)
        } else if colour?.isHDR == true || depth > 8 {
            let md = MediaProbe.hdrMetadata(path, stream: stream, tool: tool)
            colour?.masteringDisplay = md.masteringDisplay
            colour?.contentLightLevel = md.contentLightLevel
        }
        child = try ChildProcess(executable: tool.path, arguments: args)
        kind = "decoded by FFmpeg \(tool.version) (\(tool.path)) to \(depth)-bit 4:2:0"
        do throws(ParseError) {
            reader = try Y4M.Reader(path: "/dev/fd/\(child.stdoutFD)", limits: limits)
        } catch {
            let status = child.wait()
            if Interruption.isRequested {
                throw ParseError(.cancelled, path: path, "cancelled while ffmpeg was starting")
            }
            let text = Self.words(child)
            throw ParseError(
                .unsupported, path: path,
                "ffmpeg could not decode the input (exit status \(status))\(text.isEmpty ? ": \(error.message)" : ": \(text)")"
            )
        }
        // The range of the samples on the pipe is the one FFmpeg states there (XCOLORRANGE), else the source's.
        if let r = reader.header.fullRange {
            if colour == nil {
                colour = VideoColour(primaries: 2, transfer: 2, matrix: 2, fullRange: r)
            } else {
                colour?.fullRange = r
            }
        }
        self.colour = colour
    }

    /// What the source states about its colour (FFmpeg's listing of the stream, the pipe's range, the first picture's
    /// HDR side data).
    public let colour: VideoColour?

    /// What `--sdr` converted ("BT.2020/PQ/BT.2020 NCL, limited range tone-mapped to BT.709 SDR …"), nil when
    /// nothing was.
    public let toneMapped: String?

    /// FFmpeg's filters from an HDR picture to BT.709 SDR: to linear light (100 cd/m² = 1.0) in planar float RGB,
    /// BT.709 primaries, Hable's curve without desaturation, then BT.709 transfer and matrix, limited range.
    static func toneMapFilters(sdrDepth: Int) -> [String] {
        [
            "zscale=transfer=linear:npl=100", "format=gbrpf32le", "zscale=primaries=bt709",
            "tonemap=tonemap=hable:desat=0", "zscale=transfer=bt709:matrix=bt709:range=limited",
            "format=\(sdrDepth > 8 ? "yuv420p10le" : "yuv420p")",
        ]
    }

    /// Refuses when `tool` lacks a filter the tone mapping needs (an FFmpeg built without libzimg has no `zscale`).
    static func requireToneMapFilters(_ tool: FFmpegTool, path: String) throws(ParseError) {
        let missing = ["zscale", "tonemap"].filter { !FFmpeg.filters(of: tool).contains($0) }
        guard missing.isEmpty else {
            throw ParseError(
                .libraryMissing, path: path,
                "tone mapping HDR to SDR needs FFmpeg's zscale and tonemap filters, and FFmpeg "
                    + "\(tool.version) (\(tool.path)) has no \(missing.joined(separator: " or ")) "
                    + "(built without libzimg?); "
                    + "use an FFmpeg with them (bash scripts/setup.sh installs one) or keep the HDR picture")
        }
    }

    /// FFmpeg's own error lines, without its statistics lines.
    static func words(_ child: ChildProcess) -> String {
        let text: String = child.errorText(max: 4000)
        var kept: [String] = []
        let pieces: [Substring] = text.split(whereSeparator: { (c: Character) -> Bool in c == "\r" || c == "|" })
        for piece in pieces {
            var t: Substring = piece
            while t.first == " " { t = t.dropFirst() }
            while t.last == " " { t = t.dropLast() }
            if t.isEmpty || t.hasPrefix("frame=") { continue }
            kept.append(String(t))
        }
        let joined: String = kept.joined(separator: " | ")
        return String(joined.suffix(600))
    }

    /// The number after the last `key` in FFmpeg's statistics ("dup=3 drop=0", "frame=   15"), 0 when absent.
    static func statistic(_ key: String, in text: String) -> Int {
        let chars: [Character] = Array(text), k: [Character] = Array(key)
        guard !k.isEmpty, chars.count >= k.count else { return 0 }
        var i = chars.count - k.count
        while i >= 0 {
            if Array(chars[i..<(i + k.count)]) == k {
                var j = i + k.count, v = 0
                while j < chars.count, chars[j] == " " { j += 1 }  // "frame=   15"
                while j < chars.count, let d = chars[j].wholeNumberValue, v < 1_000_000_000 { v = v * 10 + d; j += 1 }
                return v
            }
            i -= 1
        }
        return 0
    }

    public var y4mHeader: Y4M.Header { reader.header }
    public func next() throws(ParseError) -> Image? {
        do throws(ParseError) {
            let frame = try reader.next()
            if frame != nil { framesRead += 1 }
            return frame
        } catch {
            let status = child.wait()
            reaped = true
            if status != 0 {
                throw ParseError(
                    .unsupported, path: input, "ffmpeg failed (exit status \(status)): \(Self.words(child))")
            }
            throw error
        }
    }
    public func finish() throws(ParseError) {
        let status = child.wait()
        reaped = true
        if status != 0 {
            throw ParseError(.unsupported, path: input, "ffmpeg failed (exit status \(status)): \(Self.words(child))")
        }
        let stats = child.errorText(max: 400)
        repeatedFrames = Self.statistic("dup=", in: stats)
        droppedFrames = Self.statistic("drop=", in: stats)
        // A reader's error is an error until shown harmless: FFmpeg's error lines, a cut container, missing frames.
        let errors = StreamIntegrity.errorLines(child.errorText(max: 1 << 15))
        damage = StreamIntegrity.verdict(
            read: framesRead, stated: framesStated, errors: errors,
            container: StreamIntegrity.containerFaults(path: input))
        if let damage, !acceptDamage {
            throw ParseError(
                .truncated, path: input, "\(damage); refusing to convert it (nothing written)",
                remedy: .force)
        }
    }
    /// Stops FFmpeg for good: it answers SIGTERM by finishing its output, which blocks on a pipe nobody reads any
    /// more (a conversion refused after the first frame hung there), so it gets SIGKILL unless already reaped.
    public func abort() {
        if !reaped { kill(child.pid, SIGKILL) }
        child.terminate()
        reaped = true
    }
}

/// The HEVC video track of an MP4/MOV, decoded by libde265 (base layer) one IDR period at a time:
/// decoding restarts at every IDR/BLA picture, which gives the same pictures as one continuous decode,
/// so memory is bounded by the longest IDR period, not by the clip.
public final class HEVCTrackProducer: VideoFrameProducer {
    let file: ISOFile
    let samples: [SampleInfo]
    let hvcC: [UInt8]
    let lengthSize: Int
    let limits: Limits
    let path: String
    private var nextSample = 0
    private var pending: [Image] = []
    private var pendingPos = 0
    public private(set) var width = 0
    public private(set) var height = 0
    public let fpsNum: Int
    public let fpsDen: Int
    public private(set) var format: PixelFormat = .yuv420
    public private(set) var bitDepth = 8
    public let kind = "HEVC track decoded by libde265 (base layer)"
    public var frameCountHint: Int? { samples.count }
    /// Decoded bytes one IDR period may hold before we give up (the clip then needs ffmpeg).
    let budget: UInt64

    /// Returns nil when the file has no HEVC video track (the caller then tries ffmpeg).
    public static func open(path: String, file: ISOFile, limits: Limits) throws(ParseError) -> HEVCTrackProducer? {
        guard let track = file.tracks.first(where: { $0.handler == "vide" }) else {
            throw ParseError(.unsupported, path: path, "\(path) has no video track")
        }
        guard let entry = track.sampleEntries.first, entry.type == "hvc1" || entry.type == "hev1",
            let hvcC = entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record
        else { return nil }
        let p = try HEVCTrackProducer(path: path, file: file, track: track, hvcC: hvcC, limits: limits)
        p.colour = try HEVCTrackProducer.statedColour(hvcC: hvcC, entry: entry, firstSample: p.firstSampleNALUnits())
        return p
    }

    /// What the track states about its colour: the SPS VUI of its `hvcC`, the mastering display and content light
    /// level of its SEI (`hvcC`, else the first sample) or of its `mdcv`/`clli` boxes.
    public static func statedColour(hvcC: [UInt8], entry: Box, firstSample: [NALUnit]) throws(ParseError)
        -> VideoColour?
    {
        let rec = try HEVCDecoderConfigurationRecord(parsing: hvcC)
        var nals: [NALUnit] = []
        for a in rec.arrays { for b in a.nalUnits { if let n = try? NALUnit(bytes: b) { nals.append(n) } } }
        guard let spsNAL = nals.first(where: { $0.type == .sps }), let sps = try? SequenceParameterSet(nal: spsNAL),
            var c = VideoColour(vui: sps.vui, present: sps.vuiPresent)
        else { return nil }
        c.adoptHDRMessages(from: nals + firstSample)
        if c.masteringDisplay == nil, case .raw(let b)? = entry.child("mdcv")?.fields, b.count == 24 {
            c.masteringDisplay = b
        }
        if c.contentLightLevel == nil, case .raw(let b)? = entry.child("clli")?.fields, b.count == 4 {
            c.contentLightLevel = b
        }
        return c
    }

    /// The NAL units of the first sample (for its SEI).
    func firstSampleNALUnits() -> [NALUnit] {
        guard let s = samples.first, let bytes = try? file.readBytes(at: s.offset, count: Int(s.size)) else {
            return []
        }
        return (try? LengthPrefixed.split(bytes, lengthSize: lengthSize, limits: limits)) ?? []
    }

    /// What the track states about its colour (set when the producer opens).
    public private(set) var colour: VideoColour?

    public init(path: String, file: ISOFile, track: Track, hvcC: [UInt8], limits: Limits) throws(ParseError) {
        self.path = path; self.file = file; self.hvcC = hvcC; self.limits = limits
        lengthSize = try HEVCDecoderConfigurationRecord(parsing: hvcC).lengthSize
        samples = try track.samples(limits: limits)
        guard !samples.isEmpty else {
            throw ParseError(.truncated, path: path, "the video track has no samples (zero frames)")
        }
        let ts = Int(track.timescale), d = Int(samples[0].duration)
        if ts > 0 && d > 0 {
            var a = ts, b = d
            while b != 0 { (a, b) = (b, a % b) }
            fpsNum = ts / a; fpsDen = d / a
        } else {
            fpsNum = 30; fpsDen = 1
        }
        budget = limits.maxBoxInMemory
        // Decode the first IDR period now: the picture size comes from the decoder.
        try decodeNextPeriod()
        guard let first = pending.first else {
            throw ParseError(.truncated, path: path, "libde265 decoded no picture from the first samples")
        }
        width = first.width; height = first.height; format = first.format; bitDepth = first.bitDepth
    }

    func isIDROrBLA(_ bytes: [UInt8]) -> Bool {
        guard let nals = try? LengthPrefixed.split(bytes, lengthSize: lengthSize, limits: limits) else { return false }
        guard let vcl = nals.first(where: { $0.type.isVCL && $0.layerId == 0 }) else { return false }
        return (16...20).contains(Int(vcl.type.rawValue))
    }

    func decodeNextPeriod() throws(ParseError) {
        guard nextSample < samples.count else { return }
        var data: [UInt8] = []
        var count = 0
        var frameBytes: UInt64 = 0
        while nextSample < samples.count {
            let s = samples[nextSample]
            let bytes = try file.readBytes(at: s.offset, count: Int(s.size))
            if count > 0 && isIDROrBLA(bytes) { break }
            data += bytes
            count += 1
            nextSample += 1
            if width > 0 { frameBytes = UInt64(count) * UInt64(width * height) * 3 }
            if frameBytes > budget || UInt64(data.count) > budget {
                throw ParseError(
                    .limitExceeded, offset: s.offset, path: path,
                    "the HEVC track has more than \(count) frames without an IDR picture (open GOP); the built-in decoder restarts at IDR pictures only and would hold them all in memory — install ffmpeg (or set SPATIAL_MEDIA_FFMPEG) and decode with FFmpeg",
                    remedy: .decodeWithFFmpeg)
            }
        }
        let pics = try HEVCDecoder.decode(hvcC: hvcC, data: data, limits: limits)
        guard pics.count == count else {
            throw ParseError(
                .invalidValue, path: path,
                "libde265 returned \(pics.count) pictures for \(count) samples (leading pictures of an open GOP?); try decoding with FFmpeg",
                remedy: .decodeWithFFmpeg)
        }
        pending = pics
        pendingPos = 0
    }

    public func next() throws(ParseError) -> Image? {
        if pendingPos >= pending.count {
            pending = []
            try decodeNextPeriod()
            if pending.isEmpty { return nil }
        }
        let img = pending[pendingPos]
        pendingPos += 1
        return img
    }
    public func finish() throws(ParseError) {}
    public func abort() {}
}
