import Logging
import Metrics
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle

/// The process's metrics in Prometheus's text format at `GET /metrics`, over HTTP on
/// loopback (by default), for `--metrics-port`: a `Service` that serves until a graceful
/// shutdown or cancellation. ``bootstrap()`` makes swift-metrics report to the registry it
/// serves.
public struct MetricsEndpoint: Service {
    public let registry: PrometheusCollectorRegistry
    public var host: String
    /// 0 picks a free port.
    public var port: Int
    public var logger: Logger
    /// Told the bound port once it listens.
    public var onListening: @Sendable (Int) -> Void

    public init(
        registry: PrometheusCollectorRegistry, host: String = "127.0.0.1", port: Int,
        logger: Logger = Logger(label: "caresync.metrics", factory: { _ in SwiftLogNoOpLogHandler() }),
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.registry = registry
        self.host = host
        self.port = port
        self.logger = logger
        self.onListening = onListening
    }

    /// Makes every metric of the process (swift-metrics) report to a new registry and
    /// returns it. Call once, before any node is made.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = durationBuckets
        MetricsSystem.bootstrap(factory)
        return registry
    }

    /// Latency buckets from 0.1 ms to 10 s: loopback round trips are a fraction of a millisecond.
    static let durationBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2.5), .seconds(10),
    ]

    public func run() async throws {
        do {
            try await cancelWhenGracefulShutdown { [self] in try await serve() }
        } catch is CancellationError where Task.isShuttingDownGracefully {
            // Stopped by the graceful shutdown, as asked: not a failure (the process would
            // exit 1 on SIGTERM otherwise).
        }
    }

    private func serve() async throws {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                }
            }
        onListening(server.channel.localAddress?.port ?? port)
        try await withTaskCancellationHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        group.addTask { await serve(connection) }
                    }
                }
            }
        } onCancel: {
            server.channel.close(promise: nil)
        }
    }

    /// Answers the requests of one connection, then closes it.
    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        do {
            try await connection.executeThenClose { requests, responses in
                for try await part in requests {
                    guard case .head(let head) = part else { continue }
                    let (status, body) = head.method == .GET && head.uri.split(separator: "?").first == "/metrics"
                        ? (HTTPResponseStatus.ok, registry.emitToBuffer())
                        : (.notFound, Array("only GET /metrics is served here\n".utf8))
                    var headers = HTTPHeaders()
                    headers.add(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8")
                    headers.add(name: "Content-Length", value: "\(body.count)")
                    headers.add(name: "Connection", value: "close")
                    try await responses.write(.head(HTTPResponseHead(version: head.version, status: status, headers: headers)))
                    try await responses.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
                    try await responses.write(.end(nil))
                    return
                }
            }
        } catch {
            logger.debug("a metrics request failed", metadata: ["error": "\(error)"])
        }
    }
}
