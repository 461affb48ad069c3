import Foundation
import TestSupport
import Testing

/// Issue 28 m: after SIGTERM, `split` reaps its FFmpeg child before it exits (it used to leave a zombie for about a
/// second). The tool runs a long re-encode (x265 preset placebo) so the signal meets FFmpeg mid-way.
@Suite struct SplitReapsFFmpegTests {
    static let input = CLI.shared("fixtures/x265mv_320x240_30f_spatial.mov")

    @Test(.needs(.shared("fixtures/x265mv_320x240_30f_spatial.mov")))
    func splitReapsItsFFmpegChildOnSIGTERM() throws {
        let dir = try CLI.tempDir("reap")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = """
            set -m
            "$1" split "$2" --sbs "$3/sl.mov" --preset placebo >/dev/null 2>"$3/err" &
            pid=$!
            for i in $(seq 1 100); do kids=$(cat /proc/$pid/task/*/children 2>/dev/null); [ -n "$kids" ] && break; sleep 0.05; done
            sleep 0.3
            kill -TERM $pid
            wait $pid; rc=$?
            echo "rc=$rc"
            for k in $kids; do st=$(grep State /proc/$k/status 2>/dev/null); echo "child $k: ${st:-gone}"; done
            """
        let r = try CLI.runProgram("/bin/bash", ["-c", script, "check", CLI.binary ?? "", Self.input ?? "", dir])
        #expect(r.out.contains("rc=143"), "\(r.out)")
        #expect(r.out.contains("child "), "no FFmpeg child seen: \(r.out)")
        #expect(!r.out.contains("zombie") && !r.out.contains("State:"), "\(r.out)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/sl.mov"))
    }
}
