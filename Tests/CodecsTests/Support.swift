import BinaryIO
import Codecs
import ImageFormats

/// A smooth synthetic RGB test picture (gradients + a soft disc), `depth` 8 or 16 bits.
func testImage(width: Int, height: Int, depth: Int = 8, seed: Int = 0) -> Image {
    let maxV = Double((1 << depth) - 1)
    var s8: [UInt8] = [], s16: [UInt16] = []
    for y in 0..<height {
        for x in 0..<width {
            let fx = Double(x) / Double(max(1, width - 1)), fy = Double(y) / Double(max(1, height - 1))
            let dx = fx - 0.5 - Double(seed) * 0.05, dy = fy - 0.5
            let disc = max(0, 1 - (dx * dx + dy * dy) * 8)
            let rgb = [0.2 + 0.6 * fx, 0.3 + 0.5 * fy * (1 - disc) + 0.2 * disc, 0.8 - 0.6 * fx * fy]
            for v in rgb {
                let q = min(maxV, max(0, (v * maxV).rounded()))
                if depth == 8 { s8.append(UInt8(q)) } else { s16.append(UInt16(q)) }
            }
        }
    }
    return
        (try? Image(
            width: width, height: height, bitDepth: depth, format: .rgb, planes: depth == 8 ? .u8([s8]) : .u16([s16])))
        ?? Image.placeholder
}

extension Image {
    static var placeholder: Image {
        (try? Image.blank(width: 1, height: 1, format: .rgb)) ?? { fatalError("test setup") }()
    }
}

/// Minimal TIFF (little endian) with IFD0 holding Orientation.
func tiffWithOrientation(_ o: UInt16) -> [UInt8] {
    var b: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0]
    b += [1, 0]  // one entry
    b += [0x12, 0x01, 3, 0, 1, 0, 0, 0, UInt8(o), 0, 0, 0]
    b += [0, 0, 0, 0]
    return b
}
