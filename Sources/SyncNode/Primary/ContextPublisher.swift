import CarePlan
import CarePlanStore
import Foundation
import NIOCore
import Synchronization
import SyncProtocol

/// Builds application contexts from the store and tells connections when a newer one
/// exists. One context frame is built per revision and day, and shared by every
/// connection that needs it; a slow connection only ever receives the newest.
final class ContextPublisher: Sendable {
    /// Which context a companion receives.
    struct Variant: Hashable, Sendable {
        var today: CalendarDay
        var includesTomorrow: Bool
    }

    /// A context frame and the generation it was built for.
    struct Built: Sendable {
        var frame: ByteBuffer
        var generation: Int
    }

    private struct State {
        var generation = 0
        /// When the change that began each recent generation was committed (day rollovers
        /// have none), for the fan-out latency.
        var commits: [Int: Date] = [:]
        /// The plan's time zone, read again after every change.
        var timeZone: TimeZone?
        var frames: [Variant: (generation: Int, frame: Task<ByteBuffer, any Error>)] = [:]
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

    /// The store changed (a change committed at `committedAt`) or the day rolled over:
    /// every subscriber gets the newer context.
    func invalidate(committedAt: Date? = nil) {
        state.withLock { state in
            state.generation += 1
            state.commits[state.generation] = committedAt
            state.commits.removeValue(forKey: state.generation - Self.commitsKept)
            state.frames.removeAll()
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

    /// The framed context for `variant`, built once per generation.
    func frame(_ variant: Variant) async throws -> Built {
        let (task, generation) = state.withLock { state -> (Task<ByteBuffer, any Error>, Int) in
            if let cached = state.frames[variant], cached.generation == state.generation { return (cached.frame, cached.generation) }
            let task = Task { [self] in
                let context = try await build(variant)
                return try Frame.encode(.context(context))
            }
            state.frames[variant] = (state.generation, task)
            return (task, state.generation)
        }
        do {
            return Built(frame: try await task.value, generation: generation)
        } catch {
            // A failed build is not kept: the next request tries again.
            state.withLock { state in
                if state.frames[variant]?.frame == task { state.frames.removeValue(forKey: variant) }
            }
            throw error
        }
    }

    /// Reads the plan's events for the variant's days and the revision they reflect.
    func build(_ variant: Variant) async throws -> ApplicationContext {
        let days = variant.includesTomorrow ? [variant.today, variant.today.adding(days: 1)] : [variant.today]
        let snapshot = try await store.snapshot(of: days)
        let instant = now()
        return ApplicationContext(
            revision: snapshot.revision, planID: snapshot.info.planID, planTitle: snapshot.info.title ?? "",
            timeZone: snapshot.info.timeZone?.identifier ?? "",
            days: snapshot.days.map { ApplicationContext.Day(day: $0.day, events: $0.events.map(ApplicationContext.Item.init)) },
            generatedAt: instant, clock: clock.tick(now: instant))
    }
}
