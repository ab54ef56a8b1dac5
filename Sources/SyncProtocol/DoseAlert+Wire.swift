import CarePlan
import Foundation

// Dose alerts as household devices receive them (protocol section 22).

extension DoseAlert {
    /// - Throws: `MALFORMED_FRAME` for an unknown kind, a day, time or instant that cannot be
    ///   read, or an outcome that does not fit the kind.
    public init(wire: Caresync_V1_DoseAlert) throws(ProtocolError) {
        let kind: Kind = switch wire.kind {
        case .missed: .missed
        case .cleared: .cleared
        default: throw .malformed("dose alert kind \(wire.kind.rawValue) is not missed or cleared")
        }
        guard wire.sequence > 0, wire.sequence <= UInt64(Int.max) else { throw .malformed("a dose alert's sequence starts at 1") }
        guard let day = CalendarDay(wire.day) else { throw .malformed("dose alert day \"\(wire.day)\" is not YYYY-MM-DD") }
        guard let time = TimeOfDay(wire.time) else { throw .malformed("dose alert time \"\(wire.time)\" is not HH:MM") }
        let outcome: EventState? = switch (kind, wire.outcome) {
        case (.missed, .unspecified), (.cleared, .unspecified): nil
        case (.cleared, .completed): .completed
        case (.cleared, .notCompleted): .notCompleted
        default: throw .malformed("a \(kind.rawValue) dose alert cannot have outcome \(wire.outcome.rawValue)")
        }
        self.init(
            sequence: Int(wire.sequence), kind: kind,
            key: EventKey(activityID: wire.activityID, day: day, occurrence: Int(wire.occurrence)), title: wire.title, time: time,
            dueAt: try Date(wireMilliseconds: wire.dueAtMs, of: "dose alert due time"),
            raisedAt: try Date(wireMilliseconds: wire.raisedAtMs, of: "dose alert time"), critical: wire.critical, outcome: outcome)
    }

    public var wire: Caresync_V1_DoseAlert {
        .with {
            $0.sequence = UInt64(sequence)
            $0.kind = kind == .missed ? .missed : .cleared
            $0.activityID = key.activityID
            $0.day = key.day.description
            $0.occurrence = UInt32(key.occurrence)
            $0.title = title
            $0.time = time.description
            $0.dueAtMs = dueAt.millisecondsSince1970
            $0.raisedAtMs = raisedAt.millisecondsSince1970
            $0.critical = critical
            $0.outcome = outcome?.wire ?? .unspecified
        }
    }
}
