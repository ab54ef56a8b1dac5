import CarePlan
import Foundation

extension HistoryEntry {
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

extension HistoryPage {
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

/// A household device's request for a page of the change log (protocol section 6), as the
/// primary reads it.
public struct HistoryRequest: Sendable {
    /// The revision after which the page begins (a revision beyond any reads as the last).
    public var after: Int
    /// The most entries asked for, as sent (the primary answers 1 to 500).
    public var limit: Int
    /// The id the page, or the Error refusing it, answers.
    public var requestID: String

    public init(wire: Caresync_V1_HistoryRequest) {
        after = Int(clamping: wire.afterRevision)
        limit = Int(wire.limit)
        requestID = wire.requestID
    }
}
