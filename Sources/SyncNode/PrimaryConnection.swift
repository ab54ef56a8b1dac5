import CarePlan
import CarePlanStore
import Foundation
import NIOCore
import NodeIdentity
import SyncProtocol

/// One companion's connection to the primary: handshake (or pairing), then completions
/// in and contexts out, until either side closes.
struct PrimaryConnection {
    /// Who is on the other end: the paired device its certificate names.
    struct Peer {
        /// The device's fingerprint.
        var nodeID: String
        var role: Caresync_V1_Role
        var name: String
        var mayRecord: Bool
    }

    let node: PrimaryNode
    let channel: FramedChannel
    /// The certificate the peer presented in the TLS handshake (`nil` without TLS).
    let certificate: PeerCertificate?

    /// What a revoked device hears before its connection closes.
    static let revoked = ProtocolError(.notPaired, "this device was revoked on the primary")

    /// Serves the connection until it ends. Every way out closes it after the last frame
    /// (``ChannelOutboundInvoker/closeAfterWrites()``): a refusal is read before the close,
    /// and the socket goes as soon as the peer closes too.
    func serve() async {
        try? await channel.executeThenClose { inbound, outbound in
            defer { channel.channel.closeAfterWrites() }
            var frames = inbound.makeAsyncIterator()
            do {
                guard let peer = try await handshake(&frames, outbound) else { return }
                // Envelopes from outside this connection (a revocation, a reminder, Goodbye) go
                // straight into the channel: the outbound writer would wait while a peer that
                // stopped reading has full buffers, and so hold up the revocation that follows
                // the change log (every companion's contexts), the reminders of every watch, or
                // the shutdown, until the idle deadline closed the stalled peer.
                let close: ConnectionRegistry.Close = { [channel] envelope in channel.channel.writeUnwaited(envelope, thenClose: true) }
                let send: ConnectionRegistry.Send = { [channel] envelope in channel.channel.writeUnwaited(envelope, thenClose: false) }
                // A connection made while the primary shuts down is told so at once.
                guard let registration = node.connections.register(device: peer.nodeID, role: peer.role, send: send, close: close)
                else {
                    try? await outbound.send(.with { $0.goodbye = .with { $0.reason = .shutdown; $0.detail = "primary stopping" } })
                    return
                }
                try? node.store.recordSeen(peer.nodeID)
                defer {
                    node.connections.remove(registration)
                    try? node.store.recordSeen(peer.nodeID)
                }
                // Revoked between the handshake's check and the registration: cut it now.
                guard try node.store.device(peer.nodeID)?.isRevoked == false else { throw Self.revoked }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask {
                        // Contexts stop only when the connection cannot carry them, or when
                        // the connection ends (cancelled). A failure closes the connection,
                        // so the companion reconnects rather than wait for contexts that never come.
                        do {
                            try await sendContexts(to: peer, outbound)
                        } catch {
                            guard !Task.isCancelled else { return }
                            await close(((error as? ProtocolError) ?? ProtocolError(.internal, "no context: \(error)")).envelope())
                        }
                    }
                    defer { group.cancelAll() }
                    try await receive(&frames, from: peer, outbound)
                }
            } catch let error as ProtocolError {
                try? await outbound.send(error.envelope())
            } catch let error as CarePlanStoreError {
                try? await outbound.send(ProtocolError(.internal, "the primary failed: \(error)").envelope())
            } catch {
                // The transport failed (a reset, a failed TLS handshake), or the task was
                // cancelled: nothing can be answered.
            }
        }
    }

    /// The Hello and HelloAck; `nil` after a pairing (which ends the connection), or when
    /// the peer closes before its first frame (a pairing probe, say): a silent close.
    private func handshake(
        _ frames: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws -> Peer? {
        guard let first = try await frames.nextEnvelope() else { return nil }
        switch first.body {
        case .pairRequest(let request):
            let fingerprint = try certificate?.value ?? Self.fingerprintWithoutTLS()
            try await outbound.send(try await node.pair(request, from: fingerprint))
            return nil
        case .hello(let hello):
            let version = try ProtocolVersion.negotiate(offered: hello.protocolVersions)
            let peer = try await admit(hello)
            try await outbound.send(try helloAck(hello, version: version))
            return peer
        default:
            throw ProtocolError.unexpected(first, "before Hello")
        }
    }

    /// The paired device this Hello comes from, or the reason it may not connect.
    private func admit(_ hello: Caresync_V1_Hello) async throws -> Peer {
        let fingerprint = certificate?.value ?? hello.nodeID
        guard hello.nodeID == fingerprint else {
            throw ProtocolError(.protocolViolation, "the Hello names node \(hello.nodeID), but the certificate is \(fingerprint)")
        }
        guard let device = try node.store.device(fingerprint) else {
            throw ProtocolError(.notPaired, "this device (\(NodeIdentity.display(fingerprint))) is not paired with this primary: "
                + "make a code with `caresync pair --role ROLE` and give it to the device's `pair CODE`")
        }
        guard !device.isRevoked else { throw Self.revoked }
        guard hello.role == device.role.wire else {
            throw ProtocolError(.notPermitted, "this device was paired as a \(device.role.rawValue), not as \(hello.role)")
        }
        return Peer(nodeID: fingerprint, role: device.role.wire, name: device.name, mayRecord: device.mayRecord)
    }

    private func helloAck(_ hello: Caresync_V1_Hello, version: UInt32) throws -> Caresync_V1_Envelope {
        let info = try node.store.planInfo()
        guard hello.planID.isEmpty || hello.planID == info.planID else {
            throw ProtocolError(.planMismatch, "this primary serves plan \(info.planID), not \(hello.planID)")
        }
        let configuration = node.configuration
        return .with {
            $0.helloAck = .with {
                $0.protocolVersion = version
                $0.nodeID = configuration.nodeID
                $0.role = .primary
                $0.softwareVersion = configuration.softwareVersion
                $0.planID = info.planID
                $0.displayName = configuration.name
                $0.pingIntervalMs = UInt32(configuration.pingInterval.nanoseconds / 1_000_000)
                $0.idleTimeoutMs = UInt32(configuration.idleTimeout.nanoseconds / 1_000_000)
                $0.maxFrameBytes = UInt32(configuration.maximumFrameBytes)
            }
        }
    }

    /// Without TLS there is no certificate to pair: refused.
    private static func fingerprintWithoutTLS() throws -> String {
        throw ProtocolError(.notPermitted, "pairing needs TLS: this primary runs without it")
    }

    /// Handles the companion's messages in order; returns when it says Goodbye or closes.
    private func receive(
        _ frames: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, from peer: Peer,
        _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws {
        while let envelope = try await frames.nextEnvelope() {
            switch envelope.body {
            case .completion(let completion):
                try await outbound.send(await judge(completion, from: peer))
            case .ping(let ping):
                try await outbound.send(.with { $0.pong = .with { $0.nonce = ping.nonce } })
            case .pong:
                continue
            case .snoozeReminder(let snooze):
                if let refusal = await node.snooze(snooze, from: peer) { try await outbound.send(refusal) }
            case .historyRequest(let request):
                try await outbound.send(await node.history(request, for: peer))
            case .goodbye:
                return
            case .error(let error):
                if error.fatal { return }
            case nil:
                try await outbound.send(ProtocolError(.unknownMessage, "a message this primary does not know", fatal: false).envelope())
            case .hello, .helloAck, .applicationContext, .completionReply, .reminder, .pairRequest, .pairAccept, .historyPage:
                throw ProtocolError.unexpected(envelope, "from a companion")
            }
        }
    }

    /// The reply to a completion, sent only after the store has committed it.
    private func judge(_ completion: Caresync_V1_Completion, from peer: Peer) async -> Caresync_V1_Envelope {
        var reply = Caresync_V1_CompletionReply.with { $0.messageID = completion.messageID }
        guard peer.mayRecord else {
            reply.status = .rejected
            reply.reason = .notPermitted
            reply.detail = "this household device was not granted recording at pairing"
            return .with { $0.completionReply = reply }
        }
        do {
            guard !completion.messageID.isEmpty else { throw ProtocolError.malformed("a completion without a message id") }
            var outcome = try completion.outcome(device: peer.nodeID)
            // The primary's clock orders a completion that brings none by its arrival.
            outcome.clock = outcome.clock.map(node.clock.observe) ?? node.clock.tick(now: node.configuration.now())
            let receipt = try await node.store.applyCompletion(
                messageID: completion.messageID, key: completion.eventKey(), outcome: outcome)
            reply.status = receipt.status == .accepted ? .accepted : .rejected
            reply.revision = UInt64(receipt.revision ?? 0)
            reply.superseded = receipt.superseded
            reply.currentState = receipt.currentState.wire
            reply.reason = receipt.rejection.map(Self.wireReason) ?? .unspecified
            reply.detail = receipt.detail ?? ""
            return .with { $0.completionReply = reply }
        } catch let error as ProtocolError {
            var refusal = error
            refusal.isFatal = false
            return refusal.envelope(inReplyTo: completion.messageID)
        } catch {
            return ProtocolError(.internal, "the store could not record it: \(error)", fatal: false)
                .envelope(inReplyTo: completion.messageID)
        }
    }

    /// Sends the newest context whenever there may be a newer one; while the companion
    /// is slow to read, updates coalesce into one.
    private func sendContexts(to peer: Peer, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws {
        let (id, updates) = node.publisher.subscribe()
        defer { node.publisher.unsubscribe(id) }
        for await _ in updates {
            let frame = try await node.publisher.frame(node.publisher.variant(for: peer.role))
            guard frame.readableBytes - 4 <= node.configuration.maximumFrameBytes else {
                throw ProtocolError.frameTooLarge(announced: frame.readableBytes - 4, limit: node.configuration.maximumFrameBytes)
            }
            try await outbound.write(frame)
        }
    }

    private static func wireReason(_ rejection: CompletionReceipt.Rejection) -> Caresync_V1_RejectReason {
        switch rejection {
        case .unknownActivity: .unknownActivity
        case .noSuchOccurrence: .noSuchOccurrence
        case .outsidePlanVersion: .outsidePlanVersion
        case .invalidResult: .invalidResult
        case .notPermitted: .notPermitted
        }
    }
}
