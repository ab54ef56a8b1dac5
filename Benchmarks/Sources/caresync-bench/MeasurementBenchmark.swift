import ArgumentParser
import CarePlan
import Foundation
import GRDB
import SyncNode

struct MeasurementBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measurements",
        abstract: "Health measurements from watches to the primary's durable store: samples/s flat out, latency at 1 Hz.",
        discussion: """
            A primary on a fresh store and that many companions in this process, paired over TLS \
            first (protocol section 21: MeasurementBatch and MeasurementReceipt). Flat out: one \
            companion, then every one at once, hands its samples to its outbox in one call, and the \
            time runs until the primary has answered the last (each answered only once committed). \
            At 1 Hz: one companion, then every one, takes a sample a second and waits for its \
            receipt. Then every sample the primary stored goes to the FHIR test server as R4 \
            Observations (transactions of 100 with the Patient and Devices): resources/s. The floor, \
            SQLite inserting the same number of rows in transactions of 500 (WAL, synchronous = \
            FULL, as the store does), is measured in the same run.
            """)

    @Option(help: "Companions (the flat-out and 1 Hz runs use one, then all).")
    var watches = 10

    @Option(help: "Samples sent flat out, in all, in each flat-out run.")
    var samples = 20_000

    @Option(help: "Seconds of the 1 Hz runs.")
    var seconds = 10.0

    @Option(help: "Seconds to wait for the primary or a receipt before giving up.")
    var timeout = 120.0

    func validate() throws {
        guard watches > 0, samples >= watches, seconds > 0, timeout > 0 else {
            throw ValidationError("--watches, --seconds and --timeout must be positive, --samples at least --watches")
        }
    }

    func run() async throws {
        let today = CalendarDay.containing(Date(), in: .gmt)
        let cluster = try await Cluster(
            companions: watches, security: .tls, deltas: true, plan: SyncBenchmark.plan(occurrences: 4, start: today), today: today,
            companionDirectory: nil)
        print("caresync-bench measurements: \(SyncBenchmark.label(watches)) and a primary in this process, over TLS")
        var problem: String?
        do {
            _ = try await cluster.pair(width: 1, timeout: .seconds(timeout), until: .now + .seconds(timeout))
            try await cluster.start(timeout: .seconds(timeout))
            try await measure(cluster)
        } catch {
            problem = "\(error)"
        }
        if let stopped = await cluster.stop(within: .seconds(timeout)) { problem = problem ?? stopped }
        if let problem { throw BenchmarkFailure(problem) }
    }

    private func measure(_ cluster: Cluster) async throws {
        let floor = try await Self.floor(rows: samples)
        print("flat out (\(samples) samples a run, from the companions' outboxes to the primary's store):")
        var rates: [(String, Double)] = []
        for count in Set([1, watches]).sorted() {
            let rate = try await flatOut(cluster, companions: count)
            report("\(SyncBenchmark.label(count))", String(format: "%.0f samples/s", rate))
            rates.append((SyncBenchmark.label(count), rate))
        }
        report("floor: SQLite batched insert, 500 a commit", String(format: "%.0f rows/s", floor))
        for (label, rate) in rates { report("\(label) ÷ floor", String(format: "%.2f×", rate / floor)) }
        print("at 1 Hz (a sample a second from each companion, until its receipt):")
        for count in Set([1, watches]).sorted() {
            let latency = try await oneHertz(cluster, companions: count)
            report("\(SyncBenchmark.label(count))", latency.tailSummary)
        }
        let export = try await MeasurementExport.run(store: cluster.store)
        print("export: every sample stored to the FHIR test server, R4 Observations in transactions of 100:")
        report("resources (Observations, Patient, Devices)", "\(export.resources) (\(export.observations) Observations) in "
            + String(format: "%.2f s", export.seconds))
        let rate = Double(export.resources) / export.seconds
        report("throughput", String(format: "%.0f resources/s", rate))
        report("throughput ÷ floor", String(format: "%.2f×", rate / floor))
    }

    /// Samples/s from `companions` companions sending `samples` between them at once.
    private func flatOut(_ cluster: Cluster, companions count: Int) async throws -> Double {
        let before = cluster.fleet.members.map(\.measured)
        let each = samples / count
        let start = ContinuousClock.now
        try await withThrowingDiscardingTaskGroup { group in
            for index in 0..<count {
                let node = cluster.nodes[index]
                group.addTask { try await node.measure(Self.heartRates(each, node: index), sources: [Self.source(index)]) }
            }
        }
        try await Self.waitFor(cluster.fleet, indices: 0..<count, within: timeout, toHave: { before[$0] + each })
        return Double(each * count) / start.duration(to: .now).inSeconds
    }

    /// The time from taking each sample to its receipt, a sample a second per companion.
    private func oneHertz(_ cluster: Cluster, companions count: Int) async throws -> Samples {
        let (rounds, fleet, timeout) = (max(1, Int(seconds)), cluster.fleet, timeout)
        let latencies = try await withThrowingTaskGroup(of: Samples.self) { group in
            for index in 0..<count {
                let node = cluster.nodes[index]
                group.addTask {
                    var latencies = Samples()
                    for _ in 0..<rounds {
                        let before = fleet.members[index].measured
                        let start = ContinuousClock.now
                        try await node.measure(Self.heartRates(1, node: index), sources: [Self.source(index)])
                        try await Self.waitFor(fleet, indices: index..<index + 1, within: timeout, toHave: { _ in before + 1 })
                        latencies.append(start.duration(to: .now).inSeconds)
                        try await Task.sleep(until: start + .seconds(1))
                    }
                    return latencies
                }
            }
            var all = Samples()
            for try await part in group { part.seconds.forEach { all.append($0) } }
            return all
        }
        return latencies
    }

    private static func waitFor(_ fleet: Fleet, indices: Range<Int>, within timeout: Double, toHave target: (Int) -> Int) async throws {
        guard await fleet.wait(within: .seconds(timeout), until: { members in indices.allSatisfy { members[$0].measured >= target($0) } })
        else { throw BenchmarkFailure("the primary did not answer every measurement within \(timeout) s") }
    }

    private static func source(_ index: Int) -> MeasurementSource {
        MeasurementSource(id: "bench-\(index)-sensor", name: "Bench companion \(index) sensor", model: "caresync-bench")
    }

    /// `count` heart rates a second apart, new ids each call.
    private static func heartRates(_ count: Int, node index: Int) -> [MeasurementSample] {
        let start = Date().addingTimeInterval(-Double(count))
        return (0..<count).map { i in
            MeasurementSample(
                id: UUID().uuidString.lowercased(), type: .heartRate, value: Double(60 + i % 40), unit: "/min",
                start: start.addingTimeInterval(Double(i)), sourceID: source(index).id)
        }
    }

    /// Rows/s SQLite inserts, 500 a transaction, into a table shaped as the store's.
    private static func floor(rows: Int) async throws -> Double {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-floor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("floor.sqlite").path)
        try await queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL")
            try db.execute(sql: """
                CREATE TABLE measurement (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL,
                    value REAL NOT NULL, unit TEXT NOT NULL, start_at REAL NOT NULL, source_id TEXT NOT NULL)
                """)
        }
        let start = ContinuousClock.now
        for first in stride(from: 0, to: rows, by: 500) {
            try await queue.write { db in
                for n in first..<min(rows, first + 500) {
                    try db.execute(
                        sql: "INSERT INTO measurement (id, type, value, unit, start_at, source_id) VALUES (?, 'heart-rate', ?, '/min', ?, 'floor')",
                        arguments: [UUID().uuidString, 60 + n % 40, Double(n)])
                }
            }
        }
        return Double(rows) / start.duration(to: .now).inSeconds
    }
}
