import ArgumentParser
import CarePlan

/// The days a command looks at: a week, or a range of days (`insights`, `report`).
struct PeriodOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The week (Monday to Sunday) holding this day (default: this week).", valueName: "YYYY-MM-DD"))
    var week: CalendarDay?

    @Option(help: ArgumentHelp("The first day of a range (default: 6 days before its last).", valueName: "YYYY-MM-DD"))
    var from: CalendarDay?

    @Option(help: ArgumentHelp("The last day of a range (default: today).", valueName: "YYYY-MM-DD"))
    var to: CalendarDay?

    func validate() throws {
        if week != nil, from != nil || to != nil { throw ValidationError("give --week or --from/--to, not both") }
    }

    /// The days asked for, `today` being today in the plan's time zone.
    func days(today: CalendarDay) throws -> ClosedRange<CalendarDay> {
        if from != nil || to != nil {
            let last = to ?? today
            let first = from ?? last.adding(days: -6)
            guard first <= last else { throw ValidationError("the first day \(first) is after the last day \(last)") }
            return first...last
        }
        let day = week ?? today
        let monday = day.adding(days: -((day.weekday.rawValue + 6) % 7))
        return monday...monday.adding(days: 6)
    }
}
