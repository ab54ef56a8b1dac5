import CareFHIR
import CareInsights
import CarePlan
import CarePlanStore
import Foundation
import Hummingbird
import Markup

/// The medications (`/medications`) and each one's doses and adherence (`/medications/ID`);
/// its doses are recorded through the care card's `/outcomes`.
struct MedicationsController: Sendable {
    let store: CarePlanStore, calendar: PlanCalendar

    func addRoutes(to router: some RouterMethods<WebContext>) {
        router.get("/medications") { request, context in try await medications(request, context) }
        router.get("/medications/:id") { request, context in try await medication(request, context) }
    }

    /// The medications (activities tagged `medication`) with instructions written in the
    /// page's language from each order's dosage, and the prescriber's own text beside.
    func medications(_ request: Request, _ context: WebContext) async throws -> Response {
        _ = try context.session()
        let revision = try await store.revision()
        let words = context.words
        let text = DosageText(language: words.language, timeZone: try await store.plan.timeZone())
        var listed: [(Activity, MedicationInstructions)] = []
        for version in try await store.plan.activities(ActivityQuery(tag: "medication")) {
            listed.append((version.activity, try await MedicationInstructions(version.activity, store: store, text: text)))
        }
        let held = try await HeldMedication.all(in: store, text: text)
        let page = WebPage(title: words["medications", "title"], section: .medications, context: context, revision: revision)
        return page.response { main in
            defer { if !held.isEmpty { Self.heldForReview(held, words: words, into: &main) } }
            guard !listed.isEmpty else {
                main.element("p", text: words["medications", "none"])
                return
            }
            main.element("ul", ["class": "cards"]) { list in
                for (activity, written) in listed {
                    list.element("li", ["class": "card", "id": "medication-\(activity.identifier)"]) { card in
                        card.element("h2") { $0.element("a", ["href": Self.medicationPath(activity.identifier)], text: activity.title) }
                        card.element("p", ["class": "instructions"], text: written.instructions)
                        if let whole = written.orderInstructions { card.element("p", text: words["medications", "order", values: ["text": whole]]) }
                        if let prescribed = activity.text {
                            card.element("p", ["class": "prescriber"], text: words["medications", "prescriber", values: ["text": prescribed]])
                        }
                    }
                }
            }
        }
    }

    /// Orders, or steps of them, imported but held for review: what they say and why they
    /// are not scheduled, apart from the medications that are.
    private static func heldForReview(_ held: [HeldMedication], words: WebWords, into main: inout Markup) {
        main.element("section", ["class": "held", "aria-labelledby": "held"]) { section in
            section.element("h2", ["id": "held"], text: words["medications", "held"])
            section.element("p", text: words["medications", "heldIntro"])
            section.element("ul", ["class": "cards"]) { list in
                for medication in held {
                    list.element("li", ["class": "card held", "id": "held-\(medication.activityID)"]) { card in
                        card.element("h3", text: medication.title)
                        card.element("p", ["class": "instructions"], text: medication.instructions)
                        if let prescribed = medication.text {
                            card.element("p", ["class": "prescriber"], text: words["medications", "prescriber", values: ["text": prescribed]])
                        }
                        card.element("p", ["class": "reason"], text: medication.reason)
                    }
                }
            }
        }
    }

    /// The page of the medication `id`: the id one path segment, every character but RFC 3986's
    /// unreserved ones percent-encoded (an id may hold `/`, `#` or `?`).
    static func medicationPath(_ id: String) -> String {
        "/medications/" + (id.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? id)
    }

    /// One medication: its recent doses, each with the time it was taken, or not taken with
    /// the reason, or nothing recorded, with buttons to record them; and its adherence by
    /// year, month, week or day.
    func medication(_ request: Request, _ context: WebContext) async throws -> Response {
        let signedIn = try context.session()
        guard let id = try context.parameters.require("id").removingPercentEncoding else { throw WebFailure.notFound }
        let revision = try await store.revision()
        let zone = try await store.plan.timeZone()
        let today = try await calendar.today()
        let versions = try await store.plan.versions(of: id)
        guard let latest = versions.last, latest.activity.tags.contains("medication") else { throw WebFailure.notFound }
        let grouping = request.uri.queryParameters["group"].flatMap { DayGrouping(rawValue: String($0)) } ?? .week
        let started = versions.map { max($0.effectiveFrom, $0.activity.schedule.start) }.min() ?? today
        let first = max(started, Self.chartStart(grouping, today: today))
        let doses = first <= today
            ? try await store.outcomes.events(of: id, from: first, through: today).filter { !$0.activity.schedule.asNeeded || $0.outcome != nil }
            : []
        let recent = doses.filter { $0.key.day >= today.adding(days: -6) }.reversed()
        let words = context.words
        let page = WebPage(title: latest.activity.title, section: .medications, context: context, revision: revision)
        return page.response { main in
            if let instructions = latest.activity.instructions { main.element("p", ["class": "instructions"], text: instructions) }
            main.element("h2", text: words["medications", "doses"])
            if recent.isEmpty { main.element("p", text: words["medications", "noDoses"]) }
            main.element("ul", ["class": "doses"]) { list in
                for dose in recent {
                    DoseRow(dose: dose, today: today, zone: zone, signedIn: signedIn, words: words,
                            path: Self.medicationPath(id) + "?group=\(grouping.rawValue)").write(to: &list)
                }
            }
            main.element("h2", ["id": "adherence"], text: words["medications", "adherence"])
            main.element("nav", ["class": "groupings", "aria-label": words["medications", "groupBy"]]) { nav in
                for option in DayGrouping.allCases {
                    let label = words["medications", "grouping", option.rawValue]
                    if option == grouping {
                        nav.element("span", ["aria-current": "true"], text: label)
                    } else {
                        nav.element("a", ["href": Self.medicationPath(id) + "?group=\(option.rawValue)#adherence"], text: label)
                    }
                }
            }
            if first <= today {
                AdherenceChart(chart: MedicationAdherence(grouping: grouping, first: first, last: today, doses: doses), activity: id, words: words)
                    .write(to: &main)
            }
        }
    }

    /// How far back the chart of `grouping` reaches: 14 days, 12 weeks, 12 months, 5 years.
    private static func chartStart(_ grouping: DayGrouping, today: CalendarDay) -> CalendarDay {
        switch grouping {
        case .day: today.adding(days: -13)
        case .week: WeekStrip.days(around: today)[0].adding(days: -7 * 11)
        case .month: CalendarDay(year: today.year - (today.month == 12 ? 0 : 1), month: today.month % 12 + 1, day: 1)!
        case .year: CalendarDay(year: today.year - 4, month: 1, day: 1)!
        }
    }
}
