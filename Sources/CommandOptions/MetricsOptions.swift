import ArgumentParser
import Logging
import MetricsEndpoint

/// `--metrics-port`, which the primary and the simulators take.
public struct MetricsOptions: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp(
        "Serve metrics in Prometheus's text format at http://127.0.0.1:PORT/metrics (0: a free port).", valueName: "port"))
    public var metricsPort: Int?

    public init() {}

    public func validate() throws {
        if let metricsPort, !(0...65_535).contains(metricsPort) {
            throw ValidationError("--metrics-port must be 0 to 65535, not \(metricsPort)")
        }
    }

    /// The endpoint to run, with swift-metrics bootstrapped to report to it; `nil` without
    /// `--metrics-port`. Call once, before any node is made.
    public func endpoint(logger: Logger, onListening: @escaping @Sendable (Int) -> Void) -> MetricsEndpoint? {
        metricsPort.map { MetricsEndpoint(registry: MetricsEndpoint.bootstrap(), port: $0, logger: logger, onListening: onListening) }
    }
}
