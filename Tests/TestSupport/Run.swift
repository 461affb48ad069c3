import Foundation

/// The outcome of a program run by ``Run/program(_:_:env:cwd:stdin:timeout:)``.
public struct RunResult: Sendable {
    public var status: Int32
    public var out: String
    public var err: String
    /// Terminated by a signal rather than exiting (including a kill after the timeout).
    public var signalled: Bool
    /// Killed because it outlived its timeout.
    public var timedOut: Bool
}

/// The one process runner of the tests: output and error go through files (neither can fill a pipe and stall
/// the program), standard input is empty, and a program that outlives its timeout is killed.
public enum Run {
    /// Runs `exe` with `args`. `env` adds to (or replaces entries of) the inherited environment.
    public static func program(
        _ exe: String, _ args: [String], env: [String: String] = [:], cwd: String? = nil,
        timeout: TimeInterval = 600
    ) throws -> RunResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        if !env.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(env) { $1 } }
        if let cwd { p.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        let dir = try TestPaths.tempDir("run")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let outPath = dir + "/out", errPath = dir + "/err"
        guard FileManager.default.createFile(atPath: outPath, contents: nil),
            FileManager.default.createFile(atPath: errPath, contents: nil)
        else { throw TestSetupError("cannot create output files in \(dir)") }
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        p.terminationHandler = { _ in done.signal() }
        try p.run()
        var timedOut = false
        if done.wait(timeout: .now() + timeout) == .timedOut {
            // The program and everything it started (Foundation notices the end only once no descendant holds the
            // status descriptor it inherited): first asked to stop, then killed.
            timedOut = true
            let tree = [p.processIdentifier] + descendants(of: p.processIdentifier)
            for pid in tree { kill(pid, SIGTERM) }
            if done.wait(timeout: .now() + 5) == .timedOut {
                for pid in tree { kill(pid, SIGKILL) }
                done.wait()
            }
        }
        try out.close()
        try err.close()
        return RunResult(
            status: p.terminationStatus,
            out: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            err: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "",
            signalled: p.terminationReason == .uncaughtSignal, timedOut: timedOut)
    }

    /// The processes below `pid` (children first seen in /proc on Linux; none elsewhere).
    static func descendants(of pid: Int32) -> [Int32] {
        var parent: [Int32: Int32] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(name),
                let stat = try? String(contentsOfFile: "/proc/\(name)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // "pid (comm) state ppid …": the command name may hold spaces, so read after its closing parenthesis.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let ppid = Int32(fields[1]) { parent[child] = ppid }
        }
        var out: [Int32] = [], frontier = [pid]
        while let next = frontier.popLast() {
            let kids = parent.filter { $0.value == next }.map(\.key)
            out += kids
            frontier += kids
        }
        return out
    }

    /// Runs the built `spatial-media` (the test fails when it was not built).
    public static func cli(
        _ args: [String], env: [String: String] = [:], cwd: String? = nil, timeout: TimeInterval = 600
    ) throws -> RunResult {
        try program(try TestPrograms.requireBinary(), args, env: env, cwd: cwd, timeout: timeout)
    }

    /// Runs a program and returns (exit status, standard output): the form most tests want.
    @discardableResult
    public static func status(_ exe: String, _ args: [String], timeout: TimeInterval = 600) throws -> (Int32, String) {
        let r = try program(exe, args, timeout: timeout)
        return (r.status, r.out)
    }
}

/// The oracle programs (Tests/Oracles/*.py, Benchmarks/*_oracle.py) run by the oracle environment's Python.
public enum Oracle {
    /// Runs `script` (a path under the package root) with `args` and decodes the JSON it prints. Throws when the
    /// oracle environment is absent (declare `.needs(.oracles)`), the script fails or its output is not JSON.
    public static func json(_ script: String, _ args: [String], timeout: TimeInterval = 900) throws -> Any {
        guard let python = TestPaths.oraclePython else { throw TestSetupError("oracle environment absent") }
        let r = try Run.program(python, [TestPaths.package(script)] + args, timeout: timeout)
        guard r.status == 0 else {
            throw TestSetupError("oracle \(script) \(args.first ?? "") failed (\(r.status)): \(r.err.suffix(2000))")
        }
        return try JSONSerialization.jsonObject(with: Data(r.out.utf8))
    }

    /// Like ``json(_:_:timeout:)`` for a script that prints one JSON object.
    public static func object(_ script: String, _ args: [String], timeout: TimeInterval = 900) throws -> [String: Any] {
        guard let o = try json(script, args, timeout: timeout) as? [String: Any] else {
            throw TestSetupError("oracle \(script): not a JSON object")
        }
        return o
    }
}
