import BinaryIO

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// YUV4MPEG2 (`.y4m`) streams: 4:2:0 / 4:2:2 / 4:4:4 / mono, 8 to 16 bits (`C420p10` etc.),
/// read and written one frame at a time.
public enum Y4M {
    /// Stream header fields.
    public struct Header: Sendable, Equatable {
        public var width: Int
        public var height: Int
        public var fpsNum: Int = 30
        public var fpsDen: Int = 1
        public var format: PixelFormat = .yuv420
        public var bitDepth: Int = 8
        /// Interlacing tag as read (`p` = progressive).
        public var interlace: Character = "p"
        public var aspectNum: Int = 1
        public var aspectDen: Int = 1
        /// The range the stream states with FFmpeg's `XCOLORRANGE=FULL|LIMITED` extension; nil when it states none.
        public var fullRange: Bool? = nil
        public init(
            width: Int, height: Int, fpsNum: Int = 30, fpsDen: Int = 1, format: PixelFormat = .yuv420, bitDepth: Int = 8
        ) {
            self.width = width; self.height = height; self.fpsNum = fpsNum; self.fpsDen = fpsDen; self.format = format;
            self.bitDepth = bitDepth
        }

        var colourTag: String {
            let base: String
            switch format {
            case .yuv422: base = "422";
            case .yuv444: base = "444";
            case .gray: base = "mono";
            default: base = "420"
            }
            if bitDepth == 8 { return base == "420" ? "420jpeg" : base }
            return base == "mono" ? "mono\(bitDepth)" : "\(base)p\(bitDepth)"
        }
        var rangeTag: String { fullRange.map { $0 ? " XCOLORRANGE=FULL" : " XCOLORRANGE=LIMITED" } ?? "" }
        /// The colour the frames carry: BT.709 coefficients (Y4M states none) in the stated range (limited if none).
        public var colour: ColourSpace { ColourSpace(matrix: .bt709, fullRange: fullRange ?? false) }
        public var serialized: [UInt8] {
            Array(
                "YUV4MPEG2 W\(width) H\(height) F\(fpsNum):\(fpsDen) I\(interlace) A\(aspectNum):\(aspectDen) C\(colourTag)\(rangeTag)\n"
                    .utf8)
        }
        /// Bytes of one frame's samples.
        public var frameBytes: Int {
            let bps = bitDepth > 8 ? 2 : 1
            return (0..<format.planeCount).reduce(0) {
                $0 + Image.planeWidth(width: width, format: format, plane: $1)
                    * Image.planeHeight(height: height, format: format, plane: $1)
            } * bps
        }
    }

    /// Reads frames from a file descriptor (a file or standard input) one at a time.
    public final class Reader {
        public let header: Header
        private let fd: Int32
        private let ownsFD: Bool
        private var buffer: [UInt8] = []
        private var pos = 0
        private var eof = false
        private let name: String
        private var offset: UInt64 = 0
        public private(set) var framesRead = 0

        /// Opens `path`, or standard input when `path` is "-".
        public convenience init(path: String, limits: Limits = .default) throws(ParseError) {
            if path == "-" { try self.init(fd: 0, owns: false, name: "stdin", limits: limits); return }
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw ParseError(.io, path: path, "cannot open: \(String(cString: strerror(errno)))") }
            try self.init(fd: fd, owns: true, name: path, limits: limits)
        }

        init(fd: Int32, owns: Bool, name: String, limits: Limits) throws(ParseError) {
            self.fd = fd; self.ownsFD = owns; self.name = name
            var hdr: Header?
            do throws(ParseError) {
                let line = try Reader.readLine(fd: fd, buffer: &buffer, pos: &pos, eof: &eof, offset: &offset)
                guard let line else { throw ParseError(.truncated, path: name, "empty input: no YUV4MPEG2 header") }
                hdr = try Y4M.parseHeader(line, limits: limits)
            } catch {
                if owns { close(fd) }
                throw error.withPath(name)
            }
            guard let hdr else { throw ParseError(.notRecognised, path: name, "no header") }
            header = hdr
        }
        deinit { if ownsFD { close(fd) } }

        /// The next frame, or nil at the end of the stream. A frame cut short is an error.
        public func next() throws(ParseError) -> Image? {
            guard let line = try Reader.readLine(fd: fd, buffer: &buffer, pos: &pos, eof: &eof, offset: &offset) else {
                return nil
            }
            guard line.starts(with: Array("FRAME".utf8)) else {
                throw ParseError(
                    .invalidValue, offset: offset, path: name,
                    "expected FRAME, found '\(String(decoding: line.prefix(16), as: UTF8.self))'")
            }
            let need = header.frameBytes
            if header.bitDepth == 8 {
                // Straight into the planes: no frame-sized staging copy (at 4K per eye an SBS frame is 25 MB).
                var planes: [[UInt8]] = []
                var got = 0
                for c in 0..<header.format.planeCount {
                    let n =
                        Image.planeWidth(width: header.width, format: header.format, plane: c)
                        * Image.planeHeight(height: header.height, format: header.format, plane: c)
                    let plane = try readExactly(n)
                    got += plane.count
                    guard plane.count == n else {
                        throw ParseError(
                            .truncated, offset: offset, path: name,
                            "the Y4M stream is damaged or truncated: frame "
                                + "\(framesRead) is cut short (\(got) of \(need) bytes; \(framesRead) whole frames read)"
                        )
                    }
                    planes.append(plane)
                }
                offset += UInt64(need)
                framesRead += 1
                return try Image(
                    width: header.width, height: header.height, bitDepth: 8, format: header.format, planes: .u8(planes),
                    colour: header.colour)
            }
            var data = [UInt8](); data.reserveCapacity(need)
            while data.count < need {
                if pos >= buffer.count {
                    guard try fill() else {
                        throw ParseError(
                            .truncated, offset: offset, path: name,
                            "frame \(framesRead) is cut short (\(data.count) of \(need) bytes)")
                    }
                }
                let take = min(need - data.count, buffer.count - pos)
                data += buffer[pos..<(pos + take)]; pos += take
            }
            offset += UInt64(need)
            framesRead += 1
            return try Y4M.image(from: data, header: header)
        }

        /// Up to `n` bytes: what the buffer holds, then read from the descriptor into the result itself.
        private func readExactly(_ n: Int) throws(ParseError) -> [UInt8] {
            var failure: Int32 = 0
            let out = [UInt8](unsafeUninitializedCapacity: n) { buf, count in
                guard let base = buf.baseAddress else { count = 0; return }
                let take = min(n, buffer.count - pos)
                if take > 0 {
                    buffer.withUnsafeBufferPointer { b in
                        if let src = b.baseAddress { base.update(from: src + pos, count: take) }
                    }
                    pos += take
                }
                var got = take
                while got < n && !eof {
                    let r = read(fd, base + got, n - got)
                    if r < 0 && errno == EINTR { continue }
                    if r < 0 { failure = errno; break }
                    if r == 0 { eof = true; break }
                    got += r
                }
                count = got
            }
            if failure != 0 {
                throw ParseError(.io, offset: offset, path: name, "read failed: \(String(cString: strerror(failure)))")
            }
            return out
        }

        private func fill() throws(ParseError) -> Bool {
            try Reader.fill(fd: fd, buffer: &buffer, pos: &pos, eof: &eof)
        }

        static func fill(fd: Int32, buffer: inout [UInt8], pos: inout Int, eof: inout Bool) throws(ParseError) -> Bool {
            if eof { return false }
            if pos > 0 { buffer.removeFirst(pos); pos = 0 }
            // Called before every frame (its FRAME line), so no zero-filled megabyte each time: 64 KiB, uninitialised
            // until read (a pipe hands over at most its own size per read; the planes are read straight into place).
            var failure: Int32 = 0
            let chunk = [UInt8](unsafeUninitializedCapacity: 1 << 16) { buf, count in
                var n = 0
                repeat { n = read(fd, buf.baseAddress, buf.count) } while n < 0 && errno == EINTR
                if n < 0 { failure = errno }
                count = max(0, n)
            }
            if failure != 0 { throw ParseError(.io, "read failed: \(String(cString: strerror(failure)))") }
            if chunk.isEmpty { eof = true; return false }
            buffer += chunk
            return true
        }

        static func readLine(fd: Int32, buffer: inout [UInt8], pos: inout Int, eof: inout Bool, offset: inout UInt64)
            throws(ParseError) -> [UInt8]?
        {
            var line: [UInt8] = []
            while true {
                if pos >= buffer.count {
                    guard try fill(fd: fd, buffer: &buffer, pos: &pos, eof: &eof) else {
                        if line.isEmpty { return nil }
                        throw ParseError(.truncated, offset: offset, "line without end")
                    }
                }
                let b = buffer[pos]; pos += 1; offset += 1
                if b == 0x0A { return line }
                line.append(b)
                if line.count > 4096 {
                    throw ParseError(.invalidValue, offset: offset, "header line longer than 4096 bytes")
                }
            }
        }
    }

    /// Parses a header line (without the newline).
    public static func parseHeader(_ line: [UInt8], limits: Limits = .default) throws(ParseError) -> Header {
        let words = String(decoding: line, as: UTF8.self).split(separator: " ")
        guard words.first == "YUV4MPEG2" else { throw ParseError(.notRecognised, "not a YUV4MPEG2 stream") }
        var w = 0, h = 0
        var hdr = Header(width: 1, height: 1)
        for word in words.dropFirst() {
            guard let tag = word.first else { continue }
            let v = String(word.dropFirst())
            switch tag {
            case "W": w = Int(v) ?? 0
            case "H": h = Int(v) ?? 0
            case "F", "A":
                let parts = v.split(separator: ":").compactMap { Int($0) }
                guard parts.count == 2, parts[0] >= 0, parts[1] >= 0 else {
                    throw ParseError(.invalidValue, "bad \(tag) ratio '\(v)'")
                }
                if tag == "F" {
                    hdr.fpsNum = parts[0]; hdr.fpsDen = max(1, parts[1])
                } else {
                    hdr.aspectNum = parts[0]; hdr.aspectDen = parts[1]
                }
            case "I": hdr.interlace = v.first ?? "p"
            case "X":
                if v == "COLORRANGE=FULL" {
                    hdr.fullRange = true
                } else if v == "COLORRANGE=LIMITED" {
                    hdr.fullRange = false
                }
            case "C":
                let (f, d) = try colourTag(v)
                hdr.format = f; hdr.bitDepth = d
            default: break
            }
        }
        try Image.checkDimensions(width: w, height: h, limits: limits)
        hdr.width = w; hdr.height = h
        return hdr
    }

    static func colourTag(_ v: String) throws(ParseError) -> (PixelFormat, Int) {
        if v.hasPrefix("420") {
            if v.hasPrefix("420p"), let d = Int(v.dropFirst(4)) { return (.yuv420, d) }
            return (.yuv420, 8)
        }
        if v.hasPrefix("422") { return (.yuv422, v.hasPrefix("422p") ? Int(v.dropFirst(4)) ?? 8 : 8) }
        if v.hasPrefix("444") {
            if v.hasPrefix("444alpha") { throw ParseError(.unsupported, "C444alpha is not supported") }
            return (.yuv444, v.hasPrefix("444p") ? Int(v.dropFirst(4)) ?? 8 : 8)
        }
        if v.hasPrefix("mono") { return (.gray, v == "mono" ? 8 : Int(v.dropFirst(4)) ?? 8) }
        throw ParseError(.unsupported, "colour space C\(v) is not supported")
    }

    static func image(from data: [UInt8], header: Header) throws(ParseError) -> Image {
        guard (8...16).contains(header.bitDepth) else { throw ParseError(.unsupported, "bit depth \(header.bitDepth)") }
        var planes8: [[UInt8]] = [], planes16: [[UInt16]] = []
        var p = 0
        for c in 0..<header.format.planeCount {
            let n =
                Image.planeWidth(width: header.width, format: header.format, plane: c)
                * Image.planeHeight(height: header.height, format: header.format, plane: c)
            if header.bitDepth == 8 {
                planes8.append(Array(data[p..<(p + n)])); p += n
            } else {
                var pl = [UInt16](repeating: 0, count: n)
                let mask = UInt16((1 << header.bitDepth) - 1)
                for i in 0..<n { pl[i] = (UInt16(data[p + 2 * i]) | UInt16(data[p + 2 * i + 1]) << 8) & mask }
                planes16.append(pl); p += 2 * n
            }
        }
        return try Image(
            width: header.width, height: header.height, bitDepth: header.bitDepth, format: header.format,
            planes: header.bitDepth == 8 ? .u8(planes8) : .u16(planes16), colour: header.colour)
    }

    /// Serialises one frame ("FRAME\n" + samples, little-endian for > 8 bits).
    public static func frameBytes(_ img: Image) throws(ParseError) -> [UInt8] {
        guard img.format.isYUV || img.format == .gray else {
            throw ParseError(.invalidValue, "Y4M frames must be YUV or grey")
        }
        var out = Array("FRAME\n".utf8)
        switch img.planes {
        case .u8(let p): for pl in p { out += pl }
        case .u16(let p):
            for pl in p { for v in pl { out.append(UInt8(v & 0xFF)); out.append(UInt8(v >> 8)) } }
        }
        return out
    }

    /// Writes a whole stream atomically.
    public static func write(_ frames: [Image], fpsNum: Int = 30, fpsDen: Int = 1, to path: String) throws(ParseError) {
        guard let f = frames.first else { throw ParseError(.invalidValue, path: path, "no frames to write") }
        let hdr = Header(
            width: f.width, height: f.height, fpsNum: fpsNum, fpsDen: fpsDen, format: f.format, bitDepth: f.bitDepth)
        try AtomicFile.write(path: path) { (file: AtomicFile) throws(ParseError) in
            try file.write(hdr.serialized)
            for img in frames {
                guard img.width == f.width, img.height == f.height, img.format == f.format, img.bitDepth == f.bitDepth
                else {
                    throw ParseError(.invalidValue, path: path, "all frames must share the first frame's geometry")
                }
                try file.write(try frameBytes(img))
            }
        }
    }
}
