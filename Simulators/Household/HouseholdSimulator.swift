import CarePlan
import ArgumentParser
import Foundation
import MetricsEndpoint
import SimulatorSupport
import SyncNode
import SyncProtocol

@main
struct HouseholdSimulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "household-sim",
        abstract: Follow.configuration.abstract,
        subcommands: [Follow.self, PairCommand<HouseholdRole>.self],
        defaultSubcommand: Follow.self)
}

enum HouseholdRole: SimulatorRole {
    static let role = DeviceRole.household
    static let defaultName = "Household"
}

/// Follow the primary and take commands on stdin (the default).
struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "A household member's device: follows the care plan and reads its history.",
        discussion: """
            Commands, one per line on stdin:
              list                                  today's incomplete activities
              history [AFTER]                       the change log after revision AFTER (default 0)
              complete ACTIVITY OCCURRENCE [VALUE…] record it as done, if pairing granted recording
              skip ACTIVITY OCCURRENCE [REASON…]    record it as not done, likewise
              quit                                  say goodbye and exit
            Care reports the primary shares with this device are saved in --reports (default: the \
            state directory's reports/) and shown as they arrive.
            With --json every context, history entry, report, reply and error is one JSON line.
            """)

    @OptionGroup var options: CompanionOptions
    @OptionGroup var metrics: MetricsOptions

    @Option(help: ArgumentHelp("Where to save the care reports shared with this device.", valueName: "directory"))
    var reports: String?

    func run() async throws {
        let output = EventOutput(json: options.json)
        var configuration = options.configuration(role: .household, defaultName: "Household") { output.showDiscovery($0) }
        configuration.reportsDirectory = reports ?? options.stateDir + "/reports"
        let endpoint = metrics.endpoint(logger: configuration.logger, onListening: output.showMetrics)
        let node = try await CompanionNode(configuration: configuration)
        await CompanionShell(node: node, output: output).run(extra: [
            "history": { words, shell in await Self.history(words, shell) },
        ], metrics: endpoint)
    }

    /// `history [AFTER]`: every page of the change log after revision AFTER.
    private static func history(_ words: [Substring], _ shell: CompanionShell) async {
        guard var after = words.count > 1 ? Int(words[1]) : 0 else {
            shell.output.showError(code: "USAGE", message: "history [AFTER]")
            return
        }
        do {
            // Pages of 100, at most 100 pages: a household device shows recent history.
            for _ in 0..<100 {
                let page = try await shell.node.history(after: after)
                for entry in page.entries { shell.output.show(entry) }
                guard page.more, let last = page.entries.last else { break }
                after = last.revision
            }
        } catch {
            shell.output.showError(error, otherwise: "NOT_REACHABLE")
        }
    }
}
