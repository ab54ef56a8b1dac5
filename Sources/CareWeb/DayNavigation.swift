import CarePlan
import Markup

/// The day a page shows, with links to the day before, the day after and today.
struct DayNavigation {
    var day: CalendarDay
    var today: CalendarDay
    var path: String
    var words: WebWords

    func write(to markup: inout Markup) {
        markup.element("nav", ["class": "days", "aria-label": words["days"]]) { nav in
            nav.element("a", ["href": "\(path)?day=\(day.adding(days: -1))"], text: "‹ " + words["previousDay"])
            if day != today { nav.element("a", ["href": "\(path)?day=\(today)"], text: words["careCard", "today"]) }
            if day < today { nav.element("a", ["href": "\(path)?day=\(day.adding(days: 1))"], text: words["nextDay"] + " ›") }
        }
        markup.element("h2", ["id": "day"], text: words.weekday(day) + ", " + words.date(day))
    }
}
