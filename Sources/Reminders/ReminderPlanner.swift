import CarePlan
import Foundation

/// Plans the rolling window of pending reminders. Pure: the events and the current
/// instant come in, so days of schedules can be planned in milliseconds.
///
/// Daylight saving: each wall time maps to exactly one instant (`CalendarDay.date(at:in:)`):
/// a reminder at 02:30 on the spring-forward day is due once, at 03:30; on the autumn day a
/// wall time that occurs twice is due at its first occurrence only.
public struct ReminderPlanner: Sendable {
    public var policy: ReminderPolicy
    public var timeZone: TimeZone
    /// The patient's routine: the times of occurrences whose schedule gives none.
    public var routine: DailyRoutine

    public init(policy: ReminderPolicy = ReminderPolicy(), timeZone: TimeZone, routine: DailyRoutine = .standard) {
        self.policy = policy
        self.timeZone = timeZone
        self.routine = routine
    }

    /// The wall-clock time of `event`'s reminder: its own, else the routine's standard
    /// administration time for its occurrence among the day's occurrences (never the same
    /// as another occurrence's).
    public func time(of event: Event) -> TimeOfDay {
        if let time = event.time { return time }
        let schedule = event.activity.schedule
        let count = max(schedule.occurrenceCount(on: event.key.day), event.key.occurrence + 1)
        return routine.times(completing: schedule.times, to: count)[event.key.occurrence]
    }

    /// When `event` is due and when it counts as missed if it has no outcome by then (its time
    /// plus its grace period under the plan's `rule`), or `nil` if missing it raises no alert
    /// (an as-needed slot, an activity whose rule says none).
    public func missing(_ event: Event, under rule: MissedDosePolicy) -> (time: TimeOfDay, dueAt: Date, missedAt: Date)? {
        let activity = event.activity
        guard !activity.schedule.asNeeded, activity.missedDose.raisesAlerts(for: activity.kind) else { return nil }
        let time = time(of: event)
        let dueAt = event.key.day.date(at: time, in: timeZone)
        return (time, dueAt, dueAt.addingTimeInterval(Double(rule.grace(of: activity) * 60)))
    }

    /// The reminder for `event`, or `nil` if it needs none (done, marked not done, or an
    /// as-needed slot).
    public func reminder(for event: Event) -> Reminder? {
        guard event.state == .initial, !event.activity.schedule.asNeeded else { return nil }
        let time = time(of: event)
        return Reminder(key: event.key, title: event.activity.title, time: time, dueAt: event.key.day.date(at: time, in: timeZone))
    }

    /// The pending window: reminders due at or after `instant` that have not fired, nearest
    /// first, at most `policy.capacity`, looking no further than `policy.horizonDays`.
    ///
    /// - Parameters:
    ///   - instant: now: the window starts here.
    ///   - fired: reminders already delivered (or recorded as missed), which never come again;
    ///     several reminders can fall due at one instant.
    ///   - events: the events of a day, with their outcomes.
    public func window(
        from instant: Date, excluding fired: Set<EventKey> = [], events: (CalendarDay) async throws -> [Event]
    ) async rethrows -> [Reminder] {
        let today = CalendarDay.containing(instant, in: timeZone)
        var window: [Reminder] = []
        // Yesterday too: with a time-zone offset a day's reminders can start before "today".
        for day in today.adding(days: -1)...today.adding(days: policy.horizonDays) {
            window += try await events(day).compactMap(reminder(for:)).filter { $0.dueAt >= instant && !fired.contains($0.key) }
            // Days come in order, so once the window is full no later day can displace it.
            if window.count >= policy.capacity, let last = window.max(), last.dueAt < day.adding(days: 1).start(in: timeZone) {
                break
            }
        }
        return Array(window.sorted().prefix(policy.capacity))
    }

    /// What happens to a reminder that fell due while the primary was down, seen at `now`.
    public func catchUp(_ reminder: Reminder, now: Date) -> CatchUp {
        now.timeIntervalSince(reminder.dueAt) <= policy.gracePeriod.inSeconds ? .fire : .missed
    }
}

/// The start-up rule for reminders that fell due while the primary was down.
public enum CatchUp: String, Sendable, Hashable, Codable {
    /// Still within the grace period: fire it once, now.
    case fire
    /// Too late: record it as missed, never fire it.
    case missed
}
