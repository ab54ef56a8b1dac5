import Foundation
import Testing

/// The patient's routine, set by `init` or a plan file, times the doses FHIR orders leave untimed.
struct RoutineCommandTests {
    let scratch = Scratch()
    let day = "2026-11-02"

    /// A Bundle of untimed orders: twice a day, four times a day by code, and at bedtime.
    func orders() throws -> String {
        func order(_ id: String, _ timing: String) -> String {
            #"""
            {"resource": {"resourceType": "MedicationRequest", "id": "\#(id)", "status": "active", "intent": "order",
              "subject": {"reference": "Patient/p1"}, "medicationCodeableConcept": {"text": "\#(id)"},
              "dosageInstruction": [{"timing": \#(timing)}]}}
            """#
        }
        let file = scratch.path("orders.json")
        try """
        {"resourceType": "Bundle", "type": "collection", "entry": [
          \(order("bid", #"{"repeat": {"frequency": 2, "period": 1, "periodUnit": "d"}}"#)),
          \(order("qid", #"{"code": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/v3-GTSAbbreviation", "code": "QID"}]}}"#)),
          \(order("hs", #"{"repeat": {"when": ["HS"], "offset": 30}}"#))]}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The time of each event of `activity` on the test's day.
    func times(_ caresync: CareSyncCommand, _ activity: String) async throws -> [String?] {
        try await caresync.json(CareCard.self, "today", "--date", day, "--json").events.filter { $0.activity == activity }.map(\.time)
    }

    @Test func initsRoutineTimesImportedOrders() async throws {
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let created = try await caresync.run("init", "--time-zone", "Europe/Vienna", "--breakfast", "07:15", "--dinner", "19:45", "--bed", "23:00")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try await caresync.run("plan", "show").lines.contains("Routine: wake 07:00, breakfast 07:15, lunch 12:30, dinner 19:45, bed 23:00"))
        let imported = try await caresync.run("fhir", "import", try orders(), "--effective", "2026-11-01")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try await times(caresync, "rx-bid") == ["07:15", "19:45"])
        #expect(try await times(caresync, "rx-qid") == ["07:15", "12:30", "19:45", "23:00"])
        #expect(try await times(caresync, "rx-hs") == ["22:30"])
    }

    @Test func aPlanFilesRoutineSurvivesShowAndLoad() async throws {
        let plan = scratch.path("plan.json")
        try #"""
        {"title": "Late riser", "timeZone": "Europe/Vienna", "start": "2026-11-01",
         "routine": {"wake": "09:00", "breakfast": "09:30", "dosesPerDay": {"2": ["09:30", "21:00"]}, "dayParts": {"night": "23:30"}},
         "activities": []}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let first = CareSyncCommand(store: scratch.path("first.sqlite"))
        #expect(try await first.run("plan", "load", plan).status == 0)
        let shown = try await first.run("plan", "show", "--json").stdout
        let routine = try #require(value(try JSONSerialization.jsonObject(with: Data(shown.utf8)), "routine") as? [String: Any])
        #expect(routine["wake"] as? String == "09:00")
        #expect(value(routine, "dosesPerDay", "2") as? [String] == ["09:30", "21:00"])
        #expect(value(routine, "dayParts", "night") as? String == "23:30")

        let copy = scratch.path("shown.json")
        try shown.write(toFile: copy, atomically: true, encoding: .utf8)
        let second = CareSyncCommand(store: scratch.path("second.sqlite"))
        #expect(try await second.run("plan", "load", copy).status == 0)
        #expect(try await second.run("plan", "show", "--json").stdout == shown)

        #expect(try await second.run("fhir", "import", try orders(), "--effective", "2026-11-01").status == 0)
        #expect(try await times(second, "rx-bid") == ["09:30", "21:00"])
        #expect(try await times(second, "rx-hs") == ["21:30"])
    }

    @Test func aRoutineOutOfOrderIsRefusedByName() async throws {
        let plan = scratch.path("plan.json")
        try #"""
        {"title": "T", "timeZone": "Europe/Vienna", "routine": {"breakfast": "06:30"}, "activities": []}
        """#.write(toFile: plan, atomically: true, encoding: .utf8)
        let caresync = CareSyncCommand(store: scratch.path("store.sqlite"))
        let result = try await caresync.run("plan", "load", plan)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("caresync: \(plan): $.routine"), "\(result.stderr)")
        let refused = try await caresync.run("init", "--dinner", "23:30")
        #expect(refused.status == 1)
        #expect(refused.stderr.split(separator: "\n").count == 1, "\(refused.stderr)")
    }
}
