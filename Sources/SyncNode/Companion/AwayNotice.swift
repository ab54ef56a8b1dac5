import CarePlan
import Foundation
import Synchronization

/// What a companion says while no way reaches its primary (protocol section 25, "Away,
/// honestly"), each once.
public enum AwayNotice: Sendable, Hashable {
    /// No way to the primary works; it was last heard `since` (on this device's clock).
    case unreachable(since: Date)
    /// A household device's own notice: a dose it knows of passed the time the primary
    /// counts it missed (`missedAt`) after the primary was last heard, with no outcome known.
    case cannotConfirm(ApplicationContext.Item, missedAt: Date)
    /// The primary is heard again after being unreachable since `since`: the notices end.
    case reachable(since: Date)
}

/// Watches a companion's reachability and says ``AwayNotice``s: "unreachable" once when an
/// attempt finds no way after the primary was heard, then (if `watchesDoses`) a notice for
/// each dose of the kept context that passes its missed time meanwhile, waited on the
/// companion's clock; "reachable" when a connection is up again.
final class AwayWatch: Sendable {
    private struct State {
        /// Unreachable since then (the primary last heard), while away.
        var since: Date?
        var doses: Task<Void, Never>?
    }

    private let state = Mutex(State())
    private let companion: CompanionState
    private let configuration: CompanionConfiguration
    private let sink: AsyncStream<CompanionEvent>.Continuation

    init(state: CompanionState, configuration: CompanionConfiguration, sink: AsyncStream<CompanionEvent>.Continuation) {
        companion = state
        self.configuration = configuration
        self.sink = sink
    }

    /// An attempt found no way to the primary: says so the first time since it was heard.
    func unreachable() {
        let since = companion.lastHeard ?? companion.context?.generatedAt ?? configuration.clock.now
        let started = state.withLock { state -> Bool in
            guard state.since == nil else { return false }
            state.since = since
            return true
        }
        guard started else { return }
        sink.yield(.away(.unreachable(since: since)))
        guard configuration.alerts else { return }
        let doses = Task { [self] in await watchDoses(heardAt: since) }
        state.withLock { $0.doses = doses }
    }

    /// A connection is up: ends the away notices, saying so if there were any.
    func reached() {
        let ended = state.withLock { state -> Date? in
            defer { state.since = nil; state.doses?.cancel(); state.doses = nil }
            return state.since
        }
        if let ended { sink.yield(.away(.reachable(since: ended))) }
    }

    /// Says ``AwayNotice/cannotConfirm(_:missedAt:)`` for each undone dose of the kept context
    /// whose missed time is after `heardAt`, as each passes, until cancelled.
    private func watchDoses(heardAt: Date) async {
        var told: Set<EventKey> = []
        let clock = configuration.clock
        while !Task.isCancelled {
            // Doses this device recorded itself (still in its outbox) are known to someone.
            let recorded = Set(companion.pending.compactMap { try? $0.completion.eventKey() })
            let waiting = (companion.context?.days ?? []).flatMap(\.events).compactMap { item in
                item.missedAt.map { (item: item, missedAt: $0) }
            }.filter { dose in
                dose.item.state == .initial && dose.missedAt > heardAt && !told.contains(dose.item.key) && !recorded.contains(dose.item.key)
            }
            let now = clock.now
            for dose in waiting.filter({ $0.missedAt <= now }).sorted(by: { $0.missedAt < $1.missedAt }) {
                told.insert(dose.item.key)
                sink.yield(.away(.cannotConfirm(dose.item, missedAt: dose.missedAt)))
            }
            guard let next = waiting.map(\.missedAt).filter({ $0 > now }).min() else { return }
            do {
                try await clock.sleep(.seconds(next.timeIntervalSince(now)))
            } catch {
                return
            }
        }
    }
}
