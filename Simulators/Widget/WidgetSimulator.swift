import ArgumentParser
import CarePlan
import Foundation
import SimulatorSupport
import SyncNode

@main
struct WidgetSimulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "widget-sim",
        abstract: Refresh.configuration.abstract,
        subcommands: [Refresh.self, PairCommand<WidgetRole>.self],
        defaultSubcommand: Refresh.self)
}

enum WidgetRole: SimulatorRole {
    static let role = DeviceRole.widget
    static let defaultName = "Widget"
}

/// One timeline refresh (the default).
struct Refresh: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refresh",
        abstract: "A home-screen widget's timeline refresh: connect, show what is left today, maybe complete one, exit.",
        discussion: """
            Exit status: 0 shown (and completed, if asked); 2 the completion was rejected; \
            3 the primary was not reachable (the cached list is shown, marked "cached");
            4 the completion was queued in the outbox for the next refresh.
            """)

    @OptionGroup var options: CompanionOptions

    @Option(help: ArgumentHelp("Complete an occurrence today, with optional values.", valueName: "activity:occurrence[:value]"))
    var complete: String?

    @Option(help: "Seconds to wait for the primary.")
    var timeout: Double = 5

    enum Status: Int32 {
        case shown = 0, rejected = 2, unreachable = 3, queued = 4
    }

    func run() async throws {
        let request = try complete.map(Self.parse)
        let output = EventOutput(json: options.json)
        var configuration = options.configuration(role: .widget, defaultName: "Widget") { output.showDiscovery($0) }
        configuration.replyTimeout = .seconds(timeout)
        let node = try await CompanionNode(configuration: configuration)
        let runner = Task { await node.run() }
        let context = await firstContext(node, output: output)
        var status = Status.shown
        if let context {
            output.show(context, type: "context", pending: node.pending)
        } else if let cached = node.context {
            output.show(cached, type: "cached", pending: node.pending)
            status = .unreachable
        } else {
            output.showError(code: "NOT_REACHABLE", message: "no primary \(options.primaryDescription) within \(timeout) s and nothing cached")
            status = .unreachable
        }
        if let (activity, occurrence, values) = request {
            let day = (context ?? node.context)?.days.first?.day ?? CalendarDay.containing(Date(), in: .current)
            let key = EventKey(activityID: activity, day: day, occurrence: occurrence)
            let result = try await node.complete(key, values: values)
            output.show(result, key: key, messageID: "")
            switch result {
            case .accepted: break
            case .rejected, .refused: status = .rejected
            case .queued: status = .queued
            }
        }
        await node.stop()
        runner.cancel()
        await runner.value
        throw ExitCode(status.rawValue)
    }

    /// The first context from the primary, or `nil` if none arrives in time; errors on the
    /// way are shown.
    private func firstContext(_ node: CompanionNode, output: EventOutput) async -> ApplicationContext? {
        await node.firstEvent(within: .seconds(timeout)) { event in
            if case .error = event { output.show(event) }
            if case .context(let context) = event { return context }
            return nil
        }
    }

    static func parse(_ text: String) throws -> (String, Int, [OutcomeValue]) {
        let parts = text.split(separator: ":")
        guard parts.count >= 2, let occurrence = Int(parts[1]) else {
            throw ValidationError("--complete must be ACTIVITY:OCCURRENCE[:VALUE], not \"\(text)\"")
        }
        return (String(parts[0]), occurrence, outcomeValues(parts.dropFirst(2)))
    }
}
