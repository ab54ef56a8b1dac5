import Foundation

/// The key every node shares for one event: activity, day and occurrence (0-based).
///
/// Built only from values the plan defines, never from a process, a version uuid or
/// a hash seed, so two nodes always name the same event the same way.
public struct EventKey: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var activityID: String
    public var day: CalendarDay
    public var occurrence: Int

    public init(activityID: String, day: CalendarDay, occurrence: Int) {
        self.activityID = activityID
        self.day = day
        self.occurrence = occurrence
    }

    enum CodingKeys: String, CodingKey {
        case activityID = "activity", day, occurrence
    }

    public static func < (lhs: EventKey, rhs: EventKey) -> Bool {
        (lhs.day, lhs.activityID, lhs.occurrence) < (rhs.day, rhs.activityID, rhs.occurrence)
    }

    /// `activity@YYYY-MM-DD#occurrence`.
    public var description: String { "\(activityID)@\(day)#\(occurrence)" }
}

/// Where an event stands.
public enum EventState: String, Sendable, Hashable, Codable, CaseIterable {
    case initial
    case completed
    case notCompleted
}

/// One occurrence of an activity on a day, computed from its schedule, with its outcome if any.
public struct Event: Sendable, Hashable {
    public var key: EventKey
    /// The activity as the version governing `key.day` defines it.
    public var activity: Activity
    /// The version number governing `key.day`.
    public var version: Int
    /// The wall-clock time of this occurrence, if the schedule gives one.
    public var time: TimeOfDay?
    public var outcome: Outcome?

    public init(key: EventKey, activity: Activity, version: Int, time: TimeOfDay?, outcome: Outcome? = nil) {
        self.key = key
        self.activity = activity
        self.version = version
        self.time = time
        self.outcome = outcome
    }

    public var state: EventState { outcome?.state ?? .initial }
}

extension ActivityVersion {
    /// The events this version schedules on `day`, without outcomes.
    public func events(on day: CalendarDay) -> [Event] {
        (0..<occurrenceCount(on: day)).map { occurrence in
            Event(
                key: EventKey(activityID: activity.identifier, day: day, occurrence: occurrence),
                activity: activity, version: version,
                time: activity.schedule.time(ofOccurrence: occurrence))
        }
    }
}
