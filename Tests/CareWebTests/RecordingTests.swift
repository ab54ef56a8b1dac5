import CarePlan
import CarePlanStore
import Foundation
import Testing

/// Recording from the care card: the store's completion path (once per form, the history
/// naming the browser), and what is refused: no token, another site, a household session, a
/// day to come, an unknown activity, a body too large.
struct RecordingTests {
    let tablets = "tablets@2026-11-24#0"

    @Test func aFormRecordsOnceEvenWhenSentTwice() async throws {
        let web = try await WebFixture()
        let card = try await web.signIn()
        let form = try #require(WebFixture.outcomeForm(tablets, in: card))
        #expect(form.first { $0.0 == "state" }?.1 == "completed")
        let first = try await web.request(.POST, "/outcomes", form: form)
        #expect(first.status == 303 && first.headers.first(name: "Location") == "/?day=2026-11-24")
        let revision = try await web.store.revision()
        // The same form again (a reload that resends it): the same answer, nothing new.
        let second = try await web.request(.POST, "/outcomes", form: form)
        #expect(second.status == 303)
        #expect(try await web.store.revision() == revision)
        let event = try await web.store.outcomes.event(EventKey(activityID: "tablets", day: WebFixture.day, occurrence: 0))
        #expect(event.state == .completed && event.outcome?.device.hasPrefix("browser:") == true)

        // The page now offers to undo it, and undoing resets the event.
        let updated = try await web.request(.GET, "/?day=2026-11-24").body
        let undo = try #require(WebFixture.outcomeForm(tablets, in: updated))
        #expect(undo.first { $0.0 == "state" }?.1 == "initial")
        _ = try await web.request(.POST, "/outcomes", form: undo)
        #expect(try await web.store.outcomes.event(EventKey(activityID: "tablets", day: WebFixture.day, occurrence: 0)).state == .initial)
        try await web.stop()
    }

    @Test func formsWithoutTheTokenOrFromAnotherSiteAreRefused() async throws {
        let web = try await WebFixture()
        let card = try await web.signIn()
        let form = try #require(WebFixture.outcomeForm(tablets, in: card))
        let withoutToken = form.filter { $0.0 != "csrf" }
        let noToken = try await web.request(.POST, "/outcomes", form: withoutToken)
        #expect(noToken.status == 403 && noToken.body.contains("did not come from one of this app"))
        let wrongToken = try await web.request(.POST, "/outcomes", form: withoutToken + [("csrf", String(repeating: "0", count: 32))])
        #expect(wrongToken.status == 403)
        let elsewhere = try await web.request(.POST, "/outcomes", form: form, headers: [("Origin", "http://evil.example")])
        #expect(elsewhere.status == 403)
        // Scripts may send the token as a header instead.
        let scripted = try await web.request(
            .POST, "/outcomes", form: withoutToken,
            headers: [("X-CSRF-Token", form.first { $0.0 == "csrf" }!.1), ("Origin", web.base)])
        #expect(scripted.status == 303)
        #expect(try await web.store.outcomes.event(EventKey(activityID: "tablets", day: WebFixture.day, occurrence: 0)).state == .completed)
        try await web.stop()
    }

    @Test func aHouseholdSessionSeesTheStatesButRecordsNothing() async throws {
        let web = try await WebFixture()
        let card = try await web.signIn(.household)
        #expect(card.contains("Household: read only"))
        #expect(!card.contains("action=\"/outcomes\"") && card.contains("08:00: not yet done"))
        let token = try #require(WebFixture.field("csrf", in: card))
        let refused = try await web.request(.POST, "/outcomes", form: [
            ("csrf", token), ("message", "0f0f"), ("activity", "tablets"), ("day", "2026-11-24"), ("occurrence", "0"), ("state", "completed"),
        ])
        #expect(refused.status == 403 && refused.body.contains("can look but not record"))
        #expect(try await web.store.outcomes.event(EventKey(activityID: "tablets", day: WebFixture.day, occurrence: 0)).state == .initial)
        try await web.stop()
    }

    @Test func refusalsSayWhyAndChangeNothing() async throws {
        let web = try await WebFixture()
        let card = try await web.signIn()
        let token = try #require(WebFixture.field("csrf", in: card))
        func post(_ fields: [(String, String)]) async throws -> WebFixture.Reply {
            try await web.request(.POST, "/outcomes", form: [("csrf", token), ("message", UUID().uuidString.lowercased())] + fields)
        }
        let revision = try await web.store.revision()
        let unknown = try await post([("activity", "nope"), ("day", "2026-11-24"), ("occurrence", "0"), ("state", "completed")])
        #expect(unknown.status == 422 && unknown.body.contains("the plan has no such activity"), "\(unknown.body)")
        let future = try await post([("activity", "tablets"), ("day", "2026-11-25"), ("occurrence", "0"), ("state", "completed")])
        #expect(future.status == 422 && future.body.contains("25 November 2026 is after today (24 November 2026 in GMT)"), "\(future.body)")
        let occurrence = try await post([("activity", "tablets"), ("day", "2026-11-24"), ("occurrence", "5"), ("state", "completed")])
        #expect(occurrence.status == 422)
        let state = try await post([("activity", "tablets"), ("day", "2026-11-24"), ("occurrence", "0"), ("state", "maybe")])
        #expect(state.status == 400 && state.body.contains("&quot;state&quot; must be"))
        let scale = try await post([("activity", "pain"), ("day", "2026-11-24"), ("occurrence", "0"), ("state", "completed"), ("value[]", "11")])
        #expect(scale.status == 422 && scale.body.contains("11 is not on the scale from 0 to 10"), "\(scale.body)")
        let words = try await post([("activity", "pain"), ("day", "2026-11-24"), ("occurrence", "0"), ("state", "completed"), ("value[]", "seven")])
        #expect(words.status == 422 && words.body.contains("“seven” is not a whole number from 0 to 10"), "\(words.body)")
        let large = try await post([("activity", "tablets"), ("day", "2026-11-24"), ("occurrence", "0"), ("state", "completed"),
                                    ("reason", String(repeating: "x", count: 20_000))])
        #expect(large.status == 413)
        #expect(try await web.store.revision() == revision)
        // Never a stack trace or a Swift type in what a person reads.
        for reply in [unknown, future, occurrence, state, scale, words, large] {
            #expect(!reply.body.contains("CarePlanStoreError") && !reply.body.contains(".swift"))
        }
        try await web.stop()
    }

    /// A blood pressure measured twice a day from the fixture's day.
    static func pressure() throws -> Activity {
        try Activity(
            identifier: "pressure", kind: .assessment, title: "Blutdruck",
            result: .number(unit: "mmHg", components: ["systolic", "diastolic"]), schedule: .daily(occurrences: 2, start: WebFixture.day))
    }

    /// A German page reads numbers as German writes them, and says in German why the record
    /// refuses: a day to come, a value no body gives, a scale's end passed.
    @Test func aGermanPageReadsGermanNumbersAndRefusesInGerman() async throws {
        let web = try await WebFixture()
        let day = WebFixture.day
        let pressure = try Self.pressure()
        let tablets = try Activity(
            identifier: "tablets", kind: .intervention, title: "Tablets", instructions: "With water.",
            schedule: .daily(times: [TimeOfDay("08:00")!, TimeOfDay("20:00")!], start: day))
        let pain = try Activity(
            identifier: "pain", kind: .assessment, title: "Pain", result: .scale(min: 0, max: 10), schedule: .daily(occurrences: 1, start: day))
        try await web.store.core.plan.load(Plan(title: "Test", timeZone: .gmt, activities: [tablets, pain, pressure]), effectiveFrom: day, device: "test")
        let card = try await web.signIn()
        let token = try #require(WebFixture.field("csrf", in: card))
        func post(_ fields: [(String, String)]) async throws -> WebFixture.Reply {
            try await web.request(
                .POST, "/outcomes", form: [("csrf", token), ("message", UUID().uuidString.lowercased()), ("state", "completed")] + fields,
                headers: [("Accept-Language", "de")])
        }
        let revision = try await web.store.revision()
        let future = try await post([("activity", "tablets"), ("day", "2026-11-25"), ("occurrence", "0")])
        #expect(future.status == 422 && future.body.contains("der 25. November 2026 liegt nach heute (24. November 2026 in GMT)"), "\(future.body)")
        let implausible = try await post([("activity", "pressure"), ("day", "2026-11-24"), ("occurrence", "0"), ("value[]", "8000"), ("value[]", "-5")])
        #expect(implausible.status == 422 && implausible.body.contains("8000 kann nicht stimmen"), "\(implausible.body)")
        let scale = try await post([("activity", "pain"), ("day", "2026-11-24"), ("occurrence", "0"), ("value[]", "11")])
        #expect(scale.status == 422 && scale.body.contains("11 liegt nicht auf der Skala von 0 bis 10"), "\(scale.body)")
        for reply in [future, implausible, scale] {
            #expect(!reply.body.contains("Nothing was recorded") && !reply.body.contains("is after today"))
        }
        #expect(try await web.store.revision() == revision)

        let recorded = try await post([("activity", "pressure"), ("day", "2026-11-24"), ("occurrence", "0"), ("value[]", "120,5"), ("value[]", "80")])
        #expect(recorded.status == 303, "\(recorded.body)")
        let event = try await web.store.outcomes.event(EventKey(activityID: "pressure", day: day, occurrence: 0))
        #expect(event.outcome?.values.map(\.value) == [.decimal(120.5), .integer(80)])
        try await web.stop()
    }

    /// A German page refuses in German what no body gives (issue 53, item 8): a diastolic
    /// above the systolic, a weight of 725 kg, "1e3", a value on an intervention; nothing is
    /// written, and a weight written "72,5" is kept as 72.5 kg.
    @Test func aGermanPageRefusesImplausibleReadingsInGerman() async throws {
        let web = try await WebFixture()
        let day = WebFixture.day
        let pressure = try Self.pressure()
        let weight = try Activity(
            identifier: "weight", kind: .assessment, title: "Gewicht", result: .number(unit: "kg"), schedule: .daily(occurrences: 1, start: day))
        try await web.store.core.plan.addActivity(pressure, effectiveFrom: day, device: "test")
        try await web.store.core.plan.addActivity(weight, effectiveFrom: day, device: "test")
        let card = try await web.signIn()
        let token = try #require(WebFixture.field("csrf", in: card))
        func post(_ activity: String, _ values: String...) async throws -> WebFixture.Reply {
            try await web.request(
                .POST, "/outcomes",
                form: [("csrf", token), ("message", UUID().uuidString.lowercased()), ("state", "completed"), ("activity", activity),
                       ("day", "2026-11-24"), ("occurrence", "0")] + values.map { ("value[]", $0) },
                headers: [("Accept-Language", "de")])
        }
        let revision = try await web.store.revision()
        let refusals = [
            (try await post("pressure", "80", "120"), "Nichts wurde gespeichert: der diastolische Wert (120) muss unter dem systolischen (80) liegen."),
            (try await post("weight", "725"), "Nichts wurde gespeichert: 725 kann nicht stimmen: erwartet wird ein Wert von 0,25 bis 650."),
            (try await post("weight", "1e3"), "Nichts wurde gespeichert: „1e3“ ist keine Zahl."),
            (try await post("tablets", "5"), "Nichts wurde gespeichert: hier wird kein Wert erfragt."),
        ]
        for (reply, sentence) in refusals {
            #expect(reply.status == 422 && reply.body.contains(sentence), "\(reply.body)")
            for english in ["Nothing was recorded", "diastolic", "cannot be right", "is not a number", "asks for no value"] {
                #expect(!reply.body.contains(english), "\(english): \(reply.body)")
            }
        }
        #expect(try await web.store.revision() == revision)

        let recorded = try await post("weight", "72,5")
        #expect(recorded.status == 303, "\(recorded.body)")
        let event = try await web.store.outcomes.event(EventKey(activityID: "weight", day: day, occurrence: 0))
        #expect(event.outcome?.values == [OutcomeValue(.decimal(72.5), unit: "kg")])
        try await web.stop()
    }
}
