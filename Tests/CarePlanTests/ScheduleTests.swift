import CarePlan
import Foundation
import Testing
import TestSupport

struct ScheduleTests {
    let start = CalendarDay("2026-11-02")!  // a Monday

    func counts(_ schedule: Schedule, days: Int, from first: CalendarDay? = nil) -> [Int] {
        let first = first ?? start
        return (0..<days).map { schedule.occurrenceCount(on: first.adding(days: $0)) }
    }

    @Test func dailySchedules() throws {
        let schedule = try Schedule.daily(occurrences: 3, start: start)
        #expect(counts(schedule, days: 4, from: start.adding(days: -1)) == [0, 3, 3, 3])
        #expect(schedule.occurrenceCount(on: start.adding(days: 3650)) == 3)
    }

    @Test func weeklySchedulesCountPerWeekdaySundayFirst() throws {
        let schedule = try Schedule.weekly([0, 2, 1, 2, 1, 2, 0], start: start)
        // Monday 2026-11-02 through Sunday 2026-11-08.
        #expect(counts(schedule, days: 7) == [2, 1, 2, 1, 2, 0, 0])
    }

    @Test func skipDaysEndDaysAndWeekdays() throws {
        let everyOther = try Schedule.daily(occurrences: 1, start: start, daysToSkip: 1)
        #expect(counts(everyOther, days: 6) == [1, 0, 1, 0, 1, 0])
        let tenDays = try Schedule.daily(occurrences: 2, start: start, end: start.adding(days: 9))
        #expect(counts(tenDays, days: 12) == [2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 0, 0])
        let mwf = try Schedule.daily(occurrences: 1, start: start, weekdays: [.monday, .wednesday, .friday])
        #expect(counts(mwf, days: 7) == [1, 0, 1, 0, 1, 0, 0])
    }

    @Test func totalCountStopsTheSchedule() throws {
        let course = try Schedule.daily(occurrences: 2, start: start, totalCount: 5)
        #expect(counts(course, days: 4) == [2, 2, 1, 0])
        let sparse = try Schedule.daily(occurrences: 1, start: start, daysToSkip: 2, weekdays: [.monday, .tuesday], totalCount: 3)
        let expected = naiveCounts(sparse, through: start.adding(days: 60))
        #expect(counts(sparse, days: 61) == expected)
        #expect(expected.reduce(0, +) == 3)
    }

    /// The closed form agrees with walking every day from the start, for many shapes.
    @Test func closedFormAgreesWithWalkingForward() throws {
        var generator = SplitMix64(seed: 42)
        for _ in 0..<300 {
            let weekly = (0..<7).map { _ in Int(generator.next() % 4) }
            guard weekly.contains(where: { $0 > 0 }) else { continue }
            let schedule = try Schedule(
                start: start.adding(days: Int(generator.next() % 20)), weeklyOccurrences: weekly,
                daysToSkip: Int(generator.next() % 9),
                totalCount: generator.next() % 2 == 0 ? nil : Int(generator.next() % 40) + 1)
            let last = start.adding(days: 400)
            #expect(counts(schedule, days: 401) == naiveCounts(schedule, through: last), "\(schedule)")
        }
    }

    @Test func invalidSchedulesAreRefused() {
        #expect(throws: ScheduleError.noOccurrences) { try Schedule.daily(occurrences: 0, start: start) }
        #expect(throws: ScheduleError.weeklyCountsNeedSevenEntries(6)) { try Schedule.weekly([1, 1, 1, 1, 1, 1], start: start) }
        #expect(throws: ScheduleError.endBeforeStart(start: start, end: start.adding(days: -1))) {
            try Schedule.daily(occurrences: 1, start: start, end: start.adding(days: -1))
        }
        #expect(throws: ScheduleError.totalCountNotPositive(0)) { try Schedule.daily(occurrences: 1, start: start, totalCount: 0) }
        #expect(throws: ScheduleError.negativeDaysToSkip(-1)) { try Schedule.daily(occurrences: 1, start: start, daysToSkip: -1) }
        #expect(throws: ScheduleError.moreTimesThanOccurrences(times: 2, occurrences: 1)) {
            try Schedule.daily(occurrences: 1, times: [TimeOfDay("08:00")!, TimeOfDay("09:00")!], start: start)
        }
    }

    /// Walks forward from the start day by day, as CareKit does: the oracle.
    func naiveCounts(_ schedule: Schedule, through last: CalendarDay) -> [Int] {
        var used = 0
        var result: [Int] = []
        var day = start
        while day <= last {
            var count = 0
            if day >= schedule.start, schedule.end.map({ day <= $0 }) ?? true,
               schedule.start.distance(to: day) % (schedule.daysToSkip + 1) == 0 {
                count = schedule.weeklyOccurrences[day.weekday.rawValue]
                if let total = schedule.totalCount { count = max(0, min(count, total - used)) }
            }
            used += count
            result.append(count)
            day = day.adding(days: 1)
        }
        return result
    }
}
