import ArgumentParser
import BinaryIO
import ISOBMFF
import SpatialMedia
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
    @Option(help: "Frame packing of a single-layer movie: side (left eye on the left) or over (left eye on top).") var packing: String?
    @Flag(help: "Convert Google spherical metadata (st3d/sv3d, v1 uuid XML) to APMP (vexu proj/pack), keeping the Google boxes.") var toApmp = false
    @Flag(help: "Convert APMP projection (equi/hequ) to Google st3d/sv3d and remove vexu/hfov.") var toGoogle = false
    @Flag(help: "Remove vexu and hfov from every video sample entry.") var removeSpatial = false
    @Flag(help: "Put moov before mdat (forces a rewrite).") var faststart = false
    @Flag(help: "Print JSON to standard output.") var json = false
    @Option(help: "Spatial photos: form of camera properties that do not exist yet (apple, standard, both).") var cameraForm: String = "apple"

    func validate() throws {
        if output == nil && !inPlace { throw ValidationError("give -o OUT or --in-place") }
        if output != nil && inPlace { throw ValidationError("-o and --in-place exclude each other") }
        if let h = hero, !["left", "right", "none"].contains(h) { throw ValidationError("--hero must be left, right or none") }
        if let p = projection, !["rect", "hequ", "equi"].contains(p) { throw ValidationError("--projection must be rect, hequ or equi") }
        if let p = packing, p != "side" && p != "over" { throw ValidationError("--packing must be side or over") }
        if values.baseline == 0 {
            printErr("warning: --baseline 0 is written as asked, but validate reports a zero baseline as an error (SV-VIDEO-016 for videos, SV-PHOTO-011 for photos): visionOS needs the real distance between the lenses")
        }
        if removeSpatial && (values.isGiven || hero != nil || projection != nil || packing != nil || toApmp || toGoogle) {
            throw ValidationError("--remove-spatial cannot be combined with values")
        }
        if toApmp && toGoogle { throw ValidationError("--to-apmp and --to-google exclude each other") }
        if (toApmp || toGoogle) && (values.isGiven || packing != nil) {
            throw ValidationError("--to-apmp/--to-google take their values from the file (only --hero, and --projection with --to-apmp for a mesh, combine with them)")
        }
        if toGoogle && projection != nil { throw ValidationError("--to-google takes the projection from the file") }
    }

    func run() throws {
        try Exit.checkOutputs("spatial-media edit", outputs: [("output", output)], inputs: [("input", file)])
        if SpatialPhotoEditor.isHEIF(path: file) {
            if hero != nil || projection != nil || packing != nil || toApmp || toGoogle || removeSpatial || faststart {
                printErr("spatial-media edit: --hero, --projection, --packing, --to-apmp, --to-google, --remove-spatial and --faststart apply to videos; photos take --baseline, --hfov, --disparity")
                throw ExitCode(Exit.usage)
            }
            guard let form = CameraPropertyForm(rawValue: cameraForm) else {
                printErr("spatial-media edit: --camera-form must be apple, standard or both")
                throw ExitCode(Exit.usage)
            }
            try editPhoto(path: file, output: inPlace ? nil : output, values: values, form: form, json: json)
            return
        }
        var edit = SpatialVideoEdit()
        edit.removeSpatial = removeSpatial
        edit.set(try values.parameters("edit"))
        switch hero {
        case "left": edit.heroEye = .set(.left)
        case "right": edit.heroEye = .set(.right)
        case "none": edit.heroEye = .remove
        default: break
        }
        if toApmp {
            edit.spherical = .toAPMP(assume: projection.map { FourCC($0) })
        } else if toGoogle {
            edit.spherical = .toGoogle
        } else {
            if let p = projection { edit.projectionKind = .set(FourCC(p)) }
            if let k = packing { edit.viewPacking = .set(FourCC(k)) }
        }
        if edit.isEmpty && !faststart {
            printErr("spatial-media edit: nothing to do (give a value, --remove-spatial or --faststart)")
            throw ExitCode(Exit.usage)
        }
        let result: SpatialEditResult
        let line = ProgressLine("rewriting")
        do {
            result = try SpatialVideoEditor.edit(path: file, output: output, inPlace: inPlace, edit: edit, faststart: faststart, progress: line.update)
            line.end()
        } catch {
            line.end()
            throw failure("spatial-media edit", file: file, error, outputs: [output])
        }
        if json {
            print(result.json.serialized(pretty: true))
        }
        for c in result.changes { printErr("changed: \(c)") }
        for w in result.warnings { printErr("warning: \(w)") }
        printErr("\(result.strategy.rawValue): wrote \(result.bytesWritten) bytes to \(result.outputPath) (file size \(result.outputSize))")
    }
}
