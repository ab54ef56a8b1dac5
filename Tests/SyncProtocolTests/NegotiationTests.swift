import CarePlan
import Foundation
import SyncProtocol
import Testing

struct NegotiationTests {
    @Test func theHighestCommonVersionIsChosen() throws {
        #expect(try ProtocolVersion.negotiate(offered: [1, 2, 3], supported: [1, 2]) == 2)
        #expect(try ProtocolVersion.negotiate(offered: [1]) == 1)
    }

    @Test func noCommonVersionNamesBothSides() throws {
        let error = try #require(throws: ProtocolError.self) { try ProtocolVersion.negotiate(offered: [3, 2], supported: [1]) }
        #expect(error.code == .versionMismatch)
        #expect(error.message == "no common protocol version: the companion offers 2, 3, the primary speaks 1")
        #expect(error.isFatal)
    }
}

struct ApplicationContextWireTests {
    @Test func contextsSurviveTheWire() throws {
        let day = CalendarDay("2026-11-23")!
        let context = ApplicationContext(
            revision: 12, planID: "p", planTitle: "ZombieCare", timeZone: "Europe/Vienna",
            days: [.init(day: day, events: [
                .init(key: EventKey(activityID: "bp", day: day, occurrence: 1), title: "Blood pressure", kind: .assessment,
                      time: TimeOfDay("20:00"), state: .completed,
                      values: [OutcomeValue(.integer(120), unit: "mmHg", kind: "systolic"), OutcomeValue(.decimal(80.5), unit: "mmHg")],
                      instructions: "Sit", group: "vitals", version: 2, recordedBy: "watch",
                      recordedAt: Date(timeIntervalSince1970: 1_795_460_400.123)),
                .init(key: EventKey(activityID: "apple", day: day, occurrence: 0), title: "Apple", kind: .intervention,
                      time: nil, state: .initial, values: [], instructions: nil, group: nil, version: 1, recordedBy: nil,
                      recordedAt: nil),
            ])],
            generatedAt: Date(timeIntervalSince1970: 1_795_460_401), clock: HybridTimestamp(physical: 5, logical: 1, node: "p"))
        let bytes: [UInt8] = try context.wire.serializedBytes()
        let back = try ApplicationContext(wire: Caresync_V1_ApplicationContext(serializedBytes: bytes))
        #expect(back == context)
        #expect(back.incomplete.map(\.key.activityID) == ["apple"])
    }

    @Test func completionsCarryTheirEventAndOutcome() throws {
        let completion = Caresync_V1_Completion.with {
            $0.messageID = "m"
            $0.activityID = "pain"
            $0.day = "2026-11-23"
            $0.occurrence = 0
            $0.state = .completed
            $0.values = [OutcomeValue(.integer(7)).wire]
            $0.deviceTimeMs = 1_795_460_400_000
            $0.clock = HybridTimestamp(physical: 1_795_460_400_000, logical: 3, node: "watch").wire
        }
        #expect(try completion.eventKey() == EventKey(activityID: "pain", day: CalendarDay("2026-11-23")!, occurrence: 0))
        let outcome = try completion.outcome(device: "watch")
        #expect(outcome.values == [OutcomeValue(.integer(7))])
        #expect(outcome.clock == HybridTimestamp(physical: 1_795_460_400_000, logical: 3, node: "watch"))
        var bad = completion
        bad.day = "23.11.2026"
        #expect(throws: ProtocolError.self) { try bad.eventKey() }
        bad.state = .unspecified
        #expect(throws: ProtocolError.self) { try bad.outcome(device: "w") }
    }
}
