import CareFHIR
import CareLanguage
import CarePlan
import CarePlanStore
import Foundation
import Testing

/// The medications page writes each order's instructions in the page's language, from the
/// FHIR dosage kept with the imported activity.
struct MedicationsPageTests {
    @Test func importedOrdersReadInEnglishOrGerman() async throws {
        let web = try await WebFixture()
        let bundle = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/fhir/medications-bundle.json")
        let input = try FHIRInput.parse(try Data(contentsOf: bundle), document: bundle.lastPathComponent)
        let mapper = OrderMapper(today: WebFixture.day, timeZone: .gmt, language: try Language("en"))
        let report = try await FHIRImporter(mapper: mapper, device: "test").run(input, into: web.store)
        #expect(!report.added.isEmpty, "\(report)")
        try await web.signIn()

        let english = try await web.request(.GET, "/medications", headers: [("Accept-Language", "en")]).body
        let german = try await web.request(.GET, "/medications", headers: [("Accept-Language", "de")]).body
        let instructions = { (page: String) in
            page.matches(of: /<p class="instructions">([^<]*)<\/p>/).map { String($0.1) }
        }
        let (inEnglish, inGerman) = (instructions(english), instructions(german))
        #expect(!inEnglish.isEmpty && inEnglish.count == inGerman.count)
        #expect(inEnglish.contains { $0.contains("Take") || $0.contains("tablet") }, "\(inEnglish)")
        #expect(inGerman.contains { $0.contains("Tablette") || $0.contains("einnehmen") }, "\(inGerman)")
        #expect(Set(inEnglish).isDisjoint(with: inGerman))
        try await web.stop()
    }

    /// A step held for review is shown apart from the medications that are due, in the
    /// page's language, with its reason; the step before it is listed as usual.
    @Test func aStepHeldForReviewIsShownApartWithItsReason() async throws {
        let web = try await WebFixture()
        let order = #"""
            {"resourceType": "MedicationRequest", "id": "load", "status": "active", "medicationCodeableConcept": {"text": "Ciprofloxacin 250 mg"},
             "dosageInstruction": [
               {"sequence": 1, "timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 2, "unit": "tablet"}}]},
               {"sequence": 2, "timing": {"repeat": {"frequency": 1, "period": 1, "periodUnit": "d"}}, "doseAndRate": [{"doseQuantity": {"value": 1, "unit": "tablet"}}]}]}
            """#
        let mapper = OrderMapper(today: WebFixture.day, timeZone: .gmt, language: try Language("en"))
        let report = try await FHIRImporter(mapper: mapper, device: "test").run(try FHIRInput.parse(Data(order.utf8)), into: web.store)
        #expect(report.held.count == 1)
        try await web.signIn()
        for (language, heading, reason) in [("en", "Held for review", "it follows a step that has no end"), ("de", "Zur Prüfung zurückgehalten", "folgt auf einen Schritt ohne Ende")] {
            let page = try await web.request(.GET, "/medications", headers: [("Accept-Language", language)]).body
            let held = try #require(page.firstRange(of: #"<section class="held""#).map { String(page[$0.lowerBound...]) }, "\(page)")
            #expect(held.contains(">\(heading)</h2>"))
            #expect(held.contains(#"id="held-rx-load/2""#))
            #expect(held.contains(reason))
            #expect(!page.contains(#"id="medication-rx-load/2""#))
            #expect(page.contains(#"id="medication-rx-load""#))
        }
        try await web.stop()
    }
}

/// Issue 53, item 9: a medication whose id needs escaping in a URL (`/`, `#`, `?`, `%`) opens
/// its own page from the list, not "Page not found".
struct MedicationLinkTests {
    @Test func anIdThatNeedsEscapingOpensItsPage() async throws {
        let web = try await WebFixture()
        let id = "cough/syrup#1?x=%20ä"
        let syrup = try Activity(
            identifier: id, kind: .intervention, title: "Cough syrup", tags: ["medication"],
            schedule: .daily(times: [TimeOfDay("08:00")!], start: WebFixture.day))
        try await web.store.core.plan.addActivity(syrup, effectiveFrom: WebFixture.day, device: "test")
        try await web.signIn()
        let list = try await web.request(.GET, "/medications").body
        let link = try #require(list.firstMatch(of: /<a href="(\/medications\/[^"]*)">Cough syrup<\/a>/).map { String($0.1) }, "\(list)")
        #expect(link == "/medications/cough%2Fsyrup%231%3Fx%3D%2520%C3%A4")
        let page = try await web.request(.GET, link)
        #expect(page.status == 200 && page.body.contains("<h1>Cough syrup</h1>"), "\(page.status)")
        let week = try await web.request(.GET, link + "?group=week")
        #expect(week.status == 200 && week.body.contains("href=\"\(link)?group=day#adherence\""))
        try await web.stop()
    }
}

/// Issue 53, item 9: the record knows when a dose was entered, not when it was taken, so the
/// page says "recorded", and names the day when it was entered on another; in German with
/// "am" before a date and "um" before a time.
struct DoseEntryTests {
    @Test func aDoseEnteredLaterSaysSoWithItsDay() async throws {
        let web = try await WebFixture()
        let syrup = try Activity(
            identifier: "syrup", kind: .intervention, title: "Syrup", tags: ["medication"],
            schedule: .daily(times: [TimeOfDay("08:00")!, TimeOfDay("20:00")!], start: WebFixture.day))
        try await web.store.core.plan.addActivity(syrup, effectiveFrom: WebFixture.day, device: "test")
        let morning = EventKey(activityID: "syrup", day: WebFixture.day, occurrence: 0)
        try await web.store.record(Outcome(state: .completed, recordedAt: web.clock.now, device: "test"), for: morning)
        web.clock.advance(by: 2 * 86_400 + 3_600)  // Thursday 26 November, 10:00
        try await web.store.record(
            Outcome(state: .notCompleted, recordedAt: web.clock.now, device: "test", reason: "asleep"),
            for: EventKey(activityID: "syrup", day: WebFixture.day, occurrence: 1))
        try await web.signIn()
        for (language, sameDay, later) in [
            ("en", "Taken (recorded at 09:00)", "Not taken (recorded later, on 26 November 2026 at 10:00): asleep"),
            ("de", "Genommen (erfasst um 09:00)", "Nicht genommen (nachträglich erfasst am 26. November 2026 um 10:00): asleep"),
        ] {
            let page = try await web.request(.GET, "/medications/syrup", headers: [("Accept-Language", language)]).body
            #expect(page.contains(#"<span class="status">\#(sameDay)</span>"#), "\(page)")
            #expect(page.contains(#"<span class="status">\#(later)</span>"#), "\(language)")
        }
        let devices = try await web.request(.GET, "/devices", headers: [("Accept-Language", "de")]).body
        #expect(devices.contains("Zuletzt gesehen am 26. November 2026 um 10:00"), "\(devices)")
        try await web.stop()
    }
}

