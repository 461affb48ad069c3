import BinaryIO
import SystemSupport
import TestSupport
// Tests of the C ABI, calling the exported functions exactly as C does (same symbols, C types).
import Testing

@testable import SpatialMediaC

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum Paths {
    /// The package root, from this file's path (Tests/SpatialMediaCTests/CABITests.swift).
    static let root = TestPaths.packageRoot
    static let grid = root + "/Conformance/files/heif_grid_ster.heic"
    static let movie2D = root + "/Conformance/files/movie_moov_first.mp4"
    static let visionPro = TestPaths.sharedPath("corpus/spatial-photo/vision-pro.HEIC")
    static let spatialVideo = TestPaths.sharedPath("corpus/spatial-video/stereo_spatial.mp4")
    static func exists(_ p: String) -> Bool { access(p, R_OK) == 0 }
}

struct Failure: Error { var message: String }

/// The thread's last error as a Swift string.
func lastError() -> String { String(cString: sm_last_error()) }

/// Opens `path` through the ABI.
func open(_ path: String) throws -> OpaquePointer {
    var h: OpaquePointer? = nil
    let st = sm_file_open(path, &h)
    guard st == SMStatus.ok, let h else { throw Failure(message: "sm_file_open(\(path)) = \(st): \(lastError())") }
    return h
}

/// Info JSON through the ABI.
func infoJSON(_ h: OpaquePointer?, pretty: Bool = false) -> (Int32, String?) {
    var s: UnsafeMutablePointer<CChar>? = nil
    var n = 0
    let st = sm_file_info_json(h, pretty ? 1 : 0, &s, &n)
    defer { sm_string_free(s) }
    return (st, s.map { String(cString: $0) })
}

func tempDir() throws -> String {
    var template = Array("/tmp/sm-cabi-XXXXXX".utf8CString)
    let ok = template.withUnsafeMutableBufferPointer { p -> Bool in p.baseAddress.map { mkdtemp($0) != nil } ?? false }
    guard ok else { throw Failure(message: "mkdtemp failed") }
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Removes a directory made by `tempDir` and the files in it (no subdirectories are created).
func removeDir(_ dir: String) {
    if let d = opendir(dir) {
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { unlink(dir + "/" + name) }
        }
        closedir(d)
    }
    rmdir(dir)
}

func copyFile(_ from: String, _ to: String) throws {
    guard let f = fopen(from, "rb"), let t = fopen(to, "wb") else { throw Failure(message: "cannot copy \(from)") }
    defer { fclose(f); fclose(t) }
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&buf, 1, buf.count, f)
        if n == 0 { break }
        fwrite(buf, 1, n, t)
    }
}

@Suite("C ABI: bad calls give error statuses")
struct BadCallTests {
    @Test func nullPointers() {
        var h: OpaquePointer? = OpaquePointer(bitPattern: 0x10)
        #expect(sm_file_open(nil, &h) == SMStatus.invalidArgument)
        #expect(h == nil)  // out parameter cleared
        #expect(lastError().contains("path is NULL"))
        #expect(sm_file_open(Paths.grid, nil) == SMStatus.invalidArgument)
        #expect(!lastError().isEmpty)
        #expect(sm_file_open_memory(nil, 8, &h) == SMStatus.invalidArgument)
        var k: Int32 = 0
        #expect(sm_file_kind(nil, &k) == SMStatus.invalidArgument)
        #expect(sm_video_baseline_um(nil, nil) == SMStatus.invalidArgument)
        #expect(sm_photo_eye_items(nil, nil, nil) == SMStatus.invalidArgument)
        let (st, json) = infoJSON(nil)
        #expect(st == SMStatus.invalidArgument && json == nil)
        #expect(sm_edit_create(nil) == SMStatus.invalidArgument)
        #expect(sm_edit_set_baseline_um(nil, 1) == SMStatus.invalidArgument)
        #expect(sm_edit_apply(nil, nil, nil, 0, nil) == SMStatus.invalidArgument)
        #expect(sm_combine_photo(nil, nil, 0, 0, 0, nil, nil, nil) == SMStatus.invalidArgument)
        #expect(sm_validate(nil, nil, nil, nil, nil, nil) == SMStatus.invalidArgument)
        #expect(sm_split(nil, nil, nil, nil, nil, nil, nil, nil) == SMStatus.invalidArgument)
        #expect(!lastError().isEmpty)
        // Free functions accept NULL.
        #expect(sm_file_free(nil) == SMStatus.ok)
        #expect(sm_edit_free(nil) == SMStatus.ok)
        sm_string_free(nil)
        sm_buffer_free(nil)
    }

    @Test func freedAndBogusHandles() throws {
        let h = try open(Paths.grid)
        var k: Int32 = -1
        #expect(sm_file_kind(h, &k) == SMStatus.ok && k == 2)
        #expect(lastError() == "")
        #expect(sm_file_free(h) == SMStatus.ok)
        #expect(sm_file_kind(h, &k) == SMStatus.invalidHandle)
        #expect(k == 0)
        #expect(lastError().contains("not a live handle"))
        #expect(infoJSON(h).0 == SMStatus.invalidHandle)
        #expect(sm_file_free(h) == SMStatus.invalidHandle)  // double free
        #expect(sm_file_kind(OpaquePointer(bitPattern: 0xDEAD_BEE0), &k) == SMStatus.invalidHandle)
        // Type confusion: an sm_edit passed as an sm_file and the reverse.
        var e: OpaquePointer? = nil
        #expect(sm_edit_create(&e) == SMStatus.ok)
        #expect(sm_file_kind(e, &k) == SMStatus.invalidHandle)
        #expect(lastError().contains("another type"))
        #expect(sm_file_free(e) == SMStatus.invalidHandle)
        #expect(sm_edit_free(e) == SMStatus.ok)
        #expect(sm_edit_set_disparity(e, 1) == SMStatus.invalidHandle)
    }

    @Test func invalidUTF8Paths() {
        let bad: [CChar] = [CChar(bitPattern: 0xFF), CChar(bitPattern: 0xFE), 0x2E, 0x6D, 0x70, 0x34, 0]
        var h: OpaquePointer? = nil
        bad.withUnsafeBufferPointer { p in
            #expect(sm_file_open(p.baseAddress, &h) == SMStatus.invalidArgument)
            #expect(lastError().contains("UTF-8"))
            #expect(sm_edit_apply(p.baseAddress, nil, nil, 0, nil) == SMStatus.invalidArgument)
            #expect(sm_convert_photo(p.baseAddress, "/tmp/x.heic", nil, nil, nil, nil, nil) == SMStatus.invalidArgument)
        }
        #expect(h == nil)
        #expect(sm_file_open("", &h) == SMStatus.invalidArgument)
    }

    @Test func emptyAndGarbageBuffers() {
        var h: OpaquePointer? = nil
        let bytes: [UInt8] = [1, 2, 3]
        bytes.withUnsafeBufferPointer { p in
            #expect(sm_file_open_memory(p.baseAddress, 0, &h) == SMStatus.invalidArgument)
            #expect(lastError().contains("size is 0"))
            #expect(sm_file_open_memory(p.baseAddress, 3, &h) == SMStatus.parse)
            #expect(sm_file_open_memory(p.baseAddress, -1, &h) == SMStatus.invalidArgument)  // SIZE_MAX from C
        }
        #expect(h == nil)
        #expect(sm_file_open("/nonexistent/file.mp4", &h) == SMStatus.io)
        #expect(sm_file_open("/tmp", &h) == SMStatus.io)
    }

    @Test func lastErrorIsPerThreadAndNeverNull() async {
        var h: OpaquePointer? = nil
        #expect(sm_file_open(nil, &h) == SMStatus.invalidArgument)
        #expect(!lastError().isEmpty)
        // Another thread has its own (empty) error.
        final class Box: @unchecked Sendable { var text = "unset" }
        let box = Box()
        var thread = pthread_t()
        let arg = Unmanaged.passRetained(box).toOpaque()
        #if canImport(Glibc)
            let rc = pthread_create(
                &thread, nil,
                { p in
                    guard let p else { return nil }
                    let b = Unmanaged<Box>.fromOpaque(p).takeRetainedValue()
                    b.text = String(cString: sm_last_error())
                    return nil
                }, arg)
        #else
            let rc = pthread_create(
                &thread, nil,
                { p in
                    let b = Unmanaged<Box>.fromOpaque(p).takeRetainedValue()
                    b.text = String(cString: sm_last_error())
                    return nil
                }, arg)
        #endif
        #expect(rc == 0)
        #if canImport(Glibc)
            pthread_join(thread, nil)
        #else
            if let t = Optional(thread) { pthread_join(t, nil) }
        #endif
        #expect(box.text == "")
        #expect(String(cString: sm_status_name(SMStatus.unsupported)) == "SM_ERR_UNSUPPORTED")
        #expect(String(cString: sm_status_name(12345)) == "SM_ERR_UNKNOWN")
    }

    @Test func editSettersCheckRanges() {
        var e: OpaquePointer? = nil
        #expect(sm_edit_create(&e) == SMStatus.ok)
        defer { _ = sm_edit_free(e) }
        #expect(sm_edit_set_hfov_millidegrees(e, 0) == SMStatus.invalidArgument)
        #expect(sm_edit_set_hfov_millidegrees(e, 180_000) == SMStatus.invalidArgument)
        #expect(sm_edit_set_disparity(e, -10_001) == SMStatus.invalidArgument)
        #expect(sm_edit_set_hero_eye(e, 256) == SMStatus.invalidArgument)
        #expect(sm_edit_set_projection(e, "rectangle") == SMStatus.invalidArgument)
        #expect(sm_edit_remove_field(e, 99) == SMStatus.invalidArgument)
        #expect(sm_edit_set_photo_form(e, 7) == SMStatus.invalidArgument)
        #expect(sm_edit_set_hfov_millidegrees(e, 65_000) == SMStatus.ok)
        // Unknown flag bits.
        #expect(sm_edit_video(Paths.movie2D, "/tmp/never.mp4", e, 0x80, nil) == SMStatus.invalidArgument)
        #expect(infoJSONFlagsChecked())
    }

    func infoJSONFlagsChecked() -> Bool {
        guard let h = try? open(Paths.grid) else { return false }
        defer { _ = sm_file_free(h) }
        var s: UnsafeMutablePointer<CChar>? = nil
        return sm_file_info_json(h, 0x100, &s, nil) == SMStatus.invalidArgument && s == nil
    }
}

@Suite("C ABI: reading and editing")
struct ReadEditTests {
    @Test func generatedPhoto() throws {
        let h = try open(Paths.grid)
        defer { _ = sm_file_free(h) }
        var l: UInt32 = 0, r: UInt32 = 0, spatial: Int32 = 0
        #expect(sm_photo_eye_items(h, &l, &r) == SMStatus.ok)
        #expect((l, r) == (1, 2))
        #expect(sm_file_is_spatial(h, &spatial) == SMStatus.ok && spatial == 1)
        var cls: Int32 = 0
        #expect(sm_video_classification(h, &cls) == SMStatus.notFound)
        #expect(lastError().contains("not a movie"))
        let (st, json) = infoJSON(h)
        #expect(st == SMStatus.ok)
        #expect(json?.hasPrefix("{\"file\":\"\(Paths.grid)\"") == true)
        #expect(json?.contains("\"is_spatial_photo\":true") == true)
        // Round trip through the writer.
        var bytes: UnsafeMutablePointer<UInt8>? = nil
        var n = 0
        #expect(sm_file_serialize(h, &bytes, &n) == SMStatus.ok)
        defer { sm_buffer_free(bytes) }
        var m: OpaquePointer? = nil
        #expect(sm_file_open_memory(bytes, n, &m) == SMStatus.ok)
        let (_, memJSON) = infoJSON(m)
        #expect(sm_file_free(m) == SMStatus.ok)
        #expect(memJSON.map { "{\"file\":\"\(Paths.grid)\"," + $0.dropFirst() } == json)
    }

    @Test(.needs(.shared("corpus/spatial-photo/vision-pro.HEIC")))
    func visionProBaseline() throws {
        let h = try open(Paths.visionPro)
        defer { _ = sm_file_free(h) }
        let (st, json) = infoJSON(h)
        #expect(st == SMStatus.ok)
        #expect(json?.contains("\"baseline_mm\":63.774") == true)
        var b = 0.0, fov = 0.0, w: UInt32 = 0, hh: UInt32 = 0
        #expect(sm_photo_baseline_um(h, &b) == SMStatus.ok)
        #expect(abs(b - 63774) < 0.5)
        #expect(sm_photo_hfov_millidegrees(h, &fov) == SMStatus.ok && fov > 0)
        #expect(sm_photo_size(h, &w, &hh) == SMStatus.ok && w > 0 && hh > 0)
    }

    @Test func photoEditVisibleWhenReread() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        let out = dir + "/edited.heic"
        var e: OpaquePointer? = nil
        #expect(sm_edit_create(&e) == SMStatus.ok)
        #expect(sm_edit_set_baseline_um(e, 65_432) == SMStatus.ok)
        #expect(sm_edit_set_hfov_millidegrees(e, 63_000) == SMStatus.ok)
        #expect(sm_edit_set_disparity(e, -120) == SMStatus.ok)
        var report: UnsafeMutablePointer<CChar>? = nil
        #expect(sm_edit_photo(Paths.grid, out, e, &report) == SMStatus.ok, "\(lastError())")
        #expect(report.map { String(cString: $0).contains("\"output\":\"\(out)\"") } == true)
        sm_string_free(report)
        // A hero eye is video-only.
        #expect(sm_edit_set_hero_eye(e, 1) == SMStatus.ok)
        #expect(sm_edit_photo(Paths.grid, dir + "/no.heic", e, nil) == SMStatus.invalidArgument)
        #expect(sm_edit_free(e) == SMStatus.ok)

        let h = try open(out)
        defer { _ = sm_file_free(h) }
        var b = 0.0, f = 0.0, d: Int32 = 0
        #expect(sm_photo_baseline_um(h, &b) == SMStatus.ok && abs(b - 65_432) < 1e-6)
        #expect(sm_photo_hfov_millidegrees(h, &f) == SMStatus.ok && abs(f - 63_000) < 5)
        #expect(sm_photo_disparity(h, &d) == SMStatus.ok && d == -120)
    }

    @Test(.needs(.shared("corpus/spatial-video/stereo_spatial.mp4")))
    func videoEditVisibleWhenReread() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        let copy = dir + "/in.mp4"
        try copyFile(Paths.spatialVideo, copy)
        let h0 = try open(copy)
        var cls: Int32 = -1
        #expect(sm_video_classification(h0, &cls) == SMStatus.ok && cls == 2)
        #expect(String(cString: sm_video_classification_name(cls)) == "spatial-video")
        #expect(sm_file_free(h0) == SMStatus.ok)

        var e: OpaquePointer? = nil
        #expect(sm_edit_create(&e) == SMStatus.ok)
        #expect(sm_edit_set_baseline_um(e, 55_555) == SMStatus.ok)
        #expect(sm_edit_set_hfov_millidegrees(e, 72_250) == SMStatus.ok)
        #expect(sm_edit_set_disparity(e, 300) == SMStatus.ok)
        #expect(sm_edit_set_hero_eye(e, 2) == SMStatus.ok)
        var report: UnsafeMutablePointer<CChar>? = nil
        #expect(sm_edit_apply(copy, nil, e, 0, &report) == SMStatus.ok, "\(lastError())")  // in place
        sm_string_free(report)
        #expect(sm_edit_free(e) == SMStatus.ok)

        let h = try open(copy)
        defer { _ = sm_file_free(h) }
        var b: UInt32 = 0, f: UInt32 = 0, d: Int32 = 0, hero: Int32 = 0
        #expect(sm_video_baseline_um(h, &b) == SMStatus.ok && b == 55_555)
        #expect(sm_video_hfov_millidegrees(h, &f) == SMStatus.ok && f == 72_250)
        #expect(sm_video_disparity(h, &d) == SMStatus.ok && d == 300)
        #expect(sm_video_hero_eye(h, &hero) == SMStatus.ok && hero == 2)
    }

    @Test func videoEditRefusedOn2DMovieLeavesNoOutput() throws {
        let dir = try tempDir()
        defer { removeDir(dir) }
        var e: OpaquePointer? = nil
        #expect(sm_edit_create(&e) == SMStatus.ok)
        defer { _ = sm_edit_free(e) }
        #expect(sm_edit_video(Paths.movie2D, dir + "/out.mp4", e, 0, nil) == SMStatus.invalidArgument)  // empty edit
        #expect(sm_edit_set_baseline_um(e, 1000) == SMStatus.ok)
        #expect(sm_edit_video(Paths.movie2D, dir + "/out.mp4", e, 0, nil) == SMStatus.notApplicable)
        #expect(!Paths.exists(dir + "/out.mp4"))
    }

    @Test func combineTwoImagesOfOneFile() throws {
        // heif_grid_ster.heic already pairs items 1 and 2; combining them again by id must work too.
        let dir = try tempDir()
        defer { removeDir(dir) }
        var report: UnsafeMutablePointer<CChar>? = nil
        #expect(sm_combine_photo(Paths.grid, nil, 1, 0, 0, nil, dir + "/c.heic", &report) == SMStatus.invalidOption)
        let st = sm_combine_photo(Paths.grid, nil, 2, 1, 0, nil, dir + "/c.heic", &report)
        #expect(st == SMStatus.ok, "\(lastError())")
        sm_string_free(report)
        if st == SMStatus.ok {
            let h = try open(dir + "/c.heic")
            defer { _ = sm_file_free(h) }
            var l: UInt32 = 0, r: UInt32 = 0
            #expect(sm_photo_eye_items(h, &l, &r) == SMStatus.ok && l == 2 && r == 1)
        }
    }

    @Test func manyThreadsOneHandle() async throws {
        let h = try open(Paths.grid)
        let token = Int(bitPattern: h)
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let h = OpaquePointer(bitPattern: token)
                    for _ in 0..<25 {
                        var l: UInt32 = 0, r: UInt32 = 0
                        guard sm_photo_eye_items(h, &l, &r) == SMStatus.ok, l == 1, infoJSON(h).0 == SMStatus.ok else {
                            return false
                        }
                    }
                    return true
                }
            }
            for await ok in group { #expect(ok) }
        }
        #expect(sm_file_free(h) == SMStatus.ok)
    }
}

/// Issue 18, item 13 / issue 20: library error messages name no command-line flag (a remedy travels as
/// `ParseError.remedy`, which each interface spells its own way). Every `ParseError` message in the library
/// sources is checked, and every remedy has C wording.
@Suite("C ABI: messages name no command-line flags")
struct ABIMessageWordingTests {
    @Test func noLibraryErrorMessageNamesAFlag() throws {
        var checked = 0
        for module in [
            "SpatialConvert", "MediaDecode", "SpatialMedia", "ISOBMFF", "HEVC", "ImageFormats", "Codecs", "BinaryIO",
            "SpatialValidation", "StereoVision", "SystemSupport",
        ] {
            let dir = Paths.root + "/Sources/" + module
            guard let d = opendir(dir) else { continue }
            var names: [String] = []
            while let e = readdir(d) {
                let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                    String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
                }
                if name.hasSuffix(".swift") { names.append(name) }
            }
            closedir(d)
            for name in names {
                guard let f = fopen(dir + "/" + name, "r") else { continue }
                var text: [UInt8] = []
                var buf = [UInt8](repeating: 0, count: 65536)
                while true { let n = fread(&buf, 1, buf.count, f); if n <= 0 { break }; text += buf[0..<n] }
                fclose(f)
                let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
                // A message on the line of `ParseError(` (or `.failure(.init(`) or on the next one.
                for (n, line) in lines.enumerated()
                where line.contains("\"")
                    && (line.contains("ParseError(") || line.contains(".failure(.init(")
                        || (n > 0 && lines[n - 1].contains("ParseError(")))
                {
                    let parts = line.split(separator: "\"", omittingEmptySubsequences: false)
                    for (i, lit) in parts.enumerated() where i % 2 == 1 {
                        checked += 1
                        let flag =
                            lit.contains(" --") || lit.hasPrefix("--") || lit.contains("(--") || lit.contains("`--")
                        #expect(!flag, "\(module)/\(name): \(lit)")
                    }
                }
            }
        }
        #expect(checked >= 100)
    }

    @Test func everyRemedyHasCWording() {
        let all: [ParseError.Remedy] = [
            .decodeWithFFmpeg, .dropAudio, .giveFrameRate, .nameEyeItems, .giveSplitOutputs, .giveProjection,
            .giveFramePacking,
        ]
        for r in all {
            let m = ABIError(ParseError(.invalidArgument, offset: 0, "need something", remedy: r)).message
            #expect(m.hasPrefix("need something [") && !m.contains("--"), "\(r.rawValue): \(m)")
        }
        #expect(
            ABIError(ParseError(.libraryMissing, offset: 0, "x265 is not installed")).status == SMStatus.unsupported)
    }

    /// Issue 42: a refused option is SM_ERR_INVALID_OPTION (code "invalid-option"), named by its key with the
    /// allowed values; an argument that is no option (a NULL output) stays SM_ERR_INVALID_ARGUMENT.
    @Test func optionRefusalsAreInvalidOption() {
        let input = TestPaths.package("Conformance/files/sample_sbs_320x96.y4m")
        #expect(
            sm_convert(input, "/nonexistent/v.mov", "{\"preset\": \"warp\"}", nil, nil, nil, nil)
                == SMStatus.invalidOption, "\(lastError())")
        #expect(
            lastError().contains("\"preset\" must be one of ultrafast") && lastError().contains("invalid-option"),
            "\(lastError())")
        #expect(String(cString: sm_status_name(SMStatus.invalidOption)) == "SM_ERR_INVALID_OPTION")
        #expect(sm_convert(input, nil, "{}", nil, nil, nil, nil) == SMStatus.invalidArgument)
    }

    /// An error with no place in the input gives no offset: no "offset 0" in the message, and
    /// `sm_last_error_location` reports -1 (Python: `offset is None`).
    @Test func errorWithoutPlaceHasNoOffset() {
        let e = ABIError(ParseError(.invalidArgument, "option \"layout\" must be sbs or tb"))
        #expect(e.offset == nil && !e.message.contains("offset"), "\(e.message)")
        #expect(
            ABIError(ParseError(.truncated, offset: 12, path: "moov", "short")).message.contains("offset 12, in moov"))
        // An unknown option is refused before any input is read (it had "offset 0" before).
        #expect(
            sm_convert_photo(
                "/nonexistent/in.png", "/nonexistent/out.heic", "{\"no-such-option\": 1}", nil, nil, nil, nil)
                == SMStatus.invalidOption, "\(lastError())")
        #expect(lastError().contains("no-such-option") && !lastError().contains("offset"), "\(lastError())")
        var offset: Int64 = 0
        sm_last_error_location(&offset, nil, nil)
        #expect(offset == -1, "\(lastError())")
    }
}
