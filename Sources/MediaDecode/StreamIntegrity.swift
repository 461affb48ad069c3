import BinaryIO
import ImageFormats

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether an input that FFmpeg reads (Matroska, MPEG-TS, AVI, …) is whole: the same question
/// ``/ISOBMFF/ISOFile/requireIntact(limits:operation:)`` answers for the files we parse ourselves, with the same words
/// ("damaged or truncated") and rule (SV-FILE-002, Specs/validation.md).
///
/// An input is damaged or truncated when its container's own framing says so (``containerFaults(path:)``), when
/// FFmpeg reports an error while reading it (a demuxer's "File ended prematurely", a decoder's broken picture), or
/// when it holds fewer frames than its stated duration (``shortfall(read:stated:)``).
public enum StreamIntegrity {
    /// Faults of the container's framing found from the file alone, without FFmpeg: an MPEG transport stream
    /// (188-byte packets, or 192 with a time stamp) whose size is not a whole number of packets (its last packet is
    /// cut); a Matroska Segment whose stated size runs past the end of the file. Empty when none is found (or the file
    /// is neither).
    public static func containerFaults(path: String) -> [String] {
        guard let src = try? FileSource(path: path), src.size > 0 else { return [] }
        let size = src.size
        guard let head = try? src.read(at: 0, count: Int(min(size, 400))) else { return [] }
        if let packet = transportPacketSize(head), size % UInt64(packet) != 0 {
            let part = size % UInt64(packet)
            let whole = size / UInt64(packet)
            return [
                "the file ends \(part) bytes into a \(packet)-byte transport packet (\(whole) whole packets): its last packet is cut short"
            ]
        }
        if head.starts(with: Array("YUV4MPEG2 ".utf8)), let cut = y4mCut(path: path) { return [cut] }
        if let end = matroskaSegmentEnd(head), end > size {
            return [
                "its Matroska Segment states \(end) bytes of file, but the file ends after \(size) "
                    + "(\(end - size) bytes missing)"
            ]
        }
        return []
    }

    /// The reason a Y4M file is cut short (its last frame incomplete, or not a FRAME where one should start), read
    /// frame by frame with the reader `convert` uses; nil when it is whole.
    static func y4mCut(path: String) -> String? {
        guard let reader = try? Y4M.Reader(path: path) else { return nil }
        do throws(ParseError) {
            while try reader.next() != nil {}
            return nil
        } catch {
            return error.message
        }
    }

    /// 188 or 192 when `head` starts like an MPEG transport stream (sync byte 0x47 at the start of each of the first
    /// packets), else nil.
    static func transportPacketSize(_ head: [UInt8]) -> Int? {
        for (packet, first) in [(188, 0), (192, 4)] {
            let starts = Array(stride(from: first, to: head.count, by: packet).prefix(3))
            if starts.count >= 2, starts.allSatisfy({ head[$0] == 0x47 }) { return packet }
        }
        return nil
    }

    /// The file offset where a Matroska Segment of known size ends: EBML header element (ID 0x1A45DFA3), then the
    /// Segment (ID 0x18538067) and its size. Nil when the head is not Matroska or the Segment's size is unknown (a
    /// live-written file states none).
    static func matroskaSegmentEnd(_ head: [UInt8]) -> UInt64? {
        guard head.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) else { return nil }
        guard let headerSize = vint(head, at: 4), let h = headerSize.value else { return nil }
        let (segmentAt, o1) = (4 + headerSize.length).addingReportingOverflow(Int(clamping: h))
        guard !o1, segmentAt <= head.count - 4,
            head[segmentAt..<(segmentAt + 4)].elementsEqual([0x18, 0x53, 0x80, 0x67])
        else { return nil }
        guard let segmentSize = vint(head, at: segmentAt + 4), let s = segmentSize.value else { return nil }
        let (end, o2) = UInt64(segmentAt + 4 + segmentSize.length).addingReportingOverflow(s)
        return o2 ? nil : end
    }

    /// An EBML variable-size integer at `at`: its length in bytes and its value (nil when all value bits are set,
    /// "unknown size").
    static func vint(_ b: [UInt8], at: Int) -> (length: Int, value: UInt64?)? {
        guard at >= 0, at < b.count, b[at] != 0 else { return nil }
        let length = b[at].leadingZeroBitCount + 1
        guard at + length <= b.count else { return nil }
        var v = UInt64(b[at] & (0xFF >> length))
        var allOnes = v == UInt64(0xFF >> length)
        for i in 1..<length {
            v = v << 8 | UInt64(b[at + i])
            allOnes = allOnes && b[at + i] == 0xFF
        }
        return (length, allOnes ? nil : v)
    }

    /// Frames a stream must at least hold to be whole when it states `stated`: a frame or two, or 5 %, may go to
    /// rounding of a stated duration or to a container duration that counts another stream's last packet.
    public static func shortfall(read: Int, stated: Int?) -> Bool {
        guard let stated, stated > 0 else { return false }
        return read < stated - max(2, stated / 20)
    }

    /// The frames a stream states from its duration and rate, when both are known.
    public static func statedFrames(_ probe: MediaProbe) -> Int? {
        guard let d = probe.videoDurationSeconds ?? probe.durationSeconds, d > 0,
            let r = probe.frameRate, r.den > 0
        else { return nil }
        let n = (d * Double(r.num) / Double(r.den)).rounded()
        return n < 1e9 ? Int(n) : nil
    }

    /// One sentence saying why an input is damaged or truncated, or nil when nothing says so: the container's faults,
    /// the frames read against the frames stated, and FFmpeg's own error lines (at most three).
    public static func verdict(read: Int, stated: Int?, errors: [String], container: [String]) -> String? {
        var why: [String] = container
        if shortfall(read: read, stated: stated), let stated {
            why.append("\(read) of the \(stated) frames its stated duration holds were read")
        }
        if !errors.isEmpty {
            let shown = errors.prefix(3).joined(separator: "; ")
            let more = errors.count > 3 ? " (and \(errors.count - 3) more)" : ""
            why.append("FFmpeg reported errors while reading it: \(shown)\(more)")
        }
        guard !why.isEmpty else { return nil }
        var text = "the input is damaged or truncated: " + why.joined(separator: "; ")
        if !shortfall(read: read, stated: stated) { text += " (\(read) frames read)" }
        return text
    }

    /// Error lines of FFmpeg shown harmless to the picture, each with why: they are about metadata this library reads
    /// itself, not about the coded pictures or the container's framing.
    static let harmless: [(text: String, why: String)] = [
        (
            "Unknown projection type",
            "FFmpeg's MOV demuxer cannot read a Google mesh projection (sv3d/proj/mshp); our own box parser reads it"
        )
    ]

    /// FFmpeg's error lines in its standard-error text (lines joined with " | " by ``ChildProcess``), without the
    /// statistics lines and without its line prefixes' addresses.
    static func errorLines(_ text: String) -> [String] {
        var kept: [String] = []
        for piece in text.split(whereSeparator: { $0 == "\r" || $0 == "|" || $0 == "\n" }) {
            var t = Substring(piece)
            while t.first == " " { t = t.dropFirst() }
            while t.last == " " { t = t.dropLast() }
            if t.isEmpty || t.hasPrefix("frame=") || t.hasPrefix("size=") || t.hasPrefix("video:") { continue }
            if harmless.contains(where: { t.contains($0.text) }) { continue }
            let line = withoutAddresses(String(t))
            if !kept.contains(line) { kept.append(line) }
        }
        return kept
    }

    /// "[h264 @ 0x55d0c2a1b140] error while decoding MB 3 3" → "[h264] error while decoding MB 3 3": the same
    /// words on every run.
    static func withoutAddresses(_ line: String) -> String {
        guard let at = line.firstRange(of: " @ 0x") else { return line }
        let rest = line[at.upperBound...].drop { $0.isHexDigit }
        return String(line[..<at.lowerBound]) + rest
    }

    /// FFmpeg's own account of a failure, for a person: its error lines without addresses, statistics or the lines that
    /// only echo the failure of another ("Terminating thread with return code -22", "Nothing was written into output
    /// file", "Conversion failed!"), at most four; the status when nothing else is left.
    public static func failureText(_ stderrText: String, status: Int32) -> String {
        let echoes = [
            "Terminating thread with return code", "Nothing was written into output file", "Conversion failed!",
            "Error while filtering", "Error while processing the decoded data", "Task finished with error code",
        ]
        let causes = errorLines(stderrText).filter { line in !echoes.contains { line.contains($0) } }
        guard !causes.isEmpty else { return "FFmpeg stopped with exit status \(status) without saying why" }
        return causes.prefix(4).joined(separator: "; ") + (causes.count > 4 ? " (and \(causes.count - 4) more)" : "")
    }

    /// Reads every packet of the first video stream with FFmpeg without decoding (`-c copy` to the null muxer) and
    /// returns ``verdict(read:stated:errors:container:)``: what `validate` and `info` say about an input FFmpeg reads.
    public static func scan(path: String, tool: FFmpegTool, probe: MediaProbe) throws(ParseError) -> String? {
        let stream = probe.video.map { "0:\($0.index)" } ?? "0:v:0"
        let child = try ChildProcess(
            executable: tool.path,
            arguments: [
                "-nostdin", "-hide_banner", "-v", "error", "-stats", "-stats_period", "86400", "-i", path,
                "-map", stream, "-c", "copy", "-f", "null", "-",
            ])
        _ = child.readToEnd(limit: 1 << 16)
        let status = child.wait()
        let text = child.errorText(max: 1 << 15)
        var errors = errorLines(text)
        if status != 0 && errors.isEmpty { errors = ["ffmpeg exit status \(status)"] }
        let read = FFmpegProducer.statistic("frame=", in: text)
        return verdict(read: read, stated: statedFrames(probe), errors: errors, container: containerFaults(path: path))
    }
}
