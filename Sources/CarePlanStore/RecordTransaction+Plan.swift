import CarePlan
import Foundation
import GRDB

/// An activity as the record keeps it.
@_spi(CareCore) public struct StoredActivity: Sendable {
    /// Its kind, as its first version gave it.
    public var kind: ActivityKind?
    /// Its newest version, ended or not.
    public var latest: ActivityVersion?
    /// The first day it has no events, if it was ended.
    public var endedFrom: CalendarDay?
}

/// The plan's settings and activities, as one ``RecordTransaction`` reads and keeps them.
@_spi(CareCore) public struct RecordPlan: RecordPart {
    let record: RecordTransaction
}

extension RecordPlan {
    /// The plan's id, title, time zone, start day and rules.
    public func info() throws -> PlanInfo {
        try PlanStore.planInfo(db)
    }

    /// Keeps `info` as the plan's settings (its id aside) and logs that the plan was configured.
    public func keep(_ info: PlanInfo, device: String) throws {
        try setInfo("title", info.title)
        try setInfo("timeZone", info.timeZone?.identifier)
        try setInfo("start", info.start?.description)
        try setInfo("routine", info.routine == .standard ? nil : try Self.json(info.routine))
        try setInfo("insights", info.insights == .standard ? nil : try Self.json(info.insights))
        try setInfo("missedDose", info.missedDose == .standard ? nil : try Self.json(info.missedDose))
        try setInfo("patient", try info.patient.map { try Self.json($0) })
        _ = try StoreChange(kind: .planConfigured, device: device, committedAt: now).append(to: db)
    }

    /// The activity `id`, if the record keeps it.
    public func activity(_ id: String) throws -> StoredActivity? {
        guard let row = try PlanStore.activityRow(db, id) else { return nil }
        let latest = try db.row(PlanStore.versionSelect + " WHERE v.activity_id = ? AND v.version = ?",
            arguments: [id, row["latest_version"]]).map { try record.store.plan.version($0) }
        return StoredActivity(
            kind: ActivityKind(rawValue: row["kind"]), latest: latest,
            endedFrom: (row["ended_from"] as Int?).map(CalendarDay.init(daysSinceEpoch:)))
    }

    /// The activities a plan document added that are not ended, in plan order.
    public func activityIDsFromDocument() throws -> [String] {
        try db.values(String.self, "SELECT id FROM activity WHERE origin = ? AND ended_from IS NULL ORDER BY position",
            arguments: [ActivityOrigin.plan.rawValue])
    }

    /// Puts the activity `id`, if kept, at `position` in plan order.
    public func move(activity id: String, to position: Int) throws {
        try db.run("UPDATE activity SET position = ? WHERE id = ?", arguments: [position, id])
    }

    /// Keeps `activity` as a new one from `origin`, at `position` (after the last when `nil`),
    /// its first version governing days from `effectiveFrom`.
    public func insert(
        _ activity: Activity, effectiveFrom: CalendarDay, origin: ActivityOrigin, position: Int?, device: String
    ) throws -> StoreChange {
        let position = try position ?? (db.value(Int.self, "SELECT MAX(position) + 1 FROM activity") ?? 0)
        try db.run("INSERT INTO activity (id, kind, group_id, origin, position, latest_version) VALUES (?, ?, ?, ?, ?, 0)",
            arguments: [activity.identifier, activity.kind.rawValue, activity.groupIdentifier, origin.rawValue, position])
        return try appendVersion(activity, effectiveFrom: effectiveFrom, kind: .activityAdded, device: device)
    }

    /// Keeps a version of the kept `activity` governing days from `effectiveFrom` on (the
    /// earlier versions stop there), and brings the activity back if it was ended.
    public func addVersion(_ activity: Activity, effectiveFrom: CalendarDay, device: String) throws -> StoreChange {
        try closeVersions(activity.identifier, from: effectiveFrom)
        try db.run("UPDATE activity SET group_id = ?, ended_from = NULL WHERE id = ?",
            arguments: [activity.groupIdentifier, activity.identifier])
        return try appendVersion(activity, effectiveFrom: effectiveFrom, kind: .activityUpdated, device: device)
    }

    /// Ends the kept activity `id`: no version governs `day` or later.
    public func end(_ id: String, from day: CalendarDay, device: String) throws -> StoreChange {
        try closeVersions(id, from: day)
        try db.run("UPDATE activity SET ended_from = ? WHERE id = ?", arguments: [day.daysSinceEpoch, id])
        return try StoreChange(kind: .activityEnded, activityID: id, effectiveFrom: day, device: device, committedAt: now)
            .append(to: db)
    }

    /// Stops every version from governing days on or after `day`.
    private func closeVersions(_ id: String, from day: CalendarDay) throws {
        try db.run("""
                UPDATE activity_version SET effective_until = MAX(effective_from, ?)
                WHERE activity_id = ? AND (effective_until IS NULL OR effective_until > ?)
                """,
            arguments: [day.daysSinceEpoch, id, day.daysSinceEpoch])
    }

    private func appendVersion(
        _ activity: Activity, effectiveFrom: CalendarDay, kind: StoreChange.Kind, device: String
    ) throws -> StoreChange {
        let version = try (db.value(Int.self, "SELECT latest_version FROM activity WHERE id = ?", arguments: [activity.identifier]) ?? 0) + 1
        let change = try StoreChange(
            kind: kind, activityID: activity.identifier, version: version, effectiveFrom: effectiveFrom,
            device: device, committedAt: now
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

    private static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func setInfo(_ key: String, _ value: String?) throws {
        if let value {
            try db.run("INSERT INTO plan_info (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [key, value])
        } else {
            try db.run("DELETE FROM plan_info WHERE key = ?", arguments: [key])
        }
    }
}
