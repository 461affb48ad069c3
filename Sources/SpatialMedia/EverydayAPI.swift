import BinaryIO
import ISOBMFF

/// A movie read for its stereo metadata: the everyday entry point for "what is this video, and is it spatial?".
///
/// A thin view over ``SpatialVideoReport`` (which it keeps in ``report``): only `moov` is read, never the samples.
///
/// ```swift
/// let video = try SpatialVideo(contentsOf: "clip.mov")
/// print(video.isSpatial, video.stereo.baselineMillimetres ?? 0)
/// ```
public struct SpatialVideo: Sendable {
    /// The file read.
    public let path: String
    /// Everything the spatial-video analysis found (tracks, classification, profile, diagnostics).
    public let report: SpatialVideoReport

    /// Reads the movie at `path`. Throws when it is not an ISOBMFF/QuickTime file or cannot be parsed, and
    /// ``/BinaryIO/ParseError/Code/unsupported`` when it holds no video track.
    public init(contentsOf path: String, limits: Limits = .default) throws(ParseError) {
        let file = try ISOFile.open(path: path, limits: limits)
        let report = SpatialVideoReport(file)
        guard report.primaryVideoTrack != nil else {
            throw ParseError(.unsupported, path: path, "the file has no video track")
        }
        self.path = path
        self.report = report
    }

    /// The video track the classification is about (the first enabled MV-HEVC track, else the first video).
    public var track: SpatialVideoTrack? { report.primaryVideoTrack.map { report.videoTracks[$0] } }
    /// The stereo parameters of that track as stored (fields absent from the file are nil).
    public var stereo: StereoParameters { track?.metadata.stereo ?? StereoParameters() }
    /// Spatial video, frame-packed stereo, stereo MV-HEVC without metadata, or 2D.
    public var classification: VideoStereoClass { report.classification }
    /// True for Apple spatial video (MV-HEVC with the spatial metadata visionOS needs).
    public var isSpatial: Bool { report.classification == .spatialVideo }
    /// Why the movie is not spatial video; empty when it is.
    public var whyNotSpatial: [String] { report.whyNotSpatial }
}
