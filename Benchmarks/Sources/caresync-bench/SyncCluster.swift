import CareCore
import CarePlan
import CarePlanStore
import Foundation
import NodeIdentity
import SyncNode
import Synchronization
import Clocks

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
    /// Whether the companions offer `context-delta`.
    let deltas: Bool
    private(set) var nodes: [CompanionNode] = []
    private let identity: NodeIdentity
    private var primary: ServingPrimary?

    init(
        companions count: Int, security: TransportSecurity, deltas: Bool, plan: Plan, today: CalendarDay,
        companionDirectory root: URL?
    ) async throws {
        let name = "caresync-bench-sync-\(UUID().uuidString)"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        companionDirectory = root?.appendingPathComponent(name) ?? directory
        self.security = security
        self.deltas = deltas
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            store = try await CarePlanStore(path: directory.appendingPathComponent("primary.sqlite").path)
            try await CareCore(store: store).plan.load(plan, effectiveFrom: today, device: "bench")
            keys = try await store.outcomes.events(on: today).map(\.key)
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
        let pairing = try await ServingPrimary.start(PrimaryNode(store: store, configuration: configuration), shutdownLimit: timeout)
        let samples: Samples
        let start = ContinuousClock.now
        do {
            let (directory, deltas) = (companionDirectory, deltas)
            samples = try await pairAll(fleet.count, width: width, through: store, until: deadline) { index in
                try await CompanionNode(configuration: Self.configuration(
                    index, in: directory, port: pairing.port, security: .tls, timeout: timeout, deltas: deltas))
            }
        } catch {
            _ = await Self.stopped(pairing)
            throw error
        }
        let total = start.duration(to: .now).inSeconds
        if let problem = await Self.stopped(pairing) { throw BenchmarkFailure("pairing: \(problem)") }
        return (samples, total)
    }

    /// Starts the primary over the cluster's transport, then every paired companion, and
    /// waits until each holds a context.
    func start(timeout: Duration) async throws {
        var configuration = PrimaryConfiguration(identity: identity)
        configuration.security = security
        let primary = try await ServingPrimary.start(PrimaryNode(store: store, configuration: configuration), shutdownLimit: timeout)
        self.primary = primary
        let revision = try await store.revision()
        for index in 0..<fleet.count {
            let node = try await CompanionNode(configuration: Self.configuration(
                index, in: companionDirectory, port: primary.port, security: security, timeout: timeout, deltas: deltas))
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
        if let primary, let problem = await Self.stopped(primary) { problems.append(problem) }
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(at: companionDirectory)
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    /// Stops `primary`; what went wrong, if anything.
    private static func stopped(_ primary: ServingPrimary) async -> String? {
        do {
            try await primary.stop()
            return nil
        } catch {
            return "the primary failed: \(error)"
        }
    }

    /// Companion `index`: alternately a watch and a widget, each with its own state directory.
    private static func configuration(
        _ index: Int, in companionDirectory: URL, port: Int, security: TransportSecurity, timeout: Duration, deltas: Bool
    ) -> CompanionConfiguration {
        var configuration = CompanionConfiguration(
            role: index % 2 == 0 ? .watch : .widget, name: "Bench companion \(index)",
            stateDirectory: companionDirectory.appendingPathComponent("companion-\(index)").path,
            endpoint: PrimaryEndpoint(host: "127.0.0.1", port: port))
        configuration.security = security
        configuration.replyTimeout = timeout
        configuration.contextDeltas = deltas
        return configuration
    }
}

