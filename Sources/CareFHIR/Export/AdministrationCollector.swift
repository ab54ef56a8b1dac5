import CarePlan
import CarePlanStore
import Foundation

/// The administrations of an export: every outcome of a medication event (an activity whose
/// source system is `fhir`) recorded after one revision, up to another.
public struct AdministrationExport: Sendable, Hashable {
    /// Oldest first (by ``DoseAdministration/revision``).
    public var doses: [DoseAdministration]
    /// The export covers changes after this revision…
    public var after: Int
    /// …up to and including this one, the store's revision when it was read.
    public var through: Int
}

/// Reads an ``AdministrationExport`` from a store's change log.
///
/// Each outcome that stood (not one that lost a conflict) becomes one dose. An outcome later
/// replaced by another outcome of the same event, or by a reset, is exported as replaced
/// (`entered-in-error`) together with the change that replaced it.
public struct AdministrationCollector: Sendable {
    public let store: CarePlanStore
    /// The patient every dose names in place of its order's, such as `Patient/p1`: the one a
    /// health record gave for the server it goes to.
    public let subject: String?
    /// Changes are read from the log this many at a time.
    let pageSize = 1000

    public init(store: CarePlanStore, subject: String? = nil) {
        self.store = store
        self.subject = subject
    }

    /// The administrations recorded or replaced after revision `after`.
    public func collect(after: Int) async throws -> AdministrationExport {
        let through = try await store.revision()
        let info = try await store.plan.info()
        guard let timeZone = info.timeZone else { throw CarePlanStoreError.planNotConfigured }
        let sources = Dictionary(uniqueKeysWithValues: try await store.sources.all(system: "fhir").map { ($0.activityID, $0) })
        var doses: [DoseAdministration] = []
        for activityID in try await touchedActivities(after: after, through: through, among: Set(sources.keys)).sorted() {
            let mapper = try DoseMapper(
                source: sources[activityID]!, versions: await store.plan.versions(of: activityID),
                identifiers: ExportIdentifiers(planID: info.planID), timeZone: timeZone, subject: subject)
            let outcomes = try await store.history(activityID: activityID)
                .filter { $0.kind == .outcomeRecorded && $0.revision <= through && $0.event != nil }
            for chain in Dictionary(grouping: outcomes, by: { $0.event! }).values {
                doses += try Self.exported(chain, after: after).map { change, replacedBy in
                    try mapper.dose(change, replacedBy: replacedBy)
                }
            }
        }
        doses.sort { ($0.revision, $0.identifier.value ?? "") < ($1.revision, $1.identifier.value ?? "") }
        return AdministrationExport(doses: doses, after: after, through: through)
    }

    /// The medication activities with an outcome recorded in the range.
    private func touchedActivities(after: Int, through: Int, among medications: Set<String>) async throws -> Set<String> {
        var touched = Set<String>()
        var cursor = after
        while cursor < through {
            let page = try await store.history(after: cursor, limit: pageSize)
            for change in page where change.revision <= through && change.kind == .outcomeRecorded {
                if let id = change.activityID, medications.contains(id) { touched.insert(id) }
            }
            guard let last = page.last?.revision else { break }
            cursor = last
        }
        return touched
    }

    /// Of one event's outcomes (oldest first), those the range exports, each with the
    /// revision of the change that replaced it, if any: an outcome recorded in the range, or
    /// one replaced in it. Resets export nothing themselves.
    static func exported(_ chain: [StoreChange], after: Int) -> [(StoreChange, replacedBy: Int?)] {
        chain.indices.compactMap { index in
            let change = chain[index]
            let next = chain.indices.contains(index + 1) ? chain[index + 1].revision : nil
            guard change.outcome?.state != .initial, (next ?? change.revision) > after else { return nil }
            return (change, next)
        }
    }
}
