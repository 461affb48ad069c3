import BinaryIO
import HEVC

/// Reports a broken round trip: the parser accepted input that the writer does not reproduce.
private func roundTripFailure(_ what: String) -> Never {
    StandardError.write("FuzzHEVC: \(what) did not reproduce the reference result\n")
    abort()
}

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// libFuzzer entry: Annex B split, every NAL parsed with the parameter sets seen so far, and RBSP-level
/// round-trip checks (serialize(parse(x)) must reproduce x's RBSP bit for bit). Also feeds the input to the
/// length-prefixed splitter and the hvcC/lhvC parsers. Returns 0.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let h = try? HEVCDecoderConfigurationRecord(parsing: bytes), (try? h.serialized()) != bytes {
        roundTripFailure("hvcC")
    }
    if let l = try? LHEVCDecoderConfigurationRecord(parsing: bytes), (try? l.serialized()) != bytes {
        roundTripFailure("lhvC")
    }
    _ = try? LengthPrefixed.split(bytes, lengthSize: 4)
    _ = try? EmulationPrevention.removeStrict(bytes)
    if EmulationPrevention.remove(EmulationPrevention.insert(bytes)) != bytes {
        roundTripFailure("emulation prevention")
    }

    // The streaming scanner (small pieces, so start codes straddle them) must agree with the in-memory scan.
    let whole = try? AnnexB.nalRanges(in: bytes)
    var scanner = AnnexB.Scanner(source: MemorySource(bytes), pieceSize: 64 + size % 61)
    var streamed: [Range<UInt64>] = []
    var scanFailed = false
    do { while let r = try scanner.nextRange() { streamed.append(r) } } catch { scanFailed = true }
    if (whole == nil) != scanFailed { roundTripFailure("Annex B scanner (error agreement)") }
    if let whole, whole.map({ UInt64($0.lowerBound)..<UInt64($0.upperBound) }) != streamed {
        roundTripFailure("Annex B scanner (ranges)")
    }

    guard let nals = try? AnnexB.split(bytes) else { return 0 }
    var store = ParameterSetStore()
    for nal in nals.prefix(2000) {
        let rbsp = nal.rbsp
        switch nal.type {
        case .vps:
            if let v = try? VideoParameterSet(nal: nal) {
                if (try? v.rbsp()) != rbsp { roundTripFailure("VPS") }
            }
        case .sps:
            let vps = SequenceParameterSet.referencedVPSId(in: nal).flatMap { store.vps[$0] }
            if let s = try? SequenceParameterSet(nal: nal, vps: vps) {
                if (try? s.rbsp(vps: vps)) != rbsp { roundTripFailure("SPS") }
            }
        case .pps:
            if let p = try? PictureParameterSet(nal: nal) {
                if (try? p.rbsp()) != rbsp { roundTripFailure("PPS") }
            }
        case .prefixSEI, .suffixSEI:
            if let s = try? SEIMessageList(nal: nal) {
                if s.rbsp() != rbsp { roundTripFailure("SEI") }
                for m in s.messages {
                    if let d = m.threeDimensionalReferenceDisplays { _ = try? d.payload() }
                    _ = m.userDataUnregistered
                }
            }
        default:
            if nal.type.isVCL, let ctx = try? store.context(forSlice: nal),
                let sh = try? SliceSegmentHeader(nal: nal, context: ctx)
            {
                guard let out = try? sh.emit(context: ctx) else { roundTripFailure("slice header (emit threw)") }
                if out.rbsp != rbsp { roundTripFailure("slice header") }
            }
        }
        _ = try? store.add(nal)
    }
    let aus = AccessUnits.group(Array(nals.prefix(2000)))
    let analysis = StreamAnalysis(accessUnits: aus)
    _ = HEVCDump.nalLines(analysis)
    _ = HEVCStreamInfo(analysis: analysis).descriptionLines()
    return 0
}
