import ArgumentParser

@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "caresync-bench",
        abstract: "Measure CareSync and print the figures. Build with -c release for real numbers.",
        subcommands: [
            StoreBenchmark.self, SyncBenchmark.self, FleetBenchmark.self, MeasurementBenchmark.self, DiscoveryBenchmark.self,
            ReminderBenchmark.self, WebBenchmark.self, IdleBenchmark.self,
        ])
}
