import CarePlan
import Foundation
import MetricsEndpoint
import ServiceLifecycle
import SyncNode
import SyncProtocol

/// A companion that follows its primary and takes commands on standard input, one per
/// line: `list`, `complete`, `skip`, `quit`, and whatever commands its role adds.
public struct CompanionShell: Sendable {
    public typealias Command = @Sendable (_ words: [Substring], _ shell: CompanionShell) async -> Void

    public let node: CompanionNode
    public let output: EventOutput

    public init(node: CompanionNode, output: EventOutput) {
        self.node = node
        self.output = output
    }

    /// Follows the primary and runs commands until `quit`, the end of input, SIGTERM or
    /// SIGINT, with the metrics endpoint (if any) serving beside; each of those shuts the
    /// whole down gracefully: the node says Goodbye to the primary.
    public func run(extra: [String: Command] = [:], metrics: MetricsEndpoint? = nil) async {
        output.showIdentity(fingerprint: node.identity.fingerprint, display: node.identity.displayFingerprint)
        if let cached = node.context { output.show(cached, type: "cached", pending: node.pending) }
        // Started in this order, stopped in the reverse: the commands, then the node (its
        // Goodbye), then the printer once the node's last event is out.
        var services = metrics.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0)] } ?? []
        services += [
            .init(service: EventPrinter(node: node, output: output)),
            .init(service: node, successTerminationBehavior: .gracefullyShutdownGroup),
            .init(service: CommandLoop(shell: self, extra: extra), successTerminationBehavior: .gracefullyShutdownGroup),
        ]
        var configuration = ServiceGroupConfiguration(services: services, logger: node.configuration.logger)
        configuration.gracefulShutdownSignals = [.sigterm, .sigint]
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            node.configuration.logger.error("the simulator's services failed", metadata: ["error": "\(error)"])
        }
    }

    /// The event named by `ACTIVITY[@DAY] OCCURRENCE` in a command, or `nil` after saying what is wrong.
    public func eventKey(_ words: [Substring], usage: String) -> EventKey? {
        guard words.count >= 3, let occurrence = Int(words[2]) else {
            output.showError(code: "USAGE", message: "\(words[0]) ACTIVITY OCCURRENCE \(usage)")
            return nil
        }
        let target = words[1].split(separator: "@", maxSplits: 1)
        let today = node.context?.days.first?.day ?? CalendarDay.containing(Date(), in: .current)
        guard let day = target.count == 2 ? CalendarDay(String(target[1])) : today else {
            output.showError(code: "USAGE", message: "\(words[1]): the day must be YYYY-MM-DD")
            return nil
        }
        return EventKey(activityID: String(target[0]), day: day, occurrence: occurrence)
    }

    /// `complete ACTIVITY OCCURRENCE [VALUE…]` or `skip ACTIVITY OCCURRENCE [REASON…]`.
    public func record(_ words: [Substring], notDone: Bool) async {
        guard let key = eventKey(words, usage: notDone ? "[REASON…]" : "[VALUE…]") else { return }
        let extra = words.dropFirst(3)
        do {
            let result = try await node.complete(
                key, state: notDone ? .notCompleted : .completed, values: notDone ? [] : outcomeValues(extra),
                reason: notDone && !extra.isEmpty ? extra.joined(separator: " ") : nil)
            // Replies that arrive in time are reported by the event stream; a queued one here.
            if result == .queued { output.show(result, key: key, messageID: "") }
        } catch {
            output.showError(code: "OUTBOX", message: "could not queue the completion: \(error)")
        }
    }
}

/// Shows every event of the node until it stops, then waits for its own turn to stop: a
/// service that ends while the group shuts down another counts as a failure, and a node
/// refused for good (a revoked watch) ends its events before the group stops the printer.
private struct EventPrinter: Service {
    let node: CompanionNode
    let output: EventOutput

    func run() async {
        for await event in node.events { output.show(event) }
        try? await gracefulShutdown()
    }
}

/// The commands on standard input, one per line, until `quit`, the end of input or a
/// graceful shutdown.
private struct CommandLoop: Service {
    let shell: CompanionShell
    let extra: [String: CompanionShell.Command]

    func run() async throws {
        try await cancelWhenGracefulShutdown { [shell, extra] in await Self.read(shell, extra) }
    }

    private static func read(_ shell: CompanionShell, _ extra: [String: CompanionShell.Command]) async {
        let names = (["list", "complete", "skip"] + extra.keys.sorted() + ["quit"]).joined(separator: ", ")
        let (node, output) = (shell.node, shell.output)
        for await line in StandardInput.lines() {
            let words = line.split(separator: " ")
            guard let command = words.first.map(String.init) else { continue }
            switch command {
            case "quit":
                return
            case "list":
                if let context = node.context { output.show(context, type: "list", pending: node.pending) }
                else { output.showError(code: "NO_CONTEXT", message: "no context received yet") }
            case "complete", "skip":
                await shell.record(words, notDone: command == "skip")
            default:
                guard let handler = extra[command] else {
                    output.showError(code: "UNKNOWN_COMMAND", message: "unknown command \"\(command)\": use \(names)")
                    continue
                }
                await handler(words, shell)
            }
        }
    }
}
