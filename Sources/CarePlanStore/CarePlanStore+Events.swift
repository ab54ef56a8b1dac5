import CarePlan
import GRDB

extension CarePlanStore {
    /// The events of `day`, optionally of one kind, with their outcomes, in plan order.
    public func events(on day: CalendarDay, kind: ActivityKind? = nil) throws(CarePlanStoreError) -> [Event] {
        try read { db in
            var sql = """
                SELECT v.* FROM activity_version v JOIN activity a ON a.id = v.activity_id
                WHERE v.effective_from <= ? AND (v.effective_until IS NULL OR v.effective_until > ?)
                """
            var arguments: StatementArguments = [day.daysSinceEpoch, day.daysSinceEpoch]
            if let kind {
                sql += " AND a.kind = ?"
                arguments += [kind.rawValue]
            }
            sql += " ORDER BY a.position, a.id"
            let versions = try Row.fetchAll(db, sql: sql, arguments: arguments).map(version)
            let outcomes = try Self.outcomes(db, sql: "WHERE day = ?", arguments: [day.daysSinceEpoch])
            return versions.flatMap { $0.events(on: day) }.map { $0.with(outcomes[$0.key]) }
        }
    }

    /// The events of one activity on `day`.
    public func events(of activityID: String, on day: CalendarDay) throws(CarePlanStoreError) -> [Event] {
        try events(of: activityID, from: day, through: day)
    }

    /// The events of one activity from `first` through `last`, each day judged by the
    /// version that governs it.
    public func events(of activityID: String, from first: CalendarDay, through last: CalendarDay) throws(CarePlanStoreError) -> [Event] {
        try read { db in
            guard try Self.activityRow(db, activityID) != nil else {
                throw CarePlanStoreError.unknownActivity(activityID)
            }
            let versions = try Self.versions(db, of: activityID, overlapping: first, last, decode: version)
            let outcomes = try Self.outcomes(
                db, sql: "WHERE activity_id = ? AND day BETWEEN ? AND ?",
                arguments: [activityID, first.daysSinceEpoch, last.daysSinceEpoch])
            return (first...last).flatMap { day in
                versions.first { $0.governs(day) }?.events(on: day) ?? []
            }.map { $0.with(outcomes[$0.key]) }
        }
    }

    /// For each day from `first` through `last`: completed and scheduled events, by kind.
    public func completion(from first: CalendarDay, through last: CalendarDay) throws(CarePlanStoreError) -> [CompletionSummary] {
        try read { db in
            let versions = try Row.fetchAll(
                db,
                sql: Self.versionSelect + " WHERE v.effective_from <= ? AND (v.effective_until IS NULL OR v.effective_until > ?)",
                arguments: [last.daysSinceEpoch, first.daysSinceEpoch]
            ).map(version)
            let byActivity = Dictionary(grouping: versions, by: \.activity.identifier)
            var completed: [CalendarDay: [String: Set<Int>]] = [:]
            let rows = try Row.fetchCursor(
                db,
                sql: "SELECT activity_id, day, occurrence FROM outcome WHERE day BETWEEN ? AND ? AND state = 'completed'",
                arguments: [first.daysSinceEpoch, last.daysSinceEpoch])
            while let row = try rows.next() {
                completed[CalendarDay(daysSinceEpoch: row["day"]), default: [:]][row["activity_id"], default: []]
                    .insert(row["occurrence"])
            }
            return (first...last).map { day in
                var summary = CompletionSummary(day: day)
                for (id, versions) in byActivity {
                    guard let version = versions.first(where: { $0.governs(day) }) else { continue }
                    let scheduled = version.occurrenceCount(on: day)
                    let done = completed[day]?[id]?.count(where: { $0 < scheduled }) ?? 0
                    let tally = Tally(completed: done, total: scheduled)
                    switch version.activity.kind {
                    case .intervention: summary.interventions = summary.interventions + tally
                    case .assessment: summary.assessments = summary.assessments + tally
                    }
                }
                return summary
            }
        }
    }

    static func versions(
        _ db: Database, of activityID: String, overlapping first: CalendarDay, _ last: CalendarDay,
        decode: (Row) throws -> ActivityVersion
    ) throws -> [ActivityVersion] {
        try Row.fetchAll(
            db,
            sql: Self.versionSelect + """
                 WHERE v.activity_id = ? AND v.effective_from <= ?
                 AND (v.effective_until IS NULL OR v.effective_until > ?) ORDER BY v.version DESC
                """,
            arguments: [activityID, last.daysSinceEpoch, first.daysSinceEpoch]
        ).map(decode)
    }
}

extension Event {
    func with(_ outcome: Outcome?) -> Event {
        var event = self
        event.outcome = outcome
        return event
    }
}
