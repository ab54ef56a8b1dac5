import CareBackup
import CarePlan
import Foundation
import Logging
import NIOCore
import NIOPosix
import RelayProtocol
import Synchronization
import SyncProtocol

/// One connection of a companion to its primary, from connect to close.
///
/// An edge of SyncNode, where frames are read and written: the companion's session reads
/// each message into domain values (by the mappings of module SyncProtocol) for the node, and
/// writes what the node sends (through ``CompanionNode/SessionHandle``, its one writer).
struct CompanionSession: Sendable {
    /// The first reason a session ended.
    final class FirstEnd: Sendable {
        let value = Mutex<End?>(nil)
    }

    struct End: Sendable {
        var reason: String
        /// Whether the handshake succeeded (a later failure starts backoff afresh).
        var wasEstablished: Bool
        /// Whether the primary refused the companion for good.
        var isFinal = false
        /// Whether no way reached the primary (not a refusal, not a session that failed).
        var foundNoWay = false
    }

    /// The primary's Error in answer to the Hello.
    struct Refusal: Error {
        var code: Caresync_V1_ErrorCode
        var message: String
    }

    /// Handshake refusals that retrying cannot fix.
    static let finalRefusals: Set<Caresync_V1_ErrorCode> = [.versionMismatch, .planMismatch, .notPermitted, .notPaired]

    let node: CompanionNode

    var configuration: CompanionConfiguration { node.configuration }

    func run() async -> End {
        let pinned = node.knownPrimaryID
        let connection: CompanionConnection, way: ConnectionWay
        do {
            (connection, way) = try await node.reachPrimary(pinned: pinned)
        } catch {
            return End(reason: "\(error)", wasEstablished: false, foundNoWay: true)
        }
        let channel = connection.channel
        var established = false
        do {
            return try await channel.executeThenClose { inbound, outbound in
                var frames = inbound.makeAsyncIterator()
                let ack: Caresync_V1_HelloAck
                do {
                    ack = try await handshake(&frames, outbound)
                } catch let error as ProtocolError where error.code == .protocolViolation || error.code == .malformedFrame {
                    await outbound.sendLast(error.envelope(), logger: configuration.logger)
                    throw error
                }
                established = true
                let accepted = Set(ack.features).intersection(offeredFeatures)
                let (wake, wakeSender) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                let (measurementsWake, wakeMeasurements) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
                // Everything the session sends goes through one writer, in the order it was queued.
                let (outgoing, post) = AsyncStream<Caresync_V1_Envelope>.makeStream()
                defer { post.finish() }
                let handle = CompanionNode.SessionHandle(
                    wakeSender: wakeSender, wakeMeasurements: wakeMeasurements, outgoing: post, channel: channel.channel)
                node.session.withLock { $0 = handle }
                connection.replies.arm { [node] reply in node.received(reply) }
                node.metrics.connected.record(1)
                defer {
                    node.session.withLock { $0 = nil }
                    node.metrics.connected.record(0)
                    // No answer comes on this connection now: whoever waits for one hears "queued".
                    for entry in node.state.pending where entry.isAwaited { entry.connectionEnded() }
                }
                if node.isStopped { return End(reason: "stopped", wasEstablished: true) }
                if accepted.contains(ProtocolFeature.standby), let copy = configuration.standby { try handle.send(.standbyHeld(copy.held)) }
                node.eventSink.yield(.connected(primaryID: ack.nodeID, primaryName: ack.displayName, way: way))
                node.away.reached()
                await node.heard()
                let ping = Duration.milliseconds(Int64(max(ack.pingIntervalMs, 100)))
                // The sender and the pinger run beside the receiver; whichever ends first
                // ends the connection, and its reason is the session's.
                let firstEnd = FirstEnd()
                let underlying = channel.channel
                let finish: @Sendable (End) -> Void = { end in
                    firstEnd.value.withLock { $0 = $0 ?? end }
                    underlying.close(promise: nil)
                }
                return try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { finish(await lost { try await write(outgoing, to: outbound) }) }
                    group.addTask { finish(await lost { try await sendOutbox(handle, outbound, wake: wake) }) }
                    group.addTask { finish(await lost { try await keepAlive(handle, every: ping) }) }
                    if accepted.contains(ProtocolFeature.measurements) {
                        let limit = ack.maxFrameBytes == 0 ? Frame.defaultMaximumBytes : Int(ack.maxFrameBytes)
                        group.addTask {
                            finish(await lost { try await sendMeasurements(handle, outbound, wake: measurementsWake, maximumFrameBytes: limit) })
                        }
                    } else if node.measurementsWaiting > 0 {
                        configuration.logger.notice("the primary takes no measurements from this device; they wait", metadata: [
                            "waiting": "\(node.measurementsWaiting)",
                        ])
                    }
                    defer { group.cancelAll() }
                    do {
                        finish(try await receive(&frames, handle, features: accepted))
                    } catch let error as ProtocolError {
                        await outbound.sendLast(error.envelope(), logger: configuration.logger)
                        throw error
                    }
                    return firstEnd.value.withLock { $0! }
                }
            }
        } catch let refusal as Refusal {
            node.eventSink.yield(.error(code: refusal.code.description, message: refusal.message))
            return End(reason: refusal.message, wasEstablished: false, isFinal: Self.finalRefusals.contains(refusal.code))
        } catch let error as ProtocolError {
            node.eventSink.yield(.error(code: error.code.description, message: error.message))
            return End(reason: error.message, wasEstablished: established)
        } catch {
            // A primary presenting another certificate fails the TLS handshake: say who it was.
            if let impersonation = CompanionNode.impersonation(seen: connection.certificate?.value, pinned: pinned, at: way.place) {
                node.eventSink.yield(.error(code: impersonation.code.description, message: impersonation.message))
                return End(reason: impersonation.message, wasEstablished: false)
            }
            return End(reason: "connection lost: \(error)", wasEstablished: established)
        }
    }

    private func handshake(
        _ frames: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws -> Caresync_V1_HelloAck {
        let held = node.context
        try await outbound.send(.hello(
            nodeID: node.nodeID, role: configuration.role, softwareVersion: configuration.softwareVersion,
            planID: held?.planID, displayName: configuration.name,
            features: offeredFeatures, holding: configuration.contextDeltas ? held : nil, alertsAfter: node.state.alertsAfter))
        guard let answer = try await frames.nextEnvelope() else {
            throw ProtocolError(.notReachable, "the primary closed the connection during the handshake")
        }
        switch answer.body {
        case .helloAck(let ack):
            guard ProtocolVersion.supported.contains(ack.protocolVersion), ack.role == .primary else {
                throw ProtocolError(
                    .protocolViolation, "the HelloAck chose version \(ack.protocolVersion) and role \(ack.role); expected a primary speaking \(ProtocolVersion.supported)")
            }
            guard ack.nodeID == node.knownPrimaryID else {
                throw ProtocolError(.protocolViolation, "the HelloAck names primary \(ack.nodeID), not the paired one")
            }
            try await node.state.remember(relays: try RelayRoute.routes(wire: ack.relays))
            return ack
        case .error(let error): throw Refusal(code: error.code, message: error.message)
        default: throw ProtocolError.unexpected(answer, "instead of HelloAck")
        }
    }

    /// The optional features the Hello offers: `context-delta` unless configured off,
    /// `report` for a household device that has somewhere to keep reports, `measurements`,
    /// and `alerts` for a household device that asks for them.
    private var offeredFeatures: [String] {
        let household = configuration.role == .household
        return (configuration.contextDeltas ? [ProtocolFeature.contextDelta] : [])
            + (household && configuration.reportsDirectory != nil ? [ProtocolFeature.report] : [])
            + [ProtocolFeature.measurements]
            + (household && configuration.alerts ? [ProtocolFeature.alerts] : [])
            + (household && configuration.standby != nil ? [ProtocolFeature.standby] : [])
            + (household && configuration.alerts ? [ProtocolFeature.backupStatus] : [])
    }

    /// Contexts, replies and reminders from the primary, until it closes or says Goodbye;
    /// ContextDeltas and report chunks too with the `features` both offered.
    private func receive(
        _ frames: inout NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, _ session: CompanionNode.SessionHandle,
        features: Set<String>
    ) async throws -> End {
        var reports = ReportAssembly()
        var standby = StandbyAssembly()
        while let payload = try await frames.next() {
            let envelope = try Frame.decode(payload)
            switch envelope.body {
            case .applicationContext(let wire):
                try await adopt(try ApplicationContext(wire: wire), payload: Data(payload.readableBytesView))
            case .contextDelta(let wire) where features.contains(ProtocolFeature.contextDelta):
                let delta = try ContextDelta(wire: wire)
                guard let context = node.state.apply(delta, payload: Data(payload.readableBytesView)) else {
                    // Not the context this companion holds (it lost it, say): ask for a whole one.
                    configuration.logger.info("a context delta does not apply to the context held; asking for a whole one", metadata: [
                        "revision": "\(delta.revision)", "base": "\(delta.base.revision)",
                        "held": "\(node.context.map { "\($0.revision)" } ?? "none")",
                    ])
                    try session.send(.contextRequest)
                    continue
                }
                adopted(context, isDelta: true)
            case .completionReply(let reply):
                node.received(CompletionReply(wire: reply))
            case .historyPage(let page):
                let read: Result<HistoryPage, ProtocolError>
                do { read = .success(try HistoryPage(wire: page)) } catch { read = .failure(error) }
                node.replies.resolve(page.requestID, .history(read))
            case .measurementReceipt(let receipt) where features.contains(ProtocolFeature.measurements):
                node.replies.resolve(receipt.batchID, .measurements(MeasurementBatchResult(wire: receipt)))
            case .error(let error) where !error.inReplyTo.isEmpty:
                let answer: CompanionNode.Answer = error.code == .internal
                    ? .retryLater(error.message) : .refused(ProtocolError(error.code, error.message, fatal: false))
                node.replies.resolve(error.inReplyTo, answer)
            case .error(let error):
                node.eventSink.yield(.error(code: error.code.description, message: error.message))
                if error.fatal { return End(reason: error.message, wasEstablished: true) }
            case .reminder(let reminder):
                node.eventSink.yield(.reminder(try ReminderNotice(wire: reminder)))
            case .goodbye(let goodbye):
                return End(reason: "the primary said goodbye (\(goodbye.detail.isEmpty ? "\(goodbye.reason)" : goodbye.detail))", wasEstablished: true)
            case .pong, .ping, nil:
                continue
            case .reportChunk(let chunk) where features.contains(ProtocolFeature.report):
                if let report = try reports.add(chunk) {
                    node.eventSink.yield(.report(try node.keep(report)))
                    try session.send(.reportReceived(report.revision))
                }
            case .doseAlerts(let wire) where features.contains(ProtocolFeature.alerts):
                try await receive(try wire.alerts.map(DoseAlert.init(wire:)))
            case .standbyPages(let piece) where features.contains(ProtocolFeature.standby):
                if let step = try standby.add(piece) { try keep(step, session) }
            case .contextDelta:
                throw ProtocolError.unexpected(envelope, "without the context-delta feature")
            case .reportChunk:
                throw ProtocolError.unexpected(envelope, "without the report feature")
            case .measurementReceipt:
                throw ProtocolError.unexpected(envelope, "without the measurements feature")
            case .doseAlerts:
                throw ProtocolError.unexpected(envelope, "without the alerts feature")
            case .standbyPages:
                throw ProtocolError.unexpected(envelope, "without the standby feature")
            case .backupStatus(let wire) where features.contains(ProtocolFeature.backupStatus):
                node.eventSink.yield(.backupStatus(BackupHealth.Status(wire: wire)))
            case .backupStatus:
                throw ProtocolError.unexpected(envelope, "without the backup-status feature")
            case .hello, .helloAck, .completion, .snoozeReminder, .pairRequest, .pairAccept, .historyRequest, .contextRequest,
                 .reportReceived, .measurementBatch, .standbyHeld, .standbyApplied:
                throw ProtocolError.unexpected(envelope, "from the primary")
            }
        }
        return End(reason: "the primary closed the connection", wasEstablished: true)
    }

    /// Reports the alerts newer than the last handled, once that one is kept: each alert is
    /// reported once, even when a connection cut short makes the primary send it again.
    private func receive(_ alerts: [DoseAlert]) async throws {
        let handled = node.state.alertsAfter
        let fresh = alerts.filter { $0.sequence > handled }
        guard let newest = fresh.map(\.sequence).max() else { return }
        try await node.state.handledAlerts(through: newest)
        node.eventSink.yield(.alerts(fresh.sorted { $0.sequence > $1.sequence }))
    }

    /// Makes `context`, which arrived whole as `payload`, the one the companion holds.
    private func adopt(_ context: ApplicationContext, payload: Data) async throws {
        try await node.state.cache(context, frame: payload)
        adopted(context, isDelta: false)
    }

    /// The companion holds `context` now: its clock is observed, and it is reported.
    private func adopted(_ context: ApplicationContext, isDelta: Bool) {
        if let reading = context.clock { node.clock.observe(reading) }
        node.metrics.contextsReceived[isDelta]?.increment()
        node.eventSink.yield(.context(context))
    }

    /// Delivers the outbox in order, one completion at a time, each removed only once the
    /// primary has answered it. A reply that does not come ends the connection.
    private func sendOutbox(
        _ session: CompanionNode.SessionHandle, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, wake: AsyncStream<Void>
    ) async throws -> End {
        var wakeups = wake.makeAsyncIterator()
        var retry = 0
        while !Task.isCancelled {
            guard let entry = node.state.oldest else {
                guard await wakeups.next() != nil else { break }
                continue
            }
            // Nobody waits for it: it waited in the outbox (WatchConnectivity's transferUserInfo).
            let completion = entry.completion.queued(!entry.isAwaited)
            node.replies.expect(completion.messageID)
            let sentAt = ContinuousClock.now
            try session.send(.completion(completion))
            guard let answer = await node.replies.wait(
                completion.messageID, timeout: configuration.replyTimeout, clock: configuration.clock)
            else {
                return await replyTimedOut(completion.messageID, outbound)
            }
            node.metrics.roundTrip.record(duration: sentAt.duration(to: .now))
            let result: CompletionResult
            switch answer {
            case .reply(let reply):
                result = reply
            case .refused(let refusal):
                result = .refused(code: refusal.code.description, detail: refusal.message)
            case .history, .measurements:
                throw ProtocolError(.protocolViolation, "completion \(completion.messageID) was answered with another message's reply")
            case .retryLater(let message):
                retry += 1
                try await waitToRetry("a completion", id: completion.messageID, because: message, attempt: retry)
                continue
            }
            retry = 0
            // The caller hears at once (a reply, from the event loop: ReplyIntake); removing
            // it from the outbox may follow, since a resent message id only gets its stored
            // answer again, which is reported once. Answered, it is no longer pending (even
            // before it leaves the outbox).
            node.report(result, for: entry)
            // Sent while its row was being written: removed once it is, if it could be.
            guard await entry.hasRow() else { continue }
            node.metrics.outboxDepth.record(try await node.state.remove(completion.messageID))
        }
        return End(reason: "stopped", wasEstablished: true)
    }

    /// The primary could not record `what` now (its store failed): says so, and waits with
    /// backoff before it is sent again on the same connection.
    func waitToRetry(_ what: String, id: String, because message: String, attempt: Int) async throws {
        configuration.logger.warning("the primary could not record \(what) now; retrying", metadata: [
            "id": "\(id)", "reason": "\(message)",
        ])
        node.eventSink.yield(.error(code: "INTERNAL", message: message))
        try await configuration.clock.sleep(configuration.backoff.delay(attempt: attempt))
    }

    /// Tells the primary that the answer to `id` did not come in time, and ends the
    /// connection: the message is sent again on the next.
    func replyTimedOut(_ id: String, _ outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async -> End {
        let reason = "no reply to \(id) within \(configuration.replyTimeout)"
        await outbound.sendLast(ProtocolError(.replyTimedOut, reason).envelope(inReplyTo: id), logger: configuration.logger)
        return End(reason: reason, wasEstablished: true)
    }

    /// How a sending task of the connection ends: its own end, or a lost connection.
    private func lost(_ body: () async throws -> End) async -> End {
        do {
            return try await body()
        } catch {
            return End(reason: "connection lost: \(error)", wasEstablished: true)
        }
    }

    private func keepAlive(_ session: CompanionNode.SessionHandle, every interval: Duration) async throws -> End {
        var nonce: UInt64 = 0
        while !Task.isCancelled {
            try await configuration.clock.sleep(interval)
            nonce += 1
            try session.send(.ping(nonce: nonce))
        }
        return End(reason: "stopped", wasEstablished: true)
    }

    /// The session's one writer: sends what the sender, the pinger and the node's requests
    /// queue, in order, until the connection ends.
    private func write(
        _ outgoing: AsyncStream<Caresync_V1_Envelope>, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    ) async throws -> End {
        for await envelope in outgoing {
            try await outbound.send(envelope)
        }
        return End(reason: "stopped", wasEstablished: true)
    }
}

extension CompanionNode {
    /// The connection in progress: how to wake its senders (of completions, of
    /// measurements), how to send on it (through its one writer) and how to end it. Kept
    /// with the session, at the edge: what it queues are the messages themselves, made by
    /// SyncProtocol's factories from domain values.
    struct SessionHandle: Sendable {
        var wakeSender: AsyncStream<Void>.Continuation
        var wakeMeasurements: AsyncStream<Void>.Continuation
        var outgoing: AsyncStream<Caresync_V1_Envelope>.Continuation
        var channel: any Channel

        /// Queues `envelope` for the connection's writer.
        /// - Throws: `ProtocolError` `NOT_REACHABLE` once the connection has ended.
        func send(_ envelope: Caresync_V1_Envelope) throws(ProtocolError) {
            if case .terminated = outgoing.yield(envelope) {
                throw ProtocolError(.notReachable, "the connection to the primary has ended")
            }
        }
    }
}
