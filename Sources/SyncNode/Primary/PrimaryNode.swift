import CareCore
import CarePlan
import CarePlanStore
import Foundation
import Logging
import NIOCore
import NIOPosix
import NodeIdentity
import RelayTransport
import Reminders
import ServiceLifecycle
import Synchronization
import SyncProtocol
import Waiting

/// Serves the authoritative store to companions: sends each the newest application
/// context on connect, after every store change (from any process) and when the day rolls
/// over; records their completions and replies once they are committed.
///
/// A `Service`: run it, with the reminders it keeps, in a `ServiceGroup` (``services``);
/// a graceful shutdown says Goodbye to every companion and stops listening.
public final class PrimaryNode: Service, Sendable {
    public let configuration: PrimaryConfiguration
    let store: CarePlanStore
    /// The care core: the one way anything this node does changes the record.
    let core: CareCore
    /// The store's changes, for everything in this primary's process that follows them.
    public let changes: StoreChangeFeed
    let publisher: ContextPublisher
    /// The store's image for household devices that keep a standby copy.
    let standby: StandbySource
    /// Told of every write to the store this primary hears of (``storeWrites()``).
    private let writes = Broadcast<Void>()
    /// The primary's hybrid clock: later than every clock it has recorded or sent.
    let clock: HybridClock
    let connections: ConnectionRegistry
    /// The paired devices, kept in memory for handshakes.
    let devices: DeviceDirectory
    /// When devices were last seen, written to the store now and then.
    let lastSeen: LastSeen
    let metrics = PrimaryMetrics()
    let pairingThrottle: AttemptsPerMinute
    /// Reminders for events not yet done, if the primary keeps them.
    let reminders: ReminderScheduler?
    private let onReminder: @Sendable (Reminder) -> Void
    /// Missed-dose alerts for household devices, if the primary raises them.
    let alerts: MissedDoseMonitor?
    private let onAlert: @Sendable (DoseAlert) -> Void
    /// Its memberships of relays and the sessions offered there, if it waits on any.
    let relays: PrimaryRelays?
    private let serverChannel = Mutex<(any Channel)?>(nil)
    private let stopping = Mutex(false)
    private let bound = Eventual<SocketAddress>()

    /// - Parameters:
    ///   - store: the authoritative store it serves.
    ///   - configuration: where it listens, as whom, and its deadlines.
    ///   - policy: the reminder policy, or `nil` for a primary that sends no reminders.
    ///   - onReminder: told of every reminder as it fires (a log line, a desktop notification).
    ///   - alerts: whether it raises missed-dose alerts for household devices.
    ///   - onAlert: told of every alert as it is raised (a log line).
    public init(
        store: CarePlanStore, configuration: PrimaryConfiguration, reminders policy: ReminderPolicy? = nil,
        onReminder: @escaping @Sendable (Reminder) -> Void = { _ in }, alerts: Bool = true,
        onAlert: @escaping @Sendable (DoseAlert) -> Void = { _ in }
    ) {
        self.store = store
        core = CareCore(store: store)
        changes = StoreChangeFeed(store: store, logger: configuration.logger)
        self.configuration = configuration
        self.onReminder = onReminder
        self.onAlert = onAlert
        self.alerts = alerts
            ? MissedDoseMonitor(store: store, clock: configuration.clock, logger: configuration.logger) : nil
        pairingThrottle = AttemptsPerMinute(limit: configuration.pairingAttemptsPerMinute)
        connections = ConnectionRegistry(gauges: metrics.connections)
        devices = DeviceDirectory(store: store)
        lastSeen = LastSeen(interval: configuration.lastSeenInterval)
        reminders = policy.map {
            ReminderScheduler(store: store, policy: $0, clock: configuration.clock, logger: configuration.logger)
        }
        clock = HybridClock(node: configuration.nodeID)
        standby = StandbySource(store: store, identityDirectory: configuration.identityDirectory)
        publisher = ContextPublisher(store: store, clock: clock, wallClock: configuration.clock, tomorrowFrom: configuration.tomorrowFrom)
        let relayIdentity = configuration.relays.isEmpty
            ? nil : configuration.relayIdentity ?? (try? NodeIdentity.create(name: PrimaryRelays.commonName, now: Date()))
        relays = relayIdentity.map { PrimaryRelays(configuration: configuration, identity: $0) }
    }

    /// The file of the identity a primary presents to relays, beside its node identity.
    public static let relayIdentityFile = "relay-identity.pem"
    /// The common name of that identity's certificate: nothing of the household.
    public static let relayIdentityName = PrimaryRelays.commonName

    /// The primary's memberships of its relays, in the order of its configuration.
    public var relayMemberships: [RelayMembership] { relays?.memberships ?? [] }

    /// The primary and the services it needs beside it (the change feed, its reminders and
    /// alerts), to run in one `ServiceGroup` in this order: a group shuts down in reverse
    /// order, so the feed, which the others follow, stops last.
    public var services: [any Service] {
        [changes, self] + (reminders.map { [ReminderDelivery(scheduler: $0, node: self)] } ?? [])
            + (alerts.map { [AlertDelivery(monitor: $0, node: self)] } ?? [])
    }

    /// Listens and serves until a graceful shutdown (which says Goodbye to every companion)
    /// or cancellation.
    public func run() async throws {
        do {
            try await withGracefulShutdownHandler {
                try await serve()
            } onGracefulShutdown: {
                self.stopListening()
            }
        } catch {
            bound.resolve(.failure(error))
            throw error
        }
        bound.resolve(.failure(CancellationError()))
    }

    /// The address the primary listens on, once it does; throws if ``run()`` ended first.
    public func boundAddress() async throws -> SocketAddress {
        try await bound.value
    }

    private func serve() async throws {
        let deadlines = ConnectionDeadlines(
            handshake: configuration.handshakeTimeout, idle: configuration.idleTimeout, clock: configuration.deadlineClock)
        let maximumFrameBytes = configuration.maximumFrameBytes
        let tls = configuration.security == .tls ? try TLSTransport(identity: configuration.identity, server: true) : nil
        // Every connection served gets the same pipeline, accepted here or joined through a relay.
        let accept: @Sendable (any Channel) -> EventLoopFuture<AcceptedConnection> = { channel in
            let peer = PeerCertificate()
            let intake = CompletionIntake()
            let control = intake.control(on: channel.eventLoop)
            return FramedChannel.configure(
                channel, tls: tls.map { tls in { [tls.serverHandler(recording: peer)] } },
                maximumFrameBytes: maximumFrameBytes, deadlines: deadlines, framing: [intake]
            ).map { AcceptedConnection(framed: $0, peer: tls == nil ? nil : peer, intake: control) }
        }
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // A peer that stops sending mid-frame still hears why it is being closed.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 256 * 1024))
            .bind(host: configuration.host, port: configuration.port, childChannelInitializer: accept)
        serverChannel.withLock { $0 = server.channel }
        if stopping.withLock({ $0 }) { server.channel.close(promise: nil) }
        bound.resolve(.success(server.channel.localAddress!))
        let (accepted, admit) = AsyncStream<AcceptedConnection>.makeStream()
        try await withThrowingTaskGroup(of: Void.self) { watchers in
            let revision = try await store.revision()
            if let latest = try await store.outcomes.latestClock() { clock.observe(latest) }
            watchers.addTask { await self.followStore(after: revision) }
            watchers.addTask { try await self.followDays(after: revision) }
            watchers.addTask { await self.lastSeen.run(to: self.store, logger: self.logger) }
            if let relays {
                watchers.addTask { [configuration] in
                    await relays.run(clock: { configuration.clock.now }, accept: accept) { connection in
                        // Joined as the primary stops: closed unserved.
                        if case .terminated = admit.yield(connection) { connection.closeUnserved(logger: self.logger) }
                    }
                }
            }
            await withDiscardingTaskGroup { sessions in
                sessions.addTask {
                    do {
                        try await server.executeThenClose { inbound in
                            for try await connection in inbound { admit.yield(connection) }
                        }
                    } catch {
                        self.logger.error("the listening socket failed; stopping", metadata: ["error": "\(error)"])
                    }
                    admit.finish()
                }
                for await connection in accepted {
                    sessions.addTask {
                        defer { connection.ended() }
                        await PrimaryConnection(node: self, connection: connection).serve()
                    }
                }
                await connections.sayGoodbye(.shutdown, "primary stopping")
            }
            watchers.cancelAll()
        }
        // In a task of its own: a stop forced by cancellation (the service group's shutdown
        // limit) would otherwise refuse this last write, and the times noted since the last
        // one would be lost.
        await Task { [lastSeen, store, logger] in await lastSeen.write(to: store, logger: logger) }.value
    }

    var logger: Logger { configuration.logger }

    /// A reminder reaches every connected watch and the primary's own listener.
    func deliver(_ reminder: Reminder) async {
        logger.debug("reminder due", metadata: ["event": "\(reminder.key)"])
        metrics.reminders.increment()
        onReminder(reminder)
        let notice = ReminderNotice(reminder: reminder, text: await reminderText(for: reminder.key))
        await connections.broadcast(.reminder(notice), to: .watch)
    }

    /// Alerts just raised reach every household device connected that receives them (the
    /// others get them when they return) and the primary's own listener.
    func raised(_ alerts: [DoseAlert]) {
        logger.debug("dose alerts raised", metadata: ["count": "\(alerts.count)"])
        metrics.alertsRaised(alerts)
        for alert in alerts { onAlert(alert) }
        connections.alertsRaised()
    }

    /// What a watch shows for a reminder: the activity's text as the version governing the
    /// event's day has it, else its instructions, else nothing (the watch shows the title).
    private func reminderText(for key: EventKey) async -> String {
        do {
            let activity = try await store.outcomes.event(key).activity
            return activity.text ?? activity.instructions ?? ""
        } catch {
            guard !Task.isCancelled else { return "" }  // stopping
            logger.warning("no text for a reminder: the store could not read its event", metadata: [
                "event": "\(key)", "error": "\(error)",
            ])
            return ""
        }
    }

    /// A watch's "snooze": no answer (`nil`) when done, the non-fatal error to send when it cannot be.
    func snooze(_ request: SnoozeRequest, from peer: PrimaryConnection.Peer) async -> ProtocolError? {
        guard let reminders, peer.role == .watch else {
            return ProtocolError(.notPermitted, "only a watch may snooze, and only where reminders are kept", fatal: false)
        }
        guard let key = request.key, (1...24 * 60).contains(request.minutes) else {
            return ProtocolError.malformed("snooze needs a YYYY-MM-DD day and 1 to 1440 minutes").withFatal(false)
        }
        do {
            guard try await reminders.snooze(key, minutes: request.minutes, at: configuration.clock.now) else {
                return ProtocolError(.protocolViolation, "no reminder for \(key) to snooze", fatal: false)
            }
            return nil
        } catch {
            return ProtocolError(.internal, "could not snooze: \(error)", fatal: false)
        }
    }

    /// Stops listening; serving then ends by saying Goodbye to every companion.
    private func stopListening() {
        stopping.withLock { $0 = true }
        serverChannel.withLock { $0 }?.close(promise: nil)
    }

    /// Committed changes, by this process or another, make a newer context (one per batch
    /// the feed reads, however many changes it holds) and advance the primary's clock past
    /// theirs; a pairing or revocation renews the devices kept in memory, a revoked device
    /// is cut off at once, and a household device sent a report is told it waits.
    private func followStore(after revision: Int) async {
        for await batch in changes.batches(after: revision) {
            for reading in batch.compactMap(\.outcome?.clock) { clock.observe(reading) }
            if batch.contains(where: { $0.kind == .devicePaired || $0.kind == .deviceRevoked }) { devices.forget() }
            // Forgotten first: a connection registered after the cut finds the revocation
            // when it looks its device up again (PrimaryConnection's exchange).
            for change in batch where change.kind == .deviceRevoked {
                if let device = change.pairedDevice {
                    await connections.cut(device: device, with: PrimaryConnection.revoked.envelope())
                }
            }
            for change in batch where change.kind == .reportShared {
                if case .device(let device) = change.share?.recipient { connections.reportsWaiting(for: device) }
            }
            publisher.invalidate(after: batch)
            standby.changed(batch)
            writes.send(())
        }
    }

    /// A stream that yields whenever the store may hold something new: a batch of the change
    /// log read (this process's commits or another's), or measurements stored, which the log
    /// does not record. What follows the store (uploads to a FHIR server) waits on it instead
    /// of looking every few seconds.
    @Sendable public func storeWrites() -> AsyncStream<Void> {
        writes.subscribe()
    }

    /// This primary stored what the change log does not record (measurements) at `date`.
    func wroteUnlogged(at date: Date) {
        standby.touched(at: date)
        writes.send(())
    }

    /// At midnight in the plan's time zone (and when watches start to see tomorrow) the
    /// context changes without any store change. Each wake compares the part of the day with
    /// the one the previous wake saw, so a boundary crossed at any moment is noticed. The
    /// time zone is read again only when the plan is configured anew: between boundaries a
    /// wake reads nothing (``PrimaryConfiguration/dayCheckInterval`` apart, for a clock set
    /// by hand). `revision` is the store's before the zone is first read.
    private func followDays(after revision: Int) async throws {
        let planChanged = WakeSignal()
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [changes] in
                for await batch in changes.batches(after: revision) where batch.contains(where: { $0.kind == .planConfigured }) {
                    planChanged.signal()
                }
            }
            var seen: (day: CalendarDay, seesTomorrow: Bool)?
            var (zone, zoneStale) = (TimeZone.gmt, true)
            while !Task.isCancelled {
                if zoneStale, let read = await planZone() { (zone, zoneStale) = (read, false) }
                let now = configuration.clock.now
                let today = CalendarDay.containing(now, in: zone)
                let tomorrowFrom = today.date(at: configuration.tomorrowFrom, in: zone)
                let current = (day: today, seesTomorrow: now >= tomorrowFrom)
                if let seen, seen != current { publisher.invalidate() }
                seen = current
                let next = now < tomorrowFrom ? tomorrowFrom : today.adding(days: 1).start(in: zone)
                // Wake at the boundary, or sooner to notice a changed time zone or clock.
                let untilBoundary = Duration.seconds(max(0.05, next.timeIntervalSince(now) + 0.01))
                if await planChanged.wait(timeout: min(configuration.dayCheckInterval, untilBoundary), clock: configuration.clock) {
                    zoneStale = true
                }
            }
            group.cancelAll()
        }
    }

    /// The plan's time zone (UTC for a plan without one); `nil`, logged, if it cannot be read.
    private func planZone() async -> TimeZone? {
        do {
            return try await store.plan.info().timeZone ?? .gmt
        } catch {
            if !Task.isCancelled {
                logger.warning("could not read the plan's time zone; days roll over in the zone last read (UTC at first) until it can", metadata: [
                    "error": "\(error)",
                ])
            }
            return nil
        }
    }
}

/// The primary's reminders as a service of their own: they fire while the primary runs and
/// reach its watches; a graceful shutdown stops them.
struct ReminderDelivery: Service {
    let scheduler: ReminderScheduler
    let node: PrimaryNode

    func run() async throws {
        await cancelWhenGracefulShutdown { [scheduler, node] in
            await scheduler.run(following: node.changes) { reminder in await node.deliver(reminder) }
        }
    }
}

/// The primary's missed-dose alerts as a service of their own: raised while the primary
/// runs, sent to its household devices; a graceful shutdown stops them.
struct AlertDelivery: Service {
    let monitor: MissedDoseMonitor
    let node: PrimaryNode

    func run() async throws {
        await cancelWhenGracefulShutdown { [monitor, node] in
            await monitor.run(following: node.changes) { alerts in node.raised(alerts) }
        }
    }
}
