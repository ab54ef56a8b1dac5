import CarePlan
import Foundation
import Testing

struct ModelCodingTests {
    let start = CalendarDay("2026-11-02")!

    func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    @Test func activitiesRoundTripThroughJSON() throws {
        let bloodPressure = try Activity(
            identifier: "bp", groupIdentifier: "vitals", kind: .assessment, title: "Blood pressure",
            tintColor: "#AA0000", tags: ["vitals", "vitals", "daily"], resultResettable: true,
            result: .number(unit: "mmHg", components: ["systolic", "diastolic"]), userInfo: ["cuff": "left"],
            medication: nil,
            schedule: try .weekly([1, 0, 2, 0, 2, 0, 1], times: [TimeOfDay("08:00")!], start: start, totalCount: 30))
        #expect(bloodPressure.tags == ["daily", "vitals"])
        #expect(try roundTrip(bloodPressure) == bloodPressure)
        let skip = try Activity(
            identifier: "tonic", kind: .intervention, title: "Tonic",
            medication: MedicationLink(request: "MedicationRequest/7", display: "Tonic 5 ml"),
            schedule: try .daily(occurrences: 2, start: start, end: start.adding(days: 9), daysToSkip: 1, weekdays: [.monday, .friday]))
        #expect(try roundTrip(skip) == skip)
    }

    @Test func daysTimesAndWeekdaysAreCodedAsStrings() throws {
        let json = try JSONEncoder().encode([CalendarDay("2026-11-23")!.description: [Weekday.monday, .sunday]])
        #expect(String(decoding: json, as: UTF8.self) == #"{"2026-11-23":["monday","sunday"]}"#)
        #expect(try JSONDecoder().decode([Weekday].self, from: Data(#"["Mon","friday"]"#.utf8)) == [.monday, .friday])
        #expect(try JSONDecoder().decode([TimeOfDay].self, from: Data(#"["07:45"]"#.utf8)) == [TimeOfDay("07:45")!])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Weekday].self, from: Data("[1]".utf8)) }
    }

    @Test func outcomesKeepTypedValuesUnitsAndKinds() throws {
        let outcome = Outcome(
            state: .completed,
            values: [
                OutcomeValue(.integer(120), unit: "mmHg", kind: "systolic"), OutcomeValue(.decimal(71.25), unit: "kg"),
                OutcomeValue(.boolean(true)), OutcomeValue(.text("dizzy")),
                OutcomeValue(.date(Date(timeIntervalSince1970: 1_790_000_000.125))),
            ],
            recordedAt: Date(timeIntervalSince1970: 1_790_000_000.5), device: "watch-1", reason: nil, userInfo: ["k": "v"])
        #expect(try roundTrip(outcome) == outcome)
        let json = String(decoding: try JSONEncoder().encode(OutcomeValue(.integer(7), unit: "mmHg")), as: UTF8.self)
        #expect(json.contains("\"integer\":7"))
    }

    /// Found by scripts/fuzz (wire): Foundation's ISO 8601 style truncates fractional
    /// seconds, so about half of all millisecond instants came back one millisecond early
    /// (…01.024 written as …01.023).
    @Test func timestampsKeepTheirMillisecond() throws {
        for milliseconds in [Int64(1_795_460_401_024), 1_795_460_400_001, 0, -1, -62_135_596_800_000, 253_402_300_799_999] {
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = ISO8601.string(from: date)
            #expect(ISO8601.date(from: text) == date, "\(milliseconds) → \(text)")
        }
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: 1_795_460_401.024)) == "2026-11-23T19:00:01.024Z")
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        let outcome = Outcome(
            state: .completed, values: [OutcomeValue(.date(Date(timeIntervalSince1970: 1_795_460_401.024)))],
            recordedAt: Date(timeIntervalSince1970: 1_795_460_401.024), device: "watch")
        #expect(try roundTrip(outcome) == outcome)
    }

    @Test func assessmentResultsAreChecked() throws {
        let scale = ResultKind.scale(min: 0, max: 10)
        try scale.check([OutcomeValue(.integer(10))])
        #expect(throws: ResultError.outOfScale(11, min: 0, max: 10)) { try scale.check([OutcomeValue(.integer(11))]) }
        #expect(throws: ResultError.wrongValueCount(expected: 1, found: 0)) { try scale.check([]) }
        #expect(throws: ResultError.wrongType(expected: scale)) {
            try scale.check([OutcomeValue(.text("7"))])
        }
        let pressure = ResultKind.number(unit: "mmHg", components: ["systolic", "diastolic"])
        try pressure.check([OutcomeValue(.integer(120)), OutcomeValue(.decimal(80.5))])
        #expect(throws: ResultError.wrongValueCount(expected: 2, found: 1)) { try pressure.check([OutcomeValue(.integer(120))]) }
    }

    @Test func invalidActivitiesAreRefused() throws {
        let schedule = try Schedule.daily(occurrences: 1, start: start)
        #expect(throws: ActivityError.invalidIdentifier("two words")) {
            try Activity(identifier: "two words", kind: .intervention, title: "x", schedule: schedule)
        }
        #expect(throws: ActivityError.emptyTitle) { try Activity(identifier: "a", kind: .intervention, title: " ", schedule: schedule) }
        #expect(throws: ActivityError.invalidTintColor("red")) {
            try Activity(identifier: "a", kind: .intervention, title: "A", tintColor: "red", schedule: schedule)
        }
        #expect(throws: ActivityError.resultOnIntervention) {
            try Activity(identifier: "a", kind: .intervention, title: "A", result: .boolean, schedule: schedule)
        }
    }

    @Test func versionsGovernTheirWindowOnly() throws {
        let activity = try Activity(identifier: "a", kind: .intervention, title: "A", schedule: .daily(occurrences: 2, start: start))
        let version = ActivityVersion(activity: activity, version: 1, effectiveFrom: start.adding(days: 2), effectiveUntil: start.adding(days: 4))
        #expect((0..<6).map { version.occurrenceCount(on: start.adding(days: $0)) } == [0, 0, 2, 2, 0, 0])
        let events = version.events(on: start.adding(days: 2))
        #expect(events.map(\.key.description) == ["a@2026-11-04#0", "a@2026-11-04#1"])
        #expect(events.allSatisfy { $0.state == .initial })
    }

    @Test func contactsDeriveTheirMonogram() throws {
        let contact = try Contact(identifier: "dr", kind: .careTeam, givenName: "maria", familyName: "Ruiz")
        #expect(contact.monogram == "MR")
        #expect(try roundTrip(contact) == contact)
        #expect(throws: ContactError.invalidEmail("nope")) {
            try Contact(identifier: "x", kind: .personal, givenName: "X", email: "nope")
        }
    }
}
