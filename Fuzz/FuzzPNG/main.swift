import BinaryIO
import Codecs
import ImageFormats

// libFuzzer entry for PNG input: the chunk walker written in Swift (signature, lengths, CRC-32, IHDR,
// chunk order, ancillary chunks) is instrumented; images it accepts that are small enough are decoded
// by libpng (not instrumented, but ASan watches the buffers we hand it), and 8-bit results must survive
// an encode → decode round trip pixel for pixel.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A copy with every chunk's CRC-32 recomputed, so that mutated chunk data gets past the checksum and
/// reaches the IHDR rules and libpng's inflate and filter code.
func repairedCRCs(_ b: [UInt8]) -> [UInt8] {
    var out = b, p = 8
    while p + 12 <= out.count {
        let n = Int(out[p]) << 24 | Int(out[p + 1]) << 16 | Int(out[p + 2]) << 8 | Int(out[p + 3])
        guard n <= out.count - p - 12 else { break }
        let c = CRC32.checksum(out[(p + 4)..<(p + 8 + n)])
        out[p + 8 + n] = UInt8(c >> 24); out[p + 9 + n] = UInt8(c >> 16 & 0xFF)
        out[p + 10 + n] = UInt8(c >> 8 & 0xFF); out[p + 11 + n] = UInt8(c & 0xFF)
        p += 12 + n
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? PNGStructure(raw)
    let bytes = repairedCRCs(raw)
    var limits = Limits()
    limits.maxImageDimension = 4096
    guard let s = try? PNGStructure(bytes, limits: limits) else { return 0 }
    if s.exif != nil { _ = ExifInfo(tiff: s.exif ?? []).horizontalFOV(imageWidth: s.width, imageHeight: s.height) }
    // Decoding allocates width × height × channels; keep each run small.
    guard s.width * s.height <= 1 << 20, let image = try? PNG.decode(bytes, limits: limits) else { return 0 }
    guard image.width == s.width, image.height == s.height else {
        StandardError.write(
            "FuzzPNG: libpng size \(image.width)×\(image.height) differs from IHDR \(s.width)×\(s.height)\n")
        abort()
    }
    if image.bitDepth == 8 {
        guard let encoded = try? PNG.encode(image), let again = try? PNG.decode(encoded) else {
            StandardError.write("FuzzPNG: a decoded image did not re-encode\n")
            abort()
        }
        if again.planes != image.planes || again.format != image.format {
            StandardError.write("FuzzPNG: 8-bit encode → decode changed the pixels\n")
            abort()
        }
    }
    return 0
}
