import BinaryIO
import Foundation
import TestSupport
import Testing

@testable import HEVC

/// Issue 30: the layer-1 SPS we write carries no `video_signal_type_present_flag` (the VPS VUI describes every layer;
/// HTM asserts on it), in both SPS forms, and the splitter puts the description back into the single-layer stream.
@Suite struct Layer1SPSVUITests {
    static let colour = ["--colorprim", "bt709", "--transfer", "bt709", "--colormatrix", "bt709", "--range", "limited"]

    @Test(arguments: LayerSPSForm.allCases)
    func layer1SPSHasNoVideoSignalType(form: LayerSPSForm) throws {
        let dir = try X265Clips.tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gop = ["--keyint", "4", "--min-keyint", "4", "--bframes", "2", "--b-adapt", "0"] + Self.colour
        let l = try X265Clips.encode(
            X265Clips.y4m(width: 128, height: 96, frames: 8, shift: 0), in: dir, name: "l", extra: gop)
        let r = try X265Clips.encode(
            X265Clips.y4m(width: 128, height: 96, frames: 8, shift: 6), in: dir, name: "r", extra: gop)
        // The inputs' SPS do say BT.709 limited range (what the fix removes from layer 1).
        let rightSPS = try #require(try AnnexB.split(r).first { $0.type == .sps })
        let single = try SequenceParameterSet(nal: rightSPS)
        #expect(single.vuiPresent && single.vui.videoSignalTypePresent && single.vui.colourPrimaries == 1)

        let mv = try MVHEVCAssembler.assemble(base: l, second: r, options: MVHEVCAssemblyOptions(layerSPSForm: form))
        let vps = mv.videoParameterSet
        let layer1 = try #require(mv.layerSPS.first)
        #expect(layer1.header.layerId == 1)
        let sps = try SequenceParameterSet(nal: layer1, vps: vps)
        #expect(sps.vuiPresent, "the VUI itself (timing) stays")
        #expect(!sps.vui.videoSignalTypePresent, "layer-1 SPS \(form): video_signal_type_present_flag must be 0")
        #expect(!sps.vui.colourDescriptionPresent)
        // The colour description is in the VPS VUI.
        let info = try #require(vps.videoSignalInfo(layerId: 1))
        #expect(
            info.colourPrimaries == 1 && info.transferCharacteristics == 1 && info.matrixCoeffs == 1
                && !info.videoFullRange)
        // The split right eye states its colours again: identical to x265's stream in the full form.
        let back = try MVHEVCSplitter.split(annexB: mv.annexB(repeatParameterSets: false))
        let backSPS = try SequenceParameterSet(
            nal: try #require(try AnnexB.split(back.right).first { $0.type == .sps }))
        #expect(backSPS.vui.videoSignalTypePresent && backSPS.vui.colourPrimaries == 1 && backSPS.vui.matrixCoeffs == 1)
        if form == .full { #expect(firstDifference(back.right, r) == nil) }
    }
}
