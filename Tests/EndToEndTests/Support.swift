import Foundation
import Synchronization

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
    func run(_ arguments: String...) throws -> Result {
        try Self.run(executable: Self.executable, arguments + ["--store", store])
    }

    /// Runs `caresync ARGS…` and decodes its standard output as JSON.
    func json<T: Decodable>(_ type: T.Type, _ arguments: String...) throws -> T {
        let result = try Self.run(executable: Self.executable, arguments + ["--store", store])
        guard result.status == 0 else { throw CommandFailed(result: result) }
        return try JSONDecoder().decode(T.self, from: Data(result.stdout.utf8))
    }

    static func run(executable: URL, _ arguments: [String]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let errData = Mutex(Data())
        let errDone = DispatchSemaphore(value: 0)
        Thread {
            errData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() }
            errDone.signal()
        }.start()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errDone.wait()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: errData.withLock { String(decoding: $0, as: UTF8.self) })
    }
}

struct CommandFailed: Error, CustomStringConvertible {
    var result: CareSyncCommand.Result
    var description: String { "exit \(result.status): \(result.stderr)" }
}

/// A long-running process whose output lines (stdout and stderr together) can be awaited and
/// whose input can be written.
final class RunningProcess: Sendable {
    private let process: Process
    private let input: FileHandle
    private let lines = Mutex<[String]>([])
    private let condition = NSCondition()
    private let running = DispatchGroup()

    init(_ executable: URL, _ arguments: [String]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let stdin = Pipe()
        process.standardOutput = out
        process.standardInput = stdin
        process.standardError = out  // stderr lines join stdout's, in order
        input = stdin.fileHandleForWriting
        running.enter()
        process.terminationHandler = { [running] _ in running.leave() }
        try Self.launchWithNoSignalBlocked(process)
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
            let result = Result { try process.run() }
            outcome.withLock { $0 = result }
            started.signal()
        }.start()
        started.wait()
        try outcome.withLock { $0 }!.get()
    }

    private func readLines(from reader: FileHandle) {
        var buffer = Data()
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                condition.lock()
                lines.withLock { $0.append(line) }
                condition.broadcast()
                condition.unlock()
            }
        }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Every line written so far.
    var output: [String] { lines.withLock { $0 } }

    var processIdentifier: Int32 { process.processIdentifier }

    /// Writes one line to the process's standard input.
    func send(_ line: String) {
        try? input.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Waits until a line satisfies `predicate`, or `timeout` passes.
    func waitForLine(timeout: TimeInterval = 30, where predicate: (String) -> Bool) -> String? {
        waitForLines(count: 1, timeout: timeout, where: predicate)?.first
    }

    /// Waits until `count` lines satisfy `predicate`, or `timeout` passes.
    func waitForLines(count: Int, timeout: TimeInterval = 30, where predicate: (String) -> Bool) -> [String]? {
        let deadline = Date().addingTimeInterval(timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            let matching = lines.withLock { $0.filter(predicate) }
            if matching.count >= count { return matching }
            guard condition.wait(until: deadline) else { return nil }
        }
    }

    /// Waits up to `timeout` for the process to end by itself.
    @discardableResult
    func waitForExit(timeout: TimeInterval = 30) -> Bool {
        running.wait(timeout: .now() + timeout) == .success
    }

    /// Sends `signal`, waits for the process to end, and kills it if it does not.
    func stop(signal: Int32 = SIGTERM) {
        if process.isRunning { kill(process.processIdentifier, signal) }
        if !waitForExit(timeout: 15) {
            kill(process.processIdentifier, SIGKILL)
            waitForExit()
        }
    }

    var terminationStatus: Int32 { process.terminationStatus }
}

/// A directory for one test, removed afterwards.
final class Scratch: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-cli-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// Polls `condition` until it holds or `timeout` passes (for state another process changes
/// that no line announces).
func waitUntil(timeout: TimeInterval = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    repeat {
        if try condition() { return true }
        usleep(20_000)
    } while Date() < deadline
    return false
}
