import BinaryIO
import ISOBMFF
import SystemSupport

// MARK: Ultra HDR / Adobe XMP

extension GainMapMetadata {
    /// The `hdrgm` fields of a gain-map image's XMP as written (Ultra HDR 1.0 / Adobe gain map 1.0), before mapping.
    public struct HDRGM: Sendable, Equatable {
        public var version: String
        public var baseRenditionIsHDR: Bool
        /// Per field, one value or three (an `rdf:Seq`): GainMapMin, GainMapMax, Gamma, OffsetSDR, OffsetHDR.
        public var gainMapMin: [String], gainMapMax: [String], gamma: [String], offsetSDR: [String], offsetHDR: [String]
        public var hdrCapacityMin: String, hdrCapacityMax: String
    }

    /// Reads the `hdrgm` fields of an XMP packet, written as attributes (`hdrgm:Gamma="1.0"`) or elements (one value,
    /// or an `rdf:Seq` of three). Nil when the packet has no `hdrgm:Version`. Defaults of the published format apply to
    /// absent optional fields: GainMapMin 0, Gamma 1, OffsetSDR and OffsetHDR 1/64, HDRCapacityMin 0,
    /// BaseRenditionIsHDR False; GainMapMax and HDRCapacityMax are required.
    public static func hdrgmFields(xmp: [UInt8]) throws(ParseError) -> HDRGM? {
        guard xmp.count <= 1 << 20 else {
            throw ParseError(.limitExceeded, "XMP packet of \(xmp.count) bytes")
        }
        let text = String(decoding: xmp, as: UTF8.self)
        guard let version = XMPText.values(of: "hdrgm:Version", in: text)?.first else { return nil }
        func field(_ name: String, _ fallback: String?) throws(ParseError) -> [String] {
            if let v = XMPText.values(of: "hdrgm:" + name, in: text), !v.isEmpty {
                guard v.count == 1 || v.count == 3 else {
                    throw ParseError(.invalidValue, "hdrgm:\(name) has \(v.count) values (1 or 3 expected)")
                }
                return v
            }
            if let fallback { return [fallback] }
            throw ParseError(.invalidValue, "gain-map XMP without the required hdrgm:\(name)")
        }
        let hdr = (XMPText.values(of: "hdrgm:BaseRenditionIsHDR", in: text)?.first ?? "False").lowercased() == "true"
        return HDRGM(
            version: version, baseRenditionIsHDR: hdr, gainMapMin: try field("GainMapMin", "0"),
            gainMapMax: try field("GainMapMax", nil),
            gamma: try field("Gamma", "1"), offsetSDR: try field("OffsetSDR", "0.015625"),
            offsetHDR: try field("OffsetHDR", "0.015625"),
            hdrCapacityMin: try field("HDRCapacityMin", "0")[0], hdrCapacityMax: try field("HDRCapacityMax", nil)[0])
    }

    /// The metadata of an `hdrgm` XMP packet mapped onto ISO 21496-1 (Adobe's published mapping): with an SDR base
    /// (BaseRenditionIsHDR False) the base headroom is HDRCapacityMin, the alternate's HDRCapacityMax, the base offset
    /// OffsetSDR and the alternate's OffsetHDR; with an HDR base the pairs swap. Min, max and gamma map one to one; the
    /// map applies in the base colour space. Decimal values are kept as exact rationals when they fit. Nil without
    /// `hdrgm`.
    public init?(hdrgmXMP xmp: [UInt8]) throws(ParseError) {
        guard let g = try Self.hdrgmFields(xmp: xmp) else { return nil }
        func frac(_ s: String, _ name: String, unsigned: Bool = false) throws(ParseError) -> Fraction {
            guard let f = Fraction.decimal(s, unsigned: unsigned) else {
                throw ParseError(
                    .invalidValue, "hdrgm:\(name) '\(s.prefix(40))' is not a number that fits the ISO 21496-1 fields")
            }
            return f
        }
        let n = [g.gainMapMin, g.gainMapMax, g.gamma, g.offsetSDR, g.offsetHDR].map(\.count).max() ?? 1
        var list: [Channel] = []
        for i in 0..<n {
            func at(_ v: [String]) -> String { v.count == 3 ? v[i] : v[0] }
            let sdr = try frac(at(g.offsetSDR), "OffsetSDR"), hdr = try frac(at(g.offsetHDR), "OffsetHDR")
            let gamma = try frac(at(g.gamma), "Gamma", unsigned: true)
            guard gamma.numerator > 0 else { throw ParseError(.invalidValue, "hdrgm:Gamma must be above 0") }
            list.append(
                Channel(
                    gainMapMin: try frac(at(g.gainMapMin), "GainMapMin"),
                    gainMapMax: try frac(at(g.gainMapMax), "GainMapMax"),
                    gamma: gamma, baseOffset: g.baseRenditionIsHDR ? hdr : sdr,
                    alternateOffset: g.baseRenditionIsHDR ? sdr : hdr))
        }
        let capMin = try frac(g.hdrCapacityMin, "HDRCapacityMin", unsigned: true),
            capMax = try frac(g.hdrCapacityMax, "HDRCapacityMax", unsigned: true)
        self.init(
            baseHeadroom: g.baseRenditionIsHDR ? capMax : capMin,
            alternateHeadroom: g.baseRenditionIsHDR ? capMin : capMax, channels: list)
    }
}

/// A bounded reader of simple XMP values (attributes and elements) for the few fields the image readers need.
public enum XMPText {
    /// The values of `qualified` (e.g. `hdrgm:GainMapMax`) in `text`: an attribute `name="v"` / `name='v'`, an element
    /// `<name>v</name>`, or the `rdf:li` items of an element holding an `rdf:Seq`/`rdf:Bag`/`rdf:Alt`. Nil when absent.
    public static func values(of qualified: String, in text: String) -> [String]? {
        let s = Array(text.utf8)
        let name = Array(qualified.utf8)
        guard !name.isEmpty, s.count >= name.count else { return nil }
        var i = 0
        while i + name.count <= s.count {
            guard let at = find(name, in: s, from: i) else { return nil }
            let after = at + name.count
            let before = at > 0 ? s[at - 1] : 0x20
            i = after
            guard after < s.count else { return nil }
            // Attribute: name="…" (not part of a longer name).
            if before == 0x20 || before == 0x0A || before == 0x0D || before == 0x09 {
                var p = after
                while p < s.count, s[p] == 0x20 || s[p] == 0x0A || s[p] == 0x0D || s[p] == 0x09 { p += 1 }
                if p < s.count, s[p] == 0x3D {  // =
                    p += 1
                    while p < s.count, s[p] == 0x20 { p += 1 }
                    guard p < s.count, s[p] == 0x22 || s[p] == 0x27 else { continue }
                    let q = s[p]
                    guard let end = s[(p + 1)...].firstIndex(of: q) else { return nil }
                    return [String(decoding: s[(p + 1)..<end], as: UTF8.self)]
                }
            }
            // Element: <name>…</name>
            if before == 0x3C, s[after] == 0x3E {
                let close = Array("</".utf8) + name + [0x3E]
                guard let end = find(close, in: s, from: after + 1) else { return nil }
                let inner = Array(s[(after + 1)..<end])
                let li = items(inner)
                if !li.isEmpty { return li }
                return [String(decoding: inner, as: UTF8.self).trimmingSpaces]
            }
        }
        return nil
    }

    /// The text of each `<rdf:li>…</rdf:li>` in `inner`.
    static func items(_ inner: [UInt8]) -> [String] {
        let open = Array("<rdf:li".utf8), close = Array("</rdf:li>".utf8)
        var out: [String] = []
        var p = 0
        while out.count < 16, let a = find(open, in: inner, from: p),
            let gt = inner[(a + open.count)...].firstIndex(of: 0x3E),
            let b = find(close, in: inner, from: gt + 1)
        {
            out.append(String(decoding: inner[(gt + 1)..<b], as: UTF8.self).trimmingSpaces)
            p = b + close.count
        }
        return out
    }

    static func find(_ needle: [UInt8], in hay: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, from >= 0, hay.count >= needle.count, from <= hay.count - needle.count else {
            return nil
        }
        let first = needle[0]
        var i = from
        while i <= hay.count - needle.count {
            if hay[i] == first {
                var ok = true
                for k in 1..<needle.count where hay[i + k] != needle[k] { ok = false; break }
                if ok { return i }
            }
            i += 1
        }
        return nil
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line ends.
    var trimmingSpaces: String {
        let ws: Set<Character> = [" ", "\n", "\r", "\t"]
        var s = Substring(self)
        while let f = s.first, ws.contains(f) { s.removeFirst() }
        while let l = s.last, ws.contains(l) { s.removeLast() }
        return String(s)
    }
}

/// The HDR gain map a JPEG carries as a further MPF picture (Ultra HDR, Adobe / ISO 21496-1, Apple), with its metadata.
public struct JPEGGainMap: Sendable {
    /// Index of the picture in the MP index.
    public var index: Int
    /// Its MP type code.
    public var type: UInt32
    public var evidence: MPO.GainMapEvidence
    /// The gain map's own JPEG bytes (its MPF segment included, as stored).
    public var jpeg: [UInt8]
    public var width: Int
    public var height: Int
    /// Its metadata mapped onto ISO 21496-1; nil for Apple's form (parameters in Apple's XMP and maker note).
    public var metadata: GainMapMetadata?
    /// Where ``metadata`` was read: "ISO 21496-1 block", "hdrgm XMP (Ultra HDR / Adobe)", or "Apple XMP".
    public var metadataSource: String
    /// The gain map's XMP packet, when it has one.
    public var xmp: [UInt8]?
    /// The EXIF orientation the reader applied to the primary picture (1: none); the map is turned the same way.
    public var orientation = 1

    /// True for Apple's gain map (`urn:com:apple:photo:2020:aux:hdrgainmap`).
    public var isApple: Bool { evidence == .apple }

    /// The gain map of `data` (a JPEG whose MP index `mpo` names a gain-map picture), or nil when it has none.
    /// Throws when the picture's metadata cannot be read (a gain map without usable metadata cannot be applied).
    public static func read(_ data: [UInt8], mpo: MPO) throws(ParseError) -> JPEGGainMap? {
        guard let i = mpo.gainMapIndex, let evidence = mpo.pictures[i].gainMap else { return nil }
        let jpeg = mpo.jpeg(i, in: data)
        let s = try JPEGSegments(jpeg)
        guard let f = s.frame else {
            throw ParseError(
                .truncated, offset: UInt64(mpo.pictures[i].range.lowerBound), "the gain-map picture has no frame header"
            )
        }
        let xmp = MPO.xmp(s)
        var g = JPEGGainMap(
            index: i, type: mpo.type(i), evidence: evidence, jpeg: jpeg, width: f.width, height: f.height,
            metadata: nil,
            metadataSource: "", xmp: xmp)
        if let iso = MPO.isoBlock(s), iso.count > 4 {
            g.metadata = try GainMapMetadata(iso: iso)
            g.metadataSource = "ISO 21496-1 block"
        } else if let xmp, let m = try GainMapMetadata(hdrgmXMP: xmp) {
            g.metadata = m
            g.metadataSource = "hdrgm XMP (Ultra HDR / Adobe)"
        } else if let xmp, String(decoding: xmp, as: UTF8.self).contains("urn:com:apple:photo:2020:aux:hdrgainmap") {
            g.evidence = .apple
            g.metadataSource = "Apple XMP"
        } else {
            throw ParseError(
                .invalidValue, offset: UInt64(mpo.pictures[i].range.lowerBound),
                "MPF picture \(i + 1) is named a gain map but has no gain-map metadata (no hdrgm XMP, no ISO 21496-1 block)"
            )
        }
        return g
    }

    /// "HDR gain map 64x48 (MPF picture 2, MP type undefined; hdrgm XMP (Ultra HDR / Adobe): …)".
    public var description: String {
        "\(isApple ? "Apple HDR gain map" : "HDR gain map") \(width)x\(height) (MPF picture \(index + 1), MP type \(MPO.TypeCode.name(type)); "
            + "\(metadataSource)\(metadata.map { ": " + $0.summary } ?? ""))"
    }
}
