import CarePlan
import Foundation
import SyncProtocol
import Testing

/// ContextDelta (protocol section 10): made from two contexts, it gives the newer one
/// applied to exactly the older, and nothing applied to any other.
struct ContextDeltaTests {
    static let today = CalendarDay("2026-11-23")!
    static let tomorrow = today.adding(days: 1)

    static func item(_ id: String, on day: CalendarDay = today, occurrence: Int = 0, state: EventState = .initial) -> ApplicationContext.Item {
        .init(key: EventKey(activityID: id, day: day, occurrence: occurrence), title: id.capitalized, kind: .intervention,
              time: TimeOfDay("08:00"), state: state, values: [], instructions: nil, group: nil,
              version: state == .initial ? 1 : 2, recordedBy: state == .initial ? nil : "watch",
              recordedAt: state == .initial ? nil : Date(timeIntervalSince1970: 1_795_460_400))
    }

    static func context(_ revision: Int, _ days: [ApplicationContext.Day], title: String = "ZombieCare") -> ApplicationContext {
        ApplicationContext(
            revision: revision, planID: "p", planTitle: title, timeZone: "Europe/Vienna", days: days,
            generatedAt: Date(timeIntervalSince1970: 1_795_460_000 + Double(revision)),
            clock: HybridTimestamp(physical: Int64(revision), logical: 0, node: "primary"))
    }

    /// A day of `count` events, the one at `completed` (if any) done.
    static func day(_ day: CalendarDay, count: Int, completed: Int? = nil) -> ApplicationContext.Day {
        .init(day: day, events: (0..<count).map { item("med-\($0)", on: day, state: $0 == completed ? .completed : .initial) })
    }

    @Test func aChangedEventTravelsAloneAndGivesTheNewerContext() throws {
        let base = Self.context(14, [Self.day(Self.today, count: 320), Self.day(Self.tomorrow, count: 3)])
        let newer = Self.context(15, [Self.day(Self.today, count: 320, completed: 7), Self.day(Self.tomorrow, count: 3)])
        let delta = try #require(ContextDelta(from: base, to: newer))
        #expect(delta.replacedDays.isEmpty)
        #expect(delta.changedEvents.map(\.day) == [Self.today])
        #expect(delta.changedEvents.first?.events.map(\.key.activityID) == ["med-7"])

        let back = try ContextDelta(wire: Caresync_V1_ContextDelta(serializedBytes: delta.wire.serializedData()))
        #expect(back == delta)
        #expect(back.applied(to: base) == newer)

        let deltaBytes = try Caresync_V1_Envelope.contextDelta(delta).serializedData().count
        let wholeBytes = try Caresync_V1_Envelope.context(newer).serializedData().count
        #expect(deltaBytes * 50 < wholeBytes, "delta \(deltaBytes) B, whole \(wholeBytes) B")
    }

    /// Told which events may have changed, a delta compares only those: the same delta as
    /// comparing every event, whether a named event changed or not, on either day.
    @Test func aDeltaToldWhatChangedIsTheDeltaFoundByComparingAll() throws {
        let base = Self.context(20, [Self.day(Self.today, count: 320, completed: 3), Self.day(Self.tomorrow, count: 5)])
        var days = base.days
        days[0].events[7] = Self.item("med-7", state: .completed)
        days[0].events[300] = Self.item("med-300", state: .notCompleted)
        days[1].events[4] = Self.item("med-4", on: Self.tomorrow, state: .completed)
        let newer = Self.context(23, days)
        // Event 3 was named but is as it was; event 300 changed before event 7 was named.
        let told = ContextDelta(from: base, to: newer, changed: [0: [300, 3, 7], 1: [4]])
        #expect(told == ContextDelta(from: base, to: newer))
        #expect(told.changedEvents.map { $0.events.map(\.key.activityID) } == [["med-7", "med-300"], ["med-4"]])
        #expect(told.applied(to: base) == newer)
        // Nothing that changed named: an empty delta that still moves the revision.
        let none = ContextDelta(from: base, to: Self.context(24, base.days), changed: [0: [3]])
        #expect(none.changedEvents.isEmpty && none.revision == 24)
    }

    @Test func aDayWithEventsAddedOrRemovedIsReplacedWhole() throws {
        let base = Self.context(3, [Self.day(Self.today, count: 4)])
        var events = Self.day(Self.today, count: 4).events
        events.remove(at: 1)
        events.append(Self.item("new", occurrence: 2))
        let newer = Self.context(4, [.init(day: Self.today, events: events)], title: "Renamed")
        let delta = try #require(ContextDelta(from: base, to: newer))
        #expect(delta.replacedDays.map(\.events.count) == [4])
        #expect(delta.changedEvents.isEmpty)
        #expect(delta.applied(to: base) == newer)
    }

    @Test func nothingChangedGivesAnEmptyDeltaThatStillMovesTheClock() throws {
        let base = Self.context(5, [Self.day(Self.today, count: 2)])
        var newer = base
        newer.generatedAt += 60
        newer.clock = HybridTimestamp(physical: 99, logical: 0, node: "primary")
        let delta = try #require(ContextDelta(from: base, to: newer))
        #expect(delta.replacedDays.isEmpty && delta.changedEvents.isEmpty)
        #expect(delta.applied(to: base) == newer)
    }

    @Test func contextsWithOtherDaysOrPlansHaveNoDelta() {
        let today = Self.context(1, [Self.day(Self.today, count: 2)])
        let withTomorrow = Self.context(1, [Self.day(Self.today, count: 2), Self.day(Self.tomorrow, count: 2)])
        var otherPlan = today
        otherPlan.planID = "q"
        #expect(ContextDelta(from: today, to: withTomorrow) == nil)
        #expect(ContextDelta(from: today, to: otherPlan) == nil)
    }

    @Test func aDeltaAppliesToNoContextButItsBase() throws {
        let base = Self.context(14, [Self.day(Self.today, count: 3)])
        let delta = try #require(ContextDelta(from: base, to: Self.context(15, [Self.day(Self.today, count: 3, completed: 1)])))
        var otherRevision = base
        otherRevision.revision = 13
        let otherDays = Self.context(14, [Self.day(Self.tomorrow, count: 3)])
        let missingEvent = Self.context(14, [Self.day(Self.today, count: 1)])
        var generatedLater = base
        generatedLater.generatedAt += 0.001
        #expect(delta.base == base.held)
        #expect(delta.applied(to: generatedLater) == nil)
        #expect(delta.applied(to: otherRevision) == nil)
        #expect(delta.applied(to: otherDays) == nil)
        #expect(delta.applied(to: missingEvent) == nil)
    }

    /// Applied in place to a context nothing else holds, a delta writes its events into the
    /// day's own storage (no copy of the day); one that does not apply changes nothing, even
    /// when its first event would have.
    @Test func aDeltaAppliesInPlaceOrNotAtAll() throws {
        let base = Self.context(14, [Self.day(Self.today, count: 320)])
        let newer = Self.context(15, [Self.day(Self.today, count: 320, completed: 7)])
        let delta = try #require(ContextDelta(from: base, to: newer))
        var context = Self.context(14, [Self.day(Self.today, count: 320)])
        let storage = context.days[0].events.withUnsafeBufferPointer { $0.baseAddress }
        #expect(delta.apply(to: &context))
        #expect(context == newer)
        #expect(context.days[0].events.withUnsafeBufferPointer { $0.baseAddress } == storage)

        var twoChanges = delta
        twoChanges.changedEvents[0].events.append(Self.item("missing"))
        var untouched = base
        #expect(!twoChanges.apply(to: &untouched))
        #expect(untouched == base)
    }

    @Test func changedEventsApplyInTheDaysOrderOrAnyOther() throws {
        let base = Self.context(20, [Self.day(Self.today, count: 320)])
        var done = Self.day(Self.today, count: 320)
        for position in [3, 40, 41, 200, 319] { done.events[position] = Self.item("med-\(position)", state: .completed) }
        let newer = Self.context(21, [done])
        let delta = try #require(ContextDelta(from: base, to: newer))
        #expect(delta.changedEvents.first?.events.map(\.key.activityID) == ["med-3", "med-40", "med-41", "med-200", "med-319"])
        #expect(delta.applied(to: base) == newer)
        // Another client may list them in any order, each found wherever it is.
        var shuffled = delta
        shuffled.changedEvents[0].events = [4, 0, 3, 2, 1].map { delta.changedEvents[0].events[$0] }
        #expect(shuffled.applied(to: base) == newer)
        // An event the day lacks, after all the others, still refuses the whole delta.
        shuffled.changedEvents[0].events.append(Self.item("med-320"))
        #expect(shuffled.applied(to: base) == nil)
    }

    @Test func malformedDeltasAreRefused() {
        let valid = Caresync_V1_ContextDelta.with {
            $0.baseRevision = 1
            $0.revision = 2
            $0.days = ["2026-11-23"]
            $0.generatedAtMs = 1_795_460_401_024
        }
        var tooLarge = valid
        tooLarge.revision = .max
        var badDay = valid
        badDay.days = ["23.11.2026"]
        var badEvent = valid
        badEvent.changedEvents = [.with { $0.day = "2026-11-23"; $0.events = [.with { $0.timeOfDay = "8:00" }] }]
        #expect(throws: Never.self) { try ContextDelta(wire: valid) }
        for wire in [tooLarge, badDay, badEvent] {
            #expect { try ContextDelta(wire: wire) } throws: { ($0 as? ProtocolError)?.code == .malformedFrame }
        }
    }

    /// The `context-delta` vector applied to the `application-context` vector completes the
    /// pain rating and leaves the golden apple as it was.
    @Test func theDeltaVectorAppliesToTheContextVector() throws {
        func message(_ name: String) throws -> Caresync_V1_Envelope {
            let vector = try #require(VectorTests.vectors.valid.first { $0.name == name })
            return try Caresync_V1_Envelope(jsonUTF8Data: JSONEncoder().encode(vector.message))
        }
        let base = try ApplicationContext(wire: message("application-context").applicationContext)
        let delta = try ContextDelta(wire: message("context-delta").contextDelta)
        let newer = try #require(delta.applied(to: base))
        #expect(newer.revision == 15)
        #expect(newer.days[0].events.map(\.state) == [.completed, .completed])
        #expect(newer.days[0].events[0] == base.days[0].events[0])
        #expect(newer.days[0].events[1].values == [OutcomeValue(.integer(3), unit: "points")])
    }
}
