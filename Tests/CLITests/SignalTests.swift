import Foundation
import TestSupport
import Testing

/// Issue 18, item 4: SIGTERM/SIGINT to the process during an FFmpeg-decoded conversion never deadlocks and
/// leaves nothing behind. The full check (20 runs per signal, exit within 2 s) is `scripts/signal_check.sh`;
/// here a smaller sample, with a generous bound on the exit time so a loaded machine does not fail it.
@Suite struct SignalTests {
    @Test func signalsDuringAnFFmpegDecodedConversion() throws {
        let ff = try TestPrograms.requireFFmpeg()
        let r = try CLI.runProgram(
            "/bin/bash", [CLI.root + "/scripts/signal_check.sh", "3", "10"],
            env: ["SPATIAL_MEDIA_BIN": CLI.binary ?? "", "SPATIAL_MEDIA_FFMPEG": ff])
        try #require(r.status != 77, "signal check skipped: \(r.out)")
        #expect(r.status == 0, "\(r.out)\(r.err)")
        #expect(r.out.contains(" 0 failed"), "\(r.out)")
    }
}
