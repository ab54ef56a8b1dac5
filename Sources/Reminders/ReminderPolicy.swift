import Foundation

/// How reminders are kept pending and caught up: configurable per primary. *When* each is
/// due comes from the event's time, else the plan's `DailyRoutine` (see ``ReminderPlanner``).
public struct ReminderPolicy: Sendable, Hashable {
    /// A reminder that fell due while the primary was down still fires on start-up if it
    /// is at most this late; later ones are recorded as missed.
    public var gracePeriod: Duration = .seconds(15 * 60)
    /// Pending reminders at once, nearest first (iOS allows 64 local notifications).
    public var capacity = 64
    /// How far ahead reminders are planned.
    public var horizonDays = 14

    public init() {}
}
