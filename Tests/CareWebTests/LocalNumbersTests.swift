import CarePlan
import CarePlanStore
import Foundation
import Testing

/// Issue 53, item 7: a page writes numbers as its language does. A German page wrote
/// "73.1 kg" and "120.5 mmHg", and offered "120.5" to type again.
struct LocalNumbersTests {
    @Test func aGermanPageWritesRecordedNumbersWithADecimalComma() async throws {
        let web = try await WebFixture()
        let day = WebFixture.day
        let pressure = try Activity(
            identifier: "pressure", kind: .assessment, title: "Blood pressure",
            result: .number(unit: "mmHg", components: ["systolic", "diastolic"]), schedule: .daily(occurrences: 1, start: day))
        let weight = try Activity(
            identifier: "weight", kind: .assessment, title: "Weight", result: .number(unit: "kg"), schedule: .daily(occurrences: 1, start: day))
        let dizzy = try Activity(
            identifier: "dizzy", kind: .assessment, title: "Dizzy", result: .boolean, schedule: .daily(occurrences: 1, start: day))
        for activity in [pressure, weight, dizzy] { try await web.store.core.plan.addActivity(activity, effectiveFrom: day, device: "test") }
        let record = { (id: String, values: [OutcomeValue]) in
            _ = try await web.store.record(
                Outcome(state: .completed, values: values, recordedAt: web.clock.now, device: "test"), for: EventKey(activityID: id, day: day, occurrence: 0))
        }
        try await record("pressure", [OutcomeValue(.decimal(120.5), unit: "mmHg", kind: "systolic"), OutcomeValue(.integer(80), unit: "mmHg", kind: "diastolic")])
        try await record("weight", [OutcomeValue(.decimal(73.1), unit: "kg")])
        try await record("dizzy", [OutcomeValue(.boolean(true))])
        try await web.signIn()
        let german = try await web.request(.GET, "/symptoms", headers: [("Accept-Language", "de")]).body
        #expect(german.contains("Erfasst: 120,5 mmHg / 80 mmHg"), "\(german)")
        #expect(german.contains("Erfasst: 73,1 kg"))
        #expect(german.contains("Erfasst: Ja"))
        #expect(german.contains(#"value="120,5""#) && german.contains(#"value="73,1""#), "offered to type again as German writes it")
        #expect(german.firstMatch(of: /\d\.\d/) == nil, "no number with a decimal point")
        let english = try await web.request(.GET, "/symptoms", headers: [("Accept-Language", "en")]).body
        #expect(english.contains("Recorded: 120.5 mmHg / 80 mmHg") && english.contains("Recorded: 73.1 kg") && english.contains("Recorded: Yes"))
        try await web.stop()
    }
}
