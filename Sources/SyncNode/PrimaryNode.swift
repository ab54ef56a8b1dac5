import CarePlan
import CarePlanStore
import Foundation
import NIOCore
import NIOPosix
import Synchronization
import SyncProtocol

/// Serves the authoritative store to companions: sends each the newest application
/// context on connect, after every store change (from any process) and when the day rolls
/// over; records their completions and replies once they are committed.
public final class PrimaryNode: Sendable {
    public let configuration: PrimaryConfiguration
    let store: CarePlanStore
    let publisher: ContextPublisher
    /// The primary's hybrid clock: later than every clock it has recorded or sent.
    let clock: HybridClock
    let connections = ConnectionRegistry()
    private let serverChannel = Mutex<(any Channel)?>(nil)
    private let stopping = Mutex(false)

    public init(store: CarePlanStore, configuration: PrimaryConfiguration) {
        self.store = store
        self.configuration = configuration
        clock = HybridClock(node: configuration.nodeID)
        publisher = ContextPublisher(store: store, clock: clock, now: configuration.now, tomorrowFrom: configuration.tomorrowFrom)
    }

    /// Listens and serves until ``shutdown()`` (or cancellation); calls `onListening` with
    /// the bound address first.
    public func run(onListening: @Sendable (SocketAddress) -> Void = { _ in }) async throws {
        let deadlines = ConnectionDeadlines(handshake: configuration.handshakeTimeout, idle: configuration.idleTimeout)
        let maximumFrameBytes = configuration.maximumFrameBytes
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // A peer that stops sending mid-frame still hears why it is being closed.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 32 * 1024, high: 256 * 1024))
            .bind(host: configuration.host, port: configuration.port) { channel in
                FramedChannel.configure(channel, maximumFrameBytes: maximumFrameBytes, deadlines: deadlines)
            }
        serverChannel.withLock { $0 = server.channel }
        if stopping.withLock({ $0 }) { server.channel.close(promise: nil) }
        onListening(server.channel.localAddress!)
        try await withThrowingTaskGroup(of: Void.self) { watchers in
            let revision = try store.revision()
            if let latest = try store.latestClock() { clock.observe(latest) }
            watchers.addTask { await self.followStore(after: revision) }
            watchers.addTask { try await self.followDays() }
            await withDiscardingTaskGroup { sessions in
                try? await server.executeThenClose { inbound in
                    for try await channel in inbound {
                        sessions.addTask { await PrimaryConnection(node: self, channel: channel).serve() }
                    }
                }
                await connections.sayGoodbye(.shutdown, "primary stopping")
            }
            watchers.cancelAll()
        }
    }

    /// Says Goodbye to every companion, closes their connections and stops listening.
    public func shutdown() {
        stopping.withLock { $0 = true }
        serverChannel.withLock { $0 }?.close(promise: nil)
    }

    /// Every committed change, by this process or another, makes a newer context and
    /// advances the primary's clock past the change's. A failing read is retried.
    private func followStore(after revision: Int) async {
        var last = revision
        while !Task.isCancelled {
            do {
                for try await change in store.changes(after: last) {
                    if let reading = change.outcome?.clock { clock.observe(reading) }
                    last = change.revision
                    publisher.invalidate()
                }
            } catch {
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
    }

    /// At midnight in the plan's time zone (and when watches start to see tomorrow) the
    /// context changes without any store change.
    private func followDays() async throws {
        while !Task.isCancelled {
            let zone = (try? store.planInfo().timeZone) ?? .gmt
            let now = configuration.now()
            let today = CalendarDay.containing(now, in: zone)
            let boundaries = [today.date(at: configuration.tomorrowFrom, in: zone), today.adding(days: 1).start(in: zone)]
            let next = boundaries.first { $0 > now } ?? boundaries[1]
            // Wake at the boundary, or sooner to notice a changed time zone or clock.
            let untilBoundary = Duration.seconds(max(0.05, next.timeIntervalSince(now) + 0.01))
            try await Task.sleep(for: min(configuration.dayCheckInterval, untilBoundary))
            if CalendarDay.containing(configuration.now(), in: zone) != today || configuration.now() >= next {
                publisher.invalidate()
            }
        }
    }
}
