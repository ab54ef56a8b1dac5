import CarePlan
import CarePlanDocument
import Foundation
import TestSupport
import Testing

struct PlanDocumentTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Examples")
    let fallback = CalendarDay("2026-12-01")!

    @Test func loadsTheZombieCareExample() throws {
        let plan = try PlanDocument.load(path: Self.examples.appendingPathComponent("zombiecare-plan.json").path, defaultStart: fallback)
        #expect(plan.title == "ZombieCare")
        #expect(plan.patient == (try Patient(name: "Zed Zombie", birthDate: CalendarDay("1986-10-31"), identifier: "ZC-0042")))
        #expect(plan.timeZone.identifier == "Europe/Vienna")
        #expect(plan.activities.count == 9)
        #expect(Set(plan.activities.map(\.kind)) == [.intervention, .assessment])
        #expect(plan.contacts.map(\.monogram) == ["MR", "RG"])
        let apple = try #require(plan.activities.first { $0.identifier == "golden-apple" })
        // No start of its own: the plan's start, not the fallback.
        #expect(apple.schedule.start == CalendarDay("2026-11-01"))
        #expect(apple.schedule.weeklyOccurrences == Array(repeating: 3, count: 7))
        let mood = try #require(plan.activities.first { $0.identifier == "mood" })
        #expect(mood.schedule.weeklyOccurrences == [0, 2, 1, 2, 1, 2, 0])
        let pressure = try #require(plan.activities.first { $0.identifier == "blood-pressure" })
        #expect(pressure.measurement == .bloodPressure, "a measurement from the cuff answers it")
        #expect(pressure.result == .number(unit: "mmHg", components: ["systolic", "diastolic"]))
        #expect(plan.insights.ranges == [RangeRule(activity: "pain", atOrAbove: 7, days: 3)])
        #expect(plan.insights.comparisons == [Comparison(intervention: "z-cure", assessment: "pain")])
        #expect(plan.insights.tips.map(\.until) == [CalendarDay("2026-11-29")])
        // The blood pressure gets the default range.
        #expect(plan.insights.ranges(for: pressure).map(\.atOrAbove) == [140, 90])
    }

    @Test func encodingAndDecodingAgain() throws {
        let plan = try PlanDocument.load(path: Self.examples.appendingPathComponent("zombiecare-plan.json").path, defaultStart: fallback)
        let again = try PlanDocument.decode(PlanDocument.encode(plan), file: "re-encoded", defaultStart: fallback)
        #expect(again == plan)
    }

    @Test func schedulesWithoutStartUseTheGivenDefault() throws {
        let plan = try PlanDocument.load(path: Self.examples.appendingPathComponent("minimal-plan.json").path, defaultStart: fallback)
        #expect(plan.activities.first?.schedule.start == fallback)
    }

    static let broken: [(json: String, path: String, message: String)] = [
        (#"{"title": "T", "timeZone": "Europe/Vienna", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"times": ["08:00", "25:00"]}}]}"#,
         "$.activities[0].schedule.times[1]", #"expected a time as HH:MM, found "25:00""#),
        (#"{"title": "T", "timeZone": "Europe/Vienna", "activities": [{"id": "a", "kind": "intervention", "schedule": {"occurrences": 1}}]}"#,
         "$.activities[0].title", #"required field "title" is missing"#),
        (#"{"title": "T", "timeZone": "Mars/Olympus"}"#, "$.timeZone", #"unknown time zone "Mars/Olympus""#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"occurrences": 1}}, {"id": "a", "kind": "intervention", "title": "B", "schedule": {"occurrences": 1}}]}"#,
         "$.activities", #"the activity id "a" is used twice"#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "chore", "title": "A", "schedule": {"occurrences": 1}}]}"#,
         "$.activities[0].kind", #"expected one of "intervention", "assessment", found "chore""#),
        (#"{"title": "T", "timeZone": "UTC", "contacts": [{"id": "c", "kind": "family", "givenName": "C"}]}"#,
         "$.contacts[0].kind", #"expected one of "careTeam", "personal", found "family""#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "assessment", "title": "A", "result": {"type": "colour"}, "schedule": {"occurrences": 1}}]}"#,
         "$.activities[0].result.type", #"unknown result type "colour""#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"weekly": [1, 1, 1]}}]}"#,
         "$.activities[0].schedule", "a weekly schedule needs 7 counts"),
        (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"occurrences": "twice"}}]}"#,
         "$.activities[0].schedule.occurrences", #"expected a whole number from 1 to 96, found "twice""#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "tint": "gold", "schedule": {"occurrences": 1}}]}"#,
         "$.activities[0].tint", #"invalid tint colour "gold""#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"occurrences": 1, "start": "2026-02-30"}}]}"#,
         "$.activities[0].schedule.start", #"found "2026-02-30""#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {}}]}"#,
         "$.activities[0].schedule.occurrences", "a schedule needs"),
        (#"{"title": "T", "timeZone": "UTC", "contacts": [{"id": "c", "kind": "personal", "givenName": "C", "email": "none"}]}"#,
         "$.contacts[0].email", "invalid email"),
        (#"{"format": "caresync-plan/9", "title": "T", "timeZone": "UTC"}"#, "$.format", "unsupported format"),
        (#"{"title": "T", "timeZone": "UTC", "patient": {"name": " "}}"#, "$.patient.name", "the patient needs a name"),
        (#"{"title": "T", "timeZone": "UTC", "patient": {"name": "Zed", "born": "1986-10-31"}}"#,
         "$.patient.born", "unknown field; known fields are name, birthDate, identifier"),
        (#"{"title": "T", "timeZone": "UTC", "insights": {"adherence": {"below": 80}}}"#,
         "$.insights.adherence.below", "expected a fraction from 0 to 1 (0.8 is 80 %), found 80"),
        (#"{"title": "T", "timeZone": "UTC", "insights": {"missedDaysRuning": 3}}"#,
         "$.insights.missedDaysRuning", #"did you mean "missedDaysRunning""#),
        (#"{"title": "T", "timeZone": "UTC", "insights": {"missedDaysRunning": 1.5}}"#,
         "$.insights.missedDaysRunning", "expected a whole number from 1 to 366, found 1.5"),
        (#"{"title": "T", "timeZone": "UTC", "insights": {"ranges": [{"activity": "pain", "days": 3}]}}"#,
         "$.insights.ranges[0]", "a range needs atOrAbove, atOrBelow or both"),
        (#"{"title": "T", "timeZone": "UTC", "insights": {"ranges": [{"activity": "pain", "atOrAbove": 7}]}}"#,
         "$.insights", #"the insights name "pain", which is not an assessment of this plan"#),
        (#"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {"occurrences": 1}}], "insights": {"comparisons": [{"intervention": "a", "assessment": "a"}]}}"#,
         "$.insights", #"the insights name "a", which is not an assessment of this plan"#),
        (#"{"title": "T", "timeZone": "UTC", "insights": {"tips": [{"id": "t", "title": "T", "text": "x", "from": "2026-11-02", "until": "2026-11-01"}]}}"#,
         "$.insights.tips[0].until", "2026-11-01 is before from (2026-11-02)"),
        (#"{"title": "T", "timeZone": "UTC", "insights": {"tips": [{"id": "t", "title": "T", "text": "x"}, {"id": "t", "title": "U", "text": "y"}]}}"#,
         "$.insights", #"the tip id "t" is used twice"#),
    ]

    @Test(arguments: broken)
    func errorsNameFilePathAndProblem(json: String, path: String, message: String) throws {
        let error = try #require(throws: PlanDocumentError.self) {
            try PlanDocument.decode(Data(json.utf8), file: "plan.json", defaultStart: fallback)
        }
        #expect(error.file == "plan.json")
        #expect(error.path == path)
        #expect(error.message.contains(message), "\(error.message)")
        #expect(error.description.hasPrefix("plan.json: \(path): "))
    }

    @Test func aMissingFileIsReported() throws {
        let error = try #require(throws: PlanDocumentError.self) {
            try PlanDocument.load(path: "/nonexistent/plan.json", defaultStart: fallback)
        }
        #expect(error.file == "/nonexistent/plan.json")
        #expect(error.message.contains("cannot read"))
    }

    /// A directory given as the plan says so, not which Foundation error reading it raised.
    @Test func aDirectoryIsReportedAsOne() throws {
        let scratch = Scratch()
        defer { withExtendedLifetime(scratch) {} }
        let directory = scratch.url.path
        let error = try #require(throws: PlanDocumentError.self) {
            try PlanDocument.load(path: directory, defaultStart: fallback)
        }
        #expect(error.description == "\(directory): $: cannot read the file: it is a directory")
    }
}
