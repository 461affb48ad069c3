import ArgumentParser
import BinaryIO
import SpatialOperations

/// `spatial-media align PHOTO -o OUT`: rectifies an existing spatial photo.
struct Align: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Rectify an existing spatial photo: warp the right eye onto the left (vertical offset, roll, focal scale, keystone), crop both eyes to the common area around the centre, and write a new spatial photo.",
        discussion: """
            The baseline and disparity adjustment of PHOTO are kept (or the disparity adjustment is measured with \
            --auto-disparity); the field of view is updated for the crop. Before/after figures are printed. A pair \
            that cannot be measured reliably, or that would not improve, is written unchanged in geometry.
            """
    )
    @Argument(help: "A spatial photo (stereo HEIC).") var photo: String
    @Option(name: .shortAndLong, help: "Output .heic file.") var output: String
    @Flag(help: "Also set the disparity adjustment from the measured disparity.") var autoDisparity = false
    @Option(help: "HEVC quality 0…100 (default \(AlignRequest.defaultText("quality"))).") var quality: Int?
    @Flag(help: "Print the report as JSON.") var json = false

    func run() throws {
        var r = AlignRequest(photo: photo, output: output)
        r.autoDisparity = autoDisparity
        r.quality = quality
        try runAndPrint("spatial-media align", file: photo, outputs: [output], json: json) { () throws(ParseError) in
            try Operations.align(r, spelling: .flag)
        }
    }
}
