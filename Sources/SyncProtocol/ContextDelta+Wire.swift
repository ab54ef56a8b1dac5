import CarePlan
import Foundation

extension HeldContext {
    /// The context a Hello names.
    ///
    /// - Throws: `MALFORMED_FRAME` for a revision above `Int.max` or a day that is not `YYYY-MM-DD`.
    public init(wire: Caresync_V1_HeldContext) throws(ProtocolError) {
        self.init(revision: try Self.revision(wire.revision), days: try Self.days(wire.days), generatedAtMs: wire.generatedAtMs)
    }

    public var wire: Caresync_V1_HeldContext {
        .with {
            $0.revision = UInt64(revision)
            $0.days = days.map(\.description)
            $0.generatedAtMs = generatedAtMs
        }
    }

    static func revision(_ wire: UInt64) throws(ProtocolError) -> Int {
        guard let revision = Int(exactly: wire) else { throw .malformed("revision \(wire) is too large") }
        return revision
    }

    static func days(_ wire: [String]) throws(ProtocolError) -> [CalendarDay] {
        var days: [CalendarDay] = []
        for text in wire {
            guard let day = CalendarDay(text) else { throw .malformed("day \"\(text)\" is not YYYY-MM-DD") }
            days.append(day)
        }
        return days
    }
}

extension ContextDelta {
    /// The delta a message carries.
    ///
    /// - Throws: `MALFORMED_FRAME` for a revision above `Int.max`, a day that is not
    ///   `YYYY-MM-DD`, or anything ``ApplicationContext/Day/init(wire:)`` refuses.
    public init(wire: Caresync_V1_ContextDelta) throws(ProtocolError) {
        let base = HeldContext(
            revision: try HeldContext.revision(wire.baseRevision), days: try HeldContext.days(wire.days),
            generatedAtMs: wire.baseGeneratedAtMs)
        var replaced: [ApplicationContext.Day] = []
        for day in wire.replacedDays { replaced.append(try ApplicationContext.Day(wire: day)) }
        var changed: [ApplicationContext.Day] = []
        for day in wire.changedEvents { changed.append(try ApplicationContext.Day(wire: day)) }
        self.init(
            base: base, revision: try HeldContext.revision(wire.revision), planTitle: wire.planTitle,
            patientName: wire.patientName, timeZone: wire.timeZone, replacedDays: replaced, changedEvents: changed,
            generatedAt: try Date(wireMilliseconds: wire.generatedAtMs, of: "generated at"),
            clock: wire.hasClock ? HybridTimestamp(wire: wire.clock) : nil)
    }

    public var wire: Caresync_V1_ContextDelta {
        .with {
            $0.baseRevision = UInt64(base.revision)
            $0.baseGeneratedAtMs = base.generatedAtMs
            $0.days = base.days.map(\.description)
            $0.revision = UInt64(revision)
            $0.planTitle = planTitle
            $0.patientName = patientName
            $0.timeZone = timeZone
            $0.replacedDays = replacedDays.map(\.wire)
            $0.changedEvents = changedEvents.map(\.wire)
            $0.generatedAtMs = generatedAt.millisecondsSince1970
            if let clock { $0.clock = clock.wire }
        }
    }
}

extension ContextDelta {
    /// The delta in the frame payload it arrived in (a serialized Envelope), as a companion
    /// keeps it between runs.
    ///
    /// - Throws: for bytes that are not an Envelope, or a delta that cannot be read.
    public init(serializedEnvelope bytes: Data) throws {
        try self.init(wire: Caresync_V1_Envelope(serializedBytes: bytes).contextDelta)
    }
}
