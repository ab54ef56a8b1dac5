import CareLanguage
import CarePlan
import Foundation

/// The sentences of the messages, in one language (the `insights` table of its file). Each
/// says what was seen and on which numbers, and none claims a cause.
public struct InsightWording: Sendable {
    public let language: Language

    public init(language: Language) {
        self.language = language
    }

    private func phrase(_ key: String, count: Int? = nil, _ values: [String: String] = [:]) -> String {
        language.phrase(["insights", key], count: count.map { Decimal($0) }, values)
    }

    func adherenceTitle(_ activity: Activity) -> String { phrase("adherenceTitle", ["activity": activity.title]) }

    func adherence(tally: Tally, days: Int, below: Double) -> String {
        phrase("adherence", [
            "completed": "\(tally.completed)", "due": phrase("dueEvents", count: tally.total), "days": phrase("days", count: days),
            "percent": percent(tally.fraction ?? 0), "target": percent(below),
        ])
    }

    func missedTitle(_ activity: Activity) -> String { phrase("missedTitle", ["activity": activity.title]) }

    func missed(days: [CalendarDay], missed: Int) -> String {
        phrase("missed", [
            "missed": phrase("missedEvents", count: missed), "days": phrase("scheduledDays", count: days.count),
            "list": language.list(days.map(label)),
        ])
    }

    func rangeTitle(_ activity: Activity) -> String { phrase("rangeTitle", ["activity": activity.title]) }

    func range(_ broken: [(rule: RangeRule, days: Int, extreme: Double)], unit: String?, days: Int) -> String {
        let parts = broken.map { rule, count, extreme in
            phrase(rule.atOrAbove != nil ? "rangeAbove" : "rangeBelow", [
                "component": rule.component.map { component($0) + " " } ?? "",
                "limit": number(rule.atOrAbove ?? rule.atOrBelow!), "days": phrase("days", count: count),
                "extreme": number(extreme) + (unit.map { " \($0)" } ?? ""),
            ])
        }
        return phrase("range", ["days": phrase("days", count: days), "parts": language.list(parts)])
    }

    func comparisonTitle(_ intervention: Activity, _ assessment: Activity) -> String {
        phrase("comparisonTitle", ["assessment": assessment.title, "intervention": intervention.title])
    }

    func comparison(
        _ intervention: Activity, _ assessment: Activity, done: (days: Int, mean: Double), other: (days: Int, mean: Double), unit: String?
    ) -> String {
        let difference = done.mean - other.mean
        let unit = unit.map { " \($0)" } ?? ""
        let amount = number(abs(difference)) + unit
        let relation = number(difference) == number(0) ? phrase("same") : phrase(difference < 0 ? "lower" : "higher", ["amount": amount])
        return phrase("comparison", [
            "doneDays": phrase("doneDays", count: done.days), "intervention": intervention.title,
            "assessment": language.runningText(assessment.title), "doneMean": number(done.mean) + unit,
            "otherDays": phrase("otherDays", count: other.days), "otherMean": number(other.mean) + unit, "relation": relation,
        ])
    }

    /// `systolic`, `systolisch`; a component the file does not name, as it is.
    func component(_ name: String) -> String {
        language.entry(["insights", "components", name])?.string ?? name
    }

    /// A series of one component: `Blood pressure (systolic)`.
    func series(_ title: String, component name: String) -> String {
        phrase("seriesComponent", ["title": title, "component": component(name)])
    }

    /// `23 Nov 2026`, `23. Nov. 2026`.
    public func date(_ day: CalendarDay) -> String {
        phrase("date", [
            "day": "\(day.day)", "month": language.phrase(["insights", "monthsShort", "\(day.month)"]), "year": "\(day.year)",
        ])
    }

    /// A measurement type's name: `Heart rate`, `Herzfrequenz`.
    func measurement(_ type: MeasurementType) -> String {
        language.phrase(["insights", "measurements", type.rawValue])
    }

    /// The unit of as-needed doses taken.
    var doses: String { phrase("doses") }

    /// `Mon 23 Nov`, `Mo, 23. Nov.`.
    public func label(_ day: CalendarDay) -> String {
        phrase("dayLabel", [
            "weekday": language.phrase(["insights", "weekdaysShort", day.weekday.name]), "day": "\(day.day)",
            "month": language.phrase(["insights", "monthsShort", "\(day.month)"]),
        ])
    }

    /// To one decimal, in the language's way: `2.1`, `2,1`, `140`.
    public func number(_ value: Double) -> String {
        language.number(Decimal(string: InsightFormat.number(value)) ?? 0)
    }

    /// `59 %`.
    public func percent(_ fraction: Double) -> String { phrase("percent", ["value": "\(Int((fraction * 100).rounded()))"]) }
}
