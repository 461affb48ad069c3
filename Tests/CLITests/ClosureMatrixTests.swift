import Foundation
import TestSupport
import Testing

/// Issue 28, "Must show" 1: the closure matrix. One representative file per input class of `../shared` (or made
/// from it / by FFmpeg in a temporary directory) × every writing job, run through the built binary: the exit code the
/// README's table gives, no output left when the exit is not 0, and every written output read back by
/// `validate --json --no-pixels` with no ERROR the job introduced (an ERROR rule the input does not fire too, as
/// Specs/operations.md defines it; a split's ordinary outputs answer for every rule but "this is not a spatial
/// file"). ``ClosureMatrixTests/oraclesReadTheSameStereoFacts(_:)`` has FFmpeg 9 and libheif read the outputs back.
@Suite struct ClosureMatrixTests {
    /// An input class and how its representative file is found or made.
    enum Input: String, CaseIterable, Sendable {
        case spatialPhoto = "spatial photo (fixture, ster + cmin/cmex)"
        case appleSpatialPhoto = "Apple spatial photo (vision-pro.HEIC)"
        case appleVideo = "Apple MV-HEVC spatial video"
        case x265Video = "x265 multiview spatial video"
        case mpo = "MPO (Nintendo 3DS)"
        case sbsImage = "SBS image"
        case tbImage = "TB image"
        case sbsVideo = "SBS video (H.264)"
        case tbVideo = "TB video (H.264)"
        case vr = "VR equirectangular TB (Google spherical)"
        case photo2D = "2D photo (HEIF)"
        case video2D = "2D video (H.264)"
        case truncatedPhoto = "truncated spatial photo"
        case truncatedVideo = "truncated spatial video"
        case malformed = "malformed HEIF (corrupted.hif)"

        /// The shared file it comes from.
        var source: String {
            switch self {
            case .spatialPhoto: "fixtures/pair_ster_cmin_cmex.heic"
            case .appleSpatialPhoto, .truncatedPhoto: "corpus/spatial-photo/vision-pro.HEIC"
            case .appleVideo, .truncatedVideo: "corpus/spatial-video/stereo_spatial.mp4"
            case .x265Video: "fixtures/x265mv_320x240_30f_spatial.mov"
            case .mpo: "corpus/mpo/frozenpond.mpo"
            case .sbsImage, .tbImage: "corpus/sbs/capoda.left-right.jpg"
            case .vr: "corpus/spherical/testRoom1_1080Stereo.mp4"
            case .photo2D: "corpus/heif-real-world/samplefilehub.heif"
            case .malformed: "corpus/malformed/pillow_heif/corrupted.hif"
            // made by FFmpeg; any shared file gates the suite
            case .sbsVideo, .tbVideo, .video2D: "fixtures/pair_plain.heic"
            }
        }

        /// Damaged inputs: every job refuses them naming the damage.
        var damaged: Bool { [.truncatedPhoto, .truncatedVideo, .malformed].contains(self) }
    }

    /// One cell: a job on an input class. In `args`, `$IN` is the input, `$SEG1`/`$SEG2` the two segments of the
    /// SBS video's conversion; outputs are relative names (the cell runs in its own directory).
    struct Cell: Sendable, CustomTestStringConvertible {
        var input: Input
        var job: String
        var args: [String]
        var exit: Int32
        var why: String
        /// Slow (a 2560² pair re-encoded): not run a second time for the oracles.
        var heavy = false
        /// Outputs that are ordinary files (a split's eyes or frame-packed picture), not spatial ones.
        var ordinary: Bool { job == "split" }
        var testDescription: String {
            "\(input.rawValue) × \(args.filter { !$0.hasPrefix("$") }.joined(separator: " ")) → \(exit)"
        }
    }

    static let v = ["--preset", "ultrafast"]

    /// The matrix: expected exit code per the README's table (0 ok; 2 unreadable, damaged, not a supported kind;
    /// 64 usage) and why.
    static let cells: [Cell] = photoCells + videoCells + madeInputCells + damagedCells

    static let photoCells: [Cell] =
        [
            Cell(
                input: .spatialPhoto, job: "convert", args: ["convert", "$IN", "-o", "c.heic"], exit: 0,
                why: "a spatial photo: both eyes and their calibration re-encoded"),
            Cell(
                input: .spatialPhoto, job: "split", args: ["split", "$IN", "--left", "l.heic", "--right", "r.heic"],
                exit: 0, why: "eyes copied as HEIC"),
            Cell(
                input: .spatialPhoto, job: "split", args: ["split", "$IN", "--sbs", "s.jpg"], exit: 0,
                why: "a side-by-side JPEG"),
            Cell(
                input: .spatialPhoto, job: "edit", args: ["edit", "$IN", "-o", "e.heic", "--baseline", "65"], exit: 0,
                why: "metadata edit"),
            Cell(
                input: .spatialPhoto, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 2,
                why: "fix repairs movies: not a movie"),
            Cell(
                input: .spatialPhoto, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 0,
                why: "its two eyes rewritten as a spatial photo"),
            Cell(
                input: .spatialPhoto, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 0,
                why: "rectified (or kept, when it cannot be measured)"),
            Cell(
                input: .spatialPhoto, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
                why: "not a conversion segment"),
            // vision-pro.HEIC: 2560² per eye; convert and align take ~17 s and ~12 s here (not repeated for the
            // oracles).
            Cell(
                input: .appleSpatialPhoto, job: "convert", args: ["convert", "$IN", "-o", "c.heic"], exit: 0,
                why: "both eyes re-encoded, calibration kept", heavy: true),
            Cell(
                input: .appleSpatialPhoto, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 0,
                why: "rectified", heavy: true),
            Cell(
                input: .appleSpatialPhoto, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
                why: "not a conversion segment"),
            Cell(
                input: .appleSpatialPhoto, job: "split",
                args: ["split", "$IN", "--left", "l.heic", "--right", "r.heic"], exit: 0,
                why: "eyes copied with their camera properties"),
            Cell(
                input: .appleSpatialPhoto, job: "edit", args: ["edit", "$IN", "-o", "e.heic", "--baseline", "65"],
                exit: 0, why: "metadata edit"),
            Cell(
                input: .appleSpatialPhoto, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 0,
                why: "keeps the calibration"),
            Cell(
                input: .appleSpatialPhoto, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 2,
                why: "not a movie"),
            Cell(
                input: .mpo, job: "convert", args: ["convert", "$IN", "-o", "c.heic"], exit: 0,
                why: "MPO pair → spatial photo (placeholder baseline → default)"),
            Cell(
                input: .mpo, job: "split", args: ["split", "$IN", "--left", "l.png", "--right", "r.png"], exit: 0,
                why: "issue 33: an MPO's two pictures"),
            Cell(
                input: .mpo, job: "split", args: ["split", "$IN", "--left", "l.jpg", "--right", "r.jpg"], exit: 0,
                why: "issue 33: each eye's JPEG copied"),
            Cell(
                input: .mpo, job: "edit", args: ["edit", "$IN", "-o", "e.heic", "--baseline", "65"], exit: 2,
                why: "not ISOBMFF"),
            Cell(
                input: .mpo, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 2,
                why: "combine takes HEIF"),
            Cell(
                input: .mpo, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 2,
                why: "align takes spatial photos"),
            Cell(
                input: .photo2D, job: "convert", args: ["convert", "$IN", "-o", "c.heic"], exit: 2,
                why: "--layout auto: no measurable stereo pair"),
            Cell(
                input: .photo2D, job: "split", args: ["split", "$IN", "--left", "l.png", "--right", "r.png"], exit: 2,
                why: "no ster group"),
            Cell(
                input: .photo2D, job: "edit", args: ["edit", "$IN", "-o", "e.heic", "--baseline", "65"], exit: 2,
                why: "not a spatial photo"),
            Cell(
                input: .photo2D, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 2,
                why: "one displayable image"),
            Cell(
                input: .photo2D, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 2,
                why: "not a spatial photo"),
            Cell(input: .photo2D, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 2, why: "not a movie"),
            Cell(
                input: .photo2D, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
                why: "not a conversion segment"),
            Cell(input: .mpo, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 2, why: "not a movie"),
            Cell(
                input: .mpo, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
                why: "not a segment"),
        ]
        + [Input.sbsImage, .tbImage].flatMap { (i: Input) -> [Cell] in
            [
                Cell(
                    input: i, job: "split", args: ["split", "$IN", "--left", "l.png", "--right", "r.png"], exit: 0,
                    why: "issue 33: the halves of a packed JPEG"),
                Cell(
                    input: i, job: "split", args: ["split", "$IN", "--left", "l.jpg", "--right", "r.jpg"], exit: 0,
                    why: "issue 33: cut without decoding on the MCU grid"),
                Cell(
                    input: i, job: "edit", args: ["edit", "$IN", "-o", "e.heic", "--baseline", "65"], exit: 2,
                    why: "not ISOBMFF"),
                Cell(input: i, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 2, why: "not a movie"),
                Cell(
                    input: i, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 2,
                    why: "combine takes HEIF (convert packs JPEG)"),
                Cell(
                    input: i, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 2,
                    why: "align takes spatial photos"),
                Cell(
                    input: i, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
                    why: "not a segment"),
            ]
        }

    static let videoCells: [Cell] = [.appleVideo, .x265Video].flatMap { (i: Input) -> [Cell] in
        [
            Cell(
                input: i, job: "convert", args: ["convert", "$IN", "-o", "c.mov"] + v, exit: 2,
                why: "already spatial: refused naming edit/fix/split"),
            Cell(
                input: i, job: "split", args: ["split", "$IN", "--sbs", "s.mov"] + v, exit: 0,
                why: "frame-packed SBS movie"),
            Cell(
                input: i, job: "split", args: ["split", "$IN", "--left", "l.mp4", "--right", "r.mp4"] + v, exit: 0,
                why: "one 2D movie per eye"),
            Cell(
                input: i, job: "split", args: ["split", "$IN", "--ou", "o.mov"] + v, exit: 0,
                why: "frame-packed over-under movie"),
            Cell(
                input: i, job: "split", args: ["split", "$IN", "--sbs", "h.mp4", "--half"] + v, exit: 0,
                why: "half-width SBS in the MP4 container (issue: .mp4 lost its stereo tags)"),
            Cell(
                input: i, job: "edit", args: ["edit", "$IN", "-o", "e.mov", "--baseline", "65"], exit: 0,
                why: "metadata edit"),
            Cell(input: i, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 0, why: "moov moved first"),
            Cell(input: i, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 2, why: "not a HEIF image"),
            Cell(
                input: i, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 2,
                why: "align takes spatial photos"),
            Cell(
                input: i, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
                why: "not a conversion segment"),
        ]
    }

    static let madeInputCells: [Cell] = [
        Cell(
            input: .sbsImage, job: "convert", args: ["convert", "$IN", "-o", "c.heic", "--layout", "sbs"], exit: 0,
            why: "SBS JPEG → spatial photo"),
        Cell(
            input: .tbImage, job: "convert", args: ["convert", "$IN", "-o", "c.heic", "--layout", "tb"], exit: 0,
            why: "TB JPEG → spatial photo"),
        Cell(
            input: .sbsVideo, job: "convert", args: ["convert", "$IN", "-o", "c.mov", "--layout", "sbs"] + v, exit: 0,
            why: "SBS → MV-HEVC"),
        Cell(
            input: .sbsVideo, job: "split", args: ["split", "$IN", "--sbs", "s.mov"] + v, exit: 64,
            why: "issue 33: no packing metadata, so --layout is asked for"),
        Cell(
            input: .sbsVideo, job: "split",
            args: ["split", "$IN", "--layout", "sbs", "--left", "l.mp4", "--right", "r.mp4"] + v, exit: 0,
            why: "issue 33: one movie per eye"),
        Cell(
            input: .sbsVideo, job: "split", args: ["split", "$IN", "--layout", "sbs", "--sbs", "s.mov"] + v, exit: 64,
            why: "already side by side"),
        Cell(
            input: .sbsVideo, job: "edit", args: ["edit", "$IN", "-o", "p.mp4", "--packing", "side"], exit: 0,
            why: "frame-packed tagging of H.264"),
        Cell(
            input: .sbsVideo, job: "edit", args: ["edit", "$IN", "-o", "e.mov", "--baseline", "65"], exit: 2,
            why: "stereo metadata needs MV-HEVC or a packing"),
        Cell(input: .sbsVideo, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 0, why: "moov moved first"),
        Cell(
            input: .sbsVideo, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 2, why: "not a HEIF image"
        ),
        Cell(
            input: .sbsVideo, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 2,
            why: "align takes spatial photos"),
        Cell(
            input: .sbsVideo, job: "concat", args: ["concat", "$SEG1", "$SEG2", "-o", "j.mov", "--audio-from", "$IN"],
            exit: 0, why: "the two segments of one conversion"),
        Cell(
            input: .sbsVideo, job: "concat", args: ["concat", "$SEG1", "-o", "j.mov", "--no-audio"], exit: 64,
            why: "a segment missing"),
        Cell(
            input: .sbsVideo, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
            why: "not a conversion segment"),
        Cell(
            input: .tbVideo, job: "convert", args: ["convert", "$IN", "-o", "c.mov", "--layout", "tb"] + v, exit: 0,
            why: "TB → MV-HEVC"),
        Cell(
            input: .tbVideo, job: "edit", args: ["edit", "$IN", "-o", "p.mp4", "--packing", "over"], exit: 0,
            why: "frame-packed tagging"),
        Cell(input: .tbVideo, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 0, why: "moov moved first"),
        Cell(
            input: .tbVideo, job: "split", args: ["split", "$IN", "--left", "l.mp4", "--right", "r.mp4"] + v, exit: 64,
            why: "issue 33: no packing metadata, so --layout is asked for"),
        Cell(
            input: .tbVideo, job: "split", args: ["split", "$IN", "--layout", "tb", "--sbs", "s.mov"] + v, exit: 0,
            why: "issue 33: re-packed side by side"),
        Cell(
            input: .tbVideo, job: "edit", args: ["edit", "$IN", "-o", "e.mov", "--baseline", "65"], exit: 2,
            why: "stereo metadata needs MV-HEVC or a packing"),
        Cell(
            input: .tbVideo, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 2,
            why: "not a HEIF image"),
        Cell(
            input: .tbVideo, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 2,
            why: "align takes spatial photos"),
        Cell(
            input: .tbVideo, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
            why: "not a segment"),
        Cell(
            input: .vr, job: "edit", args: ["edit", "$IN", "-o", "e.mov", "--baseline", "65"], exit: 0,
            why: "a stereo (vexu) track takes a baseline"),
        Cell(
            input: .vr, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 2, why: "align takes spatial photos"
        ),
        Cell(
            input: .vr, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
            why: "not a segment"),
        Cell(
            input: .video2D, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 2,
            why: "not a HEIF image"),
        Cell(
            input: .video2D, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2,
            why: "not a segment"),
        Cell(
            input: .vr, job: "convert", args: ["convert", "$IN", "-o", "c.mov", "--layout", "tb"] + v, exit: 0,
            why: "stereo 360° sphere → MV-HEVC APMP 'equi' (issue 33)"),
        Cell(
            input: .vr, job: "edit", args: ["edit", "$IN", "-o", "p.mp4", "--packing", "over"], exit: 0,
            why: "pack over for Apple's players"),
        Cell(
            input: .vr, job: "edit", args: ["edit", "$IN", "-o", "a.mp4", "--to-apmp"], exit: 0,
            why: "Google spherical → APMP"),
        Cell(
            input: .vr, job: "edit", args: ["edit", "$IN", "-o", "h.mp4", "--projection", "hequ"], exit: 0,
            why: "retagged half-equirectangular: a warning, not an ERROR"),
        Cell(
            input: .vr, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 0, why: "moov moved first, hero added"),
        Cell(
            input: .vr, job: "split", args: ["split", "$IN", "--sbs", "s.mov"] + v, exit: 0,
            why: "issue 33: the sphere re-packed side by side, st3d 2 + sv3d"),
        Cell(
            input: .vr, job: "split", args: ["split", "$IN", "--left", "l.mp4", "--right", "r.mp4"] + v, exit: 0,
            why: "issue 33: each eye keeps the projection (st3d 0 + sv3d)"),
        Cell(input: .vr, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 2, why: "not a HEIF image"),
        Cell(
            input: .video2D, job: "convert", args: ["convert", "$IN", "-o", "c.mov"] + v, exit: 2,
            why:
                "issue 38: no layout stated or given, and no stereo pair measured either way: a 2D video is refused (--layout, --force)"
        ),
        Cell(
            input: .video2D, job: "split", args: ["split", "$IN", "--sbs", "s.mov"] + v, exit: 64,
            why: "issue 33: no packing metadata, so --layout is asked for"),
        Cell(
            input: .video2D, job: "edit", args: ["edit", "$IN", "-o", "e.mov", "--baseline", "65"], exit: 2,
            why: "not stereo"),
        Cell(input: .video2D, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 0, why: "moov moved first"),
        Cell(
            input: .video2D, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 2,
            why: "align takes spatial photos"),
    ]

    static let damagedCells: [Cell] = [.truncatedPhoto, .truncatedVideo, .malformed].flatMap { (i: Input) -> [Cell] in
        let why = "damaged or truncated: refused with offset"
        return [
            Cell(
                input: i, job: "convert", args: ["convert", "$IN", "-o", i == .truncatedVideo ? "c.mov" : "c.heic"],
                exit: 2, why: why),
            Cell(
                input: i, job: "split",
                args: [
                    "split", "$IN", "--left", i == .truncatedVideo ? "l.mp4" : "l.png", "--right",
                    i == .truncatedVideo ? "r.mp4" : "r.png",
                ],
                exit: 2, why: why),
            Cell(
                input: i, job: "edit",
                args: ["edit", "$IN", "-o", i == .truncatedVideo ? "e.mov" : "e.heic", "--baseline", "65"], exit: 2,
                why: why),
            Cell(input: i, job: "fix", args: ["fix", "$IN", "-o", "f.mov"], exit: 2, why: why),
            Cell(input: i, job: "combine", args: ["combine", "$IN", "-o", "c.heic"], exit: 2, why: why),
            Cell(input: i, job: "align", args: ["align", "$IN", "-o", "a.heic"], exit: 2, why: why),
            Cell(input: i, job: "concat", args: ["concat", "$IN", "-o", "j.mov", "--no-audio"], exit: 2, why: why),
        ]
    }

    static let sharedNeeds = Requirement.shared(
        "fixtures/pair_ster_cmin_cmex.heic", "corpus/spatial-photo/vision-pro.HEIC",
        "corpus/spatial-video/stereo_spatial.mp4",
        "fixtures/x265mv_320x240_30f_spatial.mov", "corpus/mpo/frozenpond.mpo", "corpus/sbs/capoda.left-right.jpg",
        "corpus/spherical/testRoom1_1080Stereo.mp4", "corpus/heif-real-world/samplefilehub.heif",
        "corpus/malformed/pillow_heif/corrupted.hif")

    @Test(.needs(sharedNeeds), arguments: cells)
    func cell(_ cell: Cell) throws {
        let inputs = try Inputs.shared.get()
        let dir = try CLI.tempDir("matrix")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run(inputs.expand(cell.args, cell.input), cwd: dir)
        #expect(r.status == cell.exit, "\(cell.why): exited \(r.status), expected \(cell.exit): \(r.err.suffix(400))")
        let outputs = try Self.outputs(dir)
        if r.status != 0 {
            #expect(outputs.isEmpty, "exit \(r.status) left \(outputs)")
        }
        if cell.input.damaged {
            #expect(
                r.err.contains("damaged or truncated") && r.err.contains("offset"),
                "a damaged input is refused naming the damage: \(r.err.suffix(400))")
        }
        let inherited = try inputs.errorRules(cell)
        for out in outputs {
            let fired = try Self.errorRules(dir + "/" + out)
            let introduced = fired.subtracting(inherited).subtracting(cell.ordinary ? Self.notSpatialRules : [])
            #expect(
                introduced.isEmpty,
                "\(out): ERRORs the job introduced: \(introduced.sorted()) (input fires \(inherited.sorted()))")
        }
    }

    /// The rules whose ERROR only says "this is not a spatial file" (Specs/operations.md): an ordinary output
    /// (a split's eyes or frame-packed picture) does not answer for them.
    static let notSpatialRules: Set<String> = [
        "SV-PHOTO-001", "SV-VIDEO-004", "SV-VIDEO-005", "SV-VIDEO-009", "SV-VIDEO-010", "SV-VIDEO-015", "SV-VIDEO-018",
    ]

    /// The files a cell wrote in its directory (scratch files would count too).
    static func outputs(_ dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
    }

    /// The rules `validate --json --no-pixels` reports as ERROR for `path`.
    static func errorRules(_ path: String) throws -> Set<String> {
        let r = try CLI.run(["validate", "--json", "--no-pixels", path])
        // Exit 2 is a damaged or truncated file (issue 38: SV-FILE-002/003, as the exit-code table says), still
        // reported.
        #expect(
            r.status != 2 || r.out.contains("SV-FILE-002") || r.out.contains("SV-FILE-003"),
            "validate could not read \(path): \(r.err.suffix(300))")
        let json = try JSONSerialization.jsonObject(with: Data(r.out.utf8))
        let reports = (json as? [[String: Any]]) ?? [(json as? [String: Any]) ?? [:]]
        let findings = reports.flatMap { ($0["findings"] as? [[String: Any]]) ?? [] }
        return Set(findings.filter { $0["severity"] as? String == "error" }.compactMap { $0["rule"] as? String })
    }
}
