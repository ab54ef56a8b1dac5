import CarePlan
import CarePlanStore
import Foundation
import Logging
import SyncProtocol

extension PrimaryNode {
    /// Stores a companion's measurements in one transaction and answers once they are
    /// committed: how many were stored and duplicates, and each refused with why (protocol
    /// section 21). A store that cannot record them answers a non-fatal `INTERNAL`, and the
    /// companion sends the batch again.
    func record(_ batch: MeasurementBatch, from peer: PrimaryConnection.Peer, logger: Logger) async -> Result<MeasurementBatchResult, ProtocolError> {
        do {
            let receipt = try await core.measurements.record(batch.samples, sources: batch.sources, device: peer.nodeID)
            // Measurements add nothing to the change log: what follows the store is told here.
            if !receipt.stored.isEmpty { wroteUnlogged(at: Date()) }
            let refused = batch.unreadable + receipt.refused.map { RefusedMeasurement(id: $0.id, reason: $0.reason.description) }
            metrics.measurements["stored"]?.increment(by: receipt.stored.count)
            metrics.measurements["duplicate"]?.increment(by: receipt.duplicates.count)
            metrics.measurements["refused"]?.increment(by: refused.count)
            if !refused.isEmpty {
                logger.notice("refused measurements", metadata: [
                    "batchID": "\(batch.id)", "refused": "\(refused.count)", "first": "\(refused[0].reason)",
                ])
            }
            return .success(MeasurementBatchResult(
                batchID: batch.id, stored: receipt.stored.count, duplicates: receipt.duplicates.count, refused: refused))
        } catch {
            logger.error("the store could not record measurements; the companion will send them again", metadata: [
                "batchID": "\(batch.id)", "error": "\(error)",
            ])
            return .failure(ProtocolError(.internal, "the store could not record it: \(error)", fatal: false))
        }
    }
}
