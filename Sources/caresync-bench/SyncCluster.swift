import CarePlan
import CarePlanStore
import Foundation
import NodeIdentity
import Synchronization
import SyncNode

/// A primary on a fresh store with its companions, all in this process, over one transport.
final class Cluster {
    let directory: URL
    /// Where the companions keep their state.
    let companionDirectory: URL
    let store: CarePlanStore
    /// Today's events, to complete.
    let keys: [EventKey]
    let fleet: Fleet
    let security: TransportSecurity
    private(set) var nodes: [CompanionNode] = []
    private let identity: NodeIdentity
    private var primary: RunningPrimary?

    init(
        companions count: Int, security: TransportSecurity, plan: Plan, today: CalendarDay, companionDirectory root: URL?
    ) throws {
        let name = "caresync-bench-sync-\(UUID().uuidString)"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        companionDirectory = root?.appendingPathComponent(name) ?? directory
        self.security = security
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            store = try CarePlanStore(path: directory.appendingPathComponent("primary.sqlite").path)
            try store.load(plan, effectiveFrom: today, device: "bench")
            keys = try store.events(on: today).map(\.key)
            identity = try NodeIdentity.create(name: "Bench primary", now: Date())
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        fleet = Fleet(count: count)
    }

    /// Pairs every companion, `width` at a time, with a primary on the store that serves
    /// over TLS (pairing needs it), then stops that primary; returns each pairing's duration,
    /// and the time from the first code to the last PairAccept. The companions keep what they
    /// learnt in their state directories for ``start(timeout:)``.
    func pair(
        width: Int, timeout: Duration, until deadline: ContinuousClock.Instant
    ) async throws -> (each: Samples, total: Double) {
        var configuration = PrimaryConfiguration(identity: identity)
        configuration.pairingAttemptsPerMinute = max(configuration.pairingAttemptsPerMinute, fleet.count)
        let pairing = try await RunningPrimary.start(PrimaryNode(store: store, configuration: configuration), within: timeout)
        let samples: Samples
        let start = ContinuousClock.now
        do {
            let directory = companionDirectory
            samples = try await pairAll(fleet.count, width: width, through: store, until: deadline) { index in
                try CompanionNode(configuration: Self.configuration(
                    index, in: directory, port: pairing.port, security: .tls, timeout: timeout))
            }
        } catch {
            _ = await pairing.stop(within: timeout)
            throw error
        }
        let total = start.duration(to: .now).seconds
        if let problem = await pairing.stop(within: timeout) { throw BenchmarkFailure("pairing: \(problem)") }
        return (samples, total)
    }

    /// Starts the primary over the cluster's transport, then every paired companion, and
    /// waits until each holds a context.
    func start(timeout: Duration) async throws {
        var configuration = PrimaryConfiguration(identity: identity)
        configuration.security = security
        let primary = try await RunningPrimary.start(PrimaryNode(store: store, configuration: configuration), within: timeout)
        self.primary = primary
        let revision = try store.revision()
        for index in 0..<fleet.count {
            let node = try CompanionNode(configuration: Self.configuration(
                index, in: companionDirectory, port: primary.port, security: security, timeout: timeout))
            nodes.append(node)
            let fleet = fleet
            Task { await node.run() }
            Task { await fleet.follow(index, node.events) }
        }
        guard await fleet.wait(within: timeout, until: { $0.allSatisfy { $0.revision >= revision } }) else {
            let members = fleet.members
            let index = members.firstIndex { $0.revision < revision } ?? 0
            throw BenchmarkFailure(
                "companion \(index) of \(fleet.count) received no context within \(timeout)"
                    + " (\(members[index].connected ? "connected" : "never connected")\(members[index].lastProblem.map { ": \($0)" } ?? ""))")
        }
    }

    /// Stops the companions, then the primary, and removes the files; returns what did not
    /// stop in time, if anything.
    func stop(within timeout: Duration) async -> String? {
        let nodes = nodes
        await withDiscardingTaskGroup { group in
            for node in nodes { group.addTask { await node.stop() } }
        }
        var problems: [String] = []
        if !(await fleet.wait(within: timeout, until: { $0.prefix(nodes.count).allSatisfy(\.finished) })) {
            problems.append("\(fleet.members.prefix(nodes.count).count { !$0.finished }) companions did not stop within \(timeout)")
        }
        if let problem = await primary?.stop(within: timeout) { problems.append(problem) }
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(at: companionDirectory)
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// Companion `index`: alternately a watch and a widget, each with its own state directory.
    private static func configuration(
        _ index: Int, in companionDirectory: URL, port: Int, security: TransportSecurity, timeout: Duration
    ) -> CompanionConfiguration {
        var configuration = CompanionConfiguration(
            role: index % 2 == 0 ? .watch : .widget, name: "Bench companion \(index)",
            stateDirectory: companionDirectory.appendingPathComponent("companion-\(index)").path,
            endpoint: PrimaryEndpoint(host: "127.0.0.1", port: port))
        configuration.security = security
        configuration.replyTimeout = timeout
        return configuration
    }
}

/// A primary node serving from a task of its own, with the port it listens on.
final class RunningPrimary: Sendable {
    private let node: PrimaryNode
    /// The port once it listens, and how its run ended.
    private let status = Mutex<(port: Int?, stopped: Bool, problem: String?)>((nil, false, nil))

    /// The port it listens on, on 127.0.0.1.
    var port: Int { status.withLock { $0.port } ?? 0 }

    private init(node: PrimaryNode) {
        self.node = node
    }

    /// Runs `node` and waits until it listens.
    static func start(_ node: PrimaryNode, within timeout: Duration) async throws -> RunningPrimary {
        let primary = RunningPrimary(node: node)
        Task {
            do {
                try await node.run { address in primary.status.withLock { $0.port = address.port ?? 0 } }
                primary.status.withLock { $0.stopped = true }
            } catch {
                primary.status.withLock { $0 = ($0.port, true, "\(error)") }
            }
        }
        guard await poll(within: timeout, until: { primary.status.withLock { $0.port != nil || $0.stopped } }),
              primary.status.withLock({ $0.port }) != nil else {
            node.shutdown()
            throw BenchmarkFailure(
                "the primary did not listen within \(timeout): \(primary.status.withLock { $0.problem } ?? "no address")")
        }
        return primary
    }

    /// Stops the primary; returns what went wrong, if anything.
    func stop(within timeout: Duration) async -> String? {
        node.shutdown()
        guard await poll(within: timeout, until: { status.withLock { $0.stopped } }) else {
            return "the primary did not stop within \(timeout)"
        }
        return status.withLock { $0.problem }.map { "the primary failed: \($0)" }
    }
}
