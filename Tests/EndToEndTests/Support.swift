import ChildProcess
import Foundation
@_exported import TestSupport
import Synchronization
import Waiting

/// Runs the built `caresync` executable as a separate process.
struct CareSyncCommand {
    /// The directory with the built products: the test bundle sits beside them.
    static let binDirectory: URL = {
        if let dir = ProcessInfo.processInfo.environment["CARESYNC_BIN_DIR"] { return URL(fileURLWithPath: dir) }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return FileManager.default.fileExists(atPath: bundle.appendingPathComponent("caresync").path)
            ? bundle : Bundle.main.bundleURL
    }()

    static var executable: URL { binDirectory.appendingPathComponent("caresync") }

    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func example(_ name: String) -> String {
        repository.appendingPathComponent("Examples/\(name)").path
    }

    let store: String

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String

        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    /// Runs `caresync --store STORE ARGS…` to completion.
    @discardableResult
    func run(_ arguments: String...) async throws -> Result {
        try await Self.run(executable: Self.executable, arguments + ["--store", store])
    }

    /// Runs `caresync ARGS…` and decodes its standard output as JSON.
    func json<T: Decodable>(_ type: T.Type, _ arguments: String...) async throws -> T {
        let result = try await Self.run(executable: Self.executable, arguments + ["--store", store])
        guard result.status == 0 else { throw CommandFailed(result: result) }
        return try JSONDecoder().decode(T.self, from: Data(result.stdout.utf8))
    }

    /// Runs `executable` to its end on a thread of its own (waiting for a process blocks),
    /// never on the cooperative pool that the tests' primaries share; `environment` is added
    /// to this process's. Killed once it has written nothing for the suite's ``patience``.
    static func run(executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await blocking { try runBlocking(executable: executable, arguments, environment: environment) }
    }

    /// ``run(executable:_:environment:)`` on the caller's thread: only for probes that decide,
    /// before any test runs, whether a suite can (`.enabled(if:)` conditions are synchronous).
    /// Output goes to files, not pipes, so that a child the command leaves behind cannot keep
    /// the test waiting for the end of its output.
    static func runBlocking(executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let scratch = Scratch()
        let outPath = scratch.path("out"), errPath = scratch.path("err")
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        defer { try? out.close(); try? err.close() }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let done = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in done.signal() }
        try process.runUnblocked()
        let pid = process.processIdentifier
        let exit = waitWhileWriting(until: done, files: [outPath, errPath], pid: pid)
        // Foundation sees the end of a process when every holder of a socket it shares with it
        // has gone, the command's own children too: after the kill, wait a little, not forever.
        if exit == nil { kill(pid, SIGKILL) }
        let ended = exit != nil || done.wait(timeout: .now() + 5) == .success
        let result = Result(
            status: exit.flatMap { $0 } ?? (ended ? process.terminationStatus : -1),
            stdout: (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "")
        if exit == nil { throw CommandTimedOut(command: ([executable.path] + arguments).joined(separator: " "), result: result) }
        return result
    }

    /// How the command ended: `.some(nil)` once Foundation saw its end (`done`), `.some(status)`
    /// once the kernel says it exited though Foundation has not seen it yet, `nil` if a whole
    /// ``patience`` passed in which it wrote nothing to `files` (a long campaign says how far
    /// it has come, a hung command says nothing).
    ///
    /// Foundation learns of a child's end when the child's end of a socket pair closes; a
    /// child started by another thread at the same moment can inherit that end (Foundation
    /// makes the pair without close-on-exec and lists what a new child closes before its
    /// spawn), and then the command's end is seen only when that other child, a primary,
    /// exits: a `caresync history` of a third of a second was once taken for hung. The
    /// kernel's word, a zombie's exit code in `/proc/PID/stat`, does not wait for that.
    private static func waitWhileWriting(until done: DispatchSemaphore, files: [String], pid: Int32) -> Int32?? {
        var written = -1
        var lastProgress = ContinuousClock.now
        while done.wait(timeout: .now() + 1) == .timedOut {
            if let status = exitStatus(ofZombie: pid) { return .some(status) }
            let size = files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
            if size != written { (written, lastProgress) = (size, .now) }
            if ContinuousClock.now - lastProgress > patience { return nil }
        }
        return .some(nil)
    }

    /// The exit status of `pid` once it has exited and is not yet reaped (a zombie), as
    /// `terminationStatus` gives it: the exit code, or the signal that ended it.
    static func exitStatus(ofZombie pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // After the command's name: the state (field 3), …, the exit code (field 52).
        let fields = stat[stat.index(after: close)...].split(whereSeparator: \.isWhitespace)
        guard fields.first == "Z", fields.count > 49, let code = Int32(fields[49]) else { return nil }
        return code & 0x7f == 0 ? (code >> 8) & 0xff : code & 0x7f
    }
}

/// A command that wrote nothing for the suite's ``patience`` and was killed, with what it wrote.
struct CommandTimedOut: Error, CustomStringConvertible {
    var command: String
    var result: CareSyncCommand.Result
    var description: String { "\(command) wrote nothing for \(patience): killed; it wrote:\n\(result.stderr)\(result.stdout)" }
}

struct CommandFailed: Error, CustomStringConvertible {
    var result: CareSyncCommand.Result
    var description: String { "exit \(result.status): \(result.stderr)\(result.stdout)" }
}

/// A long-running process whose output lines (stdout and stderr together) can be awaited and
/// whose input can be written. Its output is read on a thread of its own; waits suspend,
/// and never hold a thread of the cooperative pool.
final class RunningProcess: Sendable {
    /// Each line is judged once per waiter: a line can be a whole context, and a predicate
    /// parses its JSON.
    private struct Waiter {
        var count: Int
        var predicate: @Sendable (String) -> Bool
        /// The lines so far that satisfy the predicate.
        var matching: [String]
        var continuation: CheckedContinuation<[String]?, Never>
    }

    private struct Output {
        var lines: [String] = []
        /// The process closed its output: no line will come any more.
        var ended = false
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let process: Process
    private let input: FileHandle
    private let state = Mutex(Output())
    private let exited = Eventual<Int32>()

    /// Starts `executable`; `environment` is added to this process's.
    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let out = Pipe()
        let stdin = Pipe()
        process.standardOutput = out
        process.standardInput = stdin
        process.standardError = out  // stderr lines join stdout's, in order
        input = stdin.fileHandleForWriting
        process.terminationHandler = { [exited] process in exited.resolve(.success(process.terminationStatus)) }
        let process = process
        try await blocking { try Self.launchWithNoSignalBlocked(process) }
        let reader = out.fileHandleForReading
        Thread { [self] in readLines(from: reader) }.start()
    }

    /// A child inherits its launching thread's signal mask, and the test runner's threads
    /// block nearly every signal: a primary would never see the SIGTERM that makes it say
    /// Goodbye, nor tcpdump the SIGINT that makes it finish its file. So children are
    /// launched from a thread of our own that blocks none.
    private static func launchWithNoSignalBlocked(_ process: Process) throws {
        let outcome = Mutex<Result<Void, any Error>?>(nil)
        let started = DispatchSemaphore(value: 0)
        Thread {
            var none = sigset_t()
            sigemptyset(&none)
            pthread_sigmask(SIG_SETMASK, &none, nil)
            let result = Result { try process.runUnblocked() }
            outcome.withLock { $0 = result }
            started.signal()
        }.start()
        started.wait()
        try outcome.withLock { $0 }!.get()
    }

    private func readLines(from reader: FileHandle) {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            // read(2), not `availableData`, which stops the whole test run on an interrupted read.
            let count = chunk.withUnsafeMutableBytes { read(reader.fileDescriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            // Only the new bytes can hold a newline: a long line is not searched again per chunk.
            var searchFrom = buffer.count
            buffer.append(contentsOf: chunk[..<count])
            var lineStart = 0
            while let newline = buffer[searchFrom...].firstIndex(of: UInt8(ascii: "\n")) {
                append(String(decoding: buffer[lineStart..<newline], as: UTF8.self))
                lineStart = newline + 1
                searchFrom = lineStart
            }
            buffer.removeFirst(lineStart)
        }
        let waiting = state.withLock { output in
            output.ended = true
            defer { output.waiters.removeAll() }
            return output.waiters.values.map(\.continuation)
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }

    /// Keeps `line` and answers every waiter that it satisfies.
    private func append(_ line: String) {
        let answered = state.withLock { output in
            output.lines.append(line)
            var answered: [(CheckedContinuation<[String]?, Never>, [String])] = []
            for (id, waiter) in output.waiters where waiter.predicate(line) {
                output.waiters[id]?.matching.append(line)
                if waiter.matching.count + 1 >= waiter.count {
                    answered.append((waiter.continuation, waiter.matching + [line]))
                    output.waiters.removeValue(forKey: id)
                }
            }
            return answered
        }
        for (continuation, lines) in answered { continuation.resume(returning: lines) }
    }

    /// Every line written so far.
    var output: [String] { state.withLock { $0.lines } }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Writes one line to the process's standard input.
    func send(_ line: String) {
        try? input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits until a line satisfies `predicate`, or the suite's `patience` runs out (or the
    /// output ends).
    func waitForLine(where predicate: @escaping @Sendable (String) -> Bool) async -> String? {
        await waitForLines(count: 1, where: predicate)?.first
    }

    /// Waits until `count` lines satisfy `predicate`, or `within` (the suite's `patience`
    /// unless given) runs out, or the output ends.
    func waitForLines(count: Int, within: Duration = patience, where predicate: @escaping @Sendable (String) -> Bool) async -> [String]? {
        await withTimeout(within) { await self.lines(count: count, where: predicate) }
    }

    /// The first `count` lines that satisfy `predicate`, once there are that many; `nil` if
    /// the output ends first or the wait is cancelled.
    private func lines(count: Int, where predicate: @escaping @Sendable (String) -> Bool) async -> [String]? {
        let id = state.withLock { output in
            output.nextWaiter += 1
            return output.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate: [String]?? = state.withLock { output in
                    let matching = output.lines.filter(predicate)
                    if matching.count >= count { return .some(matching) }
                    if output.ended || Task.isCancelled { return .some(nil) }
                    output.waiters[id] = Waiter(count: count, predicate: predicate, matching: matching, continuation: continuation)
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: nil)
        }
    }

    /// Waits up to the suite's `patience` for the process to end by itself.
    @discardableResult
    func waitForExit() async -> Bool {
        await withTimeout(patience) { [exited] in try? await exited.value } != nil
    }

    /// Sends `signal` and returns at once (cleaning up where nothing can wait: a `defer`, a
    /// `deinit`).
    func terminate(signal: Int32 = SIGKILL) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Sends `signal`, waits for the process to end, and kills it if it does not.
    func stop(signal: Int32 = SIGTERM) async {
        if process.isRunning { kill(process.processIdentifier, signal) }
        if await !waitForExit() {
            kill(process.processIdentifier, SIGKILL)
            await waitForExit()
        }
    }

    var terminationStatus: Int32 { process.terminationStatus }
}
