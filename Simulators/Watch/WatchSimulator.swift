import ArgumentParser
import CarePlan
import Foundation
import MetricsEndpoint
import SimulatorSupport
import SyncNode
import SyncProtocol

@main
struct WatchSimulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch-sim",
        abstract: Follow.configuration.abstract,
        subcommands: [Follow.self, PairCommand<WatchRole>.self],
        defaultSubcommand: Follow.self)
}

enum WatchRole: SimulatorRole {
    static let role = DeviceRole.watch
    static let defaultName = "Watch"
}

/// Follow the primary and take commands on stdin (the default).
struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "A watch app: shows today's incomplete activities and records completions.",
        discussion: """
            Commands, one per line on stdin:
              list                                  today's incomplete activities
              complete ACTIVITY OCCURRENCE [VALUE…] record it as done (values: numbers or text)
              skip ACTIVITY OCCURRENCE [REASON…]    record it as not done
              done ACTIVITY OCCURRENCE              answer a reminder: the same as complete
              snooze ACTIVITY OCCURRENCE MINUTES    answer a reminder: remind again later
            ACTIVITY is an id, for today's event, or ID@YYYY-MM-DD for another day's.
              quit                                  say goodbye and exit
            With --json every context, reply and error is written as one JSON line.
            """)

    @OptionGroup var options: CompanionOptions
    @OptionGroup var metrics: MetricsOptions

    func run() async throws {
        let output = EventOutput(json: options.json)
        let configuration = options.configuration(role: .watch, defaultName: "Watch") { output.showDiscovery($0) }
        let endpoint = metrics.endpoint(logger: configuration.logger, onListening: output.showMetrics)
        let node = try await CompanionNode(configuration: configuration)
        await CompanionShell(node: node, output: output).run(extra: [
            "done": { words, shell in await shell.record(words, notDone: false) },
            "snooze": { words, shell in await Self.snooze(words, shell) },
        ], metrics: endpoint)
    }

    /// `snooze ACTIVITY OCCURRENCE MINUTES`: answer a reminder with "later".
    private static func snooze(_ words: [Substring], _ shell: CompanionShell) async {
        guard let key = shell.eventKey(words, usage: "MINUTES"),
              let minutes = words.count > 3 ? Int(words[3]) : nil, minutes > 0 else {
            shell.output.showError(code: "USAGE", message: "snooze ACTIVITY OCCURRENCE MINUTES")
            return
        }
        do {
            try await shell.node.snooze(key, minutes: minutes)
        } catch {
            shell.output.showError(error, otherwise: "NOT_REACHABLE")
        }
    }
}
