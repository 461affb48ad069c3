import ArgumentParser
import BinaryIO
import Codecs
import SpatialConvert
import SpatialMedia

/// `spatial-media convert`: side-by-side / top-bottom images, MPO files and left/right pairs → spatial photo.
struct ConvertPhoto: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "convert",
        abstract: "Convert a stereo image (SBS/TB JPEG, PNG or HEIC, an MPO file, or --left/--right files) to a spatial photo (stereo HEIC).",
        discussion: """
        Defaults, printed with every conversion so a guess is never mistaken for a measurement: \
        baseline = MPO BaselineLength when present, else 64 mm; horizontal field of view = from EXIF \
        (FocalLengthIn35mmFilm, or FocalLength with FocalPlaneXResolution) when present, else 60°; \
        disparity adjustment 0 %; layout auto = side-by-side when the image is at least as wide as tall; \
        quality 80 (x265 CRF 16). An odd SBS width drops the middle column. EXIF of the source is kept.
        """
    )
    @Argument(help: "A stereo image holding both eyes, or an MPO file.") var input: String?
    @Option(name: .shortAndLong, help: "Output .heic file.") var output: String
    @Option(help: "Left-eye image (with --right, instead of INPUT).") var left: String?
    @Option(help: "Right-eye image.") var right: String?
    @Option(help: "Camera baseline in millimetres.") var baseline: Double?
    @Option(help: "Horizontal field of view in degrees.") var hfov: Double?
    @Option(help: "Horizontal disparity adjustment in percent of the image width (e.g. 2.93).") var disparity: Double?
    @Option(help: "Layout of INPUT: sbs, tb or auto.") var layout: String = "auto"
    @Flag(help: "Each eye is squeezed to half width (SBS) or half height (TB); stretch it back.") var half = false
    @Flag(help: "The left half/top/first image is the right eye.") var swapEyes = false
    @Option(help: "HEVC quality 0…100 (default 80).") var quality: Int = PhotoEncoding.defaultQuality
    @Option(help: "Coded bit depth: 8 (default) or 10.") var bitDepth: Int = 8
    @Option(help: "Camera property form: apple (uuid boxes), standard (cmin/cmex) or both.") var form: String = "apple"
    @Flag(help: "Print the report as JSON.") var json = false

    func validate() throws {
        if input == nil && (left == nil || right == nil) { throw ValidationError("give INPUT, or both --left and --right") }
        if input != nil && (left != nil || right != nil) { throw ValidationError("give INPUT or --left/--right, not both") }
        if StereoLayout(rawValue: layout) == nil { throw ValidationError("--layout must be sbs, tb or auto") }
        if bitDepth != 8 && bitDepth != 10 { throw ValidationError("--bit-depth must be 8 or 10") }
        if !(0...100).contains(quality) { throw ValidationError("--quality must be between 0 and 100") }
        if CameraPropertyForm(rawValue: form) == nil { throw ValidationError("--form must be one of \(CameraPropertyForm.allCases.map(\.rawValue).joined(separator: ", "))") }
    }

    func run() throws {
        var o = PhotoConversionOptions()
        o.layout = StereoLayout(rawValue: layout) ?? .auto
        o.halfResolution = half
        o.swapEyes = swapEyes
        o.baselineMM = baseline; o.hfovDegrees = hfov; o.disparityPercent = disparity
        o.quality = quality
        o.bitDepth = bitDepth
        o.form = CameraPropertyForm(rawValue: form) ?? .apple
        if let e = perform(o) {
            printErr("spatial-media: \(e.path.isEmpty ? (input ?? "") : e.path): \(e.message) [\(e.code)]")
            throw ExitCode(Exit.unreadable)
        }
    }

    func perform(_ o: PhotoConversionOptions) -> ParseError? {
        do throws(ParseError) {
            let pair: StereoPair
            if let input { pair = try PhotoConverter.loadPair(input: input, options: o) }
            else { pair = try PhotoConverter.loadPair(left: left ?? "", right: right ?? "", options: o) }
            let report = try PhotoConverter.convert(pair, options: o, to: output)
            if json {
                let j = JSON.object([
                    ("output", .string(output)), ("source", .string(pair.sourceDescription)),
                    ("width", .uint(UInt64(report.width))), ("height", .uint(UInt64(report.height))),
                    ("baseline_mm", .double(report.baselineMM)), ("baseline_source", .string(report.baselineSource)),
                    ("hfov_degrees", .double(report.hfovDegrees)), ("hfov_source", .string(report.hfovSource)),
                    ("disparity_percent", .double(report.disparityPercent)), ("disparity_source", .string(report.disparitySource)),
                    ("quality", .uint(UInt64(report.quality))), ("bytes", .uint(UInt64(report.bytes))),
                    ("notes", .array(report.notes.map { .string($0) })),
                ])
                print(j.serialized(pretty: true))
            } else {
                print("\(output): spatial photo from \(pair.sourceDescription), \(report.bytes) bytes")
                for l in report.lines { print("  \(l)") }
            }
            return nil
        } catch {
            return error
        }
    }
}

/// `spatial-media split`: a spatial photo → two images or one side-by-side image.
struct SplitPhoto: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Write the two eyes of a spatial photo as images (.png, .jpg or .heic by extension), or one side-by-side image.",
        discussion: "PNG keeps 10-bit sources as 16-bit; JPEG output is 8-bit (quality 95 unless --quality)."
    )
    @Argument(help: "A spatial photo (stereo HEIC with a 'ster' group).") var photo: String
    @Option(help: "Left-eye output.") var left: String?
    @Option(help: "Right-eye output.") var right: String?
    @Option(help: "Side-by-side output (left eye on the left).") var sbs: String?
    @Option(help: "JPEG (1…100) or HEIC (0…100) quality.") var quality: Int?

    func validate() throws {
        if left == nil && right == nil && sbs == nil { throw ValidationError("give --left/--right and/or --sbs") }
    }

    func run() throws {
        let result: ParseError?
        do throws(ParseError) {
            try PhotoSplitter.split(photo, left: left, right: right, sbs: sbs, quality: quality)
            result = nil
        } catch { result = error }
        if let e = result {
            printErr("spatial-media: \(e.path.isEmpty ? photo : e.path): \(e.message) [\(e.code)]")
            throw ExitCode(Exit.unreadable)
        }
        for p in [left, right, sbs].compactMap({ $0 }) { print("wrote \(p)") }
    }
}
