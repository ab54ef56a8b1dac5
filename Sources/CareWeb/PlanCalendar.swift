import CarePlan
import CarePlanStore
import Clocks
import Hummingbird

/// The days as the plan counts them: today in its time zone on the injected clock, and the
/// day a page's `?day=` names.
struct PlanCalendar: Sendable {
    let store: CarePlanStore
    let clock: any WallClock

    /// Today in the plan's time zone, on the injected clock.
    func today() async throws -> CalendarDay {
        CalendarDay.containing(clock.now, in: try await store.plan.timeZone())
    }

    /// Today, and the day a page shows: the one its `?day=YYYY-MM-DD` names, else today.
    func shownDay(_ request: Request) async throws -> (today: CalendarDay, day: CalendarDay) {
        let today = try await today()
        guard let text = request.uri.queryParameters["day"] else { return (today, today) }
        guard let day = CalendarDay(String(text)) else { throw WebFailure.noSuchDay(String(text.prefix(40))) }
        return (today, day)
    }
}

/// Where a day lies from today: its events are history, today's, or still to come.
enum DayPlace {
    case past, today, future

    init(_ day: CalendarDay, today: CalendarDay) {
        self = day < today ? .past : day > today ? .future : .today
    }
}
