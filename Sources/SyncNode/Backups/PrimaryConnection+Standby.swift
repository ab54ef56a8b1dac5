import CareBackup
import CarePlan
import Foundation
import Logging
import NIOCore
import SyncProtocol

extension PrimaryConnection {
    /// What a household device with a standby copy sends about it.
    enum StandbyMessage: Sendable {
        case held(StandbyHeld)
        case applied(revision: Int, sha256: [UInt8])
    }

    /// Keeps this household device's standby copy up to date (protocol section 23): waits for
    /// what it holds, then sends a step whenever the store's image differs from it, one step at
    /// a time, the next only once the device says the last is on its disk.
    func sendStandby(
        to peer: Peer, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, messages: AsyncStream<StandbyMessage>, logger: Logger
    ) async throws {
        let source = node.standby
        var changed = source.changes().makeAsyncIterator()
        var messages = messages.makeAsyncIterator()
        guard case .held(var held)? = await messages.next() else {
            throw ProtocolError(.protocolViolation, "a standby device must say what it holds (standby_held) first")
        }
        // The generation of the image last sent on this connection.
        var sent: Int?
        while !Task.isCancelled {
            let (image, generation) = try await source.image()
            let identity = try source.identity()
            // A copy filled for the first time is not behind anything; one returning says its revision.
            let committedAt = held.sha256.isEmpty ? nil
                : sent.map { source.oldestChange(after: $0, through: generation) } ?? source.oldestCommit(after: held.revision, through: image.revision)
            if let step = image.step(from: held, identity: identity, committedAt: committedAt) {
                for piece in step.pieces(maximumFrameBytes: node.configuration.maximumFrameBytes) { try await outbound.send(piece) }
                guard case .applied(let revision, let sha256)? = await messages.next() else {
                    throw ProtocolError(.protocolViolation, "a standby device sent standby_held again, or nothing, instead of standby_applied")
                }
                guard revision == step.revision, sha256 == step.sha256 else {
                    throw ProtocolError(.protocolViolation, "standby_applied names revision \(revision), not the step's \(step.revision) and its digest")
                }
                let lag = committedAt.map { max(0, Date().timeIntervalSince($0)) }
                if let lag { node.metrics.standbyLag.recordSeconds(lag) }
                node.metrics.standbyRevision.record(step.revision)
                logger.debug("the standby copy took a step", metadata: [
                    "revision": "\(step.revision)", "pages": "\(step.pages.count)", "lag": "\(lag.map { "\($0)" } ?? "unknown")",
                ])
                held = StandbyHeld(revision: image.revision, pageSize: image.pageSize, pageDigests: image.pageDigests, sha256: image.sha256,
                                   identityDigest: identity?.digest ?? held.identityDigest)
                sent = generation
                continue
            }
            guard await changed.next() != nil else { return }
        }
    }
}
