import HTTPServing
import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
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

    /// Serves through ``HTTPServing`` (Hummingbird's server, as the care app's) until a
    /// graceful shutdown, which stops it cleanly (the process exits 0 on SIGTERM).
    public func run() async throws {
        let (registry, port, onListening) = (registry, port, onListening)
        try await HTTPServing.run(.http1(), on: .hostname(host, port: port), logger: logger) { request, _ in
            guard request.method == .get, request.uri.path == "/metrics" else {
                return Response(
                    status: .notFound, headers: [.contentType: "text/plain; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: "only GET /metrics is served here\n")))
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        } onRunning: { channel in
            onListening(channel.localAddress?.port ?? port)
        }
    }
}
