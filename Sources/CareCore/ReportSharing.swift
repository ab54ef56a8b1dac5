@_spi(CareCore) import CarePlanStore

/// Care reports shared: with a contact of the care team (recorded in the history), and with
/// household devices, which receive them when they next connect.
public struct ReportSharing: Sendable {
    let store: CarePlanStore

    /// Records that the report `share` describes was shared.
    @discardableResult
    public func recordShare(_ share: ReportShare, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await store.shares.record(share, device: device)
    }

    /// Keeps a report for a household device until it has it.
    @discardableResult
    public func share(_ delivery: ReportDelivery, device: String) async throws(CarePlanStoreError) -> StoreChange {
        try await store.shares.share(delivery, device: device)
    }

    /// Marks the report of `revision` as received by `device`; whether it was waiting.
    @discardableResult
    public func delivered(revision: Int, to device: String) async throws(CarePlanStoreError) -> Bool {
        try await store.shares.delivered(revision: revision, to: device)
    }
}
