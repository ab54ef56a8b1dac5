import ArgumentParser
import Foundation
import LineOutput

@main
struct CareSync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caresync",
        abstract: "Keep a patient's care plan: load it, see today's care card, record what was done.",
        discussion: """
            The store is one SQLite file, by default $XDG_DATA_HOME/caresync/store.sqlite \
            (or ~/.local/share/caresync/store.sqlite); --store or $CARESYNC_STORE chooses another. \
            Only `init`, `plan load`, `fhir import` and `restore` make a store; every other \
            command opens one that exists, and says so when there is none at that path.

            Errors print one line on stderr. A command line that does not parse (an unknown \
            command or option, a value missing or malformed) exits with status 64; what a command \
            refuses or fails to do, with status 1.
            """,
        subcommands: [
            InitCommand.self, PlanCommand.self, TodayCommand.self, CompleteCommand.self,
            EventsCommand.self, ActivitiesCommand.self, HistoryCommand.self, PrimaryCommand.self, PairCommand.self,
            DevicesCommand.self, RemindersCommand.self,
            FHIRCommand.self, MedsCommand.self, InsightsCommand.self, ReportCommand.self, ContactsCommand.self, ShareCommand.self,
            MeasurementsCommand.self, BackupCommand.self, RestoreCommand.self,
        ]
    )

    /// Accepts the store options before the command too (`caresync --store F today`); a
    /// usage error is one line on standard error and exit status 64 (``UsageErrors``).
    static func main() async {
        let arguments = StoreOptions.movingLeadingOptions(Array(CommandLine.arguments.dropFirst()))
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand { try await command.run() } else { try command.run() }
        } catch {
            let status = exitCode(for: error)
            guard status == .validationFailure else { exit(withError: error) }
            LineOutput.standardError.write(text: "caresync: " + UsageErrors.line(for: error, arguments: arguments))
            Foundation.exit(status.rawValue)
        }
    }
}
