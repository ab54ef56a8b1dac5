@_spi(CareCore) import CarePlanStore

/// Care reports shared: with a contact of the care team (recorded in the history), and with
/// household devices, which receive them when they next connect. The rules: a report goes
/// only to a paired household device that is not revoked, and its share is kept in the
/// same transaction; a delivery is acknowledged once, by the device it waited for.
public struct ReportSharing: Sendable {
    let store: CarePlanStore

    /// Records that the report `share` describes was shared.
    @discardableResult
    public func recordShare(_ share: ReportShare, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await store.transaction { record in try record.shares.keep(share, device: device) }
    }

    /// Keeps a report for a household device until it has it, and records the share. A
    /// running primary sends it at once if the device is connected, else when it next connects.
    ///
    /// - Throws: ``CarePlanStoreError/unknownDevice(_:)``, or
    ///   ``CarePlanStoreError/cannotReceiveReports(_:reason:)`` for a device that is not a
    ///   household device or was revoked.
    @discardableResult
    public func share(_ delivery: ReportDelivery, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await store.transaction { record in
            guard let recipient = try record.access.device(delivery.device) else { throw CarePlanStoreError.unknownDevice(delivery.device) }
            guard recipient.role == .household else {
                throw CarePlanStoreError.cannotReceiveReports(recipient.name, reason: "it is paired as a \(recipient.role.rawValue)")
            }
            guard !recipient.isRevoked else { throw CarePlanStoreError.cannotReceiveReports(recipient.name, reason: "it was revoked") }
            let change = try record.shares.keep(
                ReportShare(recipient: .device(recipient.id), address: recipient.name, days: delivery.days), device: device)
            try record.shares.keep(delivery, for: recipient.id, revision: change.revision)
            return change
        }
    }

    /// Marks the report of `revision` as received by `device`; whether it was waiting (a
    /// repeated acknowledgement, or another device's, is not).
    @discardableResult
    public func delivered(revision: Int, to device: String) async throws(CarePlanStoreError) -> Bool {
        try await store.transaction { record in
            guard try record.shares.reportWaits(revision: revision, for: device) else { return false }
            try record.shares.keepDelivered(revision: revision, to: device)
            return true
        }
    }
}
