import BinaryIO
import ISOBMFF

// libFuzzer entry for the box parser: parse, then check the round-trip contract — anything that
// parses must write back byte-identical — and exercise the read-only views.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBoxes(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var limits = Limits()
    limits.maxTableEntries = 1_000_000
    guard let file = try? ISOFile.parse(source: MemorySource(bytes), limits: limits) else { return 0 }
    guard let written = try? file.serialized(), written == bytes else {
        StandardError.write("round-trip contract broken\n")
        abort()
    }
    _ = BoxDump.lines(file)
    _ = ContainerSummary(file).json.serialized()
    for t in file.tracks { _ = try? t.samples(limits: limits) }
    if let h = file.heif {
        _ = h.checkReferences()
        for item in h.items.prefix(16) { _ = try? h.data(of: item.id, file: file, limits: limits) }
    }
    return 0
}
