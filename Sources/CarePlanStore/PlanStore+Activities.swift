import CarePlan
import GRDB

extension PlanStore {
    /// Adds a new activity whose first version governs days from `effectiveFrom`.
    @discardableResult
    @_spi(CareCore) public func addActivity(
        _ activity: Activity, effectiveFrom: CalendarDay, origin: ActivityOrigin = .api, device: String
    ) async throws(CarePlanStoreError) -> StoreChange {
        try await write { db in
            guard try Self.activityRow(db, activity.identifier) == nil else {
                throw CarePlanStoreError.activityExists(activity.identifier)
            }
            return try insertActivity(db, activity, effectiveFrom: effectiveFrom, origin: origin, device: device)
        }
    }

    /// Adds a version of an existing activity that governs days from `effectiveFrom` on;
    /// earlier days keep their versions. Updating an ended activity brings it back.
    @discardableResult
    @_spi(CareCore) public func updateActivity(
        _ activity: Activity, effectiveFrom: CalendarDay, device: String
    ) async throws(CarePlanStoreError) -> StoreChange {
        try await write { db in try addVersion(db, activity, effectiveFrom: effectiveFrom, device: device) }
    }

    /// Ends an activity: it has no events from `day` on. Nothing recorded is deleted.
    @discardableResult
    @_spi(CareCore) public func endActivity(_ id: String, from day: CalendarDay, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await write { db in try endActivity(db, id, from: day, device: device) }
    }

    /// The newest version of an activity, ended or not.
    public func activity(_ id: String) async throws(CarePlanStoreError) -> ActivityVersion? {
        try await read { db in
            try db.row(Self.versionSelect + " WHERE v.activity_id = ? ORDER BY v.version DESC LIMIT 1",
                             arguments: [id]).map(version)
        }
    }

    /// Every version of an activity, oldest first.
    public func versions(of id: String) async throws(CarePlanStoreError) -> [ActivityVersion] {
        try await read { db in
            try db.rows(Self.versionSelect + " WHERE v.activity_id = ? ORDER BY v.version",
                             arguments: [id]).map(version)
        }
    }

    /// The newest version of each activity that matches `query`, in plan order.
    public func activities(_ query: ActivityQuery = ActivityQuery()) async throws(CarePlanStoreError) -> [ActivityVersion] {
        var conditions: [String] = []
        var arguments: StatementArguments = []
        if let kind = query.kind {
            conditions.append("a.kind = ?")
            arguments += [kind.rawValue]
        }
        if let group = query.group {
            conditions.append("a.group_id = ?")
            arguments += [group]
        }
        if let tag = query.tag {
            conditions.append("EXISTS (SELECT 1 FROM activity_tag t WHERE t.tag = ? AND t.activity_id = a.id)")
            arguments += [tag]
        }
        if !query.includeEnded { conditions.append("a.ended_from IS NULL") }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let sql = """
            SELECT \(Self.versionColumns) FROM activity a
            JOIN activity_version v ON v.activity_id = a.id AND v.version = a.latest_version
            \(filter) ORDER BY a.position, a.id LIMIT ? OFFSET ?
            """
        arguments += [query.limit ?? -1, query.offset]
        let statementArguments = arguments
        return try await read { db in try db.rows(sql, arguments: statementArguments).map(version) }
    }

    // MARK: - Inside a write transaction

    func insertActivity(
        _ db: Database, _ activity: Activity, effectiveFrom: CalendarDay, origin: ActivityOrigin,
        position: Int? = nil, device: String
    ) throws -> StoreChange {
        try Self.check(activity)
        let position = try position ?? (db.value(Int.self, "SELECT MAX(position) + 1 FROM activity") ?? 0)
        try db.run("INSERT INTO activity (id, kind, group_id, origin, position, latest_version) VALUES (?, ?, ?, ?, ?, 0)",
            arguments: [activity.identifier, activity.kind.rawValue, activity.groupIdentifier, origin.rawValue, position])
        return try appendVersion(db, activity, effectiveFrom: effectiveFrom, kind: .activityAdded, device: device)
    }

    func addVersion(_ db: Database, _ activity: Activity, effectiveFrom: CalendarDay, device: String) throws -> StoreChange {
        try Self.check(activity)
        guard let row = try Self.activityRow(db, activity.identifier) else {
            throw CarePlanStoreError.unknownActivity(activity.identifier)
        }
        let kind = ActivityKind(rawValue: row["kind"]) ?? activity.kind
        guard kind == activity.kind else {
            throw CarePlanStoreError.kindChanged(activity.identifier, from: kind, to: activity.kind)
        }
        try closeVersions(db, activity.identifier, from: effectiveFrom)
        try db.run("UPDATE activity SET group_id = ?, ended_from = NULL WHERE id = ?",
            arguments: [activity.groupIdentifier, activity.identifier])
        return try appendVersion(db, activity, effectiveFrom: effectiveFrom, kind: .activityUpdated, device: device)
    }

    func endActivity(_ db: Database, _ id: String, from day: CalendarDay, device: String) throws -> StoreChange {
        guard try Self.activityRow(db, id) != nil else { throw CarePlanStoreError.unknownActivity(id) }
        try closeVersions(db, id, from: day)
        try db.run("UPDATE activity SET ended_from = ? WHERE id = ?", arguments: [day.daysSinceEpoch, id])
        return try StoreChange(kind: .activityEnded, activityID: id, effectiveFrom: day, device: device, committedAt: now())
            .append(to: db)
    }

    /// Stops every version from governing days on or after `day`.
    private func closeVersions(_ db: Database, _ id: String, from day: CalendarDay) throws {
        try db.run("""
                UPDATE activity_version SET effective_until = MAX(effective_from, ?)
                WHERE activity_id = ? AND (effective_until IS NULL OR effective_until > ?)
                """,
            arguments: [day.daysSinceEpoch, id, day.daysSinceEpoch])
    }

    private func appendVersion(
        _ db: Database, _ activity: Activity, effectiveFrom: CalendarDay, kind: StoreChange.Kind, device: String
    ) throws -> StoreChange {
        let version = try (db.value(Int.self, "SELECT latest_version FROM activity WHERE id = ?", arguments: [activity.identifier]) ?? 0) + 1
        let change = try StoreChange(
            kind: kind, activityID: activity.identifier, version: version, effectiveFrom: effectiveFrom,
            device: device, committedAt: now()
        ).append(to: db)
        try db.run("""
                INSERT INTO activity_version (activity_id, version, effective_from, definition, revision)
                VALUES (?, ?, ?, ?, ?)
                """,
            arguments: [activity.identifier, version, effectiveFrom.daysSinceEpoch,
                        try StoredJSON.encode(activity), change.revision])
        try db.run("UPDATE activity SET latest_version = ? WHERE id = ?", arguments: [version, activity.identifier])
        try db.run("DELETE FROM activity_tag WHERE activity_id = ?", arguments: [activity.identifier])
        for tag in activity.tags {
            try db.run("INSERT INTO activity_tag (tag, activity_id) VALUES (?, ?)", arguments: [tag, activity.identifier])
        }
        return change
    }

    private static func check(_ activity: Activity) throws {
        do {
            try activity.validate()
        } catch {
            throw CarePlanStoreError.invalidActivity(activity.identifier, error)
        }
    }
}

private let activityVersionColumns = "v.activity_id, v.version, v.effective_from, v.effective_until, v.definition"
private let activityVersionSelect = "SELECT \(activityVersionColumns) FROM activity_version v"

/// Reading activities and their versions, which every part of the store does.
extension StorePart {
    static func activityRow(_ db: Database, _ id: String) throws -> Row? {
        try db.row("SELECT * FROM activity WHERE id = ?", arguments: [id])
    }

    // MARK: - Reading versions

    /// The columns ``version(_:)`` reads, in its order.
    static var versionColumns: String { activityVersionColumns }
    static var versionSelect: String { activityVersionSelect }

    /// Decodes a row of ``versionColumns``, reusing definitions decoded before.
    func version(_ row: some ColumnReading) throws -> ActivityVersion {
        let id = try row.text(required: 0)
        let number = try row.int(required: 1)
        // The definition (JSON, the longest column) is read only when it is not cached.
        let activity = try definitions.activity(id, version: number) {
            try StoredJSON.decode(Activity.self, from: try row.text(required: 4))
        }
        return ActivityVersion(
            activity: activity, version: number,
            effectiveFrom: CalendarDay(daysSinceEpoch: try row.int(required: 2)),
            effectiveUntil: row.int(3).map(CalendarDay.init(daysSinceEpoch:)))
    }
}
