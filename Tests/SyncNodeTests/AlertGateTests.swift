import CarePlan
import Foundation
import SyncNode
import Testing

/// A household device's quiet hours and snooze, on a Vienna wall clock through the night the
/// clocks go back (2026-10-25, 03:00 → 02:00).
struct AlertGateTests {
    let zone = TimeZone(identifier: "Europe/Vienna")!
    let saturday = CalendarDay("2026-10-24")!
    let night = QuietHours("22:00-07:00")!

    func at(_ day: Int, _ time: String) -> Date {
        saturday.adding(days: day).date(at: TimeOfDay(time)!, in: zone)
    }

    func alert(_ sequence: Int, _ kind: DoseAlert.Kind = .missed, activity: String = "dose", critical: Bool = false) -> DoseAlert {
        DoseAlert(
            sequence: sequence, kind: kind, key: EventKey(activityID: activity, day: saturday, occurrence: 0), title: "Dose",
            time: TimeOfDay("21:00")!, dueAt: at(0, "21:00"), raisedAt: at(0, "22:00"), critical: critical,
            outcome: kind == .cleared ? .completed : nil)
    }

    @Test func quietHoursRunPastMidnightAndFollowTheWallClock() {
        #expect(night.contains(at(0, "22:00"), in: zone))
        #expect(night.contains(at(1, "02:30"), in: zone))
        #expect(!night.contains(at(1, "07:00"), in: zone))
        #expect(!night.contains(at(0, "21:59"), in: zone))
        // The night the clocks go back is an hour longer: 10 hours from 22:00 to 07:00.
        #expect(night.end(after: at(0, "23:00"), in: zone) == at(1, "07:00"))
        #expect(at(1, "07:00").timeIntervalSince(at(0, "22:00")) == 10 * 3600)
        let day = QuietHours("13:00-15:00")!
        #expect(day.contains(at(0, "14:00"), in: zone) && !day.contains(at(0, "15:00"), in: zone))
        #expect(QuietHours("07:00-07:00") == nil)
        #expect(QuietHours("7-9") == nil)
    }

    @Test func inQuietHoursOnlyCriticalAlertsShowAndTheRestWaitForMorning() {
        let gate = AlertGate(quietHours: night, timeZone: zone)
        let shown = gate.admit([alert(2, activity: "insulin", critical: true), alert(1)], at: at(0, "23:00"))
        #expect(shown.map(\.sequence) == [2])
        #expect(gate.nextRelease(after: at(0, "23:00")) == at(1, "07:00"))
        #expect(gate.release(at: at(1, "06:59")).isEmpty)
        #expect(gate.release(at: at(1, "07:00")).map(\.sequence) == [1])
        #expect(gate.nextRelease(after: at(1, "07:00")) == nil)
        #expect(gate.admit([alert(3)], at: at(1, "08:00")).map(\.sequence) == [3])
    }

    @Test func anAllClearDuringTheNightTakesItsHeldAlertAway() {
        let gate = AlertGate(quietHours: night, timeZone: zone)
        #expect(gate.admit([alert(1), alert(2, activity: "other")], at: at(0, "23:00")).isEmpty)
        #expect(gate.admit([alert(3, .cleared)], at: at(1, "01:00")).isEmpty)
        #expect(gate.release(at: at(1, "07:00")).map(\.sequence) == [2])
    }

    @Test func aSnoozeHoldsAlertsUntilItEndsEvenIntoQuietHours() {
        let gate = AlertGate(quietHours: night, timeZone: zone)
        gate.snooze(until: at(0, "21:30"))
        #expect(gate.admit([alert(1)], at: at(0, "21:00")).isEmpty)
        #expect(gate.nextRelease(after: at(0, "21:00")) == at(0, "21:30"))
        #expect(gate.release(at: at(0, "21:30")).map(\.sequence) == [1])
        gate.snooze(until: at(1, "08:00"))
        #expect(gate.admit([alert(2)], at: at(0, "21:45")).isEmpty)
        #expect(gate.nextRelease(after: at(0, "21:45")) == at(1, "08:00"))
        gate.quietHours = nil
        #expect(gate.release(at: at(1, "07:30")).isEmpty, "still snoozed")
    }
}
