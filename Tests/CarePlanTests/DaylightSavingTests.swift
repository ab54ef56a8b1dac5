import CarePlan
import Foundation
import Testing

/// Schedules across daylight-saving changes in Europe/Vienna and America/New_York.
struct DaylightSavingTests {
    static let zones: [(zone: String, spring: String, autumn: String)] = [
        ("Europe/Vienna", "2026-03-29", "2026-10-25"),
        ("America/New_York", "2026-03-08", "2026-11-01"),
    ]

    @Test(arguments: zones)
    func transitionDaysKeepTheirOccurrences(zone: String, spring: String, autumn: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let schedule = try Schedule.daily(
            times: [TimeOfDay("01:30")!, TimeOfDay("02:30")!, TimeOfDay("08:00")!, TimeOfDay("22:00")!],
            start: CalendarDay("2026-01-01")!)
        for transition in [spring, autumn] {
            let day = try #require(CalendarDay(transition))
            for neighbour in [day.adding(days: -1), day, day.adding(days: 1)] {
                #expect(schedule.occurrenceCount(on: neighbour) == 4)
                let instants = (0..<4).map { neighbour.date(at: schedule.time(ofOccurrence: $0)!, in: timeZone) }
                // Every occurrence falls on its own day, in order, at distinct instants.
                #expect(instants == instants.sorted())
                #expect(Set(instants).count == 4)
                #expect(instants.allSatisfy { CalendarDay.containing($0, in: timeZone) == neighbour })
            }
        }
    }

    @Test(arguments: zones)
    func wallTimesMapToTheRightInstants(zone: String, spring: String, autumn: String) throws {
        let timeZone = try #require(TimeZone(identifier: zone))
        let springDay = try #require(CalendarDay(spring))
        let autumnDay = try #require(CalendarDay(autumn))
        let eight = TimeOfDay("08:00")!
        let offsetBefore = timeZone.secondsFromGMT(for: springDay.adding(days: -1).date(at: eight, in: timeZone))
        let offsetAfter = timeZone.secondsFromGMT(for: springDay.adding(days: 1).date(at: eight, in: timeZone))
        #expect(offsetAfter - offsetBefore == 3600)

        // 08:00 local reads 08:00 on the wall on both sides of each change.
        for day in [springDay, autumnDay] {
            let instant = day.date(at: eight, in: timeZone)
            let local = instant.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: instant))
            #expect(Int(local) % 86_400 == 8 * 3600)
        }

        // 02:30 does not exist on the spring day: it becomes 03:30 (one instant, an hour later).
        let skipped = springDay.date(at: TimeOfDay("02:30")!, in: timeZone)
        let twoOClock = springDay.date(at: TimeOfDay("02:00")!, in: timeZone)
        let threeThirty = springDay.date(at: TimeOfDay("03:30")!, in: timeZone)
        #expect(skipped == threeThirty)
        #expect(twoOClock.distance(to: skipped) == 30 * 60)

        // 01:30 (New York) or 02:30 (Vienna) happens twice in autumn: the first one counts.
        let repeated = TimeOfDay(zone == "Europe/Vienna" ? "02:30" : "01:30")!
        let first = autumnDay.date(at: repeated, in: timeZone)
        #expect(timeZone.secondsFromGMT(for: first) == offsetAfter)
        #expect(timeZone.isDaylightSavingTime(for: first))
    }

    @Test func anyIANATimeZoneGivesEveryDayItsOccurrences() throws {
        let schedule = try Schedule.daily(times: [TimeOfDay("00:00")!, TimeOfDay("12:00")!], start: CalendarDay("2026-01-01")!)
        for name in TimeZone.knownTimeZoneIdentifiers {
            let zone = try #require(TimeZone(identifier: name))
            var previous: Date?
            for day in stride(from: CalendarDay("2026-01-01")!, through: CalendarDay("2026-12-31")!, by: 7) {
                #expect(schedule.occurrenceCount(on: day) == 2)
                let noon = day.date(at: TimeOfDay("12:00")!, in: zone)
                #expect(CalendarDay.containing(noon, in: zone) == day, "\(name) \(day)")
                if let previous { #expect(previous < noon) }
                previous = noon
            }
        }
    }
}
