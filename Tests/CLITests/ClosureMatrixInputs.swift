import Foundation
import TestSupport
import Testing

extension ClosureMatrixTests {
    /// The matrix's input files: shared ones by path, the rest made once per test process in a temporary directory
    /// (removed at exit): small SBS/TB JPEGs scaled from the corpus SBS photo, 10-frame SBS/TB/2D H.264 clips from
    /// FFmpeg's test source, a 0.5 s copy of the corpus spherical movie (FFmpeg 9 writes its metadata as st3d/sv3d),
    /// truncated copies of the Apple spatial photo and video, and the two segments of one SBS conversion.
    final class Inputs: @unchecked Sendable {
        static let shared = Inputs()
        static let dir: String = NSTemporaryDirectory() + "spatial-media-matrix-\(getpid())"
        private let lock = NSLock()
        private var made: Result<Void, Error>?
        private var rules: [String: Set<String>] = [:]

        /// The inputs, made on first use (a failure to make them fails every cell, with its reason).
        func get() throws -> Inputs {
            lock.lock()
            defer { lock.unlock() }
            if made == nil {
                made = Result { try Self.make() }
                atexit { try? FileManager.default.removeItem(atPath: Inputs.dir) }
            }
            try made?.get()
            return self
        }

        func path(_ i: Input) -> String {
            switch i {
            case .sbsImage: Self.dir + "/sbs.jpg"
            case .tbImage: Self.dir + "/tb.jpg"
            case .sbsVideo: Self.dir + "/sbs.mp4"
            case .tbVideo: Self.dir + "/tb.mp4"
            case .video2D: Self.dir + "/flat.mp4"
            case .vr: Self.dir + "/vr.mp4"
            case .truncatedPhoto: Self.dir + "/cut.heic"
            case .truncatedVideo: Self.dir + "/cut.mp4"
            default: TestPaths.sharedPath(i.source)
            }
        }

        static var segments: [String] { [dir + "/seg1.mov", dir + "/seg2.mov"] }

        /// `args` with `$IN`, `$SEG1`, `$SEG2` replaced.
        func expand(_ args: [String], _ i: Input) -> [String] {
            args.map { a in
                switch a {
                case "$IN": path(i)
                case "$SEG1": Self.segments[0]
                case "$SEG2": Self.segments[1]
                default: a
                }
            }
        }

        /// The ERROR rules of every input of a cell (validated once per file): what its outputs may inherit.
        func errorRules(_ cell: Cell) throws -> Set<String> {
            var all: Set<String> = []
            for p in expand(cell.args, cell.input).filter({ $0.hasPrefix("/") }) {
                lock.lock()
                let known = rules[p]
                lock.unlock()
                let r = try known ?? ClosureMatrixTests.errorRules(p)
                lock.lock()
                rules[p] = r
                lock.unlock()
                all.formUnion(r)
            }
            return all
        }

        static func make() throws {
            let fm = FileManager.default
            try? fm.removeItem(atPath: dir)
            try fm.createDirectory(atPath: dir, withIntermediateDirectories: true)
            let capoda = TestPaths.sharedPath(Input.sbsImage.source)
            try ffmpeg(["-i", capoda, "-vf", "scale=1024:512", dir + "/sbs.jpg"])
            try ffmpeg([
                "-i", capoda, "-filter_complex",
                "scale=1024:512,split[a][b];[a]crop=512:512:0:0[l];[b]crop=512:512:512:0[r];[l][r]vstack",
                dir + "/tb.jpg",
            ])
            let clip = ["-frames:v", "10", "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"]
            try ffmpeg(
                [
                    "-f", "lavfi", "-i", "testsrc=size=160x240:rate=30", "-f", "lavfi", "-i",
                    "testsrc=size=160x240:rate=30", "-filter_complex",
                    "[1]crop=156:240:4:0,pad=160:240[r];[0][r]hstack",
                ] + clip + [dir + "/sbs.mp4"])
            try ffmpeg(
                [
                    "-f", "lavfi", "-i", "testsrc=size=320x120:rate=30", "-f", "lavfi", "-i",
                    "testsrc=size=320x120:rate=30", "-filter_complex",
                    "[1]crop=316:120:4:0,pad=320:120[r];[0][r]vstack",
                ] + clip + [dir + "/tb.mp4"])
            try ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=30"] + clip + [dir + "/flat.mp4"])
            try ffmpeg([
                "-i", TestPaths.sharedPath(Input.vr.source), "-c", "copy", "-t", "0.5", "-strict", "unofficial",
                dir + "/vr.mp4",
            ])
            let photo = try Data(contentsOf: URL(fileURLWithPath: TestPaths.sharedPath(Input.truncatedPhoto.source)))
            try photo.prefix(400_000).write(to: URL(fileURLWithPath: dir + "/cut.heic"))
            let movie = try Data(contentsOf: URL(fileURLWithPath: TestPaths.sharedPath(Input.truncatedVideo.source)))
            try movie.prefix(movie.count - 400).write(to: URL(fileURLWithPath: dir + "/cut.mp4"))
            for (k, seg) in segments.enumerated() {
                let r = try Run.cli([
                    "convert", dir + "/sbs.mp4", "-o", seg, "--preset", "ultrafast", "--segment", "\(k + 1)/2",
                    "--keyint", "5", "--qp", "30",
                ])
                guard r.status == 0 else { throw TestSetupError("segment \(k + 1)/2 of sbs.mp4: \(r.err.suffix(300))") }
            }
        }

        static func ffmpeg(_ args: [String]) throws {
            let r = try Run.program(
                try TestPrograms.requireFFmpeg(), ["-nostdin", "-v", "error", "-y"] + args, timeout: 120)
            guard r.status == 0 else {
                throw TestSetupError("FFmpeg \(args.joined(separator: " ")): \(r.err.suffix(300))")
            }
        }
    }
}
