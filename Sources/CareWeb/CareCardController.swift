import CareCore
import CarePlan
import CarePlanStore
import Foundation
import Hummingbird
import Logging
import Markup

/// The care card (`/`) and the form every recording button posts (`/outcomes`), which the
/// symptoms and medications pages share.
struct CareCardController: Sendable {
    /// What it reads, and the care core's part that judges and records outcomes.
    let store: CarePlanStore, outcomes: OutcomeRecording
    let calendar: PlanCalendar, forms: SignedInForms, logger: Logger

    func addRoutes(to router: some RouterMethods<WebContext>) {
        router.get("/") { request, context in try await careCard(request, context) }
        router.post("/outcomes") { request, context in try await recordOutcome(request, context) }
    }

    /// The care card: the day's interventions with a button per occurrence (done, or undo),
    /// and a week strip with each day's adherence ring to move between days.
    func careCard(_ request: Request, _ context: WebContext) async throws -> Response {
        let signedIn = try context.session()
        // Read before the events: a change committed in between makes the page older than
        // its events, and a live update then fetches it again (never the reverse).
        let revision = try await store.revision()
        let (today, day) = try await calendar.shownDay(request)
        let events = try await store.outcomes.events(on: day, kind: .intervention)
        // Doses the primary has alerted as missed (its rule, after the grace period), still open.
        let missed = try await store.reminders.missedDoseKeys(from: day).filter { $0.day == day }
        let week = WeekStrip.days(around: day)
        let summaries = try await store.outcomes.completion(from: week[0], through: week[6])
        let words = context.words
        var page = WebPage(title: words["careCard", "title"], section: .careCard, context: context, revision: revision)
        page.notice = request.uri.queryParameters["recorded"].map { _ in WebPage.Notice(text: words["careCard", "recorded"], isError: false) }
        return page.response { main in
            WeekStrip(days: week, selected: day, today: today, summaries: summaries, words: words).write(to: &main)
            main.element("h2", ["id": "day"], text: words.weekday(day) + ", " + words.date(day))
            let byActivity = Dictionary(grouping: events, by: \.activity.identifier)
            let activities = events.map(\.activity.identifier).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
            guard !activities.isEmpty else {
                main.element("p", text: words["careCard", "nothing"])
                return
            }
            main.element("ul", ["class": "cards", "aria-labelledby": "day"]) { list in
                for id in activities {
                    guard let events = byActivity[id], let activity = events.first?.activity else { continue }
                    list.element("li", ["class": "card", "id": "activity-\(id)"]) { card in
                        card.element("h2", text: activity.title)
                        if let instructions = activity.instructions { card.element("p", ["class": "instructions"], text: instructions) }
                        occurrences(
                            events, of: activity, missed: missed, dayIs: DayPlace(day, today: today), signedIn: signedIn, words: words,
                            path: "/?day=\(day)", into: &card)
                    }
                }
            }
        }
    }

    /// One button per occurrence: a form that records it done (or undoes it). A household
    /// session sees the states without buttons, and so does everyone on a day to come (a
    /// dose is not taken in advance). A dose still open says what it is: alerted as `missed`,
    /// `unrecorded` on a day gone by, `upcoming` on a day to come, else not yet done.
    private func occurrences(
        _ events: [Event], of activity: Activity, missed: Set<EventKey>, dayIs: DayPlace, signedIn: SignedIn, words: WebWords,
        path: String, into card: inout Markup
    ) {
        card.element("ul", ["class": "occurrences", "aria-label": words["careCard", "occurrences", values: ["title": activity.title]]]) { list in
            for event in events {
                let label = event.time.map { "\($0)" } ?? "#\(event.key.occurrence + 1)"
                let state = event.state
                let shown = switch (state, missed.contains(event.key), dayIs) {
                case (.initial, true, _): "missed"
                case (.initial, false, .past): "unrecorded"
                case (.initial, false, .future): "upcoming"
                default: state.rawValue
                }
                list.element("li", ["class": "state-\(shown)", "data-event": event.key.description]) { item in
                    guard signedIn.session.access.mayRecord, activity.result == nil, dayIs != .future else {
                        item.element("span", text: words["careCard", "state", shown, values: ["time": label]])
                        return
                    }
                    item.element("form", ["method": "post", "action": "/outcomes"]) { form in
                        form.csrf(signedIn)
                        OutcomeForm.hiddenFields(event.key, returnTo: path, into: &form)
                        form.empty("input", ["type": "hidden", "name": "state", "value": state == .completed ? "initial" : "completed"])
                        form.element("button", ["type": "submit", "aria-pressed": state == .completed ? "true" : "false"],
                                     text: words["careCard", "button", shown, values: ["time": label]])
                    }
                }
            }
        }
    }
}
