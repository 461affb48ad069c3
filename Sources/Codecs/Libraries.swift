import BinaryIO
import CDe265
@preconcurrency import CPNG
import CTurboJPEG
@preconcurrency import CX265
import ImageFormats
import SystemSupport

// The codec libraries are opened with dlopen the first time a pixel operation needs them, not by
// the dynamic linker at start-up: `info`, `dump`, `edit` and metadata validation never touch pixels,
// and loading libx265 (C++, thousands of relocations) and its friends cost more than reading a
// small file. Each library is bound once per process; a missing library becomes an error that names
// it, raised by the operation that needed it.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A shared library opened with `dlopen`, kept open for the life of the process.
struct SharedLibrary: @unchecked Sendable {
    let name: String
    let handle: UnsafeMutableRawPointer

    /// Opens the first of `candidates` that loads; the error names the library and what the loader said.
    /// An environment variable `SPATIAL_MEDIA_<NAME>` (e.g. `SPATIAL_MEDIA_LIBDE265=/path/libde265.so.0`) names a
    /// file to try first: another build or version of the same library (the benchmarks use it to compare decoders).
    static func open(_ name: String, _ candidates: [String]) throws(ParseError) -> SharedLibrary {
        var reasons: [String] = []
        let override = FileSystem.environment(
            "SPATIAL_MEDIA_" + name.uppercased().filter { $0.isLetter || $0.isNumber })
        for file in (override.map { [$0] } ?? []) + candidates {
            if let h = dlopen(file, RTLD_NOW | RTLD_LOCAL) { return SharedLibrary(name: name, handle: h) }
            if let e = dlerror() { reasons.append(String(cString: e)) }
        }
        throw ParseError(
            .libraryMissing,
            "\(name) is not installed or cannot be loaded (\(reasons.last ?? candidates.joined(separator: ", ")))")
    }

    /// The address of `symbol` as a value of the C function-pointer type `T`.
    func function<T>(_ symbol: String, as type: T.Type) throws(ParseError) -> T {
        guard let p = dlsym(handle, symbol) else {
            throw ParseError(.libraryMissing, "\(name) has no function \(symbol) (an unexpected version?)")
        }
        return unsafeBitCast(p, to: T.self)
    }

    /// The address of a data symbol.
    func data(_ symbol: String) throws(ParseError) -> UnsafeMutableRawPointer {
        guard let p = dlsym(handle, symbol) else {
            throw ParseError(.libraryMissing, "\(name) has no symbol \(symbol) (an unexpected version?)")
        }
        return p
    }

    /// File names to try: the versioned name the headers were built against first, then the unversioned one.
    static func candidates(_ stem: String, version: String) -> [String] {
        #if canImport(Darwin)
            return [
                "\(stem).\(version).dylib", "\(stem).dylib", "/opt/homebrew/lib/\(stem).dylib",
                "/usr/local/lib/\(stem).dylib",
            ]
        #else
            return ["\(stem).so.\(version)", "\(stem).so"]
        #endif
    }
}

/// libde265's functions (decoding).
struct De265: @unchecked Sendable {
    let get_version: sm_de265_get_version_fn
    let new_decoder: sm_de265_new_decoder_fn
    let free_decoder: sm_de265_free_decoder_fn
    let start_worker_threads: sm_de265_start_worker_threads_fn
    let isOK: sm_de265_isOK_fn
    let get_error_text: sm_de265_get_error_text_fn
    let push_NAL: sm_de265_push_NAL_fn
    let flush_data: sm_de265_flush_data_fn
    let decode: sm_de265_decode_fn
    let get_number_of_NAL_units_pending: sm_de265_get_number_of_NAL_units_pending_fn
    let peek_next_picture: sm_de265_peek_next_picture_fn
    let release_next_picture: sm_de265_release_next_picture_fn
    let get_image_width: sm_de265_get_image_width_fn
    let get_image_height: sm_de265_get_image_height_fn
    let get_chroma_format: sm_de265_get_chroma_format_fn
    let get_bits_per_pixel: sm_de265_get_bits_per_pixel_fn
    let get_image_plane: sm_de265_get_image_plane_fn
    let get_image_matrix_coefficients: sm_de265_get_image_matrix_coefficients_fn
    let get_image_full_range_flag: sm_de265_get_image_full_range_flag_fn

    private init(_ l: SharedLibrary) throws(ParseError) {
        get_version = try l.function("de265_get_version", as: sm_de265_get_version_fn.self)
        new_decoder = try l.function("de265_new_decoder", as: sm_de265_new_decoder_fn.self)
        free_decoder = try l.function("de265_free_decoder", as: sm_de265_free_decoder_fn.self)
        start_worker_threads = try l.function("de265_start_worker_threads", as: sm_de265_start_worker_threads_fn.self)
        isOK = try l.function("de265_isOK", as: sm_de265_isOK_fn.self)
        get_error_text = try l.function("de265_get_error_text", as: sm_de265_get_error_text_fn.self)
        push_NAL = try l.function("de265_push_NAL", as: sm_de265_push_NAL_fn.self)
        flush_data = try l.function("de265_flush_data", as: sm_de265_flush_data_fn.self)
        decode = try l.function("de265_decode", as: sm_de265_decode_fn.self)
        get_number_of_NAL_units_pending = try l.function(
            "de265_get_number_of_NAL_units_pending", as: sm_de265_get_number_of_NAL_units_pending_fn.self)
        peek_next_picture = try l.function("de265_peek_next_picture", as: sm_de265_peek_next_picture_fn.self)
        release_next_picture = try l.function("de265_release_next_picture", as: sm_de265_release_next_picture_fn.self)
        get_image_width = try l.function("de265_get_image_width", as: sm_de265_get_image_width_fn.self)
        get_image_height = try l.function("de265_get_image_height", as: sm_de265_get_image_height_fn.self)
        get_chroma_format = try l.function("de265_get_chroma_format", as: sm_de265_get_chroma_format_fn.self)
        get_bits_per_pixel = try l.function("de265_get_bits_per_pixel", as: sm_de265_get_bits_per_pixel_fn.self)
        get_image_plane = try l.function("de265_get_image_plane", as: sm_de265_get_image_plane_fn.self)
        get_image_matrix_coefficients = try l.function(
            "de265_get_image_matrix_coefficients", as: sm_de265_get_image_matrix_coefficients_fn.self)
        get_image_full_range_flag = try l.function(
            "de265_get_image_full_range_flag", as: sm_de265_get_image_full_range_flag_fn.self)
    }

    private static let loaded = Result { () throws(ParseError) in
        try De265(SharedLibrary.open("libde265", SharedLibrary.candidates("libde265", version: "0")))
    }

    /// The bound functions; throws when libde265 cannot be loaded.
    static func library() throws(ParseError) -> De265 { try loaded.get() }
}

/// libx265's entry points (encoding goes through the `x265_api` table they return).
struct X265: @unchecked Sendable {
    let api_query: sm_x265_api_query_fn
    let version_str: UnsafeMutableRawPointer

    private init(_ l: SharedLibrary) throws(ParseError) {
        api_query = try l.function("x265_api_query", as: sm_x265_api_query_fn.self)
        version_str = try l.data("x265_version_str")
    }

    /// The version string the library reports.
    var version: String {
        guard let s = version_str.load(as: sm_x265_version_str_t?.self) else { return "unknown" }
        return String(cString: s)
    }

    private static let loaded = Result { () throws(ParseError) in
        try X265(
            SharedLibrary.open("libx265", SharedLibrary.candidates("libx265", version: String(SM_X265_SONAME_NUMBER))))
    }

    /// The bound functions; throws when libx265 cannot be loaded.
    static func library() throws(ParseError) -> X265 { try loaded.get() }
}

/// libjpeg-turbo's TurboJPEG functions.
struct TurboJPEG: @unchecked Sendable {
    let initDecompress: sm_tjInitDecompress_fn
    let initCompress: sm_tjInitCompress_fn
    let destroy: sm_tjDestroy_fn
    let decompressHeader3: sm_tjDecompressHeader3_fn
    let decompress2: sm_tjDecompress2_fn
    let compress2: sm_tjCompress2_fn
    let free: sm_tjFree_fn
    let getErrorCode: sm_tjGetErrorCode_fn
    let getErrorStr2: sm_tjGetErrorStr2_fn
    let initTransform: sm_tjInitTransform_fn
    let transform: sm_tjTransform_fn

    private init(_ l: SharedLibrary) throws(ParseError) {
        initDecompress = try l.function("tjInitDecompress", as: sm_tjInitDecompress_fn.self)
        initCompress = try l.function("tjInitCompress", as: sm_tjInitCompress_fn.self)
        destroy = try l.function("tjDestroy", as: sm_tjDestroy_fn.self)
        decompressHeader3 = try l.function("tjDecompressHeader3", as: sm_tjDecompressHeader3_fn.self)
        decompress2 = try l.function("tjDecompress2", as: sm_tjDecompress2_fn.self)
        compress2 = try l.function("tjCompress2", as: sm_tjCompress2_fn.self)
        free = try l.function("tjFree", as: sm_tjFree_fn.self)
        getErrorCode = try l.function("tjGetErrorCode", as: sm_tjGetErrorCode_fn.self)
        getErrorStr2 = try l.function("tjGetErrorStr2", as: sm_tjGetErrorStr2_fn.self)
        initTransform = try l.function("tjInitTransform", as: sm_tjInitTransform_fn.self)
        transform = try l.function("tjTransform", as: sm_tjTransform_fn.self)
    }

    private static let loaded = Result { () throws(ParseError) in
        try TurboJPEG(SharedLibrary.open("libturbojpeg", SharedLibrary.candidates("libturbojpeg", version: "0")))
    }

    /// The bound functions; throws when libturbojpeg cannot be loaded.
    static func library() throws(ParseError) -> TurboJPEG { try loaded.get() }
}

/// libpng's simplified API.
struct LibPNG: @unchecked Sendable {
    let get_libpng_ver: sm_png_get_libpng_ver_fn
    let image_begin_read_from_memory: sm_png_image_begin_read_from_memory_fn
    let image_finish_read: sm_png_image_finish_read_fn
    let image_write_to_memory: sm_png_image_write_to_memory_fn
    let image_free: sm_png_image_free_fn

    private init(_ l: SharedLibrary) throws(ParseError) {
        get_libpng_ver = try l.function("png_get_libpng_ver", as: sm_png_get_libpng_ver_fn.self)
        image_begin_read_from_memory = try l.function(
            "png_image_begin_read_from_memory", as: sm_png_image_begin_read_from_memory_fn.self)
        image_finish_read = try l.function("png_image_finish_read", as: sm_png_image_finish_read_fn.self)
        image_write_to_memory = try l.function("png_image_write_to_memory", as: sm_png_image_write_to_memory_fn.self)
        image_free = try l.function("png_image_free", as: sm_png_image_free_fn.self)
    }

    private static let loaded = Result { () throws(ParseError) in
        try LibPNG(
            SharedLibrary.open(
                "libpng", SharedLibrary.candidates("libpng\(SM_PNG_SONUM)", version: String(SM_PNG_SONUM))))
    }

    /// The bound functions; throws when libpng cannot be loaded.
    static func library() throws(ParseError) -> LibPNG { try loaded.get() }
}
