// Issue 28: the same request through the command line, the C ABI, Python and SpatialMediaKit writes byte-identical
// files and equal report JSON (timing values left out, the output path normalised).
import Foundation
import SpatialMediaC
import SpatialMediaKit
import TestSupport
import Testing

/// The built products and a way to run them; each test skips with its reason when one is absent.
enum Shells {
    static let root = TestPaths.packageRoot
    /// The built products (`swift test` builds them beside the test bundle; their absence fails a test, never skips
    /// it).
    static let cli: String? = TestPrograms.binary
    static let libraryDir: String? = TestPrograms.binDir.flatMap {
        FileManager.default.fileExists(atPath: $0 + "/libspatialmedia.so") ? $0 : nil
    }
    static let python: String? = TestPaths.which("python3")
    static let sample = root + "/Conformance/files/sample_sbs_320x96.y4m"

    static func run(_ exe: String, _ args: [String], env: [String: String] = [:]) throws -> RunResult {
        try Run.program(exe, args, env: env)
    }

    /// Runs a Python snippet with the package of this checkout over the built library.
    static func python(_ code: String) throws -> RunResult {
        guard let python, let libraryDir else {
            throw TestSetupError("python3 or the built libspatialmedia.so is missing (run `swift build`)")
        }
        return try run(python, ["-c", code], env: ["PYTHONPATH": root + "/python", "SPATIALMEDIA_LIB": libraryDir])
    }

    static func tempDir(_ tag: String) throws -> String {
        let p = NSTemporaryDirectory() + "spatial-ops-\(tag)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }

    /// A report's JSON as an object with the timing values removed and `output` set to one name.
    static func comparable(_ text: String) throws -> NSDictionary {
        let any = try JSONSerialization.jsonObject(with: Data(text.utf8))
        func strip(_ v: Any) -> Any {
            if let d = v as? [String: Any] {
                var o: [String: Any] = [:]
                for (k, x) in d where !OperationReport.timingKeys.contains(k) {
                    o[k] = k == "output" || k == "file" ? "OUT" : strip(x)
                }
                return o
            }
            if let a = v as? [Any] { return a.map(strip) }
            return v
        }
        return try #require(strip(any) as? [String: Any]) as NSDictionary
    }

    /// The C ABI's `sm_convert` called in this process.
    static func cConvert(_ input: String, _ output: String, _ options: String) -> (Int32, String) {
        cCall(sm_convert, input, output, options)
    }

    /// An entry point of the (input, output, options_json, progress, user data, cancel, report) shape called in this
    /// process: (status, report JSON).
    static func cCall(
        _ fn: (
            UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?, SMProgressFn?,
            UnsafeMutableRawPointer?,
            UnsafePointer<Int32>?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        ) -> Int32,
        _ input: String, _ output: String?, _ options: String
    ) -> (Int32, String) {
        var report: UnsafeMutablePointer<CChar>? = nil
        let status = input.withCString { i in
            options.withCString { j in
                output.map { o in o.withCString { fn(i, $0, j, nil, nil, nil, &report) } }
                    ?? fn(i, nil, j, nil, nil, nil, &report)
            }
        }
        defer { if let report { free(report) } }
        return (status, report.map { String(cString: $0) } ?? "")
    }

    /// A 256×128 side-by-side PNG (two textured 128×128 eyes, a square nearer than the background).
    static func sbsPNG(_ path: String) throws {
        let r = try run(
            python ?? "/usr/bin/python3",
            [
                "-c",
                """
                import struct, sys, zlib
                W, H = 128, 128
                def px(x, y, eye):
                    sx = x - eye * 5
                    if 40 <= sx < 80 and 40 <= y < 90:
                        return (220, 60 + 4 * int(sx - 40), 40) if (int(sx) // 4 + y // 4) % 2 else (30, 200, 90)
                    sx = x - eye
                    return ((sx * 7 + y * 3) % 256, (sx * 3 ^ y * 5) % 256, ((sx // 8 + y // 8) % 2) * 160 + 40)
                rows = b''.join(b'\\0' + bytes(v for eye in (1, -1) for x in range(W) for v in px(x, y, eye)) for y in range(H))
                def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
                open(sys.argv[1], 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', 2 * W, H, 8, 2, 0, 0, 0)) + chunk(b'IDAT', zlib.compress(rows, 9)) + chunk(b'IEND', b''))
                """, path,
            ])
        guard r.status == 0 else { throw TestSetupError("python3 could not write the side-by-side PNG: \(r.err)") }
    }
}

@Suite struct ShellEqualityTests {
    /// The issue's named case: `convert SBS -o a.mov --hero right --fps 24` and Python's
    /// `convert(SBS, "b.mov", hero_eye="right", frame_rate=(24, 1))` write one movie and one report.
    @Test
    func namedCaseCLIAndPythonWriteTheSameMovie() throws {
        let dir = try Shells.tempDir("named")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cli = try Shells.run(
            try #require(Shells.cli),
            ["convert", Shells.sample, "-o", dir + "/a.mov", "--hero", "right", "--fps", "24", "--json"])
        #expect(cli.status == 0, "\(cli.err)")
        let py = try Shells.python(
            """
            import json, spatialmedia as sm
            r = sm.convert(\"\(Shells.sample)\", \"\(dir)/b.mov\", hero_eye="right", frame_rate=(24, 1))
            print(json.dumps(r.raw))
            """)
        #expect(py.status == 0, "\(py.err)")
        let a = try #require(FileManager.default.contents(atPath: dir + "/a.mov")),
            b = try #require(FileManager.default.contents(atPath: dir + "/b.mov"))
        #expect(a == b, "the CLI wrote \(a.count) bytes, Python \(b.count)")
        let ja = try Shells.comparable(cli.out), jb = try Shells.comparable(py.out)
        #expect(ja == jb)
        #expect(ja["hero"] as? String == "right" && ja["fps"] as? String == "24/1", "\(ja)")
        let check = try #require(ja["output_check"] as? [String: Any])
        #expect(check["verdict"] as? String == "passed")
    }

    /// One request through all four shells, for a photo and a video: byte-identical files, equal reports.
    @Test(arguments: ["photo", "video"])
    func convertThroughEveryShell(_ kind: String) throws {
        let dir = try Shells.tempDir("shells-\(kind)")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input: String, ext: String
        let flags: [String], json: String, python: String
        var kit: ConvertRequest
        if kind == "photo" {
            input = dir + "/in-sbs.png"
            try Shells.sbsPNG(input)
            ext = "heic"
            flags = ["--baseline", "62.5", "--quality", "60", "--layout", "sbs"]
            json = #"{"baseline_mm": 62.5, "quality": 60, "layout": "sbs"}"#
            python = #"baseline_mm=62.5, quality=60, layout="sbs""#
            kit = ConvertRequest(input: input, output: "")
            kit.values.baselineMillimetres = 62.5; kit.quality = 60; kit.layout = .sbs
        } else {
            input = Shells.sample
            ext = "mov"
            flags = ["--hero", "right", "--fps", "24", "--crf", "30", "--preset", "ultrafast", "--no-audio"]
            json = #"{"hero_eye": "right", "frame_rate": "24", "crf": 30, "preset": "ultrafast", "no_audio": true}"#
            python = #"hero_eye="right", frame_rate=(24, 1), crf=30, preset="ultrafast", no_audio=True"#
            kit = ConvertRequest(input: input, output: "")
            kit.heroEye = .right; kit.frameRate = "24"; kit.crf = 30; kit.preset = .ultrafast; kit.noAudio = true
        }
        let out = { (shell: String) in "\(dir)/\(shell).\(ext)" }
        let cli = try Shells.run(try #require(Shells.cli), ["convert", input, "-o", out("cli"), "--json"] + flags)
        #expect(cli.status == 0, "\(cli.err)")
        let (status, cReport) = Shells.cConvert(input, out("c"), json)
        #expect(status == 0, "\(cReport)")
        let py = try Shells.python(
            "import json, spatialmedia as sm\nprint(json.dumps(sm.convert(\"\(input)\", \"\(out("python"))\", \(python)).raw))"
        )
        #expect(py.status == 0, "\(py.err)")
        kit.output = out("kit")
        let k = try SpatialConversion.convert(kit)
        let files = try ["cli", "c", "python", "kit"].map {
            try #require(FileManager.default.contents(atPath: out($0)), "\($0) wrote nothing")
        }
        for (i, f) in files.enumerated().dropFirst() {
            #expect(f == files[0], "shell \(i) wrote \(f.count) bytes, the CLI \(files[0].count)")
        }
        let reports = try [cli.out, cReport, py.out, k.json.serialized()].map(Shells.comparable)
        for (i, r) in reports.enumerated().dropFirst() { #expect(r == reports[0], "shell \(i): \(r) vs \(reports[0])") }
    }

    /// Combine through the CLI, the C ABI (as Python calls it) and Kit: the same file, the same report, and the
    /// output is a spatial photo by `validate` (Python's combine_photo used to drop the eyes' intrinsics).
    @Test(.needs(.shared("fixtures/pair_plain.heic")))
    func combineThroughEveryShell() throws {
        let pair = TestPaths.sharedPath("fixtures/pair_plain.heic")
        let dir = try Shells.tempDir("combine")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cli = try Shells.run(try #require(Shells.cli), ["combine", pair, "-o", dir + "/cli.heic", "--json"])
        #expect(cli.status == 0, "\(cli.err)")
        let py = try Shells.python(
            "import json, spatialmedia as sm\nprint(json.dumps(sm.combine_photo(\"\(pair)\", None, \"\(dir)/python.heic\").raw))"
        )
        #expect(py.status == 0, "\(py.err)")
        let k = try Operations.combine(CombineRequest(left: pair, output: dir + "/kit.heic"), spelling: .key)
        let files = try ["cli", "python", "kit"].map {
            try #require(FileManager.default.contents(atPath: "\(dir)/\($0).heic"))
        }
        #expect(files[1] == files[0] && files[2] == files[0])
        let reports = try [cli.out, py.out, k.json.serialized()].map(Shells.comparable)
        #expect(reports[1] == reports[0] && reports[2] == reports[0])
        var o = ValidationOptions()
        o.pixels = false
        let v = Validator.validate(path: dir + "/python.heic", options: o)
        #expect(v.spatial, "\(v.whyNotSpatial)")
    }

    /// A photo split through the CLI, the C ABI, Python and Kit: byte-identical eyes.
    @Test(.needs(.shared("fixtures/pair_ster_cmin_cmex.heic")))
    func splitThroughEveryShell() throws {
        let photo = TestPaths.sharedPath("fixtures/pair_ster_cmin_cmex.heic")
        let dir = try Shells.tempDir("split")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = { (shell: String, eye: String) in "\(dir)/\(shell)-\(eye).png" }
        let cli = try Shells.run(
            try #require(Shells.cli), ["split", photo, "--left", out("cli", "l"), "--right", out("cli", "r")])
        #expect(cli.status == 0, "\(cli.err)")
        var report: UnsafeMutablePointer<CChar>? = nil
        #expect(sm_split(photo, out("c", "l"), out("c", "r"), nil, nil, nil, nil, &report) == 0)
        if let report { free(report) }
        let py = try Shells.python(
            "import spatialmedia as sm\nsm.split(\"\(photo)\", \"\(out("python", "l"))\", \"\(out("python", "r"))\")")
        #expect(py.status == 0, "\(py.err)")
        var k = SplitRequest(input: photo)
        k.left = out("kit", "l"); k.right = out("kit", "r")
        let kit = try Operations.split(k, spelling: .key)
        #expect(kit.check.passed)
        for eye in ["l", "r"] {
            let files = try ["cli", "c", "python", "kit"].map {
                try #require(FileManager.default.contents(atPath: out($0, eye)), "\($0) wrote no \(eye) eye")
            }
            #expect(files.allSatisfy { $0 == files[0] }, "eye \(eye) differs between shells")
        }
    }

    /// align through the CLI, the C ABI, Python and Kit: the same file, the same report.
    @Test(.needs(.shared("fixtures/pair_ster_cmin_cmex.heic")))
    func alignThroughEveryShell() throws {
        let photo = TestPaths.sharedPath("fixtures/pair_ster_cmin_cmex.heic")
        let dir = try Shells.tempDir("align")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = { (shell: String) in "\(dir)/\(shell).heic" }
        let cli = try Shells.run(
            try #require(Shells.cli),
            ["align", photo, "-o", out("cli"), "--json", "--quality", "40", "--auto-disparity"])
        #expect(cli.status == 0, "\(cli.err)")
        let (status, cReport) = Shells.cCall(
            sm_align_photo, photo, out("c"), #"{"quality": 40, "auto_disparity": true}"#)
        #expect(status == 0, "\(cReport)")
        let py = try Shells.python(
            "import json, spatialmedia as sm\nprint(json.dumps(sm.align(\"\(photo)\", \"\(out("python"))\", quality=40, auto_disparity=True).raw))"
        )
        #expect(py.status == 0, "\(py.err)")
        var r = AlignRequest(photo: photo, output: out("kit"))
        r.quality = 40; r.autoDisparity = true
        let kit = try Operations.align(r, spelling: .key)
        let files = try ["cli", "c", "python", "kit"].map {
            try #require(FileManager.default.contents(atPath: out($0)), "\($0) wrote nothing")
        }
        #expect(files.allSatisfy { $0 == files[0] }, "\(files.map(\.count))")
        let reports = try [cli.out, cReport, py.out, kit.json.serialized()].map(Shells.comparable)
        #expect(reports.allSatisfy { $0 == reports[0] }, "\(reports)")
        // The layer's range check, named by the key through the C ABI.
        let (bad, _) = Shells.cCall(sm_align_photo, photo, out("bad"), #"{"quality": 101}"#)
        let message = String(cString: sm_last_error())
        #expect(
            bad == SMStatus.invalidOption && message.contains(#""quality" must be between 0 and 100"#),
            "\(bad): \(message)")
        // Exit codes of the README's table: a movie named .heic is a usage error; an input that is no spatial photo, 2.
        let named = try Shells.run(try #require(Shells.cli), ["align", photo, "-o", dir + "/x.mov"])
        #expect(named.status == 64 && named.err.contains("must be named .heic"), "\(named.err)")
        let notPhoto = try Shells.run(try #require(Shells.cli), ["align", Shells.sample, "-o", dir + "/y.heic"])
        #expect(notPhoto.status == 2, "\(notPhoto.err)")
    }

    /// fix through the CLI, the C ABI, Python and Kit, to another file and in place: byte-identical files, equal
    /// reports.
    @Test(.needs(.shared("fixtures/mvhevc_96x64_6f_lhvC.mov")))
    func fixThroughEveryShell() throws {
        // No hero eye, no field of view, moov after mdat: three repairs.
        let movie = TestPaths.sharedPath("fixtures/mvhevc_96x64_6f_lhvC.mov")
        let dir = try Shells.tempDir("fix")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let out = { (shell: String) in "\(dir)/\(shell).mov" }
        let cli = try Shells.run(
            try #require(Shells.cli), ["fix", movie, "-o", out("cli"), "--hero", "right", "--hfov", "70", "--json"])
        #expect(cli.status == 0, "\(cli.err)")
        let (status, cReport) = Shells.cCall(
            sm_fix_video, movie, out("c"), #"{"hero_eye": "right", "hfov_degrees": 70}"#)
        #expect(status == 0, "\(cReport)")
        let py = try Shells.python(
            "import json, spatialmedia as sm\nprint(json.dumps(sm.fix(\"\(movie)\", \"\(out("python"))\", hero_eye=\"right\", hfov_degrees=70).raw))"
        )
        #expect(py.status == 0, "\(py.err)")
        var r = FixRequest(path: movie, output: out("kit"))
        r.heroEye = .right; r.hfovDegrees = 70
        let kit = try Operations.fix(r, spelling: .key)
        #expect(!kit.outputs.isEmpty, "the fixture had nothing to repair: \(kit.headline)")
        let files = try ["cli", "c", "python", "kit"].map {
            try #require(FileManager.default.contents(atPath: out($0)), "\($0) wrote nothing")
        }
        #expect(files.allSatisfy { $0 == files[0] }, "\(files.map(\.count))")
        let reports = try [cli.out, cReport, py.out, kit.json.serialized()].map(Shells.comparable)
        #expect(reports.allSatisfy { $0 == reports[0] }, "\(reports)")
        // Output NULL: the input repaired in place, as `fix --in-place` does it.
        try FileManager.default.copyItem(atPath: movie, toPath: out("inplace"))
        try FileManager.default.copyItem(atPath: movie, toPath: out("inplace-cli"))
        let (inPlace, inPlaceReport) = Shells.cCall(
            sm_fix_video, out("inplace"), nil, #"{"hero_eye": "right", "hfov_degrees": 70}"#)
        #expect(inPlace == 0, "\(inPlaceReport)")
        let cliInPlace = try Shells.run(
            try #require(Shells.cli),
            ["fix", out("inplace-cli"), "--in-place", "--hero", "right", "--hfov", "70", "--json"])
        #expect(cliInPlace.status == 0, "\(cliInPlace.err)")
        #expect(
            FileManager.default.contents(atPath: out("inplace"))
                == FileManager.default.contents(atPath: out("inplace-cli")))
        #expect(FileManager.default.contents(atPath: out("inplace")) != FileManager.default.contents(atPath: movie))
    }

    /// A video edit through the CLI, the C ABI, Python and Kit: byte-identical files, equal reports; an edit whose
    /// result fails the validator (a zero baseline) is refused with exit 2 and leaves nothing.
    @Test(.needs(.shared("fixtures/mvhevc_96x64_6f_spatial.mov")))
    func editThroughEveryShell() throws {
        let movie = TestPaths.sharedPath("fixtures/mvhevc_96x64_6f_spatial.mov")
        let dir = try Shells.tempDir("edit")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cli = try Shells.run(
            try #require(Shells.cli),
            ["edit", movie, "-o", dir + "/cli.mov", "--baseline", "55.5", "--hero", "right", "--json"])
        #expect(cli.status == 0, "\(cli.err)")
        var e: OpaquePointer? = nil
        #expect(sm_edit_create(&e) == 0)
        #expect(sm_edit_set_values(e, #"{"baseline_mm": 55.5}"#) == 0)
        #expect(sm_edit_set_hero_eye(e, 2) == 0)
        var report: UnsafeMutablePointer<CChar>? = nil
        #expect(sm_edit_apply(movie, dir + "/c.mov", e, 0, &report) == 0)
        let cReport = report.map { String(cString: $0) } ?? ""
        if let report { free(report) }
        _ = sm_edit_free(e)
        let py = try Shells.python(
            "import json, spatialmedia as sm\nprint(json.dumps(sm.edit(\"\(movie)\", \"\(dir)/python.mov\", baseline_mm=55.5, hero_eye=\"right\").raw))"
        )
        #expect(py.status == 0, "\(py.err)")
        var k = EditRequest(path: movie, output: dir + "/kit.mov")
        k.values.baselineMillimetres = 55.5; k.heroEye = .right
        let kit = try Operations.edit(k, spelling: .key)
        let files = try ["cli", "c", "python", "kit"].map {
            try #require(FileManager.default.contents(atPath: "\(dir)/\($0).mov"), "\($0) wrote nothing")
        }
        #expect(files.allSatisfy { $0 == files[0] })
        let reports = try [cli.out, cReport, py.out, kit.json.serialized()].map(Shells.comparable)
        #expect(reports.allSatisfy { $0 == reports[0] }, "\(reports)")
        let zero = try Shells.run(
            try #require(Shells.cli), ["edit", movie, "-o", dir + "/zero.mov", "--baseline", "0"])
        #expect(zero.status == 2 && zero.err.contains("SV-VIDEO-016"), "\(zero.err)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/zero.mov"))
    }
}
