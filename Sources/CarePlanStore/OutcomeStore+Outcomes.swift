import CarePlan
import Foundation
import GRDB

extension OutcomeStore {
    /// Records `outcome` for the event `key` after checking that the event exists in the
    /// version governing its day, that the day is not after today (unless `futureDays`
    /// allows it) and that the result fits the activity.
    ///
    /// Returns once the change is committed. State `initial` resets the event.
    @discardableResult
    @_spi(CareCore) public func setOutcome(
        _ outcome: Outcome, for key: EventKey, futureDays: FutureDays = .refused
    ) async throws(CarePlanStoreError) -> StoreChange {
        try await write { db in try recordOutcome(db, outcome, for: key, futureDays: futureDays) }
    }

    /// Records several outcomes in one transaction: all of them, or none if one is refused.
    @discardableResult
    @_spi(CareCore) public func setOutcomes(
        _ outcomes: [(key: EventKey, outcome: Outcome)], futureDays: FutureDays = .refused
    ) async throws(CarePlanStoreError) -> [StoreChange] {
        try await write { db in try outcomes.map { try recordOutcome(db, $0.outcome, for: $0.key, futureDays: futureDays) } }
    }

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

    /// Records an outcome, or keeps it in the history only if the event already has an
    /// outcome with a later clock (the conflict rule). An outcome without a clock is a local
    /// change: it gets a clock later than the event's current one, so it stands.
    func recordOutcome(
        _ db: Database, _ outcome: Outcome, for key: EventKey, messageID: String? = nil, futureDays: FutureDays
    ) throws -> StoreChange {
        let version = try governingVersion(db, for: key)
        if futureDays == .refused, let zone = try timeZone(db) {
            let today = CalendarDay.containing(now(), in: zone)
            guard key.day <= today else { throw CarePlanStoreError.futureDay(key, today: today, timeZone: zone.identifier) }
        }
        let activity = version.activity
        if outcome.state == .initial, activity.kind == .assessment, !activity.resultResettable {
            throw CarePlanStoreError.notResettable(key.activityID)
        }
        if outcome.state == .completed {
            do {
                try activity.checkResult(outcome.values)
            } catch {
                throw CarePlanStoreError.invalidResult(key, error)
            }
        }
        let current = try currentOutcome(db, key)
        var outcome = outcome
        let clock = outcome.clock ?? .next(after: current?.clock, now: now(), node: outcome.device)
        outcome.clock = clock
        let stands = current?.clock.map { clock > $0 } ?? true
        let change = try StoreChange(
            kind: stands ? .outcomeRecorded : .outcomeSuperseded, event: key, outcome: outcome,
            version: version.version, messageID: messageID, device: outcome.device, committedAt: now()
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
            statement.bind(version.version)
            statement.bind(change.revision)
            try statement.execute()
        }
        return change
    }

    /// The plan's time zone, read with every completion: its name by a cached statement, the
    /// zone itself made once per name (the store's `planZone`).
    private func timeZone(_ db: Database) throws -> TimeZone? {
        guard let name = try db.direct("SELECT value FROM plan_info WHERE key = 'timeZone'", { row in try row.step() ? row.text(0) : nil })
        else { return nil }
        return store.planZone.withLock { zone in
            if zone?.identifier != name { zone = TimeZone(identifier: name) }
            return zone
        }
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
