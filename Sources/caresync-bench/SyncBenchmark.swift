import ArgumentParser
import CarePlan
import CarePlanStore
import Foundation
import NIOCore
import NodeIdentity
import Synchronization
import SyncNode
import SyncProtocol

struct SyncBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Completion round trips, fan-out, sustained completions and memory of a primary serving companions.",
        discussion: """
            For each companion count: a fresh store, a primary on 127.0.0.1 and that many companions \
            (alternately watches and widgets, each with its own state directory), all in this process. \
            The floor, a loopback TCP round trip plus one SQLite commit, is measured in the same run.
            """)

    @Option(help: ArgumentHelp("Companion counts, one run each.", valueName: "list"))
    var companions = "1,10,100"

    @Option(help: "Completions timed one at a time in each run, and floor round trips.")
    var completions = 300

    @Option(help: "Seconds of concurrent completions from every companion in each run.")
    var seconds = 5.0

    @Option(help: "Most completions in the concurrent phase of each run.")
    var sustainedLimit = 100_000

    @Option(help: "Occurrences today of each of the plan's 20 activities.")
    var occurrences = 16

    @Option(help: "Seconds to wait for a connection, a reply or a context before giving up.")
    var timeout = 30.0

    @Option(help: "Seconds any timed loop may run at most.")
    var maxSeconds = 120.0

    @Option(help: ArgumentHelp(
        "Where companions keep their state (default: a temporary directory); a RAM disk takes their writes off the primary's disk.",
        valueName: "dir"))
    var companionDirectory: String?

    static let activities = 20
    /// Completions before the timed ones, so that caches and connections are warm.
    static let warmUp = 10

    private var counts: [Int] {
        companions.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    func validate() throws {
        guard !counts.isEmpty, counts.count == companions.split(separator: ",").count, counts.allSatisfy({ $0 > 0 }) else {
            throw ValidationError("--companions must be positive whole numbers separated by commas, not \"\(companions)\"")
        }
        guard completions > 0, seconds > 0, sustainedLimit > 0, timeout > 0, maxSeconds > 0 else {
            throw ValidationError("counts and durations must be positive")
        }
        guard (1...Schedule.maximumOccurrencesPerDay).contains(occurrences) else {
            throw ValidationError("--occurrences must be from 1 to \(Schedule.maximumOccurrencesPerDay)")
        }
    }

    func run() async throws {
        let today = CalendarDay.containing(Date(), in: .gmt)
        print("caresync-bench sync: \(Self.activities)-activity plan, \(Self.activities * occurrences) events today;"
            + " \(completions) timed completions per run, then \(duration(seconds)) of concurrent ones")
        print("primary and companions share this process, its cores and its disk"
            + (companionDirectory.map { " (companion state in \($0))" } ?? ""))
        print("floor (loopback TCP over NIO; SQLite in WAL mode, synchronous = FULL):")
        let floor = try await Floor.measure(count: completions, until: .now + .seconds(maxSeconds))
        report("TCP round trip", floor.roundTrip.tailSummary)
        report("one commit", floor.commit.tailSummary)
        report("one commit at NORMAL (GRDB's DatabasePool default)", floor.normalCommit.tailSummary)
        report("TCP round trip + one commit (the floor)", floor.both.tailSummary)
        var roundTrips: [(count: Int, samples: Samples)] = []
        for count in counts {
            roundTrips.append((count, try await measure(companions: count, today: today)))
        }
        print("round trip ÷ floor:")
        for (count, samples) in roundTrips {
            report(Self.label(count), String(
                format: "p50 %.1f×  p99 %.1f×", samples.percentile(50) / floor.both.percentile(50),
                samples.percentile(99) / floor.both.percentile(99)))
        }
    }

    /// The plan: `activities` interventions, each `occurrences` times a day from `start`, in UTC.
    static func plan(occurrences: Int, start: CalendarDay) throws -> Plan {
        let activities = try (0..<activities).map { n in
            try Activity(
                identifier: String(format: "s%02d", n), groupIdentifier: "g\(n % 4)", kind: .intervention,
                title: "Intervention \(n)", instructions: "With a glass of water.",
                schedule: .daily(occurrences: occurrences, start: start))
        }
        return try Plan(title: "Sync benchmark", timeZone: .gmt, activities: activities)
    }

    static func label(_ count: Int) -> String {
        count == 1 ? "1 companion" : "\(count) companions"
    }

    /// One run with `count` companions; returns its round trips.
    private func measure(companions count: Int, today: CalendarDay) async throws -> Samples {
        let peakIsPerRun = resetPeakResidentMemory()
        let baseline = residentMemory() ?? 0
        let cluster = try Cluster(
            companions: count, plan: Self.plan(occurrences: occurrences, start: today), today: today,
            companionDirectory: companionDirectory.map { URL(fileURLWithPath: $0) })
        let watches = (count + 1) / 2
        print("\(Self.label(count)) (\(watches) watch\(watches == 1 ? "" : "es"), \(count / 2) widget\(count / 2 == 1 ? "" : "s")):")
        let roundTrip: Samples
        do {
            let connect = try await ContinuousClock().measure { try await cluster.start(timeout: .seconds(timeout)) }
            report("connect, every first context received", duration(connect.seconds))
            if let context = cluster.nodes.first?.context {
                var envelope = Caresync_V1_Envelope()
                envelope.applicationContext = context.wire
                report("context frame sent to each companion", bytes(try Frame.encode(envelope).readableBytes))
            }
            let connected = residentMemory() ?? 0
            roundTrip = try await roundTrips(cluster)
            try await sustained(cluster)
            let after = residentMemory() ?? 0
            report("RSS: before → connected → after", "\(bytes(baseline)) → \(bytes(connected)) → \(bytes(after))")
            if let peak = peakResidentMemory() {
                report("peak RSS, primary and companions together", bytes(peak) + (peakIsPerRun ? "" : "  (process peak so far)"))
            }
            let problems = cluster.fleet.members.reduce(0) { $0 + $1.problems }
            if problems > 0 {
                report("disconnects and errors", "\(problems), last: \(cluster.fleet.members.compactMap(\.lastProblem).last ?? "")")
            }
        } catch {
            _ = await cluster.stop(within: .seconds(timeout))
            throw error
        }
        if let problem = await cluster.stop(within: .seconds(timeout)) { throw BenchmarkFailure(problem) }
        return roundTrip
    }

    /// Completions one at a time, from each companion in turn: how long `complete()` takes
    /// to return `.accepted`, and how long until every other companion holds a context of
    /// that revision. Each waits for the one before to reach every companion.
    private func roundTrips(_ cluster: Cluster) async throws -> Samples {
        var roundTrip = Samples()
        var fanOut = Samples()
        var refused = 0
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(maxSeconds)
        var n = 0
        while n < Self.warmUp + completions && clock.now < deadline {
            let sender = n % cluster.nodes.count
            let key = cluster.keys[n % cluster.keys.count]
            let start = clock.now
            let result = try await cluster.nodes[sender].complete(key)
            let end = clock.now
            n += 1
            guard case .accepted(let revision, _, _) = result else {
                refused += 1
                continue
            }
            guard await cluster.fleet.wait(within: .seconds(timeout), until: { $0.allSatisfy { $0.revision >= revision } }) else {
                throw BenchmarkFailure("not every companion received revision \(revision) within \(duration(timeout))")
            }
            guard n > Self.warmUp else { continue }
            roundTrip.append(start.duration(to: end).seconds)
            let others = cluster.fleet.members.enumerated().filter { $0.offset != sender }.map(\.element.reachedAt)
            if let last = others.max() { fanOut.append(start.duration(to: last).seconds) }
        }
        report("round trip: complete() until .accepted", roundTrip.tailSummary)
        report("fan-out: until every other companion has it", cluster.nodes.count == 1 ? "— (no other companion)" : fanOut.summary)
        if refused > 0 { report("completions not accepted", "\(refused)") }
        if n < Self.warmUp + completions { report("stopped early", "at --max-seconds \(maxSeconds)") }
        return roundTrip
    }

    /// Every companion completing one event after another at once, for `seconds` or
    /// `sustainedLimit` completions; then how far the contexts lag behind.
    private func sustained(_ cluster: Cluster) async throws {
        let clock = ContinuousClock()
        let keys = cluster.keys
        let count = cluster.nodes.count
        let each = max(1, sustainedLimit / count)
        let contextsBefore = cluster.fleet.members.reduce(0) { $0 + $1.contexts }
        let revisionBefore = try cluster.store.revision()
        let start = clock.now
        let deadline = start + .seconds(seconds)
        let (accepted, other) = await withTaskGroup(of: (accepted: Int, other: Int).self) { group in
            for (index, node) in cluster.nodes.enumerated() {
                group.addTask {
                    var tally = (accepted: 0, other: 0)
                    var n = 0
                    while n < each && clock.now < deadline {
                        let result = try? await node.complete(keys[(index + n * count) % keys.count])
                        n += 1
                        if case .accepted = result { tally.accepted += 1 } else { tally.other += 1 }
                    }
                    return tally
                }
            }
            return await group.reduce(into: (0, 0)) { $0.0 += $1.accepted; $0.1 += $1.other }
        }
        let end = clock.now
        let elapsed = start.duration(to: end).seconds
        report("sustained completions, all companions at once", String(format: "%.0f/s  (%d accepted in %@)", Double(accepted) / elapsed, accepted, duration(elapsed)))
        if other > 0 { report("sustained completions not accepted", "\(other)") }
        let revision = try cluster.store.revision()
        guard await cluster.fleet.wait(within: .seconds(timeout), until: { $0.allSatisfy { $0.revision >= revision } }) else {
            throw BenchmarkFailure("not every companion caught up with revision \(revision) within \(duration(timeout)) after the sustained phase")
        }
        let members = cluster.fleet.members
        let lag = members.map(\.reachedAt).max().map { max(0, end.duration(to: $0).seconds) } ?? 0
        let contexts = members.reduce(0) { $0 + $1.contexts } - contextsBefore
        report("every companion current, after the last reply", lag > 0 ? "+" + duration(lag) : "already")
        report("contexts received, per companion", "\(contexts / count) for \(revision - revisionBefore) revisions")
    }
}

/// A failure of the benchmark itself.
struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// A primary on a fresh store with its companions, all in this process.
final class Cluster {
    let directory: URL
    /// Where the companions keep their state.
    let companionDirectory: URL
    let store: CarePlanStore
    /// Today's events, to complete.
    let keys: [EventKey]
    let fleet: Fleet
    private(set) var nodes: [CompanionNode] = []
    private let primary: PrimaryNode
    private let primaryStatus = PrimaryStatus()

    init(companions count: Int, plan: Plan, today: CalendarDay, companionDirectory root: URL?) throws {
        let name = "caresync-bench-sync-\(UUID().uuidString)"
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        companionDirectory = root?.appendingPathComponent(name) ?? directory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        do {
            store = try CarePlanStore(path: directory.appendingPathComponent("primary.sqlite").path)
            try store.load(plan, effectiveFrom: today, device: "bench")
            keys = try store.events(on: today).map(\.key)
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        primary = PrimaryNode(
            store: store, configuration: PrimaryConfiguration(identity: try NodeIdentity.create(name: "Bench primary", now: Date())))
        fleet = Fleet(count: count)
    }

    /// Starts the primary, then every companion, and waits until each holds a context.
    func start(timeout: Duration) async throws {
        let primary = primary
        let status = primaryStatus
        Task {
            do {
                try await primary.run { address in status.value.withLock { $0.port = address.port ?? 0 } }
                status.value.withLock { $0.stopped = true }
            } catch {
                status.value.withLock { $0 = ($0.port, true, "\(error)") }
            }
        }
        guard await poll(within: timeout, until: { status.value.withLock { $0.port != nil || $0.stopped } }),
              let port = status.value.withLock({ $0.port }) else {
            throw BenchmarkFailure("the primary did not listen within \(timeout): \(status.value.withLock { $0.problem } ?? "no address")")
        }
        let revision = try store.revision()
        for index in 0..<fleet.count {
            var configuration = CompanionConfiguration(
                role: index % 2 == 0 ? .watch : .widget, name: "Bench companion \(index)",
                stateDirectory: companionDirectory.appendingPathComponent("companion-\(index)").path,
                endpoint: PrimaryEndpoint(host: "127.0.0.1", port: port))
            configuration.replyTimeout = timeout
            let node = try CompanionNode(configuration: configuration)
            try await pair(node, through: store)
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
        primary.shutdown()
        if !(await poll(within: timeout, until: { primaryStatus.value.withLock { $0.stopped } })) {
            problems.append("the primary did not stop within \(timeout)")
        } else if let problem = primaryStatus.value.withLock({ $0.problem }) {
            problems.append("the primary failed: \(problem)")
        }
        removeFiles()
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }

    private func removeFiles() {
        try? FileManager.default.removeItem(at: directory)
        try? FileManager.default.removeItem(at: companionDirectory)
    }
}

/// The primary's port once it listens, and how its run ended.
private final class PrimaryStatus: Sendable {
    let value = Mutex<(port: Int?, stopped: Bool, problem: String?)>((nil, false, nil))
}

/// What the benchmark knows of each companion, from its events.
final class Fleet: Sendable {
    struct Member: Sendable {
        var connected = false
        /// The newest context revision held, and when it first arrived.
        var revision = -1
        var reachedAt = ContinuousClock.now
        var contexts = 0
        /// Disconnections and errors.
        var problems = 0
        var lastProblem: String?
        /// Its event stream ended: the node has stopped.
        var finished = false
    }

    let count: Int
    private let state: Mutex<[Member]>

    init(count: Int) {
        self.count = count
        state = Mutex(Array(repeating: Member(), count: count))
    }

    var members: [Member] { state.withLock { $0 } }

    /// Follows companion `index`'s events until its node stops.
    func follow(_ index: Int, _ events: AsyncStream<CompanionEvent>) async {
        for await event in events {
            let now = ContinuousClock.now
            state.withLock { members in
                switch event {
                case .connected:
                    members[index].connected = true
                case .context(let context):
                    members[index].contexts += 1
                    if context.revision > members[index].revision {
                        members[index].revision = context.revision
                        members[index].reachedAt = now
                    }
                case .disconnected(let reason):
                    members[index].connected = false
                    members[index].problems += 1
                    members[index].lastProblem = reason
                case .error(let code, let message):
                    members[index].problems += 1
                    members[index].lastProblem = "\(code): \(message)"
                case .reply, .reminder:
                    break
                }
            }
        }
        state.withLock { $0[index].finished = true }
    }

    /// Waits until `condition` holds for the members; false if `timeout` passes first.
    func wait(within timeout: Duration, until condition: ([Member]) -> Bool) async -> Bool {
        await poll(within: timeout) { state.withLock { condition($0) } }
    }
}

/// Checks `condition` every millisecond until it holds (true) or `timeout` passes (false).
/// Timings come from the events themselves, so the polling does not blur them.
func poll(within timeout: Duration, until condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}
