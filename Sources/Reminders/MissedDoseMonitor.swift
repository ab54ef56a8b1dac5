import CareCore
import CarePlan
import CarePlanStore
import Foundation
import Logging
import Synchronization
import Clocks
import Waiting

/// Decides when a due event counts as missed and keeps an alert for it in the store, for
/// household devices (protocol section 22); gives the all clear once a missed event has an
/// outcome, or leaves the plan.
///
/// An event is missed when its time (its own, else the routine's, as for reminders) plus
/// its grace period (the activity's, else the plan's; `MissedDosePolicy`) has passed in the
/// plan's time zone and it has no outcome, for the activities whose rule raises alerts
/// (`MissedDoseRule`); never an as-needed slot. Each event is alerted once and cleared
/// once, whatever restarts come between: the store keeps both.
///
/// Every step takes the instant it runs at, so tests drive days in milliseconds;
/// ``run(following:deliver:)`` is the thin loop that sleeps between steps.
public final class MissedDoseMonitor: Sendable {
    public let store: CarePlanStore
    /// What the record may hold of alerts, as the care core judges it.
    private let record: ReminderKeeping
    /// A dose whose grace period ended longer ago than this when first noticed (the primary
    /// was down, or the plan was loaded late) raises no alert: it is no longer news.
    public static let lookback: TimeInterval = 12 * 3600
    /// How long alerts are kept for devices that were away.
    public static let kept: TimeInterval = 30 * 86_400
    /// How long ``run(following:deliver:)`` waits after a failed step.
    public static let retryDelay = Duration.seconds(5)

    private let clock: any WallClock
    private let logger: Logger
    private let wake = WakeSignal()
    /// The events alerted and not yet cleared, as the last step left them: their outcomes wake the loop.
    private let open = Mutex<Set<EventKey>>([])
    /// The day old alerts were last forgotten: once a day is enough.
    private let forgotten = Mutex<CalendarDay?>(nil)

    /// - Parameters:
    ///   - store: where the alerts are kept and the events are read.
    ///   - clock: what every step reads as now, and what ``run(following:deliver:)`` waits on
    ///     between steps; tests pass their own.
    ///   - logger: told of failures that ``run(following:deliver:)`` recovers from (silent unless given).
    public init(
        store: CarePlanStore, clock: any WallClock = .system,
        logger: Logger = Logger(label: "caresync.alerts", factory: { _ in SwiftLogNoOpLogHandler() })
    ) {
        self.store = store
        record = CareCore(store: store).reminders
        self.clock = clock
        self.logger = logger
    }

    /// Gives the all clear of every missed event settled since, and raises an alert for
    /// every event missed by `instant` that has none. Returns the alerts kept, in sequence
    /// order, and when the next event will count as missed.
    public func step(at instant: Date) async throws -> (alerts: [DoseAlert], next: Date?) {
        let info = try await store.plan.info()
        guard let zone = info.timeZone else { throw CarePlanStoreError.planNotConfigured }
        let planner = ReminderPlanner(timeZone: zone, routine: info.routine)
        let today = CalendarDay.containing(instant, in: zone)
        // A grace period is at most a day: an event two days back can still be missed now.
        let first = today.adding(days: -2)
        let alerted = try await store.reminders.missedDoseKeys(from: first)
        let unsettled = try await store.reminders.openMissedDoses()
        var raised = try await clears(of: unsettled, at: instant)
        var next: Date?
        for day in first...today.adding(days: 1) {
            for event in try await store.outcomes.events(on: day) where event.state == .initial && !alerted.contains(event.key) {
                guard let (time, dueAt, missedAt) = planner.missing(event, under: info.missedDose) else { continue }
                let activity = event.activity
                if missedAt > instant {
                    next = min(next ?? missedAt, missedAt)
                } else if instant.timeIntervalSince(missedAt) <= Self.lookback {
                    raised.append(DoseAlert(
                        kind: .missed, key: event.key, title: activity.title, time: time, dueAt: dueAt, raisedAt: instant,
                        critical: activity.missedDose.critical))
                }
            }
        }
        let kept = try await record.raise(raised)
        if forgotten.withLock({ $0 }) != today {
            try await record.forgetAlerts(raisedBefore: instant.addingTimeInterval(-Self.kept))
            forgotten.withLock { $0 = today }
        }
        let cleared = Set(kept.filter { $0.kind == .cleared }.map(\.key))
        let missed = kept.filter { $0.kind == .missed }.map(\.key)
        open.withLock { $0 = Set(unsettled.map(\.key)).subtracting(cleared).union(missed) }
        return (kept, next)
    }

    /// The all clears of the `unsettled` missed events that have an outcome now, or left the plan.
    private func clears(of unsettled: [DoseAlert], at instant: Date) async throws -> [DoseAlert] {
        var clears: [DoseAlert] = []
        for missed in unsettled {
            do {
                let state = try await store.outcomes.event(missed.key).state
                if state != .initial { clears.append(missed.cleared(at: instant, outcome: state)) }
            } catch .unknownActivity, .outsideSchedule, .noSuchOccurrence {
                clears.append(missed.cleared(at: instant, outcome: nil))
            }
        }
        return clears
    }

    /// Raises and clears alerts as events are missed and settled, until cancelled, handing
    /// each step's alerts to `deliver`. A change to the plan, or an outcome of an event
    /// alerted (or reset), as `changes` reports them from any process, wakes it at once.
    /// A step the store fails is logged and tried again after ``retryDelay``.
    public func run(following changes: StoreChangeFeed, deliver: @escaping @Sendable ([DoseAlert]) async -> Void) async {
        await withDiscardingTaskGroup { group in
            group.addTask { [self] in
                for await batch in changes.batches() where batch.contains(where: matters) { wake.signal() }
            }
            await runStepsAsDue(what: "missed-dose alerts", clock: clock, wake: wake, retryDelay: Self.retryDelay, logger: logger) {
                let (alerts, next) = try await step(at: $0)
                if !alerts.isEmpty { await deliver(alerts) }
                return next
            }
            group.cancelAll()
        }
    }

    /// Whether `change` can raise or clear an alert before the next planned step.
    private func matters(_ change: StoreChange) -> Bool {
        switch change.kind {
        case .planConfigured, .activityAdded, .activityUpdated, .activityEnded:
            true
        case .outcomeRecorded, .outcomeSuperseded:
            change.outcome?.state == .initial || change.event.map { key in open.withLock { $0.contains(key) } } ?? false
        case .contactSaved, .contactRemoved, .devicePaired, .deviceRevoked, .reportShared:
            false
        }
    }
}
