import BinaryIO
import ISOBMFF

/// A movie read for its stereo metadata: the everyday entry point for "what is this video, and is it spatial?".
///
/// A thin view over ``SpatialVideoReport`` (which it keeps in ``report``): only `moov` is read, never the samples.
///
/// ```swift
/// let video = try SpatialVideo(contentsOf: "clip.mov")
/// print(video.isSpatial, video.stereo.baselineMillimetres ?? 0)
/// try SpatialVideo.editMetadata(of: "clip.mov", inPlace: true) { try $0.setBaseline(millimetres: 64) }
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
        guard report.primaryVideoTrack != nil else { throw ParseError(.unsupported, path: path, "the file has no video track") }
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

    /// Changes the stereo metadata of every MV-HEVC video track without touching sample data.
    ///
    /// `change` receives the current ``stereo`` of the movie and edits it; fields it changes are written, fields
    /// it sets to nil are removed, the others are kept. Writes `output`, or with `inPlace` the file itself (in
    /// place when its layout allows, else by an atomic rewrite). A thin facade over
    /// ``SpatialVideoEditor/edit(path:output:inPlace:edit:faststart:progress:)`` with
    /// ``SpatialVideoEdit/init(from:to:)``.
    @discardableResult
    public static func editMetadata(of path: String, to output: String? = nil, inPlace: Bool = false,
                                    _ change: (inout StereoParameters) throws(ParseError) -> Void) throws(ParseError) -> SpatialEditResult {
        guard inPlace || output != nil else {
            throw ParseError(.invalidArgument, path: path, "name an output, or edit in place")
        }
        let old = try SpatialVideo(contentsOf: path).stereo
        var new = old
        try change(&new)
        return try SpatialVideoEditor.edit(path: path, output: inPlace ? nil : output, inPlace: inPlace, edit: SpatialVideoEdit(from: old, to: new))
    }
}

extension SpatialPhoto {
    /// Changes the baseline, field of view or disparity adjustment of the spatial photo at `path` without
    /// re-encoding. `change` receives the photo's current ``stereo`` and edits it; fields it changes are written, the
    /// others kept (a photo's values cannot be removed). Writes `output`, or with `inPlace` replaces the file
    /// atomically. A thin facade over ``SpatialPhotoEditor/edit(path:output:stereo:form:)``.
    @discardableResult
    public static func editMetadata(of path: String, to output: String? = nil, inPlace: Bool = false, form: CameraPropertyForm = .apple,
                                    _ change: (inout StereoParameters) throws(ParseError) -> Void) throws(ParseError) -> PhotoEditResult {
        guard inPlace || output != nil else { throw ParseError(.invalidArgument, path: path, "name an output, or edit in place") }
        let old = try SpatialPhoto(contentsOf: path).stereo
        var new = old
        try change(&new)
        func changed<T: Equatable>(_ a: T?, _ b: T?, _ name: String) throws(ParseError) -> T? {
            if a == b { return nil }
            guard let b else { throw ParseError(.invalidArgument, path: path, "a spatial photo's \(name) cannot be removed") }
            return b
        }
        let edit = StereoParameters(baselineMicrometres: try changed(old.baselineMicrometres, new.baselineMicrometres, "baseline"),
                                    horizontalFieldOfViewMillidegrees: try changed(old.horizontalFieldOfViewMillidegrees, new.horizontalFieldOfViewMillidegrees, "field of view"),
                                    disparityAdjustment: try changed(old.disparityAdjustment, new.disparityAdjustment, "disparity adjustment"),
                                    heroEye: new.heroEye, projectionKind: new.projectionKind)
        return try SpatialPhotoEditor.edit(path: path, output: inPlace ? nil : output, stereo: edit, form: form)
    }
}
