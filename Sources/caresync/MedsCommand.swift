import ArgumentParser
import CareFHIR
import CareLanguage
import CarePlan
import CarePlanStore
import Foundation
import LineOutput

/// `caresync meds`: the medications (activities tagged `medication`) and their doses.
struct MedsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "meds", abstract: "List medications with their instructions, or one medication's doses.",
        subcommands: [List.self, MedsShowCommand.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the medications with instructions generated in a language.",
            discussion: """
                The prescriber's own text (FHIR Dosage.text) is shown beside the generated instructions. Orders, or \
                steps of them, that an import held for review are listed after the others with the reason: they are \
                not scheduled until a corrected order is imported.
                """)

        @OptionGroup var options: StoreOptions

        @Option(help: ArgumentHelp("The language of the instructions: en, de or any other with a data file.", valueName: "code"))
        var lang = "en"

        @Flag(help: "Include medications that have ended.")
        var includeEnded = false

        @Flag(help: "Print the medications as JSON.")
        var json = false

        func run() async throws {
            try await reportingFailures {
                let store = try await options.open()
                let language = try Language(lang)
                let text = DosageText(language: language, timeZone: try await store.plan.info().timeZone)
                var medications: [MedicationJSON] = []
                for version in try await store.plan.activities(ActivityQuery(tag: "medication", includeEnded: includeEnded)) {
                    medications.append(try await MedicationJSON(version.activity, store: store, text: text))
                }
                let held = try await HeldMedication.all(in: store, text: text)
                if json { return try emitJSON(medications + held.map(MedicationJSON.init)) }
                var ordersShown: Set<String> = []
                for medication in medications {
                    // An order of several dosages is read whole once, before its first.
                    if let order = medication.order, let whole = medication.orderInstructions, ordersShown.insert(order).inserted {
                        emit("\(order): \(whole)")
                    }
                    emit("\(medication.id)  \(medication.title)" + (medication.asNeeded ? "  (\(language.phrase("asNeeded")))" : ""))
                    emit("    \(medication.instructions)" + (medication.text.map { "  — \"\($0)\"" } ?? ""))
                }
                for medication in held {
                    emit("\(medication.activityID)  \(medication.title)  (\(language.phrase(["held", "label"])))")
                    emit("    \(medication.instructions)" + (medication.text.map { "  — \"\($0)\"" } ?? ""))
                    emit("    \(medication.order): \(medication.reason)")
                }
                if medications.isEmpty, held.isEmpty { emit("No medications.") }
            }
        }
    }
}

/// One medication as `meds --json` shows it.
struct MedicationJSON: Encodable {
    var id: String
    var title: String
    /// Generated from the order's dosage in the chosen language.
    var instructions: String
    /// The prescriber's text, shown beside.
    var text: String?
    var asNeeded: Bool
    /// The order, such as `MedicationRequest/abc`.
    var order: String?
    /// The whole order's instructions when it has several dosages ("…, then …").
    var orderInstructions: String?
    /// Why it is held for review, for one imported but not scheduled; else `null`.
    var heldForReview: String?

    init(_ activity: Activity, store: CarePlanStore, text generator: DosageText) async throws {
        let written = try await MedicationInstructions(activity, store: store, text: generator)
        id = activity.identifier
        title = activity.title
        instructions = written.instructions
        text = activity.text
        asNeeded = activity.schedule.asNeeded
        order = written.order
        orderInstructions = written.orderInstructions
    }

    /// One held for review: not scheduled, so never as needed.
    init(_ held: HeldMedication) {
        id = held.activityID
        title = held.title
        instructions = held.instructions
        text = held.text
        asNeeded = false
        order = held.order
        heldForReview = held.reason
    }

    enum CodingKeys: CodingKey { case id, title, instructions, text, asNeeded, order, orderInstructions, heldForReview }

    /// Absent values are written as `null` so every medication has every key.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(title, forKey: .title)
        try c.encode(instructions, forKey: .instructions)
        try c.encode(text, forKey: .text)
        try c.encode(asNeeded, forKey: .asNeeded)
        try c.encode(order, forKey: .order)
        try c.encode(orderInstructions, forKey: .orderInstructions)
        try c.encode(heldForReview, forKey: .heldForReview)
    }
}
