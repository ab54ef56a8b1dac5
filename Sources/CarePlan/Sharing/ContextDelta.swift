import Foundation

/// Names one context a primary built: its revision, its days and when it was generated
/// (to the millisecond, as the wire carries it). A companion names the context it holds
/// so, and a delta the context it applies to.
public struct HeldContext: Sendable, Hashable {
    public var revision: Int
    public var days: [CalendarDay]
    public var generatedAtMs: Int64

    public init(revision: Int, days: [CalendarDay], generatedAtMs: Int64) {
        self.revision = revision
        self.days = days
        self.generatedAtMs = generatedAtMs
    }
}

/// What changed between two contexts with the same days (protocol section 10): days whose
/// events were added, removed or reordered, whole, and the changed events of the others.
/// Applied to exactly the context it was made from, it gives the newer context.
public struct ContextDelta: Sendable, Hashable {
    /// The context it applies to; its days are the newer context's too.
    public var base: HeldContext
    public var revision: Int
    public var planTitle: String
    public var patientName: String
    public var timeZone: String
    /// Days that replace the held day with the same date, whole.
    public var replacedDays: [ApplicationContext.Day]
    /// Per day, the events that replace the held events with the same keys.
    public var changedEvents: [ApplicationContext.Day]
    public var generatedAt: Date
    public var clock: HybridTimestamp?

    /// The delta from `base` to `context`, or `nil` when their plans or days differ (a new
    /// day, or tomorrow joining a watch's context): then only the whole context will do.
    public init?(from base: ApplicationContext, to context: ApplicationContext) {
        guard base.days.map(\.day) == context.days.map(\.day), base.planID == context.planID else { return nil }
        var replaced: [ApplicationContext.Day] = []
        var changed: [ApplicationContext.Day] = []
        for (held, new) in zip(base.days, context.days) where held != new {
            let sameEvents = held.events.count == new.events.count && zip(held.events, new.events).allSatisfy { $0.key == $1.key }
            if !sameEvents {
                replaced.append(new)
            } else {
                changed.append(ApplicationContext.Day(day: new.day, events: zip(held.events, new.events).filter { $0 != $1 }.map(\.1)))
            }
        }
        self.init(
            base: base.held, revision: context.revision, planTitle: context.planTitle, patientName: context.patientName,
            timeZone: context.timeZone, replacedDays: replaced, changedEvents: changed, generatedAt: context.generatedAt, clock: context.clock)
    }

    /// The delta from `base` to `context` when only the events at `changed` (event indexes
    /// by day index, the same in both) can differ: those alone are compared, not every event
    /// of every day. The same delta as ``init(from:to:)`` gives for such contexts.
    ///
    /// - Precondition: both have the same days, each with the same events in the same order.
    public init(from base: ApplicationContext, to context: ApplicationContext, changed: [Int: Set<Int>]) {
        let changedEvents = changed.keys.sorted().compactMap { day -> ApplicationContext.Day? in
            let (held, new) = (base.days[day].events, context.days[day].events)
            let events = changed[day, default: []].sorted().filter { held[$0] != new[$0] }.map { new[$0] }
            return events.isEmpty ? nil : ApplicationContext.Day(day: context.days[day].day, events: events)
        }
        self.init(
            base: base.held, revision: context.revision, planTitle: context.planTitle, patientName: context.patientName,
            timeZone: context.timeZone, replacedDays: [], changedEvents: changedEvents, generatedAt: context.generatedAt,
            clock: context.clock)
    }

    /// A delta from its parts, as a message carries them.
    public init(
        base: HeldContext, revision: Int, planTitle: String, patientName: String, timeZone: String,
        replacedDays: [ApplicationContext.Day], changedEvents: [ApplicationContext.Day], generatedAt: Date, clock: HybridTimestamp?
    ) {
        self.base = base
        self.revision = revision
        self.planTitle = planTitle
        self.patientName = patientName
        self.timeZone = timeZone
        self.replacedDays = replacedDays
        self.changedEvents = changedEvents
        self.generatedAt = generatedAt
        self.clock = clock
    }

    /// The context this delta gives applied to `held`, or `nil` if it does not apply: `held`
    /// is another context than its base, or lacks a day or an event the delta changes.
    public func applied(to held: ApplicationContext) -> ApplicationContext? {
        var context = held
        return apply(to: &context) ? context : nil
    }

    /// Applies the delta to `context` in place, or returns `false` and leaves it as it was if
    /// it does not apply (as ``applied(to:)``). Where nothing else shares the context's
    /// storage, only the events the delta changes are written, not the whole day copied.
    public func apply(to context: inout ApplicationContext) -> Bool {
        guard context.held == base else { return false }
        // Every place is found before anything is written.
        var replaced: [Int: ApplicationContext.Day] = [:]
        for replacement in replacedDays {
            guard let index = context.days.firstIndex(where: { $0.day == replacement.day }) else { return false }
            replaced[index] = replacement
        }
        var changes: [(day: Int, position: Int, event: ApplicationContext.Item)] = []
        for changed in changedEvents {
            guard let index = context.days.firstIndex(where: { $0.day == changed.day }) else { return false }
            let events = replaced[index]?.events ?? context.days[index].events
            // A primary lists changed events in the day's order: each search starts after the
            // last event found (and wraps around), so a delta of many costs one pass of the day.
            var next = events.startIndex
            for event in changed.events {
                guard let position = events[next...].firstIndex(where: { $0.key == event.key })
                    ?? events[..<next].firstIndex(where: { $0.key == event.key })
                else { return false }
                changes.append((index, position, event))
                next = position + 1
            }
        }
        context.revision = revision
        context.planTitle = planTitle
        context.patientName = patientName
        context.timeZone = timeZone
        context.generatedAt = generatedAt
        context.clock = clock
        for (index, day) in replaced { context.days[index] = day }
        for change in changes { context.days[change.day].events[change.position] = change.event }
        return true
    }
}
