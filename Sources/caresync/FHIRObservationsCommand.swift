import ArgumentParser
import CareFHIR
import CarePlan
import CarePlanStore
import CommandOptions
import Foundation
import LineOutput

struct FHIRObservationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "observations",
        abstract: "Send health measurements as FHIR R4 Observations, with their Patient and a Device per source.",
        discussion: """
            Examples:
              caresync fhir observations --out observations.json
              caresync fhir observations --server https://fhir.example.org/r4
            Heart rate, blood pressure and glucose follow R4's vital-signs profile; steps are in \
            the activity category. Every resource is a conditional create on CareSync's \
            identifier, so sending the same measurements again creates nothing new. Without \
            --server one transaction Bundle of the measurements taken since --since (default: \
            all) goes to --out or standard output. With --server the Bundles are posted in \
            transactions of --batch-size Observations, from where the last upload to that server \
            stopped; the first upload to a server sends only what was taken since the start of \
            today in the plan's time zone, unless --since says otherwise.
            """)

    @OptionGroup var options: StoreOptions
    @OptionGroup var logging: LoggingOptions
    @OptionGroup var upload: FHIRServerOptions

    @Option(help: ArgumentHelp("Measurements taken since this day (or moment).", valueName: "YYYY-MM-DD|time"))
    var since: String?

    @Option(help: ArgumentHelp("Write the Bundle to this file.", valueName: "file"))
    var out: String?

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    func validate() throws {
        if let since, CalendarDay(since) == nil, ISO8601.date(from: since) == nil {
            throw ValidationError("--since takes a day YYYY-MM-DD or an ISO 8601 time, not \"\(since)\"")
        }
        if out != nil, upload.server != nil { throw ValidationError("--out and --server: give one") }
    }

    func run() async throws {
        let logger = logging.bootstrap("caresync.fhir")
        try await reportingFailures {
            let store = try await options.open()
            let info = try await store.plan.info()
            let mapper = try ObservationMapper(info: info)
            let from = since.map { CalendarDay($0)?.start(in: mapper.timeZone) ?? ISO8601.date(from: $0)! }
            guard let poster = try upload.poster(logger: logger) else {
                let measurements = try await store.measurements.list(storedAfter: 0, takenFrom: from, limit: Int.max)
                try writeBundle(try mapper.bundle(measurements), to: out)
                return say(ObservationSummary(observations: measurements.count).description, json: nil)
            }
            let uploader = ObservationUploader(store: store, poster: poster, mapper: mapper, batchSize: upload.batchSize)
            let today = CalendarDay.containing(Date(), in: mapper.timeZone).start(in: mapper.timeZone)
            // --since sends what was taken since then, wherever the cursor stands.
            let (after, takenFrom): (Int, Date?) = if let from { (0, from) } else { try await uploader.start(firstFrom: today) }
            if let takenFrom, !json {
                emit("sending the measurements taken since \(FHIRDateTime.string(takenFrom, in: mapper.timeZone))"
                    + (since == nil ? " (a first upload to \(poster.url): --since sends earlier ones)" : ""))
            }
            var summary = ObservationSummary(observations: 0, created: 0, existing: 0)
            try await uploader.upload(after: after, takenFrom: takenFrom) { progress in
                summary.add(progress)
                if !json {
                    emit("sent \(progress.observations) to \(poster.url): \(progress.created) created, \(progress.existing) already there; "
                        + "cursor at measurement \(progress.through)")
                }
            }
            summary.cursor = try await store.measurements.cursor(uploader.cursorName)
            say(summary.description, json: try summary.json())
        }
    }

    /// The summary: to standard error when the Bundle went to standard output.
    private func say(_ text: String, json line: String?) {
        if json, let line { return emitVerbatim(line) }
        if out == nil, upload.server == nil { LineOutput.standardError.write(text: text) } else { emit(text) }
    }
}

/// What an Observations export did, for people or as JSON.
struct ObservationSummary: Encodable, CustomStringConvertible {
    var observations: Int
    var created: Int?
    var existing: Int?
    /// The measurement sequence the next upload starts after.
    var cursor: Int?

    mutating func add(_ progress: ObservationProgress) {
        observations += progress.observations
        created = (created ?? 0) + progress.created
        existing = (existing ?? 0) + progress.existing
    }

    var description: String {
        let sent = created.map { ", \($0) created, \(existing ?? 0) already there" } ?? ""
        let kept = cursor.map { "; the next upload starts after measurement \($0)" } ?? ""
        return "\(observations) Observation\(observations == 1 ? "" : "s")" + sent + kept
    }

    func json() throws -> String {
        try JSONLine.encode(self)
    }
}
