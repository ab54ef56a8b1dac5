import CarePlan
import Foundation
import GRDB

/// Outcomes, their events and the answers given to completion messages, as one
/// ``RecordTransaction`` reads and keeps them.
@_spi(CareCore) public struct RecordOutcomes: RecordPart {
    let record: RecordTransaction
}

extension RecordOutcomes {
    /// The version of the plan that governs the event `key`'s day, once it is known to have
    /// the event.
    ///
    /// - Throws: ``CarePlanStoreError/unknownActivity(_:)``, ``CarePlanStoreError/outsideSchedule(_:)``
    ///   or ``CarePlanStoreError/noSuchOccurrence(_:occurrences:)`` when there is no such event.
    public func version(governing key: EventKey) throws -> ActivityVersion {
        try store.outcomes.governingVersion(db, for: key)
    }

    /// The outcome that stands for the event `key`, if it has one.
    public func outcome(of key: EventKey) throws -> Outcome? {
        try store.outcomes.currentOutcome(db, key)
    }

    /// Events of `kind` on `day`, with their outcomes, in the order of the day.
    public func events(on day: CalendarDay, kind: ActivityKind) throws -> [Event] {
        try store.outcomes.events(db, on: day, kind: kind)
    }

    /// The answer already given to the message `messageID`, if it came before.
    public func answer(to messageID: String) throws -> CompletionReceipt? {
        try CompletionReceipt.fetch(messageID, in: db)
    }

    /// Keeps `outcome` (with its clock) for the event `key` in the change log, under
    /// `messageID` if a message brought it, and as the event's outcome if it `stands`.
    public func keep(
        _ outcome: Outcome, for key: EventKey, version: Int, messageID: String?, stands: Bool
    ) throws -> StoreChange {
        try store.outcomes.keep(db, outcome, for: key, version: version, messageID: messageID, stands: stands)
    }

    /// Keeps the answer to a message, so that the message sent again gets it again.
    public func keep(_ receipt: CompletionReceipt) throws {
        try receipt.insert(into: db)
    }
}
