import ArgumentParser

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

            Errors print one line on stderr and exit with status 1; nothing is written.
            """,
        subcommands: [
            InitCommand.self, PlanCommand.self, TodayCommand.self, CompleteCommand.self,
            EventsCommand.self, ActivitiesCommand.self, HistoryCommand.self, PrimaryCommand.self, PairCommand.self,
            DevicesCommand.self, RemindersCommand.self,
            FHIRCommand.self, MedsCommand.self, InsightsCommand.self, ReportCommand.self, ContactsCommand.self, ShareCommand.self,
            MeasurementsCommand.self, BackupCommand.self, RestoreCommand.self,
        ]
    )

    /// Accepts the store options before the command too (`caresync --store F today`).
    static func main() async {
        await main(StoreOptions.movingLeadingOptions(Array(CommandLine.arguments.dropFirst())))
    }
}
