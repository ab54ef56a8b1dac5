import CarePlan
import Foundation
import Reminders
import Testing

/// The planner on a virtual clock: a week of reminders in milliseconds.
struct ReminderPlannerTests {
    let monday = CalendarDay("2026-11-02")!
    let vienna = TimeZone(identifier: "Europe/Vienna")!

    func activity(_ id: String, _ schedule: Schedule) throws -> ActivityVersion {
        ActivityVersion(activity: try Activity(identifier: id, kind: .intervention, title: id.capitalized, schedule: schedule),
                        version: 1, effectiveFrom: schedule.start)
    }

    func plan() throws -> [ActivityVersion] {
        [
            try activity("apple", .daily(times: [TimeOfDay("08:00")!, TimeOfDay("13:00")!, TimeOfDay("19:00")!], start: monday)),
            try activity("stretch", .daily(times: [TimeOfDay("07:00")!], start: monday, weekdays: [.monday, .wednesday, .friday])),
            // No time of its own: the routine's time for one dose a day, breakfast.
            try activity("tonic", .daily(occurrences: 1, start: monday, daysToSkip: 1)),
        ]
    }

    /// Fires reminders one by one as a clock would, topping the window up after each, from
    /// `start` until `end`; returns what fired, in order.
    func fireAll(_ planner: ReminderPlanner, versions: [ActivityVersion], from start: Date, until end: Date,
                 done: Set<EventKey> = []) async -> [Reminder] {
        var now = start
        var fired: [Reminder] = []
        while let next = await planner.window(from: now, excluding: Set(fired.map(\.key)), events: { day in
            versions.flatMap { $0.events(on: day) }.map { event in
                var event = event
                if done.contains(event.key) { event.outcome = Outcome(state: .completed, recordedAt: start, device: "t") }
                return event
            }
        }).first, next.dueAt <= end {
            fired.append(next)
            now = next.dueAt
        }
        return fired
    }

    @Test func aWeekOfSeveralSchedulesFiresEachReminderOnceInOrder() async throws {
        let planner = ReminderPlanner(timeZone: vienna)
        let versions = try plan()
        let start = monday.start(in: vienna)
        let end = monday.adding(days: 7).start(in: vienna)
        let fired = await fireAll(planner, versions: versions, from: start, until: end)
        // 3 apples a day, stretches on 3 days, a tonic every other day (4 of 7).
        let expected: Int = 7 * 3 + 3 + 4
        #expect(fired.count == expected)
        #expect(fired == fired.sorted())
        #expect(Set(fired.map(\.key)).count == fired.count)
        let tonics = fired.filter { $0.key.activityID == "tonic" }
        #expect(tonics.allSatisfy { $0.time == DailyRoutine.standard.breakfast })
        #expect(tonics.map(\.key.day) == [0, 2, 4, 6].map { monday.adding(days: $0) })
    }

    @Test func doneEventsGetNoReminder() async throws {
        let planner = ReminderPlanner(timeZone: vienna)
        let versions = try plan()
        let skipped: Set<EventKey> = [EventKey(activityID: "apple", day: monday, occurrence: 1)]
        let fired = await fireAll(planner, versions: versions, from: monday.start(in: vienna),
                            until: monday.adding(days: 1).start(in: vienna), done: skipped)
        #expect(fired.map(\.key.description) == [
            "stretch@2026-11-02#0", "apple@2026-11-02#0", "tonic@2026-11-02#0", "apple@2026-11-02#2",
        ])
    }

    @Test func theWindowHoldsAtMost64NearestFirst() async throws {
        let times = (0..<8).map { TimeOfDay(hour: 7 + 2 * $0, minute: 0)! }
        let versions = try (0..<20).map { try activity("a\($0)", .daily(times: times, start: monday)) }
        let planner = ReminderPlanner(timeZone: vienna)
        let events = { (day: CalendarDay) in versions.flatMap { $0.events(on: day) } }
        let window = await planner.window(from: monday.start(in: vienna), events: events)
        #expect(window.count == 64)
        #expect(window == window.sorted())
        // 20 activities × 3 times fill 60 places; 4 of the fourth time complete the 64.
        #expect(window.last?.time == TimeOfDay("13:00"))
        // After the first fires, the window tops up to 64 again; the 19 others due at the
        // same instant stay in it.
        let next = await planner.window(from: window[0].dueAt, excluding: [window[0].key], events: events)
        #expect(next.count == 64)
        #expect(Array(next.prefix(63)) == Array(window.dropFirst()))
        #expect(next.filter { $0.dueAt == window[0].dueAt }.count == 19)
    }

    @Test func remindersThatFellDueWhileDownFireWithinTheGracePeriodOnly() {
        let planner = ReminderPlanner(timeZone: vienna)
        let due = monday.date(at: TimeOfDay("08:00")!, in: vienna)
        let reminder = Reminder(key: EventKey(activityID: "a", day: monday, occurrence: 0), title: "A", time: TimeOfDay("08:00")!, dueAt: due)
        #expect(planner.catchUp(reminder, now: due.addingTimeInterval(10 * 60)) == .fire)
        #expect(planner.catchUp(reminder, now: due.addingTimeInterval(15 * 60)) == .fire)
        #expect(planner.catchUp(reminder, now: due.addingTimeInterval(16 * 60)) == .missed)
    }

    static let transitions: [(zone: String, spring: String, autumn: String, repeated: String)] = [
        ("Europe/Vienna", "2026-03-29", "2026-10-25", "02:30"),
        ("America/New_York", "2026-03-08", "2026-11-01", "01:30"),
    ]

    @Test(arguments: transitions)
    func daylightSavingDaysFireEachReminderOnce(zone: String, spring: String, autumn: String, repeated: String) async throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let planner = ReminderPlanner(timeZone: timeZone)
        for (dayText, time) in [(spring, "02:30"), (autumn, repeated)] {
            let day = try #require(CalendarDay(dayText))
            let version = try activity("dose", .daily(times: [TimeOfDay(time)!, TimeOfDay("09:00")!], start: day.adding(days: -1)))
            let fired = await fireAll(planner, versions: [version], from: day.start(in: timeZone), until: day.adding(days: 1).start(in: timeZone))
            #expect(fired.map(\.key.occurrence) == [0, 1], "\(zone) \(dayText)")
            let dose = try #require(fired.first)
            #expect(CalendarDay.containing(dose.dueAt, in: timeZone) == day)
            if dayText == spring {
                // The skipped 02:30 is due at 03:30, the first minute of its hour after the gap.
                #expect(dose.dueAt == day.date(at: TimeOfDay("03:30")!, in: timeZone))
            } else {
                // The repeated hour: the first time round, still in summer time.
                #expect(timeZone.isDaylightSavingTime(for: dose.dueAt))
            }
        }
    }

    @Test func untimedOccurrencesFollowThePatientsRoutineNeverTogether() async throws {
        let routine = try DailyRoutine(
            wake: TimeOfDay("06:00")!, breakfast: TimeOfDay("06:30")!, lunch: TimeOfDay("12:00")!,
            dinner: TimeOfDay("17:30")!, bed: TimeOfDay("21:00")!)
        let planner = ReminderPlanner(timeZone: vienna, routine: routine)
        for count in 1...8 {
            let version = try activity("dose", .daily(occurrences: count, start: monday))
            let fired = await fireAll(planner, versions: [version], from: monday.start(in: vienna), until: monday.adding(days: 1).start(in: vienna))
            #expect(fired.count == count)
            #expect(Set(fired.map(\.dueAt)).count == count, "\(count) doses a day share a due time")
            #expect(fired.map(\.time) == routine.administrationTimes(count: count))
        }
        // Two of three occurrences timed by the schedule: the third takes the standard time
        // farthest from them, not one of theirs.
        let partly = try activity("partly", .daily(occurrences: 3, times: [TimeOfDay("06:30")!, TimeOfDay("12:00")!], start: monday))
        let fired = await fireAll(planner, versions: [partly], from: monday.start(in: vienna), until: monday.adding(days: 1).start(in: vienna))
        #expect(fired.map(\.time) == [TimeOfDay("06:30")!, TimeOfDay("12:00")!, TimeOfDay("17:30")!])
    }
}
