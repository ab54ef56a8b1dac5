import CarePlan
import Foundation
import Synchronization

/// A household device's quiet hours, such as 22:00 to 07:00, on its own wall clock: they may
/// run past midnight, and follow the device's time zone through daylight-saving changes.
public struct QuietHours: Sendable, Hashable, CustomStringConvertible {
    public var from: TimeOfDay
    public var until: TimeOfDay

    public init(from: TimeOfDay, until: TimeOfDay) {
        self.from = from
        self.until = until
    }

    /// Parses `HH:MM-HH:MM`; two equal times are no quiet hours at all.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let from = TimeOfDay(String(parts[0])), let until = TimeOfDay(String(parts[1])), from != until else {
            return nil
        }
        self.init(from: from, until: until)
    }

    /// `HH:MM-HH:MM`, as ``init(_:)`` reads it.
    public var description: String { "\(from)-\(until)" }

    /// Whether `instant` falls in the quiet hours, in `zone`.
    public func contains(_ instant: Date, in zone: TimeZone) -> Bool {
        let time = TimeOfDay.containing(instant, in: zone)
        return from < until ? (from <= time && time < until) : (time >= from || time < until)
    }

    /// When the quiet hours that hold `instant` end, in `zone`.
    public func end(after instant: Date, in zone: TimeZone) -> Date {
        let day = CalendarDay.containing(instant, in: zone)
        let today = day.date(at: until, in: zone)
        return today > instant ? today : day.adding(days: 1).date(at: until, in: zone)
    }
}

/// When a household device shows dose alerts: at once, unless in its quiet hours or a
/// snooze, when only critical ones are; the others are held and shown when those end, those
/// whose dose was settled meanwhile not at all (the missed dose and its all clear both go).
public final class AlertGate: Sendable {
    private struct State {
        var quietHours: QuietHours?
        var snoozedUntil: Date?
        /// Alerts held, oldest first.
        var held: [DoseAlert] = []
    }

    public let timeZone: TimeZone
    private let state: Mutex<State>

    /// A gate holding `held` (as ``held`` gave them before a restart, say).
    public init(quietHours: QuietHours?, snoozedUntil: Date? = nil, held: [DoseAlert] = [], timeZone: TimeZone) {
        self.timeZone = timeZone
        state = Mutex(State(quietHours: quietHours, snoozedUntil: snoozedUntil, held: held))
    }

    /// The alerts held, oldest first.
    public var held: [DoseAlert] {
        state.withLock { $0.held }
    }

    public var quietHours: QuietHours? {
        get { state.withLock { $0.quietHours } }
        set { state.withLock { $0.quietHours = newValue } }
    }

    /// Holds alerts that are not critical until `instant`.
    public func snooze(until instant: Date) {
        state.withLock { $0.snoozedUntil = instant }
    }

    /// The alerts among `alerts` (received at `instant`) to show now, oldest first; the
    /// others are held. An all clear of a held alert takes both away.
    public func admit(_ alerts: [DoseAlert], at instant: Date) -> [DoseAlert] {
        state.withLock { state in
            let quiet = Self.isQuiet(state, at: instant, in: timeZone)
            var shown: [DoseAlert] = []
            for alert in alerts.sorted(by: { $0.sequence < $1.sequence }) {
                if alert.kind == .cleared, let held = state.held.firstIndex(where: { $0.kind == .missed && $0.key == alert.key }) {
                    state.held.remove(at: held)
                } else if alert.critical || !quiet {
                    shown.append(alert)
                } else {
                    state.held.append(alert)
                }
            }
            return shown
        }
    }

    /// The held alerts to show at `instant`, oldest first: all of them once the quiet hours
    /// and the snooze are over.
    public func release(at instant: Date) -> [DoseAlert] {
        state.withLock { state in
            guard !Self.isQuiet(state, at: instant, in: timeZone) else { return [] }
            defer { state.held = [] }
            return state.held
        }
    }

    /// When held alerts are next to be shown; `nil` when none are held.
    public func nextRelease(after instant: Date) -> Date? {
        state.withLock { state in
            guard !state.held.isEmpty else { return nil }
            var end = instant
            // A snooze may end inside the quiet hours, and quiet hours inside a snooze.
            while Self.isQuiet(state, at: end, in: timeZone) {
                if let snoozed = state.snoozedUntil, snoozed > end { end = snoozed }
                if let quiet = state.quietHours, quiet.contains(end, in: timeZone) { end = quiet.end(after: end, in: timeZone) }
            }
            return end
        }
    }

    private static func isQuiet(_ state: State, at instant: Date, in zone: TimeZone) -> Bool {
        (state.snoozedUntil.map { instant < $0 } ?? false) || (state.quietHours?.contains(instant, in: zone) ?? false)
    }
}
