// Long operations through the C ABI: photo conversion and split, video conversion (assembly), the
// options reader, progress and cancellation, and the operations that are not built yet.
import Testing

@testable import SpatialMediaC

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small RGB PNG with stored (uncompressed) deflate blocks, so no image library is needed.
func pngBytes(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8)) -> [UInt8] {
    func be32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 }
        }
        return ~c
    }
    func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let td = Array(type.utf8) + data
        return be32(UInt32(data.count)) + td + be32(crc32(td))
    }
    var raw: [UInt8] = []
    for y in 0..<height {
        raw.append(0)
        for x in 0..<width { let p = pixel(x, y); raw += [p.0, p.1, p.2] }
    }
    var z: [UInt8] = [0x78, 0x01]
    var i = 0
    repeat {
        let n = min(65535, raw.count - i)
        z.append(i + n == raw.count ? 1 : 0)
        z += [UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
        z += raw[i..<(i + n)]
        i += n
    } while i < raw.count
    var a: UInt32 = 1, b: UInt32 = 0
    for v in raw { a = (a + UInt32(v)) % 65521; b = (b + a) % 65521 }
    z += be32(b << 16 | a)
    let ihdr = be32(UInt32(width)) + be32(UInt32(height)) + [8, 2, 0, 0, 0]
    return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", z) + chunk("IEND", [])
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    guard let f = fopen(path, "wb") else { throw Failure(message: "cannot write \(path)") }
    defer { fclose(f) }
    guard fwrite(bytes, 1, bytes.count, f) == bytes.count else { throw Failure(message: "short write \(path)") }
}

func readFile(_ path: String) throws -> [UInt8] {
    guard let f = fopen(path, "rb") else { throw Failure(message: "cannot read \(path)") }
    defer { fclose(f) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n == 0 { break }
        out += buf[0..<n]
    }
    return out
}

/// The index of the first occurrence of the four-character code `type`; a box of that type starts 4 bytes
/// earlier (its size field).
func find(_ bytes: [UInt8], _ type: String) -> Int? {
    let t = Array(type.utf8)
    guard bytes.count >= 4 else { return nil }
    for i in 0...(bytes.count - 4) where Array(bytes[i..<(i + 4)]) == t { return i }
    return nil
}

/// Records progress stages; cancels at `cancelAt`.
final class ProgressLog {
    var stages: [String] = []
    var cancelAt: String?
}

let progressCallback: SMProgressFn = { user, fraction, stage in
    guard let user, let stage else { return 0 }
    let log = Unmanaged<ProgressLog>.fromOpaque(user).takeUnretainedValue()
    let s = String(cString: stage)
    log.stages.append(s)
    return s == log.cancelAt ? 1 : 0
}

@Suite("C ABI: convert, split, validate")
struct OperationsTests {
    @Test func optionsReader() throws {
        var o = try Options(#"{"a": 1, "b": "x\u00e9\n", "c": [true, null, {"d": -2.5e1}], "e": false}"#)
        #expect(try o.int("a", 0...5) == 1)
        #expect(try o.string("b") == "xé\n")
        #expect(try o.bool("e") == false)
        #expect(throws: ABIError.self) { try o.finish("test") }  // "c" not consumed
        for bad in [
            "", "[]", "{", #"{"a":}"#, #"{"a":1,}"#, #"{"a":1}x"#, #"{"a":"\q"}"#, "{\"a\":\"\u{01}\"}",
            #"{"a":1,"a":2}"#, String(repeating: "[", count: 100),
        ] {
            #expect(throws: ABIError.self, "\(bad)") { _ = try Options(bad) }
        }
        var t = try Options(#"{"q": 1.5, "s": 3}"#)
        #expect(throws: ABIError.self) { _ = try t.int("q", 0...5) }
        #expect(throws: ABIError.self) { _ = try t.string("s") }
        #expect(try Options(nil).finish("x") == ())
    }

    @Test func convertPhotoThenSplit() throws {
        #expect(sm_capabilities() & SMCapability.convertPhoto != 0)
        let dir = try tempDir()
        defer { removeDir(dir) }
        let sbs = dir + "/sbs.png"
        try writeFile(
            sbs,
            pngBytes(width: 128, height: 64) { x, y in (UInt8(x * 2 % 256), UInt8(y * 4 % 256), x < 64 ? 200 : 40) })
        let log = ProgressLog()
        let user = Unmanaged.passUnretained(log).toOpaque()
        var report: UnsafeMutablePointer<CChar>? = nil
        let out = dir + "/out.heic"
        let st = sm_convert_photo(
            sbs, out, #"{"baseline_mm": 61.25, "hfov_degrees": 57.5, "quality": 50, "layout": "sbs"}"#,
            progressCallback, user, nil, &report)
        #expect(st == SMStatus.ok, "\(lastError())")
        #expect(report.map { String(cString: $0).contains("\"baseline_mm\":61.25") } == true)
        sm_string_free(report)
        #expect(log.stages == ["load", "encode", "write", "done"])
        let h = try open(out)
        var b = 0.0, f = 0.0, w: UInt32 = 0, hh: UInt32 = 0
        #expect(sm_photo_baseline_um(h, &b) == SMStatus.ok && abs(b - 61_250) < 1e-6)
        #expect(sm_photo_hfov_millidegrees(h, &f) == SMStatus.ok && abs(f - 57_500) < 5)
        #expect(sm_photo_size(h, &w, &hh) == SMStatus.ok && w == 64 && hh == 64)
        #expect(sm_file_free(h) == SMStatus.ok)

        // Cancel at "write": nothing written.
        let cancelLog = ProgressLog()
        cancelLog.cancelAt = "write"
        #expect(
            sm_convert_photo(
                sbs, dir + "/never.heic", #"{"layout": "sbs"}"#, progressCallback,
                Unmanaged.passUnretained(cancelLog).toOpaque(), nil, nil) == SMStatus.cancelled)
        #expect(!Paths.exists(dir + "/never.heic"))
        #expect(
            sm_convert_photo(sbs, dir + "/never.heic", #"{"layout": "diagonal"}"#, nil, nil, nil, nil)
                == SMStatus.invalidOption)

        #expect(
            sm_split(
                out, dir + "/l.png", dir + "/r.png", #"{"sbs_output": "\#(dir)/both.png"}"#, nil, nil, nil, &report)
                == SMStatus.ok, "\(lastError())")
        sm_string_free(report)
        for name in ["l.png", "r.png", "both.png"] { #expect(Paths.exists(dir + "/" + name)) }
    }

    @Test func videoOperations() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        var report: UnsafeMutablePointer<CChar>? = nil
        // A frame-packed clip (the bundled SBS Y4M) is decoded, split, encoded per eye and assembled.
        let sbs = Paths.root + "/Conformance/files/sample_sbs_320x96.y4m"
        #expect(
            sm_convert_video(
                sbs, dir + "/sbs.mov", #"{"preset": "ultrafast", "baseline_um": 64000, "hfov_millidegrees": 60000}"#,
                nil, nil, nil, &report) == SMStatus.ok)
        if let report { #expect(String(cString: report).contains("\"frames\":30")); sm_string_free(report) }
        report = nil
        #expect(Paths.exists(dir + "/sbs.mov"))
        // eye_quality (issue 23): equal makes the second layer cost about what the first does, the default less.
        func layers(_ json: String, _ name: String) throws -> (Int, Int) {
            var r: UnsafeMutablePointer<CChar>? = nil
            #expect(sm_convert_video(sbs, dir + "/" + name, json, nil, nil, nil, &r) == SMStatus.ok, "\(lastError())")
            let text = r.map { String(cString: $0) } ?? ""
            sm_string_free(r)
            func number(_ key: String) throws -> Int {
                let pairs = text.split(whereSeparator: { $0 == "," || $0 == "{" || $0 == "}" }).map {
                    $0.split(separator: ":", maxSplits: 1)
                }
                let value = pairs.first { $0.count == 2 && $0[0] == "\"\(key)\"" }.map { String($0[1]) }
                return try #require(value.flatMap { Int($0) }, "\(key) in \(text)")
            }
            return (try number("layer0_bytes"), try number("layer1_bytes"))
        }
        let equal = try layers(
            #"{"preset": "ultrafast", "eye_quality": "equal", "encode_path": "assembled"}"#, "equal.mov")
        let asym = try layers(#"{"preset": "ultrafast", "encode_path": "assembled"}"#, "asym.mov")
        #expect(asym.0 == equal.0 && Double(asym.1) < 0.8 * Double(equal.1), "equal \(equal), asymmetric \(asym)")
        #expect(
            sm_convert_video(sbs, dir + "/bad.mov", #"{"eye_quality": "better"}"#, nil, nil, nil, nil)
                == SMStatus.invalidOption)
        #expect(lastError().contains("eye_quality") && !Paths.exists(dir + "/bad.mov"))
        #expect(
            sm_convert_video(sbs, dir + "/bad.mov", #"{"encode_path": "fastest"}"#, nil, nil, nil, nil)
                == SMStatus.invalidOption)
        #expect(lastError().contains("encode_path") && !Paths.exists(dir + "/bad.mov"))
        // A 2D movie whose samples are not decodable: an error status, a message, nothing written.
        #expect(sm_convert_video(Paths.movie2D, dir + "/out.mov", nil, nil, nil, nil, &report) != SMStatus.ok)
        #expect(!lastError().isEmpty)
        #expect(report == nil && !Paths.exists(dir + "/out.mov"))
        #expect(
            sm_convert_video(Paths.movie2D, dir + "/out.mov", #"{"hero_eye": "middle"}"#, nil, nil, nil, nil)
                == SMStatus.invalidOption)
        // Inputs that are not HEVC streams are an error, not a crash.
        #expect(
            sm_convert_video(Paths.grid, dir + "/out.mov", #"{"right_input": "\#(Paths.grid)"}"#, nil, nil, nil, nil)
                != SMStatus.ok)
        #expect(!lastError().isEmpty)
        // Splitting a 2D movie: its metadata says one view, so the split asks for the layout (as `spatial-media
        // split`).
        #expect(
            sm_split(Paths.movie2D, dir + "/l.hevc", dir + "/r.hevc", nil, nil, nil, nil, nil)
                == SMStatus.invalidArgument)
        #expect(lastError().contains("layout"), "\(lastError())")
        #expect(
            sm_split(Paths.movie2D, dir + "/l.hevc", dir + "/l.hevc", nil, nil, nil, nil, nil)
                == SMStatus.invalidArgument)
    }

    @Test func segmentsAndConcat() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        let sbs = Paths.root + "/Conformance/files/sample_sbs_320x96.y4m"  // 30 frames
        let opts =
            #"{"preset": "ultrafast", "qp": 30, "keyint": 10, "bframes": 2, "audio": "none", "encode_path": "assembled"}"#
        #expect(sm_convert_video(sbs, dir + "/one.mov", opts, nil, nil, nil, nil) == SMStatus.ok, "\(lastError())")
        var segments: [String] = []
        for k in 1...3 {
            let seg = String(opts.dropLast()) + #", "segment": "\#(k)/3"}"#
            var report: UnsafeMutablePointer<CChar>? = nil
            #expect(
                sm_convert_video(sbs, dir + "/s\(k).mov", seg, nil, nil, nil, &report) == SMStatus.ok, "\(lastError())")
            if let report { #expect(String(cString: report).contains("\"frames\":10")); sm_string_free(report) }
            segments.append("\"\(dir)/s\(k).mov\"")
        }
        let list = "[" + segments.reversed().joined(separator: ",") + "]"
        var report: UnsafeMutablePointer<CChar>? = nil
        #expect(
            sm_concat_video(list, dir + "/joined.mov", #"{"audio": "none"}"#, nil, nil, nil, &report) == SMStatus.ok,
            "\(lastError())")
        if let report { #expect(String(cString: report).contains("\"segments\":3")); sm_string_free(report) }
        #expect(try readFile(dir + "/one.mov") == readFile(dir + "/joined.mov"))
        // Wrong calls: no audio choice, a bad segment, an empty list, a missing segment, output = input.
        #expect(sm_concat_video(list, dir + "/x.mov", nil, nil, nil, nil, nil) == SMStatus.invalidOption)
        #expect(
            sm_convert_video(sbs, dir + "/x.mov", #"{"segment": "4/3"}"#, nil, nil, nil, nil)
                == SMStatus.invalidOption)
        #expect(
            sm_convert_video(sbs, dir + "/x.mov", #"{"crf": 20, "qp": 20}"#, nil, nil, nil, nil)
                == SMStatus.invalidOption)
        #expect(
            sm_concat_video("[]", dir + "/x.mov", #"{"audio": "none"}"#, nil, nil, nil, nil) == SMStatus.invalidArgument
        )
        #expect(
            sm_concat_video("[\(segments[0])]", dir + "/x.mov", #"{"audio": "none"}"#, nil, nil, nil, nil)
                == SMStatus.invalidArgument)
        #expect(lastError().contains("missing"))
        #expect(
            sm_concat_video(list, dir + "/s1.mov", #"{"audio": "none"}"#, nil, nil, nil, nil)
                == SMStatus.invalidArgument)
        #expect(!Paths.exists(dir + "/x.mov"))
    }

    @Test func validateThroughTheABI() throws {
        let h = try open(Paths.grid)
        defer { _ = sm_file_free(h) }
        var report: UnsafeMutablePointer<CChar>? = nil
        #expect(sm_capabilities() & SMCapability.validate != 0)
        #expect(sm_validate(h, "{\"pixels\": false}", nil, nil, nil, &report) == SMStatus.ok)
        if let report {
            let text = String(cString: report)
            #expect(text.contains("\"kind\""))
            #expect(text.contains("SV-PHOTO"))  // the generated grid photo has no camera properties
            sm_string_free(report)
        } else {
            Issue.record("no report")
        }
        report = nil
        #expect(sm_validate(h, "{\"bogus\": 1}", nil, nil, nil, &report) == SMStatus.invalidOption)
        #expect(sm_validate(h, "[1]", nil, nil, nil, &report) == SMStatus.invalidArgument)
        var cancel: Int32 = 1
        #expect(sm_validate(h, nil, nil, nil, &cancel, &report) == SMStatus.cancelled)
    }

    @Test func validatePathMatchesValidateOnAHandleAndReadsAnyInput() throws {
        let h = try open(Paths.grid)
        defer { _ = sm_file_free(h) }
        var a: UnsafeMutablePointer<CChar>? = nil, b: UnsafeMutablePointer<CChar>? = nil
        #expect(sm_validate(h, "{\"pixels\": false}", nil, nil, nil, &a) == SMStatus.ok)
        #expect(sm_validate_path(Paths.grid, "{\"pixels\": false}", nil, nil, nil, &b) == SMStatus.ok)
        #expect(a.map { String(cString: $0) } == b.map { String(cString: $0) })
        sm_string_free(a); sm_string_free(b)
        // A file the validator cannot read is a report with exit code 2, not an error status.
        let dir = try tempDir()
        defer { removeDir(dir) }
        try writeFile(dir + "/junk.mp4", Array("not a media file at all\n".utf8))
        var r: UnsafeMutablePointer<CChar>? = nil
        #expect(sm_validate_path(dir + "/junk.mp4", nil, nil, nil, nil, &r) == SMStatus.ok)
        #expect(r.map { String(cString: $0).contains("\"exit_code\":2") } == true)
        sm_string_free(r)
        r = nil
        #expect(sm_validate_path(nil, nil, nil, nil, nil, &r) == SMStatus.invalidArgument && r == nil)
        #expect(sm_validate_path(Paths.grid, "{\"frames\": 1e12}", nil, nil, nil, &r) == SMStatus.invalidOption)
        var cancel: Int32 = 1
        #expect(sm_validate_path(Paths.grid, nil, nil, nil, &cancel, &r) == SMStatus.cancelled)
    }

    @Test func validationInputsExpandDirectoriesLikeTheCommandLineAndPairsValidateAsOne() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        let png = pngBytes(width: 32, height: 16) { x, _ in (UInt8(x * 8 % 256), 0, 0) }
        try writeFile(dir + "/shot_L.png", png)
        try writeFile(dir + "/shot_R.png", png)
        try writeFile(dir + "/notes.txt", Array("not media\n".utf8))
        var out: UnsafeMutablePointer<CChar>? = nil
        #expect(sm_validation_inputs("[\"\(dir)\"]", &out) == SMStatus.ok)
        let text = out.map { String(cString: $0) } ?? ""
        sm_string_free(out)
        #expect(
            text
                == #"{"files":[],"pairs":[{"left":"\#(dir)/shot_L.png","right":"\#(dir)/shot_R.png"}],"skipped":["\#(dir)/notes.txt"],"directories_without_media":[]}"#,
            "\(text)")
        out = nil
        #expect(sm_validation_inputs("{\"a\": 1}", &out) == SMStatus.invalidArgument && out == nil)
        #expect(sm_validation_inputs("[1]", &out) == SMStatus.invalidArgument)
        #expect(sm_validation_inputs(nil, &out) == SMStatus.invalidArgument)
        // A pair is one report, as `validate --left --right`; right_eye is for paths only.
        #expect(
            sm_validate_path(
                dir + "/shot_L.png", #"{"pixels": false, "right_eye": "\#(dir)/shot_R.png"}"#, nil, nil, nil, &out)
                == SMStatus.ok)
        #expect(out.map { String(cString: $0).contains("\"file\":\"\(dir)/shot_L.png\"") } == true)
        sm_string_free(out)
        let h = try open(Paths.grid)
        defer { _ = sm_file_free(h) }
        #expect(sm_validate(h, #"{"right_eye": "x.png"}"#, nil, nil, nil, &out) == SMStatus.invalidArgument)
    }

    @Test func photoConversionNumbersAreRangeCheckedBeforeDecoding() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        let sbs = dir + "/sbs.png"
        try writeFile(sbs, pngBytes(width: 32, height: 16) { x, _ in (UInt8(x * 8 % 256), 0, 0) })
        // 5e6 mm is 5e9 µm: more than the signed 32-bit camera position holds (it used to trap on conversion).
        for bad in [
            #"{"baseline_mm": 5000000}"#, #"{"baseline_mm": 0}"#, #"{"baseline_mm": -3}"#, #"{"hfov_degrees": 180}"#,
            #"{"hfov_degrees": -1}"#, #"{"disparity_percent": -100.5}"#, #"{"quality": 4294967396}"#,
        ] {
            #expect(
                sm_convert_photo(sbs, dir + "/never.heic", bad, nil, nil, nil, nil) == SMStatus.invalidOption,
                "\(bad)")
            // The library's one wording for every shell (issue 28): the command line's sentence.
            #expect(lastError().contains("must") || lastError().contains("does not fit"), "\(lastError())")
        }
        #expect(access(dir + "/never.heic", F_OK) != 0)
        // The largest baseline that fits is accepted.
        #expect(
            sm_convert_photo(
                sbs, dir + "/ok.heic", #"{"baseline_mm": 2147483.647, "quality": 10, "layout": "sbs"}"#, nil, nil, nil,
                nil) == SMStatus.ok,
            "\(lastError())")
    }

    /// Photo and video options take each stereo value under its stored-unit name or its human-unit name, not both.
    @Test func stereoOptionsTakeStoredAndHumanNames() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        let sbs = dir + "/sbs.png"
        try writeFile(sbs, pngBytes(width: 32, height: 16) { x, _ in (UInt8(x * 8 % 256), 0, 0) })
        #expect(
            sm_convert_photo(
                sbs, dir + "/um.heic",
                #"{"baseline_um": 61250, "hfov_millidegrees": 57500, "disparity": -120, "quality": 10, "layout": "sbs"}"#,
                nil, nil, nil, nil) == SMStatus.ok, "\(lastError())")
        var h: OpaquePointer?
        #expect(sm_file_open(dir + "/um.heic", &h) == SMStatus.ok)
        var b = 0.0, f = 0.0
        var d: Int32 = 0
        #expect(sm_photo_baseline_um(h, &b) == SMStatus.ok && abs(b - 61_250) < 1e-6)
        #expect(sm_photo_hfov_millidegrees(h, &f) == SMStatus.ok && abs(f - 57_500) < 5)
        #expect(sm_photo_disparity(h, &d) == SMStatus.ok && d == -120)
        #expect(sm_file_free(h) == SMStatus.ok)
        for bad in [
            #"{"baseline_um": 61250, "baseline_mm": 61.25}"#, #"{"hfov_millidegrees": 60000, "hfov_degrees": 60}"#,
            #"{"disparity": 1, "disparity_percent": 0.01}"#, #"{"baseline_um": 0}"#, #"{"baseline_um": 2147483648}"#,
        ] {
            #expect(
                sm_convert_photo(sbs, dir + "/never.heic", bad, nil, nil, nil, nil) == SMStatus.invalidOption,
                "\(bad)")
        }
        #expect(access(dir + "/never.heic", F_OK) != 0)
    }

    @Test func lastErrorLocationNamesOffsetBoxPathAndReason() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        // The generated grid photo with its ipco box cut to 3 bytes: the edit fails inside meta/iprp.
        var bytes = try readFile(Paths.grid)
        guard let ipco = find(bytes, "ipco"), let meta = find(bytes, "meta") else {
            Issue.record("no ipco/meta"); return
        }
        bytes.replaceSubrange((ipco - 4)..<ipco, with: [0, 0, 0, 3])
        try writeFile(dir + "/bad.heic", bytes)
        var e: OpaquePointer? = nil
        #expect(sm_edit_create(&e) == SMStatus.ok)
        defer { _ = sm_edit_free(e) }
        #expect(sm_edit_set_baseline_um(e, 60_000) == SMStatus.ok)
        #expect(sm_edit_photo(dir + "/bad.heic", dir + "/out.heic", e, nil) == SMStatus.parse)
        var offset: Int64 = 0
        var path: UnsafePointer<CChar>? = nil, code: UnsafePointer<CChar>? = nil
        sm_last_error_location(&offset, &path, &code)
        // A damaged input is refused before the edit (issue 28): the cut box itself, where `info` reports it.
        #expect(offset == Int64(ipco - 4) && meta < ipco)
        #expect(path.map { String(cString: $0) } == "meta/iprp")
        #expect(code.map { String(cString: $0) } == "size-too-small")
        #expect(lastError().contains("sm_edit_photo"))  // reading the location does not change the error
        sm_last_error_location(nil, nil, nil)  // every out pointer is nullable
        // An argument error has no location; a success clears it.
        #expect(sm_edit_set_hfov_millidegrees(e, 0) == SMStatus.invalidArgument)
        sm_last_error_location(&offset, &path, &code)
        #expect(offset == -1 && path.map { String(cString: $0) } == "" && code.map { String(cString: $0) } == "")
        #expect(sm_edit_set_hfov_millidegrees(e, 60_000) == SMStatus.ok)
        sm_last_error_location(&offset, &path, &code)
        #expect(offset == -1 && path.map { String(cString: $0) } == "")
    }
}
