import ArgumentParser
import CareCore
import CarePlan
import CarePlanStore
import Foundation
import NIOPosix
import NodeIdentity

struct FleetBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fleet",
        abstract: "One primary in a process of its own under many lightweight companions: fan-out, sustained completions, its memory.",
        discussion: """
            A fresh store, with every companion's device registered in it as a pairing would \
            (no scrypt derivation each); `caresync primary` (built beside this benchmark) serving it \
            on 127.0.0.1 over TLS in its own process; and that many companions in this process, each \
            a TLS connection speaking the protocol (Hello offering deltas, pings, completions) that \
            keeps nothing on disk and only counts its contexts, as Mosquitto's clients persist \
            nothing. Prints how long every companion took to connect, how long a completion took to \
            reach all of them, sustained completions with every companion sending, and the \
            primary's own memory: idle, connected (per connection) and at its peak.
            """)

    @Option(help: "Companions connected at once to the one primary.")
    var companions = 1000

    @Option(help: "Completions, one at a time, whose fan-out to every companion is timed.")
    var changes = 20

    @Option(help: "Seconds of concurrent completions from every companion.")
    var seconds = 5.0

    @Option(help: "Most completions in the concurrent phase.")
    var sustainedLimit = 100_000

    @Option(help: "Occurrences today of each of the plan's 20 activities.")
    var occurrences = 16

    @Option(help: "Connections opened at the same time while the fleet connects.")
    var connectsAtOnce = 25

    @Option(help: "Seconds to wait for the primary, a reply or every context before giving up.")
    var timeout = 60.0

    func validate() throws {
        guard companions > 0, changes > 0, seconds > 0, sustainedLimit > 0, connectsAtOnce > 0, timeout > 0 else {
            throw ValidationError("counts and durations must be positive")
        }
        guard (1...Schedule.maximumOccurrencesPerDay).contains(occurrences) else {
            throw ValidationError("--occurrences must be from 1 to \(Schedule.maximumOccurrencesPerDay)")
        }
    }

    func run() async throws {
        try raiseFileLimit()
        let today = CalendarDay.containing(Date(), in: .gmt)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-fleet-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        print("caresync-bench fleet: \(SyncBenchmark.label(companions)) in this process, `caresync primary` in its own;"
            + " \(SyncBenchmark.activities)-activity plan, \(SyncBenchmark.activities * occurrences) events today")
        let setUp = ContinuousClock.now
        let store = try await CarePlanStore(path: directory.appendingPathComponent("primary.sqlite").path)
        try await CareCore(store: store).plan.load(SyncBenchmark.plan(occurrences: occurrences, start: today), effectiveFrom: today, device: "bench")
        let keys = try await store.outcomes.events(on: today).map(\.key)
        let clients = try await registerCompanions(in: store)
        report("set-up: plan, identities, devices registered", duration(setUp.duration(to: .now).inSeconds))

        let primary = try await PrimaryProcess.start(
            store: store.path, log: directory.appendingPathComponent("primary.log"), timeout: .seconds(timeout))
        try await primary.serving(clients, within: .seconds(timeout)) {
            try await measure(clients, keys: keys, primary: primary, store: store)
        }
    }

    /// Each connection is a descriptor in this process and one in the primary's (which
    /// inherits the limit): the soft limit is raised to the hard one if it is too low.
    private func raiseFileLimit() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let needed = rlim_t(companions + 256)
        guard limit.rlim_cur < needed else { return }
        guard limit.rlim_max >= needed else {
            throw BenchmarkFailure("\(companions) companions need \(needed) open files, and the hard limit is \(limit.rlim_max) (ulimit -Hn)")
        }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// A new identity for each companion, registered in the store as a pairing does.
    private func registerCompanions(in store: CarePlanStore) async throws -> [FleetClient] {
        var clients: [FleetClient] = []
        for index in 0..<companions { clients.append(try await FleetClient.registered(index: index, in: store)) }
        return clients
    }

    private func measure(_ clients: [FleetClient], keys: [EventKey], primary: PrimaryProcess, store: CarePlanStore) async throws {
        let idle = primary.memory.now ?? 0
        let revision = try await store.revision()
        let connect = ContinuousClock.now
        try await connectAll(clients, to: primary)
        try await waitUntilCurrent(clients, revision: revision, what: "its first context")
        report("connect: every companion holds its first context", duration(connect.duration(to: .now).inSeconds))
        let connected = primary.memory.now ?? 0
        report("primary RSS: idle → \(companions) connected", "\(bytes(idle)) → \(bytes(connected))")
        report("primary RSS per connection", bytes((connected - idle) / companions))

        try await fanOut(clients, keys: keys, primary: primary)
        try await sustained(clients, keys: keys, store: store, primary: primary)
        let memory = primary.memory
        report("primary RSS: now, peak", "\(bytes(memory.now ?? 0)), \(bytes(memory.peak ?? 0))")
        let troubled = clients.filter { $0.seen.problem != nil || $0.seen.closed }
        if let first = troubled.first {
            report("companions disconnected or refused", "\(troubled.count), first: \(first.seen.problem ?? "closed")")
        }
    }

    /// Connects every client, `connectsAtOnce` at a time, each saying Hello.
    private func connectAll(_ clients: [FleetClient], to primary: PrimaryProcess) async throws {
        let (group, port, fingerprint) = (MultiThreadedEventLoopGroup.singleton, primary.port, primary.fingerprint)
        for start in stride(from: 0, to: clients.count, by: connectsAtOnce) {
            try await withThrowingDiscardingTaskGroup { tasks in
                for client in clients[start..<min(start + connectsAtOnce, clients.count)] {
                    tasks.addTask { try await client.connect(port: port, primary: fingerprint, group: group) }
                }
            }
        }
    }

    /// Waits until every client holds `revision` or a later one.
    private func waitUntilCurrent(_ clients: [FleetClient], revision: Int, what: String) async throws {
        guard await poll(within: .seconds(timeout), until: { clients.allSatisfy { $0.seen.revision >= revision } }) else {
            let behind = clients.filter { $0.seen.revision < revision }
            throw BenchmarkFailure("\(behind.count) of \(clients.count) companions had not received \(what) within \(duration(timeout))"
                + (behind.first?.seen.problem.map { " (companion \(behind[0].index): \($0))" } ?? ""))
        }
    }

    /// Completions one at a time, each from the next companion: the round trip, and how long
    /// until each companion (and the last of them) holds a context with it.
    private func fanOut(_ clients: [FleetClient], keys: [EventKey], primary: PrimaryProcess) async throws {
        var roundTrip = Samples(), each = Samples(), every = Samples()
        var before: PrimaryProcess.Timings?
        for change in 0..<(SyncBenchmark.warmUp + changes) {
            if change == SyncBenchmark.warmUp { before = await primary.timings() }
            let sender = clients[change % clients.count]
            let start = ContinuousClock.now
            guard case .accepted(let revision, _, _) = try await sender.complete(keys[change % keys.count]) else {
                throw BenchmarkFailure("a completion was not accepted: \(sender.seen.problem ?? "no reason given")")
            }
            let replied = ContinuousClock.now
            try await waitUntilCurrent(clients, revision: revision, what: "revision \(revision)")
            guard change >= SyncBenchmark.warmUp else { continue }
            roundTrip.append(start.duration(to: replied).inSeconds)
            // Nothing else changes the store: the newest context each holds is this one.
            let arrivals = clients.map { start.duration(to: $0.seen.reachedAt).inSeconds }
            for arrival in arrivals { each.append(arrival) }
            every.append(arrivals.max() ?? .nan)
        }
        report("round trip: completion until its reply", roundTrip.tailSummary)
        report("fan-out: until each companion has it", each.tailSummary)
        report("fan-out: until every companion has it", every.summary)
        await reportPrimaryTimings(since: before, primary)
    }

    /// The primary's own mean timings since `before`, from its metrics: what of a round trip
    /// is the primary's (the rest is the network, TLS and the companion), and of a fan-out.
    private func reportPrimaryTimings(since before: PrimaryProcess.Timings?, _ primary: PrimaryProcess) async {
        guard let before, let after = await primary.timings() else {
            report("the primary's own timings", "— (its metrics could not be read)")
            return
        }
        let means = after.means(since: before)
        report("  at the primary: arrival to reply, mean", means.completion)
        report("  at the primary: commit to frame written, mean", means.fanOut)
    }

    /// Every client completing one event after another at once, for `seconds` or
    /// `sustainedLimit` completions; then how long until every companion is current.
    private func sustained(_ clients: [FleetClient], keys: [EventKey], store: CarePlanStore, primary: PrimaryProcess) async throws {
        let count = clients.count
        let each = max(1, sustainedLimit / count)
        let contextsBefore = clients.reduce(0) { $0 + $1.seen.contexts }
        let wholeBefore = clients.reduce(0) { $0 + $1.seen.wholeContexts }
        let revisionBefore = try await store.revision()
        let before = await primary.timings()
        let senders = clients.map { client in
            { @Sendable (key: EventKey) async -> Bool in if case .accepted = try? await client.complete(key) { true } else { false } }
        }
        let (_, end) = await completeAtOnce(
            senders, keys: keys, each: each, seconds: seconds, label: "sustained completions, every companion at once")
        let revision = try await store.revision()
        try await waitUntilCurrent(clients, revision: revision, what: "revision \(revision) after the sustained phase")
        let seen = clients.map(\.seen)
        let contexts = seen.reduce(0) { $0 + $1.contexts } - contextsBefore
        let whole = seen.reduce(0) { $0 + $1.wholeContexts } - wholeBefore
        let lag = seen.map(\.reachedAt).max().map { max(0, end.duration(to: $0).inSeconds) } ?? 0
        report("every companion current, after the last reply", lag > 0 ? "+" + duration(lag) : "already")
        report("contexts received, per companion", "\(contexts / count) (\(whole / count) whole) for \(revision - revisionBefore) revisions")
        await reportPrimaryTimings(since: before, primary)
    }
}
