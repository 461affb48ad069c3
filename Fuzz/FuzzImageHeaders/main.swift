// libFuzzer entry for the image-header parsers written in Swift: JPEG marker segments, the MPO index and
// its stereo attributes, TIFF/EXIF IFDs (incl. the field-of-view derivation), and Y4M stream headers.
// The C codec libraries themselves are not instrumented and are not entered here.
import BinaryIO
import Codecs
import ImageFormats

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageHeaders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let mpo = try? MPO(bytes) {
        for i in mpo.pictures.indices.prefix(8) { _ = mpo.jpeg(i, in: bytes).count }
    }
    if let segments = try? JPEGSegments(bytes) {
        for app in segments.app.prefix(16) where app.marker == 0xE1 && app.payload.count > 6 {
            let tiff = Array(app.payload.dropFirst(6))
            _ = ExifInfo(tiff: tiff).horizontalFOV(imageWidth: 4000, imageHeight: 3000)
        }
    }
    if let tiff = try? TIFFReader(bytes), let first = tiff.u32(4) {
        _ = try? tiff.ifd(at: Int(first))
    }
    _ = ExifInfo(tiff: bytes).horizontalFOV(imageWidth: 1920, imageHeight: 1080)
    if let newline = bytes.firstIndex(of: 0x0A) {
        _ = try? Y4M.parseHeader(Array(bytes[..<newline]))
    }
    return 0
}
