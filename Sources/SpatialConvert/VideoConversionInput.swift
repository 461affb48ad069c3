import BinaryIO
import HEVC
import ImageFormats
import MediaDecode
import SystemSupport

extension VideoConverter {
    /// Opens the frame producers of an input (one for a packed file, one per eye for a pair).
    static func openProducers(_ input: VideoInput, options o: VideoConversionOptions, notes: inout [String])
        throws(ParseError) -> (producers: [VideoFrameProducer], sourceName: String)
    {
        var producers: [VideoFrameProducer] = []
        let sourceName: String
        switch input {
        case .packed(let p):
            producers = [
                try VideoInputs.producer(
                    for: p, decoder: o.decoder, ffmpeg: o.ffmpeg, limits: o.limits,
                    squarePixels: !o.layout.half, sphere: o.isSphere,
                    sdrDepth: o.sdrDepth, notes: &notes)
            ]
            (producers[0] as? FFmpegProducer)?.acceptDamage = o.force
            (producers[0] as? Y4MProducer)?.acceptDamage = o.force
            sourceName = "\(p == "-" ? "standard input" : p) (\(o.layout.rawValue), \(producers[0].kind))"
        case .pair(let l, let r):
            producers = [
                try VideoInputs.producer(
                    for: l, decoder: o.decoder, ffmpeg: o.ffmpeg, limits: o.limits,
                    sphere: o.isSphere, sdrDepth: o.sdrDepth, notes: &notes)
            ]
            do throws(ParseError) {
                producers.append(
                    try VideoInputs.producer(
                        for: r, decoder: o.decoder, ffmpeg: o.ffmpeg,
                        limits: o.limits, sphere: o.isSphere, sdrDepth: o.sdrDepth,
                        notes: &notes))
            } catch {
                producers[0].abort()
                throw error
            }
            for case let f as FFmpegProducer in producers { f.acceptDamage = o.force }
            for case let y as Y4MProducer in producers { y.acceptDamage = o.force }
            sourceName = "\(l) + \(r) (\(producers[0].kind))"
        }
        return (producers, sourceName)
    }

    /// One eye's extent in a frame-packed picture: `split` is the dimension the eyes share (the width of a side-by-side
    /// picture, the height of a top-bottom one), `across` the other. Each eye must start on an even column or row
    /// (4:2:0 chroma); an odd pixel left over in either dimension is dropped, with a note.
    static func packedEyeExtents(
        split n: Int, across m: Int, horizontal: Bool, inputName: String, notes: inout [String]
    )
        throws(ParseError) -> (along: Int, across: Int)
    {
        let (size, other, eyeShape, secondEye, line, otherLine, layout) =
            horizontal
            ? ("width", "height", "pixel-wide", "right eye", "column", "row", "side by side")
            : ("height", "width", "row-high", "bottom eye", "row", "column", "top-bottom")
        let half = n / 2
        guard half % 2 == 0 else {
            let crop = horizontal ? "\(n - n % 4):ih" : "iw:\(n - n % 4)"
            throw ParseError(
                .unsupported, path: inputName,
                "\(size) \(n) gives \(half)-\(eyeShape) eyes; the \(secondEye) would "
                    + "start on an odd \(line), which 4:2:0 chroma cannot be split at — is it really \(layout)? If so, crop or "
                    + "scale it to a \(size) that is a multiple of 4 (e.g. ffmpeg -vf crop=\(crop):0:0)")
        }
        if n % 2 != 0 { notes.append("odd \(size) \(n): the last \(line) belongs to neither eye and is dropped") }
        if m & ~1 != m { notes.append("odd \(other) \(m): the last \(otherLine) is dropped (4:2:0 needs even sizes)") }
        return (half, m & ~1)
    }

    /// The crop of each eye in the input frame, the size of each eye, and the frame rate.
    static func geometry(
        _ producers: [VideoFrameProducer], input: VideoInput, options o: VideoConversionOptions, notes: inout [String]
    )
        throws(ParseError) -> (cropW: Int, cropH: Int, eyeW: Int, eyeH: Int, fpsNum: Int, fpsDen: Int)
    {
        let inputName: String
        switch input {
        case .packed(let p): inputName = p;
        case .pair(let l, _): inputName = l
        }
        for p in producers {
            guard p.format == .yuv420 else {
                throw ParseError(
                    .unsupported, path: inputName,
                    "the input is \(p.format == .gray ? "monochrome" : p.format == .yuv422 ? "4:2:2" : p.format.rawValue); spatial video (Multiview Main) is 8-bit 4:2:0 — convert first, e.g. ffmpeg -i IN -pix_fmt yuv420p -f yuv4mpegpipe OUT.y4m (or decode with FFmpeg, which converts)",
                    remedy: .decodeWithFFmpeg)
            }
            guard p.bitDepth == 8 || p.bitDepth == 10 || p.bitDepth == 12 else {
                throw ParseError(
                    .unsupported, path: inputName, "\(p.bitDepth)-bit input is not supported (8, 10 or 12)")
            }
        }
        let first = producers[0]
        let inW = first.width, inH = first.height
        var fpsNum = first.fpsNum, fpsDen = first.fpsDen
        var cropW: Int, cropH: Int, eyeW: Int, eyeH: Int
        if producers.count == 2 {
            let b = producers[1]
            guard b.width == inW, b.height == inH else {
                throw ParseError(
                    .invalidValue, path: inputName,
                    "the two inputs have different sizes: left \(inW)×\(inH), right \(b.width)×\(b.height); scale one to match"
                )
            }
            guard b.fpsNum * fpsDen == fpsNum * b.fpsDen else {
                throw ParseError(
                    .invalidValue, path: inputName,
                    "the two inputs have different frame rates: left \(fpsNum)/\(fpsDen), right \(b.fpsNum)/\(b.fpsDen)"
                )
            }
            guard b.bitDepth == first.bitDepth else {
                throw ParseError(
                    .invalidValue, path: inputName,
                    "the two inputs have different bit depths: \(first.bitDepth) and \(b.bitDepth)")
            }
            cropW = inW & ~1; cropH = inH & ~1
            if cropW != inW {
                notes.append("odd width \(inW): the last column of each eye is dropped (4:2:0 needs even sizes)")
            }
            if cropH != inH {
                notes.append("odd height \(inH): the last row of each eye is dropped (4:2:0 needs even sizes)")
            }
            eyeW = cropW; eyeH = cropH
        } else {
            let h = o.layout.horizontal
            let split = try packedEyeExtents(
                split: h ? inW : inH, across: h ? inH : inW, horizontal: h, inputName: inputName,
                notes: &notes)
            cropW = h ? split.along : split.across
            cropH = h ? split.across : split.along
            eyeW = h && o.layout.half ? cropW * 2 : cropW
            eyeH = !h && o.layout.half ? cropH * 2 : cropH
        }
        try Image.checkDimensions(width: eyeW, height: eyeH, limits: o.limits)
        guard eyeW >= 16, eyeH >= 16 else {
            throw ParseError(
                .invalidValue, path: inputName, "each eye would be \(eyeW)×\(eyeH); at least 16×16 is needed")
        }
        if let f = o.fps {
            guard f.num > 0, f.den > 0 else {
                throw ParseError(.invalidValue, "frame rate \(f.num)/\(f.den) is not positive")
            }
            fpsNum = f.num; fpsDen = f.den
        }
        guard fpsNum > 0, fpsDen > 0, fpsNum <= 1_000_000, fpsDen <= 1_000_000 else {
            throw ParseError(
                .invalidValue, path: inputName,
                "the input's frame rate \(fpsNum)/\(fpsDen) is not usable; give the frame rate", remedy: .giveFrameRate)
        }
        if o.layout.half && producers.count == 1 {
            notes.append(
                "half-resolution \(o.layout.horizontal ? "SBS" : "TB"): each eye stretched from \(cropW)×\(cropH) to \(eyeW)×\(eyeH) (linear)"
            )
        }
        return (cropW, cropH, eyeW, eyeH, fpsNum, fpsDen)
    }

    /// The colour and bit depth written (Specs/conversion.md, "Colour as recorded"): the source's colour description,
    /// range and HDR metadata as it states them, and 10 bits for a source of more than 8 (8 when asked, or when an
    /// option works on 8-bit pictures only), each choice in a note.
    static func colourPlan(_ producers: [VideoFrameProducer], options o: VideoConversionOptions, notes: inout [String])
        throws(ParseError) -> (colour: VideoColour, bitDepth: Int)
    {
        let source = producers[0].bitDepth
        if let d = o.bitDepth, d != 8 && d != 10 {
            throw ParseError(.invalidArgument, "bit depth \(d): spatial video is written with 8 or 10 bits")
        }
        var depth = o.bitDepth ?? (source > 8 ? 10 : 8)
        var colour = producers[0].colour ?? .unstatedDefault
        let mapped = producers.compactMap { ($0 as? FFmpegProducer)?.toneMapped }
        if o.sdr {
            notes.append(
                mapped.first.map { "--sdr: \($0)\(producers.count == 2 ? " (both inputs)" : "")" }
                    ?? "--sdr: the source is not HDR (\(colour.text)): nothing to tone-map, its colour is kept")
        }
        if producers.count == 2, let r = producers[1].colour, r != colour {
            notes.append(
                "the right input states another colour (\(r.text)) than the left (\(colour.text)): the left's is written"
            )
        }
        if colour.stated && colour.primaries == 2 && colour.transfer == 2 && colour.matrix == 2 {
            // Only the range is stated (a Y4M stream): the range is kept, the description stays BT.709.
            colour = VideoColour(primaries: 1, transfer: 1, matrix: 1, fullRange: colour.fullRange, stated: true)
        }
        let banding =
            colour.isHDR
            ? "; its \(VideoColour.transferName(colour.transfer)) transfer is kept and may band in 8 bits" : ""
        if depth == 10 && (o.layout.half || o.align || o.autoDisparity) {
            depth = 8
            let why = o.layout.half ? "the half-resolution stretch" : "alignment"
            notes.append("\(source)-bit input written with 8 bits: \(why) works on 8-bit pictures\(banding)")
        } else if depth == 8 && source > 8 {
            notes.append("\(source)-bit input rounded to 8 bits (--bit-depth 8)\(banding)")
        } else if depth == 10 && source > 8 {
            let kept = source > 10 ? "\(source)-bit input rounded to 10 bits" : "10-bit input kept"
            notes.append("\(kept): both layers Main 10 (--bit-depth 8 writes 8-bit Multiview Main)")
        } else if depth == 10 {
            notes.append("8-bit input written with 10 bits (--bit-depth 10)")
        }
        if colour.stated && mapped.isEmpty {
            var line = "colour as the source states it: \(colour.text)"
            if colour.fullRange { line += " (kept full range: VUI video_full_range_flag 1, colr nclx full range)" }
            if let h = colour.hdrMetadataText { line += "; \(h) (mdcv/clli and SEI)" }
            notes.append(line)
        }
        if colour.transfer == 16 && colour.masteringDisplay == nil {
            notes.append("PQ source without mastering display metadata: none is written")
        }
        return (colour, depth)
    }

    static func isISOBMFF(_ path: String) -> Bool {
        let k = FileProbe.kind(of: path)
        return k == .movie || k == .heif
    }

    static func isY4M(_ path: String) -> Bool { FileProbe.kind(of: path) == .y4m }
}
