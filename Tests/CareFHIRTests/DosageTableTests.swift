import CareFHIR
import CareLanguage
import CarePlan
import Foundation
import Testing

/// Every row of `Docs/dosage-instructions.md` through the real import: its sentences in both
/// languages, its warnings and the doses of its sample days by the real schedule expansion.
struct DosageTableTests {
    static let english = try! Language("en")
    static let german = try! Language("de")

    @Test func theTableCoversWhatAClinicianChecks() throws {
        let rows = DosageTable.rows
        #expect(rows.count >= 40)
        #expect(rows.map(\.number) == Array(1...rows.count))
        #expect(rows.contains { $0.version == "DSTU2" } && rows.contains { $0.version == "R4" })
        // Every code of R4's TimingAbbreviation value set.
        for code in ["QD", "BID", "TID", "QID", "AM", "PM", "QOD", "Q1H", "Q2H", "Q3H", "Q4H", "Q6H", "Q8H", "BED", "WK", "MO"] {
            #expect(rows.contains { $0.dosage.contains("\"code\": \"\(code)\"") || $0.dosage.contains("\"text\": \"\(code)\"") }, "\(code)")
        }
        for element in ["offset", "frequencyMax", "periodMax", "count", "countMax", "boundsDuration", "boundsRange", "boundsPeriod",
                        "boundsQuantity", "periodUnits", "durationUnits", "asNeededCodeableConcept", "route", "doseRange",
                        "site", "siteCodeableConcept", "method", "rateRatio", "rateRange", "rateQuantity", "additionalInstruction",
                        "additionalInstructions", "patientInstruction", "maxDosePerAdministration", "maxDosePerLifetime", "event",
                        "sequence", "comparator"] {
            #expect(rows.contains { $0.dosage.contains("\"\(element)\"") }, "\(element)")
        }
        for hold in [ReviewHold.Reason.followsOpenStep, .timingText] {
            #expect(rows.contains { $0.holds.contains(hold) }, "\(hold)")
        }
        #expect(rows.contains { $0.warnings.contains(.historical) })
    }

    @Test(arguments: DosageTable.rows)
    func row(_ row: DosageRow) throws {
        let order = try #require(parse(row.order).orders.first)
        #expect(DosageText(language: Self.english, timeZone: berlin).sentence(for: order.dosages) == row.en)
        #expect(DosageText(language: Self.german, timeZone: berlin).sentence(for: order.dosages) == row.de)
        let mapped = try mapper().map(order)
        #expect(mapped.warnings.map(\.kind) == row.warnings)
        #expect(mapped.holds.map(\.reason) == row.holds)
        let activities = mapped.activities.map(\.activity)
        if order.dosages.count == 1, let activity = activities.first { #expect(activity.instructions == row.en) }
        // Nothing scheduled only for an order held whole or recording the past.
        #expect(!activities.isEmpty || mapped.disposition == .held || row.warnings.contains(.historical))
        #expect(activities.allSatisfy { $0.schedule.asNeeded == row.asNeeded })
        for (day, expected) in row.due.sorted(by: { $0.key < $1.key }) {
            #expect(activities.flatMap { events($0, on: day) }.sorted() == expected, "on \(day)")
        }
    }

    /// No dose that is due lacks a time, and no two doses of one order fall due together.
    @Test(arguments: DosageTable.rows)
    func everyDueDoseHasATimeOfItsOwn(_ row: DosageRow) throws {
        let order = try #require(parse(row.order).orders.first)
        guard let activity = try mapper().map(order).activities.first?.activity, !activity.schedule.asNeeded else { return }
        for day in (0..<60).map({ importDay.adding(days: $0) }) {
            let times = events(activity, on: day)
            #expect(!times.contains("--:--"), "an untimed dose on \(day)")
            #expect(Set(times).count == times.count, "two doses at once on \(day): \(times)")
        }
    }
}
