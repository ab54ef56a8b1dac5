import ArgumentParser
import BenchmarkWorkloads
import CareCore
import CarePlan
@_spi(CareCore) import CarePlanStore
import Foundation
import Clocks

struct StoreBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Plan loading, day queries over years of outcomes, write throughput, database size.")

    @Option(help: "Years of outcomes to generate.")
    var years = 5

    @Option(help: "Activities that carry the outcome history.")
    var activities = 50

    @Option(help: "Activities in the loaded plan.")
    var planActivities = 200

    @Option(help: "Repetitions of each timed query.")
    var repetitions = 1000

    @Option(help: "Outcomes written one commit at a time.")
    var singleWrites = 2000

    @Option(help: "Directory for the benchmark's store (default: a new temporary one, removed afterwards).")
    var directory: String?

    func run() async throws {
        let base = directory.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { if directory == nil { try? FileManager.default.removeItem(at: base) } }
        // The history ends a year back, so that the days written after it (single writes,
        // judged completions) are past days: the record refuses days to come.
        let end = CalendarDay.containing(Date(), in: .gmt).adding(days: -365)

        print("caresync-bench store: \(planActivities)-activity plan; \(years) years of outcomes for \(activities) activities")
        try await planLoading(base.appendingPathComponent("plan.sqlite").path, today: end)
        let store = try await CarePlanStore(path: base.appendingPathComponent("history.sqlite").path)
        let first = end.adding(days: -365 * years)
        try await generateHistory(store, from: first, through: end)
        try await dayQueries(store, from: first, through: end)
        try await writeThroughput(store, day: end.adding(days: 1))
        try await judgedCompletions(store, days: (11...310).map { end.adding(days: $0) })
        try await scheduleAge(today: end)
        let size = databaseSize(store.path)
        report("database size (\(try await store.revision()) revisions)", bytes(size))
        if let peak = peakResidentMemory() { report("peak RSS", bytes(peak)) }
    }

    private func planLoading(_ path: String, today: CalendarDay) async throws {
        let plan = try Workloads.plan(activities: planActivities, start: today)
        var stores: [CarePlanStore] = []
        let load = try await Samples.measure(5) { run in
            let store = try await CarePlanStore(path: path + ".\(run)")
            try await CareCore(store: store).plan.load(plan, effectiveFrom: today, device: "bench")
            stores.append(store)
        }
        report("plan load, \(planActivities) activities (new store)", "median \(duration(load.median))  max \(duration(load.percentile(100)))")
        let reload = try await Samples.measure(5) { _ in try await CareCore(store: stores[0]).plan.load(plan, effectiveFrom: today, device: "bench") }
        report("plan reload, nothing changed", "median \(duration(reload.median))")
    }

    private func generateHistory(_ store: CarePlanStore, from first: CalendarDay, through last: CalendarDay) async throws {
        try await CareCore(store: store).plan.load(Workloads.plan(activities: activities, start: first), effectiveFrom: first, device: "bench")
        var generator = SystemRandomNumberGenerator()
        var batch: [(key: EventKey, outcome: Outcome)] = []
        var written = 0
        let clock = ContinuousClock()
        let start = clock.now
        do {
            for day in first...last {
                for event in try await store.outcomes.events(on: day) where Int.random(in: 0..<10, using: &generator) < 8 {
                    let values = event.activity.result == nil ? [] : [OutcomeValue(.integer(Int.random(in: 0...10, using: &generator)))]
                    batch.append((event.key, Outcome(state: .completed, values: values, recordedAt: Date(), device: "bench")))
                }
                if batch.count >= 5000 {
                    written += try await Self.keep(batch, in: store)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            written += try await Self.keep(batch, in: store)
        }
        report("history generated", "\(written) outcomes in \(duration(start.duration(to: clock.now).inSeconds))")
    }

    private func dayQueries(_ store: CarePlanStore, from first: CalendarDay, through last: CalendarDay) async throws {
        let span = first.distance(to: last)
        let days = (0..<repetitions).map { _ in first.adding(days: Int.random(in: 0...span)) }
        let events = try await Samples.measure(repetitions) { _ = try await store.outcomes.events(on: days[$0]) }
        report("events on a day (\(activities) activities)", events.summary)
        let completion = try await Samples.measure(repetitions) {
            _ = try await store.outcomes.completion(from: days[$0].adding(days: -29), through: days[$0])
        }
        report("completion status for 30 days", completion.summary)
    }

    private func writeThroughput(_ store: CarePlanStore, day: CalendarDay) async throws {
        var writes: [(key: EventKey, outcome: Outcome)] = []
        for offset in 0..<10 {
            writes += try await store.outcomes.events(on: day.adding(days: offset)).map { event in
                (event.key, Outcome(state: .completed, values: Workloads.answer(to: event.activity.result), recordedAt: Date(), device: "bench"))
            }
        }
        let count = min(singleWrites, writes.count)
        let outcomes = CareCore(store: store).outcomes
        let single = try await Samples.measure(count) {
            _ = try await outcomes.record(writes[$0].outcome, for: writes[$0].key, by: .commandLine(device: "bench", futureDays: .refused))
        }
        report("outcome writes, one commit each", String(format: "%.0f/s  (%@)", Double(count) / single.total, single.summary))
        let batches = stride(from: 0, to: writes.count, by: 100).map { Array(writes[$0..<min($0 + 100, writes.count)]) }
        let batched = try await Samples.measure(batches.count) { index in _ = try await Self.keep(batches[index], in: store) }
        report("outcome writes, 100 per commit", String(format: "%.0f/s  (kept by the store's writer, unjudged)", Double(writes.count) / batched.total))
    }

    /// Completions as companions send them: 100 callers at once, each completion judged
    /// (message id, validation, conflict rule) and committed by group commit; the figure
    /// that bounds sustained completions at the primary, with the process's CPU per one.
    private func judgedCompletions(_ store: CarePlanStore, days: [CalendarDay]) async throws {
        var found: [Event] = []
        for day in days { found += try await store.outcomes.events(on: day) }
        let events = found
        let (callers, core) = (100, CareCore(store: store))
        let cpu = ProcessCPU.now()
        let start = ContinuousClock.now
        let accepted = try await withThrowingTaskGroup(of: Int.self) { group in
            for caller in 0..<callers {
                group.addTask {
                    var accepted = 0
                    for index in stride(from: caller, to: events.count, by: callers) {
                        let outcome = Outcome(
                            state: .completed, values: Workloads.answer(to: events[index].activity.result), recordedAt: Date(),
                            device: "bench-\(caller)")
                        let receipt = try await core.outcomes.record(
                            outcome, for: events[index].key, messageID: UUID().uuidString,
                            by: .companion(nodeID: "bench-\(caller)", role: .watch, mayRecord: true))
                        if receipt.status == .accepted { accepted += 1 }
                    }
                    return accepted
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = start.duration(to: .now).inSeconds
        let perCompletion = ProcessCPU.now().seconds(since: cpu) / Double(events.count)
        report("completions judged, \(callers) callers at once", String(
            format: "%.0f/s  (%d of %d accepted; %@ CPU each)", Double(events.count) / elapsed, accepted, events.count,
            duration(perCompletion)))
    }

    /// Keeps `outcomes` in one transaction through the store's writer, judging nothing (the
    /// history the queries read, and the floor of a batched write); how many.
    private static func keep(_ outcomes: [(key: EventKey, outcome: Outcome)], in store: CarePlanStore) async throws -> Int {
        try await store.transaction { record in
            for (key, var outcome) in outcomes {
                outcome.clock = .next(after: nil, now: outcome.recordedAt, node: outcome.device)  // as a recorded outcome has
                _ = try record.outcomes.keep(outcome, for: key, version: try record.outcomes.version(governing: key).version, messageID: nil, stands: true)
            }
            return outcomes.count
        }
    }

    /// A day's events for a schedule that began ten years ago against one that began yesterday.
    private func scheduleAge(today: CalendarDay) async throws {
        for (label, start) in [("began yesterday", today.adding(days: -1)), ("began 10 years ago", today.adding(days: -3652))] {
            let schedule = try Schedule.weekly([1, 2, 3, 2, 1, 2, 1], start: start, totalCount: 1_000_000)
            var sink = 0
            let calls = 100_000
            let rounds = await Samples.measure(20) { _ in
                for n in 0..<calls { sink &+= schedule.occurrenceCount(on: today.adding(days: n % 7)) }
            }
            report("day expansion, schedule \(label)", "\(duration(rounds.median / Double(calls))) per day  (checksum \(sink % 10))")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-bench-age-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try await CarePlanStore(path: directory.appendingPathComponent("age.sqlite").path)
        for (id, start) in [("recent", today.adding(days: -1)), ("old", today.adding(days: -3652))] {
            let activity = try Activity(identifier: id, kind: .intervention, title: id,
                                        schedule: .weekly([1, 2, 3, 2, 1, 2, 1], start: start, totalCount: 1_000_000))
            try await CareCore(store: store).plan.addActivity(activity, effectiveFrom: start, device: "bench")
        }
        for id in ["recent", "old"] {
            let query = try await Samples.measure(repetitions) { _ in _ = try await store.outcomes.events(of: id, on: today) }
            report("store events of a day, schedule \(id == "old" ? "10 years old" : "1 day old")", query.summary)
        }
    }

    private func databaseSize(_ path: String) -> Int {
        ["", "-wal", "-shm"].reduce(0) { total, suffix in
            let attributes = try? FileManager.default.attributesOfItem(atPath: path + suffix)
            return total + ((attributes?[.size] as? Int) ?? 0)
        }
    }
}
