import BinaryIO
import Codecs
import HEVC
import ImageFormats
import MediaDecode
import SpatialMedia
import SystemSupport

#if canImport(Dispatch)
    import Dispatch
#endif

/// One eye's encoder running on its own thread, fed through a bounded queue. Each coded picture goes to
/// `assembly` as soon as x265 returns it (and, for `--keep-streams`, to a scratch file).
final class EyeEncoder: @unchecked Sendable {
    let name: String
    /// 0 for the base layer (hero eye), 1 for the second.
    let layer: Int
    let queue: BoundedQueue<Image>
    private let encoder: HEVCEncoder
    /// VPS, SPS, PPS from x265 at open.
    let headers: [NALUnit]
    var assembly: MVHEVCAssembler.LivePairing?
    /// Segment mode: aligns x265's counter-derived slice flag with the whole clip's (``SliceFlagAligner``).
    var aligner: SliceFlagAligner?
    /// The eye's single-layer stream, kept only for `keepStreamsPrefix`.
    let kept: ScratchFile?
    private(set) var error: ParseError?
    private(set) var framesOut = 0
    private(set) var packCPU = 0.0
    private var group: DispatchGroup?

    init(
        name: String, layer: Int, width: Int, height: Int, settings: HEVCEncoderSettings, keepIn directory: String?,
        limits: Limits
    ) throws(ParseError) {
        self.name = name
        self.layer = layer
        encoder = try HEVCEncoder(width: width, height: height, settings: settings, limits: limits)
        queue = BoundedQueue(capacity: 1)
        headers = try encoder.headers().map { (b: [UInt8]) throws(ParseError) -> NALUnit in try NALUnit(bytes: b) }
        kept = try directory.map { (d: String) throws(ParseError) -> ScratchFile in try ScratchFile(directory: d) }
        try kept?.append(AccessUnitWriter.annexB(headers))
    }

    private func deliver(_ frames: [EncodedFrame]) throws(ParseError) {
        let t0 = threadCPUSeconds()
        for f in frames {
            // x265 may repeat VPS/SPS/PPS in the first access unit: the headers are already known.
            let raw =
                framesOut == 0
                ? f.nalUnits.filter { n in !(n.count > 1 && [32, 33, 34].contains((n[0] >> 1) & 0x3F)) } : f.nalUnits
            var nals = try raw.map { (b: [UInt8]) throws(ParseError) -> NALUnit in try NALUnit(bytes: b) }
            if let aligner { nals = try aligner.align(nals, poc: f.poc) }
            try kept?.append(AccessUnitWriter.annexB(nals))
            try assembly?.add(layer: layer, accessUnit: nals)
            framesOut += 1
        }
        packCPU += threadCPUSeconds() - t0
    }

    func start() {
        group = startThread("spatial-media.encode.\(name)") { [self] in
            var pts: Int64 = 0
            do throws(ParseError) {
                while let img = queue.take() {
                    try deliver(try encoder.encode(img, pts: pts))
                    pts += 1
                }
                if queue.isAborted { return }  // stopped: no flush, nothing will be used
                try deliver(try encoder.flush())
            } catch {
                self.error = ParseError(
                    error.code, offset: error.offset, path: error.path, "\(name) eye: \(error.message)")
                queue.abort()
                assembly?.abort()
            }
        }
    }

    /// Waits for the thread to finish.
    func join() { group?.wait() }
}

extension MVHEVCAssembler {
    /// Pairs the two encoders' pictures in decoding order and writes each pair as one MV-HEVC access unit as soon as
    /// both exist (``MVHEVCAssembler/Session``, ``SpatialVideoStreamWriter``), so only the pictures one encoder is
    /// ahead of the other are ever held. Called from the encoder threads.
    final class LivePairing: @unchecked Sendable {
        private let lock = Lock()
        private var readers: [SingleLayerReader]
        private var waiting: [[SingleLayerReader.Picture]] = [[], []]
        private var session: MVHEVCAssembler.Session
        let writer: SpatialVideoStreamWriter
        private var failed = false

        init(
            baseHeaders: [NALUnit], secondHeaders: [NALUnit], options: MVHEVCAssemblyOptions,
            writer: SpatialVideoStreamWriter
        ) throws(ParseError) {
            var a = SingleLayerReader(name: "base (layer 0) stream"),
                b = SingleLayerReader(name: "second (layer 1) stream")
            _ = try a.add(accessUnit: baseHeaders)
            _ = try b.add(accessUnit: secondHeaders)
            readers = [a, b]
            session = try MVHEVCAssembler.Session(base: a, second: b, options: options)
            self.writer = writer
        }

        var header: MVHEVCStream { lock.withLock { session.header } }

        /// One coded picture (an access unit of NAL units) of `layer`.
        func add(layer: Int, accessUnit nals: [NALUnit]) throws(ParseError) {
            try lock.withLock { () throws(ParseError) in
                guard !failed else { return }
                do throws(ParseError) {
                    if let p = try readers[layer].add(accessUnit: nals) { waiting[layer].append(p) }
                    if readers[layer].newParameterSetAfterFirstPicture {
                        throw ParseError(.unsupported, "x265 sent a new parameter set after the first picture")
                    }
                    try pairWaiting()
                } catch {
                    failed = true
                    throw error
                }
            }
        }

        private func pairWaiting() throws(ParseError) {
            while !waiting[0].isEmpty && !waiting[1].isEmpty {
                let pa = waiting[0].removeFirst(), pb = waiting[1].removeFirst()
                try writer.add(try session.accessUnit(base: pa, second: pb))
            }
        }

        /// Stops pairing after a failure elsewhere.
        func abort() { lock.withLock { failed = true } }

        /// After both encoders have finished: the last pictures, and a check that the two streams had as many.
        func finish() throws(ParseError) {
            try lock.withLock { () throws(ParseError) in
                for l in 0..<2 { if let p = readers[l].finish() { waiting[l].append(p) } }
                try pairWaiting()
                guard waiting[0].isEmpty, waiting[1].isEmpty else {
                    throw ParseError(
                        .invalidValue,
                        "the two encoders returned different numbers of pictures (\(session.count + waiting[0].count) and \(session.count + waiting[1].count))"
                    )
                }
            }
        }
    }
}

extension VideoConverter {
    /// The stream's header SEI with the mastering display (137) and content light level (144) of `colour` added, so
    /// that they reach `hvcC` (and, from there, `mdcv`/`clli`).
    static func withHDRMessages(_ sei: NALUnit, _ colour: VideoColour) throws(ParseError) -> NALUnit {
        let extra = colour.hdrSEIMessages
        guard !extra.isEmpty else { return sei }
        var list = try SEIMessageList(nal: sei)
        list.messages.removeAll { $0.payloadType == 137 || $0.payloadType == 144 }
        list.messages += extra
        return list.nalUnit()
    }

    /// x265 settings shared by both eyes: identical fixed GOPs so the pictures pair up.
    static func encoderSettings(
        _ o: VideoConversionOptions, fpsNum: Int, fpsDen: Int, colour: VideoColour = .unstatedDefault,
        bitDepth: Int = 8
    ) -> HEVCEncoderSettings {
        var settings = HEVCEncoderSettings()
        settings.preset = o.preset
        settings.rateControl = o.rateControl
        let fps = Double(fpsNum) / Double(fpsDen)
        settings.keyint = o.keyint ?? max(1, Int((2 * fps).rounded()))
        settings.minKeyint = settings.keyint
        settings.sceneCut = false
        settings.openGOP = false
        settings.bframes = o.bframes
        settings.fpsNum = fpsNum; settings.fpsDen = fpsDen
        settings.threads = o.poolThreadsPerEye ?? VideoConversionOptions.defaultPoolThreadsPerEye
        settings.frameThreads = o.frameThreadsPerEye ?? 1
        settings.colour = ColourSpace(matrixCoefficients: colour.matrix, fullRange: colour.fullRange)
        settings.matrixCoefficients = colour.matrix
        settings.colourPrimaries = colour.primaries; settings.transferCharacteristics = colour.transfer
        settings.bitDepth = bitDepth
        settings.extraOptions = ["b-adapt": "0", "lookahead-threads": "0", "hist-scenecut": "0"]
        return settings
    }
}
