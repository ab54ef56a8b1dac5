import CarePlan
import CarePlanStore
import Foundation
import Testing

/// What every page carries (languages, security headers) and the live stream.
struct PageTests {
    @Test func theBrowsersLanguageOrThePersonsChoiceSetsTheWords() async throws {
        let web = try await WebFixture()
        try await web.signIn()
        let german = try await web.request(.GET, "/?day=2026-11-24", headers: [("Accept-Language", "fr-CH, de;q=0.8, en;q=0.5")])
        #expect(german.body.contains("<html lang=\"de\">") && german.body.contains("<h1>Pflegekarte</h1>"))
        #expect(german.body.contains("Dienstag, 24. November 2026"))
        #expect(german.body.contains("08:00: als erledigt markieren"))
        // ?lang=en remembers English for this browser, whatever it asks for.
        let chosen = try await web.request(.GET, "/?lang=en", headers: [("Accept-Language", "de")])
        #expect(chosen.status == 303 && chosen.headers["Set-Cookie"].contains { $0.hasPrefix("caresync_lang=en") })
        let english = try await web.request(.GET, "/?day=2026-11-24", headers: [("Accept-Language", "de")])
        #expect(english.body.contains("<h1>Care card</h1>") && english.body.contains("Tuesday, 24 November 2026"))
        try await web.stop()
    }

    @Test func everyResponseForbidsFramingScriptsFromElsewhereAndSniffing() async throws {
        let web = try await WebFixture()
        for path in ["/sign-in", "/nowhere", "/assets/app.css"] {
            let reply = try await web.request(.GET, path)
            let policy = reply.headers.first(name: "Content-Security-Policy") ?? ""
            #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'"), "\(path)")
            #expect(reply.headers.first(name: "X-Content-Type-Options") == "nosniff")
        }
        let missing = try await web.request(.GET, "/nowhere")
        #expect(missing.status == 404 && missing.body.contains("There is no such page"))
        // No inline script or style anywhere in a page (the policy would block it).
        let page = try await web.request(.GET, "/sign-in").body
        #expect(!page.contains("<script>") && !page.contains("style=") && !page.contains("<style"))
        try await web.stop()
    }

    /// A dose the primary alerted as missed reads so on the care card, in either language,
    /// apart from the dose still to come; once recorded it is done like any other.
    @Test func aMissedDoseLooksMissedNotUpcoming() async throws {
        let web = try await WebFixture()
        let morning = EventKey(activityID: "tablets", day: WebFixture.day, occurrence: 0)
        _ = try await web.store.core.reminders.raise([DoseAlert(
            kind: .missed, key: morning, title: "Tablets", time: TimeOfDay("08:00")!, dueAt: web.clock.now.addingTimeInterval(-3600),
            raisedAt: web.clock.now, critical: false)])
        let card = try await web.signIn()
        #expect(card.contains(#"<li class="state-missed" data-event="tablets@2026-11-24#0">"#), "\(card)")
        #expect(card.contains(">08:00: missed, mark done</button>"))
        #expect(card.contains(#"<li class="state-initial" data-event="tablets@2026-11-24#1">"#))
        #expect(card.contains(">20:00: mark done</button>"))
        let german = try await web.request(.GET, "/", headers: [("Accept-Language", "de")]).body
        #expect(german.contains(">08:00: versäumt, als erledigt markieren</button>"))
        try await web.store.record(Outcome(state: .completed, recordedAt: web.clock.now, device: "test"), for: morning)
        let done = try await web.request(.GET, "/").body
        #expect(done.contains(#"<li class="state-completed" data-event="tablets@2026-11-24#0">"#))
        try await web.stop()
    }

    /// A page that does not exist is headed so, and a `?day=` that names no day says what a
    /// day looks like, each in the page's language (never "the form was not understood").
    @Test func aMissingPageAndABadDaySayWhatIsWrongInThePagesLanguage() async throws {
        let web = try await WebFixture()
        try await web.signIn()
        for (language, missing, badDay, detail) in [
            ("en", "Page not found", "No such day", "“yesterday” is not a day"), ("de", "Seite nicht gefunden", "Diesen Tag gibt es nicht", "„yesterday“ ist kein Tag"),
        ] {
            let notFound = try await web.request(.GET, "/nowhere", headers: [("Accept-Language", language)])
            #expect(notFound.status == 404 && notFound.body.contains("<h1>\(missing)</h1>"), "\(notFound.body)")
            let day = try await web.request(.GET, "/?day=yesterday", headers: [("Accept-Language", language)])
            #expect(day.status == 400 && day.body.contains("<h1>\(badDay)</h1>") && day.body.contains(detail), "\(day.body)")
        }
        try await web.stop()
    }

    @Test func theWeekStripShowsEachDaysShareDone() async throws {
        let web = try await WebFixture()
        try await web.store.record(
            Outcome(state: .completed, recordedAt: web.clock.now, device: "test"),
            for: EventKey(activityID: "tablets", day: WebFixture.day, occurrence: 1))
        let card = try await web.signIn()
        #expect(card.contains("aria-label=\"Tuesday, 24 November 2026: 1 of 2 done\" aria-current=\"date\""), "\(card)")
        #expect(card.contains("data-done=\"1\" data-due=\"2\""))
        #expect(card.contains("<text class=\"ring-text\" x=\"20\" y=\"20\">50</text>"))
        // Monday was before the plan began: nothing due, no percentage.
        #expect(card.contains("aria-label=\"Monday, 23 November 2026: 0 of 0 done\""))
        try await web.stop()
    }

    /// Issue 53, item 9: a day gone by shows a dose left open as not recorded (still
    /// recordable), a day to come shows its doses as to come without a button (a dose is not
    /// taken in advance), and its ring says what is planned instead of "0".
    @Test func daysGoneByAndDaysToComeReadAsWhatTheyAre() async throws {
        let web = try await WebFixture()
        web.clock.advance(by: 2 * 86_400)  // Thursday 26 November
        try await web.signIn()
        for (language, unrecorded, button, upcoming, ring) in [
            ("en", "08:00: not recorded", ">08:00: not recorded, mark done</button>", ">08:00: to come</span>",
             "aria-label=\"Friday, 27 November 2026: 2 planned, to come\""),
            ("de", "08:00: nicht erfasst", ">08:00: nicht erfasst, als erledigt markieren</button>", ">08:00: steht bevor</span>",
             "aria-label=\"Freitag, 27. November 2026: 2 geplant, steht bevor\""),
        ] {
            let past = try await web.request(.GET, "/?day=2026-11-24", headers: [("Accept-Language", language)]).body
            #expect(past.contains(#"<li class="state-unrecorded" data-event="tablets@2026-11-24#0">"#), "\(past)")
            #expect(past.contains(button), "\(unrecorded)")
            let future = try await web.request(.GET, "/?day=2026-11-28", headers: [("Accept-Language", language)]).body
            #expect(future.contains(#"<li class="state-upcoming" data-event="tablets@2026-11-28#0">"#), "\(future)")
            #expect(future.contains(upcoming))
            #expect(!future.contains(#"action="/outcomes""#), "no button records a day to come")
            #expect(future.contains(ring), "\(language)")
            // Friday's ring has no percentage in it; Thursday's (today) says 0.
            let friday = try #require(future.firstRange(of: "27 November 2026") ?? future.firstRange(of: "27. November 2026"))
            let fridayRing = future[friday.upperBound...].prefix(400)
            #expect(fridayRing.contains(#"class="ring to-come""#) && !fridayRing.contains("ring-text"), "\(fridayRing)")
            #expect(future.contains(#"<svg viewBox="0 0 40 40" aria-hidden="true" class="ring" data-done="0" data-due="2">"#))
        }
        try await web.stop()
    }

    @Test func theLiveStreamSaysTheRevisionAtOnceAndAfterEachCommitAndEndsAtShutdown() async throws {
        let web = try await WebFixture(.live) { $0.liveHeartbeat = .milliseconds(200) }
        try await web.signIn()
        let stream = try await web.openLive()
        let first = try await stream.next(containing: "event: revision")
        let revision = try await web.store.revision()
        #expect(first.contains("data: \(revision)"))
        try await web.store.record(
            Outcome(state: .completed, recordedAt: web.clock.now, device: "cli"),
            for: EventKey(activityID: "tablets", day: WebFixture.day, occurrence: 0))
        let next = try await stream.next(containing: "data: \(revision + 1)")
        #expect(next.contains("event: revision"))
        _ = try await stream.next(containing: ": still here")
        // A graceful shutdown ends the open stream instead of waiting for it.
        try await web.stop()
        try await stream.ended()
    }
}
