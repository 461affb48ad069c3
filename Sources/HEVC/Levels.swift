/// HEVC levels of the Main tier (H.265 Annex A, table A.8 "General tier and level limits" and A.9 for Main): the
/// limits an encoder's picture size, sample rate and HRD/VBV settings must stay within for a stream to carry a level.
public struct HEVCLevel: Sendable, Equatable, CustomStringConvertible {
    /// `general_level_idc`: 30 × the level number (level 4.1 = 123).
    public let idc: Int
    /// MaxLumaPs: luma samples in one picture.
    public let maxLumaPictureSize: Int
    /// MaxLumaSr: luma samples per second.
    public let maxLumaSampleRate: Int
    /// MaxBR for the Main tier in kbit/s (VCL; x265 compares its VBV max rate with this figure).
    public let maxBitrateKbps: Int
    /// MaxCPB for the Main tier in kbit (likewise compared with the VBV buffer size).
    public let maxCPBKbit: Int

    /// "4.1" for idc 123.
    public var name: String { idc % 30 == 0 ? "\(idc / 30)" : "\(idc / 30).\(idc % 30 / 3)" }
    public var description: String { "level \(name)" }

    /// Main-tier levels, lowest first.
    public static let mainTier: [HEVCLevel] = [
        HEVCLevel(
            idc: 30, maxLumaPictureSize: 36_864, maxLumaSampleRate: 552_960, maxBitrateKbps: 128, maxCPBKbit: 350),
        HEVCLevel(
            idc: 60, maxLumaPictureSize: 122_880, maxLumaSampleRate: 3_686_400, maxBitrateKbps: 1_500, maxCPBKbit: 1_500
        ),
        HEVCLevel(
            idc: 63, maxLumaPictureSize: 245_760, maxLumaSampleRate: 7_372_800, maxBitrateKbps: 3_000, maxCPBKbit: 3_000
        ),
        HEVCLevel(
            idc: 90, maxLumaPictureSize: 552_960, maxLumaSampleRate: 16_588_800, maxBitrateKbps: 6_000,
            maxCPBKbit: 6_000),
        HEVCLevel(
            idc: 93, maxLumaPictureSize: 983_040, maxLumaSampleRate: 33_177_600, maxBitrateKbps: 10_000,
            maxCPBKbit: 10_000),
        HEVCLevel(
            idc: 120, maxLumaPictureSize: 2_228_224, maxLumaSampleRate: 66_846_720, maxBitrateKbps: 12_000,
            maxCPBKbit: 12_000),
        HEVCLevel(
            idc: 123, maxLumaPictureSize: 2_228_224, maxLumaSampleRate: 133_693_440, maxBitrateKbps: 20_000,
            maxCPBKbit: 20_000),
        HEVCLevel(
            idc: 150, maxLumaPictureSize: 8_912_896, maxLumaSampleRate: 267_386_880, maxBitrateKbps: 25_000,
            maxCPBKbit: 25_000),
        HEVCLevel(
            idc: 153, maxLumaPictureSize: 8_912_896, maxLumaSampleRate: 534_773_760, maxBitrateKbps: 40_000,
            maxCPBKbit: 40_000),
        HEVCLevel(
            idc: 156, maxLumaPictureSize: 8_912_896, maxLumaSampleRate: 1_069_547_520, maxBitrateKbps: 60_000,
            maxCPBKbit: 60_000),
        HEVCLevel(
            idc: 180, maxLumaPictureSize: 35_651_584, maxLumaSampleRate: 1_069_547_520, maxBitrateKbps: 60_000,
            maxCPBKbit: 60_000),
        HEVCLevel(
            idc: 183, maxLumaPictureSize: 35_651_584, maxLumaSampleRate: 2_139_095_040, maxBitrateKbps: 120_000,
            maxCPBKbit: 120_000),
        HEVCLevel(
            idc: 186, maxLumaPictureSize: 35_651_584, maxLumaSampleRate: 4_278_190_080, maxBitrateKbps: 240_000,
            maxCPBKbit: 240_000),
    ]

    /// True when a `width`×`height` picture at `fps` frames per second fits this level (picture size, each dimension
    /// ≤ √(8 × MaxLumaPs), sample rate).
    public func fits(width: Int, height: Int, fps: Double) -> Bool {
        let (size, o) = width.multipliedReportingOverflow(by: height)
        guard !o, width > 0, height > 0, size <= maxLumaPictureSize else { return false }
        let side = Double(8 * maxLumaPictureSize).squareRoot()
        guard Double(width) <= side, Double(height) <= side else { return false }
        return Double(size) * fps <= Double(maxLumaSampleRate)
    }

    /// The lowest Main-tier level a `width`×`height` picture at `fps` fits, or nil when none does (x265 then writes
    /// level 8.5, "no level").
    public static func lowest(width: Int, height: Int, fps: Double) -> HEVCLevel? {
        mainTier.first { $0.fits(width: width, height: height, fps: fps) }
    }

    /// The Main-tier level with this `general_level_idc`.
    public static func main(idc: Int) -> HEVCLevel? { mainTier.first { $0.idc == idc } }
}
