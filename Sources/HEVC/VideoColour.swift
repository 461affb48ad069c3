import BinaryIO
import SystemSupport

/// What a video states about its colour: the H.273 code points of its colour description and range, and its HDR static
/// metadata (mastering display colour volume, content light level). The one description a conversion carries from its
/// input to the VUI of both layers, the VPS VUI, `colr`, `mdcv`/`clli` and the SEI of its output (Specs/conversion.md,
/// "Colour as recorded").
public struct VideoColour: Sendable, Equatable, Codable {
    /// H.273 colour primaries (1 BT.709, 9 BT.2020, 2 unspecified).
    public var primaries: Int
    /// H.273 transfer characteristics (1 BT.709, 16 PQ, 18 HLG, 2 unspecified).
    public var transfer: Int
    /// H.273 matrix coefficients (1 BT.709, 9 BT.2020 non-constant, 6 BT.601, 2 unspecified).
    public var matrix: Int
    /// Luma spans the whole sample range (`video_full_range_flag` 1).
    public var fullRange: Bool
    /// The 24 bytes of a mastering display colour volume (SEI payload 137 and the `mdcv` box have one layout): G, B, R
    /// primaries and white point (x, y in 0.00002 units, u16 each), then max and min luminance (0.0001 cd/m², u32).
    public var masteringDisplay: [UInt8]?
    /// The 4 bytes of a content light level (SEI payload 144 and `clli`): MaxCLL, MaxFALL (cd/m², u16 each).
    public var contentLightLevel: [UInt8]?
    /// True when the source stated a colour description (false: nothing was stated and the defaults stand in).
    public var stated: Bool

    public init(
        primaries: Int, transfer: Int, matrix: Int, fullRange: Bool, masteringDisplay: [UInt8]? = nil,
        contentLightLevel: [UInt8]? = nil, stated: Bool = true
    ) {
        self.primaries = primaries; self.transfer = transfer; self.matrix = matrix; self.fullRange = fullRange
        self.masteringDisplay = masteringDisplay; self.contentLightLevel = contentLightLevel; self.stated = stated
    }

    /// BT.709 limited range, stated by nobody: what a conversion writes for a source that says nothing.
    public static let unstatedDefault = VideoColour(
        primaries: 1, transfer: 1, matrix: 1, fullRange: false, stated: false)

    /// PQ (SMPTE ST 2084) or HLG (ARIB STD-B67): a high dynamic range transfer.
    public var isHDR: Bool { transfer == 16 || transfer == 18 }

    /// The colour of an SPS VUI, or nil when it states neither range nor colour description.
    public init?(vui: VUIParameters, present: Bool) {
        guard present, vui.videoSignalTypePresent else { return nil }
        let d = vui.colourDescriptionPresent
        self.init(
            primaries: d ? Int(vui.colourPrimaries) : 2, transfer: d ? Int(vui.transferCharacteristics) : 2,
            matrix: d ? Int(vui.matrixCoeffs) : 2, fullRange: vui.videoFullRange)
    }

    /// Takes the mastering display (137) and content light level (144) messages of `sei` NAL units.
    public mutating func adoptHDRMessages(from nals: [NALUnit]) {
        for n in nals where n.type == .prefixSEI {
            guard let list = try? SEIMessageList(nal: n) else { continue }
            for m in list.messages {
                if m.payloadType == 137, m.payload.count == 24, masteringDisplay == nil { masteringDisplay = m.payload }
                if m.payloadType == 144, m.payload.count == 4, contentLightLevel == nil {
                    contentLightLevel = m.payload
                }
            }
        }
    }

    /// SEI messages 137 and 144 for the metadata present.
    public var hdrSEIMessages: [SEIMessage] {
        var out: [SEIMessage] = []
        if let m = masteringDisplay { out.append(SEIMessage(payloadType: 137, payload: m)) }
        if let c = contentLightLevel { out.append(SEIMessage(payloadType: 144, payload: c)) }
        return out
    }

    /// A short description: "BT.2020/HLG/BT.2020 NCL, limited range".
    public var text: String {
        "\(Self.primariesName(primaries))/\(Self.transferName(transfer))/\(Self.matrixName(matrix)), \(fullRange ? "full" : "limited") range"
    }

    /// The mastering display and content light level in words, or nil when there are none.
    public var hdrMetadataText: String? {
        var parts: [String] = []
        if let m = masteringDisplay, m.count == 24 {
            let maxL = Self.u32(m, 16), minL = Self.u32(m, 20)
            parts.append(
                "mastering display max \(NumberText.fixed(Double(maxL) / 10000, places: 4, trimZeros: true)) cd/m², min \(NumberText.fixed(Double(minL) / 10000, places: 4, trimZeros: true)) cd/m²"
            )
        }
        if let c = contentLightLevel, c.count == 4 {
            parts.append("MaxCLL \(Int(c[0]) << 8 | Int(c[1])) cd/m², MaxFALL \(Int(c[2]) << 8 | Int(c[3])) cd/m²")
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    static func u32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }

    public static func primariesName(_ c: Int) -> String {
        switch c {
        case 1: "BT.709";
        case 2: "unspecified";
        case 4: "BT.470M";
        case 5: "BT.601 625";
        case 6: "BT.601 525"
        case 9: "BT.2020";
        case 11: "DCI-P3";
        case 12: "Display P3";
        default: "primaries \(c)"
        }
    }
    public static func transferName(_ c: Int) -> String {
        switch c {
        case 1: "BT.709";
        case 2: "unspecified";
        case 6: "BT.601";
        case 8: "linear";
        case 13: "sRGB";
        case 14: "BT.2020 10-bit"
        case 15: "BT.2020 12-bit";
        case 16: "PQ";
        case 18: "HLG";
        default: "transfer \(c)"
        }
    }
    public static func matrixName(_ c: Int) -> String {
        switch c {
        case 0: "identity";
        case 1: "BT.709";
        case 2: "unspecified";
        case 5, 6: "BT.601";
        case 9: "BT.2020 NCL"
        case 10: "BT.2020 CL";
        default: "matrix \(c)"
        }
    }
}
