import ArgumentParser
import CarePlan
import Foundation

struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init", abstract: "Create the store and set the plan's title and time zone.")

    @OptionGroup var options: StoreOptions

    @Option(help: "The plan's title.")
    var title = "Care plan"

    @Option(help: ArgumentHelp("The patient's IANA time zone (default: this machine's).", valueName: "zone"))
    var timeZone: String?

    func run() async throws {
        try await reportingFailures {
            let zoneName = timeZone ?? TimeZone.current.identifier
            guard let zone = TimeZone(identifier: zoneName) else {
                throw UsageError(description: PlanError.unknownTimeZone(zoneName).description)
            }
            let store = try options.open()
            let info = try store.configurePlan(title: title, timeZone: zone, device: options.device)
            emit("Store \(store.path): plan \"\(title)\" (\(zone.identifier)), id \(info.planID)")
        }
    }
}
