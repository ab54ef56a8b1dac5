import Benchmark
import BenchmarkWorkloads
import CareCore
import CarePlan
import CarePlanStore
import Foundation

/// The care core's hot operations through public API, measured by package-benchmark
/// (`scripts/bench micro`, Docs/Benchmarks.md): percentiles of wall clock, allocations and
/// throughput. The tolerances below are what `baseline check` fails on when one run (a
/// change) is compared with another (main) on the same machine. (Linux counts a process's
/// CPU in 10 ms steps, too coarse for one call: no CPU metric here.)
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .mallocCountTotal, .throughput],
        warmupIterations: 10,
        maxDuration: .seconds(3),
        maxIterations: 5_000,
        thresholds: [
            // Allocations hardly vary from run to run: a few more a call are a change in the code.
            .mallocCountTotal: .init(relative: [.p50: 5, .p90: 10], absolute: [.p50: 20, .p90: 40]),
            // Time varies with the machine's other work: only a clear regression fails.
            .wallClock: .init(relative: [.p50: 25, .p90: 50]),
            .throughput: .init(relative: [.p50: 25, .p90: 50]),
        ]
    )

    // A day's expansion of one schedule, as the store expands it for every activity of a day
    // asked for: the rule arithmetic alone, which allocates nothing (not one allocation more
    // than the baseline passes) and does not grow with the schedule's age.
    for (label, age) in [("began yesterday", 1), ("began ten years ago", 3652)] {
        Benchmark(
            "Schedule: one day's occurrences, \(label)",
            configuration: .init(
                metrics: [.wallClock, .mallocCountTotal, .throughput], scalingFactor: .kilo,
                thresholds: [.mallocCountTotal: .init(absolute: [.p90: 0])])
        ) { benchmark, schedule in
            let today = CalendarDay.containing(Date(), in: .gmt)
            for n in benchmark.scaledIterations {
                blackHole(schedule.occurrenceCount(on: today.adding(days: n % 7)))
            }
        } setup: {
            try Schedule.weekly([1, 2, 3, 2, 1, 2, 1], start: CalendarDay.containing(Date(), in: .gmt).adding(days: -age), totalCount: 1_000_000)
        }
    }

    // A day's events with their outcomes, read from a store with a year of history: what the
    // care card, the widget's context and the reminders read.
    Benchmark("Store: the events of a day, 50 activities") { benchmark, workload in
        let day = workload.history.randomElement()!
        benchmark.startMeasurement()
        blackHole(try await workload.store.outcomes.events(on: day))
    } setup: {
        try await CompletionWorkload(activities: 50)
    } teardown: {
        CompletionWorkload.removeAll()
    }

    // One completion from a watch, judged by the care core (grant, version in force, values,
    // conflict clock, message id) and committed: the write every companion's tap becomes.
    Benchmark("Core: a watch's completion judged and committed") { benchmark, workload in
        let (key, outcome) = workload.nextCompletion()
        benchmark.startMeasurement()
        let receipt = try await workload.core.outcomes.record(outcome, for: key, messageID: UUID().uuidString, by: CompletionWorkload.watch)
        benchmark.stopMeasurement()
        precondition(receipt.status == .accepted, "a fresh completion was not accepted: \(receipt)")
    } setup: {
        try await CompletionWorkload(activities: 50)
    } teardown: {
        CompletionWorkload.removeAll()
    }

    // The same message again, as a companion resends one whose answer it did not hear: the
    // care core answers from the record and writes nothing.
    Benchmark("Core: a completion sent again, answered from the record") { (benchmark, workload: CompletionWorkload) in
        let receipt = try await workload.core.outcomes.record(
            workload.repeated.outcome, for: workload.repeated.key, messageID: "sent-again", by: CompletionWorkload.watch)
        precondition(receipt.isRepeat, "a message sent again was not answered as a repeat: \(receipt)")
    } setup: {
        let workload = try await CompletionWorkload(activities: 50)
        _ = try await workload.core.outcomes.record(
            workload.repeated.outcome, for: workload.repeated.key, messageID: "sent-again", by: CompletionWorkload.watch)
        return workload
    } teardown: {
        CompletionWorkload.removeAll()
    }
}

/// A store in a scratch directory with the benchmark plan and a year of days behind it, the
/// care core on it, and the past events not yet recorded, handed out one at a time.
final class CompletionWorkload: @unchecked Sendable {
    static let watch = Recorder.companion(nodeID: "bench-watch", role: .watch, mayRecord: true)
    private static let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("caresync-benchmarks-\(getpid())")

    let store: CarePlanStore
    let core: CareCore
    let history: [CalendarDay]
    let repeated: (key: EventKey, outcome: Outcome)
    private let lock = NSLock()
    private let unrecorded: [Event]
    private var next = 0

    init(activities: Int) async throws {
        try FileManager.default.createDirectory(at: Self.scratch, withIntermediateDirectories: true)
        store = try await CarePlanStore(path: Self.scratch.appendingPathComponent("\(UUID().uuidString).sqlite").path)
        core = CareCore(store: store)
        let today = CalendarDay.containing(Date(), in: .gmt)
        let first = today.adding(days: -366)
        try await core.plan.load(Workloads.plan(activities: activities, start: first), effectiveFrom: first, device: "bench")
        history = Array(first...today.adding(days: -1))
        var events: [Event] = []
        for day in history { events += try await store.outcomes.events(on: day) }
        let last = events.removeLast()
        repeated = (last.key, Self.completion(of: last))
        unrecorded = events
    }

    /// The next past event no iteration has recorded yet, and its completion.
    func nextCompletion() -> (EventKey, Outcome) {
        let event = lock.withLock {
            defer { next += 1 }
            return unrecorded[next]
        }
        return (event.key, Self.completion(of: event))
    }

    static func completion(of event: Event) -> Outcome {
        Outcome(state: .completed, values: Workloads.answer(to: event.activity.result), recordedAt: Date(), device: "bench-watch")
    }

    /// Removes every store the benchmarks made.
    static func removeAll() {
        try? FileManager.default.removeItem(at: scratch)
    }
}
