import ArgumentParser
import CarePlan
import CarePlanStore
import LineOutput

struct EventsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events", abstract: "List one activity's events and outcomes over a range of days.")

    @OptionGroup var options: StoreOptions

    @Argument(help: "The activity's identifier.")
    var activity: String

    @Option(help: ArgumentHelp("The first day.", valueName: "YYYY-MM-DD"))
    var from: CalendarDay

    @Option(help: ArgumentHelp("The last day (inclusive).", valueName: "YYYY-MM-DD"))
    var to: CalendarDay

    @Flag(help: "Print the events as JSON.")
    var json = false

    func validate() throws {
        guard from <= to else { throw ValidationError("--from \(from) is after --to \(to)") }
        guard from.distance(to: to) < 366 * 20 else { throw ValidationError("the range is longer than 20 years") }
    }

    func run() async throws {
        try await reportingFailures {
            let events = try await options.open().outcomes.events(of: activity, from: from, through: to)
            if json {
                try emitJSON(EventListJSON(activity: activity, from: from, to: to, events: events.map(EventJSON.init)))
                return
            }
            for event in events {
                let time = event.time?.description ?? "--:--"
                let result = event.outcome.map { $0.values.map(\.formatted).joined(separator: "/") } ?? ""
                emit("\(event.key.day)  #\(event.key.occurrence)  \(time)  \(event.state.rawValue)  \(result)")
            }
            if events.isEmpty { emit("No events of \(activity) from \(from) to \(to).") }
        }
    }
}

struct EventListJSON: Encodable {
    var activity: String
    var from: CalendarDay
    var to: CalendarDay
    var events: [EventJSON]
}
