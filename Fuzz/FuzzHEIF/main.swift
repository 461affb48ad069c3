// libFuzzer entry for the HEIF item model: items, properties, references, stereo pairs and camera
// properties, item data, and the meta re-layout (replacing meta with itself must change nothing).
import BinaryIO
import ISOBMFF
import SpatialMedia

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var limits = Limits()
    limits.maxTableEntries = 100_000
    guard let file = try? ISOFile.parse(source: MemorySource(bytes), limits: limits), let h = file.heif else {
        return 0
    }
    _ = h.checkReferences()
    _ = h.groups
    for item in h.items.prefix(64) {
        _ = h.properties(of: item.id)
        _ = h.size(of: item.id)
        _ = try? h.data(of: item.id, file: file, limits: limits)
    }
    var problems: [SpatialDiagnostic] = []
    if let p = SpatialPhotoReader.read(file, problems: &problems) {
        _ = p.baselineMicrometres
        _ = p.horizontalFOVDegrees
        _ = p.rotationDegrees
        _ = p.left.principalPointOffset
    }
    _ = SpatialPhotoReader.infoSection(file)
    if let meta = file.box("meta"), meta.header.form == .compact,
        let same = try? HEIFLayout.replaceMeta(in: file, with: meta)
    {
        guard let a = try? same.serialized(), a == bytes else {
            StandardError.write("replacing meta with itself changed the file\n")
            abort()
        }
    }
    return 0
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
