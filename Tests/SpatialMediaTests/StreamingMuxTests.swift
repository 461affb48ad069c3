import BinaryIO
import Foundation
import HEVC
import ISOBMFF
import TestSupport
import Testing

@testable import SpatialMedia

/// The streaming path (picture-by-picture assembly, samples in a scratch file) must write exactly what the
/// whole-stream path writes.
@Suite struct StreamingMuxTests {
    static func options(_ container: SpatialVideoMuxOptions.Container, faststart: Bool) -> SpatialVideoMuxOptions {
        var o = SpatialVideoMuxOptions()
        o.stereo.baselineMicrometres = 64_000
        o.stereo.horizontalFieldOfViewMillidegrees = 63_500
        o.stereo.disparityAdjustment = 200
        o.container = container
        o.faststart = faststart
        o.samplesPerChunk = 4
        return o
    }

    @Test func streamingEqualsWholeStream() throws {
        let (l, r, dir) = try MuxClips.pair()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (container, faststart) in [(SpatialVideoMuxOptions.Container.mov, false), (.mp4, true)] {
            for baseIsLeft in [true, false] {
                let assembly = MVHEVCAssemblyOptions(baseIsLeft: baseIsLeft, layerSPSForm: .full)
                let o = Self.options(container, faststart: faststart)
                let streamed = dir.appendingPathComponent("streamed.mov").path
                try MVHEVCAssembler.assemble(
                    left: l.path, right: r.path, output: streamed, assembly: assembly, mux: o)
                let lb = try MuxClips.bytes(l), rb = try MuxClips.bytes(r)
                let stream = try MVHEVCAssembler.assemble(
                    base: baseIsLeft ? lb : rb, second: baseIsLeft ? rb : lb, options: assembly)
                let whole = dir.appendingPathComponent("whole.mov").path
                try SpatialVideoMuxer.write(stream, to: whole, options: o)
                #expect(
                    try MuxClips.bytes(URL(fileURLWithPath: streamed))
                        == (try MuxClips.bytes(URL(fileURLWithPath: whole))),
                    "\(container) faststart=\(faststart) baseIsLeft=\(baseIsLeft)")
                // The scratch file is unlinked: nothing but the outputs (and the inputs) in the directory.
                let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
                #expect(!names.contains { $0.contains("scratch") || $0.contains(".tmp-") }, "\(names)")
            }
        }
    }

    /// Copied audio: the streaming writer puts the chunks after the video in its scratch data and gives the same file
    /// as the in-memory muxer plus TrackCopier.
    @Test func streamingWithAudioEqualsInMemory() throws {
        let (l, r, dir) = try MuxClips.pair()
        defer { try? FileManager.default.removeItem(at: dir) }
        let stream = try MVHEVCAssembler.assemble(base: try MuxClips.bytes(l), second: try MuxClips.bytes(r))
        // Fake audio: a track copied from a movie we build with one 'soun' track of raw PCM-like chunks.
        let audio = try Self.audioTrack(dir: dir)
        for faststart in [false, true] {
            let o = Self.options(.mov, faststart: faststart)
            var (file, _) = try SpatialVideoMuxer.build(stream, options: o)
            file = try TrackCopier.append([audio], to: file)
            let expected = try file.serialized()
            let writer = try SpatialVideoStreamWriter(path: dir.appendingPathComponent("s.mov").path, options: o)
            for au in stream.accessUnits { try writer.add(au) }
            var header = stream
            header.accessUnits = []
            try writer.finish(header: header, audio: [audio])
            #expect(try MuxClips.bytes(dir.appendingPathComponent("s.mov")) == expected, "faststart=\(faststart)")
            #expect(writer.layer0Bytes > 0 && writer.layer1Bytes > 0)
        }
    }

    /// A stream that brings a new PPS after its first picture cannot be paired while streaming; the assembler
    /// falls back to the whole-stream path and still writes the same file.
    @Test func lateParameterSetFallsBackToWholeStream() throws {
        let (l, r, dir) = try MuxClips.pair()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Insert a copy of the right stream's PPS with a new id just before its second access unit.
        var nals = try AnnexB.split(try MuxClips.bytes(r))
        guard let ppsNAL = nals.first(where: { $0.type == .pps }) else { Issue.record("no PPS"); return }
        var pps = try PictureParameterSet(nal: ppsNAL)
        pps.ppsId = 5
        let late = try pps.nalUnit()
        let firstSlices = nals.indices.filter {
            nals[$0].type.isVCL && nals[$0].bytes.count > 2 && nals[$0].bytes[2] & 0x80 != 0
        }
        try #require(firstSlices.count > 1)
        nals.insert(late, at: firstSlices[1])
        let late2 = dir.appendingPathComponent("right-late-pps.hevc")
        try Data(AnnexB.join(nals)).write(to: late2)
        let out = dir.appendingPathComponent("late.mov").path
        try MVHEVCAssembler.assemble(left: l.path, right: late2.path, output: out)
        let stream = try MVHEVCAssembler.assemble(base: try MuxClips.bytes(l), second: AnnexB.join(nals))
        let whole = dir.appendingPathComponent("late-whole.mov").path
        try SpatialVideoMuxer.write(stream, to: whole)
        #expect(try MuxClips.bytes(URL(fileURLWithPath: out)) == (try MuxClips.bytes(URL(fileURLWithPath: whole))))
    }

    @Test func differentFrameCountsAreCountedInFull() throws {
        let (l, _, dir) = try MuxClips.pair()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gop = ["--keyint", "5", "--min-keyint", "5", "--bframes", "2", "--b-adapt", "0", "--fps", "30"]
        let short = try MuxClips.encode(
            TestMedia.y4m(width: 128, height: 96, frames: 7, shift: 6), dir: dir, name: "short", extra: gop)
        do {
            try MVHEVCAssembler.assemble(
                left: l.path, right: short.path, output: dir.appendingPathComponent("x.mov").path)
            Issue.record("different frame counts were accepted")
        } catch {
            #expect(error.message.contains("different frame counts: base 10, second 7"), "\(error.message)")
        }
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("x.mov").path))
    }

    /// A movie with one sound track whose chunks hold known bytes, read back as a CopiedTrack.
    static func audioTrack(dir: URL) throws -> CopiedTrack {
        let src = dir.appendingPathComponent("audio-source.mov").path
        let (l, r, _) = try MuxClips.pair()
        let stream = try MVHEVCAssembler.assemble(base: try MuxClips.bytes(l), second: try MuxClips.bytes(r))
        // Reuse the muxer for a movie, then relabel its video track as sound: the copier copies any handler.
        var (file, _) = try SpatialVideoMuxer.build(stream, options: SpatialVideoMuxOptions())
        try file.write(to: src)
        file = try ISOFile.open(path: src)
        let (tracks, _) = try TrackCopier.extract(from: file, path: src, handlers: ["vide"])
        return try #require(tracks.first)
    }
}
