import ArgumentParser
import CarePlan
import CarePlanStore
import LineOutput

struct ActivitiesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activities", abstract: "List activities, filtered by kind, group or tag, a page at a time.")

    @OptionGroup var options: StoreOptions

    @Option(help: "intervention or assessment.")
    var kind: ActivityKind?

    @Option(help: "Only activities in this group.")
    var group: String?

    @Option(help: "Only activities with this tag.")
    var tag: String?

    @Flag(help: "Include ended activities.")
    var includeEnded = false

    @Option(help: "At most this many.")
    var limit: Int?

    @Option(help: "Skip this many first.")
    var offset = 0

    @Flag(help: "Print the activities as JSON (newest versions, in the document form).")
    var json = false

    func run() async throws {
        try await reportingFailures {
            let query = ActivityQuery(
                kind: kind, group: group, tag: tag, includeEnded: includeEnded, limit: limit, offset: offset)
            let versions = try await options.open().plan.activities(query)
            if json {
                try emitJSON(versions)
                return
            }
            for version in versions {
                emit("\(version.activity.identifier)  \(version.activity.kind.rawValue)  \"\(version.activity.title)\"  version \(version.version)")
            }
        }
    }
}

extension ActivityKind: ExpressibleByArgument {}
