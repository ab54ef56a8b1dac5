import CareFHIR
import CarePlan
import Foundation
import Testing

/// Every dosage case through the real import: its sentences in both languages, its
/// warnings, and the events of its sample days by the real schedule expansion.
struct DosageTests {
    static let english = try! DosageLanguage("en")
    static let german = try! DosageLanguage("de")

    @Test func thereAreAtLeastThirtyCases() {
        #expect(dosageCases.count >= 30)
        #expect(Set(dosageCases.map(\.name)).count == dosageCases.count)
    }

    @Test(arguments: dosageCases)
    func dosage(_ c: DosageCase) throws {
        let input = try parse(request(dosages: [c.dosage]))
        let order = try #require(input.orders.first)
        let dosage = try #require(order.dosages.first)
        #expect(DosageText(language: Self.english).sentence(for: dosage) == c.en)
        #expect(DosageText(language: Self.german).sentence(for: dosage) == c.de)
        let mapped = try mapper().map(order)
        #expect(mapped.warnings.map(\.kind) == c.warnings)
        let activity = try #require(mapped.activities.first?.activity)
        #expect(activity.instructions == c.en)
        #expect(activity.schedule.asNeeded == c.asNeeded)
        for (day, expected) in c.events.sorted(by: { $0.key < $1.key }) {
            #expect(events(activity, on: CalendarDay(day)!) == expected, "on \(day)")
        }
    }
}
