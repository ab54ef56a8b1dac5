import CarePlan
import CarePlanStore
import Foundation
import Reminders
import NIOCore
import Synchronization
import SyncProtocol
import Clocks

/// Builds application contexts from the store and tells connections when a newer one
/// exists. One context is made per revision and day, and its frame encoded once, when a
/// connection first needs it whole, and shared by every connection that needs it; a slow
/// connection only ever receives the newest. For companions that apply deltas, one
/// ContextDelta frame per context held and newest context, shared too (protocol section 10).
///
/// A context after outcome changes alone is the one before with those outcomes applied,
/// not read from the store again: the store is read for the first context of a day and
/// after any other change (an activity, the plan, a contact, a new day).
final class ContextPublisher: Sendable {
    /// Which context a companion receives.
    struct Variant: Hashable, Sendable {
        var today: CalendarDay
        var includesTomorrow: Bool

        var days: [CalendarDay] { includesTomorrow ? [today, today.adding(days: 1)] : [today] }
    }

    /// A frame to write: the newest context, whole or as a delta from the one a connection holds.
    struct Built: Sendable {
        var frame: ByteBuffer
        var generation: Int
        /// The context the companion holds once it has read the frame.
        var held: HeldContext
        var isDelta: Bool
    }


    private struct DeltaKey: Hashable {
        var variant: Variant
        var base: HeldContext
        var generation: Int
    }

    private struct State {
        var generation = 0
        /// When the oldest change that began each recent generation was committed (day
        /// rollovers have none), for the fan-out latency.
        var commits: [Int: Date] = [:]
        /// The plan's time zone, read again after the plan's settings change.
        var timeZone: TimeZone?
        /// The outcome changes that began each recent generation; a generation begun by
        /// anything else (or by a new day) has none, and its context is read from the store.
        var outcomeChanges: [Int: [StoreChange]] = [:]
        /// The newest context made for each variant, and the generation it was made for.
        var latest: [Variant: (generation: Int, context: ApplicationContext)] = [:]
        var contexts: [Variant: (generation: Int, context: Task<ApplicationContext, any Error>)] = [:]
        /// Whole frames of the current generation.
        var wholeFrames: [Variant: Task<ByteBuffer, any Error>] = [:]
        /// The size of the last whole frame of each variant: a delta larger is not sent.
        var wholeBytes: [Variant: Int] = [:]
        /// Delta frames of the current generation (`nil`: the whole context is smaller).
        var deltas: [DeltaKey: Task<ByteBuffer?, any Error>] = [:]
        /// The last contexts built for each variant of the newest day, by revision: the
        /// bases deltas are made from.
        var recent: [Variant: [Int: ApplicationContext]] = [:]
        var subscribers: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextSubscriber = 0
    }

    private let store: CarePlanStore
    private let clock: HybridClock
    private let wallClock: any WallClock
    private let tomorrowFrom: TimeOfDay
    private let state = Mutex(State())

    init(store: CarePlanStore, clock: HybridClock, wallClock: any WallClock, tomorrowFrom: TimeOfDay) {
        self.store = store
        self.clock = clock
        self.wallClock = wallClock
        self.tomorrowFrom = tomorrowFrom
    }

    /// A stream that yields whenever a newer context may exist (newest only), starting
    /// with one yield for the context as it is now.
    func subscribe() -> (id: Int, updates: AsyncStream<Void>) {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuation.yield()
        let id = state.withLock { state in
            state.nextSubscriber += 1
            state.subscribers[state.nextSubscriber] = continuation
            return state.nextSubscriber
        }
        return (id, stream)
    }

    func unsubscribe(_ id: Int) {
        state.withLock { $0.subscribers.removeValue(forKey: id) }?.finish()
    }

    /// Wakes subscriber `id` as if a newer context existed (its companion asked for one).
    func nudge(_ id: Int) {
        _ = state.withLock { $0.subscribers[id] }?.yield()
    }

    /// The store changed (`changes` were committed, in revision order) or the day rolled
    /// over (no changes): every subscriber gets the newer context, one generation for all.
    ///
    /// After outcome changes alone, the new context of each variant served, and its delta
    /// from the context before (the one most companions hold), are made here, before any
    /// subscriber wakes: a hundred connections waking first would each run, and wait, before
    /// the one that starts making them.
    func invalidate(after changes: [StoreChange] = []) {
        let outcomesOnly = !changes.isEmpty && changes.allSatisfy { $0.kind == .outcomeRecorded || $0.kind == .outcomeSuperseded }
        let (current, bases) = state.withLock { state in
            (state.generation, outcomesOnly ? state.latest.filter { $0.value.generation == state.generation } : [:])
        }
        let prepared = bases.map { variant, latest in
            let (context, changed) = applying(changes, to: latest.context)
            let delta = deltaFrame(ContextDelta(from: latest.context, to: context, changed: changed), variant)
            return (variant, context, base: latest.context.held, delta: delta)
        }
        state.withLock { state in
            state.generation += 1
            state.commits[state.generation] = changes.lazy.map(\.committedAt).min()
            state.commits.removeValue(forKey: state.generation - Self.commitsKept)
            if outcomesOnly { state.outcomeChanges[state.generation] = changes }
            state.outcomeChanges.removeValue(forKey: state.generation - Self.commitsKept)
            state.contexts.removeAll()
            state.wholeFrames.removeAll()
            state.deltas.removeAll()
            if changes.contains(where: { $0.kind == .planConfigured }) { state.timeZone = nil }
            // Made from the generation before only if no other change came in between.
            if state.generation == current + 1 {
                for (variant, context, base, delta) in prepared {
                    state.contexts[variant] = (state.generation, Task { context })
                    Self.keep(context, of: variant, generation: state.generation, in: &state)
                    state.deltas[DeltaKey(variant: variant, base: base, generation: state.generation)] = Task { try delta.get() }
                }
            }
            for subscriber in state.subscribers.values { subscriber.yield() }
        }
    }

    /// The variant a companion of `role` receives now.
    func variant(for role: DeviceRole) async throws -> Variant {
        let (cached, generation) = state.withLock { ($0.timeZone, $0.generation) }
        let timeZone: TimeZone
        if let cached {
            timeZone = cached
        } else {
            // Read outside the lock; kept only if no change came in the meantime.
            timeZone = try await store.plan.info().timeZone ?? .gmt
            state.withLock { state in
                if state.generation == generation { state.timeZone = timeZone }
            }
        }
        let instant = wallClock.now
        let today = CalendarDay.containing(instant, in: timeZone)
        let tomorrowAt = today.date(at: tomorrowFrom, in: timeZone)
        return Variant(today: today, includesTomorrow: role == .watch && instant >= tomorrowAt)
    }

    /// How many generations' commit times are kept: a connection further behind records
    /// the oldest kept.
    static let commitsKept = 256

    /// The commit of the oldest change after generation `sent` up to `generation`: what a
    /// connection that last sent `sent` now carries for the first time. Generations follow
    /// the change log, so the first one with a commit has the oldest (usually `sent + 1`).
    func oldestCommit(after sent: Int, through generation: Int) -> Date? {
        state.withLock { state in
            let first = max(sent + 1, generation - Self.commitsKept + 1)
            guard first <= generation else { return nil }
            for candidate in first...generation {
                if let committedAt = state.commits[candidate] { return committedAt }
            }
            return nil
        }
    }

    /// How many contexts of a variant are kept as bases for deltas.
    static let basesKept = 16

    /// The newest context for `variant`: as a ContextDelta from the context `held` if one
    /// is given, the publisher still has that context (of this variant) and the delta is
    /// not larger than the variant's last whole frame; else whole. Each frame is built once
    /// per generation.
    func frame(_ variant: Variant, holding held: HeldContext? = nil) async throws -> Built {
        let (context, generation) = try await self.context(variant)
        if let held, held.days == variant.days {
            let key = DeltaKey(variant: variant, base: held, generation: generation)
            let task = state.withLock { state -> Task<ByteBuffer?, any Error>? in
                if let cached = state.deltas[key] { return cached }
                // Made even when a newer generation has begun meanwhile: the companion then
                // gets this one as a delta and the newer one next (the entry goes at the
                // next invalidation), rather than a whole context.
                guard let base = state.recent[variant]?[held.revision], base.held == held else { return nil }
                let task = Task<ByteBuffer?, any Error> { try deltaFrame(ContextDelta(from: base, to: context), variant).get() }
                state.deltas[key] = task
                return task
            }
            if let frame = try await task?.value {
                return Built(frame: frame, generation: generation, held: context.held, isDelta: true)
            }
        }
        return Built(frame: try await wholeFrame(of: context, variant, generation), generation: generation, held: context.held, isDelta: false)
    }

    /// The frame of `delta`, or `nil` where there is no delta or it would not be smaller than
    /// the variant's last whole frame.
    private func deltaFrame(_ delta: ContextDelta?, _ variant: Variant) -> Result<ByteBuffer?, any Error> {
        guard let delta else { return .success(nil) }
        let wholeBytes = state.withLock { $0.wholeBytes[variant] } ?? .max
        return Result { try Frame.encode(.contextDelta(delta)) }.map { $0.readableBytes < wholeBytes ? $0 : nil }
    }

    /// The frame of the whole context, encoded once per generation.
    private func wholeFrame(of context: ApplicationContext, _ variant: Variant, _ generation: Int) async throws -> ByteBuffer {
        let task = state.withLock { state in
            if state.generation == generation, let cached = state.wholeFrames[variant] { return cached }
            let task = Task<ByteBuffer, any Error> { try Frame.encode(.context(context)) }
            if state.generation == generation { state.wholeFrames[variant] = task }
            return task
        }
        let frame = try await task.value
        state.withLock { $0.wholeBytes[variant] = frame.readableBytes }
        return frame
    }

    /// The context for `variant`, made once per generation (from the one before when only
    /// outcomes changed since) and kept as a base.
    private func context(_ variant: Variant) async throws -> (ApplicationContext, generation: Int) {
        let (task, generation) = state.withLock { state -> (Task<ApplicationContext, any Error>, Int) in
            let generation = state.generation
            if let cached = state.contexts[variant], cached.generation == generation { return (cached.context, generation) }
            let base = state.latest[variant].flatMap { latest -> (ApplicationContext, [StoreChange])? in
                guard latest.generation < generation else { return nil }
                let batches = (latest.generation + 1...generation).compactMap { state.outcomeChanges[$0] }
                return batches.count == generation - latest.generation ? (latest.context, batches.flatMap { $0 }) : nil
            }
            let task = Task { [self] in
                let context = if let base { applied(base.1, to: base.0) } else { try await build(variant) }
                keep(context, of: variant, generation: generation)
                return context
            }
            state.contexts[variant] = (generation, task)
            return (task, generation)
        }
        do {
            return (try await task.value, generation)
        } catch {
            // A failed build is not kept: the next request tries again.
            state.withLock { state in
                if state.contexts[variant]?.context == task { state.contexts.removeValue(forKey: variant) }
            }
            throw error
        }
    }

    /// Keeps `context` as a base for deltas (the newest ``basesKept`` of its variant, and
    /// no variant of an earlier day) and for the next generation's context.
    private func keep(_ context: ApplicationContext, of variant: Variant, generation: Int) {
        state.withLock { Self.keep(context, of: variant, generation: generation, in: &$0) }
    }

    private static func keep(_ context: ApplicationContext, of variant: Variant, generation: Int, in state: inout State) {
        state.recent = state.recent.filter { $0.key.today >= variant.today }
        state.latest = state.latest.filter { $0.key.today >= variant.today }
        var kept = state.recent[variant, default: [:]]
        kept[context.revision] = context
        if kept.count > Self.basesKept, let oldest = kept.keys.min() { kept.removeValue(forKey: oldest) }
        state.recent[variant] = kept
        if state.latest[variant].map({ $0.generation < generation }) ?? true { state.latest[variant] = (generation, context) }
    }

    /// `context` with the outcomes of `changes` (in revision order) on its events; a change
    /// it already reflects (a revision not above its own) is skipped.
    func applied(_ changes: [StoreChange], to context: ApplicationContext) -> ApplicationContext {
        applying(changes, to: context).context
    }

    /// ``applied(_:to:)``, and the events it changed: event indexes by day index.
    private func applying(_ changes: [StoreChange], to context: ApplicationContext) -> (context: ApplicationContext, changed: [Int: Set<Int>]) {
        var context = context
        var changed: [Int: Set<Int>] = [:]
        for change in changes where change.revision > context.revision {
            context.revision = change.revision
            guard change.kind == .outcomeRecorded, let key = change.event, let outcome = change.outcome,
                  let day = context.days.firstIndex(where: { $0.day == key.day }),
                  let item = context.days[day].events.firstIndex(where: { $0.key == key }) else { continue }
            context.days[day].events[item].recorded(outcome)
            changed[day, default: []].insert(item)
        }
        let instant = wallClock.now
        context.generatedAt = instant
        context.clock = clock.tick(now: instant)
        return (context, changed)
    }

    /// Reads the plan's events for the variant's days and the revision they reflect.
    func build(_ variant: Variant) async throws -> ApplicationContext {
        let snapshot = try await store.outcomes.snapshot(of: variant.days)
        let instant = wallClock.now
        let info = snapshot.info
        // Missed-dose times by the alerts' own rule (a plan without a zone raises none).
        let planner = info.timeZone.map { ReminderPlanner(timeZone: $0, routine: info.routine) }
        let item = { (event: Event) in
            ApplicationContext.Item(event, missedAt: planner?.missing(event, under: info.missedDose)?.missedAt)
        }
        return ApplicationContext(
            revision: snapshot.revision, planID: info.planID, planTitle: info.title ?? "",
            patientName: info.patient?.name ?? "", timeZone: info.timeZone?.identifier ?? "",
            days: snapshot.days.map { ApplicationContext.Day(day: $0.day, events: $0.events.map(item)) },
            generatedAt: instant, clock: clock.tick(now: instant))
    }
}
