import Logging
import ServiceLifecycle
import Waiting

/// Keeps a service advertised while it runs (a `Service` for a `ServiceGroup`): registers
/// it once its port is known, again whenever the daemon drops the registration (a restarted
/// daemon), and while the daemon is away after 1 s, then twice as long each time up to
/// ``retryBackoff``'s 30 s, so that a primary without a daemon sleeps; logged once at
/// warning level (each retry at debug). A graceful shutdown or cancellation withdraws it.
public struct Advertiser: Service {
    public var name: String
    public var type: String
    public var txt: [String: String]
    /// The port to advertise, once the service listens.
    public var port: @Sendable () async throws -> Int
    public var logger: Logger
    /// Told the name registered (another after a conflict: "… #2") each time it is.
    public var onAdvertised: @Sendable (String) -> Void

    public init(
        name: String, type: String, txt: [String: String], port: @escaping @Sendable () async throws -> Int, logger: Logger,
        onAdvertised: @escaping @Sendable (String) -> Void = { _ in }
    ) {
        self.name = name
        self.type = type
        self.txt = txt
        self.port = port
        self.logger = logger
        self.onAdvertised = onAdvertised
    }

    public func run() async throws {
        let port = try await port()
        try await cancelWhenGracefulShutdown { [self] in await advertise(port: port) }
    }

    /// The waits between registrations while the daemon is away.
    static let retryBackoff = Backoff(first: .seconds(1), maximum: .seconds(30))

    private func advertise(port: Int) async {
        var reportedFailure = false
        var failures = 0
        while !Task.isCancelled {
            do {
                let advertisement = try await ServiceAdvertisement.register(name: name, type: type, port: port, txt: txt)
                reportedFailure = false
                failures = 0
                onAdvertised(advertisement.name)
                // Until the daemon drops it, or the task is cancelled.
                for await _ in advertisement.ended { break }
                advertisement.cancel()
            } catch {
                logger.log(level: reportedFailure ? .debug : .warning, "not advertised; retrying", metadata: [
                    "error": "\(error)",
                ])
                reportedFailure = true
                failures += 1
            }
            try? await Task.sleep(for: Self.retryBackoff.delay(attempt: failures - 1))  // cancelled: the loop ends
        }
    }
}
