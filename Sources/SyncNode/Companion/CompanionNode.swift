import CarePlan
import Foundation
import Logging
import NIOCore
import NodeIdentity
import ServiceLifecycle
import Synchronization
import SyncProtocol
import Waiting

/// A companion (watch, widget or household device) that follows a primary: it keeps the
/// last application context so today's list shows while offline, queues completions in a
/// persistent outbox that is delivered in order and exactly once, and reconnects with
/// exponential backoff and jitter.
///
/// A `Service`: in a `ServiceGroup`, a graceful shutdown says Goodbye to the primary.
public final class CompanionNode: Service, Sendable {
    public let configuration: CompanionConfiguration
    /// The node's id: its certificate's fingerprint.
    public let nodeID: String
    /// The node's key pair and certificate, made on first start in its state directory.
    public let identity: NodeIdentity
    /// Connections, contexts, replies and errors, in order. One consumer.
    public let events: AsyncStream<CompanionEvent>

    let state: CompanionState
    let clock: HybridClock
    let metrics = CompanionMetrics()
    let eventSink: AsyncStream<CompanionEvent>.Continuation
    /// Says when no way reaches the primary, and what that leaves unconfirmed.
    let away: AwayWatch
    /// The one correlator of requests and their answers on the wire: completions (by message
    /// id), history requests (by request id) and measurement batches (by batch id).
    let replies = Waiters<Answer>()
    let session = Mutex<SessionHandle?>(nil)
    /// TLS with the node's identity, unless measuring without it.
    let tls: TLSTransport?
    /// Raised when the node stops: ends ``run()``'s wait between connection attempts.
    private let stopped = Eventual<Void>()

    /// What the sender learns about a request it sent, as the session read it from the wire.
    enum Answer: Sendable {
        /// The primary's judgement of a completion.
        case reply(CompletionResult)
        /// The primary could not record it now (a full disk, say): keep it and retry.
        case retryLater(String)
        /// The primary refused the message itself (a non-fatal Error): it can never succeed.
        case refused(ProtocolError)
        /// A page of the history, for a household device, or why it cannot be read.
        case history(Result<HistoryPage, ProtocolError>)
        /// The receipt for a batch of measurements.
        case measurements(MeasurementBatchResult)
    }

    /// Opens (creating if needed) the node's state and identity in its state directory (the
    /// identity in ``CompanionConfiguration/identityDirectory`` if it names one).
    public init(configuration: CompanionConfiguration) async throws {
        self.configuration = configuration
        state = try await CompanionState.open(
            directory: configuration.stateDirectory, logger: configuration.logger,
            contextWriteDelay: configuration.contextWriteDelay, clock: configuration.clock)
        identity = try await blocking {
            try NodeIdentity.loadOrCreate(in: configuration.identityDirectory ?? configuration.stateDirectory, name: configuration.name)
        }
        nodeID = identity.fingerprint
        tls = configuration.security == .tls ? try TLSTransport(identity: identity, server: false) : nil
        clock = HybridClock(node: nodeID)
        (events, eventSink) = AsyncStream<CompanionEvent>.makeStream()
        away = AwayWatch(state: state, configuration: configuration, sink: eventSink)
        if let reading = state.context?.clock { clock.observe(reading) }
        metrics.outboxDepth.record(state.depth)
        metrics.measurementsWaiting.record(state.measurements.depth)
    }

    /// The last context received, kept across restarts.
    public var context: ApplicationContext? {
        state.context
    }

    /// Events with a completion still waiting in the outbox for its answer, oldest first.
    public var pending: [EventKey] {
        state.pending.filter { !$0.isAnswered }.compactMap { try? $0.completion.eventKey() }
    }

    /// The fingerprint of the primary this companion paired with, kept across restarts.
    public var knownPrimaryID: String? {
        state.primaryID
    }

    var logger: Logger { configuration.logger }

    /// The first event that `match` accepts within `timeout`, or `nil`. Events it passes
    /// over are consumed: ``events`` has one consumer, and a wait that times out ends the
    /// stream for good (an `AsyncStream` whose waiting consumer is cancelled finishes).
    public func firstEvent<T: Sendable>(
        within timeout: Duration, _ match: @escaping @Sendable (CompanionEvent) -> T?
    ) async -> T? {
        await withTimeout(timeout) { [events] in
            for await event in events {
                if let found = match(event) { return found }
            }
            return nil
        }
    }

    /// Whether a connection to the primary is up.
    public var isConnected: Bool {
        session.withLock { $0 != nil }
    }

    /// Records an outcome: in the outbox, and at the primary, to which it is sent while its
    /// outbox row commits. Returns once the row is written: the primary's answer if it
    /// arrives within the reply timeout on the connection it was sent on, otherwise `.queued`
    /// once the row is synced (the completion then survives a power cut here; an answered one
    /// is the primary's to keep). A connection that ends first ends the wait at once.
    ///
    /// - Throws: if the row cannot be written (a full disk): the completion has then left
    ///   the outbox, though the primary may have recorded it. If the row cannot be synced,
    ///   it stays in the outbox (and is still sent), without the promise `.queued` makes.
    public func complete(
        _ key: EventKey, state eventState: EventState = .completed, values: [OutcomeValue] = [], reason: String? = nil
    ) async throws -> CompletionResult {
        let now = configuration.clock.now
        let completion = CompletionMessage(
            messageID: UUID().uuidString.lowercased(), key: key, state: eventState, values: values, deviceTime: now,
            clock: clock.tick(now: now), reason: reason)
        let entry = OutboxEntry(completion, awaited: true)
        defer { entry.stopAwaiting() }
        // Sent while its outbox row commits, by the connection up as it enters the outbox; one
        // that comes up later finds it there.
        metrics.outboxDepth.record(try await state.enqueue(entry) { session.withLock { $0 }?.wakeSender.yield() })
        if session.withLock({ $0 }) != nil, let answer = await entry.answer(within: configuration.replyTimeout, clock: configuration.clock) {
            return answer
        }
        // Left waiting in the outbox: only now must its row survive a power cut.
        try await state.sync()
        return .queued
    }

    /// Takes the primary's reply to a completion, wherever it was read (``ReplyIntake`` on the
    /// event loop, or the receiving task before the intake is armed): the sender waiting
    /// for it goes on, and the caller of `complete()` hears it at once.
    func received(_ reply: CompletionReply) {
        replies.resolve(reply.messageID, .reply(reply.result))
        if let entry = state.entry(reply.messageID) { report(reply.result, for: entry) }
    }

    /// Records the primary's answer to `entry` and reports it, the first time only.
    func report(_ result: CompletionResult, for entry: OutboxEntry) {
        guard entry.answered(result) else { return }
        let completion = entry.completion
        let key = (try? completion.eventKey())
            ?? EventKey(activityID: completion.activityID, day: CalendarDay(daysSinceEpoch: 0), occurrence: 0)
        eventSink.yield(.reply(messageID: completion.messageID, key: key, result: result))
    }

    /// Asks the primary to remind again `minutes` from now ("done" is ``complete(_:state:values:reason:)``).
    /// - Throws: `ProtocolError` `NOT_REACHABLE` when no primary is connected.
    public func snooze(_ key: EventKey, minutes: Int) async throws {
        guard let current = session.withLock({ $0 }) else {
            throw ProtocolError(.notReachable, "no primary is connected to snooze the reminder")
        }
        try current.send(.snooze(key, minutes: minutes))
    }

    /// Connects and stays connected until ``stop()`` or a graceful shutdown: reconnects after
    /// every failure, with exponential backoff and jitter. Returns early if the companion is
    /// not paired, or the primary refuses it for good (VERSION_MISMATCH, PLAN_MISMATCH,
    /// NOT_PERMITTED, NOT_PAIRED in the handshake).
    public func run() async {
        await withGracefulShutdownHandler {
            await follow()
        } onGracefulShutdown: {
            self.beginStopping()
        }
    }

    private func follow() async {
        guard knownPrimaryID != nil else {
            eventSink.yield(.error(code: "NOT_PAIRED", message: "not paired with a primary: pair first with a code from `caresync pair`"))
            eventSink.finish()
            return
        }
        var failures = 0
        var lastReason: String?
        while !stopped.isResolved && !Task.isCancelled {
            let end = await CompanionSession(node: self).run()
            if end.wasEstablished { await heard() }
            if stopped.isResolved { break }
            if end.foundNoWay { away.unreachable() }
            logger.info("connection ended", metadata: ["reason": "\(end.reason)", "final": "\(end.isFinal)"])
            metrics.sessionsEnded[end.wasEstablished]?.increment()
            // Said once while it stays the same: retrying every few seconds is not news.
            if end.wasEstablished || end.reason != lastReason { eventSink.yield(.disconnected(reason: end.reason)) }
            lastReason = end.wasEstablished ? nil : end.reason
            // Refused for good (no common version, another plan, a forbidden role): retrying
            // cannot help until the companion itself changes.
            if end.isFinal { break }
            failures = end.wasEstablished ? 0 : failures + 1
            let wait = configuration.backoff.delay(attempt: failures - 1)
            logger.debug("connecting again", metadata: ["after": "\(wait)", "failures": "\(failures)"])
            await waitUnlessStopped(wait)
        }
        away.reached()
        await state.writeContext()
        eventSink.finish()
    }

    /// Keeps now as the last time the primary was heard (a connection began or ended).
    func heard() async {
        do {
            try await state.heard(at: configuration.clock.now)
        } catch {
            logger.debug("when the primary was last heard was not kept", metadata: ["error": "\(error)"])
        }
    }

    /// Waits `duration` (on the configuration's clock), or less if the node stops.
    private func waitUnlessStopped(_ duration: Duration) async {
        _ = await withTimeout(duration, clock: configuration.clock) { [stopped] in try? await stopped.value }
    }

    /// Says Goodbye to the primary, closes the connection, writes the context deltas not yet
    /// written and ends ``run()``.
    public func stop() async {
        beginStopping()
        if let current = session.withLock({ $0 }) {
            do {
                try await current.channel.closeFuture.get()
            } catch {
                logger.debug("the connection did not close cleanly", metadata: ["error": "\(error)"])
            }
        }
        await state.writeContext()
    }

    /// Marks the node stopped, wakes a wait between attempts, and sends Goodbye on the
    /// connection (if any) before closing it, without waiting for either.
    private func beginStopping() {
        stopped.raise()
        guard let current = session.withLock({ $0 }) else { return }
        current.channel.writeUnwaited(.goodbye(.quit), thenClose: true)
    }

    var isStopped: Bool { stopped.isResolved }

    /// Closes the node's state file: the node must not be used after.
    func close() throws {
        try state.close()
    }
}
