import CarePlan
import GRDB

/// What loading a plan document changed.
public struct PlanLoadReport: Sendable, Hashable, Codable {
    public var added: [String] = []
    public var updated: [String] = []
    public var ended: [String] = []
    public var unchanged: [String] = []
    public var contactsSaved: [String] = []
    public var contactsRemoved: [String] = []
    /// The store's revision after loading.
    public var revision: Int = 0

    /// Whether the load changed any activity or contact.
    public var changedAnything: Bool {
        !(added.isEmpty && updated.isEmpty && ended.isEmpty && contactsSaved.isEmpty && contactsRemoved.isEmpty)
    }

    mutating func record(_ result: UpsertResult, _ id: String) {
        switch result {
        case .added: added.append(id)
        case .updated: updated.append(id)
        case .unchanged: unchanged.append(id)
        }
    }
}

/// What making the store hold an activity did.
enum UpsertResult { case added, updated, unchanged }

extension PlanStore {
    /// Makes the store hold `plan`, in one transaction: new activities are added, changed
    /// ones get a version effective from `effectiveFrom`, unchanged ones are left alone, and
    /// activities an earlier plan added but this one lacks are ended from `effectiveFrom`.
    /// Loading the same plan twice changes nothing.
    @discardableResult
    @_spi(CareCore) public func load(_ plan: Plan, effectiveFrom: CalendarDay, device: String) async throws(CarePlanStoreError) -> PlanLoadReport {
        try await write { db in
            var report = PlanLoadReport()
            try configurePlan(
                db, title: plan.title, timeZone: plan.timeZone,
                start: try plan.start ?? Self.planInfo(db).start ?? effectiveFrom, routine: plan.routine,
                insights: plan.insights, missedDose: plan.missedDose, patient: .some(plan.patient), device: device)
            for (position, activity) in plan.activities.enumerated() {
                try db.run("UPDATE activity SET position = ? WHERE id = ?", arguments: [position, activity.identifier])
                let result = try upsert(
                    db, activity, effectiveFrom: effectiveFrom, firstDay: effectiveFrom, origin: .plan,
                    position: position, device: device)
                report.record(result, activity.identifier)
            }
            let listed = Set(plan.activities.map(\.identifier))
            let previous = try db.values(String.self, "SELECT id FROM activity WHERE origin = ? AND ended_from IS NULL ORDER BY position",
                arguments: [ActivityOrigin.plan.rawValue])
            for id in previous where !listed.contains(id) {
                _ = try endActivity(db, id, from: effectiveFrom, device: device)
                report.ended.append(id)
            }
            for (position, contact) in plan.contacts.enumerated() {
                if try saveContact(db, contact, position: position, origin: .plan, device: device) != nil {
                    report.contactsSaved.append(contact.identifier)
                }
            }
            let contactIDs = Set(plan.contacts.map(\.identifier))
            let planContacts = try db.values(
                String.self, "SELECT id FROM contact WHERE removed = 0 AND origin = ?", arguments: [ActivityOrigin.plan.rawValue])
            for id in planContacts where !contactIDs.contains(id) {
                _ = try removeContact(db, id, device: device)
                report.contactsRemoved.append(id)
            }
            report.revision = try CarePlanStore.revision(db)
            return report
        }
    }

    /// Adds `activity` (governing days from `firstDay`) if it is new; gives it a version from
    /// `effectiveFrom` if it differs from the newest one or was ended; else changes nothing.
    func upsert(
        _ db: Database, _ activity: Activity, effectiveFrom: CalendarDay, firstDay: CalendarDay,
        origin: ActivityOrigin, position: Int? = nil, device: String
    ) throws -> UpsertResult {
        guard let row = try Self.activityRow(db, activity.identifier) else {
            _ = try insertActivity(db, activity, effectiveFrom: firstDay, origin: origin, position: position, device: device)
            return .added
        }
        let latest = try db.row(Self.versionSelect + " WHERE v.activity_id = ? AND v.version = ?",
            arguments: [activity.identifier, row["latest_version"]]
        ).map(version)
        if latest?.activity == activity, (row["ended_from"] as Int?) == nil { return .unchanged }
        _ = try addVersion(db, activity, effectiveFrom: effectiveFrom, device: device)
        return .updated
    }
}
