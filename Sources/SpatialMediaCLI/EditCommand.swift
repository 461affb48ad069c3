import ArgumentParser
import BinaryIO
import ISOBMFF
import SpatialMedia
import SpatialOperations
import SystemSupport

/// `spatial-media edit`: set, replace or remove the spatial metadata of an MV-HEVC movie, tag a frame-packed or
/// projected movie (Apple's `vexu/pack`, `vexu/proj`), or convert Google spherical metadata to APMP and back.
struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set, replace or remove spatial-video metadata without touching sample data.",
        discussion: """
            Values are in human units: --baseline in millimetres (stored as µm, mm × 1000 rounded), --hfov in \
            degrees (stored as 1/1000 °; must be > 0 and < 180), --disparity in percent of the image width \
            (stored as 1/10000, percent × 100 rounded; within ±100). --hero none removes the hero box. \
            Frame-packed movies (HEVC, H.264 or AV1): --packing side|over writes vexu{eyes{stri}, proj{prji}, pack{pkin}} \
            (with --projection, default rect for a new proj; --hfov and --hero as usual). Spheres: --to-apmp writes the \
            APMP boxes that say what the file's Google spherical metadata (st3d/sv3d or the v1 uuid XML) says, keeping \
            it; --to-google writes st3d/sv3d from the APMP boxes and removes vexu/hfov. Both refuse, with the reason, \
            when the two forms cannot say the same thing (a mesh needs --projection hequ|equi to state its kind). \
            With --in-place the file is edited in place when moov is the last box or is followed by a large \
            enough free box (crash-safe: the old moov is retired by one 8-byte write after the new one is on \
            disk); otherwise it is rewritten atomically (temporary file + rename) and the output says why.
            """)

    @Argument(help: "The movie or spatial photo to edit.") var file: String
    @Option(name: .shortAndLong, help: "Output file (written atomically).") var output: String?
    @Flag(help: "Edit the input file itself.") var inPlace = false
    @OptionGroup var values: StereoValueOptions
    @Option(help: "Hero eye: left, right or none.") var hero: String?
    @Option(help: "Projection: rect, hequ (180°) or equi (360°).") var projection: String?
    @Option(help: "Frame packing of a single-layer movie: side (left eye on the left) or over (left eye on top).")
    var packing: String?
    @Flag(
        help:
            "Convert Google spherical metadata (st3d/sv3d, v1 uuid XML) to APMP (vexu proj/pack), keeping the Google boxes."
    ) var toApmp = false
    @Flag(help: "Convert APMP projection (equi/hequ) to Google st3d/sv3d and remove vexu/hfov.") var toGoogle = false
    @Flag(help: "Remove vexu and hfov from every video sample entry.") var removeSpatial = false
    @Flag(help: "Put moov before mdat (forces a rewrite).") var faststart = false
    @Flag(help: "Print JSON to standard output.") var json = false
    @Option(help: "Spatial photos: form of camera properties that do not exist yet (apple, standard, both).")
    var cameraForm: String = "apple"

    func validate() throws {
        if output == nil && !inPlace { throw ValidationError("give -o OUT or --in-place") }
        if output != nil && inPlace { throw ValidationError("-o and --in-place exclude each other") }
    }

    func run() throws {
        let line = ProgressLine("rewriting")
        let report = try runOperation("spatial-media edit", file: file, outputs: [output]) { () throws(ParseError) in
            defer { line.end() }
            var r = EditRequest(path: file, output: output)
            r.values = values.inputs
            r.heroEye = try EditRequest.choiceValue("hero_eye", hero, .flag)
            r.projection = try EditRequest.choiceValue("projection", projection, .flag)
            r.packing = try EditRequest.choiceValue("packing", packing, .flag)
            r.toAPMP = toApmp; r.toGoogle = toGoogle; r.removeSpatial = removeSpatial; r.faststart = faststart
            r.form = cameraForm == "apple" ? nil : try EditRequest.choiceValue("form", cameraForm, .flag)
            return try Operations.edit(r, spelling: .flag, progress: line.update)
        }
        if json { print(report.json.serialized(pretty: true)) }
        for l in report.textLines { printErr(l) }
    }
}
