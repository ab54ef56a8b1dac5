import CarePlan
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

    /// - Throws: `MALFORMED_FRAME` for a state, value, range or instant that cannot be read.
    public init(wire: Caresync_V1_HistoryEntry) throws(ProtocolError) {
        var values: [OutcomeValue] = []
        for value in wire.values { values.append(try OutcomeValue(wire: value)) }
        var range: ClosedRange<CalendarDay>?
        if !wire.rangeFrom.isEmpty || !wire.rangeThrough.isEmpty {
            range = try ClosedRange<CalendarDay>(wireFrom: wire.rangeFrom, through: wire.rangeThrough)
        }
        self.init(
            revision: Int(clamping: wire.revision), kind: wire.kind, activityID: wire.activityID.nilIfEmpty,
            event: CalendarDay(wire.day).map { EventKey(activityID: wire.activityID, day: $0, occurrence: Int(wire.occurrence)) },
            state: wire.state == .unspecified ? nil : try EventState(wire: wire.state), values: values,
            reason: wire.reason.nilIfEmpty, device: wire.device, pairedDevice: wire.pairedDevice.nilIfEmpty,
            contactID: wire.contactID.nilIfEmpty, sharedTo: wire.sharedTo.nilIfEmpty, range: range, committedAt: try Date(wireMilliseconds: wire.committedAtMs, of: "commit time"))
    }

    public var wire: Caresync_V1_HistoryEntry {
        .with {
            $0.revision = UInt64(revision)
            $0.kind = kind
            $0.activityID = activityID ?? ""
            $0.day = event?.day.description ?? ""
            $0.occurrence = UInt32(event?.occurrence ?? 0)
            if let state { $0.state = state.wire }
            $0.values = values.map(\.wire)
            $0.reason = reason ?? ""
            $0.device = device
            $0.pairedDevice = pairedDevice ?? ""
            $0.contactID = contactID ?? ""
            $0.sharedTo = sharedTo ?? ""
            $0.rangeFrom = range?.lowerBound.description ?? ""
            $0.rangeThrough = range?.upperBound.description ?? ""
            $0.committedAtMs = committedAt.millisecondsSince1970
        }
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

    public init(wire: Caresync_V1_HistoryPage) throws(ProtocolError) {
        var entries: [HistoryEntry] = []
        for entry in wire.entries { entries.append(try HistoryEntry(wire: entry)) }
        self.init(entries: entries, more: wire.more)
    }

    /// The page as the answer to the request `requestID`.
    public func wire(answering requestID: String) -> Caresync_V1_HistoryPage {
        .with {
            $0.entries = entries.map(\.wire)
            $0.more = more
            $0.requestID = requestID
        }
    }
}
