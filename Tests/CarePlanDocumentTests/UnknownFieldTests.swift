import CarePlan
import CarePlanDocument
import Foundation
import Testing

/// A misspelt field is not ignored: a Monday-only medication must not become a daily one.
struct UnknownFieldTests {
    /// A plan whose activity `a` has `fields` added to it, its schedule `schedule`.
    static func plan(activity fields: String = "", schedule: String = #""occurrences": 1"#, plan extra: String = "") -> String {
        #"{"title": "T", "timeZone": "UTC"\#(extra), "activities": [{"id": "a", "kind": "assessment", "title": "A"\#(fields), "schedule": {\#(schedule)}}]}"#
    }

    static let unknown: [(json: String, path: String, message: String)] = [
        (plan(schedule: #""occurrences": 1, "daysofweek": ["monday"]"#),
         "$.activities[0].schedule.daysofweek", #"unknown field; did you mean "daysOfWeek"?"#),
        (plan(schedule: #""occurences": 1"#), "$.activities[0].schedule.occurences", #"unknown field; did you mean "occurrences"?"#),
        (plan(activity: #", "titel": "B""#), "$.activities[0].titel", #"unknown field; did you mean "title"?"#),
        (plan(plan: #", "timezone": "UTC""#), "$.timezone", #"unknown field; did you mean "timeZone"?"#),
        (plan(activity: #", "result": {"type": "scale", "min": 0, "max": 10, "maxLable": "worst"}"#),
         "$.activities[0].result.maxLable", #"unknown field; did you mean "maxLabel"?"#),
        (plan(activity: #", "medication": {"request": "MedicationRequest/1", "dispaly": "A"}"#),
         "$.activities[0].medication.dispaly", #"unknown field; did you mean "display"?"#),
        (plan(plan: #", "contacts": [{"id": "c", "kind": "personal", "givenName": "C", "emial": "c@example.org"}]"#),
         "$.contacts[0].emial", #"unknown field; did you mean "email"?"#),
        (plan(plan: #", "routine": {"Dinner": "19:00"}"#), "$.routine.Dinner", #"unknown field; did you mean "dinner"?"#),
        (plan(plan: #", "routine": {"dayParts": {"afternon": "16:00"}}"#),
         "$.routine.dayParts.afternon", #"unknown day part; did you mean "afternoon"?"#),
        (plan(plan: #", "routine": {"dosesPerDay": {"2.5": ["08:00"]}}"#),
         #"$.routine.dosesPerDay["2.5"]"#, "expected a whole number of doses from 1 to 96"),
        // Nothing close: the known fields instead of a guess.
        (plan(schedule: #""occurrences": 1, "colour": "red""#), "$.activities[0].schedule.colour",
         "unknown field; known fields are start, end, occurrences, weekly, daysOfWeek, daysToSkip, times, count, asNeeded"),
        (plan(plan: #", "author": "Dr. R""#), "$.author",
         "unknown field; known fields are format, title, patient, start, timeZone, routine, activities, contacts, insights, missedDose"),
    ]

    @Test(arguments: unknown)
    func unknownFieldsAreNamedWithASuggestion(json: String, path: String, message: String) throws {
        let error = try #require(throws: PlanDocumentError.self) {
            try PlanDocument.decode(Data(json.utf8), file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
        }
        #expect(error.description == "plan.json: \(path): \(message)")
    }

    @Test func userInfoIsFreeForm() throws {
        let json = Self.plan(activity: #", "userInfo": {"anything": "goes", "daysofweek": "monday"}"#)
        let plan = try PlanDocument.decode(Data(json.utf8), file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
        #expect(plan.activities[0].userInfo == ["anything": "goes", "daysofweek": "monday"])
    }

    @Test func theStoreStillReadsWhatItDoesNotKnow() throws {
        // Only documents are strict: JSON written by another version of CareSync is read as before.
        let json = #"{"occurrences": 2, "start": "2026-12-01", "newField": true}"#
        let schedule = try JSONDecoder().decode(Schedule.self, from: Data(json.utf8))
        #expect(schedule.weeklyOccurrences == Array(repeating: 2, count: 7))
    }

    @Test func wrongTypesSayWhatWasFound() throws {
        for (json, expected) in [
            (Self.plan(activity: #", "tags": "red""#), "plan.json: $.activities[0].tags: expected an array, found a string"),
            (Self.plan(activity: #", "resultResettable": "yes""#), "plan.json: $.activities[0].resultResettable: expected true or false, found a string"),
            (#"{"title": 7, "timeZone": "UTC"}"#, "plan.json: $.title: expected a string, found a number"),
            (#"{"title": "T", "timeZone": "UTC", "routine": []}"#, "plan.json: $.routine: expected an object, found an array"),
        ] {
            let error = try #require(throws: PlanDocumentError.self) {
                try PlanDocument.decode(Data(json.utf8), file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
            }
            #expect(error.description == expected)
        }
    }
}
