import BinaryIO
import Foundation
import TestSupport
import Testing

@testable import HEVC

/// Test streams made with the x265 CLI from small synthetic Y4M clips (skipped when x265 is absent).
enum X265Clips {
    static var x265: String? { TestMedia.x265 }
    static var available: Bool { TestMedia.x265 != nil }
    static func y4m(width: Int, height: Int, frames: Int, shift: Int) -> [UInt8] {
        TestMedia.y4m(width: width, height: height, frames: frames, shift: shift, fps: 25)
    }

    /// Encodes a clip; `extra` adds x265 options. Returns the Annex B bytes.
    static func encode(_ y4m: [UInt8], in dir: URL, name: String, extra: [String]) throws -> [UInt8] {
        [UInt8](
            try Data(
                contentsOf: URL(fileURLWithPath: try TestMedia.x265Encode(y4m, dir: dir.path, name: name, extra: extra))
            ))
    }

    static func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("mvhevc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    /// Left/right pair: 128×96, `frames` frames, keyint 4, `bframes` B-frames.
    static func pair(
        frames: Int = 8, bframes: Int = 2, keyint: Int = 4, rightExtra: [String] = [], rightFrames: Int? = nil,
        rightSize: (Int, Int)? = nil
    ) throws -> (left: [UInt8], right: [UInt8], dir: URL) {
        let dir = try tempDir()
        let gop = ["--keyint", "\(keyint)", "--min-keyint", "\(keyint)", "--bframes", "\(bframes)", "--b-adapt", "0"]
        let l = try encode(
            TestMedia.y4m(width: 128, height: 96, frames: frames, shift: 0, fps: 25), in: dir, name: "left", extra: gop)
        let rs = rightSize ?? (128, 96)
        let r = try encode(
            TestMedia.y4m(width: rs.0, height: rs.1, frames: rightFrames ?? frames, shift: 6, fps: 25), in: dir,
            name: "right", extra: gop + rightExtra)
        return (l, r, dir)
    }
}

/// nil when equal, else "at byte i: a… vs b…" with a few bytes of context.
func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String? {
    if a == b { return nil }
    let i = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
    return
        "sizes \(a.count) vs \(b.count), first difference at byte \(i): \(Array(a[i..<min(a.count, i + 12)])) vs \(Array(b[i..<min(b.count, i + 12)])); before: \(Array(a[max(0, i - 8)..<i]))"
}

@Suite struct MVHEVCAssemblyTests {
    @Test func assemblesTwoLayers() throws {
        let (l, r, dir) = try X265Clips.pair()
        defer {
            if ProcessInfo.processInfo.environment["MVHEVC_KEEP"] == nil {
                try? FileManager.default.removeItem(at: dir)
            } else {
                print("kept", dir.path)
            }
        }
        for form in LayerSPSForm.allCases {
            let mv = try MVHEVCAssembler.assemble(
                base: l, second: r, options: MVHEVCAssemblyOptions(layerSPSForm: form))
            let annexB = mv.annexB()
            #expect(try SEIMessageList(nal: mv.sei).messages.map(\.payload) == [[0x04, 0x0D, 0x00, 0x20]])
            try Data(annexB).write(to: dir.appendingPathComponent("mv-\(form).hevc"))
            let info = try HEVCStreamInfo(annexB: annexB)
            #expect(info.errors.isEmpty, "\(info.errors)")
            #expect(info.layerCount == 2)
            #expect(info.accessUnitCount == 8)
            #expect(info.leftViewId == 0 && info.rightViewId == 1)
            let l1 = try #require(info.layers.first { $0.layerId == 1 })
            #expect(l1.usesInterLayerPrediction == false)
            if form == .multilayer { #expect(l1.profileName == "Multiview Main") }
            #expect(l1.pictureCount == 8)
            #expect(l1.directReferenceLayers == [0])
            print("form \(form):", info.descriptionLines().joined(separator: "\n"))
        }
    }

    /// assemble → split gives back both inputs byte for byte (full SPS form); the multilayer form gives streams
    /// that parse and keep every slice.
    @Test func splitRoundTripIsBitExact() throws {
        let (l, r, dir) = try X265Clips.pair()
        defer { try? FileManager.default.removeItem(at: dir) }
        let mv = try MVHEVCAssembler.assemble(base: l, second: r)
        let back = try MVHEVCSplitter.split(annexB: mv.annexB(repeatParameterSets: false))
        #expect(back.baseIsLeft)
        #expect(firstDifference(back.left, l) == nil)
        #expect(firstDifference(back.right, r) == nil)
        let mv7 = try MVHEVCAssembler.assemble(
            base: l, second: r, options: MVHEVCAssemblyOptions(layerSPSForm: .multilayer))
        let back7 = try MVHEVCSplitter.split(annexB: mv7.annexB())
        #expect(firstDifference(back7.left, l) == nil)
        let info = try HEVCStreamInfo(annexB: back7.right)
        #expect(info.errors.isEmpty && info.layerCount == 1 && info.accessUnitCount == 8)
        // Right eye as the base layer.
        let swapped = try MVHEVCAssembler.assemble(
            base: r, second: l, options: MVHEVCAssemblyOptions(baseIsLeft: false))
        let sInfo = try HEVCStreamInfo(annexB: swapped.annexB())
        #expect(sInfo.leftViewId == 1 && sInfo.rightViewId == 0)
        let sBack = try MVHEVCSplitter.split(annexB: swapped.annexB(repeatParameterSets: false))
        #expect(!sBack.baseIsLeft)
        #expect(firstDifference(sBack.left, l) == nil)
        #expect(firstDifference(sBack.right, r) == nil)
    }

    /// Inter-layer-predicted MV-HEVC (x265 multiview fixture) is refused with the FFmpeg hint.
    @Test(.needs(.sharedMedia)) func splitRefusesInterLayerPrediction() throws {
        let b = try #require(Shared.bytes(Shared.root.appendingPathComponent("fixtures/mvhevc_96x64_6f.hevc")))
        do {
            _ = try MVHEVCSplitter.split(annexB: b)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .unsupported)
            #expect(error.message.contains("FFmpeg 7.1"))
        }
    }

    @Test func mismatchedInputsAreRefused() throws {
        func expectError(_ l: [UInt8], _ r: [UInt8], _ text: String, sourceLocation: SourceLocation = #_sourceLocation)
        {
            do {
                _ = try MVHEVCAssembler.assemble(base: l, second: r)
                Issue.record("expected an error containing \(text)", sourceLocation: sourceLocation)
            } catch {
                #expect(
                    text.isEmpty || error.message.contains(text), "\(error.message)", sourceLocation: sourceLocation)
            }
        }
        let (l, r, dir) = try X265Clips.pair(frames: 8)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fewer = try X265Clips.pair(frames: 8, rightFrames: 6)
        defer { try? FileManager.default.removeItem(at: fewer.dir) }
        expectError(l, fewer.right, "frame counts")
        let gop = try X265Clips.pair(frames: 8, rightExtra: ["--keyint", "8", "--min-keyint", "8"])
        defer { try? FileManager.default.removeItem(at: gop.dir) }
        expectError(l, gop.right, "random access points are not aligned")
        let noB = try X265Clips.pair(frames: 8, rightExtra: ["--bframes", "0"])
        defer { try? FileManager.default.removeItem(at: noB.dir) }
        expectError(l, noB.right, "picture order counts differ")
        let size = try X265Clips.pair(frames: 8, rightSize: (160, 96))
        defer { try? FileManager.default.removeItem(at: size.dir) }
        expectError(l, size.right, "different picture sizes")
        let deep = try X265Clips.pair(frames: 8, rightExtra: ["--output-depth", "10", "--profile", "main10"])
        defer { try? FileManager.default.removeItem(at: deep.dir) }
        expectError(l, deep.right, "different bit depths")
        expectError(l, [], "empty")
        expectError(l, [1, 2, 3, 4], "start code")
        expectError(l, Array(r.prefix(r.count / 3)), "")
        // Truncated and garbled second streams never crash (an error or, for a clean cut, a shorter stream → frame
        // counts).
        for cut in stride(from: 5, to: r.count, by: max(1, r.count / 25)) {
            _ = try? MVHEVCAssembler.assemble(base: l, second: Array(r.prefix(cut)))
            var g = r
            g[cut] ^= 0x5A
            _ = try? MVHEVCAssembler.assemble(base: l, second: g)
        }
        _ = r
    }
}
