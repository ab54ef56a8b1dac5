import CarePlan
import GRDB

extension PlanStore {
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
