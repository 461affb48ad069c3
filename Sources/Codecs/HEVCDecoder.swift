import BinaryIO
// The only file that calls libde265.
import CDe265
import HEVC
import ImageFormats

#if canImport(Dispatch)
    import Dispatch
    import SystemSupport
#endif

/// HEVC decoding through libde265 (base layer only: NAL units with nuh_layer_id > 0 are ignored).
///
/// Every entry point checks the SPS picture size against ``/BinaryIO/Limits/maxImageDimension`` before any
/// picture is allocated, checks libde265's return codes, and returns 8-bit images as `.u8` planes
/// and 9–16-bit images as `.u16` planes (samples in the low bits).
public enum HEVCDecoder {
    /// Decodes an Annex-B byte stream (start codes) into pictures in output order.
    public static func decode(annexB bytes: [UInt8], limits: Limits = .default, threads: Int = 0) throws(ParseError)
        -> [Image]
    {
        let nals = try AnnexB.split(bytes, limits: limits)
        return try decode(nalUnits: nals.map(\.bytes), limits: limits, threads: threads)
    }

    /// Decodes length-prefixed NAL units (MP4 sample / HEIF item form) after the parameter sets of `hvcC`.
    public static func decode(hvcC: [UInt8], data: [UInt8], limits: Limits = .default, threads: Int = 0)
        throws(ParseError) -> [Image]
    {
        let record = try HEVCDecoderConfigurationRecord(parsing: hvcC)
        let params = record.arrays.flatMap(\.nalUnits)
        let nals = try LengthPrefixed.split(data, lengthSize: record.lengthSize, limits: limits)
        return try decode(nalUnits: params + nals.map(\.bytes), limits: limits, threads: threads)
    }

    /// Decodes one HEIF `hvc1` image item: the `hvcC` record plus the item's bytes; exactly one picture.
    public static func decodeItem(hvcC: [UInt8], data: [UInt8], limits: Limits = .default, threads: Int = 0)
        throws(ParseError) -> Image
    {
        let pics = try decode(hvcC: hvcC, data: data, limits: limits, threads: threads)
        guard let first = pics.first else {
            throw ParseError(.invalidValue, "libde265: the image item produced no picture")
        }
        return first
    }

    /// A grid of coded tiles (ISO/IEC 23008-12 `grid`), all sharing one `hvcC`.
    public struct Grid: Sendable {
        public var rows: Int
        public var columns: Int
        public var outputWidth: Int
        public var outputHeight: Int
        /// Coded tiles in raster order (row by row), each the bytes of one `hvc1` item.
        public var tiles: [[UInt8]]
        /// The `hvcC` record of each tile (usually identical).
        public var tileConfigs: [[UInt8]]
        public init(
            rows: Int, columns: Int, outputWidth: Int, outputHeight: Int, tiles: [[UInt8]], tileConfigs: [[UInt8]]
        ) {
            self.rows = rows; self.columns = columns; self.outputWidth = outputWidth; self.outputHeight = outputHeight
            self.tiles = tiles; self.tileConfigs = tileConfigs
        }
    }

    /// Decodes the tiles of a grid in parallel (one libde265 context per worker, `workers` at a time,
    /// default = active processor count) and assembles the output canvas (tiles clipped at the right
    /// and bottom edges).
    public static func decodeGrid(_ grid: Grid, limits: Limits = .default, workers: Int = 0) throws(ParseError) -> Image
    {
        try Image.checkDimensions(width: grid.outputWidth, height: grid.outputHeight, limits: limits)
        let count = grid.rows * grid.columns
        guard grid.rows > 0, grid.columns > 0, grid.tiles.count == count, grid.tileConfigs.count == count else {
            throw ParseError(.invalidValue, "grid of \(grid.rows)×\(grid.columns) has \(grid.tiles.count) tiles")
        }
        let results = Slots<Result<Image, ParseError>>(count: count)
        let n = workers > 0 ? workers : max(1, ProcessorInfo.activeCount)
        let chunks = min(n, count)
        DispatchQueue.concurrentPerform(iterations: chunks) { w in
            var i = w
            while i < count {
                do throws(ParseError) {
                    let img = try decodeItem(hvcC: grid.tileConfigs[i], data: grid.tiles[i], limits: limits)
                    results.set(i, .success(img))
                } catch {
                    results.set(i, .failure(error))
                }
                i += chunks
            }
        }
        var tiles: [Image] = []
        for i in 0..<count {
            switch results.get(i) {
            case .success(let img)?: tiles.append(img)
            case .failure(let e)?:
                throw ParseError(e.code, offset: e.offset, path: e.path, "grid tile \(i): \(e.message)")
            case nil: throw ParseError(.invalidValue, "grid tile \(i) was not decoded")
            }
        }
        let tw = tiles[0].width, th = tiles[0].height
        guard
            tiles.allSatisfy({
                $0.width == tw && $0.height == th && $0.format == tiles[0].format && $0.bitDepth == tiles[0].bitDepth
            })
        else {
            throw ParseError(.invalidValue, "grid tiles differ in size or format")
        }
        guard tw * grid.columns >= grid.outputWidth, th * grid.rows >= grid.outputHeight else {
            throw ParseError(
                .invalidValue,
                "grid of \(grid.columns)×\(grid.rows) tiles of \(tw)×\(th) does not cover \(grid.outputWidth)×\(grid.outputHeight)"
            )
        }
        var canvas = try Image.blank(
            width: grid.outputWidth, height: grid.outputHeight, bitDepth: tiles[0].bitDepth, format: tiles[0].format,
            colour: tiles[0].colour, limits: limits)
        for r in 0..<grid.rows {
            for c in 0..<grid.columns {
                try ImageOps.paste(tiles[r * grid.columns + c], into: &canvas, x: c * tw, y: r * th)
            }
        }
        return canvas
    }

    /// Checks every SPS among `nals` against the limits before libde265 allocates pictures.
    static func checkSPS(_ nals: [[UInt8]], limits: Limits) throws(ParseError) {
        for b in nals where b.count > 2 && (b[0] >> 1) & 0x3F == 33 && (b[1] >> 3) == 0 {
            let nal = try NALUnit(bytes: b)
            let sps = try SequenceParameterSet(nal: nal)
            try Image.checkDimensions(
                width: Int(sps.picWidthInLumaSamples), height: Int(sps.picHeightInLumaSamples), limits: limits)
        }
    }

    /// Decodes a sequence of NAL units (without start codes or length prefixes).
    public static func decode(nalUnits: [[UInt8]], limits: Limits = .default, threads: Int = 0) throws(ParseError)
        -> [Image]
    {
        try checkSPS(nalUnits, limits: limits)
        let de265 = try De265.library()
        guard let ctx = de265.new_decoder() else { throw CodecError.lib("libde265", "cannot create a decoder") }
        defer { _ = de265.free_decoder(ctx) }
        if threads > 0 {
            let e = de265.start_worker_threads(ctx, Int32(threads))
            if de265.isOK(e) == 0 { throw CodecError.lib("libde265", "cannot start threads: \(text(e))") }
        }
        var out: [Image] = []
        func drain() throws(ParseError) {
            while true {
                var more: Int32 = 0
                let e = de265.decode(ctx, &more)
                if e == DE265_ERROR_WAITING_FOR_INPUT_DATA { break }
                if e == DE265_ERROR_IMAGE_BUFFER_FULL { try collect(); continue }
                if de265.isOK(e) == 0 { throw CodecError.lib("libde265", "decoding failed: \(text(e))") }
                try collect()
                if more == 0 { break }
            }
        }
        func collect() throws(ParseError) {
            // peek + release (de265_get_next_picture would already release the picture).
            while let pic = de265.peek_next_picture(ctx) {
                let img = try convert(pic, limits: limits)
                de265.release_next_picture(ctx)
                out.append(img)
                try Limits.check(out.count, limits.maxSamples, "maxSamples (decoded pictures)")
            }
        }
        for nal in nalUnits {
            guard nal.count >= 2, nal.count <= Int(Int32.max) else { continue }
            // Base layer only.
            if (nal[0] & 1) != 0 || (nal[1] >> 3) != 0 { continue }
            let e = nal.withUnsafeBytes { de265.push_NAL(ctx, $0.baseAddress, Int32($0.count), 0, nil) }
            if de265.isOK(e) == 0 { throw CodecError.lib("libde265", "cannot queue a NAL unit: \(text(e))") }
            if de265.get_number_of_NAL_units_pending(ctx) > 8 { try drain() }
        }
        let f = de265.flush_data(ctx)
        if de265.isOK(f) == 0 { throw CodecError.lib("libde265", "flush failed: \(text(f))") }
        try drain()
        try collect()
        return out
    }

    static func text(_ e: de265_error) -> String {
        guard let t = (try? De265.library())?.get_error_text(e) else { return "error \(e.rawValue)" }
        return String(cString: t)
    }

    /// Copies a libde265 picture into an ``Image``.
    static func convert(_ pic: OpaquePointer, limits: Limits) throws(ParseError) -> Image {
        let de265 = try De265.library()
        let w = Int(de265.get_image_width(pic, 0)), h = Int(de265.get_image_height(pic, 0))
        try Image.checkDimensions(width: w, height: h, limits: limits)
        let format: PixelFormat
        switch de265.get_chroma_format(pic) {
        case de265_chroma_mono: format = .gray
        case de265_chroma_420: format = .yuv420
        case de265_chroma_422: format = .yuv422
        case de265_chroma_444: format = .yuv444
        default: throw CodecError.lib("libde265", "unknown chroma format")
        }
        let depth = Int(de265.get_bits_per_pixel(pic, 0))
        guard (8...16).contains(depth) else { throw CodecError.lib("libde265", "unsupported bit depth \(depth)") }
        let colour = ColourSpace(
            matrixCoefficients: Int(de265.get_image_matrix_coefficients(pic)),
            fullRange: de265.get_image_full_range_flag(pic) != 0)
        var p8: [[UInt8]] = [], p16: [[UInt16]] = []
        for c in 0..<format.planeCount {
            let pw = Image.planeWidth(width: w, format: format, plane: c),
                ph = Image.planeHeight(height: h, format: format, plane: c)
            guard Int(de265.get_image_width(pic, Int32(c))) >= pw, Int(de265.get_image_height(pic, Int32(c))) >= ph,
                Int(de265.get_bits_per_pixel(pic, Int32(c))) == depth
            else {
                throw CodecError.lib("libde265", "plane \(c) geometry does not match the picture")
            }
            var stride: Int32 = 0
            guard let base = de265.get_image_plane(pic, Int32(c), &stride), stride > 0 else {
                throw CodecError.lib("libde265", "picture plane \(c) is missing")
            }
            let s = Int(stride)
            if depth == 8 {
                guard s >= pw else { throw CodecError.lib("libde265", "plane stride too small") }
                // Every row is copied in full, so the plane starts uninitialised.
                let plane = [UInt8](unsafeUninitializedCapacity: pw * ph) { dst, count in
                    if let d = dst.baseAddress {
                        for y in 0..<ph { (d + y * pw).initialize(from: base + y * s, count: pw) }
                    }
                    count = pw * ph
                }
                p8.append(plane)
            } else {
                guard s >= pw * 2 else { throw CodecError.lib("libde265", "plane stride too small") }
                var plane = [UInt16](repeating: 0, count: pw * ph)
                plane.withUnsafeMutableBufferPointer { dst in
                    guard let d = dst.baseAddress else { return }
                    let raw = UnsafeRawPointer(base)
                    for y in 0..<ph {
                        UnsafeMutableRawPointer(d + y * pw).copyMemory(from: raw + y * s, byteCount: pw * 2)
                    }
                }
                p16.append(plane)
            }
        }
        return try Image(
            width: w, height: h, bitDepth: depth, format: format, planes: depth == 8 ? .u8(p8) : .u16(p16),
            colour: colour)
    }
}
