import CareCore
import ArgumentParser
import CareFHIR
import CareLanguage
import CarePlan
import CarePlanStore
import CommandOptions
import Foundation
import LineOutput

struct FHIRImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import medication orders: each active order's dosage instructions become activities.",
        discussion: """
            Reads a Bundle or a single MedicationRequest (R4) or MedicationOrder (DSTU2) from FILE, \
            or searches a FHIR server: GET URL/MedicationRequest?patient=ID. Importing again updates \
            the activities (from --effective on), never duplicates them; stopped, cancelled, completed \
            and entered-in-error orders end theirs. What cannot be scheduled exactly is reported as a \
            warning. An order that cannot be read is refused with its path and reason and the others \
            are imported; the command fails only when nothing could be imported, or with --strict, \
            which imports nothing if any order is refused. An order CareSync must not schedule as \
            written (a modifierExtension, a timing in words alone) is held for review whole, and a \
            step of a sequence that follows a step without an end is held alone: imported and \
            listed by `caresync meds`, not scheduled until a corrected order is imported.
            """)

    @OptionGroup var options: StoreOptions
    @OptionGroup var logging: LoggingOptions

    @Argument(help: "A FHIR JSON file.")
    var file: String?

    @Option(help: ArgumentHelp("A FHIR server's base URL.", valueName: "url"))
    var server: String?

    @Option(help: ArgumentHelp("The patient whose orders the server search returns.", valueName: "id"))
    var patient: String?

    @Option(help: "The resource the server search asks for: MedicationOrder for a DSTU2 server.")
    var resource = "MedicationRequest"

    @Option(help: ArgumentHelp("The patient's time zone for a new store (default: this machine's).", valueName: "name"))
    var timeZone: String?

    @Option(help: ArgumentHelp("The day changes take effect (default: today in the plan's time zone).", valueName: "day"))
    var effective: CalendarDay?

    @Flag(help: "Print what changed as JSON.")
    var json = false

    @Flag(help: "Import nothing if any order is refused.")
    var strict = false

    func validate() throws {
        guard (file == nil) != (server == nil) else { throw ValidationError("give either FILE or --server URL --patient ID") }
        guard server == nil || patient != nil else { throw ValidationError("--server needs --patient") }
    }

    func run() async throws {
        try await reportingFailures {
            let store = try await options.openOrCreate()
            let input = try await read()
            let zone = try await store.planTimeZone(
                orDefault: timeZone, title: input.patients.values.first?.displayName.map { "Medications of \($0)" },
                device: options.device)
            let today = effective ?? CalendarDay.containing(Date(), in: zone)
            let mapper = await OrderMapper(
                today: today, timeZone: zone, routine: try store.plan.info().routine, language: try Language("en"))
            let report = try await FHIRImporter(mapper: mapper, device: options.device).run(input, into: store, strict: strict)
            if json { try emitJSON(report) } else { try await describe(report, today: today, in: store) }
            // Refusals alone, nothing imported: the input gave nothing usable.
            if report.imported == 0, !report.refused.isEmpty {
                LineOutput.standardError.write(line: "caresync: nothing imported: every order was refused")
                throw ExitCode.failure
            }
        }
    }

    private func describe(_ report: FHIRImportReport, today: CalendarDay, in store: CarePlanStore) async throws {
        for id in report.added + report.updated {
            guard let activity = try await store.plan.activity(id)?.activity else { continue }
            let verb = report.added.contains(id) ? "added" : "updated"
            emit("\(verb) \(id)  \"\(activity.title)\"  \(activity.instructions ?? "")")
        }
        for id in report.ended { emit("ended \(id)") }
        for reference in report.notScheduled { emit("not scheduled \(reference)") }
        for order in report.held {
            for hold in order.holds {
                emit("held \(order.reference) \(hold.activityID)  \(hold); import a corrected order to schedule it")
            }
        }
        for warning in report.warnings { emit("warning: \(warning)") }
        for refusal in report.refused { emit("refused \(refusal)") }
        emit("Imported \(report.imported) orders, \(report.refused.count) refused, effective \(today): \(report.added.count) added, "
             + "\(report.updated.count) updated, \(report.ended.count) ended, \(report.unchanged.count) unchanged; "
             + "revision \(report.revision)")
    }

    private func read() async throws -> FHIRInput {
        if let file {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw UsageError(description: "cannot read \(file): \(error.localizedDescription)")
            }
            return try FHIRInput.parse(data, document: file)
        }
        let client = FHIRClient(base: server!, logger: logging.bootstrap("caresync.fhir"))
        return try await client.medicationOrders(patient: patient!, resource: resource)
    }
}

extension CarePlanStore {
    /// The plan's time zone; a store without a plan is configured with `name` (or this
    /// machine's zone) and `title`.
    func planTimeZone(orDefault name: String?, title: String?, device: String) async throws -> TimeZone {
        if let zone = try await plan.info().timeZone {
            if let name, name != zone.identifier {
                throw UsageError(description: "the plan's time zone is \(zone.identifier), not \(name)")
            }
            return zone
        }
        let identifier = name ?? TimeZone.current.identifier
        guard let zone = TimeZone(identifier: identifier) else {
            throw UsageError(description: PlanError.unknownTimeZone(identifier).description)
        }
        try await CareCore(store: self).plan.configure(title: title ?? "Medications", timeZone: zone, device: device)
        return zone
    }
}
