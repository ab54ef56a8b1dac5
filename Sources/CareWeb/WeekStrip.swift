import CarePlan
import Foundation
import Markup

/// Seven days, Monday to Sunday, each a link to its care card with a ring showing how much
/// of the day's plan was done.
struct WeekStrip {
    var days: [CalendarDay]
    var selected: CalendarDay
    var today: CalendarDay
    var summaries: [CompletionSummary]
    var words: WebWords

    /// The Monday-to-Sunday week holding `day`.
    static func days(around day: CalendarDay) -> [CalendarDay] {
        let monday = day.adding(days: -((day.weekday.rawValue + 6) % 7))
        return (0..<7).map { monday.adding(days: $0) }
    }

    func write(to markup: inout Markup) {
        markup.element("nav", ["class": "days", "aria-label": words["careCard", "weekNavigation"]]) { nav in
            nav.element("a", ["href": "/?day=\(days[0].adding(days: -7))"], text: "‹ " + words["careCard", "previousWeek"])
            if !days.contains(today) || selected != today {
                nav.element("a", ["href": "/?day=\(today)"], text: words["careCard", "today"])
            }
            nav.element("a", ["href": "/?day=\(days[0].adding(days: 7))"], text: words["careCard", "nextWeek"] + " ›")
        }
        markup.element("ol", ["class": "week"]) { list in
            for day in days {
                let tally = summaries.first { $0.day == day }?.interventions ?? Tally()
                list.element("li") { item in
                    // A day to come has nothing done yet: its ring says how much is planned, not 0 %.
                    let toCome = day > today
                    let label = words["careCard", toCome ? "dayRingToCome" : "dayRing", values: [
                        "day": words.weekday(day) + ", " + words.date(day), "done": "\(tally.completed)", "due": "\(tally.total)",
                    ]]
                    let attributes: KeyValuePairs<String, String> = day == selected
                        ? ["href": "/?day=\(day)", "aria-label": label, "aria-current": "date"]
                        : ["href": "/?day=\(day)", "aria-label": label]
                    item.element("a", attributes) { link in
                        link.element("span", ["aria-hidden": "true"], text: words.weekday(day, short: true))
                        ring(tally, toCome: toCome, into: &link)
                        link.element("span", ["aria-hidden": "true"], text: "\(day.day)")
                    }
                }
            }
        }
    }

    /// The ring: a grey track, a green arc for the share done, the percentage inside; for a
    /// day to come, a dashed track with nothing inside.
    private func ring(_ tally: Tally, toCome: Bool, into markup: inout Markup) {
        let radius = 16.0
        let circumference = 2 * Double.pi * radius
        let done = (tally.fraction ?? 0) * circumference
        let attributes: KeyValuePairs<String, String> = [
            "viewBox": "0 0 40 40", "aria-hidden": "true", "class": toCome ? "ring to-come" : "ring",
            "data-done": "\(tally.completed)", "data-due": "\(tally.total)",
        ]
        markup.element("svg", attributes) { svg in
            svg.empty("circle", ["class": "ring-track", "cx": "20", "cy": "20", "r": "\(radius)"])
            guard !toCome else { return }
            if done > 0 {
                svg.empty("circle", [
                    "class": "ring-done", "cx": "20", "cy": "20", "r": "\(radius)", "transform": "rotate(-90 20 20)",
                    "stroke-dasharray": String(format: "%.2f %.2f", done, circumference),
                ])
            }
            svg.element("text", ["class": "ring-text", "x": "20", "y": "20"],
                        text: tally.fraction.map { "\(Int(($0 * 100).rounded()))" } ?? "–")
        }
    }
}
