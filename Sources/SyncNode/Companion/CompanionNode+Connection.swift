import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NodeIdentity
import RelayProtocol
import RelayTransport
import SyncProtocol

/// How a companion is connected to its primary.
public enum ConnectionWay: Sendable, Hashable, CustomStringConvertible {
    /// Straight to the primary's address, on the home network (or a VPN).
    case direct(PrimaryEndpoint)
    /// Through a relay (protocol section 25): the same TLS 1.3 session inside its pipe.
    case relay(RelayRoute)

    /// `direct`, or `relay HOST` with the relay's host, as simulators show it.
    public var description: String {
        switch self {
        case .direct: "direct"
        case .relay(let route): "relay \(route.relay.host)"
        }
    }

    /// Where the primary was reached, for messages: its address, or the relay's.
    var place: String {
        switch self {
        case .direct(let endpoint): "at \(endpoint)"
        case .relay(let route): "through the relay at \(route)"
        }
    }
}

/// A companion's open connection to a primary.
struct CompanionConnection: Sendable {
    let channel: FramedChannel
    /// The primary's certificate, once the TLS handshake has seen it (`nil` without TLS).
    let certificate: PeerCertificate?
    /// Succeeds when the TLS handshake completes (at once without TLS).
    let handshake: EventLoopFuture<Void>
    /// Where replies are answered on the event loop, once armed.
    let replies: ReplyIntake.Control

    /// Closes a connection that will carry nothing (an async channel must be finished).
    func close(logger: Logger) async {
        do {
            try await channel.executeThenClose { _, _ in }
        } catch {
            logger.debug("an unused connection did not close cleanly", metadata: ["error": "\(error)"])
        }
    }
}

/// Why no way to the primary worked: each way tried, with its reason, in order.
struct Unreachable: Error, CustomStringConvertible {
    var failures: [String]

    var description: String { failures.joined(separator: "; ") }
}

extension CompanionNode {
    /// Opens a connection to the primary by the first way that works: directly where
    /// `configuration.locate` finds it (unless ``CompanionConfiguration/relayOnly``), then
    /// through each relay the primary named, in order.
    func reachPrimary(pinned: String?) async throws -> (CompanionConnection, ConnectionWay) {
        var failures: [String] = []
        if !configuration.relayOnly {
            do {
                let endpoint = try await configuration.locate(knownPrimaryID)
                do {
                    return (try await connect(to: endpoint, pinned: pinned), .direct(endpoint))
                } catch {
                    failures.append("cannot reach the primary at \(endpoint): \(error)")
                }
            } catch {
                failures.append("cannot find the primary: \(error)")
            }
        }
        let relays = state.relays
        if relays.isEmpty, configuration.relayOnly { failures.append("no relay is known: the primary named none") }
        for route in relays {
            do {
                return (try await connect(through: route, pinned: pinned), .relay(route))
            } catch {
                failures.append("not through the relay at \(route): \(error)")
            }
        }
        throw Unreachable(failures: failures)
    }

    /// Opens a connection to `endpoint`; the primary must present the certificate with
    /// fingerprint `pinned` (any, while pairing, when `nil`) and send its first frame within
    /// `firstFrame` (the configuration's handshake timeout unless given).
    func connect(to endpoint: PrimaryEndpoint, pinned: String?, firstFrame: Duration? = nil) async throws -> CompanionConnection {
        try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: endpoint.host, port: endpoint.port) { [self] channel in
                speak(on: channel, pinned: pinned, firstFrame: firstFrame)
            }
    }

    /// Opens a connection through the relay of `route`: asks it for a session with the
    /// primary (as an identity made for this request alone), joins it, and speaks TLS 1.3 to
    /// the primary over it as over a direct connection, the primary's certificate pinned.
    func connect(through route: RelayRoute, pinned: String?) async throws -> CompanionConnection {
        var dialer = RelayDialer()
        dialer.connectTimeout = configuration.connectTimeout
        dialer.answerTimeout = configuration.handshakeTimeout
        dialer.clock = configuration.deadlineClock
        let throwaway = try NodeIdentity.create(name: "CareSync", now: configuration.clock.now)
        let invitation = try await dialer.invitation(to: route.device, at: route.relay, identity: throwaway)
        return try await dialer.joinSession(invitation, at: route.relay) { [self] channel in
            speak(on: channel, pinned: pinned, firstFrame: nil)
        }
    }

    /// Installs the companion's side of the protocol on `channel`: TLS with the primary's
    /// certificate pinned, frames, deadlines and the reply intake. On the channel's event loop.
    private func speak(on channel: any Channel, pinned: String?, firstFrame: Duration?) -> EventLoopFuture<CompanionConnection> {
        let deadlines = ConnectionDeadlines(
            handshake: firstFrame ?? configuration.handshakeTimeout, idle: configuration.idleTimeout, clock: configuration.deadlineClock)
        let certificate = PeerCertificate()
        let handshake = channel.eventLoop.makePromise(of: Void.self)
        let handlers: (() throws -> [any ChannelHandler])? = tls.map { tls in
            { [try tls.clientHandler(pinned: pinned, recording: certificate), TLSHandshakeWaiter(handshake)] }
        }
        if tls == nil { handshake.succeed() }
        let replies = ReplyIntake()
        let control = replies.control(on: channel.eventLoop)
        return FramedChannel.configure(
            channel, tls: handlers, maximumFrameBytes: configuration.maximumFrameBytes, deadlines: deadlines, framing: [replies]
        ).map { [tls] in
            CompanionConnection(channel: $0, certificate: tls == nil ? nil : certificate, handshake: handshake.futureResult, replies: control)
        }.flatMapErrorThrowing { error in
            // The pipeline could not be set up, so the handshake's waiter may never
            // have joined it: a promise left unfulfilled stops a debug build.
            handshake.fail(error)
            throw error
        }
    }

    /// Why a connection to a pinned primary failed, naming an impersonator's certificate.
    static func impersonation(seen: String?, pinned: String?, at place: String) -> ProtocolError? {
        guard let seen, let pinned, seen != pinned else { return nil }
        return ProtocolError(.notPaired, "the primary \(place) presented certificate \(NodeIdentity.display(seen)), "
            + "not the paired \(NodeIdentity.display(pinned)): refused. The primary changed: if it was set up anew or restored "
            + "without its identity, pair again; if not, something else answers in its place")
    }
}
