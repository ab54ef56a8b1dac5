import ArgumentParser
import CarePlanStore
import Discovery
import CarePlan
import NodeIdentity
import Reminders
import Dispatch
import Foundation
import LineOutput
import Logging
import MetricsEndpoint
import NIOCore
import Synchronization
import SyncNode
import SyncProtocol

struct PrimaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "primary",
        abstract: "Serve the store to paired watch, widget and household companions over TLS 1.3.",
        discussion: """
            Prints one line when listening (JSON with --json) with the address, port and the
            primary's fingerprint. Only devices paired with `caresync pair` may connect. SIGINT or
            SIGTERM says Goodbye to every companion and stops.
            """)

    @OptionGroup var options: StoreOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup var metrics: MetricsOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 7654

    @Option(help: "The name companions see.")
    var name = "CareSync primary"

    @Flag(inversion: .prefixedNo, help: "Advertise the primary on the local network with DNS-SD (_caresync._tcp).")
    var advertise = true

    @Flag(inversion: .prefixedNo, help: "Remind of events not yet done (watches, this log, notify-send).")
    var reminders = true

    @Option(help: "Minutes a reminder missed while the primary was down may still fire at start-up.")
    var graceMinutes = 15

    @Option(help: ArgumentHelp("Run the primary's clock from this instant (for demos and tests).", valueName: "ISO 8601"))
    var clockStart: String?

    @Flag(help: "Print events as JSON lines.")
    var json = false

    func run() async throws {
        let logger = logging.bootstrap("caresync.primary")
        let endpoint = metrics.endpoint(logger: logger)
        try await reportingFailures {
            let store = try options.open()
            let (info, _) = try store.configuredPlan()
            // The primary's identity lives beside its store, made on first start.
            let identity = try NodeIdentity.loadOrCreate(in: store.path + ".identity", name: name)
            var configuration = PrimaryConfiguration(identity: identity)
            configuration.host = host
            configuration.port = port
            configuration.name = name
            configuration.logger = logger
            if let clockStart {
                guard let start = ISO8601.date(from: clockStart) else {
                    throw UsageError(description: "--clock-start must be an ISO 8601 instant, not \"\(clockStart)\"")
                }
                let began = Date()
                configuration.now = { start.addingTimeInterval(Date().timeIntervalSince(began)) }
            }
            var policy = ReminderPolicy()
            policy.gracePeriod = .seconds(graceMinutes * 60)
            let json = json
            let node = PrimaryNode(
                store: store, configuration: configuration, reminders: reminders ? policy : nil,
                onReminder: { ReminderNotice(json: json).show($0) })
            let signals = SignalHandlers { node.shutdown() }
            defer { signals.cancel() }
            let nodeID = configuration.nodeID
            let advertising = Advertising(enabled: advertise, json: json, logger: logger)
            let listening: @Sendable (SocketAddress) -> Void = { address in
                if json {
                    emitJSON([
                        "event": "listening", "host": .string(address.ipAddress ?? ""), "port": .int(address.port ?? 0),
                        "nodeID": .string(nodeID), "planID": .string(info.planID), "fingerprint": .string(identity.fingerprint),
                    ])
                } else {
                    emit("Listening on \(address.ipAddress ?? ""):\(address.port ?? 0) as \"\(name)\" for plan \(info.planID)")
                    emit("Identity \(identity.displayFingerprint)")
                }
                // No health information and no patient names: TXT records reach everyone.
                advertising.start(name: name, port: address.port ?? 0, txt: [
                    "txtvers": "1", "protocol": ProtocolVersion.supported.map(String.init).joined(separator: ","), "node": nodeID, "role": "primary",
                    "plan": info.planID, "fp": identity.fingerprint,
                ])
            }
            try await MetricsEndpoint.serving(endpoint, onListening: { port in
                json ? emitJSON(["event": "metrics", "port": .int(port)]) : emit("Metrics at http://127.0.0.1:\(port)/metrics")
            }) {
                try await node.run(onListening: listening)
            }
            advertising.stop()
            json ? emitJSON(["event": "stopped"]) : emit("Stopped.")
        }
    }
}

/// The primary's DNS-SD advertisement, made once it listens. A missing daemon is reported
/// once; the primary goes on serving its static address.
final class Advertising: Sendable {
    private let enabled: Bool
    private let json: Bool
    private let logger: Logger
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(enabled: Bool, json: Bool, logger: Logger) {
        self.enabled = enabled
        self.json = json
        self.logger = logger
    }

    /// Advertises until ``stop()``, registering again whenever the daemon drops the
    /// registration (a restarted daemon) and retrying while it is away.
    func start(name: String, port: Int, txt: [String: String]) {
        guard enabled else { return }
        let (json, logger) = (json, logger)
        let advertising = Task {
            var reportedFailure = false
            while !Task.isCancelled {
                do {
                    let advertisement = try await ServiceAdvertisement.register(
                        name: name, type: "_caresync._tcp", port: port, txt: txt)
                    reportedFailure = false
                    json ? emitJSON(["event": "advertised", "name": .string(advertisement.name), "type": "_caresync._tcp"])
                        : emit("Advertised as \"\(advertisement.name)\" (_caresync._tcp)")
                    // Until the daemon drops it, or stop() cancels this task.
                    for await _ in advertisement.ended { break }
                    advertisement.cancel()
                } catch {
                    // Said once while the daemon stays away; every retry only at debug level.
                    logger.log(level: reportedFailure ? .debug : .warning, "not advertised; retrying every second", metadata: [
                        "error": "\(error)",
                    ])
                    reportedFailure = true
                }
                try? await Task.sleep(for: .seconds(1))  // cancelled: the loop ends
            }
        }
        task.withLock { $0 = advertising }
    }

    /// Withdraws the advertisement.
    func stop() {
        task.withLock { $0 }?.cancel()
    }
}

/// Calls `handler` on SIGINT or SIGTERM instead of the default termination.
final class SignalHandlers {
    private let sources: [any DispatchSourceSignal]

    init(_ handler: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            return source
        }
    }

    func cancel() {
        for source in sources { source.cancel() }
    }
}
