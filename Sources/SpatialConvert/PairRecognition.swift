import BinaryIO
import ImageFormats
import MediaDecode
import StereoVision
import SystemSupport

/// Whether the two eyes cut from one frame-packed picture are a stereo pair: the check that keeps an ordinary photo
/// from being written as a "spatial photo" of its two halves.
///
/// The halves are measured (``/StereoVision/StereoAnalyzer``, luma reduced to at most ``maxSide`` px). A pair is recognised when
/// the measurement succeeds with at least ``minimumConfidence``, or with at least ``minimumAgreeingShare`` of its
/// matches agreeing. Otherwise:
/// * layout guessed (`auto`): refused, naming what was measured (`notRecognised`, remedy ``/BinaryIO/ParseError/Remedy/giveLayout``);
/// * layout given: refused the same way, with remedy ``/BinaryIO/ParseError/Remedy/force`` (the validator too gives no
///   verdict below that confidence: the matches that agree are too few to be a stereo pair);
/// * nothing to measure (halves too small or too flat to find features): converted with a note saying the pair could
///   not be checked.
///
/// Pairs that are two pictures already (an MPO, two files, a spatial photo) and ``PhotoConversionOptions/force`` skip it.
public enum PairRecognition {
    /// Longest side of the luma the check measures (fast; the geometry report measures at full size).
    public static let maxSide = 1024
    /// A measurement with at least this confidence shows a stereo pair (the validator's "unreliable" floor).
    public static let minimumConfidence = 0.3
    /// A measurement of lower confidence (few matches, or a small part of the frame textured) still shows a stereo pair
    /// when at least this share of the refined matches agree on one geometry: chance matches between two different
    /// pictures agree far less (the halves of the corpus's ordinary photos: 46–70 %; a real side-by-side photo with
    /// little texture, `capoda.left-right.jpg`: 95 %).
    public static let minimumAgreeingShare = 0.85

    /// Checks `pair` as described above; returns a note for the report when the pair could not be checked, nil when it
    /// is recognised or needs no check.
    public static func check(_ pair: StereoPair, options: PhotoConversionOptions) throws(ParseError) -> String? {
        guard let layout = pair.packedLayout, !options.force else { return nil }
        let cut = layout == .sbs ? "cut side by side" : "cut top and bottom"
        guard let a = PairAligner.luma(pair.left, maxSide: maxSide), let b = PairAligner.luma(pair.right, maxSide: maxSide) else { return nil }
        var o = StereoAnalysisOptions()
        o.occlusionTest = false
        let result = StereoAnalyzer.analyze(left: a.gray, right: b.gray, options: o)
        if let m = result.measurement, m.confidence >= minimumConfidence || Double(m.matches.count) >= minimumAgreeingShare * Double(m.refinedMatches) {
            return nil
        }
        if result.failedForLackOfFeatures {
            return "the stereo pair could not be checked (\(result.failure ?? "nothing to measure")); converted \(cut) as \(pair.layoutGuessed ? "guessed from its shape" : "told")"
        }
        let measured = result.measurement.map {
            "only \($0.matches.count) of \($0.refinedMatches) matches agree on one stereo geometry (\(NumberText.fixed($0.coverage * 100, places: 0))% of the frame covered), confidence \(NumberText.fixed($0.confidence, places: 2)) (a stereo pair needs \(NumberText.fixed(minimumConfidence, places: 2)), or \(NumberText.fixed(minimumAgreeingShare * 100, places: 0))% of the matches agreeing)"
        } ?? result.failure ?? "no matches agree"
        if pair.layoutGuessed {
            throw ParseError(.notRecognised, offset: 0,
                             "no stereo pair found: \(cut) (the layout guessed from its shape), its two halves do not show one scene from two viewpoints — \(measured); it looks like an ordinary picture. Name the layout if it really holds two eyes",
                             remedy: .giveLayout)
        }
        throw ParseError(.notRecognised, offset: 0,
                         "no stereo pair found: \(cut) as told, its two halves do not match — \(measured); check the layout, or convert anyway if you are sure",
                         remedy: .force)
    }
}
