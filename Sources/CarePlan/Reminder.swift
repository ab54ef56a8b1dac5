import Foundation

/// A reminder for one event, due at one instant.
public struct Reminder: Sendable, Hashable, Codable, Comparable {
    public var key: EventKey
    public var title: String
    /// The wall-clock time in the plan's time zone.
    public var time: TimeOfDay
    public var dueAt: Date

    public init(key: EventKey, title: String, time: TimeOfDay, dueAt: Date) {
        self.key = key
        self.title = title
        self.time = time
        self.dueAt = dueAt
    }

    public static func < (lhs: Reminder, rhs: Reminder) -> Bool {
        (lhs.dueAt, lhs.key) < (rhs.dueAt, rhs.key)
    }
}
