import CarePlan
import Foundation
import Testing

struct CalendarDayTests {
    @Test func parsesAndPrintsDays() throws {
        let day = try #require(CalendarDay("2026-11-23"))
        #expect(day.description == "2026-11-23")
        #expect(day.weekday == .monday)
        #expect(CalendarDay("1970-01-01")?.daysSinceEpoch == 0)
        #expect(CalendarDay("2024-02-29") != nil)
        for bad in ["2026-02-29", "2026-13-01", "2026-00-10", "2026-1-1", "26-11-23", "2026-11-23T00", ""] {
            #expect(CalendarDay(bad) == nil, "\(bad)")
        }
    }

    @Test func agreesWithFoundationsGregorianCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        // Every 37th day from 1600 to 2380, across the leap-year rules. (Foundation's
        // calendar turns Julian before 1582; ours stays proleptic Gregorian.)
        for n in stride(from: CalendarDay("1600-01-01")!.daysSinceEpoch, through: 150_000, by: 37) {
            let day = CalendarDay(daysSinceEpoch: n)
            let date = Date(timeIntervalSince1970: Double(n) * 86_400)
            let parts = calendar.dateComponents([.year, .month, .day, .weekday], from: date)
            #expect(day.year == parts.year && day.month == parts.month && day.day == parts.day)
            #expect(day.weekday.rawValue == parts.weekday! - 1)
            #expect(CalendarDay(year: day.year, month: day.month, day: day.day) == day)
        }
    }

    @Test func dayContainingAnInstantDependsOnTheTimeZone() throws {
        let instant = try #require(ISO8601.date(from: "2026-11-23T23:30:00Z"))
        #expect(CalendarDay.containing(instant, in: .gmt).description == "2026-11-23")
        #expect(CalendarDay.containing(instant, in: TimeZone(identifier: "Europe/Vienna")!).description == "2026-11-24")
        #expect(CalendarDay.containing(instant, in: TimeZone(identifier: "America/New_York")!).description == "2026-11-23")
        #expect(CalendarDay.containing(instant, in: TimeZone(identifier: "Pacific/Kiritimati")!).description == "2026-11-24")
    }

    @Test func timesOfDayParse() {
        #expect(TimeOfDay("08:05")?.minutes == 485)
        #expect(TimeOfDay("23:59")?.description == "23:59")
        // Signs, which `Int(_:)` takes: "+8:00" was read as 08:00 (scripts/fuzz, wire, checks this).
        for bad in ["24:00", "8:00", "08:60", "0800", "ab:cd", "+8:00", "-0:00", "08:+5", "０８:００"] {
            #expect(TimeOfDay(bad) == nil, "\(bad)")
        }
    }
}

struct DayGroupingTests {
    @Test func isoWeeksBelongToTheYearOfTheirThursday() {
        #expect(DayGrouping.week.identifier(of: CalendarDay("2016-08-22")!) == "2016-W34")
        #expect(DayGrouping.week.identifier(of: CalendarDay("2016-08-28")!) == "2016-W34")
        #expect(DayGrouping.week.identifier(of: CalendarDay("2016-01-01")!) == "2015-W53")
        #expect(DayGrouping.week.identifier(of: CalendarDay("2019-12-30")!) == "2020-W01")
        #expect(DayGrouping.month.identifier(of: CalendarDay("2016-08-15")!) == "2016-08")
        #expect(DayGrouping.year.identifier(of: CalendarDay("2016-08-15")!) == "2016")
        #expect(DayGrouping.day.identifier(of: CalendarDay("2016-08-15")!) == "2016-08-15")
    }

    @Test func groupsCoverEveryDayIncludingEmptyOnes() {
        let weeks = DayGrouping.week.groups(from: CalendarDay("2016-08-17")!, through: CalendarDay("2016-09-05")!)
        #expect(weeks.map(\.identifier) == ["2016-W33", "2016-W34", "2016-W35", "2016-W36"])
        #expect(weeks.first?.days == CalendarDay("2016-08-17")!...CalendarDay("2016-08-21")!)
        #expect(weeks.last?.days == CalendarDay("2016-09-05")!...CalendarDay("2016-09-05")!)
        let months = DayGrouping.month.groups(from: CalendarDay("2016-11-30")!, through: CalendarDay("2017-02-01")!)
        #expect(months.map(\.identifier) == ["2016-11", "2016-12", "2017-01", "2017-02"])
        #expect(months[2].days.count == 31)
        #expect(DayGrouping.year.groups(from: CalendarDay("2015-12-31")!, through: CalendarDay("2016-01-01")!).map(\.identifier) == ["2015", "2016"])
    }
}
