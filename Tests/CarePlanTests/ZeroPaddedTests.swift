import Foundation
@testable import CarePlan
import Testing

/// Days, times and chart groups are spelled without `String(format:)`, exactly as it did.
struct ZeroPaddedTests {
    @Test(arguments: [0, 5, 42, 999, 1000, 12345])
    func aNumberIsPaddedAsPrintfPadsIt(_ number: Int) {
        for width in 1...5 {
            #expect(number.zeroPadded(width) == String(format: "%0\(width)d", number))
        }
    }

    @Test func daysTimesAndGroupsAreSpelledAsBefore() throws {
        #expect(CalendarDay(year: 2026, month: 3, day: 9)!.description == "2026-03-09")
        #expect(CalendarDay(year: 7, month: 12, day: 31)!.description == "0007-12-31")
        #expect(TimeOfDay(hour: 7, minute: 5)!.description == "07:05")
        #expect(TimeOfDay(hour: 23, minute: 59)!.description == "23:59")
        let day = CalendarDay(year: 2016, month: 8, day: 15)!
        #expect(DayGrouping.year.identifier(of: day) == "2016")
        #expect(DayGrouping.month.identifier(of: day) == "2016-08")
        #expect(DayGrouping.week.identifier(of: day) == "2016-W33")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1_764_000_000.024)) == "2025-11-24T16:00:00.024Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1_764_000_000)) == "2025-11-24T16:00:00.000Z")
    }
}
