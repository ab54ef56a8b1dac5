import Foundation
import GRDB

/// One write transaction of the record, as the care core holds it: what the core's rules
/// read, and the writes they decide, committed together or not at all. The store reads and
/// keeps; the core decides. Only the core opens one (``CarePlanStore/transaction(_:)``,
/// ``CarePlanStore/commitTogether(_:then:)``). What it keeps is in parts, one per kind of
/// data (``outcomes``, ``plan``, ``access`` …), each in a file of its own.
@_spi(CareCore) public struct RecordTransaction {
    let db: Database
    let store: CarePlanStore

    /// The instant now on the store's clock.
    public var now: Date { store.now() }

    /// Outcomes, their events and the answers given to completion messages.
    public var outcomes: RecordOutcomes { RecordOutcomes(record: self) }
    /// The plan's settings and activities.
    public var plan: RecordPlan { RecordPlan(record: self) }
    /// The plan's contacts.
    public var contacts: RecordContacts { RecordContacts(record: self) }
    /// Where sourced activities came from, and the records held for review.
    public var sources: RecordSources { RecordSources(record: self) }
    /// Pairing and sign-in codes, and paired devices.
    public var access: RecordAccess { RecordAccess(record: self) }
    /// The care app's browser sessions.
    public var sessions: RecordSessions { RecordSessions(record: self) }
    /// Shared care reports and their deliveries.
    public var shares: RecordShares { RecordShares(record: self) }
    /// Reminders and missed-dose alerts.
    public var reminders: RecordReminders { RecordReminders(record: self) }
    /// Measurements, their sources and readers' cursors.
    public var measurements: RecordMeasurements { RecordMeasurements(record: self) }

    /// The plan's time zone, if a plan is loaded, read with every completion. (The zone is
    /// made from its name each time: keeping it made no difference to `caresync-bench
    /// store`, A/B, 2026-12-02, CPU per completion 64.9 µs either way.)
    public func planTimeZone() throws -> TimeZone? {
        guard let name = try db.direct("SELECT value FROM plan_info WHERE key = 'timeZone'", { row in try row.step() ? row.text(0) : nil })
        else { return nil }
        return TimeZone(identifier: name)
    }

    /// The store's revision: the newest change's.
    public func revision() throws -> Int {
        try CarePlanStore.revision(db)
    }
}

/// One part of a ``RecordTransaction``: the database and the clock of the transaction it
/// belongs to.
protocol RecordPart {
    var record: RecordTransaction { get }
}

extension RecordPart {
    var db: Database { record.db }
    var now: Date { record.now }
    var store: CarePlanStore { record.store }
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
