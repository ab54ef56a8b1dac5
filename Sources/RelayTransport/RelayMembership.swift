import Clocks
import Foundation
import Logging
import NIOCore
import NodeIdentity
import RelayProtocol
import Synchronization
import Waiting

/// One device waiting on one relay for sessions (the permanent protocol mode): joins, keeps
/// the connection alive with pings, hands on every invitation, and joins again after any
/// failure, with backoff and jitter, until cancelled.
public final class RelayMembership: Sendable {
    /// How the membership keeps in touch with its relay.
    public struct Settings: Sendable {
        /// A ping goes to the relay this long after the last one, so that the relay, which
        /// drops a member it has heard nothing from for a while (its `-ping-interval`, a
        /// minute by default), hears from this one; the relay's pong must come within the
        /// dialer's answer timeout, else the connection is taken for dead.
        public var pingInterval: Duration = .seconds(30)
        /// The waits between attempts to join again: from 1 s, doubling up to a minute,
        /// each shortened by up to half so that a relay back from a restart is not joined by
        /// every member at once.
        public var backoff = Backoff(first: .seconds(1), maximum: .seconds(60), jitter: 0.5)
        public var dialer = RelayDialer()

        public init() {}
    }

    /// Where a membership stands.
    public enum Status: Sendable, Equatable, CustomStringConvertible {
        case connecting
        case joined
        /// The last attempt failed, for this reason; another follows.
        case failed(String)

        public var description: String {
            switch self {
            case .connecting: "connecting"
            case .joined: "joined"
            case .failed(let reason): "failed: \(reason)"
            }
        }
    }

    public let relay: RelayAddress
    /// The device's relay id there, derived from its identity's certificate.
    public let deviceID: RelayDeviceID
    private let identity: NodeIdentity
    public let settings: Settings
    private let logger: Logger
    private let current = Mutex(Status.connecting)
    private let changes = Broadcast<Status>()

    public init(relay: RelayAddress, identity: NodeIdentity, settings: Settings = Settings(), logger: Logger) {
        self.relay = relay
        self.identity = identity
        deviceID = RelayDeviceID(certificateDER: identity.certificateDER)
        self.settings = settings
        self.logger = logger
    }

    public var status: Status { current.withLock { $0 } }

    /// The status now, then every change of it, until the subscriber stops.
    public func statuses() -> AsyncStream<Status> {
        changes.subscribe(startingWith: status)
    }

    /// Waits until the membership has joined its relay (at once if it has).
    public func joined() async {
        for await status in statuses() where status == .joined { return }
    }

    /// Joins, and joins again after every failure, until cancelled; each invitation the
    /// relay sends is given to `invited` as it arrives (which must not wait on it).
    public func run(invited: @escaping @Sendable (SessionInvitation) -> Void) async {
        var attempt = 0
        while !Task.isCancelled {
            set(.connecting)
            do {
                try await member(invited: invited) { attempt = 0 }
            } catch {
                guard !Task.isCancelled else { break }
                set(.failed(String(describing: error)))
                logger.warning("relay membership lost; joining again", metadata: [
                    "relay": "\(relay.host):\(relay.port)", "error": "\(error)",
                ])
            }
            try? await settings.dialer.clock.sleep(settings.backoff.delay(attempt: attempt))
            attempt += 1
        }
    }

    /// One connection: joins, then pings and reads until it fails.
    private func member(invited: @escaping @Sendable (SessionInvitation) -> Void, onJoin: () -> Void) async throws {
        let dialer = settings.dialer
        let seen = PresentedRelay()
        let channel = try await dialer.protocolChannel(to: relay, identity: identity, seen: seen)
        try await channel.executeThenClose { inbound, outbound in
            var reader = inbound.makeAsyncIterator()
            let underlying = channel.channel
            switch try await dialer.ask(
                .joinRelayRequest, awaiting: "an answer to joining", relay: relay, seen: seen, on: underlying, &reader, outbound
            ) {
            case .response(let response) where response.code == RelayResponse.success.code: break
            case .response(let response): throw RelayError.refused(relay: relay, response)
            case .relayFull: throw RelayError.full(relay: relay)
            case let other: throw RelayError.unexpected(relay: relay, other)
            }
            onJoin()
            set(.joined)
            logger.info("joined a relay", metadata: ["relay": "\(relay.host):\(relay.port)", "as": "\(deviceID)"])
            let keepalive = Keepalive(now: dialer.clock.now)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { [settings, relay] in
                    while true {
                        try await dialer.clock.sleep(settings.pingInterval)
                        let sent = dialer.clock.now
                        try await outbound.write(.ping)
                        try await dialer.clock.sleep(dialer.answerTimeout)
                        guard keepalive.heard.withLock({ $0 >= sent }) else {
                            keepalive.silence.withLock { $0 = .timedOut(relay: relay, waitingFor: "a pong") }
                            underlying.close(promise: nil)
                            return
                        }
                    }
                }
                defer { group.cancelAll() }
                do {
                    while let message = try await reader.next() {
                        keepalive.heard.withLock { $0 = dialer.clock.now }
                        switch message {
                        case .ping: try await outbound.write(.pong)
                        case .pong: break
                        case .sessionInvitation(let invitation): invited(invitation)
                        case let other: throw RelayError.unexpected(relay: relay, other)
                        }
                    }
                } catch {
                    throw keepalive.silence.withLock { $0 } ?? error
                }
                throw keepalive.silence.withLock { $0 } ?? RelayError.closed(relay: relay, waitingFor: "the membership's end")
            }
        }
    }

    private func set(_ status: Status) {
        current.withLock { $0 = status }
        changes.send(status)
    }
}

/// What a membership's pinger and reader share: when the relay was last heard, and why the
/// pinger ended the connection, if it did.
private final class Keepalive: Sendable {
    let heard: Mutex<Date>
    let silence = Mutex<RelayError?>(nil)

    init(now: Date) {
        heard = Mutex(now)
    }
}
