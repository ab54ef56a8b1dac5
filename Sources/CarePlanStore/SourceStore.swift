import CarePlan
import Foundation
import GRDB

/// Where an activity came from outside the plan document, such as a FHIR order: enough to
/// name that record again when reporting what was done.
public struct ActivitySource: Sendable, Hashable {
    /// The activity this source belongs to; set by the store when stored or read.
    public internal(set) var activityID: String
    /// The external system, such as `fhir`.
    public var system: String
    /// The record in that system, such as `MedicationRequest/abc`.
    public var reference: String
    /// Whom the record is about, such as `Patient/p1`.
    public var subject: String?
    /// The record as it was imported (for FHIR, the resource's JSON).
    public var payload: Data
    /// When the store last saved this source.
    public internal(set) var updatedAt: Date?

    public init(system: String, reference: String, subject: String? = nil, payload: Data) {
        self.activityID = ""
        self.system = system
        self.reference = reference
        self.subject = subject
        self.payload = payload
    }
}

/// An activity from an external system to add, update or end, with its source.
public struct SourcedActivity: Sendable {
    public var activityID: String
    /// The activity as the source now defines it; `nil` ends the activity.
    public var activity: Activity?
    /// The first day a new activity's first version governs.
    public var firstDay: CalendarDay
    public var source: ActivitySource

    public init(activityID: String, activity: Activity?, firstDay: CalendarDay, source: ActivitySource) {
        self.activityID = activityID
        self.activity = activity
        self.firstDay = firstDay
        self.source = source
    }
}

extension SourceStore {
    /// Where `activityID` came from, if it has a source.
    public func source(of activityID: String) async throws(CarePlanStoreError) -> ActivitySource? {
        try await read { db in try Self.sources(db, "WHERE activity_id = ?", [activityID]).first }
    }

    /// Every source from `system`, by activity id.
    public func all(system: String) async throws(CarePlanStoreError) -> [ActivitySource] {
        try await read { db in try Self.sources(db, "WHERE system = ? ORDER BY activity_id", [system]) }
    }

    private static func sources(_ db: Database, _ filter: String, _ arguments: StatementArguments) throws -> [ActivitySource] {
        try db.rows("SELECT activity_id, system, reference, subject, payload, updated_at FROM activity_source " + filter,
                    arguments: arguments).map { row in
            var source = ActivitySource(system: row[1], reference: row[2], subject: row[3], payload: row[4])
            source.activityID = row[0]
            source.updatedAt = (row[5] as Double?).map(Date.init(timeIntervalSince1970:))
            return source
        }
    }
}
