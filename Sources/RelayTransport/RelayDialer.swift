import Clocks
import NIOCore
import NIOPosix
import NodeIdentity
import RelayProtocol
import Synchronization

/// A protocol-mode connection to a relay: relay messages each way, over TLS.
typealias RelayChannel = NIOAsyncChannel<RelayMessage, RelayMessage>

/// Reaches relays: connects in protocol mode (TLS, ALPN `bep-relay`, the relay's id pinned),
/// asks for a session with a device (temporary mode) and joins sessions (session mode).
/// Syncthing's Relay Protocol v1, written from its specification (syncthing/docs
/// `specs/relay-v1.rst`).
public struct RelayDialer: Sendable {
    /// How long a TCP connect may take.
    public var connectTimeout: Duration = .seconds(5)
    /// How long a relay may take to answer a request: a join, a session asked for, a pong.
    public var answerTimeout: Duration = .seconds(10)
    /// What those waits are measured on.
    public var clock: any WallClock = .system

    public init() {}

    /// A TLS connection to `relay` presenting `identity`, wrapped for async use; `seen`
    /// learns the id the relay presented.
    func protocolChannel(to relay: RelayAddress, identity: NodeIdentity, seen: PresentedRelay) async throws -> RelayChannel {
        let tls = try RelayTLS(identity: identity)
        return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: relay.host, port: relay.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        try tls.handler(pinned: relay.id, seen: seen),
                        ByteToMessageHandler(RelayMessageDecoder()),
                        MessageToByteHandler(RelayMessageEncoder()),
                    ])
                    return try RelayChannel(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// Sends `request` on `channel` and waits for the relay's next message.
    ///
    /// - Throws: ``RelayError/identityChanged(relay:presented:)`` if the relay's certificate
    ///   is not the one pinned, ``RelayError/timedOut(relay:waitingFor:)`` or
    ///   ``RelayError/closed(relay:waitingFor:)`` if no answer comes.
    func ask(
        _ request: RelayMessage, awaiting: String, relay: RelayAddress, seen: PresentedRelay, on channel: any Channel,
        _ inbound: inout NIOAsyncChannelInboundStream<RelayMessage>.AsyncIterator, _ outbound: NIOAsyncChannelOutboundWriter<RelayMessage>
    ) async throws -> RelayMessage {
        try await answer(on: channel, relay: relay, awaiting: awaiting) {
            do {
                try await outbound.write(request)
                if let message = try await inbound.next() { return message }
                throw RelayError.closed(relay: relay, waitingFor: awaiting)
            } catch {
                if let presented = seen.id.withLock({ $0 }), presented != relay.id {
                    throw RelayError.identityChanged(relay: relay, presented: presented)
                }
                throw error
            }
        }
    }

    /// What `wait` returns, if it does within the answer timeout; past it the connection is
    /// closed (so that the wait ends) and the wait's failure is reported as the timeout.
    private func answer<T>(
        on channel: any Channel, relay: RelayAddress, awaiting: String, _ wait: () async throws -> T
    ) async throws -> T {
        let timedOut = Atomic(false)
        let timer = Task { [answerTimeout, clock] in
            try await clock.sleep(answerTimeout)
            timedOut.store(true, ordering: .relaxed)
            channel.close(promise: nil)
        }
        defer { timer.cancel() }
        do {
            return try await wait()
        } catch {
            if timedOut.load(ordering: .relaxed) { throw RelayError.timedOut(relay: relay, waitingFor: awaiting) }
            throw error
        }
    }

    private func answer(_ future: EventLoopFuture<Void>, on channel: any Channel, relay: RelayAddress, awaiting: String) async throws {
        try await answer(on: channel, relay: relay, awaiting: awaiting) { try await future.get() }
    }

    /// Asks `relay` for a session with the device `device` waits there as (temporary mode),
    /// presenting `identity` (a companion's is new for each request: the relay learns
    /// nothing that links two of them).
    ///
    /// - Throws: ``RelayError/refused(relay:_:)`` with `not found` when the device is not
    ///   there, ``RelayError/full(relay:)``, or why no answer came.
    public func invitation(to device: RelayDeviceID, at relay: RelayAddress, identity: NodeIdentity) async throws -> SessionInvitation {
        let seen = PresentedRelay()
        let channel = try await protocolChannel(to: relay, identity: identity, seen: seen)
        return try await channel.executeThenClose { inbound, outbound in
            var reader = inbound.makeAsyncIterator()
            switch try await ask(
                .connectRequest(id: device), awaiting: "a session invitation", relay: relay, seen: seen, on: channel.channel, &reader, outbound
            ) {
            case .sessionInvitation(let invitation): return invitation
            case .response(let response): throw RelayError.refused(relay: relay, response)
            case .relayFull: throw RelayError.full(relay: relay)
            case let other: throw RelayError.unexpected(relay: relay, other)
            }
        }
    }

    /// Joins the session `invitation` names (session mode: plain TCP, one request, then a
    /// pipe of raw bytes), then runs `configure` on the channel's event loop to install what
    /// speaks over the pipe; bytes the peer sent before that (a relay buffers what the side
    /// that joined first sends) reach it in order.
    ///
    /// - Throws: ``RelayError/refused(relay:_:)`` for a key the relay does not know or a
    ///   session already full, ``RelayError/full(relay:)``, or why no answer came.
    public func joinSession<Value: Sendable>(
        _ invitation: SessionInvitation, at relay: RelayAddress,
        then configure: @escaping @Sendable (any Channel) throws -> EventLoopFuture<Value>
    ) async throws -> Value {
        let gate = RelaySessionGate(relay: relay)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(TimeAmount(connectTimeout))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .channelInitializer { $0.pipeline.addHandler(gate) }
            .connect(host: invitation.host(relay: relay), port: Int(invitation.port)).get()
        do {
            try await channel.writeAndFlush(ByteBuffer(bytes: RelayMessage.joinSessionRequest(key: invitation.key).encoded))
            try await answer(gate.answer.futureResult, on: channel, relay: relay, awaiting: "an answer to joining the session")
            return try await channel.eventLoop.flatSubmit {
                do {
                    return try configure(channel).map { value in
                        gate.open()
                        return value
                    }
                } catch {
                    return channel.eventLoop.makeFailedFuture(error)
                }
            }.get()
        } catch {
            try? await channel.close()
            throw error
        }
    }
}

extension SessionInvitation {
    /// Where to join the session: the invitation's address, or the relay's own when it is
    /// empty or unspecified (as the specification allows).
    func host(relay: RelayAddress) -> String {
        guard address.contains(where: { $0 != 0 }) else { return relay.host }
        switch address.count {
        case 4: return address.map(String.init).joined(separator: ".")
        case 16:
            return stride(from: 0, to: 16, by: 2).map { String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        default: return relay.host
        }
    }
}
