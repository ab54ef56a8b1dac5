import CareCore
import CarePlan
import CarePlanStore
import Foundation
import TestSupport
import Testing

/// The care core's one way for outcomes: every recorder judged by the same rules, a recorder
/// without the grant refused before the record is consulted.
struct OutcomeRecordingTests {
    let scratch = Scratch()
    let store: CarePlanStore
    let outcomes: OutcomeRecording
    let today = CalendarDay.containing(Date(), in: .gmt)

    init() async throws {
        store = try await CarePlanStore(path: scratch.path("store.sqlite"))
        let dose = try Activity(
            identifier: "dose", kind: .intervention, title: "Dose", schedule: .daily(occurrences: 1, start: today.adding(days: -1)))
        try await CareCore(store: store).plan.load(Plan(title: "Core", timeZone: .gmt, activities: [dose]), effectiveFrom: today.adding(days: -1), device: "t")
        outcomes = CareCore(store: store).outcomes
    }

    func done(by recorder: Recorder) -> Outcome {
        Outcome(state: .completed, recordedAt: Date(), device: recorder.device)
    }

    @Test func aRecorderWithoutTheGrantIsRefusedAndNothingIsKept() async throws {
        let key = EventKey(activityID: "dose", day: today, occurrence: 0)
        let revision = try await store.revision()
        for recorder in [Recorder.companion(nodeID: "h", role: .household, mayRecord: false), .browser(sessionID: "s", mayRecord: false)] {
            let receipt = try await outcomes.record(done(by: recorder), for: key, messageID: "m", by: recorder)
            #expect(receipt.status == .rejected && receipt.rejection == .notPermitted && receipt.currentState == nil)
        }
        #expect(try await store.revision() == revision)
        // Nothing was kept under the id: the same id from a device that may record is judged afresh.
        let watch = Recorder.companion(nodeID: "w", role: .watch, mayRecord: true)
        let accepted = try await outcomes.record(done(by: watch), for: key, messageID: "m", by: watch)
        #expect(accepted.status == .accepted && !accepted.isRepeat)
    }

    @Test func aDayToComeIsRefusedToEveryRecorderButAnExplicitBackfill() async throws {
        let key = EventKey(activityID: "dose", day: today.adding(days: 1), occurrence: 0)
        let recorders: [Recorder] = [
            .companion(nodeID: "w", role: .watch, mayRecord: true), .companion(nodeID: "g", role: .widget, mayRecord: true),
            .companion(nodeID: "h", role: .household, mayRecord: true), .browser(sessionID: "s", mayRecord: true),
            .commandLine(device: "cli", futureDays: .refused),
        ]
        for recorder in recorders {
            let receipt = try await outcomes.record(done(by: recorder), for: key, by: recorder)
            #expect(receipt.rejection == .futureDay, "\(recorder)")
        }
        let backfill = Recorder.commandLine(device: "cli", futureDays: .allowed)
        #expect(try await outcomes.record(done(by: backfill), for: key, by: backfill).status == .accepted)
    }

    @Test func valuesAreReadAsTheActivityAsksAndANumberNoBodyGivesIsRejected() async throws {
        let pressure = try Activity(
            identifier: "pressure", kind: .assessment, title: "Blood pressure",
            result: .number(unit: "mmHg", components: ["systolic", "diastolic"]), schedule: .daily(occurrences: 1, start: today))
        try await CareCore(store: store).plan.addActivity(pressure, effectiveFrom: today, device: "t")
        let key = EventKey(activityID: "pressure", day: today, occurrence: 0)
        let cli = Recorder.commandLine(device: "cli", futureDays: .refused)
        await #expect(throws: ResultError.unreadable("high", expected: pressure.result!)) { try await outcomes.values(["high", "80"], for: key) }
        await #expect(throws: ResultError.implausible(8000, 20...300)) { try await outcomes.values(["8000", "-5"], for: key) }
        // Values sent without reading them here (a companion's) meet the same check in the record.
        var outcome = done(by: cli)
        outcome.values = [OutcomeValue(.integer(8000), unit: "mmHg"), OutcomeValue(.integer(-5), unit: "mmHg")]
        let refused = try await outcomes.record(outcome, for: key, by: cli)
        #expect(refused.rejection == .invalidResult && refused.detail?.contains("8000 is not a plausible value (20 to 300)") == true)
        outcome.values = try await outcomes.values(["120.5", "80"], for: key)
        #expect(try await outcomes.record(outcome, for: key, by: cli).status == .accepted)
    }

    /// What a companion sends is judged as typed values are (issue 53, item 8): a weight no
    /// body has, a weight in pounds on an assessment asked in kilograms, a diastolic above
    /// the systolic and a value on an intervention are each INVALID_RESULT, and nothing is
    /// written; typed in pounds, the weight is converted and stored in kilograms.
    @Test func implausibleValuesFromACompanionAreRefusedAndNothingIsStored() async throws {
        let weight = try Activity(
            identifier: "weight", kind: .assessment, title: "Weight", result: .number(unit: "kg"), schedule: .daily(occurrences: 1, start: today))
        let pressure = try Activity(
            identifier: "pressure", kind: .assessment, title: "Blood pressure",
            result: .number(unit: "mmHg", components: ["systolic", "diastolic"]), schedule: .daily(occurrences: 1, start: today))
        try await CareCore(store: store).plan.addActivity(weight, effectiveFrom: today, device: "t")
        try await CareCore(store: store).plan.addActivity(pressure, effectiveFrom: today, device: "t")
        let weighed = EventKey(activityID: "weight", day: today, occurrence: 0)
        let measured = EventKey(activityID: "pressure", day: today, occurrence: 0)
        let dose = EventKey(activityID: "dose", day: today, occurrence: 0)
        let watch = Recorder.companion(nodeID: "w", role: .watch, mayRecord: true)
        func sent(_ values: [OutcomeValue]) -> Outcome {
            var outcome = done(by: watch)
            outcome.values = values
            return outcome
        }
        let revision = try await store.revision()
        let refusals: [(EventKey, [OutcomeValue], String)] = [
            (weighed, [OutcomeValue(.decimal(-3), unit: "kg")], "-3 is not a plausible value (0.25 to 650)"),
            (weighed, [OutcomeValue(.integer(0), unit: "kg")], "0 is not a plausible value (0.25 to 650)"),
            (weighed, [OutcomeValue(.integer(725), unit: "kg")], "725 is not a plausible value (0.25 to 650)"),
            (weighed, [OutcomeValue(.decimal(1e3), unit: "kg")], "1000 is not a plausible value (0.25 to 650)"),
            (weighed, [OutcomeValue(.decimal(72.5), unit: "lb")], "the result is in kg, not lb"),
            (measured, [OutcomeValue(.integer(80), unit: "mmHg", kind: "systolic"), OutcomeValue(.integer(120), unit: "mmHg", kind: "diastolic")],
             "the diastolic 120 is not below the systolic 80"),
            (dose, [OutcomeValue(.integer(5))], "this activity asks for no value, found 1"),
        ]
        for (key, values, why) in refusals {
            let receipt = try await outcomes.record(sent(values), for: key, messageID: UUID().uuidString, by: watch)
            #expect(receipt.status == .rejected && receipt.rejection == .invalidResult, "\(values)")
            #expect(receipt.detail == "\(key): \(why)", "\(receipt.detail ?? "no detail")")
        }
        #expect(try await store.revision() == revision)
        for key in [weighed, measured, dose] { #expect(try await store.outcomes.event(key).outcome == nil) }

        // Typed, the same refusals come before anything is sent.
        await #expect(throws: ResultError.unreadable("1e3", expected: .number(unit: "kg"))) { try await outcomes.values(["1e3"], for: weighed) }
        await #expect(throws: ResultError.wrongUnit(given: "mmol/L", expected: "kg")) {
            try await outcomes.values(["5"], unit: "mmol/L", for: weighed)
        }
        await #expect(throws: ResultError.diastolicNotBelowSystolic(systolic: 80, diastolic: 120)) {
            try await outcomes.values(["80", "120"], for: measured)
        }
        await #expect(throws: ResultError.noValueAsked(found: 1)) { try await outcomes.values(["5"], for: dose) }
        // Pounds typed are kilograms stored.
        let cli = Recorder.commandLine(device: "cli", futureDays: .refused)
        var typed = done(by: cli)
        typed.values = try await outcomes.values(["72.5"], unit: "lb", for: weighed)
        #expect(try await outcomes.record(typed, for: weighed, by: cli).status == .accepted)
        #expect(try await store.outcomes.event(weighed).outcome?.values == [OutcomeValue(.decimal(32.89), unit: "kg")])
    }
}
