import CarePlan
import CarePlanDocument
import Foundation
import Testing

/// Numbers must be whole where whole numbers are meant, and in range; the error names the
/// path and the range instead of "not valid JSON".
struct NumberTests {
    static func schedule(_ fields: String) -> String {
        #"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "intervention", "title": "A", "schedule": {\#(fields)}}]}"#
    }

    static func scale(_ fields: String) -> String {
        #"{"title": "T", "timeZone": "UTC", "activities": [{"id": "a", "kind": "assessment", "title": "A", "result": {"type": "scale", \#(fields)}, "schedule": {"occurrences": 1}}]}"#
    }

    static let wrong: [(json: String, path: String, message: String)] = [
        (schedule(#""occurrences": 2.5"#), "$.activities[0].schedule.occurrences", "expected a whole number from 1 to 96, found 2.5"),
        (schedule(#""occurrences": 1e30"#), "$.activities[0].schedule.occurrences", "expected a whole number from 1 to 96, found 1e30"),
        (schedule(#""occurrences": 97"#), "$.activities[0].schedule.occurrences", "expected a whole number from 1 to 96, found 97"),
        (schedule(#""occurrences": 0"#), "$.activities[0].schedule.occurrences", "expected a whole number from 1 to 96, found 0"),
        (schedule(#""occurrences": -2"#), "$.activities[0].schedule.occurrences", "expected a whole number from 1 to 96, found -2"),
        (schedule(#""occurrences": true"#), "$.activities[0].schedule.occurrences", "expected a whole number from 1 to 96, found true"),
        (schedule(#""occurrences": [2]"#), "$.activities[0].schedule.occurrences", "expected a whole number from 1 to 96, found an array"),
        (schedule(#""occurrences": {"n": 2}"#), "$.activities[0].schedule.occurrences", "expected a whole number from 1 to 96, found an object"),
        (schedule(#""weekly": [0, 1, 1, 1, 1, 1, 1.5]"#), "$.activities[0].schedule.weekly[6]", "expected a whole number from 0 to 96, found 1.5"),
        (schedule(#""weekly": [0, -1, 1, 1, 1, 1, 1]"#), "$.activities[0].schedule.weekly[1]", "expected a whole number from 0 to 96, found -1"),
        (schedule(#""occurrences": 1, "daysToSkip": -1"#), "$.activities[0].schedule.daysToSkip", "expected a whole number from 0 to 2147483647, found -1"),
        (schedule(#""occurrences": 1, "daysToSkip": 9223372036854775807"#), "$.activities[0].schedule.daysToSkip", "expected a whole number from 0 to 2147483647, found 9.223372036854776e18"),
        (schedule(#""occurrences": 1, "count": 0"#), "$.activities[0].schedule.count", "expected a whole number from 1 to 2147483647, found 0"),
        (schedule(#""occurrences": 1, "count": 99999999999999999999"#), "$.activities[0].schedule.count", "expected a whole number from 1 to 2147483647, found 1e20"),
        (schedule(#""occurrences": 1, "count": 1e-7"#), "$.activities[0].schedule.count", "expected a whole number from 1 to 2147483647, found 1e-07"),
        (scale(#""min": 0.5, "max": 10"#), "$.activities[0].result.min", "expected a whole number from -2147483647 to 2147483647, found 0.5"),
        (scale(#""min": 0, "max": 1e30"#), "$.activities[0].result.max", "expected a whole number from -2147483647 to 2147483647, found 1e30"),
        (scale(#""min": "0", "max": 10"#), "$.activities[0].result.min", #"expected a whole number from -2147483647 to 2147483647, found "0""#),
    ]

    @Test(arguments: wrong)
    func numbersOfTheWrongKindNameTheirPathAndRange(json: String, path: String, message: String) throws {
        let error = try #require(throws: PlanDocumentError.self) {
            try PlanDocument.decode(Data(json.utf8), file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
        }
        #expect(error.description == "plan.json: \(path): \(message)")
    }

    @Test func wholeNumbersMayBeWrittenAnyWayJSONAllows() throws {
        let json = Self.schedule(#""occurrences": 2.0, "daysToSkip": 1E1, "count": 2147483647"#)
        let plan = try PlanDocument.decode(Data(json.utf8), file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
        let schedule = plan.activities[0].schedule
        #expect(schedule.weeklyOccurrences == Array(repeating: 2, count: 7))
        #expect(schedule.daysToSkip == 10)
        #expect(schedule.totalCount == 2_147_483_647)
        let scale = try PlanDocument.decode(Data(Self.scale(#""min": -5, "max": 5"#).utf8), file: "plan.json", defaultStart: CalendarDay("2026-12-01")!)
        #expect(scale.activities[0].result == .scale(min: -5, max: 5))
    }
}
