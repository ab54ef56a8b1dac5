import CareBackup
import CarePlan
import ArgumentParser
import CommandOptions
import Foundation
import MetricsEndpoint
import NodeIdentity
import SimulatorSupport
import SyncNode

@main
struct HouseholdSimulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "household-sim",
        abstract: Follow.configuration.abstract,
        subcommands: [Follow.self, PairCommand<HouseholdRole>.self, StandbyCommand.self],
        defaultSubcommand: Follow.self)
}

enum HouseholdRole: SimulatorRole {
    static let role = DeviceRole.household
    static let defaultName = "Household"

    /// One more primary for the household: its pairings stay side by side.
    static func pair(code: PairingCode, configuration: CompanionConfiguration) async throws -> PairingResult {
        try await Household.pair(code: code, configuration: configuration)
    }
}

/// Follow every paired primary and take commands on stdin (the default).
struct Follow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "follow",
        abstract: "A household member's device: follows each person's care plan, their history and missed doses.",
        discussion: """
            Pair once per person with `household-sim pair CODE`; `follow` then follows every \
            primary paired, each found again on the network (by its fingerprint) when it moves.

            Commands, one per line on stdin (with several people, --person NAME|ID, or an \
            unambiguous beginning of either, says whose plan):
              list [--person P]             today's incomplete activities, by person
              history [--person P] [AFTER]  changes after revision AFTER (default 0)
              complete [--person P] ACTIVITY OCCURRENCE [VALUE…]
                                            record it as done, if pairing granted recording
              skip [--person P] ACTIVITY OCCURRENCE [REASON…]
                                            record it as not done, likewise
              quiet HH:MM-HH:MM             hold non-critical alerts in these hours (kept)
              quiet off                     end the quiet hours
              snooze MINUTES                hold non-critical alerts for MINUTES
              quit                          say goodbye and exit

            Missed-dose alerts (and their all clears) are shown as they arrive, with a desktop \
            notification where notify-send exists; in quiet hours or a snooze only critical ones \
            notify at once, the others when it ends (also after a restart), unless their dose was \
            settled by then.

            Care reports the primaries share with this device are saved in --reports (default: the \
            state directory's reports/), one directory per person, and shown as they arrive.

            A primary that paired this device with `caresync pair --role household --standby` keeps a \
            standby copy of its store here, encrypted, each step shown as it is kept; \
            `household-sim standby export` makes a backup of it for `caresync restore`.

            With --json every context, history entry, alert, report, reply and error is one JSON line.
            """)

    @OptionGroup var options: CompanionOptions
    @OptionGroup var metrics: MetricsOptions

    @Option(help: ArgumentHelp("Where to save the care reports shared with this device.", valueName: "directory"))
    var reports: String?

    @Option(help: ArgumentHelp("Hold alerts that are not critical in these hours, on this device's clock (kept for later runs).", valueName: "HH:MM-HH:MM"))
    var quietHours: String?

    @Flag(inversion: .prefixedNo, help: "Ask the primaries for missed-dose alerts.")
    var alerts = true

    func validate() throws {
        if let quietHours, QuietHours(quietHours) == nil {
            throw ValidationError("--quiet-hours must be HH:MM-HH:MM with two different times, not \"\(quietHours)\"")
        }
    }

    func run() async throws {
        let output = EventOutput(json: options.json)
        var household = options.configuration(role: .household, defaultName: "Household") { output.showDiscovery($0) }
        household.alerts = alerts
        let people = try await Household.people(in: options.stateDir, logger: household.logger)
        guard !people.isEmpty else {
            output.showError(code: "NOT_PAIRED", message: "not paired with a primary: pair first with a code from `caresync pair`")
            throw ExitCode.failure
        }
        guard people.count == 1 || (options.connect == nil && options.primary == nil) else {
            throw ValidationError("this device follows \(people.count) people: drop --connect and --primary, and each primary is found on the network")
        }
        var nodes: [CompanionNode] = []
        for person in people {
            var configuration = Household.configuration(for: person, of: household)
            configuration.reportsDirectory = (reports ?? options.stateDir + "/reports") + "/" + URL(fileURLWithPath: person).lastPathComponent
            configuration.standby = try StandbyCopy(directory: Household.standbyDirectory(of: person))
            nodes.append(try await CompanionNode(configuration: configuration))
        }
        let presenter = AlertPresenter(
            people: nodes.map { ($0.knownPrimaryID ?? "", output.about($0)) }, stateDirectory: options.stateDir,
            quietHours: quietHours.flatMap(QuietHours.init), logger: household.logger)
        let endpoint = metrics.endpoint(logger: household.logger, onListening: output.showMetrics)
        await CompanionShell(people: nodes, output: output).run(extra: [
            "history": { words, shell in await Self.history(words, shell) },
            "quiet": { words, shell in presenter.quiet(words, shell.output) },
            "snooze": { words, shell in presenter.snooze(words, shell.output) },
        ], metrics: endpoint, beside: [presenter], onAlerts: presenter.present)
    }

    /// `history [--person P] [AFTER]`: every page of the person's change log after revision AFTER.
    private static func history(_ words: [Substring], _ shell: CompanionShell) async {
        var words = words
        guard let node = shell.person(&words) else { return }
        guard var after = words.count > 1 ? Int(words[1]) : 0 else {
            shell.output.showError(code: "USAGE", message: "history [--person P] [AFTER]")
            return
        }
        let output = shell.output(for: node)
        do {
            // Pages of 100, at most 100 pages: a household device shows recent history.
            for _ in 0..<100 {
                let page = try await node.history(after: after)
                for entry in page.entries { output.show(entry) }
                guard page.more, let last = page.entries.last else { break }
                after = last.revision
            }
        } catch {
            output.showError(error, otherwise: "NOT_REACHABLE")
        }
    }
}
