import BinaryIO

/// Checks that a parameter set or SEI NAL unit ends where its syntax says it ends: every syntax element the
/// structure requires is there (e.g. `vps_extension2_flag` after `vps_extension()`), then exactly one
/// `rbsp_stop_one_bit` and zero bits to the byte boundary, and no zero bytes after that.
///
/// The lenient parsers (``VideoParameterSet``, ``SequenceParameterSet``, ``PictureParameterSet``,
/// ``SEIMessageList``) keep whatever follows the last modelled element so that files round-trip; this check
/// says whether that remainder is allowed by the syntax. See Specs/hevc.md, "Where an RBSP ends".
public enum RBSPEndCheck {
    /// The outcome for one NAL unit.
    public enum Outcome: Hashable, Sendable {
        /// The RBSP ends exactly as the syntax requires.
        case ok
        /// It does not; the message says what is wrong.
        case wrong(String)
        /// The end could not be verified (syntax the library does not model follows); the message says which.
        case notChecked(String)
        /// Not a VPS, SPS, PPS or SEI NAL unit.
        case notApplicable
    }

    /// Checks `nal`. `vps` is the VPS an SPS refers to (needed for a multilayer SPS with VUI).
    public static func check(_ nal: NALUnit, vps: VideoParameterSet? = nil) -> Outcome {
        let t = nal.type
        guard t == .vps || t == .sps || t == .pps || t == .prefixSEI || t == .suffixSEI else { return .notApplicable }
        let rbsp = nal.rbsp
        guard let last = rbsp.lastIndex(where: { $0 != 0 }) else { return .wrong("\(t.name) has no rbsp_stop_one_bit") }
        let zeros = rbsp.count - 1 - last
        if zeros > 0 { return .wrong("\(t.name) has \(zeros) zero byte(s) after rbsp_trailing_bits") }
        do throws(ParseError) {
            switch t {
            case .vps: return vpsEnd(try VideoParameterSet(nal: nal))
            case .sps: return spsEnd(try SequenceParameterSet(nal: nal, vps: vps))
            case .pps: return ppsEnd(try PictureParameterSet(nal: nal))
            default: return seiEnd(try SEIMessageList(nal: nal))
            }
        } catch {
            return .wrong("\(t.name) does not parse: \(error.message)")
        }
    }

    static func vpsEnd(_ v: VideoParameterSet) -> Outcome {
        let rest = v.extensionData.bitCount
        guard v.extensionFlag, let e = v.vpsExtension else {
            return rest == 0
                ? .ok : .wrong("VPS has \(rest) bit(s) before rbsp_stop_one_bit after vps_extension_flag = 0")
        }
        if e.vuiPresent && v.vui == nil { return .notChecked("VPS VUI with BSP HRD parameters (not modelled)") }
        guard let f = v.extension2Flag else {
            return .wrong(
                "VPS ends right after vps_extension()\(e.vuiPresent ? " and vps_vui()" : ""): vps_extension2_flag is missing, so a strict parser reads the rbsp_stop_one_bit as that flag and finds no trailing bits"
            )
        }
        if !f && rest > 0 { return .wrong("VPS has \(rest) bit(s) after vps_extension2_flag = 0") }
        return .ok
    }

    static func spsEnd(_ s: SequenceParameterSet) -> Outcome {
        if s.extension4Bits != 0 { return .ok }  // sps_extension_data_flag bits may follow, any number
        if s.extension3DFlag || s.sccExtensionFlag { return .notChecked("SPS 3D/SCC extension (not modelled)") }
        let rest = s.extensionData.bitCount
        return rest == 0
            ? .ok : .wrong("SPS has \(rest) bit(s) after its last syntax element, before rbsp_stop_one_bit")
    }

    static func ppsEnd(_ p: PictureParameterSet) -> Outcome {
        if p.extension4Bits != 0 { return .ok }
        if p.extension3DFlag || p.sccExtensionFlag { return .notChecked("PPS 3D/SCC extension (not modelled)") }
        if p.colourMappingEnabled { return .notChecked("PPS colour_mapping_table() (not modelled)") }
        let rest = p.extensionData.bitCount
        return rest == 0
            ? .ok : .wrong("PPS has \(rest) bit(s) after its last syntax element, before rbsp_stop_one_bit")
    }

    static func seiEnd(_ s: SEIMessageList) -> Outcome {
        guard !s.messages.isEmpty else { return .wrong("SEI NAL unit has no message") }
        guard s.trailing == [0x80] else {
            return .wrong(
                "SEI ends with \(s.trailing.map { String($0, radix: 16) }) after its last message instead of rbsp_trailing_bits (80)"
            )
        }
        for m in s.messages where m.payloadType == 176 {
            switch ThreeDimensionalReferenceDisplaysInfo.payloadEnd(m.payload) {
            case .spec: continue
            case .longMantissa:
                return .wrong(
                    "SEI 176 codes mantissa_ref_display_width with one bit more than the syntax allows (x265's form)")
            case .invalid: return .wrong("SEI 176 payload does not end with payload_bit_equal_to_one and zero bits")
            }
        }
        return .ok
    }
}
