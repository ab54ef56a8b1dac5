import CarePlan
import Foundation

/// When reminders are due and how many are kept pending: configurable per plan.
public struct ReminderPolicy: Sendable, Hashable {
    /// The time of occurrences whose schedule gives none (ZombieCare's noon reminder).
    public var defaultTime = TimeOfDay(hour: 12, minute: 0)!
    /// Clock times for FHIR-style meal and day-part codes.
    public var dayParts: [DayPart: TimeOfDay] = DayPart.defaultTimes
    /// A reminder that fell due while the primary was down still fires on start-up if it
    /// is at most this late; later ones are recorded as missed.
    public var gracePeriod: Duration = .seconds(15 * 60)
    /// Pending reminders at once, nearest first (iOS allows 64 local notifications).
    public var capacity = 64
    /// How far ahead reminders are planned.
    public var horizonDays = 14

    public init() {}

    /// The wall-clock time of `event`'s reminder: its own time, else the default.
    public func time(of event: Event) -> TimeOfDay {
        event.time ?? defaultTime
    }

    /// The time a day-part code stands for.
    public func time(of part: DayPart) -> TimeOfDay {
        dayParts[part] ?? part.defaultTime
    }
}

/// Meal and day-part codes, as FHIR's `Timing.repeat.when` names them.
public enum DayPart: String, Sendable, Hashable, Codable, CaseIterable {
    case morning, breakfast, lunch, afternoon, dinner, evening, bedtime, night

    /// Times of day for the codes until a plan says otherwise.
    public static let defaultTimes: [DayPart: TimeOfDay] = Dictionary(
        uniqueKeysWithValues: allCases.map { ($0, $0.defaultTime) })

    var defaultTime: TimeOfDay {
        switch self {
        case .morning: TimeOfDay(hour: 8, minute: 0)!
        case .breakfast: TimeOfDay(hour: 7, minute: 30)!
        case .lunch: TimeOfDay(hour: 12, minute: 30)!
        case .afternoon: TimeOfDay(hour: 15, minute: 0)!
        case .dinner: TimeOfDay(hour: 18, minute: 30)!
        case .evening: TimeOfDay(hour: 19, minute: 0)!
        case .bedtime: TimeOfDay(hour: 22, minute: 0)!
        case .night: TimeOfDay(hour: 23, minute: 0)!
        }
    }
}
