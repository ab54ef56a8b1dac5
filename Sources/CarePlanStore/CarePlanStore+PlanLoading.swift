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
}

extension CarePlanStore {
    /// Makes the store hold `plan`, in one transaction: new activities are added, changed
    /// ones get a version effective from `effectiveFrom`, unchanged ones are left alone, and
    /// activities an earlier plan added but this one lacks are ended from `effectiveFrom`.
    /// Loading the same plan twice changes nothing.
    @discardableResult
    public func load(_ plan: Plan, effectiveFrom: CalendarDay, device: String) throws(CarePlanStoreError) -> PlanLoadReport {
        try write { db in
            var report = PlanLoadReport()
            try configurePlan(
                db, title: plan.title, timeZone: plan.timeZone,
                start: try plan.start ?? Self.planInfo(db).start ?? effectiveFrom, device: device)
            for (position, activity) in plan.activities.enumerated() {
                try db.run("UPDATE activity SET position = ? WHERE id = ?", arguments: [position, activity.identifier])
                guard let row = try Self.activityRow(db, activity.identifier) else {
                    _ = try insertActivity(db, activity, effectiveFrom: effectiveFrom, origin: .plan, position: position, device: device)
                    report.added.append(activity.identifier)
                    continue
                }
                let latest = try db.row(Self.versionSelect + " WHERE v.activity_id = ? AND v.version = ?",
                    arguments: [activity.identifier, row["latest_version"]]
                ).map(version)
                let ended = (row["ended_from"] as Int?) != nil
                if latest?.activity == activity, !ended {
                    report.unchanged.append(activity.identifier)
                } else {
                    _ = try addVersion(db, activity, effectiveFrom: effectiveFrom, device: device)
                    report.updated.append(activity.identifier)
                }
            }
            let listed = Set(plan.activities.map(\.identifier))
            let previous = try db.values(String.self, "SELECT id FROM activity WHERE origin = ? AND ended_from IS NULL ORDER BY position",
                arguments: [ActivityOrigin.plan.rawValue])
            for id in previous where !listed.contains(id) {
                _ = try endActivity(db, id, from: effectiveFrom, device: device)
                report.ended.append(id)
            }
            for (position, contact) in plan.contacts.enumerated() {
                if try saveContact(db, contact, position: position, device: device) != nil {
                    report.contactsSaved.append(contact.identifier)
                }
            }
            let contactIDs = Set(plan.contacts.map(\.identifier))
            for id in try db.values(String.self, "SELECT id FROM contact WHERE removed = 0") where !contactIDs.contains(id) {
                _ = try removeContact(db, id, device: device)
                report.contactsRemoved.append(id)
            }
            report.revision = try Self.revision(db)
            return report
        }
    }
}
