import BinaryIO
import Testing

@testable import SpatialConvert

/// How a frame-packed picture is cut into two eyes (one rule for side by side and top-bottom): each eye starts on an
/// even column or row, an odd pixel left over is dropped with a note, and a picture whose eyes would start on an odd
/// column or row is refused with the crop that fixes it.
@Suite struct PackedEyeExtentTests {
    @Test func sideBySideOddSizes() throws {
        var notes: [String] = []
        let e = try VideoConverter.packedEyeExtents(
            split: 641, across: 361, horizontal: true, inputName: "in.y4m", notes: &notes)
        #expect(e.along == 320 && e.across == 360)
        #expect(
            notes == [
                "odd width 641: the last column belongs to neither eye and is dropped",
                "odd height 361: the last row is dropped (4:2:0 needs even sizes)",
            ])
    }

    @Test func topBottomOddSizes() throws {
        var notes: [String] = []
        let e = try VideoConverter.packedEyeExtents(
            split: 721, across: 1281, horizontal: false, inputName: "in.y4m", notes: &notes)
        #expect(e.along == 360 && e.across == 1280)
        #expect(
            notes == [
                "odd height 721: the last row belongs to neither eye and is dropped",
                "odd width 1281: the last column is dropped (4:2:0 needs even sizes)",
            ])
    }

    @Test func eyesOnAnOddColumnOrRowAreRefused() {
        var notes: [String] = []
        #expect(throws: ParseError(.unsupported, "")) {
            try VideoConverter.packedEyeExtents(
                split: 642, across: 360, horizontal: true, inputName: "in.y4m", notes: &notes)
        }
        do {
            _ = try VideoConverter.packedEyeExtents(
                split: 722, across: 1280, horizontal: false, inputName: "in.y4m", notes: &notes)
            Issue.record("a 361-row eye was accepted")
        } catch {
            #expect(
                error.message == "height 722 gives 361-row-high eyes; the bottom eye would start on an odd row, which "
                    + "4:2:0 chroma cannot be split at — is it really top-bottom? If so, crop or scale it to a height that is a "
                    + "multiple of 4 (e.g. ffmpeg -vf crop=iw:720:0:0)")
            #expect(error.path == "in.y4m" && error.offset == nil)
        }
    }
}
