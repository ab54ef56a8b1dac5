import CarePlan
@_spi(CareCore) import CarePlanStore

/// Health measurements into the record, in one transaction, each judged alone: a sample that
/// is not plausible (``MeasurementSample/validate()``) or names a source neither given nor
/// kept is refused with its reason and the rest are kept; one whose id came before is a
/// duplicate; a sample kept answers the first open event of its day of an assessment linked
/// to its type (``Activity/measurement``, ``AnsweredAssessments``), recorded as `device`'s.
public struct MeasurementRecording: Sendable {
    let store: CarePlanStore

    /// Records `measurements` with the `sources` they name (a source's details are updated
    /// when they change), from `device`.
    public func record(
        _ measurements: [MeasurementSample], sources: [MeasurementSource], device: String
    ) async throws(CarePlanStoreError) -> MeasurementReceipt {
        try await store.transaction { record in
            for source in sources { try record.measurements.keep(source, from: device) }
            var receipt = MeasurementReceipt()
            var assessments = try AnsweredAssessments(record)
            for measurement in measurements {
                do throws(MeasurementError) {
                    try measurement.validate()
                } catch {
                    receipt.refused.append((measurement.id, error))
                    continue
                }
                guard try record.measurements.hasSource(measurement.sourceID) else {
                    receipt.refused.append((measurement.id, .unknownSource(measurement.sourceID)))
                    continue
                }
                guard try record.measurements.keep(measurement, from: device) else {
                    receipt.duplicates.append(measurement.id)
                    continue
                }
                receipt.stored.append(measurement.id)
                if let key = try assessments.answer(with: measurement, device: device, in: record) { receipt.completed.append(key) }
            }
            return receipt
        }
    }
}
