import CarePlan
import CarePlanStore
import Foundation
import NIOCore
import Synchronization
import SyncProtocol

/// Builds application contexts from the store and tells connections when a newer one
/// exists. One context frame is built per revision and day, and shared by every
/// connection that needs it; a slow connection only ever receives the newest. For
/// companions that apply deltas, one ContextDelta frame per context held and newest
/// context, shared too (protocol section 10).
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

    /// A context and its frame.
    private struct Snapshot: Sendable {
        var context: ApplicationContext
        var frame: ByteBuffer
    }

    private struct DeltaKey: Hashable {
        var variant: Variant
        var base: HeldContext
        var generation: Int
    }

    private struct State {
        var generation = 0
        /// When the change that began each recent generation was committed (day rollovers
        /// have none), for the fan-out latency.
        var commits: [Int: Date] = [:]
        /// The plan's time zone, read again after every change.
        var timeZone: TimeZone?
        var frames: [Variant: (generation: Int, frame: Task<Snapshot, any Error>)] = [:]
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
    private let now: @Sendable () -> Date
    private let tomorrowFrom: TimeOfDay
    private let state = Mutex(State())

    init(store: CarePlanStore, clock: HybridClock, now: @escaping @Sendable () -> Date, tomorrowFrom: TimeOfDay) {
        self.store = store
        self.clock = clock
        self.now = now
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

    /// The store changed (a change committed at `committedAt`) or the day rolled over:
    /// every subscriber gets the newer context.
    func invalidate(committedAt: Date? = nil) {
        state.withLock { state in
            state.generation += 1
            state.commits[state.generation] = committedAt
            state.commits.removeValue(forKey: state.generation - Self.commitsKept)
            state.frames.removeAll()
            state.deltas.removeAll()
            state.timeZone = nil
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
            timeZone = try await store.planInfo().timeZone ?? .gmt
            state.withLock { state in
                if state.generation == generation { state.timeZone = timeZone }
            }
        }
        let instant = now()
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
    /// smaller; else whole. Each frame is built once per generation.
    func frame(_ variant: Variant, holding held: HeldContext? = nil) async throws -> Built {
        let (snapshot, generation) = try await self.snapshot(variant)
        let whole = Built(frame: snapshot.frame, generation: generation, held: snapshot.context.held, isDelta: false)
        guard let held, held.days == variant.days else { return whole }
        let key = DeltaKey(variant: variant, base: held, generation: generation)
        let task = state.withLock { state -> Task<ByteBuffer?, any Error>? in
            if let cached = state.deltas[key] { return cached }
            guard let base = state.recent[variant]?[held.revision], base.held == held, state.generation == generation else {
                return nil
            }
            let task = Task<ByteBuffer?, any Error> {
                guard let delta = ContextDelta(from: base, to: snapshot.context) else { return nil }
                let frame = try Frame.encode(.contextDelta(delta))
                return frame.readableBytes < snapshot.frame.readableBytes ? frame : nil
            }
            state.deltas[key] = task
            return task
        }
        guard let frame = try await task?.value else { return whole }
        return Built(frame: frame, generation: generation, held: snapshot.context.held, isDelta: true)
    }

    /// The context for `variant` and its frame, built once per generation and kept as a base.
    private func snapshot(_ variant: Variant) async throws -> (Snapshot, generation: Int) {
        let (task, generation) = state.withLock { state -> (Task<Snapshot, any Error>, Int) in
            if let cached = state.frames[variant], cached.generation == state.generation { return (cached.frame, cached.generation) }
            let task = Task { [self] in
                let context = try await build(variant)
                keep(context, of: variant)
                return Snapshot(context: context, frame: try Frame.encode(.context(context)))
            }
            state.frames[variant] = (state.generation, task)
            return (task, state.generation)
        }
        do {
            return (try await task.value, generation)
        } catch {
            // A failed build is not kept: the next request tries again.
            state.withLock { state in
                if state.frames[variant]?.frame == task { state.frames.removeValue(forKey: variant) }
            }
            throw error
        }
    }

    /// Keeps `context` as a base for deltas: the newest ``basesKept`` of its variant, and
    /// no variant of an earlier day.
    private func keep(_ context: ApplicationContext, of variant: Variant) {
        state.withLock { state in
            state.recent = state.recent.filter { $0.key.today >= variant.today }
            var kept = state.recent[variant, default: [:]]
            kept[context.revision] = context
            if kept.count > Self.basesKept, let oldest = kept.keys.min() { kept.removeValue(forKey: oldest) }
            state.recent[variant] = kept
        }
    }

    /// Reads the plan's events for the variant's days and the revision they reflect.
    func build(_ variant: Variant) async throws -> ApplicationContext {
        let snapshot = try await store.snapshot(of: variant.days)
        let instant = now()
        return ApplicationContext(
            revision: snapshot.revision, planID: snapshot.info.planID, planTitle: snapshot.info.title ?? "",
            timeZone: snapshot.info.timeZone?.identifier ?? "",
            days: snapshot.days.map { ApplicationContext.Day(day: $0.day, events: $0.events.map(ApplicationContext.Item.init)) },
            generatedAt: instant, clock: clock.tick(now: instant))
    }
}
