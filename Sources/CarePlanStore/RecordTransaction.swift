import CarePlan
import Foundation
import GRDB

/// One write transaction of the record, as the care core holds it: what the core's rules
/// read, and the writes they decide, committed together or not at all. The store reads and
/// keeps; the core decides. Only the core opens one (``CarePlanStore/transaction(_:)``,
/// ``CarePlanStore/commitTogether(_:then:)``).
@_spi(CareCore) public struct RecordTransaction {
    let db: Database
    let store: CarePlanStore

    /// The instant now on the store's clock.
    public var now: Date { store.now() }

    /// The plan's time zone, if a plan is loaded: its name by a cached statement, the zone
    /// itself made once per name (read with every completion).
    public func planTimeZone() throws -> TimeZone? {
        guard let name = try db.direct("SELECT value FROM plan_info WHERE key = 'timeZone'", { row in try row.step() ? row.text(0) : nil })
        else { return nil }
        return store.planZone.withLock { zone in
            if zone?.identifier != name { zone = TimeZone(identifier: name) }
            return zone
        }
    }

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

extension CarePlanStore {
    /// Runs `body` in one immediate write transaction of the record: nothing is kept if it
    /// throws. The change feed hears of the commit.
    @_spi(CareCore) public func transaction<T: Sendable>(
        _ body: @Sendable (RecordTransaction) throws -> T
    ) async throws(CarePlanStoreError) -> T {
        try await write { db in try body(RecordTransaction(db: db, store: self)) }
    }
}
