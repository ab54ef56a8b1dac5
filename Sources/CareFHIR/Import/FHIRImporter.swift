import CarePlan
import CarePlanStore
import Foundation

/// What an import changed and what it could not do exactly.
public struct FHIRImportReport: Sendable, Codable {
    public var added: [String] = []
    public var updated: [String] = []
    public var ended: [String] = []
    public var unchanged: [String] = []
    /// Orders that were not scheduled (not active), by reference.
    public var notScheduled: [String] = []
    public var warnings: [ImportWarning] = []
    /// The store's revision afterwards.
    public var revision = 0
}

/// Imports medication orders into a store: each active order's dosage instructions become
/// activities with the order as their source; re-importing updates, never duplicates.
public struct FHIRImporter: Sendable {
    public var mapper: OrderMapper
    /// The node name changes are recorded under.
    public var device: String

    public init(mapper: OrderMapper, device: String) {
        self.mapper = mapper
        self.device = device
    }

    /// Maps every order first (nothing is written if one is malformed), then applies them
    /// in one transaction: changes take effect from `mapper.today`. Activities that an
    /// earlier import made from an order and that it no longer schedules are ended.
    @discardableResult
    public func run(_ input: FHIRInput, into store: CarePlanStore) async throws -> FHIRImportReport {
        var report = FHIRImportReport()
        let mapped = try input.orders.map { order throws(FHIRError) -> MappedOrder in
            do throws(FHIRError) {
                return try mapper.map(order)
            } catch {
                throw error.inDocument(order.document)
            }
        }
        let earlier = Dictionary(grouping: try await store.sources(system: OrderMapper.system), by: \.reference)
            .mapValues { $0.map(\.activityID) }
        var items: [SourcedActivity] = []
        for order in mapped {
            report.warnings += order.warnings
            let source = ActivitySource(
                system: OrderMapper.system, reference: order.order.reference, subject: order.order.subject,
                payload: order.order.payload)
            for (activity, firstDay) in order.activities {
                items.append(SourcedActivity(activityID: activity.identifier, activity: activity, firstDay: firstDay, source: source))
            }
            let kept = Set(order.activities.map(\.activity.identifier))
            let before = Set(earlier[order.order.reference, default: []] + [OrderMapper.activityID(key: order.order.key)])
            for id in before.subtracting(kept).sorted() {
                items.append(SourcedActivity(activityID: id, activity: nil, firstDay: mapper.today, source: source))
            }
            if order.disposition != .scheduled { report.notScheduled.append(order.order.reference) }
        }
        let applied = try await store.applySourced(items, effectiveFrom: mapper.today, device: device)
        report.added = applied.added
        report.updated = applied.updated
        report.ended = applied.ended
        report.unchanged = applied.unchanged
        report.revision = applied.revision
        return report
    }
}
