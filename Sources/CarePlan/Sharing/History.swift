import Foundation

/// One change of the primary's log, as a household device reads it.
public struct HistoryEntry: Sendable, Hashable {
    public var revision: Int
    /// The store's change kind, such as `outcomeRecorded` or `deviceRevoked`.
    public var kind: String
    public var activityID: String?
    /// The event an outcome was recorded for.
    public var event: EventKey?
    /// The outcome recorded, for changes that record one.
    public var state: EventState?
    public var values: [OutcomeValue]
    public var reason: String?
    /// The node that made the change.
    public var device: String
    /// The companion paired or revoked, or the household device a report was sent to: its fingerprint.
    public var pairedDevice: String?
    /// The contact saved or removed, or the contact a report was emailed to.
    public var contactID: String?
    /// Where a shared report went: the email address or the device's name.
    public var sharedTo: String?
    /// The days a shared report covers.
    public var range: ClosedRange<CalendarDay>?
    public var committedAt: Date

    public init(
        revision: Int, kind: String, activityID: String? = nil, event: EventKey? = nil, state: EventState? = nil,
        values: [OutcomeValue] = [], reason: String? = nil, device: String, pairedDevice: String? = nil, contactID: String? = nil,
        sharedTo: String? = nil, range: ClosedRange<CalendarDay>? = nil, committedAt: Date
    ) {
        self.revision = revision
        self.kind = kind
        self.activityID = activityID
        self.event = event
        self.state = state
        self.values = values
        self.reason = reason
        self.device = device
        self.pairedDevice = pairedDevice
        self.contactID = contactID
        self.sharedTo = sharedTo
        self.range = range
        self.committedAt = committedAt
    }
}

/// A page of the primary's log, oldest first.
public struct HistoryPage: Sendable, Hashable {
    public var entries: [HistoryEntry]
    /// More entries follow the last one.
    public var more: Bool

    public init(entries: [HistoryEntry], more: Bool) {
        self.entries = entries
        self.more = more
    }
}
