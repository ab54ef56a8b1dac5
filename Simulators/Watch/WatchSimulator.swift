import ArgumentParser
import CarePlan
import CommandOptions
import Foundation
import MetricsEndpoint
import SimulatorSupport
import SyncNode

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
              list                         today's incomplete activities
              complete ACTIVITY OCCURRENCE [VALUE…]
                                           record it as done (values: numbers or text)
              skip ACTIVITY OCCURRENCE [REASON…]
                                           record it as not done
              done ACTIVITY OCCURRENCE     answer a reminder: the same as complete
              snooze ACTIVITY OCCURRENCE MINUTES
                                           answer a reminder: remind again later
              measure TYPE VALUE [UNIT] [--at T | --from T --to T] [--source sensor|cuff]
                                           a measurement for the primary: heart-rate 72,
                                           steps 1200 --from 10:00 --to 11:00,
                                           blood-pressure 120/80, glucose 5.6 mmol/L
              quit                         say goodbye and exit

            ACTIVITY is an id, for today's event, or ID@YYYY-MM-DD for another day's.

            With --json every context, reply, measurement receipt and error is written as one \
            JSON line. With --sensor the watch also measures on its own, at the intervals given, \
            until --sensor-count samples or --sensor-seconds have passed; with --sensor-from it \
            fills the time from then to now at once, as a watch that was offline.
            """)

    @OptionGroup var options: CompanionOptions
    @OptionGroup var metrics: MetricsOptions

    @Option(help: ArgumentHelp("Measure on its own: TYPE:INTERVAL pairs.", valueName: "heart-rate:1s,steps:60s"))
    var sensor: String?

    @Option(help: "The most samples the sensor takes.")
    var sensorCount = 3600

    @Option(help: "The longest the sensor measures live, in seconds.")
    var sensorSeconds = 3600

    @Option(help: ArgumentHelp("Fill the time from this moment to now at once (ISO 8601).", valueName: "time"))
    var sensorFrom: String?

    func validate() throws {
        if let sensor {
            do { _ = try Sensor.streams(sensor) } catch { throw ValidationError(error.message) }
        }
        guard sensorCount > 0, sensorCount <= 10_000_000, sensorSeconds > 0 else {
            throw ValidationError("--sensor-count takes 1 to 10000000 and --sensor-seconds a positive number")
        }
        if let sensorFrom, ISO8601.date(from: sensorFrom).map({ $0 < Date() }) != true {
            throw ValidationError("--sensor-from takes an ISO 8601 time in the past, not \"\(sensorFrom)\"")
        }
    }

    func run() async throws {
        let output = EventOutput(json: options.json)
        let configuration = options.configuration(role: .watch, defaultName: "Watch") { output.showDiscovery($0) }
        let endpoint = metrics.endpoint(logger: configuration.logger, onListening: output.showMetrics)
        let node = try await CompanionNode(configuration: configuration)
        let sources = WatchSources(node: node)
        let measuring = try sensor.map {
            Sensor(streams: try Sensor.streams($0), count: sensorCount, seconds: sensorSeconds, from: sensorFrom.flatMap(ISO8601.date))
        }
        await withTaskGroup(of: Void.self) { group in
            if let measuring { group.addTask { await measuring.run(node, sources: sources, output: output) } }
            await CompanionShell(node: node, output: output).run(extra: [
                "done": { words, shell in await shell.record(words, notDone: false) },
                "snooze": { words, shell in await Self.snooze(words, shell) },
                "measure": { words, shell in await MeasureCommand.run(words, shell, sources: sources) },
            ], metrics: endpoint)
            group.cancelAll()
        }
    }

    /// `snooze ACTIVITY OCCURRENCE MINUTES`: answer a reminder with "later".
    private static func snooze(_ words: [Substring], _ shell: CompanionShell) async {
        guard let key = shell.eventKey(words, of: shell.node, usage: "MINUTES"),
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
