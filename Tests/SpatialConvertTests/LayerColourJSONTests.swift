import Foundation
import SpatialConvert
import SpatialMedia
import TestSupport
import Testing

/// Issue 40 item 4: `info --json` gives each layer's bit depth, chroma format and colour description (code points,
/// range, and whether the SPS VUI or the VPS VUI states it), as the text does; the output matches
/// Specs/schemas/info.v1.schema.json.
@Suite("info --json: colour and bit depth per layer")
struct LayerColourJSONTests {
    static let jsonschema = Requirement("python3 with the jsonschema module not found") {
        TestPaths.which("python3").map { (try? Run.program($0, ["-c", "import jsonschema"]).status) == 0 } ?? false
    }

    /// The `layers` array of the first HEVC stream of `info --json`.
    static func layers(_ path: String) throws -> [[String: Any]] {
        let text = try MediaInfo.inspect(path: path).json.serialized()
        let root = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let hevc = try #require((root["hevc"] as? [[String: Any]])?.first, "\(text.prefix(400))")
        return try #require(hevc["layers"] as? [[String: Any]])
    }

    @Test func hlg10BitLayersStateTheirColourAndDepth() throws {
        let d = try TestPaths.tempDir("layer-json")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let src = try SDRToneMapTests.source(d, "hlg.mp4", trc: "arib-std-b67")
        let out = d + "/hlg.mov"
        _ = try VideoConverter.convert(.packed(src), to: out, options: HDRColourTests.options())
        let l = try Self.layers(out)
        #expect(l.count == 2)
        for (i, layer) in l.enumerated() {
            #expect(layer["bit_depth_luma"] as? Int == 10 && layer["bit_depth_chroma"] as? Int == 10)
            #expect(layer["chroma_format"] as? String == "4:2:0")
            let c = try #require(layer["colour"] as? [String: Any], "layer \(i): \(layer)")
            #expect(
                c["colour_primaries"] as? Int == 9 && c["transfer_characteristics"] as? Int == 18
                    && c["matrix_coefficients"] as? Int == 9 && c["full_range"] as? Bool == false, "\(c)")
            #expect(c["stated_in"] as? String == (i == 0 ? "sps_vui" : "vps_vui"), "\(c)")
            #expect(c["description"] as? String == "BT.2020/HLG/BT.2020 NCL, limited range")
        }
        // --sdr: both layers 8-bit BT.709.
        var o = HDRColourTests.options()
        o.sdr = true
        let sdr = d + "/sdr.mov"
        _ = try VideoConverter.convert(.packed(src), to: sdr, options: o)
        for layer in try Self.layers(sdr) {
            let c = try #require(layer["colour"] as? [String: Any])
            #expect(layer["bit_depth_luma"] as? Int == 8 && c["transfer_characteristics"] as? Int == 1, "\(layer)")
        }
    }

    /// The JSON of both outputs against the schema (the layer object forbids unknown fields).
    @Test(.needs(jsonschema))
    func layerJSONMatchesTheSchema() throws {
        let d = try TestPaths.tempDir("layer-schema")
        defer { try? FileManager.default.removeItem(atPath: d) }
        let src = try SDRToneMapTests.source(d, "pq.mp4", trc: "smpte2084", masterDisplay: true)
        let out = d + "/pq.mov"
        _ = try VideoConverter.convert(.packed(src), to: out, options: HDRColourTests.options())
        let json = d + "/info.json"
        try MediaInfo.inspect(path: out).json.serialized().write(toFile: json, atomically: true, encoding: .utf8)
        let check =
            "import json, jsonschema, sys\n"
            + "s = json.load(open(sys.argv[1])); d = json.load(open(sys.argv[2]))\n"
            + "e = [x.message for x in jsonschema.Draft202012Validator(s).iter_errors(d)]\n"
            + "print(e[:3]); sys.exit(1 if e else 0)\n"
        let r = try Run.program(
            try #require(TestPaths.which("python3")),
            ["-c", check, TestPaths.package("Specs/schemas/info.v1.schema.json"), json])
        #expect(r.status == 0, "\(r.out) \(r.err)")
    }
}
