import Foundation

/// What a household device is told about a dose: that it was missed, or, after that, the
/// all clear once an outcome was recorded (or the event left the plan).
///
/// It carries no more than a household device reads in its context: the event, its
/// activity's title and time, and how it was settled; never a result's values.
public struct DoseAlert: Sendable, Hashable, Codable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The event's time and grace period passed without an outcome.
        case missed
        /// The missed event has an outcome now, or is no longer in the plan.
        case cleared
    }

    /// The primary's order of alerts, from 1: later alerts have greater numbers.
    public var sequence: Int
    public var kind: Kind
    public var key: EventKey
    /// The activity's title.
    public var title: String
    /// The event's wall-clock time in the plan's time zone, and that instant.
    public var time: TimeOfDay
    public var dueAt: Date
    /// When the primary raised the alert.
    public var raisedAt: Date
    /// Alerted even in a household device's quiet hours.
    public var critical: Bool
    /// For an all clear: the outcome recorded (`completed` or `notCompleted`), or `nil` when
    /// the event left the plan.
    public var outcome: EventState?

    public init(
        sequence: Int = 0, kind: Kind, key: EventKey, title: String, time: TimeOfDay, dueAt: Date, raisedAt: Date,
        critical: Bool, outcome: EventState? = nil
    ) {
        self.sequence = sequence
        self.kind = kind
        self.key = key
        self.title = title
        self.time = time
        self.dueAt = dueAt
        self.raisedAt = raisedAt
        self.critical = critical
        self.outcome = outcome
    }

    /// The all clear of this missed dose, raised at `instant` with `outcome`.
    public func cleared(at instant: Date, outcome: EventState?) -> DoseAlert {
        var clear = self
        clear.sequence = 0
        clear.kind = .cleared
        clear.raisedAt = instant
        clear.outcome = outcome
        return clear
    }
}
