import ArgumentParser
import CarePlanStore
import Dispatch
import Foundation
import NIOCore
import SyncNode

struct PrimaryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "primary",
        abstract: "Serve the store to watch, widget and household companions over TCP.",
        discussion: """
            Prints one line when listening (JSON with --json) with the address and port. SIGINT or
            SIGTERM says Goodbye to every companion and stops.
            """)

    @OptionGroup var options: StoreOptions

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 7654

    @Option(help: "The name companions see.")
    var name = "CareSync primary"

    @Flag(help: "Print events as JSON lines.")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let store = try options.open()
            let (info, _) = try store.configuredPlan()
            var configuration = PrimaryConfiguration(nodeID: "primary-" + info.planID.prefix(8))
            configuration.host = host
            configuration.port = port
            configuration.name = name
            let node = PrimaryNode(store: store, configuration: configuration)
            let signals = SignalHandlers { node.shutdown() }
            defer { signals.cancel() }
            let json = json
            let nodeID = configuration.nodeID
            try await node.run { address in
                if json {
                    emit(#"{"event":"listening","host":"\#(address.ipAddress ?? "")","port":\#(address.port ?? 0),"nodeID":"\#(nodeID)","planID":"\#(info.planID)"}"#)
                } else {
                    emit("Listening on \(address.ipAddress ?? ""):\(address.port ?? 0) as \"\(name)\" for plan \(info.planID)")
                }
            }
            emit(json ? #"{"event":"stopped"}"# : "Stopped.")
        }
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
