import CarePlan
import Foundation
import NIOCore
import SyncProtocol

extension CompanionNode {
    /// Keeps `samples`, and the `sources` they name, in the state file for the primary, and
    /// returns how many measurements wait now. They go to the primary in the order they were
    /// added, in batches, on every connection whose primary takes `measurements` (protocol
    /// section 21), and each batch's answer is reported as a
    /// ``CompanionEvent/measurements(_:)`` event. A sample whose id waits already is kept once.
    @discardableResult
    public func measure(_ samples: [MeasurementSample], sources: [MeasurementSource]) async throws -> Int {
        let depth = try await state.measurements.add(samples, sources: sources)
        metrics.measurementsWaiting.record(depth)
        session.withLock { $0 }?.wakeMeasurements.yield()
        return depth
    }

    /// How many measurements wait for the primary.
    public var measurementsWaiting: Int {
        state.measurements.depth
    }
}

extension CompanionSession {
    /// Delivers the measurements waiting, oldest first, one batch at a time (at most
    /// ``MeasurementBatch/maximumSamples``, half the frame limit at most), each removed once
    /// the primary has answered it. A batch in flight holds up nothing else: completions and
    /// contexts go beside it, so a day's backlog does not stall them.
    func sendMeasurements(
        _ session: CompanionNode.SessionHandle, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, wake: AsyncStream<Void>,
        maximumFrameBytes: Int
    ) async throws -> End {
        let outbox = node.state.measurements
        var wakeups = wake.makeAsyncIterator()
        var retry = 0
        while !Task.isCancelled {
            guard let batch = try await outbox.oldest(maximumSamples: MeasurementBatch.maximumSamples, maximumBytes: maximumFrameBytes / 2)
            else {
                guard await wakeups.next() != nil else { break }
                continue
            }
            let id = UUID().uuidString.lowercased()
            node.replies.expect(id)
            try session.send(.measurementBatch(id: id, sources: batch.sources, samples: batch.samples))
            guard let answer = await node.replies.wait(id, timeout: configuration.replyTimeout, clock: configuration.clock) else {
                return await replyTimedOut(id, outbound)
            }
            let result: MeasurementBatchResult
            switch answer {
            case .measurements(let receipt):
                result = receipt
            case .refused(let refusal):
                // The batch itself can never succeed: each of its samples is refused with it.
                let refused = batch.samples.map { RefusedMeasurement(id: $0.id, reason: "\(refusal.code): \(refusal.message)") }
                result = MeasurementBatchResult(batchID: id, stored: 0, duplicates: 0, refused: refused)
            case .retryLater(let message):
                retry += 1
                try await waitToRetry("measurements", id: id, because: message, attempt: retry)
                continue
            case .reply, .history:
                throw ProtocolError(.protocolViolation, "measurement batch \(id) was answered with another message's reply")
            }
            retry = 0
            node.metrics.measurementsWaiting.record(try await outbox.remove(through: batch.lastSequence))
            node.eventSink.yield(.measurements(result))
        }
        return End(reason: "stopped", wasEstablished: true)
    }
}
