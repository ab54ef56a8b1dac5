import Foundation

/// A companion's view of the care plan (WatchConnectivity's application context): the
/// events of today, and of tomorrow for a watch near midnight. Latest state wins: each
/// context replaces the one before.
public struct ApplicationContext: Sendable, Hashable, Codable {
    public struct Day: Sendable, Hashable, Codable {
        public var day: CalendarDay
        public var events: [Item]

        public init(day: CalendarDay, events: [Item]) {
            self.day = day
            self.events = events
        }
    }

    /// One event with what a companion shows of it.
    public struct Item: Sendable, Hashable, Codable {
        public var key: EventKey
        public var title: String
        public var kind: ActivityKind
        public var time: TimeOfDay?
        public var state: EventState
        public var values: [OutcomeValue]
        public var instructions: String?
        public var group: String?
        public var version: Int
        public var recordedBy: String?
        public var recordedAt: Date?
        /// When the primary counts the event missed if it has no outcome by then (its time
        /// plus its grace period); `nil` when it raises no alert for it.
        public var missedAt: Date?

        public init(
            key: EventKey, title: String, kind: ActivityKind, time: TimeOfDay?, state: EventState,
            values: [OutcomeValue], instructions: String?, group: String?, version: Int,
            recordedBy: String?, recordedAt: Date?, missedAt: Date? = nil
        ) {
            self.key = key
            self.title = title
            self.kind = kind
            self.time = time
            self.state = state
            self.values = values
            self.instructions = instructions
            self.group = group
            self.version = version
            self.recordedBy = recordedBy
            self.recordedAt = recordedAt
            self.missedAt = missedAt
        }
    }

    /// The store revision the context reflects.
    public var revision: Int
    public var planID: String
    public var planTitle: String
    /// Whom the plan is for; empty when the plan does not say.
    public var patientName: String
    public var timeZone: String
    public var days: [Day]
    public var generatedAt: Date
    /// The primary's clock when it made the context.
    public var clock: HybridTimestamp?

    public init(
        revision: Int, planID: String, planTitle: String, patientName: String = "", timeZone: String, days: [Day],
        generatedAt: Date, clock: HybridTimestamp?
    ) {
        self.revision = revision
        self.planID = planID
        self.planTitle = planTitle
        self.patientName = patientName
        self.timeZone = timeZone
        self.days = days
        self.generatedAt = generatedAt
        self.clock = clock
    }

    /// Events not yet completed or marked not done, day by day.
    public var incomplete: [Item] {
        days.flatMap(\.events).filter { $0.state == .initial }
    }

    /// The item for `key`, if the context has it.
    public func item(_ key: EventKey) -> Item? {
        days.first { $0.day == key.day }?.events.first { $0.key == key }
    }
}

extension ApplicationContext.Item {
    /// Takes `outcome` as the event's outcome, as ``init(_:)`` does from an event that has it.
    public mutating func recorded(_ outcome: Outcome) {
        state = outcome.state
        values = outcome.values
        recordedBy = outcome.device
        recordedAt = outcome.recordedAt
    }

    /// The item for a computed event with its outcome, missed at `missedAt` if not done by then.
    public init(_ event: Event, missedAt: Date?) {
        self.init(
            key: event.key, title: event.activity.title, kind: event.activity.kind, time: event.time,
            state: event.state, values: event.outcome?.values ?? [], instructions: event.activity.instructions,
            group: event.activity.groupIdentifier, version: event.version, recordedBy: event.outcome?.device,
            recordedAt: event.outcome?.recordedAt, missedAt: missedAt)
    }
}

extension ApplicationContext {
    /// Which context this is, as a companion names it in its Hello and a delta its base.
    public var held: HeldContext {
        HeldContext(revision: revision, days: days.map(\.day), generatedAtMs: generatedAt.millisecondsSince1970)
    }
}
