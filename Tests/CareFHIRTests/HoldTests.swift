import CareFHIR
import CareLanguage
import CarePlan
import CarePlanStore
import Foundation
import Testing

/// Orders, and steps of them, that an import takes but holds for review: kept by the store,
/// listed with their reason, never scheduled, and released by a corrected order.
struct HoldTests {
    static let open = #"{"sequence": 1, "text": "Two tablets at once", "timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 2, "unit": "tablet"}}]}"#
    static let then = #"{"sequence": 2, "text": "One tablet daily", "timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}"#

    func importer(today: CalendarDay = importDay) throws -> FHIRImporter {
        FHIRImporter(mapper: try mapper(today: today), device: "test")
    }

    /// A step after one without an end is held, the step before it scheduled: no day has
    /// both. Once the order gives the first step's end, the held step is scheduled the day
    /// after it and the hold is gone.
    @Test func aStepAfterAnOpenStepIsHeldUntilTheOrderGivesItsEnd() async throws {
        try await withStore { store, _ throws in
            let report = try await importer().run(try parse(request(dosages: [Self.open, Self.then])), into: store)
            #expect(report.added == ["rx-rx1"])
            #expect(report.refused.isEmpty)
            let hold = try #require(report.held.first?.holds.first)
            #expect(report.held.count == 1 && report.held[0].holds.count == 1)
            #expect(hold.reason == .followsOpenStep)
            #expect(hold.dosage == 1 && hold.activityID == "rx-rx1/2")
            #expect(hold.path == "MedicationRequest.dosageInstruction[1].sequence")
            #expect(report.notScheduled.isEmpty)
            for day in (0..<30).map({ importDay.adding(days: $0) }) {
                #expect(try await store.outcomes.events(on: day).map(\.activity.identifier) == ["rx-rx1"], "on \(day)")
            }
            let listed = try await HeldMedication.all(in: store, text: DosageText(language: try Language("en")))
            #expect(listed.map(\.activityID) == ["rx-rx1/2"])
            #expect(listed.first?.instructions == "1 tablet once a day")
            #expect(listed.first?.text == "One tablet daily")
            #expect(listed.first?.reason.hasPrefix("it follows a step that has no end") == true)
            #expect(listed.first?.isWholeOrder == false)
            let german = try await HeldMedication.all(in: store, text: DosageText(language: try Language("de")))
            #expect(german.first?.reason.hasPrefix("folgt auf einen Schritt ohne Ende") == true)

            let bounded = Self.open.replacingOccurrences(of: #""periodUnit": "d"}"#, with: #""periodUnit": "d", "boundsDuration": {"value": 1, "code": "d"}}"#)
            let corrected = try await importer(today: importDay.adding(days: 1)).run(try parse(request(dosages: [bounded, Self.then])), into: store)
            #expect(corrected.held.isEmpty)
            #expect(corrected.added == ["rx-rx1/2"])
            #expect(try await store.sources.held(system: OrderMapper.system).isEmpty)
            #expect(try await store.outcomes.events(on: importDay).map(\.activity.identifier) == ["rx-rx1"])
            #expect(try await store.outcomes.events(on: importDay.adding(days: 1)).map(\.activity.identifier) == ["rx-rx1/2"])
        }
    }

    /// A step held on a later import ends what an earlier import scheduled from it.
    @Test func aStepHeldLaterEndsItsActivity() async throws {
        try await withStore { store, _ throws in
            let bounded = Self.open.replacingOccurrences(of: #""periodUnit": "d"}"#, with: #""periodUnit": "d", "count": 2}"#)
            try await importer().run(try parse(request(dosages: [bounded, Self.then])), into: store)
            #expect(try await store.plan.activities().map(\.activity.identifier) == ["rx-rx1", "rx-rx1/2"])
            let later = importDay.adding(days: 3)
            let report = try await importer(today: later).run(try parse(request(dosages: [Self.open, Self.then])), into: store)
            #expect(report.ended == ["rx-rx1/2"])
            #expect(report.held.first?.holds.map(\.activityID) == ["rx-rx1/2"])
            #expect(try await store.outcomes.events(of: "rx-rx1/2", on: later).isEmpty)
        }
    }

    /// A modifier extension holds the whole order: not scheduled, what an earlier import
    /// scheduled from it ends, and it is listed with the extension's URL.
    @Test func aModifierExtensionHoldsTheWholeOrder() async throws {
        try await withStore { store, _ throws in
            try await importer().run(try parse(request(dosages: [ImportTests.daily])), into: store)
            let modified = ImportTests.daily.replacingOccurrences(
                of: #""text": "with water""#,
                with: #""text": "with water", "modifierExtension": [{"url": "http://example.org/not-on-fridays", "valueBoolean": true}]"#)
            let report = try await importer(today: importDay.adding(days: 2)).run(try parse(request(dosages: [modified])), into: store)
            #expect(report.ended == ["rx-rx1"])
            #expect(report.refused.isEmpty)
            #expect(report.notScheduled == ["MedicationRequest/rx1"])
            let hold = try #require(report.held.first?.holds.first)
            #expect(hold.reason == .modifierExtension && hold.dosage == nil && hold.activityID == "rx-rx1")
            #expect(hold.path == "MedicationRequest.dosageInstruction[0].modifierExtension[0]")
            #expect(hold.detail == "http://example.org/not-on-fridays")
            #expect(try await store.plan.activities().isEmpty)
            let listed = try await HeldMedication.all(in: store, text: DosageText(language: try Language("en")))
            #expect(listed.map(\.title) == ["Aspirin 100 mg"])
            #expect(listed.first?.isWholeOrder == true)
            #expect(listed.first?.reason.contains("http://example.org/not-on-fridays") == true)
        }
    }

    /// One bundle: a historical order, an order timed in words alone and an ordinary one.
    /// Every order is imported, none refused; the historical one as ended, the one in words
    /// held whole with its text in the sentence, the ordinary one scheduled.
    @Test func historicalAndWordTimedOrdersImportWithTheRestOfTheirBundle() async throws {
        let historical = request(id: "old", dosages: [#"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d", "boundsPeriod": {"end": "2016-08-01"}}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}"#])
        let worded = request(id: "words", dosages: [#"{"timing": {"code": {"text": "in the morning on weekends and days off work"}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}"#])
        let ordinary = request(id: "plain", dosages: [ImportTests.daily])
        try await withStore { store, _ throws in
            let report = try await importer().run(try parse(bundle([historical, worded, ordinary])), into: store)
            #expect(report.imported == 3)
            #expect(report.refused.isEmpty)
            #expect(report.added == ["rx-plain"])
            #expect(report.notScheduled == ["MedicationRequest/old", "MedicationRequest/words"])
            #expect(report.warnings.map(\.kind) == [.historical])
            #expect(report.warnings.first?.path == "Bundle.entry[0].resource.dosageInstruction[0].timing.repeat.boundsPeriod.end")
            #expect(report.held.map(\.reference) == ["MedicationRequest/words"])
            #expect(report.held.first?.holds.map(\.reason) == [.timingText])
            #expect(report.held.first?.holds.first?.detail == "in the morning on weekends and days off work")
            let listed = try await HeldMedication.all(in: store, text: DosageText(language: try Language("en")))
            #expect(listed.map(\.instructions) == ["1 tablet in the morning on weekends and days off work"])
        }
    }

    /// Importing an order again with the same hold keeps the time it was first held; a
    /// strict import refuses nothing for a hold (holds are not refusals).
    @Test func aHoldKeepsItsTimeAcrossImportsAndIsNoRefusal() async throws {
        try await withStore { store, _ throws in
            let order = try parse(request(dosages: [Self.open, Self.then]))
            try await importer().run(order, into: store, strict: true)
            let first = try #require(try await store.sources.held(system: OrderMapper.system).first?.heldAt)
            try await importer(today: importDay.adding(days: 1)).run(order, into: store, strict: true)
            #expect(try await store.sources.held(system: OrderMapper.system).map(\.heldAt) == [first])
        }
    }
}
