import ChildProcess
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Waiting

/// `caresync primary` on a store, in a process of its own, listening on a free port of
/// 127.0.0.1 (not advertised; reminders and the care app when asked), so that its memory can
/// be read apart from the load's, and serving its metrics on another, so that its own timings
/// can be too.
final class PrimaryProcess {
    let port: Int
    let fingerprint: String
    let metricsPort: Int
    /// The care app's address, when it serves one.
    let webURL: String?
    private let process: Process
    private let log: URL

    var pid: String { "\(process.processIdentifier)" }

    /// The `caresync` built beside this benchmark.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("caresync")
    }

    /// Starts the primary on `store` (keeping reminders and alerts if `reminders`, serving the
    /// care app on a free port of 127.0.0.1 if `web`) and waits for its "listening" line.
    static func start(store: String, log: URL, timeout: Duration, reminders: Bool = false, web: Bool = false) async throws -> PrimaryProcess {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw BenchmarkFailure("no caresync beside caresync-bench at \(executable.path): scripts/bench builds both")
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = [
            "primary", "--store", store, "--host", "127.0.0.1", "--port", "0", "--no-advertise", "--json",
            "--log-level", "warning", "--metrics-port", "0",
        ] + (reminders ? [] : ["--no-reminders"]) + (web ? ["--web", "--web-port", "0"] : [])
        let out = Pipe()
        process.standardOutput = out
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: log)
        process.standardInput = FileHandle.nullDevice
        try await blocking { try Self.launchWithNoSignalBlocked(process) }
        let reader = out.fileHandleForReading
        let started = await withTimeout(timeout) { await blocking { Self.startLines(from: reader, web: web) } }
        guard let started else {
            process.terminate()
            process.waitUntilExit()
            let errors = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw BenchmarkFailure("caresync primary did not start within \(timeout): \(errors.suffix(400))")
        }
        // Its later lines ("stopped") are read and dropped, so it never blocks on a full pipe.
        Thread { while !reader.availableData.isEmpty {} }.start()
        return PrimaryProcess(
            port: started.port, fingerprint: started.fingerprint, metricsPort: started.metricsPort, webURL: started.webURL,
            process: process, log: log)
    }

    private init(port: Int, fingerprint: String, metricsPort: Int, webURL: String?, process: Process, log: URL) {
        self.port = port
        self.fingerprint = fingerprint
        self.metricsPort = metricsPort
        self.webURL = webURL
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
        try process.runUnblocked()
    }

    /// Reads JSON lines until the "listening" line, the "metrics" line and (if `web`) the
    /// "web" line have come: the port and fingerprint, the metrics port and the care app's
    /// address; `nil` if the output ends first.
    private static func startLines(
        from reader: FileHandle, web: Bool
    ) -> (port: Int, fingerprint: String, metricsPort: Int, webURL: String?)? {
        var buffer = Data()
        var listening: (port: Int, fingerprint: String)?
        var metricsPort: Int?
        var webURL: String?
        while true {
            let chunk = reader.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
            while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[buffer.startIndex..<newline]
                buffer.removeSubrange(buffer.startIndex...newline)
                guard let object = try? JSONSerialization.jsonObject(with: line) as? [String: Any] else { continue }
                switch (object["event"] as? String, object["port"] as? Int, object["fingerprint"] as? String) {
                case ("listening", let port?, let fingerprint?): listening = (port, fingerprint)
                case ("metrics", let port?, _): metricsPort = port
                case ("web", _, _): webURL = object["url"] as? String
                default: break
                }
                if let listening, let metricsPort, !web || webURL != nil {
                    return (listening.port, listening.fingerprint, metricsPort, webURL)
                }
            }
        }
    }

    /// The primary's own timers so far, from its metrics: each the sum of its durations, in
    /// seconds, and how many there were.
    struct Timings: Sendable {
        /// From a completion's arrival to its reply (`caresync_primary_completion_seconds`).
        var completion: (sum: Double, count: Double)
        /// From a commit to a context frame written to a connection (`caresync_primary_fanout_seconds`).
        var fanOut: (sum: Double, count: Double)

        /// The mean of each timer over what happened since `earlier`, as text.
        func means(since earlier: Timings) -> (completion: String, fanOut: String) {
            func mean(_ now: (sum: Double, count: Double), _ before: (sum: Double, count: Double)) -> String {
                let count = now.count - before.count
                return count > 0 ? "\(duration((now.sum - before.sum) / count))  (n=\(Int(count)))" : "—"
            }
            return (mean(completion, earlier.completion), mean(fanOut, earlier.fanOut))
        }
    }

    /// Reads ``Timings`` from `GET /metrics`; `nil` if the endpoint cannot be read.
    func timings() async -> Timings? {
        guard let url = URL(string: "http://127.0.0.1:\(metricsPort)/metrics"),
              let (data, _) = try? await URLSession.shared.data(from: url) else { return nil }
        var values: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0]), default: 0] += value }
        }
        func timer(_ name: String) -> (sum: Double, count: Double) {
            (values[name + "_sum"] ?? 0, values[name + "_count"] ?? 0)
        }
        return Timings(completion: timer("caresync_primary_completion_seconds"), fanOut: timer("caresync_primary_fanout_seconds"))
    }

    /// Its resident memory now and at its peak.
    var memory: (now: Int?, peak: Int?) {
        (residentMemory(of: pid), peakResidentMemory(of: pid))
    }

    /// Runs `body`, then closes `clients` and stops the primary whether `body` threw or not:
    /// `body`'s result, or its error, or what went wrong stopping.
    func serving<T>(_ clients: [FleetClient], within timeout: Duration, _ body: () async throws -> T) async throws -> T {
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await withDiscardingTaskGroup { group in
            for client in clients { group.addTask { await client.close() } }
        }
        let stopped = await stop(within: timeout)
        if case .success = result, let stopped { throw BenchmarkFailure(stopped) }
        return try result.get()
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
