import CareBackup
import CarePlan
import CarePlanStore
import Foundation
import Logging
import NIOCore
import NodeIdentity
import RelayProtocol
import Synchronization
import SyncProtocol

/// One companion's connection to the primary: handshake (or pairing), then completions
/// in and contexts out, until either side closes.
///
/// An edge of SyncNode, where frames are read and written: the primary's per-connection
/// dispatch of frames. Each message is read into domain values here (by the mappings of
/// module SyncProtocol), handed to the node, and its answer written back as a message; the
/// node itself speaks domain values only.
struct PrimaryConnection {
    /// Who is on the other end: the paired device its certificate names.
    struct Peer {
        /// The device's fingerprint.
        var nodeID: String
        var role: DeviceRole
        var name: String
        var mayRecord: Bool
        /// Whether it applies ContextDeltas (it offered `context-delta`).
        var contextDeltas = false
        /// The context it holds from an earlier connection, as its Hello named it.
        var held: HeldContext?
        /// Whether it receives shared reports: a household device that offered `report`.
        var reports = false
        /// Whether it sends measurements: a device that may record and offered `measurements`.
        var measurements = false
        /// Whether it receives dose alerts: a household device that offered `alerts`, where
        /// the primary raises them; and the last alert it has handled.
        var alerts = false
        var alertsAfter = 0
        /// Whether it keeps a standby copy: a household device paired with `--standby` that
        /// offered `standby`.
        var standby = false
        /// Whether it is told how backups stand: a household device that offered
        /// `backup-status`, where the primary makes backups.
        var backupStatus = false

        /// The features of its Hello this primary uses on the connection.
        var features: [String] {
            (contextDeltas ? [ProtocolFeature.contextDelta] : []) + (reports ? [ProtocolFeature.report] : [])
                + (measurements ? [ProtocolFeature.measurements] : []) + (alerts ? [ProtocolFeature.alerts] : [])
                + (standby ? [ProtocolFeature.standby] : []) + (backupStatus ? [ProtocolFeature.backupStatus] : [])
        }
    }

    /// Set when the companion asks for a whole context (ContextRequest).
    final class ContextRequested: Sendable {
        private let flag = Atomic<Bool>(false)
        func set() { flag.store(true, ordering: .relaxed) }
        /// Whether it was set, clearing it.
        func take() -> Bool { flag.exchange(false, ordering: .relaxed) }
    }

    let node: PrimaryNode
    let channel: FramedChannel
    /// The certificate the peer presented in the TLS handshake (`nil` without TLS).
    let certificate: PeerCertificate?
    /// Hands this task the frames that are not completions, one at a time.
    let intake: CompletionIntake.Control
    /// The relay the connection came through, if it did.
    let relay: RelayAddress?

    init(node: PrimaryNode, connection: AcceptedConnection) {
        self.node = node
        channel = connection.framed
        certificate = connection.peer
        intake = connection.intake
        relay = connection.relay
    }

    /// What a revoked device hears before its connection closes.
    static let revoked = ProtocolError(.notPaired, "this device was revoked on the primary")

    /// Serves the connection until it ends. Every way out closes it after the last frame
    /// (``ChannelOutboundInvoker/closeAfterWrites()``): a refusal is read before the close,
    /// and the socket goes as soon as the peer closes too.
    func serve() async {
        var logger = node.logger
        let remote = channel.channel.remoteAddress
        logger[metadataKey: "remote"] = "\(remote?.ipAddress ?? "?"):\(remote?.port ?? 0)"
        if let relay { logger[metadataKey: "relay"] = "\(relay.host):\(relay.port)" }
        do {
            try await channel.executeThenClose { [logger] inbound, outbound in
                await serve(inbound, outbound, logger: logger)
            }
        } catch {
            logger.debug("the connection could not be closed cleanly", metadata: ["error": "\(error)"])
        }
    }

    private func serve(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        logger: Logger
    ) async {
        var logger = logger
        defer { channel.channel.closeAfterWrites() }
        var frames = inbound.makeAsyncIterator()
        do {
            guard let peer = try await handshake(&frames, outbound) else {
                logger.debug("connection ended without a Hello (a pairing, or a probe)")
                return
            }
            logger[metadataKey: "peer"] = "\(peer.nodeID.prefix(16))"
            let connected = logger
            connected.info("companion connected", metadata: ["role": "\(peer.role.rawValue)", "name": "\(peer.name)"])
            defer { connected.info("companion disconnected") }
            // Envelopes from outside this connection (a revocation, a reminder, Goodbye) go
            // straight into the channel: the outbound writer would wait while a peer that
            // stopped reading has full buffers, and so hold up the revocation that follows
            // the change log (every companion's contexts), the reminders of every watch, or
            // the shutdown, until the idle deadline closed the stalled peer.
            let close: ConnectionRegistry.Close = { [channel] envelope in channel.channel.writeUnwaited(envelope, thenClose: true) }
            let send: ConnectionRegistry.Send = { [channel] envelope in channel.channel.writeUnwaited(envelope, thenClose: false) }
            // A connection made while the primary shuts down is told so at once.
            let (reportsWaiting, reportsNudge) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            let (alertsWaiting, alertsNudge) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            reportsNudge.yield()
            alertsNudge.yield()
            guard let registration = node.connections.register(
                device: peer.nodeID, role: peer.role, send: send, close: close,
                wake: { _ = ($0 == .reports ? reportsNudge : alertsNudge).yield() })
            else {
                await outbound.sendLast(.goodbye(.shutdown, detail: "primary stopping"), logger: logger)
                return
            }
            node.lastSeen.note(peer.nodeID, at: node.configuration.clock.now)
            defer { node.lastSeen.note(peer.nodeID, at: node.configuration.clock.now) }
            defer { node.connections.remove(registration) }
            try await exchange(
                &frames, with: peer, outbound, reportsWaiting: reportsWaiting, alertsWaiting: alertsWaiting, close: close, logger: connected)
        } catch let error as ProtocolError {
            node.metrics.closedWithError(error)
            logger.notice("closing the connection with an Error", metadata: ["code": "\(error.code)", "reason": "\(error.message)"])
            await outbound.sendLast(error.envelope(), logger: logger)
        } catch let error as CarePlanStoreError where !Task.isCancelled {
            logger.error("closing the connection: the store failed", metadata: ["error": "\(error)"])
            await outbound.sendLast(ProtocolError(.internal, "the primary failed: \(error)").envelope(), logger: logger)
        } catch {
            // The transport failed (a reset, a failed TLS handshake), or the task was
            // cancelled: nothing can be answered.
            logger.debug("the connection failed", metadata: ["error": "\(error)"])
        }
    }

    /// Contexts (and shared reports) out and requests in, side by side, until either ends
    /// the connection.
    private func exchange(
        _ frames: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, with peer: Peer,
        _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, reportsWaiting: AsyncStream<Void>, alertsWaiting: AsyncStream<Void>,
        close: @escaping ConnectionRegistry.Close, logger: Logger
    ) async throws {
        // Revoked between the handshake's check and the registration: cut it now.
        guard try await node.devices.device(peer.nodeID)?.isRevoked == false else { throw Self.revoked }
        let publisher = node.publisher
        let (subscription, updates) = publisher.subscribe()
        defer { publisher.unsubscribe(subscription) }
        let requested = ContextRequested()
        let (standbyMessages, standbyInbox) = AsyncStream<StandbyMessage>.makeStream()
        defer { standbyInbox.finish() }
        // Contexts and reports stop only when the connection cannot carry them, or when the
        // connection ends (cancelled). A failure closes the connection, so the companion
        // reconnects rather than wait for what never comes.
        let closing: @Sendable (String, any Error) async -> Void = { what, error in
            guard !Task.isCancelled else { return }
            logger.warning("closing the connection: no \(what) can be sent", metadata: ["error": "\(error)"])
            await close(((error as? ProtocolError) ?? ProtocolError(.internal, "no \(what): \(error)")).envelope())
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do { try await sendContexts(to: peer, outbound, on: updates, requested: requested) } catch { await closing("context", error) }
            }
            if peer.reports {
                group.addTask {
                    do { try await sendReports(to: peer, outbound, on: reportsWaiting) } catch { await closing("report", error) }
                }
            }
            if peer.alerts {
                group.addTask {
                    do { try await sendAlerts(to: peer, outbound, on: alertsWaiting) } catch { await closing("alert", error) }
                }
            }
            if peer.backupStatus, let health = node.configuration.backupHealth {
                group.addTask {
                    do {
                        for await status in health.updates() { try await outbound.send(.backupStatus(status)) }
                    } catch { await closing("backup status", error) }
                }
            }
            if peer.standby {
                group.addTask {
                    do { try await sendStandby(to: peer, outbound, messages: standbyMessages, logger: logger) } catch { await closing("standby step", error) }
                }
            }
            defer { group.cancelAll() }
            // Completions are answered on the event loop from now on, the rest here.
            intake.proceed(judging: CompletionJudge(node: node, peer: peer, logger: logger))
            try await receive(&frames, from: peer, outbound, logger: logger, standby: { standbyInbox.yield($0) }) {
                requested.set()
                publisher.nudge(subscription)
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
            // Pairing is in person, on the home network: through a relay, the short code
            // could be guessed at from anywhere.
            guard relay == nil else {
                throw ProtocolError(.notPermitted, "pairing is not possible through a relay: pair on the home network")
            }
            let fingerprint = try certificate?.value ?? Self.fingerprintWithoutTLS()
            try await outbound.send(.pairAccept(try await node.pair(try PairRequest(wire: request), from: fingerprint)))
            return nil
        case .hello(let hello):
            let version = try ProtocolVersion.negotiate(offered: hello.protocolVersions)
            let peer = try await admit(hello)
            try await outbound.send(try await helloAck(hello, version: version, features: peer.features))
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
        guard let device = try await node.devices.device(fingerprint) else {
            throw ProtocolError(.notPaired, "this device (\(NodeIdentity.display(fingerprint))) is not paired with this primary: "
                + "make a code with `caresync pair --role ROLE` and give it to the device's `pair CODE`")
        }
        guard !device.isRevoked else { throw Self.revoked }
        guard hello.role == device.role.wire else {
            throw ProtocolError(.notPermitted, "this device was paired as a \(device.role.rawValue), not as \(hello.role)")
        }
        var peer = Peer(nodeID: fingerprint, role: device.role, name: device.name, mayRecord: device.mayRecord)
        peer.contextDeltas = hello.features.contains(ProtocolFeature.contextDelta)
        peer.reports = device.role == .household && hello.features.contains(ProtocolFeature.report)
        peer.measurements = device.mayRecord && hello.features.contains(ProtocolFeature.measurements)
        peer.alerts = device.role == .household && node.alerts != nil && hello.features.contains(ProtocolFeature.alerts)
        peer.alertsAfter = Int(clamping: hello.alertsAfter)
        peer.standby = device.role == .household && device.standby && hello.features.contains(ProtocolFeature.standby)
        peer.backupStatus = device.role == .household && node.configuration.backupHealth != nil
            && hello.features.contains(ProtocolFeature.backupStatus)
        if peer.contextDeltas, hello.hasHeldContext { peer.held = try HeldContext(wire: hello.heldContext) }
        return peer
    }

    private func helloAck(_ hello: Caresync_V1_Hello, version: UInt32, features: [String]) async throws -> Caresync_V1_Envelope {
        let info = try await node.store.plan.info()
        guard hello.planID.isEmpty || hello.planID == info.planID else {
            throw ProtocolError(.planMismatch, "this primary serves plan \(info.planID), not \(hello.planID)")
        }
        let configuration = node.configuration
        return .helloAck(
            version: version, nodeID: configuration.nodeID, softwareVersion: configuration.softwareVersion,
            planID: info.planID, displayName: configuration.name,
            features: features, pingInterval: configuration.pingInterval,
            idleTimeout: configuration.idleTimeout, maximumFrameBytes: configuration.maximumFrameBytes,
            relays: node.relays?.routes ?? [])
    }

    /// Without TLS there is no certificate to pair: refused.
    private static func fingerprintWithoutTLS() throws -> String {
        throw ProtocolError(.notPermitted, "pairing needs TLS: this primary runs without it")
    }

    /// Handles the companion's messages in order; returns when it says Goodbye or closes.
    private func receive(
        _ frames: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, from peer: Peer,
        _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, logger: Logger, standby: (StandbyMessage) -> Void,
        contextRequested: () -> Void
    ) async throws {
        while let envelope = try await frames.nextEnvelope() {
            // Answered (or under way, for a context request): the intake may hand on the next.
            defer { intake.proceed() }
            switch envelope.body {
            case .completion:
                // The intake, armed before the first frame after Hello came here, answers them.
                throw ProtocolError(.internal, "a completion reached the connection's task")
            case .ping(let ping):
                try await outbound.send(.pong(nonce: ping.nonce))
            case .pong:
                continue
            case .snoozeReminder(let snooze):
                if let refusal = await node.snooze(SnoozeRequest(wire: snooze), from: peer) { try await outbound.send(refusal.envelope()) }
            case .historyRequest(let wire):
                let request = HistoryRequest(wire: wire)
                switch await node.history(request, for: peer) {
                case .success(let page): try await outbound.send(.history(page, answering: request.requestID))
                case .failure(let error): try await outbound.send(error.envelope(inReplyTo: request.requestID))
                }
            case .contextRequest:
                contextRequested()
            case .reportReceived(let received) where peer.reports:
                await node.reportReceived(Int(clamping: received.reportRevision), by: peer, logger: logger)
            case .measurementBatch(let batch) where peer.measurements:
                try await outbound.send(await answer(batch, from: peer, logger: logger))
            case .standbyHeld(let held) where peer.standby:
                standby(.held(try StandbyHeld(wire: held)))
            case .standbyApplied(let applied) where peer.standby:
                standby(.applied(revision: Int(clamping: applied.revision), sha256: Array(applied.imageSha256)))
            case .goodbye:
                return
            case .error(let error):
                if error.fatal { return }
            case nil:
                try await outbound.send(ProtocolError(.unknownMessage, "a message this primary does not know", fatal: false).envelope())
            case .reportReceived:
                throw ProtocolError.unexpected(envelope, "without the report feature")
            case .measurementBatch:
                throw ProtocolError.unexpected(envelope, "without the measurements feature")
            case .standbyHeld, .standbyApplied:
                throw ProtocolError.unexpected(envelope, "without the standby feature")
            case .hello, .helloAck, .applicationContext, .contextDelta, .completionReply, .reminder, .pairRequest, .pairAccept,
                 .historyPage, .reportChunk, .measurementReceipt, .doseAlerts, .standbyPages, .backupStatus:
                throw ProtocolError.unexpected(envelope, "from a companion")
            }
        }
    }

    /// The answer to a MeasurementBatch: the receipt once its samples are committed, or the
    /// non-fatal Error that refuses it.
    private func answer(_ batch: Caresync_V1_MeasurementBatch, from peer: Peer, logger: Logger) async -> Caresync_V1_Envelope {
        let read: MeasurementBatch
        do {
            read = try MeasurementBatch(wire: batch)
        } catch {
            return error.envelope(inReplyTo: batch.batchID)
        }
        switch await node.record(read, from: peer, logger: logger) {
        case .success(let result): return .measurementReceipt(result)
        case .failure(let error): return error.envelope(inReplyTo: read.id)
        }
    }

    /// Sends the newest context whenever there may be a newer one; while the companion
    /// is slow to read, updates coalesce into one. A companion that applies deltas gets a
    /// ContextDelta from the context it holds when it can (protocol section 10).
    private func sendContexts(
        to peer: Peer, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, on updates: AsyncStream<Void>,
        requested: ContextRequested
    ) async throws {
        let (publisher, metrics) = (node.publisher, node.metrics)
        var held = peer.held
        var sent: Int?
        for await _ in updates {
            let variant = try await publisher.variant(for: peer.role)
            let built = try await publisher.frame(variant, holding: requested.take() ? nil : held)
            let payload = built.frame.readableBytes - 4
            guard payload <= node.configuration.maximumFrameBytes else {
                throw ProtocolError.frameTooLarge(announced: payload, limit: node.configuration.maximumFrameBytes)
            }
            try await outbound.write(built.frame)
            metrics.contextsSent[built.isDelta]?.increment()
            metrics.contextBytes[built.isDelta]?.record(payload)
            // The first context of a connection is its snapshot, not a fan-out.
            if let sent, let oldest = publisher.oldestCommit(after: sent, through: built.generation) {
                metrics.fanOutTime.record(max(0, Date().timeIntervalSince(oldest)))
            }
            sent = built.generation
            if peer.contextDeltas { held = built.held }
        }
    }

    /// Sends the reports shared with this household device that it has not acknowledged,
    /// oldest first, each in chunks under the frame limit; again whenever a new one is shared
    /// (protocol section 20). One sent is not sent again on this connection.
    private func sendReports(to peer: Peer, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, on waiting: AsyncStream<Void>) async throws {
        var sent = Set<Int>()
        for await _ in waiting {
            for delivery in try await node.store.shares.pending(for: peer.nodeID) where !sent.contains(delivery.revision) {
                let report = SharedReport(
                    revision: delivery.revision, fileName: delivery.fileName, mediaType: delivery.mediaType, days: delivery.days,
                    content: delivery.content)
                for chunk in report.chunks(maximumFrameBytes: node.configuration.maximumFrameBytes) { try await outbound.send(chunk) }
                sent.insert(delivery.revision)
            }
        }
    }

    /// Sends this household device the dose alerts after the last it has handled (from the
    /// last day, newest first, at most ``alertBacklog``), then each raised while it is
    /// connected (protocol section 22).
    private func sendAlerts(to peer: Peer, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, on waiting: AsyncStream<Void>) async throws {
        var after = peer.alertsAfter
        for await _ in waiting {
            let since = node.configuration.clock.now.addingTimeInterval(-Self.alertBacklogAge)
            let alerts = try await node.store.reminders.alerts(after: after, raisedSince: since, limit: Self.alertBacklog)
            guard let newest = alerts.first else { continue }
            try await outbound.send(.doseAlerts(alerts))
            after = newest.sequence
        }
    }

    /// The most alerts sent at once, and how old an alert may be, when a device returns.
    static let alertBacklog = 20
    static let alertBacklogAge: TimeInterval = 86_400
}
