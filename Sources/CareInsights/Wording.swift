import CarePlan
import Foundation

/// The English sentences of the messages. Each says what was seen and on which numbers, and
/// none claims a cause.
enum Wording {
    static func adherenceTitle(_ activity: Activity) -> String { "\(activity.title): below target" }

    static func adherence(_ activity: Activity, tally: Tally, days: Int, below: Double) -> String {
        "\(tally.completed) of \(tally.total) due \(plural(tally.total, "event", "events")) done in the last \(days) "
            + "\(plural(days, "day", "days")) (\(percent(tally.fraction ?? 0))), below the target of \(percent(below))."
    }

    static func missedTitle(_ activity: Activity) -> String { "\(activity.title): missed days running" }

    static func missed(_ activity: Activity, days: [CalendarDay], missed: Int) -> String {
        "\(missed) due \(plural(missed, "event", "events")) not done on \(days.count) scheduled days running (\(list(days.map(label))))."
    }

    static func rangeTitle(_ activity: Activity) -> String { "\(activity.title): outside the usual range" }

    static func range(_ activity: Activity, _ broken: [(RangeRule, Int, Double)], unit: String?, days: Int) -> String {
        let parts = broken.map { rule, count, extreme in
            let name = rule.component.map { "\($0) " } ?? ""
            let limit = rule.atOrAbove.map { "at or above \(number($0))" } ?? "at or below \(number(rule.atOrBelow!))"
            let most = rule.atOrAbove != nil ? "highest" : "lowest"
            return "\(name)\(limit) on \(count) \(plural(count, "day", "days")) (\(most) \(number(extreme))\(unit.map { " \($0)" } ?? ""))"
        }
        return "Recorded outside the usual range on \(days) \(plural(days, "day", "days")): \(list(parts))."
    }

    static func comparisonTitle(_ intervention: Activity, _ assessment: Activity) -> String {
        "\(assessment.title) and \(intervention.title)"
    }

    static func comparison(
        _ intervention: Activity, _ assessment: Activity, done: (days: Int, mean: Double), other: (days: Int, mean: Double), unit: String?
    ) -> String {
        let difference = done.mean - other.mean
        let unit = unit.map { " \($0)" } ?? ""
        let relation = difference == 0 ? "the same" : "\(number(abs(difference)))\(unit) \(difference < 0 ? "lower" : "higher")"
        return "On the \(done.days) days \(intervention.title) was done in full, \(assessment.title.lowercased()) averaged "
            + "\(number(done.mean))\(unit); on the \(other.days) other days, \(number(other.mean))\(unit) (\(relation)). "
            + "Seen together, not shown to be cause and effect."
    }

    /// `Mon 23 Nov`.
    static func label(_ day: CalendarDay) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        return "\(day.weekday.name.prefix(3).capitalized) \(day.day) \(months[day.month - 1])"
    }

    static func number(_ value: Double) -> String { InsightFormat.number(value) }

    static func percent(_ fraction: Double) -> String { "\(Int((fraction * 100).rounded())) %" }

    static func plural(_ count: Int, _ one: String, _ other: String) -> String { count == 1 ? one : other }

    /// `a`, `a and b`, `a, b and c`.
    static func list(_ items: [String]) -> String {
        guard items.count > 1 else { return items.first ?? "" }
        return items.dropLast().joined(separator: ", ") + " and " + items.last!
    }
}
