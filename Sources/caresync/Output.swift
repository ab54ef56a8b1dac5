import CarePlan
import CarePlanStore
import Foundation
import LineOutput

/// One event as `--json` output shows it.
struct EventJSON: Encodable {
    var activity: String
    var title: String
    var kind: ActivityKind
    var group: String?
    var day: CalendarDay
    var occurrence: Int
    var time: TimeOfDay?
    var state: EventState
    var values: [OutcomeValue]
    var recordedAt: String?
    var device: String?
    var reason: String?
    var instructions: String?
    var version: Int

    init(_ event: Event) {
        activity = event.key.activityID
        title = event.activity.title
        kind = event.activity.kind
        group = event.activity.groupIdentifier
        day = event.key.day
        occurrence = event.key.occurrence
        time = event.time
        state = event.state
        values = event.outcome?.values ?? []
        recordedAt = event.outcome.map { ISO8601.string(from: $0.recordedAt) }
        device = event.outcome?.device
        reason = event.outcome?.reason
        instructions = event.activity.instructions
        version = event.version
    }

    enum CodingKeys: CodingKey {
        case activity, title, kind, group, day, occurrence, time, state, values, recordedAt, device, reason
        case instructions, version
    }

    /// Absent values are written as `null` so every event has every key.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(activity, forKey: .activity)
        try c.encode(title, forKey: .title)
        try c.encode(kind, forKey: .kind)
        try c.encode(group, forKey: .group)
        try c.encode(day, forKey: .day)
        try c.encode(occurrence, forKey: .occurrence)
        try c.encode(time, forKey: .time)
        try c.encode(state, forKey: .state)
        try c.encode(values, forKey: .values)
        try c.encode(recordedAt, forKey: .recordedAt)
        try c.encode(device, forKey: .device)
        try c.encode(reason, forKey: .reason)
        try c.encode(instructions, forKey: .instructions)
        try c.encode(version, forKey: .version)
    }
}

/// Completed and total with a whole percentage, as `--json` output shows a tally.
struct TallyJSON: Encodable {
    var completed: Int
    var total: Int
    var percent: Int?

    init(_ tally: Tally) {
        completed = tally.completed
        total = tally.total
        percent = tally.fraction.map { Int(($0 * 100).rounded()) }
    }

    enum CodingKeys: CodingKey { case completed, total, percent }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(completed, forKey: .completed)
        try c.encode(total, forKey: .total)
        try c.encode(percent, forKey: .percent)
    }
}
