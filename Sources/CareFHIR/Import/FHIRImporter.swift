import CareCore
import CarePlan
import CarePlanStore
import Foundation

/// What an import changed and what it could not do exactly.
public struct FHIRImportReport: Sendable, Codable {
    public var added: [String] = []
    public var updated: [String] = []
    public var ended: [String] = []
    public var unchanged: [String] = []
    /// Orders that were not scheduled (not active, or held whole), by reference.
    public var notScheduled: [String] = []
    /// Orders with parts held for review, whole or some of their dosage instructions:
    /// imported and kept, not scheduled (``SourceStore/held(system:)``).
    public var held: [HeldOrder] = []
    public var warnings: [ImportWarning] = []
    /// Orders the import did not take, each with its path and reason: the others were imported.
    public var refused: [ImportRefusal] = []
    /// Orders imported: read and mapped (scheduled, ended, not active or held).
    public var imported = 0
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

    /// Maps every order first, then applies them in one transaction: changes take effect
    /// from `mapper.today`. Activities that an earlier import made from an order and that
    /// it no longer schedules are ended. An order that cannot be read or mapped is refused
    /// alone (``FHIRImportReport/refused``), the others are imported; with `strict`, any
    /// refusal refuses the whole input and nothing is written.
    @discardableResult
    public func run(_ input: FHIRInput, into store: CarePlanStore, strict: Bool = false) async throws -> FHIRImportReport {
        var report = FHIRImportReport()
        report.refused = input.refused
        var mapped: [MappedOrder] = []
        for order in input.orders {
            // An order without a date of its own starts on the day it was first imported.
            let firstImported = order.authoredOn == nil
                ? try await store.plan.versions(of: OrderMapper.activityID(key: order.key)).first?.effectiveFrom : nil
            do throws(FHIRError) {
                mapped.append(try mapper.map(order, firstImported: firstImported))
            } catch {
                report.refused.append(ImportRefusal(error, reference: order.reference, document: order.document))
            }
        }
        if strict, !report.refused.isEmpty { throw FHIRError.refused(report.refused) }
        report.imported = mapped.count
        let earlier = Dictionary(grouping: try await store.sources.all(system: OrderMapper.system), by: \.reference)
            .mapValues { $0.map(\.activityID) }
        var items: [SourcedActivity] = []
        var held: [HeldSource] = []
        for order in mapped {
            report.warnings += order.warnings
            let source = ActivitySource(
                system: OrderMapper.system, reference: order.order.reference, subject: order.order.subject,
                payload: order.order.payload)
            if !order.holds.isEmpty {
                let review = HeldOrder(
                    reference: order.order.reference, title: order.order.medicationName, document: order.order.document,
                    holds: order.holds)
                report.held.append(review)
                held.append(HeldSource(
                    system: OrderMapper.system, reference: source.reference, subject: source.subject, payload: source.payload,
                    review: try review.json()))
            }
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
        let review = SourceReview(system: OrderMapper.system, reviewed: mapped.map(\.order.reference), held: held)
        let applied = try await CareCore(store: store).sources.apply(items, review: review, effectiveFrom: mapper.today, device: device)
        report.added = applied.added
        report.updated = applied.updated
        report.ended = applied.ended
        report.unchanged = applied.unchanged
        report.revision = applied.revision
        return report
    }
}
