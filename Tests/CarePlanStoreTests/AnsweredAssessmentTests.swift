import CarePlan
import CarePlanStore
import Foundation
import Testing

/// An assessment linked to a measurement type is answered by the samples the store keeps:
/// each completes the first open event of its day in the plan's time zone, once.
struct AnsweredAssessmentTests {
    let scratch = Scratch()
    let store: CarePlanStore
    let cuff = MeasurementSource(id: "cuff", name: "Cuff")
    let vienna = TimeZone(identifier: "Europe/Vienna")!

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"))
        let pressure = try Activity(
            identifier: "blood-pressure", kind: .assessment, title: "Blood pressure",
            result: .number(unit: "mmHg", components: ["systolic", "diastolic"]), measurement: .bloodPressure,
            schedule: .daily(times: [TimeOfDay("08:00")!, TimeOfDay("20:00")!], start: monday))
        let glucose = try Activity(
            identifier: "glucose", kind: .assessment, title: "Glucose", result: .number(unit: "mmol/L"), measurement: .glucose,
            schedule: .daily(occurrences: 1, start: monday))
        let pain = try painScale()
        try await store.core.plan.load(Plan(title: "Test", timeZone: vienna, activities: [pressure, glucose, pain]), effectiveFrom: monday, device: "test")
    }

    /// `hour`:00 on `day` in Vienna.
    func at(_ day: String, _ hour: Int) -> Date {
        CalendarDay(day)!.date(at: TimeOfDay(hour: hour, minute: 0)!, in: vienna)
    }

    func pressure(_ id: String, _ systolic: Double, _ diastolic: Double, at date: Date) -> MeasurementSample {
        MeasurementSample(id: id, type: .bloodPressure, value: systolic, diastolic: diastolic, unit: "mm[Hg]", start: date, sourceID: cuff.id)
    }

    @Test func eachSampleCompletesTheNextOpenEventOfItsDay() async throws {
        let tuesday = CalendarDay("2026-11-03")!
        // The evening's done by hand first: the morning sample takes occurrence 0, the next finds none open.
        try await store.record(
            Outcome(state: .completed, values: [OutcomeValue(.decimal(118), unit: "mmHg", kind: "systolic"),
                                                OutcomeValue(.decimal(76), unit: "mmHg", kind: "diastolic")],
                    recordedAt: at("2026-11-03", 20), device: "by-hand"),
            for: EventKey(activityID: "blood-pressure", day: tuesday, occurrence: 1))
        let receipt = try await store.record(
            [pressure("p1", 131, 85, at: at("2026-11-03", 7)), pressure("p2", 125, 80, at: at("2026-11-03", 9)),
             // 00:30 on Wednesday in Vienna is still Tuesday in UTC: it counts on Wednesday.
             pressure("p3", 122, 79, at: at("2026-11-04", 0).addingTimeInterval(1800))],
            sources: [cuff], device: "watch-1")
        #expect(receipt.stored == ["p1", "p2", "p3"])
        #expect(receipt.completed == [
            EventKey(activityID: "blood-pressure", day: tuesday, occurrence: 0),
            EventKey(activityID: "blood-pressure", day: tuesday.adding(days: 1), occurrence: 0),
        ])
        let morning = try await store.outcomes.event(EventKey(activityID: "blood-pressure", day: tuesday, occurrence: 0))
        #expect(morning.state == .completed && morning.outcome?.device == "watch-1")
        #expect(morning.outcome?.values == [
            OutcomeValue(.decimal(131), unit: "mmHg", kind: "systolic"), OutcomeValue(.decimal(85), unit: "mmHg", kind: "diastolic"),
        ])
        #expect(morning.outcome?.recordedAt == at("2026-11-03", 7) && morning.outcome?.userInfo == ["measurement": "p1"])
        let evening = try await store.outcomes.event(EventKey(activityID: "blood-pressure", day: tuesday, occurrence: 1))
        #expect(evening.outcome?.device == "by-hand", "an event with an outcome is left as it is")
        // The same sample again is a duplicate, and completes nothing more.
        let again = try await store.record([pressure("p3", 122, 79, at: at("2026-11-04", 0))], sources: [], device: "watch-1")
        #expect(again.duplicates == ["p3"] && again.completed.isEmpty)
        let history = try await store.history(after: 0, limit: 100).filter { $0.device == "watch-1" }
        #expect(history.map(\.event) == receipt.completed.map { Optional($0) })
    }

    @Test func aSampleInAnotherUnitIsRecordedInTheAssessments() async throws {
        let reading = MeasurementSample(id: "g1", type: .glucose, value: 99, unit: "mg/dL", start: at("2026-11-05", 12), sourceID: cuff.id)
        let heart = MeasurementSample(id: "h1", type: .heartRate, value: 70, unit: "/min", start: at("2026-11-05", 12), sourceID: cuff.id)
        let receipt = try await store.record([heart, reading], sources: [cuff], device: "meter")
        #expect(receipt.completed == [EventKey(activityID: "glucose", day: CalendarDay("2026-11-05")!, occurrence: 0)], "nothing answers a heart rate")
        let value = try #require(try await store.outcomes.event(receipt.completed[0]).outcome?.values.first)
        guard case .decimal(let millimoles) = value.value else {
            Issue.record("not a decimal: \(value)")
            return
        }
        #expect(abs(millimoles - 99 / MeasurementSample.glucoseMilligramsPerMillimole) < 1e-9 && value.unit == "mmol/L")
    }

    @Test func aLinkMustFitTheAssessmentsResult() throws {
        let schedule = try Schedule.daily(occurrences: 1, start: monday)
        #expect(throws: ActivityError.self) {
            try Activity(identifier: "bp", kind: .assessment, title: "BP", result: .number(unit: "mmHg"), measurement: .bloodPressure, schedule: schedule)
        }
        #expect(throws: ActivityError.self) {
            try Activity(identifier: "hr", kind: .assessment, title: "HR", result: .number(unit: "kg"), measurement: .heartRate, schedule: schedule)
        }
        #expect(throws: ActivityError.self) {
            try Activity(identifier: "walk", kind: .intervention, title: "Walk", measurement: .steps, schedule: schedule)
        }
        #expect(throws: ActivityError.self) {
            try Activity(identifier: "mood", kind: .assessment, title: "Mood", result: .scale(min: 0, max: 10), measurement: .heartRate, schedule: schedule)
        }
        #expect(throws: ActivityError.self, "components only for a blood pressure") {
            try Activity(
                identifier: "hr", kind: .assessment, title: "HR", result: .number(unit: "/min", components: ["resting", "walking", "peak"]),
                measurement: .heartRate, schedule: schedule)
        }
        let pulse = try Activity(identifier: "hr", kind: .assessment, title: "HR", result: .number(unit: "bpm"), measurement: .heartRate, schedule: schedule)
        #expect(pulse.measurement == .heartRate)
    }
}
