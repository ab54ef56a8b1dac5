import CarePlan
import Foundation

/// What the record says of one activity on one day, as insights count it.
///
/// A scheduled event counts once it is due (its day is over, or today its time has come) or
/// has an outcome anyway (done early, or recorded as not done); so today's evening dose is not
/// "missed" in the afternoon. Events of as-needed schedules are never due: only the doses
/// taken count.
public struct ActivityDay: Sendable, Hashable {
    public var activity: Activity
    public var day: CalendarDay
    /// Scheduled events that count: due, or with an outcome before they were.
    public var counted = 0
    public var completed = 0
    /// As-needed events recorded as taken.
    public var takenAsNeeded = 0
    /// The values of completed assessments, in event order.
    public var values: [[OutcomeValue]] = []

    /// Counted events not completed.
    public var missed: Int { counted - completed }
    /// completed / counted, or `nil` when nothing counted.
    public var adherence: Double? { counted == 0 ? nil : Double(completed) / Double(counted) }

    /// The numbers recorded for `component` (`nil`: a result's only, or first, value).
    public func numbers(_ component: String?) -> [Double] {
        values.compactMap { values in
            let value = component.map { name in values.first { $0.kind == name } } ?? values.first
            return value.flatMap(\.number)
        }
    }
}

extension OutcomeValue {
    /// The value as a number: integers and decimals as they are, yes as 1 and no as 0.
    public var number: Double? {
        switch value {
        case .integer(let n): Double(n)
        case .decimal(let d): d
        case .boolean(let b): b ? 1 : 0
        case .text, .date: nil
        }
    }
}

/// Every activity's days of a range, read from its events.
public struct InsightRecord: Sendable {
    /// Activities in plan order, each as the newest day of the record defines it.
    public private(set) var activities: [Activity] = []
    private var days: [String: [CalendarDay: ActivityDay]] = [:]

    /// Counts `events` (any days, any activities) as of `now` in `timeZone`.
    public init(events: [Event], now: Date, timeZone: TimeZone) {
        let today = CalendarDay.containing(now, in: timeZone)
        let timeNow = TimeOfDay.containing(now, in: timeZone)
        var order: [String: Int] = [:]
        for event in events {
            let id = event.key.activityID
            if let index = order[id] {
                activities[index] = event.activity
            } else {
                order[id] = activities.count
                activities.append(event.activity)
            }
            var record = days[id, default: [:]][event.key.day]
                ?? ActivityDay(activity: event.activity, day: event.key.day)
            let done = event.state == .completed
            if event.activity.schedule.asNeeded {
                if done { record.takenAsNeeded += 1 }
            } else {
                let due = event.key.day < today || (event.key.day == today && event.time.map { $0 <= timeNow } == true)
                if due || event.state != .initial { record.counted += 1 }
                if done { record.completed += 1 }
            }
            if done, let values = event.outcome?.values, !values.isEmpty { record.values.append(values) }
            days[id, default: [:]][event.key.day] = record
        }
    }

    /// The activity's record of `day` (empty when it had no event that day).
    public func day(_ day: CalendarDay, of activity: Activity) -> ActivityDay {
        days[activity.identifier]?[day] ?? ActivityDay(activity: activity, day: day)
    }

    /// The activity with this identifier, if the record holds it.
    public func activity(_ id: String) -> Activity? {
        activities.first { $0.identifier == id }
    }
}
