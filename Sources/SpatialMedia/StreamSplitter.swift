import BinaryIO
import HEVC
import ISOBMFF

/// Splits a spatial video (or a raw two-layer MV-HEVC stream) made by ``/HEVC/MVHEVCAssembler`` back into one
/// single-layer HEVC Annex B stream per eye, without decoding. See ``/HEVC/MVHEVCSplitter`` for what is rewritten and
/// for the error given for inter-layer-predicted files (Apple, x265 multiview), which need FFmpeg ≥ 7.1.
public enum StreamSplitter {
    /// Reads `path` (a movie with an `hvc1`/`hev1` track carrying `hvcC` + `lhvC`, or raw Annex B) and returns the
    /// layers.
    public static func split(path: String, baseOnly: Bool = false, limits: Limits = .default) throws(ParseError)
        -> SplitLayers
    {
        let source = try FileSource(path: path)
        guard source.size > 4 else { throw ParseError(.truncated, path: path, "\(path): file too small") }
        let head = try source.read(at: 0, count: 4)
        if head.starts(with: [0, 0, 1]) || head.starts(with: [0, 0, 0, 1]) {
            return try MVHEVCSplitter.split(
                annexB: try MVHEVCAssembler.readWhole(path, limits: limits), baseOnly: baseOnly)
        }
        let file = try ISOFile.parse(source: source, limits: limits)
        guard
            let track = file.tracks.first(where: { t in
                t.handler == "vide" && t.sampleEntries.first.map { $0.type == "hvc1" || $0.type == "hev1" } == true
            }), let entry = track.sampleEntries.first
        else {
            throw ParseError(.unsupported, path: path, "\(path): no HEVC video track")
        }
        guard let hvcC = entry.child("hvcC")?.payload(HEVCConfigurationBox.self)?.record else {
            throw ParseError(.unsupported, path: path, "\(path): the HEVC sample entry has no hvcC")
        }
        guard let lhvC = entry.child("lhvC")?.payload(LHEVCConfigurationBox.self)?.record else {
            throw ParseError(
                .unsupported, path: path,
                "\(path): the video has a single layer (no lhvC); there is no second eye to split")
        }
        let h = try HEVCDecoderConfigurationRecord(parsing: hvcC)
        let l = try LHEVCDecoderConfigurationRecord(parsing: lhvC)
        guard h.lengthSize == l.lengthSize else {
            throw ParseError(.invalidValue, path: path, "hvcC and lhvC NAL length sizes differ")
        }
        var aus: [[NALUnit]] = []
        var budget = limits.maxBoxInMemory
        for s in try track.samples(limits: limits) {
            guard UInt64(s.size) <= budget else {
                throw ParseError(.limitExceeded, offset: s.offset, path: path, "samples exceed maxBoxInMemory")
            }
            budget -= UInt64(s.size)
            let bytes = try file.readBytes(at: s.offset, count: Int(s.size))
            aus.append(try LengthPrefixed.split(bytes, lengthSize: h.lengthSize, baseOffset: s.offset, limits: limits))
        }
        return try MVHEVCSplitter.split(
            parameterSets: h.nalUnits() + l.nalUnits(), accessUnits: aus, baseOnly: baseOnly)
    }

    /// Splits `path` and writes the left and right eyes (each atomically) to the given paths.
    @discardableResult
    public static func write(path: String, left: String?, right: String?, limits: Limits = .default) throws(ParseError)
        -> SplitLayers
    {
        let layers = try split(path: path, limits: limits)
        if let left { try AtomicFile.write(path: left, bytes: layers.left) }
        if let right { try AtomicFile.write(path: right, bytes: layers.right) }
        return layers
    }
}
