import CarePlan
import Foundation
import LineOutput
import SyncNode

extension EventOutput {
    /// What the companion says while it cannot reach the primary; times as `HH:MM` in the
    /// plan's zone (`zone`, the context's), with the day when it is not today.
    public func show(_ notice: AwayNotice, zone: TimeZone, now: Date) {
        let text = Self.text(of: notice, zone: zone, now: now)
        switch notice {
        case .unreachable(let since):
            write(["type": "away", "status": "unreachable", "since": .string(ISO8601.string(from: since))], text: text)
        case .cannotConfirm(let item, let missedAt):
            write(["type": "away", "status": "cannotConfirm", "activity": .string(item.key.activityID), "day": .string(item.key.day.description),
                   "occurrence": .int(item.key.occurrence), "title": .string(item.title), "time": .orNull(item.time?.description),
                   "missedAt": .string(ISO8601.string(from: missedAt))],
                  text: text)
        case .reachable(let since):
            write(["type": "away", "status": "reachable", "since": .string(ISO8601.string(from: since))], text: text)
        }
    }

    /// The notice as a person reads it (a line, a desktop notification).
    public static func text(of notice: AwayNotice, zone: TimeZone, now: Date) -> String {
        let clockTime = { (instant: Date) -> String in
            let time: TimeOfDay = .containing(instant, in: zone)
            let day: CalendarDay = .containing(instant, in: zone)
            return day == .containing(now, in: zone) ? "\(time)" : "\(day) \(time)"
        }
        switch notice {
        case .unreachable(let since):
            return "⚠ care plan unreachable since \(clockTime(since)): no way to the primary works"
        case .cannotConfirm(let item, _):
            return "⚠ can't confirm \(item.time.map { "the \($0) dose" } ?? "a dose") of \(item.title): the primary is unreachable"
        case .reachable(let since):
            return "✓ care plan reachable again (unreachable since \(clockTime(since)))"
        }
    }
}
