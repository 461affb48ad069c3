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
        // The library's streaming scanner: bounded memory, each NAL unit's absolute range.
        var scanner = AnnexB.Scanner(source: src)
        var nals = 0
        let clock = ContinuousClock()
        let start = clock.now
        while try scanner.nextRange() != nil { nals += 1 }
        let d = clock.now - start
        let secs = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        print("bytes \(src.size) nal_units \(nals) seconds \(secs) gb_per_s \(Double(src.size) / max(secs, 1e-9) / 1e9)")
    }
}
