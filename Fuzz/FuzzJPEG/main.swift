import BinaryIO
import ISOBMFF
import ImageFormats

// libFuzzer entry for the JPEG / MPF / XMP reader written in Swift: JPEG marker segments, the MP index and its
// classification by MP type (stereo pair or not), the HDR gain-map picture (Ultra HDR `hdrgm` XMP, the ISO 21496-1
// APP2 block, Apple's XMP, the GContainer directory), the gain-map metadata mapped onto ISO 21496-1 and written back
// as a `tmap` payload, and `info`'s description of a JPEG. No pixel is decoded (the C codec library is not entered).
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let mpo = try? MPO(bytes) {
        _ = mpo.stereoPair
        for i in mpo.pictures.indices.prefix(8) { _ = mpo.type(i); _ = mpo.jpeg(i, in: bytes).count }
        if let g = try? JPEGGainMap.read(bytes, mpo: mpo), let m = g.metadata {
            // What we write must read back as the same metadata.
            let back = try? GainMapMetadata(tmap: m.tmapPayload)
            if back?.isoBytes != m.isoBytes { abort() }  // the tmap payload must round-trip
            _ = g.description
        }
    }
    _ = try? ImageInfo.describe(bytes)
    // The parsers on their own: any bytes as an XMP packet and as an ISO 21496-1 block / tmap payload.
    if let m = try? GainMapMetadata(hdrgmXMP: bytes) { _ = m.summary; _ = m.tmapPayload }
    if let m = try? GainMapMetadata(iso: bytes) {
        if (try? GainMapMetadata(iso: m.isoBytes)) == nil { abort() }  // an ISO 21496-1 block must round-trip
        _ = m.problems
    }
    _ = try? GainMapMetadata(tmap: bytes)
    return 0
}
