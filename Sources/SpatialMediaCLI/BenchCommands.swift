import ArgumentParser
import BinaryIO
import Codecs
import HEVC
import ImageFormats
import MediaDecode
import SpatialConvert
import StereoVision

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hidden: Annex-B NAL scanning throughput on a file, for `Benchmarks/nal_scan.sh`.
struct BenchScan: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-scan", abstract: "Measure Annex-B NAL scanning throughput (benchmark hook).",
        shouldDisplay: false)
    @Argument var file: String

    func run() throws {
        let src: FileSource
        do { src = try FileSource(path: file) } catch {
            printErr("bench-scan: \(error.message)"); throw ExitCode(Exit.code(for: error))
        }
        // The library's streaming scanner: bounded memory, each NAL unit's absolute range.
        var scanner = AnnexB.Scanner(source: src)
        var nals = 0
        let clock = ContinuousClock()
        let start = clock.now
        while try scanner.nextRange() != nil { nals += 1 }
        let d = clock.now - start
        let secs = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
        print(
            "bytes \(src.size) nal_units \(nals) seconds \(secs) gb_per_s \(Double(src.size) / max(secs, 1e-9) / 1e9)")
    }
}

/// Hidden: decode both eyes of a spatial photo to RGB in-process, for `Benchmarks/photo.sh` (the same
/// work pillow-heif's `open_heif` + `load` does, without process start-up or file writing).
struct BenchDecode: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-decode", abstract: "Measure spatial photo decoding to RGB (benchmark hook).",
        shouldDisplay: false)
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
            } catch let e { printErr("bench-decode: \(e.message)"); throw ExitCode(Exit.code(for: e)) }
            let d = clock.now - start
            best = min(best, Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
        }
        print("best_seconds \(best)")
    }
}

/// Hidden: measure + align (rectify the right eye, crop both) of a left/right image pair in-process, for
/// `Benchmarks/align_bench.py` (the same work as OpenCV's findFundamentalMat + stereoRectifyUncalibrated +
/// warpPerspective pipeline, without file reading or writing).
struct BenchAlign: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-align", abstract: "Measure stereo measurement + alignment time (benchmark hook).",
        shouldDisplay: false)
    @Argument var left: String
    @Argument var right: String
    @Option var hfov: Double = 60
    @Option var runs: Int = 3

    func run() throws {
        let clock = ContinuousClock()
        func secs(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        let l: Image, r: Image
        do { l = try ImageFiles.load(left).image; r = try ImageFiles.load(right).image } catch let e {
            printErr("bench-align: \(e.message)"); throw ExitCode(Exit.code(for: e))
        }
        // CPU seconds of the whole process (all threads): less sensitive than wall time to other load on the machine.
        func cpu() -> Double {
            var ts = timespec(); clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
            return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
        }
        var best = (total: Double.infinity, measure: 0.0, warp: 0.0)
        var bestCPU = (total: Double.infinity, measure: 0.0, warp: 0.0)
        var line = ""
        for _ in 0..<max(1, runs) {
            let t0 = clock.now, c0 = cpu()
            guard let m = PairAligner.measure(l, r, hfovDegrees: hfov).measurement, let rect = m.rectification else {
                printErr("bench-align: cannot measure the pair"); throw ExitCode(Exit.problems)
            }
            let t1 = clock.now, c1 = cpu()
            let plan = PairAlignment.plan(m, rect)
            let al: Image, ar: Image
            do {
                al = try PairAligner.apply(l, homography: plan.leftHomography, crop: plan.crop);
                ar = try PairAligner.apply(r, homography: plan.rightHomography, crop: plan.crop)
            } catch let e { printErr("bench-align: \(e.message)"); throw ExitCode(Exit.problems) }
            let t2 = clock.now, c2 = cpu()
            let total = secs(t2 - t0)
            if total < best.total { best = (total, secs(t1 - t0), secs(t2 - t1)) }
            if c2 - c0 < bestCPU.total { bestCPU = (c2 - c0, c1 - c0, c2 - c1) }
            line =
                "crop \(al.width)x\(al.height) \(ar.width)x\(ar.height) offset \(rect.centreVerticalOffset) roll \(rect.contentRotationDegrees) scale \(rect.scale * 100) yaw \(rect.yawDegrees)"
        }
        print(
            "best_seconds \(best.total) measure_seconds \(best.measure) warp_seconds \(best.warp) cpu_seconds \(bestCPU.total) cpu_measure \(bestCPU.measure) cpu_warp \(bestCPU.warp) \(line)"
        )
    }
}
