import BinaryIO
import ISOBMFF
import ImageFormats
import SpatialMedia
import SystemSupport

/// The stereo values of one eye written by `split` into the eye's own file, and read back by a conversion of the two
/// eyes, so that `split` then `convert` keeps the source's baseline, field of view, disparity adjustment and hero eye
/// instead of the defaults.
///
/// The values go in an XMP packet under a small namespace of our own (``namespace``, prefix `smeye`): in a PNG an
/// `iTXt` chunk with the keyword `XML:com.adobe.xmp`, in a JPEG the standard XMP APP1 segment, in an MP4/MOV a
/// top-level `uuid` box with the XMP UUID. Each value is an attribute in stored units (Specs/formats.md §9).
public enum EyeStereoXMP {
    /// Our namespace (`.invalid`: it names nothing on the network; only the text matters).
    public static let namespace = "http://ns.spatial-media.invalid/eye/1.0/"
    /// The prefix written (a reader requires it to be bound to ``namespace``).
    public static let prefix = "smeye"
    /// The `uuid` extended type of XMP in an ISO BMFF file (Adobe XMP Specification Part 3).
    public static let movieUUID: [UInt8] = [
        0xBE, 0x7A, 0xCF, 0xCB, 0x97, 0xA9, 0x42, 0xE8, 0x9C, 0x71, 0x99, 0x94, 0x91, 0xE3, 0xAF, 0xAC,
    ]
    /// XMP packets larger than this are not read (an eye's packet is a few hundred bytes; a JPEG APP1 holds 64 KiB).
    static let maxPacket = 1 << 20

    /// What one eye's file says about the pair it came from.
    public struct Values: Sendable, Equatable {
        /// Which eye this file is (`left` / `right`), when stated.
        public var eye: String?
        /// Baseline, field of view, disparity adjustment and hero eye in stored units (nil: not stated or out of
        /// range).
        public var stereo = StereoParameters()
        /// Values stated but out of their field's range, left out.
        public var refused: [String] = []
        public init(eye: String? = nil, stereo: StereoParameters = StereoParameters()) {
            self.eye = eye; self.stereo = stereo
        }
    }

    /// The `rdf:Description` holding `stereo` (only the values it has) for `eye`.
    public static func description(eye: String, stereo s: StereoParameters) -> String {
        var attrs = ["\(prefix):Eye=\"\(eye == "right" ? "right" : "left")\""]
        if let b = s.baselineMicrometres { attrs.append("\(prefix):BaselineMicrometres=\"\(b)\"") }
        if let f = s.horizontalFieldOfViewMillidegrees {
            attrs.append("\(prefix):HorizontalFieldOfViewMillidegrees=\"\(f)\"")
        }
        if let d = s.disparityAdjustment { attrs.append("\(prefix):DisparityAdjustment=\"\(d)\"") }
        switch s.heroEye {
        case .left?: attrs.append("\(prefix):HeroEye=\"left\"")
        case .right?: attrs.append("\(prefix):HeroEye=\"right\"")
        default: break
        }
        return "<rdf:Description rdf:about=\"\" xmlns:\(prefix)=\"\(namespace)\"\n      "
            + attrs.joined(separator: "\n      ") + "/>"
    }

    /// An XMP packet with `eye`'s values, merged into the eye's own packet `existing` when it has one (our
    /// description added to its `rdf:RDF`, replacing one of ours already there) and the result fits a JPEG APP1
    /// segment; a packet of its own otherwise.
    public static func packet(eye: String, stereo: StereoParameters, mergedInto existing: [UInt8]? = nil) -> [UInt8] {
        let ours = description(eye: eye, stereo: stereo)
        // Merged only while the result fits one JPEG APP1 segment (64 KiB with its header); else ours alone.
        if let existing, existing.count <= maxPacket {
            var text = String(decoding: existing, as: UTF8.self)
            text = removingOurDescription(text)
            if let end = text.ranges(of: "</rdf:RDF>").last {
                text.replaceSubrange(end.lowerBound..<end.lowerBound, with: ours + "\n")
                let merged = Array(text.utf8)
                if merged.count <= 65_000 { return merged }
            }
        }
        let text =
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n"
            + " <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n  "
            + ours + "\n </rdf:RDF>\n</x:xmpmeta>\n"
        return Array(text.utf8)
    }

    /// `text` without the self-closing `rdf:Description` that binds our namespace (one we wrote earlier).
    static func removingOurDescription(_ text: String) -> String {
        guard let ns = text.firstRange(of: "xmlns:\(prefix)=\"\(namespace)\""),
            let open = text[..<ns.lowerBound].ranges(of: "<rdf:Description").last,
            let close = text[ns.upperBound...].firstRange(of: "/>")
        else { return text }
        var out = text
        out.removeSubrange(open.lowerBound..<close.upperBound)
        return out
    }

    /// The values of `s` in human units for a report ("baseline 63.774 mm, field of view 80°, disparity 2.93 %").
    public static func summary(_ s: StereoParameters) -> String {
        var parts: [String] = []
        if let b = s.baselineMillimetres {
            parts.append("baseline \(NumberText.fixed(b, places: 3, trimZeros: true)) mm")
        }
        if let f = s.horizontalFieldOfViewDegrees {
            parts.append("field of view \(NumberText.fixed(f, places: 3, trimZeros: true))°")
        }
        if let d = s.disparityPercent {
            parts.append("disparity adjustment \(NumberText.fixed(d, places: 2, trimZeros: true)) %")
        }
        if let h = s.heroEye { parts.append("hero eye \(h)") }
        return parts.isEmpty ? "none" : parts.joined(separator: ", ")
    }

    /// The values of an XMP packet; nil when it does not bind our namespace to ``prefix``.
    public static func values(xmp: [UInt8]) -> Values? {
        guard xmp.count <= maxPacket else { return nil }
        let text = String(decoding: xmp, as: UTF8.self)
        guard text.contains("xmlns:\(prefix)=\"\(namespace)\"") || text.contains("xmlns:\(prefix)='\(namespace)'")
        else { return nil }
        func value(_ name: String) -> String? { XMPText.values(of: "\(prefix):\(name)", in: text)?.first }
        var v = Values()
        if let e = value("Eye") {
            if e == "left" || e == "right" { v.eye = e } else { v.refused.append("Eye \"\(e)\"") }
        }
        func integer(_ name: String, _ range: ClosedRange<Int64>) -> Int64? {
            guard let t = value(name) else { return nil }
            guard let n = Int64(t), range.contains(n) else { v.refused.append("\(name) \"\(t)\""); return nil }
            return n
        }
        v.stereo.baselineMicrometres = integer("BaselineMicrometres", 0...Int64(UInt32.max)).map { UInt32($0) }
        v.stereo.horizontalFieldOfViewMillidegrees = integer("HorizontalFieldOfViewMillidegrees", 1...179_999).map {
            UInt32($0)
        }
        v.stereo.disparityAdjustment = integer("DisparityAdjustment", -10_000...10_000).map { Int32($0) }
        switch value("HeroEye") {
        case "left"?: v.stereo.heroEye = .left
        case "right"?: v.stereo.heroEye = .right
        case let h?: v.refused.append("HeroEye \"\(h)\"")
        case nil: break
        }
        return v
    }
}

extension EyeStereoXMP {
    /// The values an eye file states: a JPEG's XMP APP1, a PNG's `iTXt` XMP, an MP4/MOV's top-level XMP `uuid` box.
    /// Nil for any other file, one without our values, or one that cannot be read (reading the eye itself reports
    /// that).
    public static func read(path: String, limits: Limits = .default) -> Values? {
        guard let src = try? FileSource(path: path), src.size >= 8, let head = try? src.read(at: 0, count: 8) else {
            return nil
        }
        switch FileProbe.kind(head: head) {
        case .jpeg:
            let n = Int(min(src.size, UInt64(4 << 20)))
            guard let bytes = try? src.read(at: 0, count: n), let s = try? JPEGSegments(bytes), let x = MPO.xmp(s)
            else { return nil }
            return values(xmp: x)
        case .png: return PNGXMP.packet(in: src, maxBytes: maxPacket).flatMap { values(xmp: $0) }
        case .movie: return movieXMP(path, limits: limits).flatMap { values(xmp: $0) }
        default: return nil
        }
    }

    /// The payload of a top-level `uuid` box with the XMP UUID, read through the box parser.
    static func movieXMP(_ path: String, limits: Limits) -> [UInt8]? {
        guard let file = try? ISOFile.open(path: path, limits: limits),
            let box = file.boxes.first(where: { $0.type == "uuid" && $0.header.userType == movieUUID })
        else { return nil }
        switch box.fields {
        case .raw(let bytes): return bytes.count <= maxPacket ? bytes : nil
        case .fileRange(let offset, let length):
            return length <= UInt64(maxPacket) ? try? file.source.read(at: offset, count: Int(length)) : nil
        default: return nil
        }
    }

    /// Appends a top-level XMP `uuid` box holding `packet` to the movie at `path` (an output being written: nothing
    /// else moves, so no offset changes). Refused when the file's top-level boxes do not end exactly at its end (a box
    /// running to the end of the file, trailing bytes), where an appended box would not be read as one.
    public static func appendToMovie(path: String, packet: [UInt8]) throws(ParseError) {
        let file = try ISOFile.open(path: path)
        if file.boxes.last?.header.form == .toEnd {
            throw ParseError(
                .unsupported, path: path, "the movie's last box runs to the end of the file: no box can follow it")
        }
        guard case .none = file.tail else {
            throw ParseError(.unsupported, path: path, "the movie has bytes after its last box")
        }
        guard let size = UInt32(exactly: 8 + 16 + packet.count) else {
            throw ParseError(.invalidValue, path: path, "the XMP packet is too large for a box")
        }
        var w = ByteWriter()
        w.writeU32(size)
        w.writeFourCC("uuid")
        w.write(movieUUID)
        w.write(packet)
        let out = try WritableFile(path: path)
        defer { out.close() }
        try out.write(w.bytes, at: file.source.size)
        try out.sync()
    }
}
