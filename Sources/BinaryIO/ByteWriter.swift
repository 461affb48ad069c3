/// A big-endian writer that appends to a byte array and can back-patch sizes.
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public var count: Int { bytes.count }

    public mutating func writeU8(_ v: UInt8) { bytes.append(v) }
    public mutating func writeU16(_ v: UInt16) { bytes.append(UInt8(v >> 8)); bytes.append(UInt8(v & 0xFF)) }
    public mutating func writeU24(_ v: UInt32) {
        bytes.append(UInt8(v >> 16 & 0xFF)); bytes.append(UInt8(v >> 8 & 0xFF)); bytes.append(UInt8(v & 0xFF))
    }
    public mutating func writeU32(_ v: UInt32) {
        bytes.append(UInt8(v >> 24)); bytes.append(UInt8(v >> 16 & 0xFF))
        bytes.append(UInt8(v >> 8 & 0xFF)); bytes.append(UInt8(v & 0xFF))
    }
    public mutating func writeU64(_ v: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(v >> UInt64(shift) & 0xFF)) }
    }
    /// Writes the low `byteCount` bytes of `v` (0…8), big-endian.
    public mutating func writeUInt(_ v: UInt64, byteCount: Int) {
        guard byteCount > 0 else { return }
        for i in stride(from: byteCount - 1, through: 0, by: -1) {
            bytes.append(i < 8 ? UInt8(v >> UInt64(i * 8) & 0xFF) : 0)
        }
    }
    public mutating func writeI8(_ v: Int8) { writeU8(UInt8(bitPattern: v)) }
    public mutating func writeI16(_ v: Int16) { writeU16(UInt16(bitPattern: v)) }
    public mutating func writeI32(_ v: Int32) { writeU32(UInt32(bitPattern: v)) }
    public mutating func writeI64(_ v: Int64) { writeU64(UInt64(bitPattern: v)) }
    public mutating func writeFourCC(_ c: FourCC) { writeU32(c.rawValue) }
    public mutating func write<C: Collection>(_ data: C) where C.Element == UInt8 { bytes.append(contentsOf: data) }
    /// Writes a string as UTF-8, followed by a NUL when `terminated`.
    public mutating func writeCString(_ s: String, terminated: Bool = true) {
        bytes.append(contentsOf: Array(s.utf8))
        if terminated { bytes.append(0) }
    }

    /// Reserves four bytes for a size to be filled in later; returns their position.
    public mutating func reserveU32() -> Int { let p = bytes.count; writeU32(0); return p }
    public mutating func patchU32(at position: Int, _ v: UInt32) {
        guard position >= 0 && position + 4 <= bytes.count else { return }
        bytes[position] = UInt8(v >> 24); bytes[position + 1] = UInt8(v >> 16 & 0xFF)
        bytes[position + 2] = UInt8(v >> 8 & 0xFF); bytes[position + 3] = UInt8(v & 0xFF)
    }
    public mutating func patchU64(at position: Int, _ v: UInt64) {
        guard position >= 0 && position + 8 <= bytes.count else { return }
        for i in 0..<8 { bytes[position + i] = UInt8(v >> UInt64(56 - 8 * i) & 0xFF) }
    }
    /// Takes the bytes out, leaving the writer empty.
    public mutating func take() -> [UInt8] { defer { bytes = [] }; return bytes }
}
