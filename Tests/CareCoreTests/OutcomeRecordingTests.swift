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
}
