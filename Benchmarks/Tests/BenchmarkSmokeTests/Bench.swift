import ChildProcess
import Foundation

/// `caresync-bench` run as a process to its end, as a person runs it.
enum Bench {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// How long a smoke run may take before it is killed: the slowest takes about a minute.
    static let limit: Duration = .seconds(600)

    /// The benchmark built beside this test bundle (with the `caresync` it starts).
    static let executable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("caresync-bench")

    /// Runs `caresync-bench ARGS…`; its output goes to files (a primary it leaves behind cannot
    /// hold a pipe open), read once it has ended or been killed at ``limit``.
    static func run(_ arguments: [String]) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-smoke-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (out, err) = (directory.appendingPathComponent("out"), directory.appendingPathComponent("err"))
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        let (ended, end) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { end.yield($0.terminationStatus); end.finish() }
        try process.runUnblocked()
        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(for: limit)  // a bound on a hung run, not a wait for a condition
            kill(pid, SIGKILL)
        }
        defer { watchdog.cancel() }
        var status: Int32 = -1
        for await exit in ended { status = exit }
        return Result(
            status: status, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
    }
}
