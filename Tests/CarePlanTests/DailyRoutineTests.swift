import CarePlan
import Foundation
import Testing

/// The patient's routine: the one table of day-part times and standard administration times.
struct DailyRoutineTests {
    func t(_ text: String) -> TimeOfDay { TimeOfDay(text)! }

    @Test func theStandardRoutineAndItsDayParts() {
        let routine = DailyRoutine.standard
        let expected: [DayPart: String] = [
            .wake: "07:00", .breakfast: "08:00", .lunch: "12:30", .dinner: "18:30", .bed: "22:00",
            .earlyMorning: "07:00", .morning: "08:00", .lateMorning: "10:00", .noon: "12:00",
            .earlyAfternoon: "13:30", .afternoon: "15:00", .lateAfternoon: "16:30", .earlyEvening: "17:30",
            .evening: "19:00", .lateEvening: "20:00", .night: "22:00",
        ]
        #expect(Set(expected.keys) == Set(DayPart.allCases))
        for (part, time) in expected { #expect(routine.time(of: part) == t(time), "\(part)") }
    }

    @Test func dayPartsMoveWithThePatientsDayUnlessSetThemselves() throws {
        let late = try DailyRoutine(wake: t("09:30"), breakfast: t("10:00"), lunch: t("14:00"), dinner: t("20:00"), bed: t("01:00"),
                                    dayParts: [.afternoon: t("16:45")])
        #expect(late.time(of: .morning) == t("10:00"))
        #expect(late.time(of: .lateMorning) == t("12:00"))
        #expect(late.time(of: .afternoon) == t("16:45"))
        #expect(late.time(of: .lateEvening) == t("23:00"))
        #expect(late.time(of: .night) == t("01:00"))
        // Five doses from waking to a bedtime after midnight.
        #expect(late.administrationTimes(count: 5) == [t("01:00"), t("09:30"), t("13:25"), t("17:15"), t("21:10")])
    }

    @Test func standardAdministrationTimesFollowTheMealsThenSpreadOverTheWakingDay() {
        let routine = DailyRoutine.standard
        #expect(routine.administrationTimes(count: 1) == [t("08:00")])
        #expect(routine.administrationTimes(count: 2) == [t("08:00"), t("18:30")])
        #expect(routine.administrationTimes(count: 3) == [t("08:00"), t("12:30"), t("18:30")])
        #expect(routine.administrationTimes(count: 4) == [t("08:00"), t("12:30"), t("18:30"), t("22:00")])
        #expect(routine.administrationTimes(count: 6) == [t("07:00"), t("10:00"), t("13:00"), t("16:00"), t("19:00"), t("22:00")])
        for count in 1...Schedule.maximumOccurrencesPerDay {
            let times = routine.administrationTimes(count: count)
            #expect(times.count == count && Set(times).count == count && times == times.sorted(), "\(count) a day")
        }
        // Beyond the schedule's limit the times still come (a day of 1440 distinct minutes,
        // then some twice), where more than 1440 never returned (found by fuzz-fhir-import).
        #expect(Set(routine.administrationTimes(count: 1440)).count == 1440)
        #expect(routine.administrationTimes(count: 2000).count == 2000)
    }

    @Test func intervalTimesRunAroundTheClockFromWakingOrTheirOwnStart() throws {
        #expect(DailyRoutine.standard.intervalTimes(count: 3) == [t("07:00"), t("15:00"), t("23:00")])
        #expect(DailyRoutine.standard.intervalTimes(count: 4) == [t("01:00"), t("07:00"), t("13:00"), t("19:00")])
        let sixAM = try DailyRoutine(intervalStart: t("06:00"))
        #expect(sixAM.intervalTimes(count: 4) == [t("00:00"), t("06:00"), t("12:00"), t("18:00")])
        for count in 1...Schedule.maximumOccurrencesPerDay {
            #expect(Set(DailyRoutine.standard.intervalTimes(count: count)).count == count, "every \(1440 / count) minutes")
        }
    }

    @Test func aPlanMaySetItsOwnTimesForAnyNumberOfDoses() throws {
        let routine = try DailyRoutine(dosesPerDay: [2: [t("21:00"), t("09:00")]])
        #expect(routine.administrationTimes(count: 2) == [t("09:00"), t("21:00")])
        #expect(routine.administrationTimes(count: 3) == DailyRoutine.standard.administrationTimes(count: 3))
        #expect(throws: RoutineError.wrongNumberOfTimes(count: 2, given: 1)) { try DailyRoutine(dosesPerDay: [2: [t("09:00")]]) }
        #expect(throws: RoutineError.wrongNumberOfTimes(count: 2, given: 2)) { try DailyRoutine(dosesPerDay: [2: [t("09:00"), t("09:00")]]) }
        #expect(throws: RoutineError.dosesPerDayOutOfRange(0)) { try DailyRoutine(dosesPerDay: [0: []]) }
    }

    @Test func theDayMustRunFromWakingToBed() {
        #expect(throws: RoutineError.outOfOrder) { try DailyRoutine(breakfast: t("13:00")) }
        #expect(throws: RoutineError.outOfOrder) { try DailyRoutine(wake: t("08:00"), breakfast: t("08:00")) }
        #expect(throws: RoutineError.outOfOrder) { try DailyRoutine(bed: t("18:00")) }
    }

    @Test func givenTimesAreCompletedWithTheFarthestStandardOnes() {
        let routine = DailyRoutine.standard
        #expect(routine.times(completing: [t("08:00"), t("19:00")], to: 3) == [t("08:00"), t("19:00"), t("12:30")])
        #expect(routine.times(completing: [], to: 2) == [t("08:00"), t("18:30")])
        #expect(routine.times(completing: [t("09:00")], to: 1) == [t("09:00")])
    }

    @Test func jsonFormRoundTripsAndNamesWhatIsWrong() throws {
        let json = #"{"wake": "06:00", "breakfast": "06:30", "dayParts": {"evening": "20:00"}, "dosesPerDay": {"2": ["06:30", "18:00"]}, "intervalStart": "06:00"}"#
        let routine = try JSONDecoder().decode(DailyRoutine.self, from: Data(json.utf8))
        #expect(routine.wake == t("06:00") && routine.lunch == DailyRoutine.standard.lunch)
        #expect(routine.time(of: .evening) == t("20:00"))
        #expect(routine.administrationTimes(count: 2) == [t("06:30"), t("18:00")])
        let again = try JSONDecoder().decode(DailyRoutine.self, from: JSONEncoder().encode(routine))
        #expect(again == routine)
        for (bad, message) in [
            (#"{"dayParts": {"teatime": "16:00"}}"#, "unknown day part; known day parts are earlyMorning, morning,"),
            (#"{"dayParts": {"afternon": "16:00"}}"#, #"unknown day part; did you mean "afternoon"?"#),
            (#"{"dayParts": {"breakfast": "09:00"}}"#, #"set the routine's own "breakfast" instead"#),
            (#"{"dosesPerDay": {"two": ["08:00"]}}"#, "expected a whole number of doses from 1 to 96"),
            (#"{"dosesPerDay": {"0": []}}"#, "expected a whole number of doses from 1 to 96"),
            (#"{"lunch": "07:00"}"#, "must follow the day from waking"),
            (#"{"bed": "25:00"}"#, "expected a time as HH:MM"),
        ] {
            #expect {
                try JSONDecoder().decode(DailyRoutine.self, from: Data(bad.utf8))
            } throws: { error in
                String(describing: error).contains(message)
            }
        }
    }
}
