import CareFHIR
import CarePlan
import CarePlanStore
import Foundation
import Testing

/// Orders into a store: activities, sources, re-imports, stopped orders, medications.
struct ImportTests {
    static let daily = #"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d", "timeOfDay": ["08:00:00"]}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}], "text": "with water"}"#
    static let evening = #"{"sequence": 2, "timing": {"repeat": {"when": ["EVE"]}}, "doseAndRate": [{"doseQuantity": {"value": 2, "unit": "tablet"}}]}"#

    func importer(today: CalendarDay = importDay) throws -> FHIRImporter {
        FHIRImporter(mapper: try mapper(today: today), device: "test")
    }

    @Test func anOrderBecomesAnActivityWithItsSource() async throws {
        try await withStore { store, _ throws in
            let report = try await importer().run(try parse(request(dosages: [Self.daily])), into: store)
            #expect(report.added == ["rx-rx1"])
            let activity = try #require(try await store.plan.activity("rx-rx1")).activity
            #expect(activity.title == "Aspirin 100 mg")
            #expect(activity.kind == .intervention)
            #expect(activity.text == "with water")
            #expect(activity.instructions == "1 tablet once a day at 08:00")
            #expect(activity.medication == MedicationLink(request: "MedicationRequest/rx1", display: "Aspirin 100 mg"))
            #expect(activity.tags == ["medication"])
            let source = try #require(try await store.sources.source(of: "rx-rx1"))
            #expect(source.system == "fhir")
            #expect(source.reference == "MedicationRequest/rx1")
            #expect(source.subject == "Patient/p1")
            #expect(OrderMapper.dosage(of: activity, in: source)?.text == "with water")
        }
    }

    @Test func reimportingUpdatesAndNeverDuplicates() async throws {
        try await withStore { store, _ throws in
            let first = try await importer().run(try parse(request(dosages: [Self.daily])), into: store)
            let again = try await importer(today: importDay.adding(days: 2)).run(try parse(request(dosages: [Self.daily])), into: store)
            #expect(again.unchanged == ["rx-rx1"])
            #expect(again.revision == first.revision)
            let changed = request(dosages: [Self.daily.replacingOccurrences(of: "08:00:00", with: "09:00:00")])
            let update = try await importer(today: importDay.adding(days: 3)).run(try parse(changed), into: store)
            #expect(update.updated == ["rx-rx1"])
            #expect(try await store.plan.activities().count == 1)
            #expect(try await store.plan.versions(of: "rx-rx1").map(\.effectiveFrom) == [importDay, importDay.adding(days: 3)])
            #expect(try await store.outcomes.events(of: "rx-rx1", on: importDay.adding(days: 3)).first?.time == TimeOfDay("09:00"))
            #expect(try await store.outcomes.events(of: "rx-rx1", on: importDay.adding(days: 2)).first?.time == TimeOfDay("08:00"))
        }
    }

    @Test(arguments: ["stopped", "cancelled", "entered-in-error", "completed"])
    func finishedOrdersEndTheirActivities(status: String) async throws {
        try await withStore { store, _ throws in
            try await importer().run(try parse(request(dosages: [Self.daily, Self.evening])), into: store)
            #expect(try await store.plan.activities().map(\.activity.identifier) == ["rx-rx1", "rx-rx1/2"])
            let stop = importDay.adding(days: 4)
            let report = try await importer(today: stop).run(try parse(request(status: status, dosages: [Self.daily, Self.evening])), into: store)
            #expect(report.ended == ["rx-rx1", "rx-rx1/2"])
            #expect(report.notScheduled == ["MedicationRequest/rx1"])
            #expect(try await store.plan.activities().isEmpty)
            #expect(try await store.outcomes.events(of: "rx-rx1", on: stop).isEmpty)
            #expect(try await store.outcomes.events(of: "rx-rx1", on: stop.adding(days: -1)).count == 1)
            #expect(try await store.sources.source(of: "rx-rx1")?.payload.count ?? 0 > 0)
        }
    }

    @Test func aFinishedOrderNeverSeenIsNotCreated() async throws {
        try await withStore { store, _ throws in
            let report = try await importer().run(try parse(request(status: "stopped", dosages: [Self.daily])), into: store)
            #expect(report.added.isEmpty && report.ended.isEmpty)
            #expect(try await store.plan.activities(ActivityQuery(includeEnded: true)).isEmpty)
        }
    }

    @Test func severalDosageInstructionsInSequenceOrder() async throws {
        try await withStore { store, _ throws in
            let morning = #"{"sequence": 1, "timing": {"repeat": {"when": ["MORN"], "boundsDuration": {"value": 2, "code": "d"}}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}"#
            try await importer().run(try parse(request(dosages: [Self.evening, morning])), into: store)
            let activities = try await store.plan.activities().map(\.activity)
            #expect(activities.map(\.identifier) == ["rx-rx1", "rx-rx1/2"])
            #expect(activities.map(\.instructions) == ["1 tablet in the morning for 2 days", "2 tablets in the evening"])
            #expect(activities.map(\.schedule.start) == [importDay, importDay.adding(days: 2)])
            #expect(activities.map(\.groupIdentifier) == ["rx-rx1", "rx-rx1"])
            // Dropping the second instruction ends its activity on the next import.
            let report = try await importer(today: importDay.adding(days: 1)).run(try parse(request(dosages: [morning])), into: store)
            #expect(report.ended == ["rx-rx1/2"])
        }
    }

    @Test func medicationNamesFromContainedReferencedOrReferenceDisplay() throws {
        let contained = request(id: "a", dosages: [Self.daily], medication: ##""medicationReference": {"reference": "#m"}, "contained": [{"resourceType": "Medication", "id": "m", "code": {"coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm", "code": "197361", "display": "Amlodipine 5 MG"}]}}]"##)
        let referenced = request(id: "b", dosages: [Self.daily], medication: #""medicationReference": {"reference": "Medication/ibu"}"#)
        let displayed = request(id: "c", dosages: [Self.daily], medication: #""medicationReference": {"reference": "Medication/unknown", "display": "Metformin"}"#)
        let medication = #"{"resourceType": "Medication", "id": "ibu", "code": {"text": "Ibuprofen 400 mg"}}"#
        let orders = try parse(bundle([contained, referenced, displayed, medication])).orders
        #expect(orders.map(\.medicationName) == ["Amlodipine 5 MG", "Ibuprofen 400 mg", "Metformin"])
        #expect(orders.first?.medication?.coding?.first?.code == "197361")
        #expect(orders.map(\.path) == ["Bundle.entry[0].resource", "Bundle.entry[1].resource", "Bundle.entry[2].resource"])
    }

    @Test func identifiersMakeStableIDs() throws {
        let json = #"{"resourceType": "MedicationRequest", "identifier": [{"system": "urn:rx", "value": "A 7"}, {"use": "official", "system": "urn:hospital", "value": "H-9"}], "status": "active", "medicationCodeableConcept": {"text": "A"}}"#
        let order = try #require(try parse(json).orders.first)
        #expect(order.key == "H-9")
        #expect(order.reference == "MedicationRequest?identifier=urn:hospital|H-9")
        #expect(OrderMapper.activityID(key: "A 7") == "rx-A-7")
        #expect(OrderMapper.activityID(key: "A 7", dosage: 2) == "rx-A-7/3")
    }

    @Test func dstu2MedicationOrders() throws {
        let json = #"""
            {"resourceType": "MedicationOrder", "id": "mo1", "status": "active", "dateWritten": "2016-08-15",
             "patient": {"reference": "Patient/p1"}, "medicationReference": {"display": "Lisinopril 10 mg"},
             "dosageInstruction": [{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnits": "d", "when": "HS",
               "boundsQuantity": {"value": 30, "code": "d"}}}, "doseQuantity": {"value": 1, "unit": "tablet"}, "asNeededBoolean": false}]}
            """#
        let order = try #require(try parse(json).orders.first)
        #expect(order.reference == "MedicationOrder/mo1")
        #expect(order.subject == "Patient/p1")
        let activity = try #require(try mapper().map(order).activities.first?.activity)
        #expect(activity.title == "Lisinopril 10 mg")
        #expect(activity.instructions == "1 tablet once a day at bedtime for 30 days")
        #expect(activity.schedule.end == importDay.adding(days: 29))
        #expect(events(activity, on: importDay) == ["22:00"])
    }

    /// Each version's spelling in the other is refused by name, never ignored: an ignored
    /// `periodUnits` would lose the period, an ignored `dayOfWeek` would dose every day.
    @Test func anElementOfTheOtherFHIRVersionIsRefusedByName() throws {
        let cases: [(order: String, message: String)] = [
            (medicationOrder(dosages: [#"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}}"#]),
             #"MedicationOrder.dosageInstruction[0].timing.repeat.periodUnit: not an element of DSTU2 Timing.repeat; DSTU2 spells it "periodUnits""#),
            (medicationOrder(dosages: [#"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnits": "wk", "dayOfWeek": ["mon"]}}}"#]),
             "MedicationOrder.dosageInstruction[0].timing.repeat.dayOfWeek: not an element of DSTU2 Timing.repeat"),
            (request(dosages: [#"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnits": "d"}}}"#]),
             #"MedicationRequest.dosageInstruction[0].timing.repeat.periodUnits: not an element of R4 Timing.repeat; R4 spells it "periodUnit""#),
            (request(dosages: [#"{"timing": {"repeat": {"boundsQuantity": {"value": 5, "code": "d"}}}}"#]),
             #"MedicationRequest.dosageInstruction[0].timing.repeat.boundsQuantity: not an element of R4 Timing.repeat; R4 spells it "boundsDuration""#),
        ]
        for (order, message) in cases {
            let input = try parse(order)
            #expect(input.orders.isEmpty)
            #expect(input.refused.map(\.error) == [FHIRError.invalid(path: String(message.prefix { $0 != ":" }), String(message.drop { $0 != ":" }.dropFirst(2)))])
        }
    }

    @Test func theOrderDateStartsTheSchedule() throws {
        let order = try #require(try parse(request(dosages: [#"{"timing": {"code": {"text": "QOD"}}}"#], authoredOn: "2016-08-10T23:30:00Z")).orders.first)
        let activity = try #require(try mapper().map(order).activities.first)
        // 23:30 UTC is already the 11th in Berlin.
        #expect(activity.firstDay == CalendarDay("2016-08-11"))
        // Every other day counts from the 11th, not from the import day.
        #expect(events(activity.activity, on: CalendarDay("2016-08-13")!) == ["08:00"])
        #expect(events(activity.activity, on: importDay.adding(days: 1)) == [])
    }

    @Test func inactiveOrdersAreReported() async throws {
        try await withStore { store, _ throws in
            let report = try await importer().run(try parse(request(status: "on-hold", dosages: [Self.daily])), into: store)
            #expect(report.warnings.map(\.kind) == [.notImported])
            #expect(report.notScheduled == ["MedicationRequest/rx1"])
        }
    }

    /// One malformed order is refused alone, with its path; strict refuses them all.
    @Test func aMalformedOrderIsRefusedAlone() async throws {
        try await withStore { store, _ throws in
            let good = request(id: "good", dosages: [Self.daily])
            let bad = request(id: "bad", dosages: [#"{"timing": {"repeat": {"when": ["SOMETIME"]}}}"#])
            let unreadable = request(id: "unreadable", dosages: [#"{"timing": {"repeat": {"frequency": "two"}}}"#])
            let input = try parse(bundle([good, bad, unreadable]))
            await #expect(throws: FHIRError.self) { try await importer().run(input, into: store, strict: true) }
            #expect(try await store.plan.activities().isEmpty)
            let report = try await importer().run(input, into: store)
            #expect(report.added == ["rx-good"])
            #expect(report.imported == 1)
            #expect(report.refused.map(\.path).sorted() == [
                "Bundle.entry[1].resource.dosageInstruction[0].timing.repeat.when[0]",
                "Bundle.entry[2].resource.dosageInstruction[0].timing.repeat.frequency"])
            #expect(report.refused.allSatisfy { $0.kind == .invalid })
        }
    }

    /// Orders without id or identifier (Synthea's DSTU2 orders) get a key from their content:
    /// importing again changes nothing, and stopping the order ends its activity.
    @Test func ordersWithoutIdAreKeyedByContent() async throws {
        try await withStore { store, _ throws in
            let order = medicationOrder(dosages: [#"{"timing": {"repeat": {"frequency": 1, "period": 1, "periodUnits": "d"}}}"#])
                .replacingOccurrences(of: #""id": "mo1", "#, with: "")
            let first = try await importer().run(try parse(bundle([order])), into: store)
            let id = try #require(first.added.first)
            #expect(id.hasPrefix("rx-order-") && id.count == "rx-order-".count + 16)
            let again = try await importer(today: importDay.adding(days: 3)).run(try parse(bundle([order])), into: store)
            #expect(again.unchanged == [id])
            let stopped = order.replacingOccurrences(of: #""status": "active""#, with: #""status": "stopped""#)
            let stop = try await importer(today: importDay.adding(days: 5)).run(try parse(bundle([stopped])), into: store)
            #expect(stop.ended == [id])
        }
    }
}
