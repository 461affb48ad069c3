import ArgumentParser
import BinaryIO
import ISOBMFF
import SpatialMedia
import SpatialOperations
import SystemSupport

/// `spatial-media fix`: safe repairs of the commonest breakages, each listed, nothing else touched.
struct Fix: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Repair common breakages of a movie without re-encoding: hev1 → hvc1, moov before mdat, missing hero/hfov.",
        discussion: """
            hev1 → hvc1 moves the parameter sets (VPS/SPS/PPS) from the samples into hvcC/lhvC when they never change \
            within the stream (otherwise the entry is kept and the reason printed). moov is moved before mdat. A stereo \
            track with vexu but no hero eye gets one (the base layer's eye, or --hero); a rectilinear stereo track without hfov gets \
            --hfov when given. Every repair is listed; sample data of other tracks and every other box are kept. \
            Exit code 0 when nothing is left to repair, 1 when something could not be repaired, 2 when the input \
            cannot be read or is not a movie.
            """)

    @Argument(help: "The movie to repair.") var file: String
    @Option(name: .shortAndLong, help: "Output file (written atomically).") var output: String?
    @Flag(help: "Repair the input file itself (atomic rewrite).") var inPlace = false
    @Option(parsing: .unconditional, help: "Horizontal field of view in degrees to add where a stereo track has none.")
    var hfov: Double?
    @Option(
        help:
            "Hero eye to add where a stereo track has none: left or right (default \(FixRequest.defaultText("hero_eye")))."
    )
    var hero: String?
    @Flag(help: "Print JSON to standard output.") var json = false

    func validate() throws {
        if output == nil && !inPlace { throw ValidationError("give -o OUT or --in-place") }
        if output != nil && inPlace { throw ValidationError("-o and --in-place exclude each other") }
    }

    func run() throws {
        let report = try runOperation("spatial-media fix", file: file, outputs: [output]) { () throws(ParseError) in
            var r = FixRequest(path: file, output: output)
            r.hfovDegrees = hfov
            r.heroEye = try FixRequest.choiceValue("hero_eye", hero, .flag)
            return try Operations.fix(r, spelling: .flag)
        }
        if json { print(report.json.serialized(pretty: true)) }
        for l in report.lines { printErr(l) }
        printErr(report.headline)
        if !report.outputs.isEmpty { printErr(report.check.line) }
        if case .array(let left)? = report.fields.first(where: { $0.0 == "not_repaired" })?.1, !left.isEmpty {
            throw ExitCode(Exit.problems)
        }
    }
}
