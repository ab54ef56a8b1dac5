import Logging
import NIOCore
import ServiceLifecycle

/// A primary and its services in a `ServiceGroup` of their own, without signal handling:
/// for programs and tests that start and stop primaries in process (`caresync primary`
/// builds its own group, with signals, metrics and the advertisement).
public final class ServingPrimary: Sendable {
    public let node: PrimaryNode
    /// Where it listens.
    public let address: SocketAddress
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    private init(node: PrimaryNode, address: SocketAddress, group: ServiceGroup, running: Task<Void, any Error>) {
        self.node = node
        self.address = address
        self.group = group
        self.running = running
    }

    /// Runs `node` and its services, and returns once it listens; throws if it cannot. A
    /// graceful shutdown that takes longer than `shutdownLimit` is cancelled.
    public static func start(_ node: PrimaryNode, shutdownLimit: Duration = .seconds(10)) async throws -> ServingPrimary {
        var configuration = ServiceGroupConfiguration(services: node.services, logger: node.logger)
        configuration.maximumGracefulShutdownDuration = shutdownLimit
        let group = ServiceGroup(configuration: configuration)
        let running = Task { try await group.run() }
        do {
            return ServingPrimary(node: node, address: try await node.boundAddress(), group: group, running: running)
        } catch {
            running.cancel()
            _ = await running.result
            throw error
        }
    }

    /// The port it listens on.
    public var port: Int { address.port ?? 0 }

    /// Shuts down gracefully (Goodbye to every companion) and waits until it has; throws
    /// what ended it if it failed.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
    }
}
