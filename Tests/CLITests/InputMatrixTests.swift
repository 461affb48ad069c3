import Foundation
import StereoVision
import TestSupport
import Testing

/// Issue 38, "Must show": the input matrix, generated from input classes × jobs (not a hand-kept list of cells).
///
/// Each ``InputClass`` makes its own file (with FFmpeg, or written from the format's published layout: the MPF index
/// of an MPO or an Ultra HDR JPEG) and states what it truly is: where its true eyes are (``Truth``), whether it is
/// damaged, which reader opens it. Each ``Job`` derives the exit code it must give from that and from the README's
/// exit-code table (``ExitTable``). For a `convert` that succeeds, each output eye is compared with the input's true
/// eye (luma PSNR ≥ 35 dB over every frame) and, for videos, the output's colour tags with the source's.
///
/// Cells that another engineer's branch of issue 38 fixes are listed in ``pendingOnOtherBranches`` and run as known
/// issues here; the lead removes each entry once that branch is merged.
@Suite struct InputMatrixTests {
    // MARK: - The exit-code table

    /// The README's exit-code table, read from the README itself: the code of the row whose meaning says `phrase`.
    enum ExitTable {
        static let rows: [(code: Int32, meaning: String)] = {
            guard let text = try? String(contentsOfFile: CLI.root + "/README.md", encoding: .utf8) else { return [] }
            return text.split(separator: "\n").compactMap { line -> (Int32, String)? in
                let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
                guard cells.count >= 2, let code = Int32(cells[0]) else { return nil }
                return (code, cells[1])
            }
        }()

        static func code(_ phrase: String) -> Int32? { rows.first { $0.meaning.contains(phrase) }?.code }
        static var success: Int32? { code("success") }
        static var problems: Int32? { code("problems were found") }
        static var damaged: Int32? { code("is damaged or truncated") }
        static var unsupported: Int32? { code("is not a supported kind") }
    }

    // MARK: - Input classes

    enum Reader: String, Sendable { case mp4, mov, mkv, ts, y4m, png, jpeg, mpo, heic, hevc }

    /// Where an input's true eyes are.
    enum Truth: Sendable {
        /// One picture holding both eyes: `tb` top and bottom (else side by side); `rightFirst` the right eye first.
        case packed(tb: Bool, rightFirst: Bool)
        /// Two files (`--left`/`--right`): each is its eye.
        case pair
        /// An MPO's two pictures (left first), stored beside it as `NAME.l.png` / `NAME.r.png`.
        case pictures
        /// A two-layer stream made from the side-by-side file `from` (its halves are the eyes).
        case layers(from: String)
        /// No stereo pair: a 2D picture or a primary image with its gain map.
        case none
    }

    struct InputClass: Sendable {
        var name: String
        var file: String
        var reader: Reader
        var truth: Truth
        var damaged = false
        var video: Bool { [.mp4, .mov, .mkv, .ts, .y4m, .hevc].contains(reader) }
        /// The second file of a `--left`/`--right` pair.
        var right: String? = nil
        /// Makes the file (and what its truth needs) in `dir`; classes made earlier in ``classes`` are there already.
        var make: @Sendable (_ dir: String) throws -> Void
    }

    /// A 10-frame clip whose eyes are FFmpeg's test picture and the same shifted 4 pixels (a true stereo pair): `eye`
    /// each eye's size (320×192 by default: a picture much smaller has too few features for the layout to be measured,
    /// and is refused as such), `tb` stacked (else side by side), `rightFirst` the right eye first, then encoded with
    /// `codec`.
    static func clip(
        _ path: String, eye: String = "320x192", tb: Bool = false, rightFirst: Bool = false,
        codec: [String] = x264, pre: String = ""
    ) throws {
        let parts = eye.split(separator: "x")
        let w = Int(parts[0]) ?? 320, h = Int(parts[1]) ?? 192
        let (a, b) = rightFirst ? ("[r]", "[0]") : ("[0]", "[r]")
        try ffmpeg(
            [
                "-f", "lavfi", "-i", "testsrc=size=\(eye):rate=30", "-f", "lavfi", "-i", "testsrc=size=\(eye):rate=30",
                "-filter_complex",
                "[1]crop=\(w - 4):\(h):4:0,pad=\(w):\(h)[r];\(a)\(b)\(tb ? "vstack" : "hstack")\(pre)", "-frames:v",
                "10",
            ] + codec + [path])
    }
    static let x264 = ["-c:v", "libx264", "-preset", "ultrafast", "-qp", "4", "-pix_fmt", "yuv420p"]

    /// A 10-frame still of a scene with depth (``/StereoVision/SyntheticStereo``: textured boxes before a wall 100 m
    /// away, 320×192 per eye, parallel cameras 64 mm apart), packed side by side or top and bottom, the right eye
    /// first when `rightFirst`: the kind of input whose eye order the pixels can tell (beside each box each eye sees a
    /// strip of wall the other cannot). A flat scene such as ``clip(_:eye:tb:rightFirst:codec:pre:)``'s shifted test
    /// picture reads the same in both orders.
    static func depthClip(_ path: String, tb: Bool = false, rightFirst: Bool = false, codec: [String] = x264) throws {
        var s = SyntheticStereo()
        s.width = 320; s.height = 192; s.farWallMetres = 100; s.seed = 5
        let (l, r) = s.render()
        let eyes = [path + ".eye-l.pgm", path + ".eye-r.pgm"]
        defer { for e in eyes { try? FileManager.default.removeItem(atPath: e) } }
        for (g, file) in zip([l, r], eyes) {
            try Data(Array("P5\n\(g.width) \(g.height)\n255\n".utf8) + g.bytes).write(to: URL(fileURLWithPath: file))
        }
        let (a, b) = rightFirst ? ("[1]", "[0]") : ("[0]", "[1]")
        try ffmpeg(
            [
                "-loop", "1", "-i", eyes[0], "-loop", "1", "-i", eyes[1], "-filter_complex",
                "\(a)\(b)\(tb ? "vstack" : "hstack"),format=yuv420p",
                "-r", "30", "-frames:v", "10",
            ] + codec + [path])
    }

    static func cutFile(_ from: String, _ to: String, fraction: Double, minus: Int = 0) throws {
        let d = try Data(contentsOf: URL(fileURLWithPath: from))
        try d.prefix(Int(Double(d.count) * fraction) - minus).write(to: URL(fileURLWithPath: to))
    }

    /// Every input class: the issue's cases (others' included) and a cut or corrupted input of every reader.
    static let classes: [InputClass] = {
        let capoda = TestPaths.sharedPath("corpus/sbs/capoda.left-right.jpg")
        var c: [InputClass] = []
        func video(
            _ name: String, _ file: String, _ reader: Reader, _ truth: Truth,
            _ make: @escaping @Sendable (String) throws -> Void
        ) {
            c.append(InputClass(name: name, file: file, reader: reader, truth: truth, make: make))
        }
        // Videos that are a stereo pair.
        video("untagged SBS MP4", "sbs.mp4", .mp4, .packed(tb: false, rightFirst: false)) { try clip($0 + "/sbs.mp4") }
        video("untagged TB MP4 (taller than wide)", "tb.mp4", .mp4, .packed(tb: true, rightFirst: false)) {
            try clip($0 + "/tb.mp4", tb: true)
        }
        video("untagged square SBS MP4", "sq-sbs.mp4", .mp4, .packed(tb: false, rightFirst: false)) {
            try clip($0 + "/sq-sbs.mp4", eye: "160x320")
        }
        // Both eye orders of a scene with depth: the usual order written, the right eye first refused (--swap-eyes).
        video("untagged SBS MP4, scene with depth", "depth.mp4", .mp4, .packed(tb: false, rightFirst: false)) {
            try depthClip($0 + "/depth.mp4")
        }
        video("untagged SBS MP4, right eye first", "rl.mp4", .mp4, .packed(tb: false, rightFirst: true)) {
            try depthClip($0 + "/rl.mp4", rightFirst: true)
        }
        video("untagged TB MP4, scene with depth", "depth-tb.mp4", .mp4, .packed(tb: true, rightFirst: false)) {
            try depthClip($0 + "/depth-tb.mp4", tb: true)
        }
        video("untagged TB MP4, right eye first", "rl-tb.mp4", .mp4, .packed(tb: true, rightFirst: true)) {
            try depthClip($0 + "/rl-tb.mp4", tb: true, rightFirst: true)
        }
        video("untagged SBS MPEG-TS, right eye first", "rl.ts", .ts, .packed(tb: false, rightFirst: true)) {
            try depthClip($0 + "/rl.ts", rightFirst: true)
        }
        video("HEVC SBS MOV (hvc1)", "sbs-hevc.mov", .mov, .packed(tb: false, rightFirst: false)) {
            try clip(
                $0 + "/sbs-hevc.mov",
                codec: [
                    "-c:v", "libx265", "-preset", "ultrafast", "-x265-params", "qp=4:log-level=0", "-tag:v", "hvc1",
                    "-pix_fmt", "yuv420p",
                ])
        }
        video("SBS MKV (StereoMode left_right)", "sbs.mkv", .mkv, .packed(tb: false, rightFirst: false)) {
            try clip($0 + "/sbs.mkv", codec: x264 + ["-metadata:s:v:0", "stereo_mode=left_right"])
        }
        video("square TB MKV (StereoMode top_bottom)", "tb.mkv", .mkv, .packed(tb: true, rightFirst: false)) {
            try clip(
                $0 + "/tb.mkv", eye: "320x160", tb: true, codec: x264 + ["-metadata:s:v:0", "stereo_mode=top_bottom"])
        }
        video("untagged SBS MPEG-TS", "sbs.ts", .ts, .packed(tb: false, rightFirst: false)) { try clip($0 + "/sbs.ts") }
        video("untagged square TB MPEG-TS", "sq-tb.ts", .ts, .packed(tb: true, rightFirst: false)) {
            try clip($0 + "/sq-tb.ts", eye: "320x160", tb: true)
        }
        video("untagged SBS Y4M", "sbs.y4m", .y4m, .packed(tb: false, rightFirst: false)) {
            try clip($0 + "/sbs.y4m", codec: ["-pix_fmt", "yuv420p"])
        }
        video("untagged TB Y4M (taller than wide)", "tb.y4m", .y4m, .packed(tb: true, rightFirst: false)) {
            try clip($0 + "/tb.y4m", tb: true, codec: ["-pix_fmt", "yuv420p"])
        }
        video("full-range (yuvj420p) SBS MPEG-TS", "full.ts", .ts, .packed(tb: false, rightFirst: false)) {
            try clip(
                $0 + "/full.ts",
                codec: [
                    "-c:v", "libx264", "-preset", "ultrafast", "-qp", "4", "-pix_fmt", "yuvj420p", "-color_range", "pc",
                ])
        }
        video("10-bit SBS MKV (BT.709 tagged)", "ten.mkv", .mkv, .packed(tb: false, rightFirst: false)) {
            try clip(
                $0 + "/ten.mkv",
                codec: [
                    "-c:v", "libx264", "-preset", "ultrafast", "-qp", "4", "-pix_fmt", "yuv420p10le",
                    "-color_primaries", "bt709",
                    "-color_trc", "bt709", "-colorspace", "bt709", "-color_range", "tv",
                ])
        }
        video("raw two-layer MV-HEVC (.hevc)", "mv.hevc", .hevc, .layers(from: "sbs.mp4")) { dir in
            let r = try Run.cli([
                "convert", dir + "/sbs.mp4", "-o", dir + "/mv-src.mov", "--layout", "sbs", "--preset", "ultrafast",
                "--crf", "8",
            ])
            guard r.status == 0 else { throw TestSetupError("mv-src.mov: \(r.err.suffix(300))") }
            try ffmpeg([
                "-i", dir + "/mv-src.mov", "-map", "0:v:0", "-c:v", "copy", "-bsf:v", "hevc_mp4toannexb", "-f", "hevc",
                dir + "/mv.hevc",
            ])
        }
        video("2D video (MP4)", "flat.mp4", .mp4, .none) { dir in
            try ffmpeg(
                ["-f", "lavfi", "-i", "testsrc2=size=192x64:rate=30", "-frames:v", "10"] + x264 + [dir + "/flat.mp4"])
        }
        // Photos.
        func photo(
            _ name: String, _ file: String, _ reader: Reader, _ truth: Truth, right: String? = nil,
            _ make: @escaping @Sendable (String) throws -> Void
        ) {
            c.append(InputClass(name: name, file: file, reader: reader, truth: truth, right: right, make: make))
        }
        photo("untagged SBS JPEG", "sbs.jpg", .jpeg, .packed(tb: false, rightFirst: false)) {
            try ffmpeg(["-i", capoda, "-vf", "scale=512:192", "-q:v", "2", $0 + "/sbs.jpg"])
        }
        photo("untagged TB JPEG", "tb.jpg", .jpeg, .packed(tb: true, rightFirst: false)) {
            try ffmpeg([
                "-i", $0 + "/sbs.jpg", "-filter_complex",
                "[0]split[a][b];[a]crop=256:192:0:0[l];[b]crop=256:192:256:0[r];[l][r]vstack", "-q:v", "2",
                $0 + "/tb.jpg",
            ])
        }
        photo("untagged SBS PNG", "sbs.png", .png, .packed(tb: false, rightFirst: false)) {
            try ffmpeg(["-i", $0 + "/sbs.jpg", $0 + "/sbs.png"])
        }
        photo("untagged SBS PNG, scene with depth", "depth.png", .png, .packed(tb: false, rightFirst: false)) {
            try depthClip($0 + "/depth.png", codec: ["-update", "1", "-frames:v", "1"])
        }
        photo("untagged square TB PNG, scene with depth", "sq-tb.png", .png, .packed(tb: true, rightFirst: false)) {
            try depthClip($0 + "/sq-tb-tall.png", tb: true, codec: ["-update", "1", "-frames:v", "1"])
            try ffmpeg(["-i", $0 + "/sq-tb-tall.png", "-vf", "scale=384:384", $0 + "/sq-tb.png"])
        }
        photo("untagged SBS PNG, right eye first", "rl.png", .png, .packed(tb: false, rightFirst: true)) {
            try depthClip($0 + "/rl.png", rightFirst: true, codec: ["-update", "1", "-frames:v", "1"])
        }
        photo("pair of JPEGs", "l.jpg", .jpeg, .pair, right: "r.jpg") {
            try ffmpeg(["-i", $0 + "/sbs.jpg", "-vf", "crop=256:192:0:0", "-q:v", "2", $0 + "/l.jpg"])
            try ffmpeg(["-i", $0 + "/sbs.jpg", "-vf", "crop=256:192:256:0", "-q:v", "2", $0 + "/r.jpg"])
        }
        photo("MPO (MP type disparity)", "pair.mpo", .mpo, .pictures) { dir in
            let l = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/l.jpg"))),
                r = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/r.jpg")))
            try Data(mpo(l, r)).write(to: URL(fileURLWithPath: dir + "/pair.mpo"))
            try ffmpeg(["-i", dir + "/l.jpg", dir + "/pair.mpo.l.png"])
            try ffmpeg(["-i", dir + "/r.jpg", dir + "/pair.mpo.r.png"])
        }
        photo("2D photo (JPEG)", "flat.jpg", .jpeg, .none) {
            try ffmpeg(["-i", capoda, "-vf", "crop=iw/2:ih:0:0,scale=384:192", "-q:v", "2", $0 + "/flat.jpg"])
        }
        photo("Ultra HDR JPEG (primary + gain map)", "uhdr.jpg", .jpeg, .none) { dir in
            let primary = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/flat.jpg")))
            try ffmpeg(["-i", dir + "/flat.jpg", "-vf", "format=gray,negate", "-q:v", "4", dir + "/gain.jpg"])
            let gain = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/gain.jpg")))
            try Data(ultraHDR(primary, gain)).write(to: URL(fileURLWithPath: dir + "/uhdr.jpg"))
        }
        // A cut or corrupted input of every reader.
        func damaged(
            _ name: String, _ file: String, _ reader: Reader, _ make: @escaping @Sendable (String) throws -> Void
        ) {
            c.append(InputClass(name: name, file: file, reader: reader, truth: .none, damaged: true, make: make))
        }
        damaged("MP4 cut at 60 %", "cut.mp4", .mp4) { dir in
            try ffmpeg(["-i", dir + "/sbs.mp4", "-c", "copy", "-movflags", "+faststart", dir + "/fs.mp4"])
            try cutFile(dir + "/fs.mp4", dir + "/cut.mp4", fraction: 0.6)
        }
        damaged("MOV cut at 60 %", "cut.mov", .mov) {
            try cutFile($0 + "/sbs-hevc.mov", $0 + "/cut.mov", fraction: 0.6)
        }
        damaged("MKV cut at 60 %", "cut.mkv", .mkv) { try cutFile($0 + "/sbs.mkv", $0 + "/cut.mkv", fraction: 0.6) }
        damaged("MPEG-TS cut inside a packet", "cut.ts", .ts) {
            try cutFile($0 + "/sbs.ts", $0 + "/cut.ts", fraction: 0.6, minus: 61)
        }
        damaged("Y4M cut at 60 %", "cut.y4m", .y4m) { try cutFile($0 + "/sbs.y4m", $0 + "/cut.y4m", fraction: 0.6) }
        damaged("PNG cut at 60 %", "cut.png", .png) { try cutFile($0 + "/sbs.png", $0 + "/cut.png", fraction: 0.6) }
        damaged("JPEG cut at 60 %", "cut.jpg", .jpeg) { try cutFile($0 + "/sbs.jpg", $0 + "/cut.jpg", fraction: 0.6) }
        damaged("JPEG with corrupted coded data", "bad.jpg", .jpeg) { dir in
            var d = try [UInt8](Data(contentsOf: URL(fileURLWithPath: dir + "/sbs.jpg")))
            // Restart markers where none belong, in the middle of the coded data.
            for i in stride(from: d.count / 2, to: d.count / 2 + 64, by: 16) { d[i] = 0xFF; d[i + 1] = 0xD5 }
            try Data(d).write(to: URL(fileURLWithPath: dir + "/bad.jpg"))
        }
        damaged("MPO cut at 60 %", "cut.mpo", .mpo) { try cutFile($0 + "/pair.mpo", $0 + "/cut.mpo", fraction: 0.6) }
        damaged("HEIC spatial photo cut at 60 %", "cut.heic", .heic) { dir in
            let r = try Run.cli(["convert", dir + "/sbs.jpg", "-o", dir + "/whole.heic"])
            guard r.status == 0 else { throw TestSetupError("whole.heic: \(r.err.suffix(300))") }
            try cutFile(dir + "/whole.heic", dir + "/cut.heic", fraction: 0.6)
        }
        return c
    }()

    // MARK: - Jobs

    enum Job: String, CaseIterable, Sendable { case info, validate, convert, split, rewrite }

    /// What a job must answer for a class, as rows of the exit-code table.
    enum Outcome: Sendable {
        /// Read: success or problems found (validate's warnings, info's diagnostics are about content, not this
        /// matrix).
        case read
        /// Written, and its eyes match the input's true eyes.
        case written
        /// Refused: the input is damaged or truncated.
        case damaged
        /// Refused: not a stereo pair (a 2D picture, a gain map) without `--layout`/`--force`.
        case refused
        /// Either written with the right eyes, or refused (an order or layout the pixels cannot settle).
        case writtenOrRefused

        var codes: Set<Int32> {
            switch self {
            case .read: return Set([ExitTable.success, ExitTable.problems].compactMap { $0 })
            case .written: return Set([ExitTable.success].compactMap { $0 })
            case .damaged: return Set([ExitTable.damaged].compactMap { $0 })
            case .refused: return Set([ExitTable.unsupported].compactMap { $0 })
            case .writtenOrRefused: return Set([ExitTable.success, ExitTable.unsupported].compactMap { $0 })
            }
        }
    }

    /// The outcome a job must have on a class; nil when the job does not take the class.
    static func outcome(_ job: Job, _ c: InputClass) -> Outcome? {
        switch job {
        case .info, .validate:
            return c.damaged ? .damaged : .read
        case .convert:
            if c.damaged { return .damaged }
            switch c.truth {
            case .none: return .refused
            // Nothing in these inputs states the eye order: the pixels show the right eye first, so it is refused.
            case .packed(_, let rightFirst): return rightFirst ? .refused : .written
            case .layers: return .writtenOrRefused
            case .pair, .pictures: return .written
            }
        case .split:
            // Frame-packed pictures, MPOs and damaged inputs; a pair needs no split, a 2D picture has nothing to split.
            if c.damaged { return [.hevc, .y4m].contains(c.reader) ? nil : .damaged }  // split reads neither
            if case .packed(_, let rightFirst) = c.truth, !rightFirst, c.reader != .y4m { return .read }
            if case .pictures = c.truth { return .read }
            // A 2D photo (or a primary with its gain map) is no stereo pair either way: split refuses it, as convert.
            if case .none = c.truth, !c.video { return .refused }
            return nil
        case .rewrite:
            return [.mp4, .mov, .heic].contains(c.reader) ? (c.damaged ? .damaged : .written) : nil
        }
    }

    struct Cell: Sendable, CustomTestStringConvertible {
        var input: InputClass
        var job: Job
        var outcome: Outcome
        var id: String { "\(input.name) × \(job.rawValue)" }
        var testDescription: String { id }
    }

    /// Every class × every job that takes it.
    static let cells: [Cell] = classes.flatMap { c in
        Job.allCases.compactMap { j in outcome(j, c).map { Cell(input: c, job: j, outcome: $0) } }
    }

    /// Cells the product does not yet get right, with why: they run as known issues (and fail the day they pass, so
    /// the entry is removed then). Issue 38 stays open for them.
    static let pendingOnOtherBranches: [String: String] = [:]

    // MARK: - The test

    @Test(.needs(.shared("corpus/sbs/capoda.left-right.jpg")), arguments: cells)
    func cell(_ cell: Cell) throws {
        let dir = try Workshop.shared.get()
        if let owner = Self.pendingOnOtherBranches[cell.id] {
            withKnownIssue("known gap: \(owner)") { try Self.check(cell, dir: dir) }
        } else {
            try Self.check(cell, dir: dir)
        }
    }

    /// An input the pixels show packed right eye first is refused naming the remedy; with `--swap-eyes` it is written
    /// with its true eyes (and the refusal is no guess: the same scene in the usual order is written as it is).
    @Test(.needs(.shared("corpus/sbs/capoda.left-right.jpg")), arguments: ["rl.mp4", "rl-tb.mp4", "rl.png"])
    func rightEyeFirstIsRefusedThenConvertedWithSwapEyes(file: String) throws {
        let dir = try Workshop.shared.get()
        let c = try #require(Self.classes.first { $0.file == file })
        let out = dir + "/swap-" + file.replacingOccurrences(of: ".", with: "-")
        try? FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let o = out + (c.video ? "/o.mov" : "/o.heic")
        let options = c.video ? ["--preset", "ultrafast", "--crf", "8"] : ["--quality", "95"]
        let refused = try CLI.run(["convert", dir + "/" + file, "-o", o] + options)
        #expect(
            refused.status == ExitTable.unsupported && refused.err.contains("right eye first")
                && refused.err.contains("--swap-eyes"),
            "exit \(refused.status): \(refused.err.suffix(400))")
        let r = try CLI.run(["convert", dir + "/" + file, "-o", o, "--swap-eyes"] + options)
        try #require(r.status == 0, "\(r.err.suffix(400))")
        try Self.compareEyes(
            Cell(input: c, job: .convert, outcome: .written), input: dir + "/" + file, out: out, dir: dir)
    }

    /// `split` of a packed picture given no layout measures it as `convert` does: a square top-bottom picture is cut
    /// top and bottom (its shape said side by side), a 2D photo is refused (exit 2), naming `--layout`.
    @Test(.needs(.shared("corpus/sbs/capoda.left-right.jpg")))
    func splitMeasuresTheLayoutOfAPicture() throws {
        let dir = try Workshop.shared.get()
        let out = dir + "/split-measured"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let tb = try CLI.run(["split", dir + "/sq-tb.png", "--left", out + "/l.png", "--right", out + "/r.png"])
        #expect(tb.status == 0 && tb.out.contains("layout top-bottom measured"), "\(tb.out) \(tb.err.suffix(300))")
        let flat = try CLI.run(["split", dir + "/flat.jpg", "--left", out + "/fl.png", "--right", out + "/fr.png"])
        #expect(
            flat.status == ExitTable.unsupported && flat.err.contains("no stereo pair found")
                && flat.err.contains("--layout"), "\(flat.err.suffix(300))")
    }

    /// The matrix is what the issue asks: at least 25 classes, a damaged input of every reader, every job present.
    @Test func matrixCoversTheIssue() {
        #expect(Self.classes.count >= 25)
        let damagedReaders = Set(Self.classes.filter(\.damaged).map(\.reader))
        #expect(damagedReaders.isSuperset(of: [.mp4, .mov, .mkv, .ts, .y4m, .png, .jpeg, .mpo, .heic]))
        #expect(Set(Self.cells.map(\.job)) == Set(Job.allCases))
        #expect(
            ExitTable.damaged != nil && ExitTable.success != nil && ExitTable.problems != nil
                && ExitTable.unsupported != nil,
            "the README's exit-code table has the rows the matrix reads: \(ExitTable.rows)")
        for key in Self.pendingOnOtherBranches.keys {
            #expect(Self.cells.contains { $0.id == key }, "pending entry names no cell: \(key)")
        }
    }

    static func check(_ cell: Cell, dir: String) throws {
        let c = cell.input
        let out = dir + "/out-\(abs(cell.id.hashValue))"
        try? FileManager.default.removeItem(atPath: out)
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: out) }
        let input = dir + "/" + c.file
        var args: [String]
        switch cell.job {
        case .info: args = ["info", input]
        case .validate: args = ["validate", "--no-pixels", input]
        case .rewrite: args = ["rewrite", input, "-o", out + "/re." + (c.reader == .heic ? "heic" : c.reader.rawValue)]
        case .split:
            args =
                c.video
                ? ["split", input, "--left", out + "/l.mp4", "--right", out + "/r.mp4", "--preset", "ultrafast"]
                : ["split", input, "--left", out + "/l.png", "--right", out + "/r.png"]
            // The user states the layout the input does not (split never guesses one for a movie).
            if case .packed(let tb, _) = c.truth { args += ["--layout", tb ? "tb" : "sbs"] }
        case .convert:
            let o = out + (c.video ? "/o.mov" : "/o.heic")
            if let right = c.right {
                args = ["convert", "--left", input, "--right", dir + "/" + right, "-o", o]
            } else {
                args = ["convert", input, "-o", o]
            }
            // A raw two-layer stream is muxed as it is: options that would re-encode are refused for it (exit 64).
            if c.reader != .hevc { args += c.video ? ["--preset", "ultrafast", "--crf", "8"] : ["--quality", "95"] }
        }
        let r = try CLI.run(args)
        #expect(
            cell.outcome.codes.contains(r.status),
            "\(cell.id): exit \(r.status), expected \(cell.outcome.codes.sorted()): \(r.err.suffix(400))")
        if c.damaged {
            #expect(
                r.err.contains("damaged or truncated") || r.out.contains("damaged or truncated"),
                "\(cell.id) names the damage: \(r.err.suffix(300))")
        }
        guard cell.job == .convert, r.status == 0, cell.outcome != .refused else { return }
        try compareEyes(cell, input: input, out: out, dir: dir)
    }

    // MARK: - Eyes and colour

    /// Luma of `path` (the Y plane of every frame; `filter` applied first) as FFmpeg decodes it, in limited range (a
    /// full-range source is scaled by what it states, so a picture re-tagged without scaling differs), with its size.
    static func luma(_ path: String, map: [String] = [], filter: String? = nil) throws -> (
        bytes: [UInt8], width: Int, height: Int
    ) {
        let ff = try TestPrograms.requireFFmpeg()
        let raw = path + ".\(abs((map + [filter ?? ""]).joined().hashValue)).yuv"
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let chain = (filter.map { [$0] } ?? []) + ["scale=out_range=tv", "format=yuv420p"]
        let args =
            ["-nostdin", "-hide_banner", "-y", "-i", path] + map + [
                "-vf", chain.joined(separator: ","), "-f", "rawvideo", raw,
            ]
        let r = try Run.program(ff, args, timeout: 120)
        guard r.status == 0 else { throw TestSetupError("FFmpeg could not decode \(path): \(r.err.suffix(300))") }
        // The output stream's size, from FFmpeg's listing of what it wrote ("Stream #0:0: Video: rawvideo …, 96x64,
        // …").
        let line = r.err.split(separator: "\n").last { $0.contains("Stream #") && $0.contains("rawvideo") } ?? ""
        let size = line.split(separator: ",").lazy.compactMap { f -> (Int, Int)? in
            let d = f.trimmingCharacters(in: .whitespaces).prefix { $0 != " " }.split(separator: "x")
            guard d.count == 2, let w = Int(d[0]), let h = Int(d[1]) else { return nil }
            return (w, h)
        }.first
        let all = [UInt8](try Data(contentsOf: URL(fileURLWithPath: raw)))
        guard let (w, h) = size, w > 0, h > 0 else { return (all, 0, 0) }
        let frame = w * h + 2 * ((w + 1) / 2) * ((h + 1) / 2)
        var y: [UInt8] = []
        var at = 0
        while at + frame <= all.count { y += all[at..<(at + w * h)]; at += frame }
        return (y, w, h)
    }

    static func psnr(_ a: [UInt8], _ b: [UInt8]) -> Double {
        guard a.count == b.count, !a.isEmpty else { return 0 }
        var se = 0.0
        for i in a.indices { let d = Double(a[i]) - Double(b[i]); se += d * d }
        let mse = se / Double(a.count)
        return mse == 0 ? 99 : 10 * log10(255 * 255 / mse)
    }

    /// The colour words FFmpeg prints for the first video stream's pixel format ("yuv420p(tv, bt709, progressive)" →
    /// tv, bt709); an unstated range counts as limited ("tv").
    static func colourTags(_ path: String) throws -> Set<String> {
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(), ["-nostdin", "-hide_banner", "-i", path], timeout: 60)
        var tags: Set<String> = []
        if let line = r.err.split(separator: "\n").first(where: { $0.contains("Stream #") && $0.contains("Video:") }) {
            let words = line.split(separator: " ")
            if let pix = words.firstIndex(where: { $0.hasPrefix("yuv") || $0.hasPrefix("gray") }),
                words[pix].contains("(")
            {
                let text = words[pix...].joined(separator: " ")
                if let o = text.firstIndex(of: "("), let close = text.firstIndex(of: ")"), o < close {
                    for w in text[text.index(after: o)..<close].split(separator: ",") {
                        for part in w.split(separator: "/") { tags.insert(part.trimmingCharacters(in: .whitespaces)) }
                    }
                }
            }
        }
        tags.subtract(["progressive", "top first", "bottom first", "unknown", ""])
        if !tags.contains("pc") { tags.insert("tv") }
        return tags
    }

    static func compareEyes(_ cell: Cell, input: String, out: String, dir: String) throws {
        let c = cell.input
        var truth: [(bytes: [UInt8], width: Int, height: Int)] = []
        switch c.truth {
        case .packed(let tb, let rightFirst):
            let halves =
                tb ? ["crop=iw:ih/2:0:0", "crop=iw:ih/2:0:ih/2"] : ["crop=iw/2:ih:0:0", "crop=iw/2:ih:iw/2:0"]
            let eyes = try halves.map { try luma(input, filter: $0) }
            truth = rightFirst ? eyes.reversed() : eyes
        case .layers(let from):
            truth = try ["crop=iw/2:ih:0:0", "crop=iw/2:ih:iw/2:0"].map { try luma(dir + "/" + from, filter: $0) }
        case .pair: truth = [try luma(input), try luma(dir + "/" + (c.right ?? ""))]
        case .pictures: truth = [try luma(input + ".l.png"), try luma(input + ".r.png")]
        case .none: return
        }
        var eyes: [(bytes: [UInt8], width: Int, height: Int)] = []
        if c.video {
            eyes = try ["left", "right"].map { try luma(out + "/o.mov", map: ["-map", "0:v:0:vpos:\($0)"]) }
        } else {
            let s = try CLI.run(["split", out + "/o.heic", "--left", out + "/el.png", "--right", out + "/er.png"])
            try #require(s.status == 0, "\(cell.id): split of the output: \(s.err.suffix(300))")
            eyes = [try luma(out + "/el.png"), try luma(out + "/er.png")]
        }
        for (k, name) in ["left", "right"].enumerated() {
            #expect(
                eyes[k].width == truth[k].width && eyes[k].height == truth[k].height,
                "\(cell.id): \(name) eye is \(eyes[k].width)×\(eyes[k].height), the input's true eye \(truth[k].width)×\(truth[k].height)"
            )
            let p = psnr(eyes[k].bytes, truth[k].bytes)
            #expect(
                p >= 35,
                "\(cell.id): \(name) eye PSNR \(String(format: "%.1f", p)) dB against the input's true \(name) eye (\(eyes[k].bytes.count) vs \(truth[k].bytes.count) bytes)"
            )
        }
        if c.video, c.reader != .hevc {
            let source = try colourTags(input), written = try colourTags(out + "/o.mov")
            #expect(
                source.isSubset(of: written),
                "\(cell.id): colour tags \(source.sorted()) of the source, \(written.sorted()) written")
        }
    }

    // MARK: - Files written from published layouts

    /// An MPO (CIPA DC-007): the first JPEG with an APP2 "MPF" index of two entries after its SOI, then the second
    /// JPEG. `secondType` is the second entry's MP type: 0x020002 disparity (a stereo pair), 0 for an Ultra HDR gain
    /// map.
    static func mpo(
        _ first: [UInt8], _ second: [UInt8], secondType: Int = 0x02_0002, firstType: Int = 0x2002_0002,
        xmp: [UInt8] = []
    ) -> [UInt8] {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func be32(_ v: Int) -> [UInt8] {
            [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
        }
        let tiffLength = 8 + 2 + 3 * 12 + 4 + 32
        let segmentLength = 2 + 4 + tiffLength
        let xmpSegment: [UInt8] =
            xmp.isEmpty
            ? [] : [0xFF, 0xE1] + be16(2 + 29 + xmp.count) + Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + xmp
        let firstSize = first.count + 2 + segmentLength + xmpSegment.count
        let tiffStart = 2 + xmpSegment.count + 4 + 4
        var tiff: [UInt8] = [0x4D, 0x4D, 0, 0x2A] + be32(8) + be16(3)
        tiff += be16(0xB000) + be16(7) + be32(4) + Array("0100".utf8)
        tiff += be16(0xB001) + be16(4) + be32(1) + be32(2)
        tiff += be16(0xB002) + be16(7) + be32(32) + be32(50)
        tiff += be32(0)
        tiff += be32(firstType) + be32(firstSize) + be32(0) + be16(0) + be16(0)
        tiff += be32(secondType) + be32(second.count) + be32(firstSize - tiffStart) + be16(0) + be16(0)
        let app2: [UInt8] = [0xFF, 0xE2] + be16(segmentLength) + Array("MPF".utf8) + [0] + tiff
        return Array(first.prefix(2)) + xmpSegment + app2 + Array(first.dropFirst(2)) + second
    }

    /// An Ultra HDR JPEG (Google's Ultra HDR image format v1.0): the primary image with XMP naming a GContainer of the
    /// primary and a gain map item, an MPF index whose second entry (MP type 0, not disparity) is the gain map, then
    /// the gain map JPEG carrying its `hdrgm` metadata in its own XMP.
    static func ultraHDR(_ primary: [UInt8], _ gainMap: [UInt8]) -> [UInt8] {
        func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let gainXMP = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" hdrgm:Version="1.0" hdrgm:GainMapMin="0" \
            hdrgm:GainMapMax="2" hdrgm:Gamma="1" hdrgm:OffsetSDR="0.015625" hdrgm:OffsetHDR="0.015625" hdrgm:HDRCapacityMin="0" \
            hdrgm:HDRCapacityMax="2" hdrgm:BaseRenditionIsHDR="False"/></rdf:RDF></x:xmpmeta>
            """.utf8)
        let gainSegment: [UInt8] =
            [0xFF, 0xE1] + be16(2 + 29 + gainXMP.count) + Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + gainXMP
        let gain = Array(gainMap.prefix(2)) + gainSegment + Array(gainMap.dropFirst(2))
        let primaryXMP = Array(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">\
            <rdf:Description xmlns:Container="http://ns.google.com/photos/1.0/container/" \
            xmlns:Item="http://ns.google.com/photos/1.0/container/item/" xmlns:hdrgm="http://ns.adobe.com/hdr-gain-map/1.0/" \
            hdrgm:Version="1.0"><Container:Directory><rdf:Seq><rdf:li rdf:parseType="Resource"><Container:Item \
            Item:Semantic="Primary" Item:Mime="image/jpeg"/></rdf:li><rdf:li rdf:parseType="Resource"><Container:Item \
            Item:Semantic="GainMap" Item:Mime="image/jpeg" Item:Length="\(gain.count)"/></rdf:li></rdf:Seq></Container:Directory>\
            </rdf:Description></rdf:RDF></x:xmpmeta>
            """.utf8)
        return mpo(primary, gain, secondType: 0, firstType: 0x0003_0000, xmp: primaryXMP)
    }

    // MARK: - Making the inputs once

    /// The inputs, made once per test process (in class order) in a temporary directory removed at exit.
    final class Workshop: @unchecked Sendable {
        static let shared = Workshop()
        static let dir = NSTemporaryDirectory() + "spatial-media-inputs-\(getpid())"
        var dir: String { Self.dir }
        private let lock = NSLock()
        private var made: Result<Void, Error>?

        func get() throws -> String {
            lock.lock()
            defer { lock.unlock() }
            if made == nil {
                made = Result {
                    try? FileManager.default.removeItem(atPath: dir)
                    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                    for c in InputMatrixTests.classes { try c.make(dir) }
                }
                atexit { try? FileManager.default.removeItem(atPath: Workshop.dir) }
            }
            try made?.get()
            return dir
        }
    }

    static func ffmpeg(_ args: [String]) throws {
        let r = try Run.program(
            try TestPrograms.requireFFmpeg(), ["-nostdin", "-v", "error", "-y"] + args, timeout: 120)
        guard r.status == 0 else { throw TestSetupError("FFmpeg \(args.joined(separator: " ")): \(r.err.suffix(300))") }
    }
}
