import Foundation
import Logging
import NIOCore
import NodeIdentity
import RelayProtocol
import RelayTransport
import Synchronization

/// The primary's doors through relays (protocol section 25): a membership of each relay it
/// is configured with, and the sessions companions ask for there, joined and handed to the
/// primary as connections like those it accepts, to pass the same TLS pin and role checks.
///
/// What a relay sees of the primary is its relay identity, never its node id, the patient
/// or the plan: after the session is joined, every byte is the companion's TLS 1.3.
final class PrimaryRelays: Sendable {
    /// The common name of a relay identity made for one run: nothing of the household.
    static let commonName = "CareSync relay member"
    let memberships: [RelayMembership]
    /// The ways to the primary its companions are told of.
    let routes: [RelayRoute]
    private let invitations: AttemptsPerMinute
    private let limit: Int
    private let open = Atomic(0)
    private let logger: Logger

    init(configuration: PrimaryConfiguration, identity: NodeIdentity) {
        memberships = configuration.relays.map {
            RelayMembership(relay: $0, identity: identity, settings: configuration.relayMembership, logger: configuration.logger)
        }
        routes = memberships.map { RelayRoute(relay: $0.relay, device: $0.deviceID) }
        invitations = AttemptsPerMinute(limit: configuration.relayInvitationsPerMinute)
        limit = configuration.relayedSessionLimit
        logger = configuration.logger
    }

    /// Keeps every membership until cancelled; each invitation admitted is joined, set up by
    /// `accept` (the pipeline of an accepted connection) and given to `serve`.
    func run(
        clock: @escaping @Sendable () -> Date,
        accept: @escaping @Sendable (any Channel) -> EventLoopFuture<AcceptedConnection>,
        serve: @escaping @Sendable (AcceptedConnection) -> Void
    ) async {
        await withDiscardingTaskGroup { group in
            for membership in memberships {
                group.addTask {
                    // A flood waits here in a few places only: invitations beyond them are dropped.
                    let (offers, offer) = AsyncStream<SessionInvitation>.makeStream(bufferingPolicy: .bufferingNewest(8))
                    await withDiscardingTaskGroup { joins in
                        joins.addTask {
                            await membership.run { offer.yield($0) }
                            offer.finish()
                        }
                        for await invitation in offers where self.admit(at: clock()) {
                            joins.addTask { await self.join(invitation, at: membership, accept: accept, serve: serve) }
                        }
                    }
                }
            }
        }
    }

    /// Whether a session offered now may be taken up: within the minute's invitations and
    /// the sessions open at once. Counts it as open if so.
    private func admit(at now: Date) -> Bool {
        guard open.add(1, ordering: .relaxed).newValue <= limit else {
            open.subtract(1, ordering: .relaxed)
            logger.notice("a session offered through a relay was let go: too many open", metadata: ["limit": "\(limit)"])
            return false
        }
        guard invitations.admit(at: now) else {
            open.subtract(1, ordering: .relaxed)
            logger.notice("a session offered through a relay was let go: too many this minute")
            return false
        }
        return true
    }

    private func join(
        _ invitation: SessionInvitation, at membership: RelayMembership,
        accept: @escaping @Sendable (any Channel) -> EventLoopFuture<AcceptedConnection>,
        serve: (AcceptedConnection) -> Void
    ) async {
        do {
            var connection = try await membership.settings.dialer.joinSession(invitation, at: membership.relay, then: accept)
            connection.relay = membership.relay
            connection.ended = { self.open.subtract(1, ordering: .relaxed) }
            serve(connection)
        } catch {
            open.subtract(1, ordering: .relaxed)
            logger.info("a session offered through a relay could not be joined", metadata: [
                "relay": "\(membership.relay.host):\(membership.relay.port)", "error": "\(error)",
            ])
        }
    }
}

/// A connection the primary serves: accepted on its port, or joined through a relay.
struct AcceptedConnection: Sendable {
    let framed: FramedChannel
    /// The certificate the peer presents (`nil` without TLS).
    let peer: PeerCertificate?
    let intake: CompletionIntake.Control
    /// The relay it came through, if it did.
    var relay: RelayAddress?
    /// Told when the connection has been served.
    var ended: @Sendable () -> Void = {}

    /// Closes a connection that will not be served (an async channel must be finished).
    func closeUnserved(logger: Logger) {
        Task {
            defer { ended() }
            do {
                try await framed.executeThenClose { _, _ in }
            } catch {
                logger.debug("an unserved connection did not close cleanly", metadata: ["error": "\(error)"])
            }
        }
    }
}
