import SpatialMediaC

// libFuzzer entry for the C ABI: every input goes in through the exported C functions exactly as a C
// caller would use them — open a memory buffer, info JSON, every getter, validate, serialize, and the
// same bytes as options JSON — and the ABI's own contracts are checked: a status is either SM_OK with
// results or an error with a non-empty message, out parameters are cleared on failure, serialize is
// byte-identical, and the handle is dead after free.
//   bash scripts/fuzz.sh FuzzCABI 60
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func fail(_ what: String) -> Never {
    let s = "FuzzCABI contract broken: \(what)\n"
    _ = s.withCString { write(2, $0, strlen($0)) }
    abort()
}

/// A status and the thread's last error must agree.
func check(_ status: Int32, _ call: String) {
    let message = String(cString: sm_last_error())
    if status == SMStatus.ok && !message.isEmpty { fail("\(call) returned SM_OK with error '\(message)'") }
    if status != SMStatus.ok && message.isEmpty { fail("\(call) returned \(status) with an empty message") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCABI(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // The same bytes as options_json (NULs dropped) of an operation whose input does not exist: the
    // options reader runs on arbitrary text and nothing can be written.
    var text = Array(
        UnsafeBufferPointer(start: data, count: min(size, 4096)).filter { $0 != 0 }.map { CChar(bitPattern: $0) })
    text.append(0)
    check(
        sm_convert_video("/nonexistent/sm-fuzz-in.hevc", "/nonexistent/sm-fuzz-out.mov", text, nil, nil, nil, nil),
        "sm_convert_video")

    var file: OpaquePointer? = nil
    let st = sm_file_open_memory(data, size, &file)
    check(st, "sm_file_open_memory")
    guard st == SMStatus.ok, let file else {
        if file != nil { fail("out_file set on failure") }
        return 0
    }

    var json: UnsafeMutablePointer<CChar>? = nil
    var len = 0
    let js = sm_file_info_json(file, 0, &json, &len)
    check(js, "sm_file_info_json")
    if js == SMStatus.ok {
        guard let json else { fail("info JSON NULL on success") }
        if strlen(json) != len { fail("info JSON length mismatch") }
        if json[0] != 0x7B { fail("info JSON is not an object") }
    } else if json != nil {
        fail("info JSON set on failure")
    }
    sm_string_free(json)

    var i32: Int32 = 0, u32: UInt32 = 0, u32b: UInt32 = 0, d: Double = 0
    check(sm_file_kind(file, &i32), "sm_file_kind")
    check(sm_file_is_spatial(file, &i32), "sm_file_is_spatial")
    check(sm_video_classification(file, &i32), "sm_video_classification")
    check(sm_video_baseline_um(file, &u32), "sm_video_baseline_um")
    check(sm_video_hfov_millidegrees(file, &u32), "sm_video_hfov_millidegrees")
    check(sm_video_disparity(file, &i32), "sm_video_disparity")
    check(sm_video_hero_eye(file, &i32), "sm_video_hero_eye")
    check(sm_photo_eye_items(file, &u32, &u32b), "sm_photo_eye_items")
    check(sm_photo_size(file, &u32, &u32b), "sm_photo_size")
    check(sm_photo_baseline_um(file, &d), "sm_photo_baseline_um")
    check(sm_photo_hfov_millidegrees(file, &d), "sm_photo_hfov_millidegrees")
    check(sm_photo_disparity(file, &i32), "sm_photo_disparity")

    var report: UnsafeMutablePointer<CChar>? = nil
    // Metadata rules only: pixel validation decodes video and may spawn ffmpeg, which is neither fast nor
    // hermetic enough for fuzzing (and Foundation's Process keeps a small allocation LeakSanitizer reports).
    let vs = sm_validate(file, "{\"pixels\": false}", nil, nil, nil, &report)
    check(vs, "sm_validate")
    if vs != SMStatus.ok && report != nil { fail("validate report set on failure") }
    sm_string_free(report)

    // The round-trip contract, through the ABI: what parses writes back byte-identical.
    var bytes: UnsafeMutablePointer<UInt8>? = nil
    var n = 0
    let ss = sm_file_serialize(file, &bytes, &n)
    check(ss, "sm_file_serialize")
    if ss == SMStatus.ok {
        guard let bytes else { fail("serialize buffer NULL on success") }
        if n != size || memcmp(bytes, data, size) != 0 { fail("serialize is not byte-identical to the input") }
    }
    sm_buffer_free(bytes)

    if sm_file_free(file) != SMStatus.ok { fail("sm_file_free of a live handle failed") }
    if sm_file_free(file) != SMStatus.invalidHandle { fail("double free was not SM_ERR_INVALID_HANDLE") }
    if sm_file_kind(file, &i32) != SMStatus.invalidHandle { fail("use after free was not SM_ERR_INVALID_HANDLE") }
    return 0
}
