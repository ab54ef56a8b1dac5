import CarePlan
import Foundation
import SyncProtocol
import Testing

/// Messages that decode but carry values no model value can hold: each is refused with
/// MALFORMED_FRAME, never a trap, and never silently changed. scripts/fuzz (wire) checks
/// this for any message; it found the dropped times of day.
struct MalformedWireTests {
    func context(_ change: (inout Caresync_V1_ApplicationContext) -> Void) -> Caresync_V1_ApplicationContext {
        var context = Caresync_V1_ApplicationContext.with {
            $0.revision = 14
            $0.planID = "p"
            $0.generatedAtMs = 1_795_460_401_024
            $0.days = [.with {
                $0.day = "2026-11-23"
                $0.events = [.with {
                    $0.activityID = "pain"
                    $0.kind = .assessment
                    $0.state = .completed
                    $0.timeOfDay = "08:00"
                    $0.values = [OutcomeValue(.integer(7)).wire]
                    $0.recordedAtMs = 1_795_460_401_024
                }]
            }]
        }
        change(&context)
        return context
    }

    func expectMalformed(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try body()
            Issue.record("accepted", sourceLocation: sourceLocation)
        } catch {
            #expect((error as? ProtocolError)?.code == .malformedFrame, "\(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func aWellFormedContextComesBackUnchanged() throws {
        let wire = context { _ in }
        #expect(try ApplicationContext(wire: wire).wire == wire)
    }

    /// A revision above Int.max trapped in `Int(_:)`.
    @Test func revisionsAboveIntMaxAreRefused() {
        expectMalformed { _ = try ApplicationContext(wire: context { $0.revision = .max }) }
    }

    /// An invalid time of day was dropped: the event arrived untimed.
    @Test func timesOfDayThatAreNotHHMMAreRefused() {
        for bad in ["8:00", "+8:00", "24:00", "noon"] {
            expectMalformed { _ = try ApplicationContext(wire: context { $0.days[0].events[0].timeOfDay = bad }) }
        }
    }

    /// Milliseconds beyond the years 1 to 9999 lost precision as a Date, wrote JSON timestamps
    /// that did not read back, and trapped when encoded again (Int64.max ms → 2^63).
    @Test func instantsOutsideTheYears1To9999AreRefused() throws {
        for ms in [Int64.max, Int64.min, 253_402_300_800_000, -62_135_596_800_001] {
            expectMalformed { _ = try ApplicationContext(wire: context { $0.generatedAtMs = ms }) }
            expectMalformed { _ = try ApplicationContext(wire: context { $0.days[0].events[0].recordedAtMs = ms }) }
            expectMalformed { _ = try OutcomeValue(wire: .with { $0.dateMs = ms }) }
            expectMalformed { _ = try Caresync_V1_Completion.with { $0.state = .completed; $0.deviceTimeMs = ms }.outcome(device: "w") }
        }
        for ms in [Int64(253_402_300_799_999), -62_135_596_800_000] {
            let wire = Caresync_V1_OutcomeValue.with { $0.dateMs = ms }
            #expect(try OutcomeValue(wire: wire).wire == wire)
        }
    }

    /// NaN and infinities cannot be stored (JSON has no such numbers) and are not equal to
    /// themselves.
    @Test func decimalsThatAreNotFiniteAreRefused() {
        for value in [Double.nan, .infinity, -.infinity] {
            expectMalformed { _ = try OutcomeValue(wire: .with { $0.decimal = value }) }
        }
    }
}
