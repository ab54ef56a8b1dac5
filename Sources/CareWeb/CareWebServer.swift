import CareCore
import CarePlanStore
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HTTPServing
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization

/// The care app, served over HTTP on loopback (HTTPS with the primary's certificate
/// elsewhere) from the primary's store: a `Service` to run in the primary's `ServiceGroup`
/// beside the change feed it follows for live updates.
public final class CareWebServer: Service, Sendable {
    let store: CarePlanStore
    /// The care core: the one way anything the app does changes the record.
    let core: CareCore
    let changes: StoreChangeFeed
    let configuration: WebConfiguration
    let logger: Logger
    let live = LiveStreams()
    let signInThrottle: SignInThrottle
    let printQueue: PrintQueue
    /// The hosts a request's `Host` may name (``WebConfiguration/servedHosts()``).
    let acceptedHosts: Set<String>
    private let address = BoundAddress()

    /// - Throws: ``WebServerError/needsTLS(host:)`` for an address beyond loopback without an
    ///   identity to serve HTTPS with.
    public init(store: CarePlanStore, changes: StoreChangeFeed, configuration: WebConfiguration, logger: Logger) throws(WebServerError) {
        try configuration.check()
        self.store = store
        core = CareCore(store: store)
        self.changes = changes
        self.configuration = configuration
        self.logger = logger
        signInThrottle = SignInThrottle(limit: configuration.signInAttemptsPerSource, refill: configuration.signInRefill)
        printQueue = PrintQueue(capacity: configuration.reportsWaiting)
        acceptedHosts = configuration.servedHosts()
    }

    /// Whether pages are served over TLS (and cookies marked Secure).
    var isSecure: Bool { configuration.identity != nil }

    /// Serves until a graceful shutdown, which also ends every open live stream, through
    /// ``HTTPServing`` (Hummingbird's server without its `Application` and its timer): the
    /// `Date` header is made when a response needs it (``HTTPDate``).
    public func run() async throws {
        let (responder, logger, address) = (self.responder(), logger, address)
        let builder = try serverBuilder()
        defer { address.fail("the care app stopped") }
        try await withGracefulShutdownHandler {
            try await HTTPServing.run(builder, on: bindAddress, logger: logger) { request, channel in
                try await responder.respond(to: request, context: WebContext(source: .init(channel: channel, logger: logger)))
            } onRunning: { channel in
                address.set(channel.localAddress)
            }
        } onGracefulShutdown: { [live] in
            live.endAll()
        }
    }

    /// The app as a Hummingbird application, with `services` run beside it: what tests drive
    /// through HummingbirdTesting without a socket, answering with ``run()``'s responder.
    func application(services: [any Service] = []) throws -> Application<AppResponder> {
        Application(
            responder: responder(), server: try serverBuilder(), configuration: .init(address: bindAddress, serverName: nil), services: services,
            onServerRunning: { [address] channel in address.set(channel.localAddress) }, logger: logger)
    }

    typealias AppResponder = DatedResponder<WebFrontDoor<RouterResponder<WebContext>>>

    /// The one assembly of what answers a request, served and tested alike: the front door,
    /// then the controllers' routes, and the `Date` header on every answer.
    func responder() -> AppResponder {
        let door = WebFrontDoor(
            routes: routes().buildResponder(), store: store, access: core.access, backupHealth: configuration.backupHealth, acceptedHosts: acceptedHosts,
            isSecure: isSecure, logger: logger)
        return DatedResponder(inner: door, dates: HTTPDate(clock: configuration.clock))
    }

    private var bindAddress: BindAddress {
        .hostname(configuration.host, port: configuration.port)
    }

    /// Where it listens, once it does.
    public func boundAddress() async throws -> SocketAddress {
        try await address.value()
    }

    private func serverBuilder() throws -> HTTPServerBuilder {
        let http1 = HTTPServerBuilder.http1(configuration: .init(
            additionalChannelHandlers: [ClientGone()],
            idleTimeout: TimeAmount(configuration.idleTimeout)))
        guard let identity = configuration.identity else { return http1 }
        let key = try NIOSSLPrivateKey(bytes: Array(identity.privateKey.serializeAsPEM().pemString.utf8), format: .pem)
        let certificate = try NIOSSLCertificate(bytes: configuration.serverCertificate?.der ?? identity.certificateDER, format: .der)
        var tls = TLSConfiguration.makeServerConfiguration(certificateChain: [.certificate(certificate)], privateKey: .privateKey(key))
        tls.minimumTLSVersion = .tlsv12
        return try .tls(http1, tlsConfiguration: tls)
    }
}

/// The address a server bound, for those who wait for it.
final class BoundAddress: Sendable {
    private struct State {
        var result: Result<SocketAddress, WebServerError>?
        var waiting: [CheckedContinuation<Result<SocketAddress, WebServerError>, Never>] = []
    }

    private let state = Mutex(State())

    func set(_ address: SocketAddress?) {
        resolve(address.map { .success($0) } ?? .failure(.notListening("no local address")))
    }

    func fail(_ reason: String) {
        resolve(.failure(.notListening(reason)))
    }

    func value() async throws(WebServerError) -> SocketAddress {
        try await withCheckedContinuation { continuation in
            let known = state.withLock { state in
                if state.result == nil { state.waiting.append(continuation) }
                return state.result
            }
            if let known { continuation.resume(returning: known) }
        }.get()
    }

    private func resolve(_ result: Result<SocketAddress, WebServerError>) {
        let waiting = state.withLock { state in
            guard state.result == nil else { return [CheckedContinuation<Result<SocketAddress, WebServerError>, Never>]() }
            state.result = result
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume(returning: result) }
    }
}
