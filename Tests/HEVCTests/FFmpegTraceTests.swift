import BinaryIO
import Foundation
import TestSupport
import Testing

@testable import HEVC

/// Compares fields we parse with FFmpeg's own bitstream reader (`-bsf:v trace_headers`; FFmpeg ≥ 7.1 as the product
/// finds it, which `scripts/setup.sh` installs). FFmpeg traces parameter sets of both layers, SEI and the base
/// layer's slice headers.
enum FFmpegOracle {
    static var packageRoot: String { TestPaths.packageRoot }
    static var ffmpeg: String? { TestPrograms.ffmpeg }

    static func run(_ args: [String]) throws -> String {
        try Run.program(try TestPrograms.requireFFmpeg(), args).err
    }

    /// (syntax element name, value) pairs in the order FFmpeg traced them.
    static func trace(_ path: String) throws -> [(String, Int)] {
        let text = try run(["-hide_banner", "-i", path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"])
        var out: [(String, Int)] = []
        for line in text.split(separator: "\n") where line.contains("[trace_headers") {
            let parts = line.split(separator: " ", omittingEmptySubsequences: true)
            if line.contains("Slice Segment Header") { out.append(("SLICE", 0)); continue }
            guard parts.count >= 6, let v = Int(parts[parts.count - 1]), parts[parts.count - 2] == "=" else { continue }
            out.append((String(parts[4]), v))
        }
        return out
    }
}

@Suite("HEVC fields versus FFmpeg 9 trace_headers")
struct FFmpegTraceTests {
    static let fixtures = [
        "fixtures/mvhevc_96x64_6f.hevc", "fixtures/x265mv_320x240_30f.hevc", "corpus/mvhevc-bitstreams/B022.265",
    ]

    @Test(
        .needs(
            .shared(
                "fixtures/mvhevc_96x64_6f.hevc", "fixtures/x265mv_320x240_30f.hevc", "corpus/mvhevc-bitstreams/B022.265"
            )),
        arguments: fixtures)
    func sameFieldsAsFFmpeg(_ rel: String) throws {
        let path = TestPaths.sharedPath(rel)
        let src = try FileSource(path: path)
        let bytes = try src.read(at: 0, count: Int(src.size))
        let trace = try FFmpegOracle.trace(path)
        try #require(!trace.isEmpty)
        let nals = try AnnexB.split(bytes)
        let analysis = StreamAnalysis(accessUnits: AccessUnits.group(nals))
        // Width/height of every SPS FFmpeg traced (base-layer form) against ours.
        let ffWidths = trace.filter { $0.0 == "pic_width_in_luma_samples" }.map(\.1)
        let ourWidths = nals.filter { $0.header.type.rawValue == 33 }.compactMap { try? SequenceParameterSet(nal: $0) }
            .filter { !$0.isMultiLayerExtension }.map { Int($0.picWidthInLumaSamples) }
        // FFmpeg traces the parameter sets of the first packet twice (as extradata, then in band): compare
        // the in-band part, its last entries.
        #expect(!ffWidths.isEmpty)
        #expect(Array(ffWidths.suffix(ourWidths.count)) == ourWidths)
        // PPS ids and extra slice header bits, both layers.
        let ffPPS = trace.filter { $0.0 == "pps_pic_parameter_set_id" }.map(\.1)
        let ourPPS = nals.filter { $0.header.type.rawValue == 34 }.compactMap { try? PictureParameterSet(nal: $0) }.map
        { Int($0.ppsId) }
        #expect(Array(ffPPS.suffix(ourPPS.count)) == ourPPS)
        let ffExtra = trace.filter { $0.0 == "num_extra_slice_header_bits" }.map(\.1)
        let ourExtra = nals.filter { $0.header.type.rawValue == 34 }.compactMap { try? PictureParameterSet(nal: $0) }
            .map { Int($0.numExtraSliceHeaderBits) }
        #expect(Array(ffExtra.suffix(ourExtra.count)) == ourExtra)
        // Base-layer slice headers: slice type and POC LSB, in order.
        var ffSlices: [(type: Int, poc: Int?)] = []
        for (i, (name, _)) in trace.enumerated() where name == "SLICE" {
            var type = -1, poc: Int? = nil
            var j = i + 1
            while j < trace.count && trace[j].0 != "SLICE" {
                if trace[j].0 == "slice_type" && type < 0 { type = trace[j].1 }
                if trace[j].0 == "slice_pic_order_cnt_lsb" && poc == nil { poc = trace[j].1 }
                j += 1
            }
            ffSlices.append((type, poc))
        }
        let ours = analysis.records.filter { $0.layerId == 0 && $0.type < 32 && $0.sliceType != nil }
        let typeNumber = ["B": 0, "P": 1, "I": 2]
        #expect(ffSlices.count == ours.count)
        for (f, o) in zip(ffSlices, ours) {
            #expect(f.type == typeNumber[o.sliceType ?? ""])
            if let p = f.poc { #expect(UInt32(p) == o.pocLsb) }
        }
        // SEI 176 view ids.
        if let l = trace.first(where: { $0.0 == "left_view_id[0]" })?.1,
            let r = trace.first(where: { $0.0 == "right_view_id[0]" })?.1
        {
            let info = HEVCStreamInfo(analysis: analysis)
            #expect(info.leftViewId == l && info.rightViewId == r)
        }
    }
}
