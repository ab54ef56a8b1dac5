import CarePlan
import Foundation
import GRDB

extension OutcomeStore {
    /// The event `key` with its outcome, if the plan has such an event.
    public func event(_ key: EventKey) async throws(CarePlanStoreError) -> Event {
        try await read { db in
            let version = try governingVersion(db, for: key)
            let outcome = try currentOutcome(db, key)
            return Event(
                key: key, activity: version.activity, version: version.version,
                time: version.activity.schedule.time(ofOccurrence: key.occurrence), outcome: outcome)
        }
    }

    /// The latest clock any recorded outcome carries, so a node can continue after it.
    public func latestClock() async throws(CarePlanStoreError) -> HybridTimestamp? {
        try await read { db in
            try db.row(
                "SELECT clock_ms, clock_logical, device FROM change WHERE clock_ms IS NOT NULL ORDER BY clock_ms DESC, clock_logical DESC, device DESC LIMIT 1"
            ).map { HybridTimestamp(physical: $0[0], logical: UInt32($0[1] as Int64), node: $0[2]) }
        }
    }

    /// Keeps `outcome` in the change log, and points the event's row at it if it `stands`.
    func keep(
        _ db: Database, _ outcome: Outcome, for key: EventKey, version: Int, messageID: String?, stands: Bool
    ) throws -> StoreChange {
        let change = try StoreChange(
            kind: stands ? .outcomeRecorded : .outcomeSuperseded, event: key, outcome: outcome,
            version: version, messageID: messageID, device: outcome.device, committedAt: now()
        ).append(to: db)
        guard stands else { return change }
        // The outcome itself lives in the change log; this row points at the one that stands.
        try db.direct("""
            INSERT INTO outcome (activity_id, day, occurrence, state, version, revision)
            VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT (activity_id, day, occurrence) DO UPDATE SET
                state = excluded.state, version = excluded.version, revision = excluded.revision
            """
        ) { statement in
            statement.bind(key.activityID)
            statement.bind(key.day.daysSinceEpoch)
            statement.bind(key.occurrence)
            statement.bind(outcome.state.rawValue)
            statement.bind(version)
            statement.bind(change.revision)
            try statement.execute()
        }
        return change
    }

    func currentOutcome(_ db: Database, _ key: EventKey) throws -> Outcome? {
        try db.direct(Self.outcomesSelect + " WHERE o.activity_id = ? AND o.day = ? AND o.occurrence = ?") { row in
            row.bind(key.activityID)
            row.bind(key.day.daysSinceEpoch)
            row.bind(key.occurrence)
            guard try row.step() else { return nil }
            return try OutcomeColumns.decode(row, at: 4, device: try row.text(required: 3))
        }
    }

    /// The version governing the event's day, after checking that it has the occurrence.
    func governingVersion(_ db: Database, for key: EventKey) throws -> ActivityVersion {
        // Versions reference their activity, so the activity is looked up only when none governs.
        guard let version = try versions(db, of: key.activityID, overlapping: key.day, key.day).first else {
            guard try Self.activityRow(db, key.activityID) != nil else { throw CarePlanStoreError.unknownActivity(key.activityID) }
            throw CarePlanStoreError.outsideSchedule(key)
        }
        let count = version.occurrenceCount(on: key.day)
        guard count > 0 else { throw CarePlanStoreError.outsideSchedule(key) }
        guard (0..<count).contains(key.occurrence) else {
            throw CarePlanStoreError.noSuchOccurrence(key, occurrences: count)
        }
        return version
    }

    private static let outcomesSelect = """
        SELECT o.activity_id, o.day, o.occurrence, c.device, \(OutcomeColumns.qualified(by: "c"))
        FROM outcome o JOIN change c ON c.revision = o.revision
        """

    /// Outcomes selected by a `WHERE` clause over the `outcome` table (`o`).
    static func outcomes(_ db: Database, sql whereClause: String, arguments: StatementArguments) throws -> [EventKey: Outcome] {
        var outcomes: [EventKey: Outcome] = [:]
        let rows = try db.rowCursor(outcomesSelect + " " + whereClause, arguments: arguments)
        while let row = try rows.next() {
            let key = EventKey(activityID: row[0], day: CalendarDay(daysSinceEpoch: row[1]), occurrence: row[2])
            outcomes[key] = try OutcomeColumns.decode(row, at: 4, device: row[3])
        }
        return outcomes
    }
}
