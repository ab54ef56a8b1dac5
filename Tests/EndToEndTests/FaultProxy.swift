import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NodeIdentity
import RelayProtocol
import RelayTransport
import Synchronization

/// A TCP proxy of the test's own on loopback, in front of `upstream`, that breaks the link
/// as networks do: it carries nothing one way, or nothing either way, without closing
/// anything, or forgets its clients while the far side stays open (half-open). Given an
/// identity, it is instead a relay that is not blind: inside every relay session (Relay
/// Protocol v1 session mode) it ends the TLS itself, with that identity's certificate.
final class FaultProxy: Sendable {
    /// What the proxy does to the bytes of its connections, old and new.
    enum Fault: Sendable {
        case none
        /// Bytes from the upstream side are dropped; the client's still arrive.
        case dropTowardClient
        /// Nothing arrives either way; nothing is closed.
        case blackhole
    }

    let port: Int
    private let listener: any Channel
    private let state = Mutex<State>(State())

    private struct State {
        var fault = Fault.none
        var links: [ObjectIdentifier: Link] = [:]
        var sessionsEnded = 0
    }

    private init(listener: any Channel) throws {
        self.listener = listener
        guard let port = listener.localAddress?.port else { throw ProcessFailed(description: "the fault proxy has no port") }
        self.port = port
    }

    /// Starts one forwarding to 127.0.0.1:`upstream`; with `impostor`, ending every relay
    /// session's TLS with that identity's certificate instead.
    static func start(upstream: Int, impostor: NodeIdentity? = nil) async throws -> FaultProxy {
        let tls: NIOSSLContext? = try impostor.map { identity in
            let (key, certificate) = try identity.tlsCredentials()
            var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
            configuration.minimumTLSVersion = .tlsv13
            return try NIOSSLContext(configuration: configuration)
        }
        let made = Mutex<FaultProxy?>(nil)
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 64)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: false)
            .childChannelInitializer { client in
                guard let proxy = made.withLock({ $0 }) else { return client.close() }
                return proxy.connect(client, to: upstream, tls: tls)
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let proxy = try FaultProxy(listener: listener)
        made.withLock { $0 = proxy }
        return proxy
    }

    /// Applies `fault` to every connection from now on.
    func set(_ fault: Fault) {
        state.withLock { $0.fault = fault }
    }

    /// Closes the client side of every connection and leaves the upstream side open, as a
    /// router that lost the connection's state leaves the far end believing in it.
    func abandonClients() {
        let links = state.withLock { state in
            defer { state.links.removeAll() }
            return Array(state.links.values)
        }
        for link in links {
            link.keepOtherOpen.withLock { $0 = true }
            link.client.close(promise: nil)
        }
    }

    /// How many connections it carries now.
    var connections: Int { state.withLock { $0.links.count } }

    /// How many relay sessions' TLS the impostor ended itself.
    var sessionsEnded: Int { state.withLock { $0.sessionsEnded } }

    func close() {
        listener.close(promise: nil)
        for link in state.withLock({ Array($0.links.values) }) {
            link.client.close(promise: nil)
            link.upstream.close(promise: nil)
        }
    }

    fileprivate func carries(towardClient: Bool) -> Bool {
        switch state.withLock({ $0.fault }) {
        case .none: true
        case .dropTowardClient: !towardClient
        case .blackhole: false
        }
    }

    fileprivate func endedSessionTLS() {
        state.withLock { $0.sessionsEnded += 1 }
    }

    fileprivate func forget(_ link: Link) {
        _ = state.withLock { $0.links.removeValue(forKey: ObjectIdentifier(link)) }
    }

    private func connect(_ client: any Channel, to upstream: Int, tls: NIOSSLContext?) -> EventLoopFuture<Void> {
        ClientBootstrap(group: client.eventLoop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: "127.0.0.1", port: upstream)
            .flatMap { server in
                let link = Link(client: client, upstream: server)
                self.state.withLock { $0.links[ObjectIdentifier(link)] = link }
                let towardUpstream = Forwarder(proxy: self, link: link, towardClient: false, sessionTLS: tls)
                let towardClient = Forwarder(proxy: self, link: link, towardClient: true, sessionTLS: nil)
                towardClient.clientSide = towardUpstream
                do {
                    try client.pipeline.syncOperations.addHandler(towardUpstream)
                    try server.pipeline.syncOperations.addHandler(towardClient)
                    return client.eventLoop.makeSucceededVoidFuture()
                } catch {
                    return client.eventLoop.makeFailedFuture(error)
                }
            }
    }
}

/// The two channels of one proxied connection.
private final class Link: Sendable {
    let client: any Channel
    let upstream: any Channel
    /// Set when the proxy closes one side on purpose and means the other to stay open.
    let keepOtherOpen = Mutex(false)

    init(client: any Channel, upstream: any Channel) {
        self.client = client
        self.upstream = upstream
    }
}

/// Reads one side of a link and writes what it may to the other. On the client side of an
/// impostor, it watches for a relay session being joined: once the relay has answered, the
/// TLS that follows is the proxy's own.
private final class Forwarder: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    private let proxy: FaultProxy
    private let link: Link
    private let towardClient: Bool
    private let sessionTLS: NIOSSLContext?
    /// On the upstream side: the client side's forwarder, which writes what comes to the client.
    var clientSide: Forwarder?
    private var context: ChannelHandlerContext?
    /// Client side: a JoinSessionRequest went up; the relay's answer is awaited.
    private var joining = false
    /// Client side: the TLS from here on is the proxy's, and nothing goes upstream.
    private var intercepting = false

    init(proxy: FaultProxy, link: Link, towardClient: Bool, sessionTLS: NIOSSLContext?) {
        self.proxy = proxy
        self.link = link
        self.towardClient = towardClient
        self.sessionTLS = sessionTLS
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if intercepting { return context.fireChannelRead(data) }
        let buffer = unwrapInboundIn(data)
        // A session-mode connection opens with a JoinSessionRequest; protocol mode opens with TLS.
        if !towardClient, sessionTLS != nil, buffer.getInteger(at: buffer.readerIndex, as: UInt32.self) == RelayMessage.magic {
            joining = true
        }
        guard proxy.carries(towardClient: towardClient) else { return }
        if let clientSide {
            // Both channels of a link are on one event loop.
            clientSide.deliver(buffer)
        } else {
            link.upstream.writeAndFlush(buffer, promise: nil)
        }
    }

    /// Client side: writes the upstream's bytes to the client. After a join they are the
    /// relay's answer, passed on as it is; then the proxy's TLS server stands where the
    /// other device should.
    private func deliver(_ bytes: ByteBuffer) {
        guard let context else { return }
        context.writeAndFlush(NIOAny(bytes), promise: nil)
        guard joining, let sessionTLS else { return }
        joining = false
        intercepting = true
        try? context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: sessionTLS))
        proxy.endedSessionTLS()
        link.keepOtherOpen.withLock { $0 = true }
        link.upstream.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        proxy.forget(link)
        if !link.keepOtherOpen.withLock({ $0 }) {
            (towardClient ? link.client : link.upstream).close(promise: nil)
        }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
