import CareCore
import CarePlan
import CarePlanStore
import Foundation
import Logging
import Clocks
import Waiting

/// The primary's reminders: keeps the pending window in the store, fires what falls due,
/// and withdraws a reminder as soon as its event is done, whoever did it.
///
/// Every step takes the instant it runs at, so tests drive days of schedules in
/// milliseconds; ``run(following:deliver:)`` is the thin loop that sleeps between steps.
///
/// Nothing fires twice: a reminder is recorded as fired in the store before it is
/// delivered, so a restart never repeats it (a crash between the two loses that one
/// delivery rather than doubling it).
public final class ReminderScheduler: Sendable {
    public let store: CarePlanStore
    public let policy: ReminderPolicy
    /// What the record may hold of reminders, as the care core judges it.
    private let record: ReminderKeeping
    private let clock: any WallClock
    private let logger: Logger
    private let wake = WakeSignal()

    /// - Parameters:
    ///   - store: where the window is kept and the events are read.
    ///   - policy: how far ahead, how many, and the grace period of the start-up rule.
    ///   - clock: what every step reads as now, and what ``run(following:deliver:)`` waits on
    ///     between steps; tests pass their own.
    ///   - logger: told of failures that ``run(following:deliver:)`` recovers from (silent unless given).
    public init(
        store: CarePlanStore, policy: ReminderPolicy = ReminderPolicy(), clock: any WallClock = .system,
        logger: Logger = Logger(label: "caresync.reminders", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        record = CareCore(store: store).reminders
        self.policy = policy
        self.clock = clock
        self.logger = logger
    }

    /// Start-up: reminders that fell due while the primary was down fire now if they are
    /// within the grace period, otherwise they are recorded as missed. Returns those to fire.
    public func catchUp(at instant: Date) async throws -> [Reminder] {
        let planner = try await planner()
        var fire: [Reminder] = []
        for entry in try await store.reminders.all() where entry.reminder.dueAt <= instant {
            guard try await isStillDue(entry.reminder) else {
                try await record.withdraw(entry.reminder.key)
                continue
            }
            switch planner.catchUp(entry.reminder, now: instant) {
            case .fire:
                if try await record.settle(entry.reminder, as: .fired, at: instant) { fire.append(entry.reminder) }
            case .missed:
                try await record.settle(entry.reminder, as: .missed, at: instant)
            }
        }
        return fire
    }

    /// Fires every pending reminder due by `instant` whose event is still to do, then
    /// plans the window again. Returns the reminders to deliver.
    public func step(at instant: Date) async throws -> [Reminder] {
        var fire: [Reminder] = []
        for entry in try await store.reminders.all() where entry.reminder.dueAt <= instant {
            if try await !isStillDue(entry.reminder) {
                try await record.withdraw(entry.reminder.key)
            } else if try await record.settle(entry.reminder, as: .fired, at: instant) {
                fire.append(entry.reminder)
            }
        }
        try await replan(at: instant)
        return fire
    }

    /// Plans the window from `instant` and keeps it in the store; returns when the next
    /// reminder is due.
    @discardableResult
    public func replan(at instant: Date) async throws -> Date? {
        let planner = try await planner()
        let today = CalendarDay.containing(instant, in: planner.timeZone)
        let settled = try await store.reminders.settledReminderKeys(from: today.adding(days: -1))
        let window = try await planner.window(from: instant, excluding: settled) { day in try await store.outcomes.events(on: day) }
        try await record.replacePending(with: window, keepingDueBefore: instant)
        let snoozed = try await store.reminders.all([.snoozed]).map(\.reminder)
        return (window.map(\.dueAt) + snoozed.map(\.dueAt)).min()
    }

    /// Moves a reminder `minutes` later than `instant` (the watch's "snooze").
    public func snooze(_ reminder: Reminder, minutes: Int, at instant: Date) async throws {
        var later = reminder
        later.dueAt = instant.addingTimeInterval(Double(minutes) * 60)
        try await record.settle(later, as: .snoozed, at: instant)
        wake.signal()
    }

    /// Snoozes the reminder of `key`, fired or pending; false if the store has none.
    public func snooze(_ key: EventKey, minutes: Int, at instant: Date) async throws -> Bool {
        guard let entry = try await store.reminders.all(Set(ReminderStatus.allCases)).first(where: { $0.reminder.key == key }) else {
            return false
        }
        try await snooze(entry.reminder, minutes: minutes, at: instant)
        return true
    }

    /// Catches up, then delivers reminders as they fall due until cancelled. Store changes
    /// from any process (a completion withdraws a reminder), as `changes` reports them, wake
    /// it to plan again. A step the store fails (a held lock, a full disk) is logged and
    /// tried again after ``retryDelay``; only cancellation ends it.
    public func run(following changes: StoreChangeFeed, deliver: @escaping @Sendable (Reminder) async -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask { [wake] in
                for await _ in changes.batches() { wake.signal() }
            }
            await deliverAsDue(deliver)
            group.cancelAll()
        }
    }

    private func deliverAsDue(_ deliver: @Sendable (Reminder) async -> Void) async {
        var caughtUp = false
        await runStepsAsDue(what: "reminders", clock: clock, wake: wake, retryDelay: Self.retryDelay, logger: logger) { instant in
            if !caughtUp {
                for reminder in try await catchUp(at: instant) { await deliver(reminder) }
                caughtUp = true
            }
            // One instant for the whole step, so that nothing falls due between firing and planning.
            for reminder in try await step(at: instant) { await deliver(reminder) }
            return try await replan(at: instant)
        }
    }

    /// How long ``run(following:deliver:)`` waits after a failed step.
    public static let retryDelay = Duration.seconds(5)

    private func planner() async throws -> ReminderPlanner {
        let info = try await store.plan.info()
        guard let zone = info.timeZone else { throw CarePlanStoreError.planNotConfigured }
        return ReminderPlanner(policy: policy, timeZone: zone, routine: info.routine)
    }

    /// Whether the reminder's event still exists in the plan and is not done.
    private func isStillDue(_ reminder: Reminder) async throws -> Bool {
        do {
            return try await store.outcomes.event(reminder.key).state == .initial
        } catch .unknownActivity, .outsideSchedule, .noSuchOccurrence {
            return false
        }
    }
}
