import CarePlan
import Clocks
import DesktopNotification
import Foundation
import LineOutput
import MetricsEndpoint
import ServiceLifecycle
import SyncNode

/// A companion that follows its primary (a household device: each of its primaries) and
/// takes commands on standard input, one per line: `list`, `complete`, `skip`, `quit`, and
/// whatever commands its role adds. With several people followed, a command takes
/// `--person NAME|ID` (an unambiguous beginning will do) to say whose plan it means.
public struct CompanionShell: Sendable {
    public typealias Command = @Sendable (_ words: [Substring], _ shell: CompanionShell) async -> Void
    /// Shows dose alerts a node received (newest first), on that node's output.
    public typealias AlertHandler = @Sendable (_ alerts: [DoseAlert], _ output: EventOutput, _ person: PersonLabel) -> Void

    /// The nodes followed, one per primary.
    public let nodes: [CompanionNode]
    /// Lines about no one in particular (usage errors, identity).
    public let output: EventOutput
    /// Whether lines name the person they are about (a household device's).
    private let namesPeople: Bool

    /// A watch or widget following one primary.
    public init(node: CompanionNode, output: EventOutput) {
        nodes = [node]
        self.output = output
        namesPeople = false
    }

    /// A household device following `people`, one node per primary: each line about a
    /// person's plan names them.
    public init(people: [CompanionNode], output: EventOutput) {
        nodes = people
        self.output = output
        namesPeople = true
    }

    /// The node of a watch or widget.
    public var node: CompanionNode { nodes[0] }

    /// The output for lines about `node`'s person.
    public func output(for node: CompanionNode) -> EventOutput {
        namesPeople ? output.about(node) : output
    }

    /// Follows the primaries and runs commands until `quit`, the end of input, SIGTERM or
    /// SIGINT, with the metrics endpoint (if any) serving beside; each of those shuts the
    /// whole down gracefully: every node says Goodbye to its primary. A node refused for good
    /// (revoked by its primary, say) stops alone; the others go on. `beside` run along; dose
    /// alerts go to `onAlerts` when given, else each is a line.
    public func run(
        extra: [String: Command] = [:], metrics: MetricsEndpoint? = nil, beside: [any Service] = [], onAlerts: AlertHandler? = nil
    ) async {
        output.showIdentity(fingerprint: node.identity.fingerprint, display: node.identity.displayFingerprint)
        for node in nodes {
            if let cached = node.context { output(for: node).show(cached, type: "cached", pending: node.pending) }
        }
        // Started in this order, stopped in the reverse: the commands, then the nodes (their
        // Goodbyes), then the printers once each node's last event is out.
        var services = metrics.map { [ServiceGroupConfiguration.ServiceConfiguration(service: $0)] } ?? []
        services += beside.map { .init(service: $0) }
        services += nodes.map { .init(service: EventPrinter(node: $0, output: output(for: $0), onAlerts: onAlerts)) }
        services += nodes.map { .init(service: $0, successTerminationBehavior: nodes.count == 1 ? .gracefullyShutdownGroup : .ignore) }
        services.append(.init(service: CommandLoop(shell: self, extra: extra), successTerminationBehavior: .gracefullyShutdownGroup))
        var configuration = ServiceGroupConfiguration(services: services, logger: node.configuration.logger)
        configuration.gracefulShutdownSignals = [.sigterm, .sigint]
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            node.configuration.logger.error("the simulator's services failed", metadata: ["error": "\(error)"])
        }
    }

    /// The node whose person `--person NAME|ID` in `words` names, with those two words taken
    /// out, or the only node when there is one and `words` names none; `nil` after saying
    /// what is wrong.
    public func person(_ words: inout [Substring]) -> CompanionNode? {
        guard let flag = words.firstIndex(of: "--person") else {
            if nodes.count == 1 { return node }
            output.showError(code: "USAGE", message: "whose plan? add --person with one of: " + nodes.map(\.person.name).joined(separator: ", "))
            return nil
        }
        guard flag + 1 < words.count else {
            output.showError(code: "USAGE", message: "--person needs a name or id")
            return nil
        }
        let wanted = String(words[flag + 1])
        words.removeSubrange(flag...(flag + 1))
        let matches = PersonLabel.matching(wanted, among: nodes.map(\.person))
        guard matches.count == 1, let index = matches.first else {
            let known = nodes.map { "\($0.person.name) (\($0.person.id.prefix(8)))" }.joined(separator: ", ")
            output.showError(code: "UNKNOWN_PERSON", message: (matches.isEmpty ? "no one called \"\(wanted)\" is followed: " : "\"\(wanted)\" could be several: ") + known)
            return nil
        }
        return nodes[index]
    }

    /// The event named by `ACTIVITY[@DAY] OCCURRENCE` in a command, or `nil` after saying what is wrong.
    public func eventKey(_ words: [Substring], of node: CompanionNode, usage: String) -> EventKey? {
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
        var words = words
        guard let node = person(&words),
              let key = eventKey(words, of: node, usage: notDone ? "[REASON…]" : "[VALUE…]") else { return }
        let extra = words.dropFirst(3)
        do {
            let result = try await node.complete(
                key, state: notDone ? .notCompleted : .completed, values: notDone ? [] : outcomeValues(extra),
                reason: notDone && !extra.isEmpty ? extra.joined(separator: " ") : nil)
            // Replies that arrive in time are reported by the event stream; a queued one here.
            if result == .queued { output(for: node).show(result, key: key, messageID: "") }
        } catch {
            output.showError(code: "OUTBOX", message: "could not queue the completion: \(error)")
        }
    }

    /// `advance SECONDS` (with `--clock-start`): moves the device's clock on, and says the time.
    func advanceClock(_ words: [Substring]) {
        guard let clock = node.configuration.clock as? ShiftedClock, words.count == 2, let seconds = TimeInterval(words[1]),
              seconds >= 0, seconds.isFinite else {
            output.showError(code: "USAGE", message: "advance SECONDS")
            return
        }
        clock.advance(by: seconds)
        let now = ISO8601.string(from: clock.now)
        output.write(["type": "clock", "now": .string(now)], text: "Clock at \(now)")
    }

    /// `list`: each person's (or the one named) events still to do today.
    func list(_ words: [Substring]) {
        var words = words
        let chosen: [CompanionNode]
        if words.contains("--person") {
            guard let node = person(&words) else { return }
            chosen = [node]
        } else {
            chosen = nodes
        }
        for node in chosen {
            if let context = node.context {
                output(for: node).show(context, type: "list", pending: node.pending)
            } else {
                output(for: node).showError(code: "NO_CONTEXT", message: "no context received yet")
            }
        }
    }
}

/// Shows every event of the node until it stops, then waits for its own turn to stop: a
/// service that ends while the group shuts down another counts as a failure, and a node
/// refused for good (a revoked watch) ends its events before the group stops the printer.
private struct EventPrinter: Service {
    let node: CompanionNode
    let output: EventOutput
    let onAlerts: CompanionShell.AlertHandler?

    func run() async {
        // Failing backups notify once per run of failures, not on every reconnection.
        var notifiedSince: Date?
        for await event in node.events {
            if case .alerts(let alerts) = event, let onAlerts {
                onAlerts(alerts, output, node.person)
            } else if case .away(let notice) = event {
                let zone = node.context.flatMap { TimeZone(identifier: $0.timeZone) } ?? .gmt
                let now = node.configuration.clock.now
                output.show(notice, zone: zone, now: now)
                if case .cannotConfirm = notice {
                    DesktopNotification.post(
                        title: "CareSync: \(node.person.name)", body: EventOutput.text(of: notice, zone: zone, now: now), logger: node.configuration.logger)
                }
            } else {
                output.show(event)
            }
            if case .backupStatus(let status) = event, let trouble = status.trouble, trouble.since != notifiedSince {
                notifiedSince = trouble.since
                DesktopNotification.post(title: "CareSync: \(node.person.name)", body: EventOutput.text(of: trouble), logger: node.configuration.logger)
            }
        }
        try? await gracefulShutdown()
    }
}

/// The commands on standard input, one per line, until `quit`, the end of input or a
/// graceful shutdown.
private struct CommandLoop: Service {
    let shell: CompanionShell
    let extra: [String: CompanionShell.Command]

    func run() async {
        await cancelWhenGracefulShutdown { [shell, extra] in await Self.read(shell, extra) }
    }

    private static func read(_ shell: CompanionShell, _ extra: [String: CompanionShell.Command]) async {
        let names = (["list", "complete", "skip"] + extra.keys.sorted() + ["quit"]).joined(separator: ", ")
        for await line in StandardInput.lines() {
            let words = line.split(separator: " ")
            guard let command = words.first.map(String.init) else { continue }
            switch command {
            case "quit":
                return
            case "list":
                shell.list(words)
            case "complete", "skip":
                await shell.record(words, notDone: command == "skip")
            case "advance" where shell.node.configuration.clock is ShiftedClock:
                shell.advanceClock(words)
            default:
                guard let handler = extra[command] else {
                    shell.output.showError(code: "UNKNOWN_COMMAND", message: "unknown command \"\(command)\": use \(names)")
                    continue
                }
                await handler(words, shell)
            }
        }
    }
}
