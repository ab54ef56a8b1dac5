import ArgumentParser
import BenchmarkWorkloads
import CareCore
import CarePlan
import CarePlanStore
import Discovery
import Foundation
import Logging
import NIOCore
import NodeIdentity
import SimulatorSupport
import SyncNode
import Clocks

struct DiscoveryBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discovery",
        abstract: "Time from a primary's start, and from its restart on a new port, until a companion is connected through mDNS.",
        discussion: "Needs the mDNS daemon: scripts/mdns-sandbox start.")

    @Option(help: "Runs to measure.")
    var runs = 10

    @Option(help: "Seconds to wait for a companion before giving up on a run.")
    var timeout = 30.0

    /// Waits for the companion's next connection.
    private func connected(_ watch: CompanionNode, what: String) async throws {
        guard await watch.firstEvent(within: .seconds(timeout), { event in
            if case .connected = event { true } else { nil }
        }) != nil else { throw ValidationError("no \(what) within \(timeout) s") }
    }

    func run() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-discovery-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await CarePlanStore(path: directory.appendingPathComponent("store.sqlite").path)
        let today = CalendarDay.containing(Date(), in: .gmt)
        try await CareCore(store: store).plan.load(Workloads.plan(activities: 5, start: today), effectiveFrom: today, device: "bench")

        let identity = try NodeIdentity.create(name: "Bench primary", now: Date())
        print("caresync-bench discovery: \(runs) runs; Avahi probes a new name for about 0.75 s before others see it")
        var starts = Samples()
        var restarts = Samples()
        let silent = Logger(label: "caresync-bench", factory: { _ in SwiftLogNoOpLogHandler() })
        for run in 0..<runs {
            let name = "Bench primary \(run) \(UUID().uuidString.prefix(4))"
            var configuration = CompanionConfiguration(
                role: .watch, name: "Bench watch", stateDirectory: directory.appendingPathComponent("watch-\(run)").path
            ) { known in try await PrimaryDiscovery(choice: name, report: { _ in }, logger: silent).locate(knownPrimaryID: known) }
            configuration.replyTimeout = .seconds(timeout)
            let watch = try await CompanionNode(configuration: configuration)
            // Paired first (untimed), as a watch is before it ever looks for its primary.
            var primary = try await AdvertisedPrimary(store: store, name: name, identity: identity)
            try await pair(watch, through: store)
            await primary.stop()
            let watching = Task { await watch.run() }

            let clock = ContinuousClock()
            var started = clock.now
            primary = try await AdvertisedPrimary(store: store, name: name, identity: identity)
            try await connected(watch, what: "a first connection in run \(run)")
            starts.append((clock.now - started).inSeconds)

            await primary.stop()
            started = clock.now
            primary = try await AdvertisedPrimary(store: store, name: name, identity: identity)
            try await connected(watch, what: "a reconnection in run \(run)")
            restarts.append((clock.now - started).inSeconds)

            await watch.stop()
            await watching.value
            await primary.stop()
        }
        report("primary start → companion connected", "median \(duration(starts.median))  worst \(duration(starts.percentile(100)))")
        report("primary restart → companion reconnected", "median \(duration(restarts.median))  worst \(duration(restarts.percentile(100)))")
    }
}

/// A primary on a free loopback port, advertised with DNS-SD.
private struct AdvertisedPrimary {
    let primary: ServingPrimary
    let advertisement: ServiceAdvertisement

    init(store: CarePlanStore, name: String, identity: NodeIdentity) async throws {
        var configuration = PrimaryConfiguration(identity: identity)
        configuration.port = 0
        configuration.name = name
        primary = try await ServingPrimary.start(PrimaryNode(store: store, configuration: configuration))
        advertisement = try await ServiceAdvertisement.register(
            name: name, type: PrimaryDiscovery.serviceType, port: primary.port,
            txt: ["txtvers": "1", "role": "primary", "node": configuration.nodeID, "fp": configuration.nodeID,
                  "plan": try store.plan.info().planID])
    }

    func stop() async {
        advertisement.cancel()
        try? await primary.stop()  // a benchmark of discovery: how the primary ended is not measured
    }
}
