import BinaryIO
import Foundation
import Testing

@testable import HEVC

@Suite struct StreamInfoTests {
    @Test(.needs(.sharedMedia)) func stereoSpatialAnswers() throws {
        let b = try #require(Shared.bytes(Shared.stereoSpatial))
        let m = try #require(MiniMovie(b))
        let info = try HEVCStreamInfo(hvcC: m.hvcC, lhvC: m.lhvC, samples: m.samples)
        print(info.descriptionLines().joined(separator: "\n"))
        #expect(info.errors.isEmpty, "\(info.errors)")
        #expect(info.layerCount == 2)
        #expect(info.layers.map { $0.viewId } == [0, 1])
        #expect(info.leftViewId == 0 && info.rightViewId == 1)
        #expect(info.leftLayerId == 0 && info.rightLayerId == 1)
        #expect(info.layers[1].profileIdc == 6)
        #expect(info.layers[1].profileName == "Multiview Main")
        #expect(info.layers[1].directReferenceLayers == [0])
        #expect(info.layers[1].usesInterLayerPrediction == true)
        #expect(info.profileIdc == 1)
        #expect(info.width == 160 && info.height == 120)
        #expect(info.bitDepthLuma == 8 && info.chromaFormat == "4:2:0")
        #expect(info.accessUnitCount == m.samples.count)
        #expect(info.isMultiview)
    }

    @Test(.needs(.sharedMedia)) func x265FixturesAnswer() throws {
        for name in ["mvhevc_96x64_6f.hevc", "x265mv_320x240_30f.hevc"] {
            let b = try #require(Shared.bytes(Shared.root.appendingPathComponent("fixtures/" + name)))
            let info = try HEVCStreamInfo(annexB: b)
            print(name, info.descriptionLines().joined(separator: "\n"))
            #expect(info.errors.isEmpty, "\(info.errors)")
            #expect(info.layerCount == 2)
            #expect(info.layers.map { $0.viewId } == [0, 1])
            #expect(info.leftViewId == 0 && info.rightViewId == 1)
            #expect(info.layers[1].profileIdc == 6)
            #expect(info.layers[1].directReferenceLayers == [0])
            #expect(info.accessUnitCount == (name.contains("6f") ? 6 : 30))
            #expect(info.layers[0].pictureCount == info.accessUnitCount)
            #expect(info.layers[1].pictureCount == info.accessUnitCount)
            #expect(info.bitDepthLuma == 8)
            #expect(info.width == (name.contains("96x64") ? 96 : 320))
        }
    }

    @Test(.needs(.sharedMedia)) func movieAndAnnexBAgree() throws {
        let hevc = try #require(Shared.bytes(Shared.root.appendingPathComponent("fixtures/x265mv_320x240_30f.hevc")))
        let mov = try #require(
            Shared.bytes(Shared.root.appendingPathComponent("fixtures/x265mv_320x240_30f_spatial.mov")))
        let m = try #require(MiniMovie(mov))
        let a = try HEVCStreamInfo(annexB: hevc)
        let b = try HEVCStreamInfo(hvcC: m.hvcC, lhvC: m.lhvC, samples: m.samples)
        #expect(a.layers.map { $0.viewId } == b.layers.map { $0.viewId })
        #expect(a.accessUnitCount == b.accessUnitCount)
        #expect(a.profileIdc == b.profileIdc && a.width == b.width)
    }

    @Test(.needs(.sharedMedia)) func corpusStreamsSummarise() throws {
        for url in Shared.files("corpus/mvhevc-bitstreams", ext: ["265"]) {
            let b = try #require(Shared.bytes(url))
            let info = try HEVCStreamInfo(annexB: b)
            print(url.lastPathComponent, info.descriptionLines().joined(separator: " | "))
            #expect(info.errors.isEmpty, "\(url.lastPathComponent): \(info.errors.prefix(3))")
            #expect(info.accessUnitCount > 0)
        }
    }

    @Test(.needs(.sharedMedia)) func dumpLinesAndJSON() throws {
        let b = try #require(Shared.bytes(Shared.root.appendingPathComponent("fixtures/mvhevc_96x64_6f.hevc")))
        let lines = try HEVCDump.nalLines(annexB: b)
        print(lines.prefix(20).joined(separator: "\n"))
        #expect(lines.first == "AU 0")
        #expect(
            lines.contains { $0.contains("IDR_N_LP(20) layer=0") && $0.contains("slice=I") && $0.contains("poc=0") })
        #expect(lines.filter { $0.hasPrefix("AU ") }.count == 6)
        let json = try JSONEncoder().encode(try HEVCStreamInfo(annexB: b))
        let back = try JSONDecoder().decode(HEVCStreamInfo.self, from: json)
        #expect(back.layerCount == 2)
    }
}
