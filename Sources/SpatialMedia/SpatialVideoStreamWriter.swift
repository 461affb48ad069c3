import BinaryIO
import HEVC
import ISOBMFF
import SystemSupport

/// Writes a spatial video while its access units are still being produced, so that memory stays bounded by
/// one access unit whatever the length of the clip.
///
/// Samples go to an unnamed temporary file in the destination's directory (``/BinaryIO/ScratchFile``: nothing is left
/// behind if the process dies). ``finish(header:audio:progress:)`` adds the audio chunks, builds `moov` exactly as
/// ``SpatialVideoMuxer/build(_:options:)`` does, and writes the movie atomically, copying the samples once; the
/// result is byte-identical to the in-memory muxer's for the same access units and options.
public final class SpatialVideoStreamWriter {
    public let path: String
    let options: SpatialVideoMuxOptions
    let scratch: ScratchFile
    var samples: [SpatialVideoMuxer.VideoSample] = []
    /// Coded bytes of layer 0 and layer 1 (NAL units, without length fields) written so far.
    public private(set) var layer0Bytes = 0
    public private(set) var layer1Bytes = 0
    /// Access units written so far.
    public var count: Int { samples.count }

    /// Checks the options and the destination directory, and opens the temporary data file there.
    public init(path: String, options: SpatialVideoMuxOptions) throws(ParseError) {
        try SpatialVideoMuxer.validate(options)
        self.path = path
        self.options = options
        var dir = "."
        if let slash = path.lastIndex(of: "/") { dir = String(path[..<slash]).isEmpty ? "/" : String(path[..<slash]) }
        guard FileSystem.kind(dir) == .directory else {
            throw ParseError(.io, path: path, "output directory '\(dir)' does not exist")
        }
        scratch = try ScratchFile(directory: dir)
    }

    /// Appends one access unit (decoding order) as a sample.
    public func add(_ au: MVHEVCAccessUnit) throws(ParseError) {
        let s = try LengthPrefixed.join(au.nalUnits, lengthSize: 4)
        samples.append(try SpatialVideoMuxer.VideoSample(au, size: s.count))
        for n in au.nalUnits {
            if n.layerId == 0 { layer0Bytes += n.bytes.count } else { layer1Bytes += n.bytes.count }
        }
        try scratch.append(s)
    }

    /// Writes the movie to ``path`` (atomically): `header` gives the parameter sets and facts of the stream
    /// (``/HEVC/MVHEVCAssembler/Session/header``), `audio` the tracks copied alongside.
    @discardableResult
    public func finish(
        header: MVHEVCStream, audio: [CopiedTrack] = [],
        progress: ((UInt64, UInt64) -> Void)? = nil
    ) throws(ParseError) -> SpatialVideoMuxResult {
        let videoBytes = scratch.size
        for t in audio { for c in t.chunks { try scratch.append(c) } }
        let source = try scratch.source()
        var (file, result) = try SpatialVideoMuxer.movie(
            header: header, samples: samples, mdat: .fileRange(offset: 0, length: videoBytes),
            mdatPayloadLength: videoBytes, source: source, options: options)
        file = try TrackCopier.append(audio, to: file)
        try file.write(to: path, progress: progress)
        result.path = path
        result.bytesWritten = file.boxes.reduce(0) { $0 + $1.encodedSize() }
        return result
    }
}
