import Foundation
import TestSupport
import Testing

extension ClosureMatrixTests {
    /// Every written movie and HEIC of the matrix read back by independent readers: FFmpeg 9's "Stereo 3D" /
    /// "Spherical Mapping" side data and "(multilayer)" mark against `info --json`, libheif's `ster` group, image
    /// sizes and camera intrinsics (Tests/Oracles/heif_oracle.py) against `validate --json`.
    @Test(
        .needs(sharedNeeds, .oracles(importing: "pillow_heif")), arguments: cells.filter { $0.exit == 0 && !$0.heavy })
    func oraclesReadTheSameStereoFacts(_ cell: Cell) throws {
        let inputs = try Inputs.shared.get()
        let dir = try CLI.tempDir("matrix-oracle")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try CLI.run(inputs.expand(cell.args, cell.input), cwd: dir)
        try #require(r.status == 0, "\(r.err.suffix(300))")
        let input = inputs.path(cell.input)
        let keepsEyes =
            ["split", "edit", "fix"].contains(cell.job) && (input.hasSuffix(".mov") || input.hasSuffix(".mp4"))
        for out in try Self.outputs(dir) {
            let path = dir + "/" + out
            if out.hasSuffix(".mov") || out.hasSuffix(".mp4") { try Self.checkMovie(path) }
            if keepsEyes, out.hasSuffix(".mov") || out.hasSuffix(".mp4") { try Self.checkKept(from: input, to: path) }
            if out.hasSuffix(".heic") { try Self.checkHEIC(path) }
            if out.hasSuffix(".heic"), input.lowercased().hasSuffix(".heic"), cell.job != "align" {
                let before = try Self.libheifFOVs(input)
                let expected =
                    out.hasPrefix("l.")
                    ? Array(before.prefix(1)) : out.hasPrefix("r.") ? Array(before.suffix(1)) : before
                let after = try Self.libheifFOVs(path)
                #expect(
                    after == expected,
                    "\(out): libheif reads the eyes' fields of view \(after), the input's \(expected)")
            }
        }
    }

    /// FFmpeg's reading of the first video stream: the stream line and its side-data lines.
    static func ffmpegVideo(_ path: String) throws -> (stream: String, stereo: String?, spherical: String?) {
        let err = try Run.program(try TestPrograms.requireFFmpeg(), ["-hide_banner", "-i", path]).err
        let lines = err.split(separator: "\n").map(String.init)
        let start = try #require(
            lines.firstIndex { $0.contains("Stream #") && $0.contains("Video:") },
            "\(path): FFmpeg sees no video stream")
        let rest = lines[(start + 1)...].prefix { !$0.contains("Stream #") }
        func after(_ key: String) -> String? {
            rest.lazy.compactMap { l in
                l.range(of: key).map { String(l[$0.upperBound...]).trimmingCharacters(in: .whitespaces) }
            }.first
        }
        return (lines[start], after("Stereo 3D:"), after("Spherical Mapping:"))
    }

    /// A job that keeps each eye's picture (a frame-packed split, an edit, a repair) keeps what FFmpeg reads as the
    /// eyes' field of view and the primary eye: the same stereo facts before and after (a 2D eye has none).
    static func checkKept(from input: String, to output: String) throws {
        let before = try ffmpegVideo(input).stereo, after = try ffmpegVideo(output).stereo
        if let after {
            let hfov = field(before, "horizontal_field_of_view")
            #expect(
                hfov == nil || field(after, "horizontal_field_of_view") == hfov,
                "\(output): FFmpeg reads field of view \(hfov ?? "-") in the input, \(after) in the output")
            let eye = field(before, "primary eye")
            #expect(
                eye == nil || eye == "none" || field(after, "primary eye") == eye,
                "\(output): primary eye \(eye ?? "-") in the input, \(after) in the output")
        }
    }

    /// A field of FFmpeg's Stereo 3D line ("primary eye: left, baseline: 65000, …").
    static func field(_ line: String?, _ name: String) -> String? {
        guard let line else { return nil }
        return line.components(separatedBy: ", ").first { $0.hasPrefix(name + ": ") }.map {
            String($0.dropFirst(name.count + 2))
        }
    }

    static func checkMovie(_ path: String) throws {
        let ff = try ffmpegVideo(path)
        let info =
            try JSONSerialization.jsonObject(with: Data(try CLI.run(["info", "--json", path]).out.utf8))
            as? [String: Any]
        let sv = info?["spatial_video"] as? [String: Any]
        let t = try #require(
            (sv?["video_tracks"] as? [[String: Any]])?.first, "\(path): info --json has no video track")
        let boxes = t["boxes_present"] as? [String] ?? []
        #expect(
            (t["mv_hevc"] as? Bool ?? false) == ff.stream.contains("(multilayer)"),
            "\(path): MV-HEVC by info \(t["mv_hevc"] ?? "nil"), FFmpeg: \(ff.stream)")
        #expect(
            (boxes.contains("vexu") || boxes.contains("st3d")) == (ff.stereo != nil),
            "\(path): stereo boxes \(boxes), FFmpeg: \(ff.stereo ?? "no Stereo 3D")")
        guard let stereo = ff.stereo else { return }  // lint: not a skip — a 2D movie has no stereo facts to compare
        #expect(
            field(stereo, "primary eye") == (t["hero_eye"] as? String ?? "none"),
            "\(path): hero \(t["hero_eye"] ?? "none"), FFmpeg: \(stereo)")
        #expect(
            field(stereo, "baseline").flatMap { Int($0) } == (t["baseline_um"] as? Int),
            "\(path): baseline \(t["baseline_um"] ?? "nil") µm, FFmpeg: \(stereo)")
        let hfov = field(stereo, "horizontal_field_of_view").flatMap { Double($0) }, ours = t["hfov_degrees"] as? Double
        #expect(
            (hfov == nil) == (ours == nil) && abs((hfov ?? 0) - (ours ?? 0)) < 0.001,
            "\(path): hfov \(ours ?? -1), FFmpeg: \(stereo)")
        let dadj = field(stereo, "horizontal_disparity_adjustment").flatMap { Double($0) } ?? 0
        #expect(
            abs(dadj * 10_000 - Double(t["disparity_adjustment"] as? Int ?? 0)) < 0.5,
            "\(path): disparity \(t["disparity_adjustment"] ?? 0), FFmpeg: \(stereo)")
        let packing = ["side": "side by side", "over": "top and bottom"][t["view_packing"] as? String ?? ""]
        if let packing { #expect(stereo.hasPrefix(packing), "\(path): packing \(packing), FFmpeg: \(stereo)") }
        let projection = ["equi": "equirectangular", "hequ": "half equirectangular", "rect": "rectilinear"][
            t["projection"] as? String ?? ""]
        if let projection, t["projection_box_present"] as? Bool == true || t["projection"] as? String != "rect" {
            #expect(
                ff.spherical?.hasPrefix(projection) == true,
                "\(path): projection \(projection), FFmpeg: \(ff.spherical ?? "none")")
        }
    }

    /// The field of view (degrees, to 1/1000) libheif computes from each eye's camera intrinsics, in the `ster`
    /// group's order (every image when there is none); nil for an image without intrinsics.
    static func libheifFOVs(_ path: String) throws -> [Double?] {
        let lib = try Oracle.object("Tests/Oracles/heif_oracle.py", [path, "--no-decode"])
        let images = lib["images"] as? [[String: Any]] ?? []
        let ster =
            (lib["entity_groups"] as? [[String: Any]] ?? []).first { $0["type"] as? String == "ster" }?["entities"]
            as? [Int]
        let ordered = ster.map { ids in ids.compactMap { id in images.first { $0["id"] as? Int == id } } } ?? images
        return ordered.map { image in
            guard let fx = (image["intrinsics"] as? [String: Any])?["fx"] as? Double, let w = image["width"] as? Int,
                fx > 0
            else { return nil }
            return (2 * atan(Double(w) / 2 / fx) * 180 / .pi * 1000).rounded() / 1000
        }
    }

    static func checkHEIC(_ path: String) throws {
        let lib = try Oracle.object("Tests/Oracles/heif_oracle.py", [path, "--no-decode"])
        #expect(lib["error"] == nil, "\(path): libheif cannot read it: \(lib["error"] ?? "")")
        let ours =
            try JSONSerialization.jsonObject(
                with: Data(try CLI.run(["validate", "--json", "--no-pixels", path]).out.utf8)) as? [String: Any]
        let meta = ours?["metadata"] as? [String: Any] ?? [:]
        let groups = (lib["entity_groups"] as? [[String: Any]] ?? []).filter { $0["type"] as? String == "ster" }
        guard let left = meta["left_item"] as? Int, let right = meta["right_item"] as? Int else {
            #expect(groups.isEmpty, "\(path): libheif sees a ster group \(groups), validate no eyes")
            return  // lint: not a skip — an ordinary HEIC (a split eye) has no stereo facts beyond that
        }
        #expect(
            groups.contains { ($0["entities"] as? [Int]) == [left, right] },
            "\(path): eyes \(left), \(right); libheif groups \(groups)")
        let images = lib["images"] as? [[String: Any]] ?? []
        for id in [left, right] {
            let image = images.first { $0["id"] as? Int == id }
            #expect(
                image.map { "\($0["width"] ?? 0)x\($0["height"] ?? 0)" } == meta["size"] as? String,
                "\(path): item \(id) \(image ?? [:]) vs \(meta["size"] ?? "")")
            if let fx = (image?["intrinsics"] as? [String: Any])?["fx"] as? Double, let w = image?["width"] as? Int,
                let hfov = meta["hfov_degrees"] as? Double
            {
                let libHFOV = 2 * atan(Double(w) / 2 / fx) * 180 / .pi
                #expect(
                    abs(libHFOV - hfov) < 0.05, "\(path): item \(id) hfov \(hfov)° vs libheif's intrinsics \(libHFOV)°")
            }
        }
    }
}
