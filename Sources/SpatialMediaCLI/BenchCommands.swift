import ArgumentParser
import BinaryIO
import HEVC

/// Hidden: Annex-B NAL scanning throughput on a file, for `Benchmarks/nal_scan.sh`.
struct BenchScan: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench-scan", abstract: "Measure Annex-B NAL scanning throughput (benchmark hook).", shouldDisplay: false)
    @Argument var file: String

    func run() throws {
        let src: FileSource
        do { src = try FileSource(path: file) } catch { printErr("bench-scan: \(error.message)"); throw ExitCode(Exit.unreadable) }
        // Read in 64 MiB pieces so memory stays bounded; NAL units crossing a piece boundary are counted once.
        var offset: UInt64 = 0
        var nals = 0
        let clock = ContinuousClock()
        let start = clock.now
        var carry: [UInt8] = []
        while offset < src.size {
            let piece = try src.read(at: offset, count: 64 << 20)
            offset += UInt64(piece.count)
            let buffer = carry + piece
            let ranges = try AnnexB.nalRanges(in: buffer)
            if offset < src.size, let last = ranges.last {
                nals += ranges.count - 1
                // Keep the last (possibly incomplete) NAL unit with its own start code for the next piece.
                let lb = last.lowerBound
                let four = lb >= 4 && buffer[lb - 4] == 0 && buffer[lb - 3] == 0 && buffer[lb - 2] == 0 && buffer[lb - 1] == 1
                carry = Array(buffer[max(0, lb - (four ? 4 : 3))...])
            } else {
                nals += ranges.count
                carry = []
            }
        }
        let d = clock.now - start
        let secs = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        print("bytes \(src.size) nal_units \(nals) seconds \(secs) gb_per_s \(Double(src.size) / max(secs, 1e-9) / 1e9)")
    }
}
