import CarePlan
import GRDB

extension OutcomeStore {
    /// The events of `day`, optionally of one kind, with their outcomes, in plan order.
    public func events(on day: CalendarDay, kind: ActivityKind? = nil) async throws(CarePlanStoreError) -> [Event] {
        try await read { db in try events(db, on: day, kind: kind) }
    }

    /// The plan, its revision and the events of `days`, read in one transaction so that
    /// the revision is exactly the one the events reflect.
    public func snapshot(of days: [CalendarDay]) async throws(CarePlanStoreError) -> PlanSnapshot {
        try await read { db in try snapshot(db, days) }
    }

    private func snapshot(_ db: Database, _ days: [CalendarDay]) throws -> PlanSnapshot {
        PlanSnapshot(
            info: try Self.planInfo(db), revision: try CarePlanStore.revision(db),
            days: try days.map { ($0, try events(db, on: $0, kind: nil)) })
    }

    func events(_ db: Database, on day: CalendarDay, kind: ActivityKind?) throws -> [Event] {
        var sql = """
            SELECT \(Self.versionColumns) FROM activity_version v JOIN activity a ON a.id = v.activity_id
            WHERE v.effective_from <= ? AND (v.effective_until IS NULL OR v.effective_until > ?)
            """
        var arguments: StatementArguments = [day.daysSinceEpoch, day.daysSinceEpoch]
        if let kind {
            sql += " AND a.kind = ?"
            arguments += [kind.rawValue]
        }
        sql += " ORDER BY a.position, a.id"
        let versions = try db.rows(sql, arguments: arguments).map(version)
        let outcomes = try Self.outcomes(db, sql: "WHERE o.day = ?", arguments: [day.daysSinceEpoch])
        return versions.flatMap { $0.events(on: day) }.map { $0.with(outcomes[$0.key]) }
    }

    /// The events of one activity on `day`.
    public func events(of activityID: String, on day: CalendarDay) async throws(CarePlanStoreError) -> [Event] {
        try await events(of: activityID, from: day, through: day)
    }

    /// The events of one activity from `first` through `last`, each day judged by the
    /// version that governs it.
    public func events(of activityID: String, from first: CalendarDay, through last: CalendarDay) async throws(CarePlanStoreError) -> [Event] {
        try await read { db in
            guard try Self.activityRow(db, activityID) != nil else {
                throw CarePlanStoreError.unknownActivity(activityID)
            }
            let versions = try versions(db, of: activityID, overlapping: first, last)
            let outcomes = try Self.outcomes(
                db, sql: "WHERE o.activity_id = ? AND o.day BETWEEN ? AND ?",
                arguments: [activityID, first.daysSinceEpoch, last.daysSinceEpoch])
            return (first...last).flatMap { day in
                versions.first { $0.governs(day) }?.events(on: day) ?? []
            }.map { $0.with(outcomes[$0.key]) }
        }
    }

    /// Every activity's events from `first` through `last`, with their outcomes: activity by
    /// activity in plan order, each day judged by the version that governs it (what insights
    /// and reports read).
    public func events(from first: CalendarDay, through last: CalendarDay) async throws(CarePlanStoreError) -> [Event] {
        guard first <= last else { return [] }
        return try await read { db in
            let versions = try db.rows(
                "SELECT \(Self.versionColumns) FROM activity_version v JOIN activity a ON a.id = v.activity_id"
                    + " WHERE v.effective_from <= ? AND (v.effective_until IS NULL OR v.effective_until > ?)"
                    + " ORDER BY a.position, a.id, v.version DESC",
                arguments: [last.daysSinceEpoch, first.daysSinceEpoch]
            ).map(version)
            let byActivity = versions.reduce(into: [[ActivityVersion]]()) { groups, version in
                if groups.last?.first?.activity.identifier == version.activity.identifier {
                    groups[groups.count - 1].append(version)
                } else {
                    groups.append([version])
                }
            }
            let outcomes = try Self.outcomes(
                db, sql: "WHERE o.day BETWEEN ? AND ?", arguments: [first.daysSinceEpoch, last.daysSinceEpoch])
            return byActivity.flatMap { versions in
                (first...last).flatMap { day in versions.first { $0.governs(day) }?.events(on: day) ?? [] }
            }.map { $0.with(outcomes[$0.key]) }
        }
    }

    /// For each day from `first` through `last`: completed and scheduled events, by kind.
    public func completion(from first: CalendarDay, through last: CalendarDay) async throws(CarePlanStoreError) -> [CompletionSummary] {
        let dayCount = first.distance(to: last) + 1
        guard dayCount > 0 else { return [] }
        return try await read { db in
            let versions = try db.rows(
                Self.versionSelect + " WHERE v.effective_from <= ? AND (v.effective_until IS NULL OR v.effective_until > ?)",
                arguments: [last.daysSinceEpoch, first.daysSinceEpoch]
            ).map(version)
            let byActivity = Array(Dictionary(grouping: versions, by: \.activity.identifier))
            let index = Dictionary(uniqueKeysWithValues: byActivity.enumerated().map { ($1.key, $0) })
            // One bit per completed occurrence (at most 96 a day), per activity and day.
            var completed = [UInt128](repeating: 0, count: byActivity.count * dayCount)
            let rows = try db.rowCursor(
                "SELECT activity_id, day, occurrence FROM outcome WHERE day BETWEEN ? AND ? AND state = 'completed'",
                arguments: [first.daysSinceEpoch, last.daysSinceEpoch])
            while let row = try rows.next() {
                guard let activity = index[row[0] as String], let occurrence = row[2] as Int?, occurrence < 128 else { continue }
                completed[activity * dayCount + (row[1] as Int) - first.daysSinceEpoch] |= 1 << occurrence
            }
            return (0..<dayCount).map { offset in
                let day = first.adding(days: offset)
                var summary = CompletionSummary(day: day)
                for (activity, (_, versions)) in byActivity.enumerated() {
                    guard let version = versions.first(where: { $0.governs(day) }) else { continue }
                    let scheduled = version.occurrenceCount(on: day)
                    let scheduledBits: UInt128 = scheduled >= 128 ? ~0 : (1 << scheduled) - 1
                    let done = (completed[activity * dayCount + offset] & scheduledBits).nonzeroBitCount
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

    /// The versions of an activity that govern some day from `first` through `last`, newest first.
    func versions(_ db: Database, of activityID: String, overlapping first: CalendarDay, _ last: CalendarDay) throws -> [ActivityVersion] {
        try db.direct(Self.versionSelect + """
             WHERE v.activity_id = ? AND v.effective_from <= ?
             AND (v.effective_until IS NULL OR v.effective_until > ?) ORDER BY v.version DESC
            """
        ) { row in
            row.bind(activityID)
            row.bind(last.daysSinceEpoch)
            row.bind(first.daysSinceEpoch)
            var versions: [ActivityVersion] = []
            while try row.step() { versions.append(try version(row)) }
            return versions
        }
    }
}

extension Event {
    func with(_ outcome: Outcome?) -> Event {
        var event = self
        event.outcome = outcome
        return event
    }
}
