import BinaryIO
import Foundation
import TestSupport
import Testing

@testable import SpatialMedia

/// After an edit, independent programs see exactly the new values and unchanged pictures: FFmpeg 9 prints
/// the spatial metadata and decodes both views to the same frames; libmediainfo still reports Multiview Main
/// with 2 views. Runs only where the oracle environment (`.venv-oracles`, Benchmarks/oracles.sh) exists.
@Suite("Spatial video edits seen by FFmpeg 9 and libmediainfo")
struct EditOracleTests {
    static let inputs = [Shared.apple, Shared.x265, Shared.small]

    @Test(.needs(.oracles, .sharedFiles(Shared.apple, Shared.x265, Shared.small)), arguments: inputs)
    func editIsSeenExactly(_ input: String) throws {
        let dir = try makeTempDir("edit-oracle")
        defer { removeTree(dir) }
        let out = dir + "/edited.mov"
        var e = SpatialVideoEdit()
        e.baselineMicrometres = .set(65500)
        e.horizontalFieldOfViewMillidegrees = .set(70250)
        e.disparityAdjustment = .set(-150)
        e.heroEye = .set(.right)
        e.projectionKind = .set("rect")
        _ = try SpatialVideoEditor.edit(path: input, output: out, inPlace: false, edit: e)

        let j = try Oracle.object("Tests/Oracles/edit_oracle.py", [input, out])
        let lines = (j["ffmpeg_lines"] as? [String]) ?? []
        #expect(
            lines.contains {
                $0.contains(
                    "primary eye: right, baseline: 65500, horizontal_disparity_adjustment: -0.0150, horizontal_field_of_view: 70.250"
                )
            },
            "FFmpeg 9 printed \(lines)")
        #expect(lines.contains { $0.contains("Spherical Mapping: rectilinear") })
        let o = (j["original"] as? [String: Any]) ?? [:], n = (j["edited"] as? [String: Any]) ?? [:]
        for view in ["left", "right"] {
            let a = (o[view] as? [String]) ?? [], b = (n[view] as? [String]) ?? []
            #expect(!a.isEmpty && !(a.first ?? "").hasPrefix("error"), "\(view) view did not decode: \(a.prefix(1))")
            #expect(a == b, "\(view) view frames changed")
        }
        #expect((o["audio"] as? [String]) == (n["audio"] as? [String]))
        let mi = (j["mediainfo"] as? [String: Any]) ?? [:]
        #expect((mi["format_profile"] as? String)?.contains("Multiview Main") == true, "mediainfo: \(mi)")
        #expect("\(mi["count_of_views"] ?? "")" == "2")
    }
}
