import Foundation
import Waiting

/// `caresync primary` on a store, in a process of its own, listening on a free port of
/// 127.0.0.1 (not advertised, no reminders), so that its memory can be read apart from
/// the load's.
final class PrimaryProcess {
    let port: Int
    let fingerprint: String
    private let process: Process
    private let log: URL

    var pid: String { "\(process.processIdentifier)" }

    /// The `caresync` built beside this benchmark.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("caresync")
    }

    /// Starts the primary on `store` and waits for its "listening" line.
    static func start(store: String, log: URL, timeout: Duration) async throws -> PrimaryProcess {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw BenchmarkFailure("no caresync beside caresync-bench at \(executable.path): build both (swift build -c release)")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "primary", "--store", store, "--host", "127.0.0.1", "--port", "0", "--no-advertise", "--no-reminders", "--json",
            "--log-level", "warning",
        ]
        let out = Pipe()
        process.standardOutput = out
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try await blocking { try Self.launchWithNoSignalBlocked(process) }
        let reader = out.fileHandleForReading
        let listening = await withTimeout(timeout) { await blocking { Self.listeningLine(from: reader) } }
        guard let (port, fingerprint) = listening else {
            process.terminate()
            process.waitUntilExit()
            let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw BenchmarkFailure("caresync primary did not start within \(timeout): \(errors.suffix(400))")
        }
        // Its later lines ("stopped") are read and dropped, so it never blocks on a full pipe.
        Thread { while !reader.availableData.isEmpty {} }.start()
        return PrimaryProcess(port: port, fingerprint: fingerprint, process: process, log: log)
    }

    private init(port: Int, fingerprint: String, process: Process, log: URL) {
        self.port = port
        self.fingerprint = fingerprint
        self.process = process
        self.log = log
    }

    /// A child inherits its launching thread's signal mask, and the threads of Swift's
    /// concurrency block most signals: the primary would never see the SIGTERM that makes it
    /// say Goodbye. So it is launched from a thread that blocks none.
    private static func launchWithNoSignalBlocked(_ process: Process) throws {
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        try process.run()
    }

    /// Reads JSON lines until the one whose event is "listening": its port and fingerprint;
    /// `nil` if the output ends first.
    private static func listeningLine(from reader: FileHandle) -> (port: Int, fingerprint: String)? {
        var buffer = Data()
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                if let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any], object["event"] as? String == "listening",
                   let port = object["port"] as? Int, let fingerprint = object["fingerprint"] as? String {
                    return (port, fingerprint)
                }
            }
        }
    }

    /// Its resident memory now and at its peak.
    var memory: (now: Int?, peak: Int?) {
        (residentMemory(of: pid), peakResidentMemory(of: pid))
    }

    /// Stops it as a person would (SIGTERM: Goodbye to every companion); what went wrong, if anything.
    func stop(within timeout: Duration) async -> String? {
        process.terminate()
        let process = process
        let exited = await withTimeout(timeout) { await blocking { process.waitUntilExit() } } != nil
        guard exited else {
            kill(process.processIdentifier, SIGKILL)
            return "caresync primary did not stop within \(timeout) of SIGTERM"
        }
        guard process.terminationStatus == 0 else {
            let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            return "caresync primary exited with \(process.terminationStatus): \(errors.suffix(400))"
        }
        return nil
    }
}
