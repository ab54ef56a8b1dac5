import CarePlan
@_spi(CareCore) import CarePlanStore

/// Health measurements into the record, each judged alone: a bad sample is refused with its
/// reason and the rest are kept; a sample answers the assessment its type is linked to.
public struct MeasurementRecording: Sendable {
    let store: CarePlanStore

    /// Records `measurements` with the `sources` they name, from `device`.
    public func record(
        _ measurements: [MeasurementSample], sources: [MeasurementSource], device: String
    ) async throws(CarePlanStoreError) -> MeasurementReceipt {
        try await store.measurements.record(measurements, sources: sources, device: device)
    }
}
