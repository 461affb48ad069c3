import Foundation
import TestSupport
import Testing

/// Issue 29: the test support finds the real binary and the product's FFmpeg (not the oracle venv's), its runner
/// stops a program that hangs, a missing fixture is a skip with its reason, and the lint rejects early returns.
@Suite struct TestSupportTests {
    @Test func binaryIsTheBuiltOneBesideTheTests() throws {
        let bin = try TestPrograms.requireBinary()
        #expect(bin.hasPrefix(try #require(TestPrograms.binDir)))
        let r = try Run.cli(["--version"], timeout: 120)
        #expect(r.status == 0 && !r.out.isEmpty, "\(r.err)")
    }

    /// SignalTests needed the oracle venv's FFmpeg and failed without it, although setup had installed one the
    /// product uses: the tests now take FFmpeg from the product's own locator.
    @Test func ffmpegIsTheProductsOwn() throws {
        let ff = try TestPrograms.requireFFmpeg()
        #expect(!ff.contains(".venv-oracles"), "\(ff)")
        let r = try Run.program(ff, ["-hide_banner", "-version"], timeout: 120)
        #expect(r.status == 0 && r.out.hasPrefix("ffmpeg version"))
    }

    @Test func runnerKillsAProgramThatOutlivesItsTimeout() throws {
        let start = Date()
        let r = try Run.program("/bin/sh", ["-c", "echo started; sleep 30"], timeout: 1)
        #expect(r.timedOut && r.signalled)
        #expect(r.out == "started\n")
        #expect(Date().timeIntervalSince(start) < 20)
    }

    @Test func absentFixturesAreUnmetWithTheirReason() {
        let missing = Requirement.shared("no/such/file.mov")
        #expect(!missing.isMet)
        #expect(missing.reason.contains(TestPaths.sharedDir == nil ? "../shared absent" : "no/such/file.mov"))
        #expect(Requirement("always") { true }.isMet)
    }

    @Test func lintRejectsEarlyReturnsInTests() throws {
        let dir = try TestPaths.tempDir("lint-tests")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let early = "guard FileManager.default.fileExists(atPath: \"/x\") else { " + "return }"
        let bad = """
            @Suite struct T {
                @Test func usesAFixture() throws {
                    EARLY
                    #expect(true)
                }
            }
            """
        try bad.replacingOccurrences(of: "EARLY", with: early).write(
            toFile: dir + "/BadTests.swift", atomically: true, encoding: .utf8)
        let python = try #require(TestPaths.which("python3"))
        let script = TestPaths.package("scripts/lint-tests.py")
        let r = try Run.program(python, [script, dir], timeout: 120)
        #expect(r.status == 1 && r.out.contains("BadTests.swift:3"), "\(r.out)")
        try bad.replacingOccurrences(of: "EARLY", with: "").write(
            toFile: dir + "/BadTests.swift", atomically: true, encoding: .utf8)
        #expect(try Run.program(python, [script, dir], timeout: 120).status == 0)
    }
}
