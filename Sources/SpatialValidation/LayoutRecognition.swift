import BinaryIO
import ImageFormats
import MediaDecode
import SpatialConvert

/// An input that states no frame packing and was given none (`--layout`) is read the way `convert` reads it: its
/// halves measured both ways (``/SpatialConvert/PairRecognition/recogniseLayout(_:frames:)``), so `validate` and
/// `convert` say one thing about what it is (SV-PAIR-008, SV-PAIR-009).
extension Validator {
    /// The layout `pictures` (a photo, or frames sampled across a video) hold a stereo pair in, as `convert` decides
    /// it; nil, with an INFO SV-PAIR-009 and the report marked as 2D, when no single layout does (a 2D picture, or
    /// both ways alike, or nothing to measure either way: `convert` refuses all three).
    static func recogniseLayout(_ pictures: [Image], frames: [Int], video: Bool, into r: inout ValidationReport)
        -> StereoLayout?
    {
        let reading = PairRecognition.recogniseLayout(pictures, frames: frames)
        if let l = reading.layout {
            r.findings.append(
                Finding(
                    "SV-PAIR-008", .info,
                    "no layout stated or given: \(l == .sbs ? "side by side" : "top-bottom") measured, the layout `convert` takes (\(reading.summary))"
                ))
            return l
        }
        let what = video ? "a 2D video" : "a 2D picture"
        r.kind = video ? "2d-video" : "2d-image"
        r.spatial = false
        r.whyNotSpatial = [
            "no stereo pair in it: its halves, cut either way, "
                + (reading.nothingMeasured
                    ? "have nothing to measure (too flat or too small)" : "do not show one scene from two viewpoints")
        ]
        r.findings.append(
            Finding(
                "SV-PAIR-009", .info,
                "no stereo pair found (no layout stated or given): it looks like \(what) — \(reading.summary); `convert` refuses it unless the layout is named (--layout sbs|tb) or it is forced (--force)"
            ))
        return nil
    }
}
