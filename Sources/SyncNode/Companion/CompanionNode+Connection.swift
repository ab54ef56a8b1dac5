import Logging
import NIOCore
import NIOPosix
import NIOSSL
import NodeIdentity
import SyncProtocol

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

extension CompanionNode {
    /// Opens a connection to `endpoint`; the primary must present the certificate with
    /// fingerprint `pinned` (any, while pairing, when `nil`) and send its first frame within
    /// `firstFrame` (the configuration's handshake timeout unless given).
    func connect(to endpoint: PrimaryEndpoint, pinned: String?, firstFrame: Duration? = nil) async throws -> CompanionConnection {
        let deadlines = ConnectionDeadlines(
            handshake: firstFrame ?? configuration.handshakeTimeout, idle: configuration.idleTimeout, clock: configuration.deadlineClock)
        let maximumFrameBytes = configuration.maximumFrameBytes
        let tls = tls
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(configuration.connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: endpoint.host, port: endpoint.port) { channel in
                let certificate = PeerCertificate()
                let handshake = channel.eventLoop.makePromise(of: Void.self)
                let handlers: (() throws -> [any ChannelHandler])? = tls.map { tls in
                    { [try tls.clientHandler(pinned: pinned, recording: certificate), TLSHandshakeWaiter(handshake)] }
                }
                if tls == nil { handshake.succeed() }
                let replies = ReplyIntake()
                let control = replies.control(on: channel.eventLoop)
                return FramedChannel.configure(
                    channel, tls: handlers, maximumFrameBytes: maximumFrameBytes, deadlines: deadlines, framing: [replies]
                ).map {
                    CompanionConnection(
                        channel: $0, certificate: tls == nil ? nil : certificate, handshake: handshake.futureResult,
                        replies: control)
                }.flatMapErrorThrowing { error in
                    // The pipeline could not be set up, so the handshake's waiter may never
                    // have joined it: a promise left unfulfilled stops a debug build.
                    handshake.fail(error)
                    throw error
                }
            }
    }

    /// Why a connection to a pinned primary failed, naming an impersonator's certificate.
    static func impersonation(seen: String?, pinned: String?, at endpoint: PrimaryEndpoint) -> ProtocolError? {
        guard let seen, let pinned, seen != pinned else { return nil }
        return ProtocolError(.notPaired, "the primary at \(endpoint) presented certificate \(NodeIdentity.display(seen)), "
            + "not the paired \(NodeIdentity.display(pinned)): refused. The primary changed: if it was set up anew or restored "
            + "without its identity, pair again; if not, something else answers in its place")
    }
}
