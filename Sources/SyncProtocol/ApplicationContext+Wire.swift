import CarePlan
import Foundation

extension ApplicationContext {
    /// The context a message carries.
    ///
    /// - Throws: `MALFORMED_FRAME` for a day that is not `YYYY-MM-DD`, a time of day that is
    ///   not `HH:MM`, a revision above `Int.max`, a time outside the years 1 to 9999, or a
    ///   malformed kind, state or value.
    public init(wire: Caresync_V1_ApplicationContext) throws(ProtocolError) {
        guard let revision = Int(exactly: wire.revision) else { throw .malformed("revision \(wire.revision) is too large") }
        var days: [Day] = []
        for day in wire.days { days.append(try Day(wire: day)) }
        self.init(
            revision: revision, planID: wire.planID, planTitle: wire.planTitle, patientName: wire.patientName, timeZone: wire.timeZone,
            days: days, generatedAt: try Date(wireMilliseconds: wire.generatedAtMs, of: "generated at"),
            clock: wire.hasClock ? HybridTimestamp(wire: wire.clock) : nil)
    }

    public var wire: Caresync_V1_ApplicationContext {
        .with { context in
            context.revision = UInt64(revision)
            context.planID = planID
            context.planTitle = planTitle
            context.patientName = patientName
            context.timeZone = timeZone
            context.generatedAtMs = generatedAt.millisecondsSince1970
            if let clock { context.clock = clock.wire }
            context.days = days.map(\.wire)
        }
    }
}

extension ApplicationContext.Day {
    /// A day of a context, or of a delta.
    ///
    /// - Throws: `MALFORMED_FRAME` for a day that is not `YYYY-MM-DD`, a time of day that is
    ///   not `HH:MM`, a time outside the years 1 to 9999, or a malformed kind, state or value.
    public init(wire: Caresync_V1_ContextDay) throws(ProtocolError) {
        guard let day = CalendarDay(wire.day) else { throw .malformed("day \"\(wire.day)\" is not YYYY-MM-DD") }
        var items: [ApplicationContext.Item] = []
        for event in wire.events {
            var values: [OutcomeValue] = []
            for value in event.values { values.append(try OutcomeValue(wire: value)) }
            var time: TimeOfDay?
            if !event.timeOfDay.isEmpty {
                guard let parsed = TimeOfDay(event.timeOfDay) else {
                    throw .malformed("time of day \"\(event.timeOfDay)\" is not HH:MM")
                }
                time = parsed
            }
            items.append(ApplicationContext.Item(
                key: EventKey(activityID: event.activityID, day: day, occurrence: Int(event.occurrence)),
                title: event.title, kind: try ActivityKind(wire: event.kind), time: time,
                state: try EventState(wire: event.state), values: values,
                instructions: event.instructions.nilIfEmpty, group: event.groupID.nilIfEmpty,
                version: Int(event.version), recordedBy: event.recordedBy.nilIfEmpty,
                recordedAt: event.recordedAtMs == 0 ? nil : try Date(wireMilliseconds: event.recordedAtMs, of: "recorded at"),
                missedAt: event.missedAtMs == 0 ? nil : try Date(wireMilliseconds: event.missedAtMs, of: "missed at")))
        }
        self.init(day: day, events: items)
    }

    public var wire: Caresync_V1_ContextDay {
        .with { wireDay in
            wireDay.day = day.description
            wireDay.events = events.map { item in
                .with {
                    $0.activityID = item.key.activityID
                    $0.title = item.title
                    $0.kind = item.kind.wire
                    $0.occurrence = UInt32(item.key.occurrence)
                    $0.timeOfDay = item.time?.description ?? ""
                    $0.state = item.state.wire
                    $0.values = item.values.map(\.wire)
                    $0.instructions = item.instructions ?? ""
                    $0.groupID = item.group ?? ""
                    $0.version = UInt32(item.version)
                    $0.recordedBy = item.recordedBy ?? ""
                    $0.recordedAtMs = item.recordedAt?.millisecondsSince1970 ?? 0
                    $0.missedAtMs = item.missedAt?.millisecondsSince1970 ?? 0
                }
            }
        }
    }
}

extension ApplicationContext {
    /// The context in the frame payload it arrived in (a serialized Envelope), as a companion
    /// keeps it between runs.
    ///
    /// - Throws: for bytes that are not an Envelope, or a context that cannot be read.
    public init(serializedEnvelope bytes: Data) throws {
        try self.init(wire: Caresync_V1_Envelope(serializedBytes: bytes).applicationContext)
    }

    /// The context as the frame payload that carries it whole (a serialized Envelope).
    public func serializedEnvelope() throws -> Data {
        try Caresync_V1_Envelope.context(self).serializedBytes()
    }
}
