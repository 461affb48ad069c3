import BinaryIO
import HEVC
import ImageFormats
import MediaDecode
import SpatialMedia

/// One segment of a conversion split over several machines (`convert --segment K/N`).
public struct VideoSegment: Sendable, Equatable {
    /// 1-based.
    public var index: Int
    public var count: Int
    public init(index: Int, count: Int) { self.index = index; self.count = count }

    /// Parses "K/N" (1 ≤ K ≤ N ≤ 100000).
    public static func parse(_ text: String) -> VideoSegment? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]), n >= 1, n <= 100_000, k >= 1, k <= n
        else { return nil }
        return VideoSegment(index: k, count: n)
    }
}

/// Segment mode of ``VideoConverter``: the input is cut into `N` runs of whole GOPs (``VideoSegmentInfo/ranges``)
/// from its frame count and the fixed GOP length; segment K encodes only its run, from an IDR, with fresh encoders
/// and no audio, and records its place in `moov/udta/smsg`. ``VideoSegmentJoiner`` joins the segment files.
enum VideoSegments {
    /// Options for a segment conversion: no audio (the join carries it once, whole). An audio source given for a
    /// segment would be silently unused, so it is refused: it belongs to `concat`.
    static func prepare(_ o: VideoConversionOptions) throws(ParseError) -> VideoConversionOptions {
        if o.segment != nil, let a = o.audioFrom {
            throw ParseError(
                .invalidArgument, path: a,
                "a segment carries no audio, so the audio source \(a) would be unused: give it to the join (`spatial-media concat`, which carries the input's audio once, whole), not to the segment"
            )
        }
        var o = o
        if o.segment != nil { o.audio = .none }
        return o
    }

    /// Cuts `plan` down to segment `o.segment`: the producers skip the frames before the segment and end after it;
    /// the movie carries the segment box.
    static func restrict(
        _ plan: inout VideoConverter.Plan, input: VideoInput, options o: VideoConversionOptions,
        cancellation: ConversionCancellation
    ) throws(ParseError) {
        guard let seg = o.segment else { return }
        let name: String
        switch input {
        case .packed(let p): name = p;
        case .pair(let l, _): name = l
        }
        guard name != "-" else {
            throw ParseError(
                .invalidArgument, "segment mode needs an input file (standard input cannot be cut into segments)")
        }
        let hints = plan.producers.map(\.frameCountHint)
        guard let total = hints.compactMap({ $0 }).min(), hints.allSatisfy({ $0 != nil }), total > 0 else {
            throw ParseError(
                .unsupported, path: name,
                "the frame count of \(name) is not known before decoding, so it cannot be cut into segments; convert it to Y4M or MP4 first"
            )
        }
        let gop = VideoConverter.encoderSettings(o, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen).keyint
        let ranges = try VideoSegmentInfo.ranges(totalFrames: total, gop: gop, count: seg.count)
        let range = ranges[seg.index - 1]
        let last = seg.index == seg.count
        plan.producers = plan.producers.map {
            FrameRangeProducer($0, range: range, isLast: last, name: name, cancellation: cancellation)
        }
        plan.audio = .none
        // What concat checks: the same input (identity of each input file) and the same encoder settings.
        var identity: [UInt8] = []
        switch input {
        case .packed(let p): identity = try VideoSegmentInfo.inputIdentity(path: p)
        case .pair(let l, let r):
            identity = try VideoSegmentInfo.inputIdentity(path: l) + VideoSegmentInfo.inputIdentity(path: r)
        }
        let info = VideoSegmentInfo(
            index: seg.index, count: seg.count, firstFrame: range.lowerBound, frameCount: range.count,
            totalFrames: total, gopFrames: gop, input: identity,
            settings: settingsText(o, fpsNum: plan.fpsNum, fpsDen: plan.fpsDen))
        plan.mux.movieUserData.append(try info.box())
        plan.segmentFirstFrame = range.lowerBound
        plan.notes.append(
            "segment \(seg.index) of \(seg.count): frames \(range.lowerBound)…\(range.upperBound - 1) of \(total) (GOP \(gop) frames); no audio (the join adds the input's audio once, whole)"
        )
    }
}

extension VideoSegments {
    /// The encoder settings every segment of one conversion must share, as recorded in `smsg` and compared by `concat`:
    /// everything that changes the coded pictures (rate control, preset, tune, GOP, B-frames, eye quality, layout, hero
    /// eye, layer-1 SPS form, x265 options); not the thread counts, which may differ between machines.
    static func settingsText(_ o: VideoConversionOptions, fpsNum: Int, fpsDen: Int) -> String {
        let e = VideoConverter.encoderSettings(o, fpsNum: fpsNum, fpsDen: fpsDen)
        let rate: String
        switch e.rateControl {
        case .crf(let c): rate = "crf \(fmt(c))"
        case .qp(let q): rate = "qp \(q)"
        case .bitrate(let k, let m, let b):
            rate = "bitrate \(k) max \(m.map(String.init) ?? "-") buffer \(b.map(String.init) ?? "-")"
        }
        let extra = e.extraOptions.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ":")
        return
            "rate \(rate); preset \(e.preset); tune \(e.tune ?? "-"); keyint \(e.keyint); bframes \(e.bframes); fps \(fpsNum)/\(fpsDen); "
            + "eye quality \(o.eyeQuality); layout \(o.layout); hero \(o.heroIsLeft ? "left" : "right"); layer SPS \(o.layerSPSForm); "
            + "max bitrate \(o.maxBitrateKbps.map(String.init) ?? "-"); x265 \(extra.isEmpty ? "-" : extra)"
    }
}

/// Passes on the frames `range` of another producer: decodes and drops the ones before it, ends after it. The input
/// must hold exactly the frames its header announced (the segments of every machine are cut from that count).
final class FrameRangeProducer: VideoFrameProducer {
    let inner: VideoFrameProducer
    let range: Range<Int>
    let isLast: Bool
    let name: String
    let cancellation: ConversionCancellation
    private var position = 0

    init(
        _ inner: VideoFrameProducer, range: Range<Int>, isLast: Bool, name: String, cancellation: ConversionCancellation
    ) {
        self.inner = inner; self.range = range; self.isLast = isLast; self.name = name; self.cancellation = cancellation
    }
    var width: Int { inner.width }
    var height: Int { inner.height }
    var fpsNum: Int { inner.fpsNum }
    var fpsDen: Int { inner.fpsDen }
    var format: PixelFormat { inner.format }
    var bitDepth: Int { inner.bitDepth }
    var frameCountHint: Int? { range.count }
    var kind: String { inner.kind }
    var colour: VideoColour? { inner.colour }

    func next() throws(ParseError) -> Image? {
        while position < range.lowerBound {
            if position % 16 == 0, cancellation.isCancelled { throw ParseError(.cancelled, "cancelled") }
            guard try inner.next() != nil else { throw short() }
            position += 1
        }
        guard position < range.upperBound else { return nil }
        guard let img = try inner.next() else { throw short() }
        position += 1
        return img
    }

    private func short() -> ParseError {
        ParseError(
            .truncated, path: name,
            "\(name) ended after \(position) frames, before the end of this segment (frame \(range.upperBound - 1)); its announced frame count was wrong, so segment ranges cannot be computed from it"
        )
    }

    func finish() throws(ParseError) {
        guard isLast else { inner.abort(); return }
        // The last segment reads to the end: frames beyond the announced count would be lost from every segment.
        if try inner.next() != nil {
            inner.abort()
            throw ParseError(
                .invalidValue, path: name,
                "\(name) has more frames than the \(range.upperBound) it announced; segment ranges cannot be computed from its header"
            )
        }
        try inner.finish()
    }

    func abort() { inner.abort() }
}

/// Gives a segment's pictures the one slice-header flag x265 derives from its own picture counter, so the segment's
/// bytes equal those a one-process conversion writes for the same frames.
///
/// x265 sets `slice_loop_filter_across_slices_enabled_flag` (present when the PPS enables loop filtering across
/// slices and the slice uses SAO or deblocking) to bit (POC mod 31) of the constant 0x5F4E4A53, where POC counts
/// pictures from the start of the encode. A segment's encoder starts counting at 0 instead of at the segment's first
/// frame. With one slice per picture (what the converter encodes) the flag has no effect on decoding; it is set here
/// to the value for the picture's place in the whole clip. When a picture's flag does not follow that pattern (another
/// x265), nothing is changed for that picture (the segments then still decode identically, see Specs/conversion.md).
final class SliceFlagAligner: @unchecked Sendable {
    static let pattern: UInt32 = 0x5F4E_4A53
    let firstFrame: Int
    let context: SliceContext
    /// Pictures whose flag did not follow the pattern (left unchanged).
    private(set) var unexpected = 0

    init(headers: [NALUnit], firstFrame: Int) throws(ParseError) {
        let vps = try headers.first { $0.type == .vps }.map { (n: NALUnit) throws(ParseError) -> VideoParameterSet in
            try VideoParameterSet(nal: n)
        }
        guard let spsNAL = headers.first(where: { $0.type == .sps }),
            let ppsNAL = headers.first(where: { $0.type == .pps })
        else {
            throw ParseError(.invalidValue, "x265 gave no SPS or PPS")
        }
        context = SliceContext(
            vps: vps, sps: try SequenceParameterSet(nal: spsNAL, vps: vps), pps: try PictureParameterSet(nal: ppsNAL))
        self.firstFrame = firstFrame
    }

    static func bit(_ poc: Int) -> Bool { (pattern >> UInt32(poc % 31)) & 1 != 0 }

    /// The picture's NAL units with the flag set for clip position `firstFrame + poc` (`poc`: x265's counter).
    func align(_ nals: [NALUnit], poc: Int) throws(ParseError) -> [NALUnit] {
        guard poc >= 0, firstFrame > 0, context.pps.loopFilterAcrossSlicesEnabled else { return nals }
        var out = nals
        for (i, nal) in nals.enumerated() where nal.type.isVCL {
            let sh = try SliceSegmentHeader(nal: nal, context: context)
            guard sh.saoLuma || sh.saoChroma || !sh.deblockingFilterDisabled else { continue }
            guard sh.loopFilterAcrossSlicesEnabled == Self.bit(poc) else { unexpected += 1; return nals }
            let wanted = Self.bit(firstFrame + poc)
            if wanted != sh.loopFilterAcrossSlicesEnabled {
                out[i] = try sh.emit(context: context) { $0.loopFilterAcrossSlicesEnabled = wanted }
            }
        }
        return out
    }
}
