/// Bounds applied while reading untrusted input.
///
/// Every reader in the library consults one `Limits` value. Exceeding a limit is an error with
/// code ``ParseError/Code/limitExceeded`` whose message names the field, never a crash or an
/// unbounded allocation. The defaults are generous for real media (a 10-hour movie, a 200-tile
/// HEIC) and small enough that hostile files cannot exhaust memory.
public struct Limits: Sendable, Equatable {
    /// Maximum nesting depth of boxes. Default 32 (real files use fewer than 12).
    public var maxBoxDepth: Int = 32
    /// Maximum number of child boxes in one container. Default 100 000.
    public var maxChildrenPerBox: Int = 100_000
    /// Maximum number of entries in one table (`stsz`, `stco`, `stts`, `trun`, `iloc` …). Default 20 000 000.
    public var maxTableEntries: Int = 20_000_000
    /// Maximum number of HEIF items. Default 100 000.
    public var maxItems: Int = 100_000
    /// Maximum number of extents per HEIF item. Default 10 000.
    public var maxExtentsPerItem: Int = 10_000
    /// Maximum number of samples in one track (or in one `trun`). Default 10 000 000: 46 hours at
    /// 60 frames per second. Constant-size `stsz` and field-less `trun` boxes state a count that no
    /// per-sample bytes back, so this is also what bounds a resolved sample list (about 48 bytes a sample).
    public var maxSamples: Int = 10_000_000
    /// Maximum size of one NAL unit in bytes. Default 256 MiB.
    public var maxNALUnitSize: Int = 256 << 20
    /// Maximum size of one box read into memory to be parsed (everything except `mdat`,
    /// which is only referenced by file range). Default 1 GiB.
    public var maxBoxInMemory: UInt64 = 1 << 30
    /// Maximum total bytes the parser may hold for one file (all in-memory boxes together), also the budget
    /// of one resolved sample list. Default 2 GiB.
    public var maxTotalAllocation: UInt64 = 2 << 30
    /// Maximum image width or height in pixels. Default 32 768 (HEIF grids of Apple photos are 2560–8192).
    public var maxImageDimension: Int = 32_768

    public init() {}

    /// The defaults described on each property.
    public static let `default` = Limits()

    /// Throws ``ParseError/Code/limitExceeded`` when `value > limit`.
    @inlinable
    public static func check(_ value: Int, _ limit: Int, _ name: String, offset: UInt64? = nil) throws(ParseError) {
        if value > limit {
            throw ParseError(.limitExceeded, offset: offset, "\(name) limit exceeded: \(value) > \(limit)")
        }
    }
}
