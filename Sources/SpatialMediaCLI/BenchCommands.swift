import ArgumentParser
import BinaryIO
import HEVC
import Codecs
import SpatialConvert
import ImageFormats
import MediaDecode

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

/// Hidden: decode both eyes of a spatial photo to RGB in-process, for `Benchmarks/photo.sh` (the same
/// work pillow-heif's `open_heif` + `load` does, without process start-up or file writing).
struct BenchDecode: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bench-decode", abstract: "Measure spatial photo decoding to RGB (benchmark hook).", shouldDisplay: false)
    @Argument var file: String
    @Option var runs: Int = 5

    func run() throws {
        let clock = ContinuousClock()
        var best = Double.infinity
        for _ in 0..<max(1, runs) {
            let start = clock.now
            do {
                let eyes = try StereoImages.decodeSpatialPhoto(file)
                _ = try ColourConversion.toRGB(eyes.left, bitDepth: 8)
                _ = try ColourConversion.toRGB(eyes.right, bitDepth: 8)
            } catch let e as ParseError { printErr("bench-decode: \(e.message)"); throw ExitCode(Exit.unreadable) }
            let d = clock.now - start
            best = min(best, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
        print("best_seconds \(best)")
    }
}
