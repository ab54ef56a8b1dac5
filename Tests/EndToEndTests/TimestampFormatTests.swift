import Foundation
import Testing

/// Every JSON output writes instants in one form: UTC with milliseconds (LineOutput.docc/JSONOutput.md).
struct TimestampFormatTests {
    let scratch = Scratch()

    @Test func everyCommandsJSONWritesInstantsInUTCWithMilliseconds() async throws {
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let day = "2026-11-23"
        // The history holds the set-up's commits too, which a loaded machine may spread over minutes.
        let started = Date()
        try await caresync.run("plan", "load", CareSyncCommand.example("zombiecare-plan.json"), "--effective", "2026-11-01")
        try await caresync.run("fhir", "import", CareSyncCommand.example("fhir/medications-bundle.json"), "--effective", "2026-11-01")
        #expect(try await caresync.run("complete", "pain", "--occurrence", "0", "--value", "3", "--date", day).status == 0)
        #expect(try await caresync.run("complete", "rx-metf", "--occurrence", "0", "--date", day).status == 0)

        let outputs: [(command: [String], field: String)] = [
            (["today", "--date", day, "--json"], "recordedAt"),
            (["events", "pain", "--from", day, "--to", day, "--json"], "recordedAt"),
            (["history", "--json"], "committedAt"),
            (["meds", "show", "rx-metf", "--json"], "recordedAt"),
            (["pair", "--role", "watch", "--json"], "expiresAt"),
        ]
        for (command, field) in outputs {
            let result = try await CareSyncCommand.run(executable: CareSyncCommand.executable, command + ["--store", caresync.store])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            let instants = try result.lines.flatMap { try timestamps(in: JSONSerialization.jsonObject(with: Data($0.utf8))) }
            #expect(instants.contains { $0.key == field }, "\(command) wrote no \(field)")
            for (key, text) in instants {
                let date = try #require(utcInstant(text), "\(command): \(key) \(text)")
                // Recorded or valid from now: within the run, give or take the expiry of a code.
                #expect(date > started.addingTimeInterval(-60) && date < Date().addingTimeInterval(600), "\(command): \(key) \(text)")
            }
        }
    }
}

/// `2026-11-23T08:00:00.000Z` and nothing else: the date the text names, or nil.
func utcInstant(_ text: String) -> Date? {
    guard text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil else { return nil }
    return try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true))
}

/// Every string value in a JSON document that starts like a date-time, with its key.
func timestamps(in json: Any, key: String = "") -> [(key: String, text: String)] {
    switch json {
    case let object as [String: Any]: object.flatMap { timestamps(in: $0.value, key: $0.key) }
    case let array as [Any]: array.flatMap { timestamps(in: $0, key: key) }
    case let text as String where text.prefixMatch(of: /\d{4}-\d\d-\d\dT/) != nil: [(key, text)]
    default: []
    }
}
